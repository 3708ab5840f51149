"""pytest plugin: under nbval, a check cell of this course passes only if it prints a PASS line now.  Registered
where the tests are, not by the installed package: the repository's pytest configuration (pyproject.toml's
addopts) gives `-p lesson_tools.grading._plugin`, and so does a teacher who runs nbval on a learner's notebook.

nbval compares each cell's fresh output with the output stored in the notebook.  For the course's check cells
that gives a grader inverted answers: an untouched learner notebook stores `NOT ATTEMPTED` and prints it again,
so it passes; a finished one saved before its check cell was re-run stores `NOT ATTEMPTED` but now prints
`PASS`, so it fails.  With this plugin, a check cell (a code cell with the line `# NBVAL_CHECK_OUTPUT` that
calls `checks.NAME(...)`) is judged by its fresh output alone, with `--nbval` and with `--nbval-lax`: it passes
when it printed exactly one line and that line starts with `PASS: `.  Other cells are left to nbval.

Under nbval no learner is there to predict, so the plugin sets LESSON_PREDICTIONS="" for the kernels nbval starts
(lesson_course.reveal.unattended): a prediction's evidence runs without a choice and its reveal hides the answer,
as in the build, instead of waiting for a choice nobody can make.

This is for people who run the design's tool by habit; it runs the learner's code in one kernel with the
checks, so it is not tamper-proof: grade with `lesson-tools grade` (see the README).  The untouched
learner notebooks run without pytest (tests/test_edition.py, tests/test_install.py): they still say NOT ATTEMPTED.
"""
import functools
import re

MARKER = "# NBVAL_CHECK_OUTPUT"
CALL = re.compile(r"^\s*checks\.[A-Za-z_]\w*\(", re.MULTILINE)


def is_course_check(item):
    """An nbval cell item whose cell is one of this course's check cells."""
    cell = getattr(item, "cell", None)
    if cell is None or not hasattr(item, "test_outputs") or not isinstance(getattr(item, "options", None), dict):
        return False
    source = cell.get("source", "")
    return any(line.strip() == MARKER for line in source.splitlines()) and bool(CALL.search(source))


def fresh_verdict(outputs):
    """The text the cell printed on stdout just now."""
    return "".join(o.get("text", "") for o in outputs or []
                   if o.get("output_type") == "stream" and o.get("name") == "stdout")


def _judged_runtest(item, runtest):
    runtest()                                   # nbval runs the cell; an exception in it still fails the test
    printed = fresh_verdict(item.test_outputs)
    lines = printed.splitlines()
    if len(lines) != 1 or not lines[0].startswith("PASS: "):
        item.raise_cell_error("The course's check did not say PASS when it ran now (its stored output is not "
                              "used)", f"\nIt printed:\n{printed or '(nothing)'}")


def pytest_configure(config):
    """With nbval on, the kernels it starts are unattended (LESSON_PREDICTIONS="")."""
    nbval = any(getattr(config.option, name, False) for name in ("nbval", "nbval_lax"))
    if nbval:
        import os
        os.environ["LESSON_PREDICTIONS"] = ""


def pytest_collection_modifyitems(items):
    for item in items:
        if is_course_check(item):
            item.options["check"] = False       # no comparison with the stored output
            item.runtest = functools.partial(_judged_runtest, item, item.runtest)
