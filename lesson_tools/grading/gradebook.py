"""The gradebook: one row per (submission, check), written as CSV (or JSON), points, and a summary per person.

Columns: student, student_id, platform, notebook, submission, attempt, late, check, verdict, points, max_points,
counted, detail, note.  `detail` is what the grader says about the work (the learner's feedback page shows it);
`note` is for the teacher only: the same work as another person's, a name that looks like another's, a file name
that claims another id.  `late` is "late", or how late and what a late policy took off ("2 days late: 20% off").
`student_id` is the platform's id (Canvas user id, Moodle participant id, a teacher's pattern's
student_id) or the name; `platform` says which (canvas, moodle, pattern, folder, file name); `attempt` numbers a
person's submissions of one notebook from the earliest (1); `counted` is "yes" on the rows of the submission each
person's score counts (the best, or the latest with --count latest).  Verdicts:

    PASS, FAIL, NOT ATTEMPTED    what the course's check said about the learner's answer
    ERROR                        the notebook raised, the kernel died or went over a limit before the answer
    TIMEOUT                      a cell, the whole notebook or the check ran out of time
    TAMPERED                     the code reaches into the checks or the grader: a person should look (0 points)
    NOT GRADED                   not a notebook, not a notebook of this course, or one without checks
"""
import contextlib
import csv
import json
import os
from collections import Counter, defaultdict

from . import intake
from .text import readable, shown

COLUMNS = ("student", "student_id", "platform", "notebook", "submission", "attempt", "late", "check", "verdict",
           "points", "max_points", "counted", "detail", "note")
PASS, FAIL, NOT_ATTEMPTED = "PASS", "FAIL", "NOT ATTEMPTED"
ERROR, TIMEOUT, TAMPERED, NOT_GRADED = "ERROR", "TIMEOUT", "TAMPERED", "NOT GRADED"
VERDICTS = (PASS, FAIL, NOT_ATTEMPTED, ERROR, TIMEOUT, TAMPERED, NOT_GRADED)
FROM_STATUS = {"pass": PASS, "fail": FAIL, "not attempted": NOT_ATTEMPTED}
COUNTS = ("best", "latest")


def identity(person):
    """The identity columns of a row, from an intake.Person."""
    return {"student": person.name, "student_id": person.id, "platform": person.platform,
            "late": "late" if person.late else ""}


def row(who, notebook, submission, check, verdict, detail, note=""):
    """A gradebook row; `who`: the identity columns (see `identity`); points are filled in by `score`.  Every text
    in it is text.readable, so a row (and the result kept of it) can always be written, whatever a learner's code
    printed or raised."""
    assert verdict in VERDICTS, verdict
    made = {**dict.fromkeys(COLUMNS, ""), **who, "notebook": notebook or "", "submission": submission,
            "check": check or "", "verdict": verdict, "detail": detail, "note": note or ""}
    return {k: readable(v) if isinstance(v, str) else v for k, v in made.items()}


def person_key(r):
    """The row's person (intake.person_key of its platform and student_id)."""
    return intake.person_key(r["platform"], r["student_id"])


def score(rows, points, count="best", order=None, late=None):
    """The rows with points filled in: `points` {check: points of a PASS}; `order` {submission: sort key, later
    attempts higher} numbers the attempts (else the rows' own `attempt` is kept); `late` {submission: (share of the
    points kept, why)} from a late policy (lesson_tools.grading.late), written in the `late` column.  Each person's
    counted submission of each notebook is the one with the most points, after any penalty (ties: the later), or
    the latest (`count="latest"`)."""
    if count not in COUNTS:
        raise ValueError(f"count={count!r}: expected one of {', '.join(COUNTS)}")
    out = [dict(r) for r in rows]
    groups = defaultdict(dict)
    for r in out:
        kept, why = (late or {}).get(r["submission"], (1.0, ""))
        if why:
            r["late"] = why
        if r["check"]:
            r["max_points"] = number(points[r["check"]])
            r["points"] = number(round(points[r["check"]] * kept, 4)) if r["verdict"] == PASS else number(0)
            groups[(person_key(r), r["notebook"])].setdefault(r["submission"], []).append(r)
        r["counted"] = ""
    for subs in groups.values():
        if order is not None:
            for k, label in enumerate(sorted(subs, key=lambda s: order[s]), 1):
                for r in subs[label]:
                    r["attempt"] = str(k)
        attempt = {label: int(rs[0]["attempt"] or 0) for label, rs in subs.items()}
        earned = {label: sum(float(r["points"]) for r in rs) for label, rs in subs.items()}
        score = attempt if count == "latest" else {label: (earned[label], attempt[label]) for label in subs}
        for r in subs[max(subs, key=score.__getitem__)]:
            r["counted"] = "yes"
    return out


def number(x):
    """Points as text: 2, 0.5 (no trailing .0)."""
    return f"{float(x):g}"


