"""The course machinery: learner notebooks in sync, stored check outputs, the grader, and every check's outcomes.

The notebooks themselves are executed by nbval (testpaths include notebooks/); these tests cover what nbval
cannot see: that the learner versions are what `course build` makes, that the teachers' sources store PASS lines
and the learner versions NOT ATTEMPTED, that grading tells a right notebook from a wrong or unfilled one, and
that each check passes a right answer, fails a plausible wrong one with a hint, and spots an untouched stub.
"""
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import nbformat
import numpy as np
import pytest

from lesson_lib import DeLaN, PlanarChain, double_pendulum
from lesson_lib.course import checks
from lesson_lib.course.build import NOTEBOOKS, ROOT, SOLUTIONS, CourseError, check, learner_version, strip_solutions
from lesson_lib.grading.grade import is_check_cell

SOURCES = sorted(SOLUTIONS.glob("*.ipynb"))


def check_cells(path):
    return [c for c in nbformat.read(str(path), as_version=4).cells if is_check_cell(c)]


def stream(cell):
    return "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")


# ---------------------------------------------------------------------- (a) learner notebooks in sync
def test_learner_notebooks_match_their_teachers_sources():
    problems = check(log=lambda *_: None)
    assert not problems, "\n".join(problems) + "\nrun: python -m lesson_lib.course build <names>"


def test_course_check_command_exits_zero():
    proc = subprocess.run([sys.executable, "-m", "lesson_lib.course", "check"], cwd=ROOT, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ---------------------------------------------------------------------- (b) stored check outputs
@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_check_cells_store_pass_for_teachers_and_not_attempted_for_learners(source):
    teacher, learner = check_cells(source), check_cells(NOTEBOOKS / source.name)
    assert len(teacher) == len(learner)
    for cell in teacher:
        lines = stream(cell).splitlines()
        assert len(lines) == 1 and lines[0].startswith("PASS: "), f"{source.name}: {cell.source!r} stored {lines}"
    for cell in learner:
        lines = stream(cell).splitlines()
        assert len(lines) == 1 and lines[0].startswith("NOT ATTEMPTED: "), f"{source.name}: stored {lines}"


@pytest.mark.parametrize("name", ["01_challenge", "02_model", "05_retrieve_and_space", "06_mastery_and_project"])
def test_exercise_notebooks_have_a_stub_and_a_check(name):
    learner = nbformat.read(str(NOTEBOOKS / f"{name}.ipynb"), as_version=4)
    assert any("raise NotImplementedError" in c.source for c in learner.cells if c.cell_type == "code")
    assert check_cells(NOTEBOOKS / f"{name}.ipynb")


# ---------------------------------------------------------------------- the solution-block stripper
def test_strip_solutions_keeps_indentation_and_given_lines():
    src = ("def f(x):\n    y = 2 * x\n    ### BEGIN SOLUTION\n    z = y + 1\n    ### END SOLUTION\n    return z")
    out, n = strip_solutions(src)
    assert n == 1
    assert out == ("def f(x):\n    y = 2 * x\n    # YOUR CODE HERE\n"
                   "    raise NotImplementedError(\"Your turn: see the instructions above\")\n    return z")


@pytest.mark.parametrize("src, match", [
    ("### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n", "top level"),
    ("def f():\n    ### BEGIN SOLUTION\n    return 1\n", "without a matching"),
    ("def f():\n    return 1\n    ### END SOLUTION\n", "without a matching"),
])
def test_strip_solutions_refuses_bad_markers(src, match):
    with pytest.raises(CourseError, match=match):
        strip_solutions(src)


def test_solution_markdown_is_dropped():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("for teachers"),
                                         nbformat.v4.new_markdown_cell("for all")])
    nb.cells[0].metadata["tags"] = ["solution"]
    assert [c.source for c in learner_version(nb).cells] == ["for all"]


# ---------------------------------------------------------------------- (c) the grader: tests/test_grading*.py


# ---------------------------------------------------------------------- (d) every check's three outcomes
def stub(*args, **kwargs):
    raise NotImplementedError("Your turn: see the instructions above")


class FakeTrainedDeLaN(DeLaN):
    """A 'trained' 3-joint DeLaN whose M is the truth plus `offset` I (so the check runs without training)."""

    def __init__(self, offset):
        super().__init__(n_dof=3)
        self.step, self._offset, self._chain = 1000, offset, checks.reference_triple_pendulum()

    def mass_matrix(self, q):
        return self._chain.mass_matrix(q) + self._offset * np.eye(3)


class TruthAsModel:
    """Duck-typed model whose M is the true double pendulum's."""
    n_dof = 2

    def mass_matrix(self, q):
        return double_pendulum().mass_matrix(q)


def _triple(m=1.0, I_factor=12):
    l = np.array(checks.TRIPLE_LENGTHS)
    m = np.full(3, m)
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / I_factor, g=9.81)


