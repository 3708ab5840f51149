"""Grades out: the files learning platforms import, from a scored gradebook (gradebook.score).

- `scores`: one row per person: student, student_id, platform, each notebook's points (EX when excused), total,
  possible, late, counted (the submissions the total counts), set_by_hand (the teacher's overrides, with their
  reasons), ungraded (for someone none of whose files could be graded: why).
  Everyone with a file in the download has a row, with 0 when nothing of theirs could be graded.
- `canvas`: Canvas's gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, then one assignment column
  per notebook ("Name (assignment id)" as Canvas's own export heads it, so the import updates that assignment), with
  the "Points Possible" row Canvas's export has; a person's points for a notebook go in that notebook's column only
  (EX, which Canvas's import reads as excused, for an excused notebook).
  ID is the Canvas user id from the downloaded file names; the SIS columns and Section are copied, by ID, from
  Canvas's own exported gradebook when it is given as the roster (lesson_tools.grading.roster).
- `moodle`: Moodle's assignment grading worksheet for one notebook's assignment (Grading action "Upload grading
  worksheet"): Identifier ("Participant N", N the participant id in the download's folder names), Full name, Grade
  (empty for an excused notebook: Moodle's import then leaves the grade alone), Maximum Grade, Last modified (grade)
  in Moodle's own date format, Feedback comments (the points, and the teacher's reason for anything set by hand).

A platform's file holds only the people that platform named (a Canvas file has Canvas user ids only); the others
are returned as `left_out`, so the command can say who.  Every file is written whole or not at all.
"""
import csv
import time

from . import gradebook as gb
from .intake import person_key

CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_COLUMNS = ("Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)", "Feedback comments")


def _write(path, header, rows):
    with gb.replaced(path) as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows([gb.csv_cell(gb.shown(v) if isinstance(v, str) else v) for v in r] for r in rows)


EXCUSED = "EX"          # Canvas's import: excused (and Canvas's export writes it so); the scores file too


def cell(nb, missing):
    """A person's points for a notebook in a platform's file: EX when excused, `missing` when nothing was graded."""
    if nb is None:
        return missing
    return EXCUSED if nb["excused"] else gb.number(nb["points"])


def _people(rows):
    return sorted(gb.totals(rows).values(), key=lambda p: (p["student"], p["student_id"]))


def scores(rows, path, names=None):
    """One row per person (see the module's docstring); returns the number of people written.  `names`: {submission
    label: its name as the platform wrote it}, how the `counted` column names each (never the teacher's folders)."""
    names = names or {}
    people = _people(rows)
    notebooks = sorted({stem for p in people for stem in p["notebooks"]})
    header = ("student", "student_id", "platform", *notebooks, "total", "possible", "late", "counted", "set_by_hand",
              "ungraded")
    body = [(p["student"], p["student_id"], p["platform"],
             *(cell(p["notebooks"].get(s), "") for s in notebooks),
             gb.number(p["points"]), gb.number(p["max"]),
             " ".join(s for s, nb in sorted(p["notebooks"].items()) if nb["late"]),
             " ".join(names.get(nb["counted"], nb["counted"]) for _, nb in sorted(p["notebooks"].items())),
             "; ".join(f"{stem}{' ' + check if check else ''}: {why}" for stem, nb in sorted(p["notebooks"].items())
                       for check, why in [*nb["by_hand"], *([("", nb["excused"])] if nb["excused"] else [])]),
             "" if p["notebooks"] else "; ".join(p["ungraded"]))
            for p in people]
    _write(path, header, body)
    return len(body)


def possible(points=None):
    """{notebook: the points its checks give}, from the course: each check's points (`points`: {check: points}, the
    teacher's --points over the declared; default the declared) summed over the checks of its notebook.  Never from
    what was handed in: a submission cannot change a notebook's maximum."""
    from lesson_course.checks import REGISTRY

    from . import points as course_points
    points = course_points.declared() if points is None else points
    out = {}
    for name, spec in REGISTRY.items():
        out[spec.notebook] = out.get(spec.notebook, 0) + points.get(name, spec.points)
    return out


