"""The class list, as a learning platform exports it: everyone on it gets a row, with 0 and "nothing handed in"
where the download holds nothing of theirs.

- Canvas: the gradebook export (Grades > Export > CSV): Student, ID, SIS User ID, SIS Login ID, [Integration ID,]
  Section, then one column per assignment headed "Name (assignment id)"; a "Points Possible" row (and a "Manual
  Posting" row in newer exports) come before the students.  ID is the Canvas user id the download's file names
  carry.
- Moodle: the assignment's grading worksheet (View all submissions > Download grading worksheet): Identifier
  ("Participant N", N the participant id of the download's folder names), Full name, ...

    roster = read("canvas-gradebook.csv")     # Roster(platform, people {id: Listed}, assignments {heading: id})
"""
import csv
import re
from dataclasses import dataclass, field

from .intake import UsageError

CANVAS_FIXED = ("Student", "ID", "SIS User ID", "SIS Login ID", "Integration ID", "Section")
ASSIGNMENT = re.compile(r"^(?P<name>.*\S)\s*\((?P<id>\d+)\)$")     # "DeLaN 02 (4567)"
PARTICIPANT = re.compile(r"^Participant (?P<id>\d+)$")


@dataclass(frozen=True)
class Listed:
    """One person on the roster: the platform's id and name, and what Canvas's export adds."""
    id: str
    name: str
    sis_user_id: str = ""
    sis_login_id: str = ""
    section: str = ""
    modified: str = ""            # Moodle: "Last modified (grade)" as Moodle wrote it


@dataclass
class Roster:
    platform: str                                       # "canvas" or "moodle"
    people: dict = field(default_factory=dict)          # {id: Listed}
    assignments: dict = field(default_factory=dict)     # Canvas: {"Name (id)" heading: id}, as the export heads them


def read(path, flag="--roster"):
    """The Roster in Canvas's gradebook export or Moodle's grading worksheet; UsageError naming what is wrong."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            table = list(csv.reader(f))
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot read it ({exc.strerror}); give the CSV Canvas's Grades > Export or "
                         f"Moodle's 'Download grading worksheet' writes") from None
    except (UnicodeDecodeError, csv.Error) as exc:
        raise UsageError(f"{flag} {path}: not a CSV file ({exc}); give the CSV Canvas's Grades > Export or Moodle's "
                         f"'Download grading worksheet' writes") from None
    header = [h.strip() for h in table[0]] if table else []
    if "Student" in header and "ID" in header:
        return _canvas(header, table[1:])
    if "Identifier" in header and "Full name" in header:
        return _moodle(header, table[1:])
    raise UsageError(f"{flag} {path}: expected Canvas's exported gradebook (columns Student, ID, SIS User ID, ...) or "
                     f"Moodle's grading worksheet (columns Identifier, Full name, ...), got columns "
                     f"{', '.join(header[:8]) if header else 'none'}")


def _canvas(header, body):
    col = {h: k for k, h in enumerate(header)}

    def cell(r, name):
        k = col.get(name)
        return r[k].strip() if k is not None and k < len(r) else ""
    people = {}
    for r in body:
        uid = cell(r, "ID")
        if uid.isdigit():                                 # the Points Possible and Manual Posting rows have none
            people[uid] = Listed(uid, cell(r, "Student"), cell(r, "SIS User ID"), cell(r, "SIS Login ID"),
                                 cell(r, "Section"))
    assignments = {h: ASSIGNMENT.match(h)["id"] for h in header if h not in CANVAS_FIXED and ASSIGNMENT.match(h)}
    return Roster("canvas", people, assignments)


def _moodle(header, body):
    ident, name = header.index("Identifier"), header.index("Full name")
    modified = header.index("Last modified (grade)") if "Last modified (grade)" in header else None
    people = {}
    for r in body:
        m = PARTICIPANT.match(r[ident].strip()) if len(r) > max(ident, name) else None
        if m:
            when = r[modified].strip() if modified is not None and modified < len(r) else ""
            people[m["id"]] = Listed(m["id"], r[name].strip(), modified="" if when in ("", "-") else when)
    return Roster("moodle", people)
