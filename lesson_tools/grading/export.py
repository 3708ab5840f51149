"""Grades out: the files learning platforms import, from a scored gradebook (gradebook.score).

- `scores`: one row per person: student, student_id, platform, each notebook's points, total, possible, late,
  counted (the submissions the total counts), ungraded (for someone none of whose files could be graded: why).
  Everyone with a file in the download has a row, with 0 when nothing of theirs could be graded.
- `canvas`: Canvas's gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, then one assignment column
  ("Name (assignment id)" as Canvas's own export heads it, so the import updates that assignment), with the
  "Points Possible" row Canvas's export has.  ID is the Canvas user id from the downloaded file names; the SIS
  columns and Section are copied, by ID, from Canvas's own exported gradebook when it is given (`roster`).
- `moodle`: Moodle's assignment grading worksheet (Grading action "Upload grading worksheet"): Identifier
  ("Participant N", N the participant id in the download's folder names), Full name, Grade, Maximum Grade,
  Last modified (grade), Feedback comments.

A platform's file holds only the people that platform named (a Canvas file has Canvas user ids only); the others
are returned as `left_out`, so the command can say who.  Every file is written whole or not at all.
"""
import csv
import time

from . import gradebook as gb
from .intake import UsageError

CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_COLUMNS = ("Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)", "Feedback comments")


def _write(path, header, rows):
    with gb.replaced(path) as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows([gb.csv_cell(gb.shown(v) if isinstance(v, str) else v) for v in r] for r in rows)


def _people(rows):
    return sorted(gb.totals(rows).values(), key=lambda p: (p["student"], p["student_id"]))


def scores(rows, path):
    """One row per person (see the module's docstring); returns the number of people written."""
    people = _people(rows)
    notebooks = sorted({stem for p in people for stem in p["notebooks"]})
    header = ("student", "student_id", "platform", *notebooks, "total", "possible", "late", "counted", "ungraded")
    body = [(p["student"], p["student_id"], p["platform"],
             *(gb.number(p["notebooks"][s]["points"]) if s in p["notebooks"] else "" for s in notebooks),
             gb.number(p["points"]), gb.number(p["max"]),
             " ".join(s for s, nb in sorted(p["notebooks"].items()) if nb["late"]),
             " ".join(nb["counted"] for _, nb in sorted(p["notebooks"].items())),
             "" if p["notebooks"] else "; ".join(p["ungraded"]))
            for p in people]
    _write(path, header, body)
    return len(body)


def read_roster(path):
    """{Canvas user id: row} from Canvas's exported gradebook CSV (its columns Student, ID, SIS User ID, ...)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            table = list(csv.DictReader(f))
    except OSError as exc:
        raise UsageError(f"--canvas-roster {path}: cannot read it ({exc.strerror}); give the CSV Canvas's "
                         f"Gradebook > Export writes") from None
    if not table or "ID" not in table[0] or "Student" not in table[0]:
        raise UsageError(f"--canvas-roster {path}: expected Canvas's exported gradebook (columns "
                         f"{', '.join(CANVAS_COLUMNS)}), got columns {', '.join(table[0]) if table else 'none'}")
    return {r["ID"].strip(): r for r in table if r["ID"].strip().isdigit()}


def canvas(rows, path, assignment, roster=None):
    """Canvas's gradebook import file for one assignment column; returns (written, left_out people)."""
    people = _people(rows)
    mine = [p for p in people if p["platform"] == "canvas"]
    possible = max((p["max"] for p in mine), default=0.0)
    body = [("Points Possible", "", "", "", "", gb.number(possible))]
    for p in mine:
        known = (roster or {}).get(p["student_id"], {})
        body.append((known.get("Student", p["student"]), p["student_id"], known.get("SIS User ID", ""),
                     known.get("SIS Login ID", ""), known.get("Section", ""), gb.number(p["points"])))
    _write(path, (*CANVAS_COLUMNS, assignment), body)
    return len(mine), [p for p in people if p["platform"] != "canvas"]


def moodle(rows, path, comment=None):
    """Moodle's grading worksheet, each person's Feedback comments from `comment(person)` (default: their points per
    notebook, `points_comment`); returns (written, left_out people)."""
    comment = comment or points_comment
    people = _people(rows)
    mine = [p for p in people if p["platform"] == "moodle"]
    stamp = time.strftime("%A, %d %B %Y, %H:%M")
    body = [(f"Participant {p['student_id']}", p["student"], gb.number(p["points"]), gb.number(p["max"]),
             stamp, comment(p)) for p in mine]
    _write(path, MOODLE_COLUMNS, body)
    return len(mine), [p for p in people if p["platform"] != "moodle"]


def points_comment(person):
    """A short plain-text comment for a person: points per notebook, or why nothing of theirs could be graded."""
    parts = [f"{stem}: {gb.number(nb['points'])} of {gb.number(nb['max'])} points"
             + (" (late)" if nb["late"] else "") for stem, nb in sorted(person["notebooks"].items())]
    return "; ".join(parts) or "nothing could be graded: " + "; ".join(person["ungraded"])