def canvas(rows, path, columns, roster=None, points=None):
    """Canvas's gradebook import file, one assignment column per notebook (`columns`: {notebook: heading}, the
    heading "Name (assignment id)" as Canvas's export writes it): each person's points for that notebook, 0 where
    nothing of theirs for it was graded, and its "Points Possible" from the course (`possible(points)`).  `roster`:
    a roster.Roster of Canvas's, whose SIS ids and sections are copied.  Returns (written, left_out people)."""
    people = _people(rows)
    mine = [p for p in people if p["platform"] == "canvas"]
    most = possible(points)
    stems = sorted(columns)
    body = [("Points Possible", "", "", "", "", *(gb.number(most.get(s, 0)) for s in stems))]
    listed = roster.of("canvas") if roster is not None else {}
    for p in mine:
        known = listed.get(p["student_id"])
        body.append((known.name if known else p["student"], p["student_id"], known.sis_user_id if known else "",
                     known.sis_login_id if known else "", known.section if known else "",
                     *(cell(p["notebooks"].get(s), "0") for s in stems)))
    _write(path, (*CANVAS_COLUMNS, *(columns[s] for s in stems)), body)
    return len(mine), [p for p in people if p["platform"] != "canvas"]


MOODLE_TIME = "%A, %d %B %Y, %I:%M %p"       # Moodle's strftimedatetime (English), as its worksheet writes dates


def moodle(rows, path, notebook, stamp, modified=None, comment=None, stamps=None, points=None):
    """Moodle's grading worksheet for one notebook's assignment: each person's points for it (0 where nothing of
    theirs for it was graded; no grade, which Moodle's import skips, for an excused one), its maximum from the course
    (`possible(points)`), "Last modified (grade)" from `modified` {participant id: text Moodle wrote} (a --roster
    worksheet's), else `stamps` {person key: {notebook: seconds}} (when their result was graded: a person graded again
    is the only one whose date moves), else `stamp`, in Moodle's own format, and the comment `comment(person,
    notebook)` (default `points_comment`).
    Returns (written, left_out people)."""
    comment = comment or points_comment
    people = _people(rows)
    mine = [p for p in people if p["platform"] == "moodle"]
    most = possible(points).get(notebook, 0)

    def when(p):
        given = (modified or {}).get(p["student_id"])
        if given:
            return given
        at = (stamps or {}).get(person_key("moodle", p["student_id"]), {}).get(notebook, stamp)
        return time.strftime(MOODLE_TIME, time.localtime(at))

    def grade(p):
        nb = p["notebooks"].get(notebook)
        return "" if nb and nb["excused"] else gb.number(nb["points"] if nb else 0)
    body = [(f"Participant {p['student_id']}", p["student"], grade(p), gb.number(most), when(p), comment(p, notebook))
            for p in mine]
    _write(path, MOODLE_COLUMNS, body)
    return len(mine), [p for p in people if p["platform"] != "moodle"]


def points_comment(person, notebook=None):
    """A short plain-text comment for a person: their points for `notebook` (default: per notebook), set by hand or
    excused with the teacher's reason, or why nothing of theirs could be graded."""
    def said(stem, nb):
        if nb["excused"]:
            return f"{stem}: {nb['excused']}"
        return (f"{stem}: {gb.number(nb['points'])} of {gb.number(nb['max'])} points"
                + (" (late)" if nb["late"] else "")
                + "".join(f"; {check + ' ' if check else ''}{why}" for check, why in nb["by_hand"]))
    parts = [said(stem, nb) for stem, nb in sorted(person["notebooks"].items()) if notebook is None or stem == notebook]
    return "; ".join(parts) or "nothing could be graded: " + ("; ".join(person["ungraded"]) or "nothing handed in")
