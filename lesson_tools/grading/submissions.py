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

from . import limits
from .course_notebooks import called_checks, has_marker, normalise
from .intake import File, Person, UsageError, person  # noqa: F401 -- UsageError: one home, re-exported
from .text import readable


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


class NotANotebook(ValueError):
    """A file that is not a notebook the grader can read: the message says why."""


def read(file):
    """(notebook node, JSON text) of a File, or raises ValueError saying why it is not a notebook (nothing else: a
    file is data, whatever it holds).  Every string in it is text.readable (a lone surrogate, which JSON's "\ud800"
    makes, becomes its escape), and every field the grader reads has the type nbformat gives it."""
    import nbformat
    if file.problem:
        raise ValueError(file.problem)
    limit = limits.MAX_BYTES
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
        old = isinstance(data, dict) and data.get("nbformat") == 3 and isinstance(data.get("worksheets"), list)
        if not isinstance(data, dict) or not (isinstance(data.get("cells"), list) or old):
            raise NotANotebook("not a notebook: JSON without a list of cells")
        wrong = wrong_field(data)
        if wrong:
            raise NotANotebook(f"not a notebook: {wrong}")
        clean = readable_json(data)
        if clean != data:                           # (a lone surrogate is never equal to its escape)
            text = json.dumps(clean, ensure_ascii=False)
        nb = nbformat.reads(text, as_version=4)                  # an nbformat 3 notebook is converted
        wrong = wrong_field(nb)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a notebook: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise ValueError("not a notebook: JSON nested too deeply for any notebook") from None
    except NotANotebook:
        raise
    except Exception as exc:                                      # noqa: BLE001 -- nbformat's many errors
        raise ValueError(f"not a notebook: {type(exc).__name__}: {readable(str(exc)[:200])}") from None
    if wrong:
        raise NotANotebook(f"not a notebook: {wrong}")
    return nb, (nbformat.writes(nb) if old else text)


KINDS = {str: "text", list: "a list", dict: "an object", bool: "true or false", int: "a number", float: "a number",
         type(None): "null"}


def _kind(value):
    return KINDS.get(type(value), type(value).__name__)


def wrong_field(nb):
    """What in a notebook's JSON (a v4 notebook, or the cells of a v3 one) has a type the grader cannot read, in
    words ('cell 3 (a code cell): its source is a number, not text'), or None.  The fields checked are those grading
    reads: the notebook's metadata and cells, each cell's cell_type, source and metadata, a code cell's outputs."""
    if not isinstance(nb.get("metadata", {}), dict):
        return f"its metadata is {_kind(nb['metadata'])}, not an object"
    cells = nb.get("cells")
    if cells is None:                                                    # nbformat 3: cells in worksheets
        cells = []
        for sheet in nb.get("worksheets", []):
            if not isinstance(sheet, dict) or not isinstance(sheet.get("cells", []), list):
                return "a worksheet that is not an object with a list of cells"
            cells += sheet.get("cells", [])
    for k, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            return f"cell {k} is {_kind(cell)}, not an object"
        kind = cell.get("cell_type")
        if not isinstance(kind, str):
            return f"cell {k}'s cell_type is {_kind(kind)}, not text"
        for key in ("source", "input"):
            value = cell.get(key, "")
            if not (isinstance(value, str) or isinstance(value, list) and all(isinstance(v, str) for v in value)):
                what = _kind(value) if not isinstance(value, list) else "a list with something other than text in it"
                return f"cell {k} (a {readable(kind)[:40]} cell): its {key} is {what}, not text"
        if not isinstance(cell.get("metadata", {}), dict):
            return f"cell {k} (a {readable(kind)[:40]} cell): its metadata is {_kind(cell['metadata'])}, not an object"
        if not isinstance(cell.get("outputs", []), list):
            return f"cell {k} (a {readable(kind)[:40]} cell): its outputs are {_kind(cell['outputs'])}, not a list"
    return None


def readable_json(value):
    """A JSON value with every string in it (keys too) text.readable."""
    if isinstance(value, str):
        return readable(value)
    if isinstance(value, list):
        return [readable_json(v) for v in value]
    if isinstance(value, dict):
        return {readable(k): readable_json(v) for k, v in value.items()}
    return value


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
        return Submission(file, who, problem=readable(exc), note=_notes(file, who))
    stem, how = match(nb, course)
    who = person(file, stem, pattern)
    if who is None:
        return Submission(file, _unmatched(file), stem, how,
                          problem=f"its path {'/'.join(file.rel)!r} does not match --pattern {pattern.pattern!r}")
    if who.doubt:
        return Submission(file, who, stem, how, problem=who.doubt, note=_notes(file, who))
    if stem is None:
        return Submission(file, who, problem="not a notebook of this course (no check, id or cells of the course "
                                             "found)", note=_notes(file, who))
    sub = Submission(file, who, stem, how, text, code=code_cells(nb))
    if not course[stem].checks:
        sub.problem = f"{stem} has no graded checks"
    stamp = [how.split("; ", 1)[1]] if "; " in (how or "") else []         # names are flagged across the class
    sub.note = _notes(file, who, stamp)
    return sub


def _notes(file, who, more=()):
    """The teacher's note of a submission: what intake saw (a name a zip held twice), a name that claims another's
    id, and `more`."""
    return "; ".join(filter(None, (*more, file.note, who.claim))) or None


def code_cells(nb):
    """The sources of a notebook node's code cells, in order."""
    return tuple(c.get("source", "") for c in nb.cells if c.get("cell_type") == "code")


def _unmatched(file):
    """The Person of a file no one can be named for (a teacher's pattern did not match it, its path climbs out of its
    zip): named by its path from what the platform wrote on (never the teacher's folders), merged with no one."""
    return Person(file.handed, file.handed, "unmatched", order=(file.mtime, file.label))
