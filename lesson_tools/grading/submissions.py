"""Submissions as a learning platform hands them over, matched by content to the course's notebooks.

- `identify(file, course, pattern)`: reads a file found by `intake.find` and says which course notebook it is:
  1. the id `course build` stamps in the notebook's metadata (`metadata["lesson"]["notebook"]`);
  2. otherwise the checks its code calls (`checks.NAME(...)`), compared with each course notebook's;
  3. otherwise the cells it shares with each course notebook (at least half of the course's cells).
  A file that is not a notebook, or not one of this course, comes back with the reason.  Who handed it in is
  `intake.person`'s answer (Canvas and Moodle names, a teacher's pattern, a folder per student, the file name).
"""
import json
from dataclasses import dataclass

from . import intake
from .course_notebooks import called_checks, has_marker, normalise
from .intake import File, Person, UsageError, person  # noqa: F401 -- UsageError: one home, re-exported


@dataclass
class Submission:
    """One file: who handed it in (`person`), which course notebook (`notebook`, None if none), how it was
    matched, its notebook JSON `text` when it can be graded, or the `problem` that stops it."""
    file: File
    person: Person
    notebook: str = None
    matched_by: str = None
    text: str = None
    problem: str = None
    note: str = None        # for the teacher's eye: a look-alike name, a stamp that claims another notebook
    code: tuple = ()        # the sources of its code cells, in order (read once, for the flags and the feedback)

    @property
    def label(self):
        return self.file.label

    @property
    def student(self):
        return self.person.name if self.person else "(unknown)"


def read(file):
    """(notebook node, JSON text) of a File, or raises ValueError saying why it is not a notebook."""
    import nbformat
    if file.problem:
        raise ValueError(file.problem)
    limit = intake.MAX_BYTES
    data = file.read_bytes() if file.size <= limit else b""
    if file.size > limit or len(data) > limit:
        raise ValueError(f"not graded: {max(file.size, len(data)) / 1e6:.0f} MB or more is larger than any notebook "
                         f"of the course")
    try:
        text = data.decode("utf-8-sig")             # a byte-order mark, as some editors write, is dropped
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


def identify(file, course, pattern=None):
    """The Submission for one File found by `intake.find` (`pattern`: the teacher's compiled --pattern, or None)."""
    try:
        nb, text = read(file)
    except (OSError, ValueError) as exc:
        climbs = not file.rel or ".." in file.rel
        who = (not climbs and person(file, None, pattern)) or _unmatched(file)
        return Submission(file, who, problem=str(exc), note=who.claim)
    stem, how = match(nb, course)
    who = person(file, stem, pattern)
    if who is None:
        return Submission(file, _unmatched(file), stem, how,
                          problem=f"its path {'/'.join(file.rel)!r} does not match --pattern {pattern.pattern!r}")
    if stem is None:
        return Submission(file, who,
                          problem="not a notebook of this course (no check, id or cells of the course found)")
    sub = Submission(file, who, stem, how, text, code=code_cells(nb))
    if not course[stem].checks:
        sub.problem = f"{stem} has no graded checks"
    notes = [how.split("; ", 1)[1]] if "; " in (how or "") else []         # names are flagged across the class
    sub.note = "; ".join(notes + ([who.claim] if who.claim else [])) or None
    return sub


def code_cells(nb):
    """The sources of a notebook node's code cells, in order."""
    return tuple(c.get("source", "") for c in nb.cells if c.get("cell_type") == "code")


def _unmatched(file):
    """The Person of a file a teacher's pattern did not match: named by its path, never merged with anyone."""
    return Person(file.label, file.label, "unmatched", order=(file.mtime, file.label))
