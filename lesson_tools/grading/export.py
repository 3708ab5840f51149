"""Grades out: the files learning platforms import, from a scored gradebook (gradebook.score).

- `scores`: one row per person: student, student_id, platform, each notebook's points, total, possible, late,
  counted (the submissions the total counts), ungraded (for someone none of whose files could be graded: why).
  Everyone with a file in the download has a row, with 0 when nothing of theirs could be graded.
- `canvas`: Canvas's gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, then one assignment column
  per notebook ("Name (assignment id)" as Canvas's own export heads it, so the import updates that assignment), with
  the "Points Possible" row Canvas's export has; a person's points for a notebook go in that notebook's column only.
  ID is the Canvas user id from the downloaded file names; the SIS columns and Section are copied, by ID, from
  Canvas's own exported gradebook when it is given as the roster (lesson_tools.grading.roster).
- `moodle`: Moodle's assignment grading worksheet for one notebook's assignment (Grading action "Upload grading
  worksheet"): Identifier ("Participant N", N the participant id in the download's folder names), Full name, Grade,
  Maximum Grade, Last modified (grade) in Moodle's own date format, Feedback comments.

A platform's file holds only the people that platform named (a Canvas file has Canvas user ids only); the others
are returned as `left_out`, so the command can say who.  Every file is written whole or not at all.
"""
import csv
import time

from . import gradebook as gb

CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_COLUMNS = ("Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)", "Feedback comments")


def _write(path, header, rows):
    with gb.replaced(path) as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows([gb.csv_cell(gb.shown(v) if isinstance(v, str) else v) for v in r] for r in rows)


def _people(rows):
    return sorted(gb.totals(rows).values(), key=lambda p: (p["student"], p["student_id"]))


def scores(rows, path, names=None):
    """One row per person (see the module's docstring); returns the number of people written.  `names`: {submission
    label: its name as the platform wrote it}, how the `counted` column names each (never the teacher's folders)."""
    names = names or {}
    people = _people(rows)
    notebooks = sorted({stem for p in people for stem in p["notebooks"]})
    header = ("student", "student_id", "platform", *notebooks, "total", "possible", "late", "counted", "ungraded")
    body = [(p["student"], p["student_id"], p["platform"],
             *(gb.number(p["notebooks"][s]["points"]) if s in p["notebooks"] else "" for s in notebooks),
             gb.number(p["points"]), gb.number(p["max"]),
             " ".join(s for s, nb in sorted(p["notebooks"].items()) if nb["late"]),
             " ".join(names.get(nb["counted"], nb["counted"]) for _, nb in sorted(p["notebooks"].items())),
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
    listed = roster.people if roster is not None and roster.platform == "canvas" else {}
    for p in mine:
        known = listed.get(p["student_id"])
        body.append((known.name if known else p["student"], p["student_id"], known.sis_user_id if known else "",
                     known.sis_login_id if known else "", known.section if known else "",
                     *(gb.number(p["notebooks"][s]["points"] if s in p["notebooks"] else 0) for s in stems)))
    _write(path, (*CANVAS_COLUMNS, *(columns[s] for s in stems)), body)
    return len(mine), [p for p in people if p["platform"] != "canvas"]


MOODLE_TIME = "%A, %d %B %Y, %I:%M %p"       # Moodle's strftimedatetime (English), as its worksheet writes dates


def moodle(rows, path, notebook, stamp, modified=None, comment=None, points=None):
    """Moodle's grading worksheet for one notebook's assignment: each person's points for it (0 where nothing of
    theirs for it was graded), its maximum from the course (`possible(points)`), "Last modified (grade)" from
    `modified` {participant id: text Moodle wrote} (a --roster worksheet's) else `stamp` (seconds since the epoch) in
    Moodle's own format, and the comment `comment(person, notebook)` (default `points_comment`).  Returns (written,
    left_out people)."""
    comment = comment or points_comment
    people = _people(rows)
    mine = [p for p in people if p["platform"] == "moodle"]
    most = possible(points).get(notebook, 0)
    when = time.strftime(MOODLE_TIME, time.localtime(stamp))
    body = [(f"Participant {p['student_id']}", p["student"],
             gb.number(p["notebooks"][notebook]["points"] if notebook in p["notebooks"] else 0), gb.number(most),
             (modified or {}).get(p["student_id"]) or when, comment(p, notebook)) for p in mine]
    _write(path, MOODLE_COLUMNS, body)
    return len(mine), [p for p in people if p["platform"] != "moodle"]


def points_comment(person, notebook=None):
    """A short plain-text comment for a person: their points for `notebook` (default: per notebook), or why nothing
    of theirs could be graded."""
    parts = [f"{stem}: {gb.number(nb['points'])} of {gb.number(nb['max'])} points"
             + (" (late)" if nb["late"] else "") for stem, nb in sorted(person["notebooks"].items())
             if notebook is None or stem == notebook]
    return "; ".join(parts) or "nothing could be graded: " + ("; ".join(person["ungraded"]) or "nothing handed in")