def _coriolis(dM, qd, half=0.5):
    n = len(qd)
    return np.array([sum(half * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k]) * qd[j] * qd[k]
                         for j in range(n) for k in range(n)) for i in range(n)])


def _mass_matrix(chain, q, gravity=False):
    n = chain.n_dof
    return np.stack([chain.rnea(q, np.zeros(n), np.eye(n)[j], gravity=gravity) for j in range(n)], axis=1)


CASES = {
    # check: (right, (plausible wrong, words its hint must contain))
    "is_valid_inertia": (lambda M: bool(np.max(np.abs(M - M.T)) <= 1e-9 and np.linalg.eigvalsh(M).min() > 0),
                         (lambda M: bool(np.max(np.abs(M - M.T)) <= 1e-9 and np.min(M) > 0), "eigenvalues")),
    "kinetic_energy": (lambda M, qd: 0.5 * qd @ M @ qd, (lambda M, qd: qd @ M @ qd, "1/2 is missing")),
    "mass_matrix_from_rnea": (_mass_matrix, (lambda chain, q: _mass_matrix(chain, q, gravity=True), "gravity=False")),
    "coriolis_from_dM": (_coriolis, (lambda dM, qd: _coriolis(dM, qd, half=1.0), "1/2")),
    "symplectic_euler_step": (lambda f, q, qd, dt: (q + dt * (qd + dt * f(q, qd)), qd + dt * f(q, qd)),
                              (lambda f, q, qd, dt: (q + dt * qd, qd + dt * f(q, qd)), "explicit Euler")),
    "triple_pendulum": (_triple, (lambda: _triple(I_factor=3), "m l^2 / 12")),
    "triple_delan": (lambda chain, data: FakeTrainedDeLaN(0.01),
                     (lambda chain, data: FakeTrainedDeLaN(0.5), "train longer")),
    "total_mass": (lambda chain: chain.m.sum(), (lambda chain: chain.m[0], "add them all up")),
    "errors_at": (lambda model, chain, q: (np.abs(model.mass_matrix(q) - chain.mass_matrix(q)).max(),
                                           np.linalg.eigvalsh(model.mass_matrix(q)).min()),
                  (lambda model, chain, q: ((model.mass_matrix(q) - chain.mass_matrix(q)).max(),
                                            np.linalg.eigvalsh(model.mass_matrix(q)).min()), "absolute value")),
    "lesson_passes": (lambda e, lam: e < 0.2 and lam > 0, (lambda e, lam: e <= 0.2 and lam > 0, "strictly")),
    "lesson_pass": (TruthAsModel(), (DeLaN(seed=0), "train more")),
}


def run(check_name, answer, capsys):
    getattr(checks, check_name)(answer)
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert len(lines) == 1 and not out.err, f"{check_name} printed {out.out!r} {out.err!r}"
    return lines[0]


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_passes_right_answer(name, capsys):
    line = run(name, CASES[name][0], capsys)
    assert line.startswith("PASS: "), line


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_fails_plausible_wrong_answer_with_hint(name, capsys):
    wrong, hint_words = CASES[name][1]
    line = run(name, wrong, capsys)
    assert line.startswith("FAIL: ") and ". Hint: " in line, line
    assert hint_words in line.split(". Hint: ", 1)[1], line


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_reports_stub_as_not_attempted(name, capsys):
    line = run(name, stub, capsys)
    assert line.startswith("NOT ATTEMPTED: ") and "fill in the cell above" in line, line
    assert checks.RESULTS[line.split(": ")[1]] == "not attempted"


@pytest.mark.parametrize("answer, words", [
    (lambda *a: 1 / 0, "ZeroDivisionError"),
    (lambda *a: None, "None"),
    (42, "expected a function"),
    (lambda *a: (print("debug output"), {}["missing"])[1], "KeyError"),
])
def test_checks_never_raise_and_print_one_line(answer, words, capsys):
    for name in ("kinetic_energy", "coriolis_from_dM", "symplectic_euler_step", "is_valid_inertia"):
        line = run(name, answer, capsys)
        assert line.startswith("FAIL: ") and words in line, line


# ---------------------------------------------------------------------- kind errors when cells run out of order
def test_cells_run_out_of_order_say_which_cell_to_run():
    from nbclient import NotebookClient
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("from lesson_lib.course.notebook import require, setup\nsetup()"),
        nbformat.v4.new_code_cell('require("black_box", cell="\'Train both models\' (section 2)")'),
        nbformat.v4.new_code_cell("print(never_defined)")])
    NotebookClient(nb, kernel_name="python3", allow_errors=True).execute()
    (missing,), (name_error,) = nb.cells[1].outputs, nb.cells[2].outputs
    assert missing.output_type == "error" and missing.ename == "MissingStep"
    assert "'Train both models' (section 2)" in missing.evalue and len(missing.traceback) == 1
    assert name_error.output_type == "error" and name_error.ename == "NameError"
    assert "Run All Above Selected Cell" in name_error.traceback[-1]
