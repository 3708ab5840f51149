"""Submissions as a learning platform hands them over: files and folders, any names, matched by content.

- `find(paths)`: every file given, and every file under every folder given (recursively; hidden files and
  folders such as .ipynb_checkpoints are skipped).
- `identify(path, base, course)`: reads the file and says which course notebook it is:
  1. the id `course build` stamps in the notebook's metadata (`metadata["lesson"]["notebook"]`);
  2. otherwise the checks its code calls (`checks.NAME(...)`), compared with each course notebook's;
  3. otherwise the cells it shares with each course notebook (at least half of the course's cells).
  A file that is not a notebook, or not one of this course, comes back with the reason.
- The student is the folder per student (the first folder under a folder given), or else the file name less
  the course notebook's name and a browser's download suffix: `s1042_02_model (1).ipynb` -> `s1042`.
"""
import json
import re
from dataclasses import dataclass
from pathlib import Path

from .course_notebooks import called_checks, has_marker, normalise

MAX_BYTES = 50 * 1024 * 1024
DOWNLOAD_SUFFIX = re.compile(r"(\s*\(\d+\)|[\s_-]*copy(\s*\d+)?)+$", re.IGNORECASE)
SKIPPED = ("__MACOSX", "__pycache__")


class UsageError(Exception):
    """Grading cannot start: a path that does not exist, an option out of range."""


@dataclass
class Submission:
    """One file: who (`student`), which course notebook (`notebook`, None if none), how it was matched, its
    notebook JSON `text` when it can be graded, or the `problem` that stops it."""
    path: Path
    label: str
    student: str
    notebook: str = None
    matched_by: str = None
    text: str = None
    problem: str = None


def find(paths):
    """[(file, folder argument it was found under or None)] in a stable order, each file once."""
    found, seen = [], set()
    for arg in map(Path, paths):
        if not arg.exists():
            raise UsageError(f"{arg} does not exist: give notebook files or folders of submissions")
        if arg.is_file():
            files = [(arg, None)]
        else:
            files = [(p, arg) for p in sorted(arg.rglob("*")) if p.is_file()
                     and not any(part.startswith(".") or part in SKIPPED for part in p.relative_to(arg).parts)]
        for path, base in files:
            key = path.resolve()
            if key not in seen:
                seen.add(key)
                found.append((path, base))
    if not found:
        raise UsageError(f"no files found under {', '.join(map(str, paths))}: give the folder that holds the "
                         f"class's notebooks, or the notebook files")
    return found


def read(path):
    """(notebook node, JSON text) of a notebook file, or raises ValueError saying why it is not one."""
    import nbformat
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise ValueError(f"not graded: {size / 1e6:.0f} MB is larger than any notebook of the course")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("not a notebook: a binary file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a notebook: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise ValueError("not a notebook: JSON without a list of cells")
    try:
        return nbformat.reads(text, as_version=4), text
    except Exception as exc:                                      # noqa: BLE001 -- nbformat's many errors
        raise ValueError(f"not a notebook: {type(exc).__name__}: {str(exc)[:200]}") from None


def match(nb, course):
    """(course notebook stem, how) for a notebook node, or (None, None)."""
    stamp = nb.get("metadata", {}).get("lesson", {})
    stamp = stamp.get("notebook") if isinstance(stamp, dict) else None
    if stamp in course:
        return stamp, "metadata"
    code = [c.get("source", "") for c in nb.cells if c.get("cell_type") == "code"]
    names = {n for s in code if has_marker(s) for n in called_checks(s)} or {n for s in code
                                                                             for n in called_checks(s)}
    sources = {normalise(c.get("source", "")) for c in nb.cells}

    def shared(stem):
        return len(course[stem].cells & sources) / max(1, len(course[stem].cells))
    if names:
        def overlap(stem):
            theirs = {c.name for c in course[stem].checks}
            return len(theirs & names) / len(theirs | names) if theirs else 0.0
        best = max(course, key=lambda stem: (overlap(stem), shared(stem)))
        if overlap(best) > 0:
            return best, "check cells"
    best = max(course, key=shared)
    if shared(best) >= 0.5:
        return best, "cells"
    return None, None


def student_name(path, base, stem=None):
    """The folder per student, or the file name less the course notebook's name and a download suffix."""
    if base is not None:
        parts = path.relative_to(base).parts
        if len(parts) > 1:
            return parts[0]
    name = re.sub(re.escape(stem), "", path.stem, flags=re.IGNORECASE) if stem else path.stem
    name = DOWNLOAD_SUFFIX.sub("", name.strip(" _-.")).strip(" _-.")
    return name or (Path(base).resolve().name if base is not None else path.resolve().parent.name) or "(unknown)"


def identify(path, base, course):
    """The Submission for one file found by `find`."""
    try:
        nb, text = read(path)
    except (OSError, ValueError) as exc:
        return Submission(path, str(path), student_name(path, base), problem=str(exc))
    stem, how = match(nb, course)
    if stem is None:
        return Submission(path, str(path), student_name(path, base),
                          problem="not a notebook of this course (no check, id or cells of the course found)")
    sub = Submission(path, str(path), student_name(path, base, stem), stem, how, text)
    if not course[stem].checks:
        sub.problem = f"{stem} has no graded checks"
    return sub
