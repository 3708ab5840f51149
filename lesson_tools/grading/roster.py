"""The class list, as a learning platform exports it: everyone on it gets a row, with 0 and "nothing handed in"
where the download holds nothing of theirs.

- Canvas: the gradebook export (Grades > Export > CSV): Student, ID, SIS User ID, SIS Login ID, [Integration ID,]
  Section, then one column per assignment headed "Name (assignment id)"; a "Points Possible" row (and a "Manual
  Posting" row in newer exports) come before the students.  ID is the Canvas user id the download's file names
  carry.
- Moodle: the assignment's grading worksheet (View all submissions > Download grading worksheet): Identifier
  ("Participant N", N the participant id of the download's folder names), Full name, Email address, ...

    roster = read("canvas-gradebook.csv")     # Roster(platform, people {person key: Listed}, assignments)
    roster = load(["canvas.csv", "moodle.csv"])   # several merged: a class split across Canvas and Moodle

Canvas's Test Student (the account of the course's "student view", "Student, Test") is no one in the class: left out
of the roster, and its files of the download are not graded (`test_student`), and both are said.  Merged rosters
keep everyone under their platform's id; one person listed twice under different ids (the same name, "Last,
First" read as "First Last", or the same e-mail address) is named to the teacher (`Roster.same`): the download
names each file's person by the platform's id, so the two stay two rows.
"""
import csv
import re
import unicodedata
from dataclasses import dataclass, field

from .intake import UsageError, person_key

CANVAS_FIXED = ("Student", "ID", "SIS User ID", "SIS Login ID", "Integration ID", "Section")
ASSIGNMENT = re.compile(r"^(?P<name>.*\S)\s*\((?P<id>\d+)\)$")     # "DeLaN 02 (4567)"
PARTICIPANT = re.compile(r"^Participant (?P<id>\d+)$")


TEST_STUDENT = ("student, test", "test student", "studenttest")    # Canvas's student view, as its export and
                                                                   # its download name it


@dataclass(frozen=True)
class Listed:
    """One person on the roster: the platform's id and name, and what Canvas's export adds."""
    id: str
    name: str
    sis_user_id: str = ""
    sis_login_id: str = ""
    section: str = ""
    modified: str = ""            # Moodle: "Last modified (grade)" as Moodle wrote it
    platform: str = "canvas"
    email: str = ""               # Moodle's Email address, Canvas's SIS Login ID when it is one

    @property
    def key(self):
        return person_key(self.platform, self.id)


@dataclass
class Roster:
    platform: str                                       # "canvas", "moodle", or several: "canvas and moodle"
    people: dict = field(default_factory=dict)          # {person key: Listed}
    assignments: dict = field(default_factory=dict)     # Canvas: {"Name (id)" heading: id}, as the export heads them
    left_out: list = field(default_factory=list)        # [Listed] Canvas's Test Student
    same: list = field(default_factory=list)            # [[Listed, ...]] one person under several ids

    @property
    def platforms(self):
        return sorted({p.platform for p in self.people.values()} | set(self.platform.split(" and ")))

    def of(self, platform):
        """{id: Listed} of one platform's people."""
        return {p.id: p for p in self.people.values() if p.platform == platform}


def load(paths, flag="--roster"):
    """The Roster of one file or the merge of several (see the module's docstring); None for none."""
    rosters = [read(path, flag) for path in paths or ()]
    if not rosters:
        return None
    people, assignments, left = {}, {}, []
    for r in rosters:
        people.update({k: p for k, p in r.people.items() if k not in people})
        assignments.update(r.assignments)
        left += [p for p in r.left_out if p not in left]
    merged = Roster(" and ".join(sorted({r.platform for r in rosters})), people, assignments, left)
    merged.same = same_person(people.values())
    return merged


def known_as(name):
    """A name as two platforms may both write it: 'Smith, Jane' and 'Jane  Smith' are 'jane smith'."""
    last, comma, first = name.partition(",")
    text = f"{first} {last}" if comma else name
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def same_person(people):
    """[[Listed, ...]]: groups of entries under different keys that are one person by name or e-mail address."""
    groups = {}
    for p in people:
        for mark in filter(None, (known_as(p.name), p.email.casefold())):
            groups.setdefault(mark, set()).add(p)
    found = []
    for group in groups.values():
        group = sorted(group, key=lambda p: p.key)
        if len({p.key for p in group}) > 1 and group not in found:
            found.append(group)
    return found


def set_aside(submissions, roster=None):
    """(the submissions to grade, [a line for the teacher]): Canvas's Test Student's files left out, and said."""
    test = [s for s in submissions if test_student(s.person, roster)]
    lines = [f"left out: {len(test)} file{'s' if len(test) != 1 else ''} of Canvas's Test Student (the course's "
             f"student view, not a learner): {', '.join(sorted({s.person.id for s in test}))}"] if test else []
    if roster is not None and roster.left_out:
        lines.append("left out of the roster: Canvas's Test Student ("
                     + ", ".join(f"{p.name}, {p.id}" for p in roster.left_out) + "), the course's student view")
    for group in (roster.same if roster is not None else ()):
        lines.append("on two rosters under different ids, one person? "
                     + "; ".join(f"{p.name} ({p.platform} {p.id}{', ' + p.email if p.email else ''})" for p in group)
                     + ": each id keeps its own row")
    aside = {id(s) for s in test}
    return [s for s in submissions if id(s) not in aside], lines


def test_student(person, roster=None):
    """Whether a download's Person is Canvas's Test Student: the roster's, or by the name Canvas gives it."""
    if person is None or person.platform != "canvas":
        return False
    if roster is not None and any(p.id == person.id for p in roster.left_out):
        return True
    return known_as(person.name) in TEST_STUDENT


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
    people, left = {}, []
    for r in body:
        uid = cell(r, "ID")
        if uid.isdigit():                                 # the Points Possible and Manual Posting rows have none
            login = cell(r, "SIS Login ID")
            listed = Listed(uid, cell(r, "Student"), cell(r, "SIS User ID"), login, cell(r, "Section"),
                            email=login if "@" in login else "")
            if known_as(listed.name) in TEST_STUDENT:
                left.append(listed)
            else:
                people[listed.key] = listed
    assignments = {h: ASSIGNMENT.match(h)["id"] for h in header if h not in CANVAS_FIXED and ASSIGNMENT.match(h)}
    return Roster("canvas", people, assignments, left)


def _moodle(header, body):
    ident, name = header.index("Identifier"), header.index("Full name")
    modified = header.index("Last modified (grade)") if "Last modified (grade)" in header else None
    email = header.index("Email address") if "Email address" in header else None
    people = {}
    for r in body:
        m = PARTICIPANT.match(r[ident].strip()) if len(r) > max(ident, name) else None
        if m:
            when = r[modified].strip() if modified is not None and modified < len(r) else ""
            mail = r[email].strip() if email is not None and email < len(r) else ""
            listed = Listed(m["id"], r[name].strip(), modified="" if when in ("", "-") else when, platform="moodle",
                            email=mail)
            people[listed.key] = listed
    return Roster("moodle", people)
