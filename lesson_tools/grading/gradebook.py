"""The gradebook: one row per (submission, check), written as CSV (or JSON), and a summary per student.

Columns: student, notebook, submission, check, verdict, detail.  Verdicts:

    PASS, FAIL, NOT ATTEMPTED    what the course's check said about the learner's answer
    ERROR                        the notebook raised, the kernel died or went over a limit before the answer
    TIMEOUT                      a cell, the whole notebook or the check ran out of time
    TAMPERED                     the code reaches into the checks or the grader: a person should look
    NOT GRADED                   not a notebook, not a notebook of this course, or one without checks
"""
import csv
import json
import os
from collections import Counter, defaultdict

COLUMNS = ("student", "notebook", "submission", "check", "verdict", "detail")
PASS, FAIL, NOT_ATTEMPTED = "PASS", "FAIL", "NOT ATTEMPTED"
ERROR, TIMEOUT, TAMPERED, NOT_GRADED = "ERROR", "TIMEOUT", "TAMPERED", "NOT GRADED"
VERDICTS = (PASS, FAIL, NOT_ATTEMPTED, ERROR, TIMEOUT, TAMPERED, NOT_GRADED)
FROM_STATUS = {"pass": PASS, "fail": FAIL, "not attempted": NOT_ATTEMPTED}


def row(student, notebook, submission, check, verdict, detail):
    assert verdict in VERDICTS, verdict
    return dict(zip(COLUMNS, (student, notebook or "", submission, check or "", verdict, detail)))


def sort_rows(rows, order):
    """Rows by student, notebook, submission, then the checks in course order (`order`: {(nb, check): k})."""
    return sorted(rows, key=lambda r: (r["student"], r["notebook"], r["submission"],
                                       order.get((r["notebook"], r["check"]), 0)))


def write(rows, path):
    """CSV, or JSON (a list of objects) when the file name ends in .json; written whole to a temporary file beside
    it first, then put in place, so a reader never sees half a gradebook and a failed write leaves none."""
    path = str(path)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            if path.lower().endswith(".json"):
                json.dump(list(rows), f, indent=1, ensure_ascii=False)
                f.write("\n")
            else:
                writer = csv.DictWriter(f, fieldnames=COLUMNS)
                writer.writeheader()
                writer.writerows({k: _cell(v) for k, v in r.items()} for r in rows)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value):
    """A CSV cell a spreadsheet shows as text: one that starts like a formula (=, +, -, @) gets a leading
    apostrophe, so a file named '=1+2_04_feedback.ipynb' cannot put a formula into the gradebook."""
    return f"'{value}" if isinstance(value, str) and value.startswith(FORMULA_START) else value


def read(path):
    """The rows of a gradebook written by `write`."""
    path = str(path)
    with open(path, encoding="utf-8", newline="") as f:
        return json.load(f) if path.endswith(".json") else list(csv.DictReader(f))


def summary(rows):
    """Lines for a person: per student, checks passed per notebook (the best of several submissions of the
    same notebook), and anything that needs a look (TAMPERED, ERROR, TIMEOUT, NOT GRADED)."""
    by_student = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in rows:
        by_student[r["student"]][r["notebook"]][r["submission"]].append(r["verdict"])
    lines = []
    for student in sorted(by_student):
        passed = total = 0
        parts, attention = [], defaultdict(int)
        for notebook, submissions in sorted(by_student[student].items()):
            scores = []
            for verdicts in submissions.values():
                graded = [v for v in verdicts if v != NOT_GRADED]
                scores.append((sum(v == PASS for v in graded), len(graded)))
                for v in verdicts:
                    if v in (TAMPERED, ERROR, TIMEOUT, NOT_GRADED):
                        attention[v] += 1
            best = max(scores)
            if best[1]:
                passed, total = passed + best[0], total + best[1]
                many = f", best of {len(scores)} submissions" if len(scores) > 1 else ""
                parts.append(f"{notebook} {best[0]}/{best[1]}{many}")
        line = f"{student}: {passed} of {total} checks PASS" + (f" ({'; '.join(parts)})" if parts else "")
        if attention:
            line += "; look at: " + ", ".join(f"{n} {v}" for v, n in sorted(attention.items()))
        lines.append(line)
    lines.append("rows: " + tally(rows))
    return lines


def tally(rows):
    """'9 PASS, 1 FAIL, ...': how many rows have each verdict, in VERDICTS' order, verdicts with none left out."""
    counts = Counter(r["verdict"] for r in rows)
    return ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v])