def totals(rows):
    """{person key: {"student", "student_id", "platform", "points", "max", "notebooks": {notebook: {"points", "max",
    "counted" (the counted submission), "submissions", "late"}}, "ungraded": [why, ...]}} from scored rows.  Everyone
    with a row is here: a person none of whose files could be graded has no notebooks, 0 points, and the reasons."""
    people = {}
    for r in rows:
        p = people.setdefault(person_key(r), {"student": r["student"], "student_id": r["student_id"],
                                              "platform": r["platform"], "notebooks": {}, "ungraded": []})
        if not r["check"]:
            p["ungraded"].append(f"{r['submission'].rsplit('/', 1)[-1].split(':')[-1]}: {r['detail']}"
                                 if r["submission"] else r["detail"])
            continue
        nb = p["notebooks"].setdefault(r["notebook"], {"submissions": set(), "points": 0.0, "max": 0.0,
                                                       "counted": None, "late": False})
        nb["submissions"].add(r["submission"])
        if r["counted"] == "yes":
            nb["points"] += float(r["points"])
            nb["max"] += float(r["max_points"])
            nb["counted"], nb["late"] = r["submission"], bool(r["late"])
    for p in people.values():
        p["points"] = sum(nb["points"] for nb in p["notebooks"].values())
        p["max"] = sum(nb["max"] for nb in p["notebooks"].values())
    return people


def sort_rows(rows, order):
    """Rows by student, notebook, submission, then the checks in course order (`order`: {(nb, check): k})."""
    return sorted(rows, key=lambda r: (r["student"], r["student_id"], r["notebook"], r["submission"],
                                       order.get((r["notebook"], r["check"]), 0)))


@contextlib.contextmanager
def replaced(path):
    """A text file to write that takes `path`'s place only when the block ends without an error: a reader never
    sees half a file, and a failed write leaves none (nor the temporary file beside it)."""
    path = str(path)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            yield f
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def write(rows, path):
    """CSV, or JSON (a list of objects) when the file name ends in .json, written whole or not at all; every text
    shown() (control characters escaped)."""
    rows = [{k: shown(v) if isinstance(v, str) else v for k, v in r.items()} for r in rows]
    with replaced(path) as f:
        if str(path).lower().endswith(".json"):
            json.dump(rows, f, indent=1, ensure_ascii=False)
            f.write("\n")
        else:
            writer = csv.DictWriter(f, fieldnames=COLUMNS)
            writer.writeheader()
            writer.writerows({k: csv_cell(v) for k, v in r.items()} for r in rows)


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """A CSV cell a spreadsheet shows as text: one that starts like a formula (=, +, -, @), after any spaces, gets
    a leading apostrophe, so a file named '=1+2_04_feedback.ipynb' cannot put a formula into the gradebook."""
    return f"'{value}" if isinstance(value, str) and value.lstrip(" ").startswith(FORMULA_START) else value


def read(path):
    """The rows of a gradebook written by `write`."""
    path = str(path)
    with open(path, encoding="utf-8", newline="") as f:
        return json.load(f) if path.endswith(".json") else list(csv.DictReader(f))


def summary(rows, count="best"):
    """Lines for a person to read: per person, points per notebook (the counted submission's, saying which when
    there were several), late hand-ins, and anything that needs a look (TAMPERED, ERROR, TIMEOUT, NOT GRADED).
    Each line is shown() (a name cannot start a line of its own)."""
    people = totals(rows)
    attention = defaultdict(Counter)
    for r in rows:
        if r["verdict"] in (TAMPERED, ERROR, TIMEOUT, NOT_GRADED):
            attention[person_key(r)][r["verdict"]] += 1
    names = Counter(p["student"] for p in people.values())
    lines = []
    for key in sorted(people, key=lambda k: (people[k]["student"], k)):
        p = people[key]
        name = p["student"]
        sid = p.get("student_id", "")
        named = f"{name} ({sid})" if sid and (sid != name or names[name] > 1) else name
        parts, late = [], []
        for stem, nb in sorted(p["notebooks"].items()):
            many = len(nb["submissions"])
            parts.append(f"{stem} {number(nb['points'])}/{number(nb['max'])}"
                         + (f", {count} of {many}: {nb['counted']}" if many > 1 else ""))
            late += [stem] if nb["late"] else []
        earned, possible = p["points"], p["max"]
        line = (f"{named}: {number(earned)} of {number(possible)} point{'' if possible == 1 else 's'}"
                + (f" ({'; '.join(parts)})" if parts else ""))
        if not parts:
            line += f"; nothing of theirs could be graded ({'; '.join(p['ungraded'])})"
        if late:
            line += f"; late: {', '.join(late)}"
        if attention[key]:
            line += "; look at: " + ", ".join(f"{n} {v}" for v, n in sorted(attention[key].items()))
        notes = dict.fromkeys(r["note"] for r in rows if r["note"] and person_key(r) == key)
        if notes:
            line += "; note: " + "; ".join(notes)
        lines.append(shown(line))
    lines.append("rows: " + tally(rows))
    return lines


def tally(rows):
    """'9 PASS, 1 FAIL, ...': how many rows have each verdict, in VERDICTS' order, verdicts with none left out."""
    counts = Counter(r["verdict"] for r in rows)
    return ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v])
