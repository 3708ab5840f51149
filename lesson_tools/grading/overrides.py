"""What a teacher decides by hand, kept in one file beside the class and applied on every run (a re-grade and
`--only` too): points set for one person's check or notebook, a personal due date (an extension), a notebook
excused.  As nbgrader's gradebook keeps manual grades and Canvas keeps excused and per-student due dates.

    # overrides.toml (lesson-tools grade --overrides overrides.toml, or [grade] overrides = ... in the settings)
    [[points]]
    student = "12345"                 # a platform id, a name as the gradebook shows it, or canvas:12345
    notebook = "02_model"
    check = "kinetic_energy"          # leave it out to set the notebook's total
    points = 1.5
    reason = "the sign slip only; the method is right"

    [[extension]]
    student = "Jane Smith"
    notebook = "02_model"
    due = 2026-12-08T23:59:00+01:00   # late only after this, whatever the platform marked
    reason = "ill; the office's note of 3 December"

    [[excused]]
    student = "502"
    notebook = "04_feedback"
    reason = "joined the course after it was due"

TOML, not a spreadsheet's CSV: the file keeps a due date with its time zone as written (a spreadsheet rewrites dates
in its own format and drops the leading zeros of ids), holds comments, and reads as the settings file does.

- `read(path)`: [Override], every entry checked (its table, keys, kinds of value); UsageError naming the entry.
- `resolve(overrides, people, course, points)`: Decisions, or UsageError naming every entry whose person, notebook
  or check is not known, with the fix, before anything is graded.
- Points set by hand are the points: no late share comes off them (give the points you mean).  A check's points
  replace what its verdict earned, in every submission of that notebook (the row keeps its verdict; the gradebook's
  `override` column says what was set and why).  A notebook's points, and an excused notebook, are a row of their
  own (submission BY_HAND, verdict SET BY HAND or EXCUSED) that counts instead of any submission.  An excused
  notebook counts neither points nor its maximum: Canvas's import gets EX, Moodle's worksheet no grade (its import
  skips an empty one) and the comment.
"""
import datetime
import difflib
from dataclasses import dataclass, field

from . import gradebook as gb
from .intake import UsageError
from .points import read_toml

KINDS = {"points": ("student", "notebook", "reason", "points", "check"),
         "extension": ("student", "notebook", "reason", "due"),
         "excused": ("student", "notebook", "reason")}
OPTIONAL = ("check",)
BY_HAND = "(set by hand)"          # the submission of a notebook's points set by hand, or of an excused notebook
EXAMPLE = ('[[points]]\nstudent = "12345"\nnotebook = "02_model"\ncheck = "kinetic_energy"\npoints = 1.5\n'
           'reason = "the method is right"')


@dataclass(frozen=True)
class Override:
    """One entry of the file: `kind` (points, extension, excused), who and what it names, the value, the reason,
    and `where` it is written (for messages)."""
    kind: str
    student: str
    notebook: str
    reason: str
    where: str
    check: str = ""
    points: float = None
    due: float = None                # seconds since the epoch

    def said(self):
        """What it does, for people: 'set by hand: 1.5 points (the method is right)'."""
        if self.kind == "points":
            return f"set by hand: {gb.number(self.points)} point{'' if self.points == 1 else 's'} ({self.reason})"
        if self.kind == "excused":
            return f"excused ({self.reason})"
        return f"extension to {_when(self.due)} ({self.reason})"


