"""A small class for the class report's tests (tests/test_report.py, tests/test_report_browser.py): folders as a
teacher downloads them, and the gradebook rows the course's own checks give for each person's answer (each line
is `lesson_course.checks.framework.evaluate` on that person's function, as the grader's judge runs it).

In 04: six people write the course's answer (one of them late), two make the `or` mistake, one leaves out the
eigenvalue, one hands in the notebook untouched; one person hands in 00 alone (missing 04), and one a PDF alone
(nothing gradable), under a name of HTML that would run a script.
"""
import copy

import nbformat
from lms_downloads import canvas_name, write_tree

from lesson_course.checks.framework import evaluate
from lesson_lib.facts import PASS_MAX_ERROR
from lesson_tools.build import NOTEBOOKS, SOLUTIONS
from lesson_tools.grading import gradebook, identical, points
from lesson_tools.grading.command import collect

M04, M00 = "04_feedback", "00_start_here"
SCRIPT = "<img src=x onerror=alert(1)>"          # a name of HTML, without a slash (a folder's name)
ANSWERS = {   # what each kind of person wrote in 04's exercise, and the same as a function for the check
    "right": ("return max_error < PASS_MAX_ERROR and min_eig > 0", lambda e, m: e < PASS_MAX_ERROR and m > 0),
    "or": ("return max_error < PASS_MAX_ERROR or min_eig > 0", lambda e, m: e < PASS_MAX_ERROR or m > 0),
    "error only": ("return max_error < PASS_MAX_ERROR", lambda e, m: e < PASS_MAX_ERROR),
}
PEOPLE = {"Astrid": "right", "Bruno": "right", "Chiara": "right", "Dmitri": "right", "Elif": "right",
          "Farid": "or", "Greta": "or", "Hiroshi": "error only", "Ingrid": None}
LATE = canvas_name("doejohn", 23456, 67893, f"{M04}.ipynb", late=True)         # the sixth right answer, late


def notebook(kind, who):
    if kind is None:
        return nbformat.read(str(NOTEBOOKS / f"{M04}.ipynb"), as_version=4)
    nb = copy.deepcopy(nbformat.read(str(SOLUTIONS / f"{M04}.ipynb"), as_version=4))
    cell = next(c for c in nb.cells if c.cell_type == "code" and "def lesson_passes" in c.source)
    cell.source = cell.source.split("### BEGIN SOLUTION")[0] + ANSWERS[kind][0]
    nb.metadata["saved_by"] = who
    return nb


def write_class(folder):
    files = {f"{who}/{M04}.ipynb": notebook(kind, who) for who, kind in PEOPLE.items()}
    files[f"Jonas/{M00}.ipynb"] = nbformat.read(str(SOLUTIONS / f"{M00}.ipynb"), as_version=4)
    files[f"{SCRIPT}/scan.pdf"] = b"%PDF-1.4 \xff\xfe my work"
    files[LATE] = notebook("right", "doejohn")            # a Canvas file on the first level: the platform's name
    return write_tree(folder, files)


def verdict(sub):
    """(verdict, detail) the check gives this submission's answer."""
    if sub.notebook == M00:
        return gradebook.PASS, f"PASS: {M00}"
    kind = PEOPLE.get(sub.student, "right")
    if kind is None:
        return gradebook.NOT_ATTEMPTED, "NOT ATTEMPTED: lesson_passes: fill in the cell above"
    status, line = evaluate("lesson_passes", ANSWERS[kind][1])
    return gradebook.FROM_STATUS[status], line


def graded_class(folder, course):
    """(submissions, scored rows) of the class written under `folder`."""
    subs = collect([write_class(folder)], course)
    rows = []
    for s in subs:
        who = gradebook.identity(s.person)
        if s.problem:
            rows.append(gradebook.row(who, s.notebook, s.label, "", gradebook.NOT_GRADED, s.problem))
        else:
            for check in course[s.notebook].checks:
                rows.append(gradebook.row(who, s.notebook, s.label, check.name, *verdict(s)))
    rows = gradebook.score(rows, points.declared(), order={s.label: s.person.order for s in subs})
    return subs, identical.noted(rows, subs, course)                   # as the grader's run does
