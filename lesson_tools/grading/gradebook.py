"""The gradebook: one row per (submission, check), written as CSV (or JSON), points, and a summary per person.

Columns: student, student_id, platform, notebook, submission, attempt, late, check, verdict, points, max_points,
counted, override, detail, note.  `detail` is what the grader says about the work (the learner's feedback page shows
it); `override` what the teacher's overrides file set on the row, and why (lesson_tools.grading.overrides);
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
    SET BY HAND, EXCUSED         a notebook's points set by the teacher, or the notebook excused (overrides): a row
                                 of its own, without a check, that counts instead of any submission
"""
import contextlib
import csv
import json
import os
from collections import Counter, defaultdict

from . import intake
from .text import readable, shown

COLUMNS = ("student", "student_id", "platform", "notebook", "submission", "attempt", "late", "check", "verdict",
           "points", "max_points", "counted", "override", "detail", "note")
PASS, FAIL, NOT_ATTEMPTED = "PASS", "FAIL", "NOT ATTEMPTED"
ERROR, TIMEOUT, TAMPERED, NOT_GRADED = "ERROR", "TIMEOUT", "TAMPERED", "NOT GRADED"
SET_BY_HAND, EXCUSED = "SET BY HAND", "EXCUSED"
CHECK_VERDICTS = (PASS, FAIL, NOT_ATTEMPTED, ERROR, TIMEOUT, TAMPERED)      # what a check's row can say
VERDICTS = (*CHECK_VERDICTS, NOT_GRADED, SET_BY_HAND, EXCUSED)
DECIDED = (SET_BY_HAND, EXCUSED)                                            # a notebook's row the teacher decided
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


def score(rows, points, count="best", order=None, late=None, by_hand=None):
    """The rows with points filled in: `points` {check: points of a PASS}; `order` {submission: sort key, later
    attempts higher} numbers the attempts (else the rows' own `attempt` is kept); `late` {submission: (share of the
    points kept, why)} from lesson_tools.grading.late, written in the `late` column (why: "" when on time); `by_hand`
    {(person key, notebook, check): (points, why)} set by the teacher (lesson_tools.grading.overrides): the points
    as given, no late share off, and why in the `override` column.  Each person's counted submission of each
    notebook is a row the teacher decided (SET BY HAND, EXCUSED) when there is one, else the one with the most
    points, after any penalty (ties: the later), or the latest (`count="latest"`)."""
    if count not in COUNTS:
        raise ValueError(f"count={count!r}: expected one of {', '.join(COUNTS)}")
    out = [dict(r) for r in rows]
    groups = defaultdict(dict)
    for r in out:
        r.setdefault("override", "")
        if late is not None and r["submission"] in late:
            r["late"] = late[r["submission"]][1]
        kept = (late or {}).get(r["submission"], (1.0, ""))[0]
        if r["check"]:
            r["max_points"] = number(points[r["check"]])
            r["points"] = number(round(points[r["check"]] * kept, 4)) if r["verdict"] == PASS else number(0)
            given = (by_hand or {}).get((person_key(r), r["notebook"], r["check"]))
            if given is not None:
                r["points"], r["override"] = number(given[0]), given[1]
        if r["check"] or r["verdict"] in DECIDED:
            groups[(person_key(r), r["notebook"])].setdefault(r["submission"], []).append(r)
        r["counted"] = ""
    for subs in groups.values():
        decided = [label for label, rs in subs.items() if rs[0]["verdict"] in DECIDED]
        handed = {label: rs for label, rs in subs.items() if label not in decided}
        if order is not None:
            for k, label in enumerate(sorted(handed, key=lambda s: order[s]), 1):
                for r in handed[label]:
                    r["attempt"] = str(k)
        attempt = {label: int(rs[0]["attempt"] or 0) for label, rs in handed.items()}
        earned = {label: sum(float(r["points"]) for r in rs) for label, rs in handed.items()}
        score = attempt if count == "latest" else {label: (earned[label], attempt[label]) for label in handed}
        for r in subs[decided[0] if decided else max(handed, key=score.__getitem__)]:
            r["counted"] = "yes"
    return out


def number(x):
    """Points as text: 2, 0.5 (no trailing .0)."""
    return f"{float(x):g}"


def totals(rows):
    """{person key: {"student", "student_id", "platform", "points", "max", "notebooks": {notebook: {"points", "max",
    "counted" (the counted submission), "submissions", "late" (how late, "" on time), "excused" (why, "" when not),
    "by_hand" [(check, why)] ("" for the notebook's total)}}, "ungraded": [why, ...]}} from scored rows.  Everyone
    with a row is here: a person none of whose files could be graded has no notebooks, 0 points, and the reasons.
    An excused notebook counts 0 of 0."""
    people = {}
    for r in rows:
        p = people.setdefault(person_key(r), {"student": r["student"], "student_id": r["student_id"],
                                              "platform": r["platform"], "notebooks": {}, "ungraded": []})
        if not r["check"] and r["verdict"] not in DECIDED:
            p["ungraded"].append(f"{r['submission'].rsplit('/', 1)[-1].split(':')[-1]}: {r['detail']}"
                                 if r["submission"] else r["detail"])
            continue
        nb = p["notebooks"].setdefault(r["notebook"], {"submissions": set(), "points": 0.0, "max": 0.0,
                                                       "counted": None, "late": "", "excused": "",
                                                       "by_hand": []})
        if r["verdict"] not in DECIDED:
            nb["submissions"].add(r["submission"])
        if r["counted"] == "yes":
            nb["points"] += float(r["points"])
            nb["max"] += float(r["max_points"])
            nb["counted"], nb["late"] = r["submission"], r["late"]
            nb["excused"] = r.get("override") or "excused" if r["verdict"] == EXCUSED else ""
            if r.get("override", "").startswith("set by hand"):         # (an extension may follow it)
                nb["by_hand"].append((r["check"], r["override"]))
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
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)      # a folder not there yet is made, as nbgrader does
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
        parts, late, by_hand = [], [], []
        for stem, nb in sorted(p["notebooks"].items()):
            many = len(nb["submissions"])
            if nb["excused"]:
                parts.append(f"{stem} excused")
                continue
            parts.append(f"{stem} {number(nb['points'])}/{number(nb['max'])}"
                         + (f", {count} of {many}: {nb['counted']}" if many > 1 and nb["counted"] in nb["submissions"]
                            else ""))
            late += [stem] if nb["late"] else []
            by_hand += [f"{stem} {check}".strip() for check, _ in nb["by_hand"]]
        earned, possible = p["points"], p["max"]
        line = (f"{named}: {number(earned)} of {number(possible)} point{'' if possible == 1 else 's'}"
                + (f" ({'; '.join(parts)})" if parts else ""))
        if not parts:
            line += f"; nothing of theirs could be graded ({'; '.join(p['ungraded'])})"
        if late:
            line += f"; late: {', '.join(late)}"
        if by_hand:
            line += f"; set by hand: {', '.join(by_hand)}"
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