@dataclass(frozen=True)
class Decisions:
    """The overrides resolved to people: {(person key, notebook, check): Override} for points (check "" for a
    notebook's total), {(person key, notebook): Override} for extensions and for excused notebooks, and the
    identity columns of each person named ({person key: {student, student_id, platform, late}})."""
    points: dict = field(default_factory=dict)
    extensions: dict = field(default_factory=dict)
    excused: dict = field(default_factory=dict)
    people: dict = field(default_factory=dict)

    def __len__(self):
        return len(self.points) + len(self.extensions) + len(self.excused)

    def due(self, key, notebook):
        """The person's own due date for the notebook (seconds), or None."""
        found = self.extensions.get((key, notebook))
        return found.due if found else None

    def check_points(self):
        """{(person key, notebook, check): (points, the override column's text)} for gradebook.score."""
        return {k: (o.points, o.said()) for k, o in self.points.items() if k[2]}

    def of(self, key, notebook=None):
        """Every Override of a person (of one notebook), for pages and previews."""
        found = [*self.points.items(), *self.extensions.items(), *self.excused.items()]
        return [o for k, o in found if k[0] == key and (notebook is None or k[1] == notebook)]


def _when(seconds):
    return datetime.datetime.fromtimestamp(seconds).astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()


def read(path, flag="--overrides"):
    """[Override] in the file at `path`; UsageError saying which entry is wrong, what it holds and what is expected."""
    from .late import PolicyError, due_time
    table = read_toml(path, flag, f"give the TOML file of your overrides, e.g.\n{EXAMPLE}", ": fix that line")
    unknown = sorted(set(table) - set(KINDS))
    if unknown:
        raise UsageError(f"{flag} {path}: {', '.join(unknown)}: not a kind of override; the kinds are "
                         f"{', '.join(f'[[{k}]]' for k in KINDS)}, e.g.\n{EXAMPLE}")
    out = []
    for kind, keys in KINDS.items():
        entries = table.get(kind, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise UsageError(f"{flag} {path}: {kind} must be written [[{kind}]], one table per override")
        for k, entry in enumerate(entries, 1):
            where = f"{path}: [[{kind}]] #{k}"
            wrong = sorted(set(entry) - set(keys))
            missing = [key for key in keys if key not in entry and key not in OPTIONAL]
            if wrong or missing:
                raise UsageError(f"{where}: " + "; ".join(
                    ([f"{', '.join(wrong)}: not a key of [[{kind}]]"] if wrong else []) +
                    ([f"{', '.join(missing)} missing"] if missing else [])) +
                    f"; its keys are {', '.join(keys)}" + (" (check optional)" if kind == "points" else ""))
            texts = {key: entry.get(key, "") for key in ("student", "notebook", "reason", "check")}
            bad = [key for key, value in texts.items() if not isinstance(value, (str, int)) or isinstance(value, bool)]
            if bad:
                raise UsageError(f"{where}: {', '.join(f'{b} = {entry[b]!r}' for b in bad)}: expected a text in "
                                 f"quotes")
            texts = {key: str(value).strip() for key, value in texts.items()}
            if not texts["reason"]:
                raise UsageError(f"{where}: the reason is empty: say why (the student's page shows it)")
            value = {}
            if kind == "points":
                given = entry["points"]
                if isinstance(given, bool) or not isinstance(given, (int, float)) or not given >= 0:
                    raise UsageError(f"{where}: points = {given!r}: expected a number >= 0")
                value["points"] = float(given)
            if kind == "extension":
                try:
                    value["due"] = due_time(entry["due"], f"{where}: due")
                except PolicyError as exc:
                    raise UsageError(str(exc)) from None
            out.append(Override(kind, texts["student"], texts["notebook"], texts["reason"], where, texts["check"],
                                **value))
    return out


def people_of(submissions, roster=None):
    """{person key: identity columns} of everyone an override may name: each person with a file in the download and
    everyone on the roster."""
    people = {s.person.key: gb.identity(s.person) for s in submissions if s.person.platform != "unmatched"}
    for key, p in (roster.people.items() if roster is not None else ()):
        people.setdefault(key, {"student": p.name, "student_id": p.id, "platform": p.platform, "late": ""})
    return people


def _person(name, people):
    """The person keys `name` names: a key (canvas:12345), an id, or a name as the gradebook shows it."""
    if name in people:
        return [name]
    by_id = [k for k, p in people.items() if p["student_id"] == name]
    return by_id or [k for k, p in people.items() if p["student"] == name]


def resolve(overrides, people, course, points=None):
    """Decisions for `overrides` ({person key: identity} `people`, {stem: CourseNotebook} `course`): every person,
    notebook and check known, at most one override of a kind per person and notebook (and check), no notebook both
    excused and set by hand; else UsageError naming each entry at fault and how to write it."""
    problems, decisions = [], Decisions()
    for o in overrides:
        keys = _person(o.student, people)
        if len(keys) != 1:
            if keys:
                problems.append(f"{o.where}: student = {o.student!r} names {len(keys)} people ("
                                + ", ".join(f"{k}, {people[k]['student']}" for k in sorted(keys))
                                + "): write the one you mean as its key, e.g. student = " + repr(sorted(keys)[0]))
            else:
                close = difflib.get_close_matches(o.student, sorted({v for p in people.values()
                                                                     for v in (p["student"], p["student_id"])}), 3)
                problems.append(f"{o.where}: student = {o.student!r} is no one in the download or on the roster"
                                + (f"; did you mean {' or '.join(map(repr, close))}?" if close else
                                   "; write their platform id or their name as the gradebook shows it"))
            continue
        if o.notebook not in course:
            close = difflib.get_close_matches(o.notebook, sorted(course), 1)
            problems.append(f"{o.where}: notebook = {o.notebook!r} is not a notebook of the course"
                            + (f"; did you mean {close[0]!r}?" if close else f"; they are {', '.join(sorted(course))}"))
            continue
        checks = [c.name for c in course[o.notebook].checks]
        if o.check and o.check not in checks:
            problems.append(f"{o.where}: check = {o.check!r} is not a check of {o.notebook}; its checks are "
                            f"{', '.join(checks) or 'none'} (leave check out to set the notebook's points)")
            continue
        key = keys[0]
        decisions.people[key] = people[key]
        table, at = ({"points": decisions.points, "extension": decisions.extensions, "excused": decisions.excused}
                     [o.kind], (key, o.notebook, o.check) if o.kind == "points" else (key, o.notebook))
        if at in table:
            problems.append(f"{o.where}: {o.student!r}, {o.notebook}{' ' + o.check if o.check else ''} already has "
                            f"an override of this kind ({table[at].where}): keep one")
            continue
        table[at] = o
    for (key, stem), o in decisions.excused.items():
        both = [p for k, p in decisions.points.items() if k[:2] == (key, stem)]
        if both:
            problems.append(f"{o.where}: {o.student!r} is excused from {stem} and has points set by hand for it "
                            f"({both[0].where}): keep one")
    if problems:
        raise UsageError(f"{len(problems)} override{'s' if len(problems) != 1 else ''} cannot be applied (nothing "
                         f"graded):\n  " + "\n  ".join(problems))
    return decisions


def rows(decisions, course, points):
    """A gradebook row per notebook whose points were set by hand or which is excused: submission BY_HAND, no check,
    counted instead of any submission of that notebook (gradebook.score); `points`: {check: points of a PASS}."""
    out = []
    for (key, stem, check), o in sorted(decisions.points.items()):
        if not check:
            possible = sum(points[c.name] for c in course[stem].checks)
            r = gb.row({**decisions.people[key], "late": ""}, stem, BY_HAND, "", gb.SET_BY_HAND, o.said())
            out.append({**r, "points": gb.number(o.points), "max_points": gb.number(possible), "override": o.said()})
    for (key, stem), o in sorted(decisions.excused.items()):
        r = gb.row({**decisions.people[key], "late": ""}, stem, BY_HAND, "", gb.EXCUSED, o.said())
        out.append({**r, "points": "0", "max_points": "0", "override": o.said()})
    return out


def noted(rows, decisions):
    """The rows with each extension said in the `override` column of the rows of that person's notebook."""
    out = []
    for r in rows:
        o = decisions.extensions.get((gb.person_key(r), r["notebook"]))
        if o is not None and r["verdict"] not in gb.DECIDED:
            r = {**r, "override": "; ".join(filter(None, (r.get("override"), o.said())))}
        out.append(r)
    return out
