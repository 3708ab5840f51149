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
import unicodedata
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
    note: str = None        # for the teacher's eye: a look-alike name, a stamp that claims another notebook


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
        text = path.read_bytes().decode("utf-8-sig")             # a byte-order mark, as some editors write, is dropped
    except UnicodeDecodeError:
        raise ValueError("not a notebook: a binary file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a notebook: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise ValueError("not a notebook: JSON nested too deeply for any notebook") from None
    old = isinstance(data, dict) and data.get("nbformat") == 3 and isinstance(data.get("worksheets"), list)
    if not isinstance(data, dict) or not (isinstance(data.get("cells"), list) or old):
        raise ValueError("not a notebook: JSON without a list of cells")
    try:
        nb = nbformat.reads(text, as_version=4)                  # an nbformat 3 notebook is converted
    except Exception as exc:                                      # noqa: BLE001 -- nbformat's many errors
        raise ValueError(f"not a notebook: {type(exc).__name__}: {str(exc)[:200]}") from None
    if not isinstance(nb.get("metadata"), dict) or not all(isinstance(c, dict) for c in nb.cells):
        raise ValueError("not a notebook: its metadata or cells are not JSON objects")
    return nb, (nbformat.writes(nb) if old else text)


def match(nb, course):
    """(course notebook stem, how) for a notebook node, or (None, None).  The stamp `course build` writes
    decides, unless the notebook's check cells are all another notebook's: then they do, and `how` says what
    the stamp claimed (after "; ")."""
    stamp = nb.get("metadata", {}).get("lesson", {})
    stamp = stamp.get("notebook") if isinstance(stamp, dict) else None
    stamp = stamp if isinstance(stamp, str) else None            # a list or a dict is no stamp
    code = [c.get("source", "") for c in nb.cells if c.get("cell_type") == "code"]
    names = {n for s in code if has_marker(s) for n in called_checks(s)} or {n for s in code
                                                                             for n in called_checks(s)}

    def overlap(stem):
        theirs = {c.name for c in course[stem].checks}
        return len(theirs & names) / len(theirs | names) if theirs else 0.0
    if stamp in course:
        if names and overlap(stamp) == 0:
            other = max(course, key=overlap)
            if overlap(other) > 0:
                return other, f"check cells; its stamp says {stamp}, but its check cells are {other}'s"
        return stamp, "metadata"
    sources = {normalise(c.get("source", "")) for c in nb.cells}

    def shared(stem):
        return len(course[stem].cells & sources) / max(1, len(course[stem].cells))
    if names:
        best = max(course, key=lambda stem: (overlap(stem), shared(stem)))
        if overlap(best) > 0:
            return best, "check cells"
    best = max(course, key=shared)
    if shared(best) >= 0.5:
        return best, "cells"
    return None, None


def student_name(path, base, stem=None):
    """The folder per student, or the file name less the course notebook's name and a download suffix;
    Unicode-normalised (NFKC), so that the same name typed two ways is one student."""
    return unicodedata.normalize("NFKC", _raw_name(path, base, stem))


def mixed_scripts(name):
    """The scripts (Latin, Cyrillic, Greek, ...) of a name's letters when it mixes several, else None: 'аlice'
    with a Cyrillic 'а' looks like 'alice' and is another student."""
    scripts = sorted({unicodedata.name(ch, "?").split()[0] for ch in name if ch.isalpha()})
    return scripts if len(scripts) > 1 else None


def _raw_name(path, base, stem=None):
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
    notes = [how.split("; ", 1)[1]] if "; " in (how or "") else []
    scripts = mixed_scripts(sub.student)
    if scripts:
        notes.append(f"the student name {sub.student!r} mixes {' and '.join(s.title() for s in scripts)} letters: "
                     f"check it is the student you think")
    sub.note = "; ".join(notes) or None
    return sub
