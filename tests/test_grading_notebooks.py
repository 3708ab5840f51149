"""pytest/nbval and the course's notebooks.

- With the course's plugin (`-p lesson_tools.grading._plugin`, as the repository's pytest configuration gives it),
  `pytest --nbval` and `--nbval-lax` judge a check cell
  by what it prints now: an untouched or wrong learner notebook fails, a finished one passes even when it was
  saved before its check cell was re-run, and a stored PASS line counts for nothing.
- The untouched learner notebooks (stored without outputs; not in testpaths) are run top to bottom, every check
  saying NOT ATTEMPTED, in the learners' edition by tests/test_edition.py.
"""
import copy
import subprocess
import sys
import xml.etree.ElementTree as ET

import nbformat
import pytest

from lesson_tools.build import NOTEBOOKS, ROOT
from lesson_tools.grading.course_notebooks import carries_check_marker

STUB = '    # YOUR CODE HERE\n    raise NotImplementedError("Your turn: see the instructions above")'
NBVAL = ["--nbval-current-env", "-p", "no:cacheprovider", "-o", "addopts=", "-p", "lesson_tools.grading._plugin",
         "--nbval-sanitize-with", str(ROOT / "tests" / "nbval_sanitize.cfg")]


def pytest_run(args, cwd, junit):
    proc = subprocess.run([sys.executable, "-m", "pytest", *NBVAL, "--junitxml", str(junit), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600)
    failed = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        notebook = case.get("classname").removesuffix(".ipynb").split(".")[-1]      # notebooks.02_model.ipynb
        failed.setdefault(notebook, []).append(case.find("failure") is not None or case.find("error") is not None)
    return proc, {name: any(flags) for name, flags in failed.items()}


@pytest.fixture(scope="module")
def learner_04(tmp_path_factory):
    """Three copies of the learner's 04_feedback: untouched; finished but saved before its check cell was run
    again (stored: NOT ATTEMPTED); wrong, with a PASS line pasted into its stored output."""
    folder = tmp_path_factory.mktemp("nbval")
    nb = nbformat.read(str(NOTEBOOKS / "04_feedback.ipynb"), as_version=4)
    k = next(i for i, c in enumerate(nb.cells) if "def lesson_passes" in c.source)
    check = next(i for i, c in enumerate(nb.cells) if carries_check_marker(c))
    assert STUB in nb.cells[k].source and not nb.cells[check].outputs      # learner notebooks store no outputs
    right, wrong = copy.deepcopy(nb), copy.deepcopy(nb)
    right.cells[check].execution_count = wrong.cells[check].execution_count = 1
    right.cells[check].outputs = [nbformat.v4.new_output("stream", name="stdout",
                                                         text="NOT ATTEMPTED: lesson_passes: fill in the cell above, "
                                                              "then run this cell again.\n")]
    right.cells[k].source = nb.cells[k].source.replace(STUB, "    return max_error < 0.2 and min_eig > 0")
    wrong.cells[k].source = nb.cells[k].source.replace(STUB, "    return max_error <= 0.2 and min_eig > 0")
    wrong.cells[check].outputs = [nbformat.v4.new_output("stream", name="stdout", text="PASS: lesson_passes\n")]
    for name, version in (("untouched", nb), ("finished_not_rerun", right), ("wrong_stored_pass", wrong)):
        nbformat.write(version, str(folder / f"{name}.ipynb"))
    return folder


@pytest.mark.parametrize("mode", ["--nbval", "--nbval-lax"])
def test_nbval_passes_a_notebook_only_when_its_checks_pass_now(learner_04, mode, tmp_path):
    proc, failed = pytest_run([mode, "."], learner_04, tmp_path / "junit.xml")
    assert failed == {"untouched": True, "finished_not_rerun": False, "wrong_stored_pass": True}, proc.stdout
    assert "The course's check did not say PASS" in proc.stdout
