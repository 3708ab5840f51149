"""Shared pytest set-up.

The fast tier, `python -m pytest -m fast` (a contributor's check on every change, about a minute on 2 cores):
every test of tests/ except those that start servers, browsers, kernels, sandboxes or virtualenvs (SLOW_FILES),
the grader's commands and the notebooks under nbval.  CI runs everything.

Under mutmut (`python benchmarks/mutation_score.py`), each mutant runs only the tests that reach the mutated
function and stops at the first failure: order them fastest first, by the durations mutmut recorded in its own
stats run (mutants/mutmut-stats.json), so a mutant costs the fastest test that kills it.  Outside mutmut this
changes nothing.
"""
import json
import os
import tempfile
from pathlib import Path

SLOW_FILES = {"test_browser.py", "test_browser_writing.py", "test_hub.py", "test_install.py", "test_edition.py",
              "test_grading.py", "test_grading_class.py", "test_grading_notebooks.py", "test_grading_lms.py",
              "test_caps.py", "test_sandbox.py", "test_wire.py", "test_bench.py", "test_benchmarks.py",
              "test_answer_not_in_the_room.py", "test_grading_resume.py",
              "test_report_browser.py", "test_grading_week.py"}


def pytest_configure(config):
    """The grader keeps results in $XDG_CACHE_HOME/lesson-tools (lesson_tools.grading.results): for the tests and
    every command they start, a folder of the session's own, never the user's cache."""
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="lesson-tests-cache-")
    os.environ["LESSON_PREDICTIONS"] = ""          # predictions locked by no file (lesson_course.reveal.history_file)


def pytest_unconfigure(config):
    import shutil
    folder = os.environ.get("XDG_CACHE_HOME", "")
    if "lesson-tests-cache-" in folder:
        shutil.rmtree(folder, ignore_errors=True)


# On several processes (the README's `-n 2 --dist loadfile --no-loadscope-reorder`: without the last, pytest-xdist
# hands out the files with the most tests first), files go out in collection order as processes free up: the longest
# first leaves the short ones to even out the end.  Heaviest first, by CI's durations.
LONGEST_FIRST = ("test_grading_class.py", "test_install.py", "test_browser.py", "test_edition.py",
                 "test_grading_lms.py", "test_grading_resume.py", "test_grading_week.py", "test_caps.py",
                 "test_answer_not_in_the_room.py", "test_browser_writing.py", "test_hub.py")


def pytest_collection_modifyitems(config, items):
    tests = Path(__file__).resolve().parent
    if hasattr(config, "workerinput"):                  # a process of pytest-xdist's
        rank = {name: k for k, name in enumerate(LONGEST_FIRST)}
        items.sort(key=lambda item: rank.get(Path(str(item.path)).name, len(rank)))      # stable: a file's order kept
    for item in items:
        path = Path(str(item.path))
        # the grader's commands refuse to run while lesson_lib differs from its commit: not for work in progress
        if path.parent == tests and path.suffix == ".py" and path.name not in SLOW_FILES and "grader" not in item.name:
            item.add_marker("fast")
    if "__mutmut_" not in os.environ.get("MUTANT_UNDER_TEST", ""):
        return
    try:
        durations = json.loads(Path("mutmut-stats.json").read_text(encoding="utf-8"))["duration_by_test"]
    except (OSError, ValueError, KeyError):
        return
    items.sort(key=lambda item: durations.get(item.nodeid, 0.0))
