"""The course's small helpers, on hand-worked cases: friendly NameErrors in a real IPython shell, the
predict-first reveal, the check framework's number formatting and registry, the exercises' own test cases (each
label says which matrix it is, each case sits where its docstring says), the PASS report's diagnosis, the
closed-form truth, and the marker messages."""
import ast
import re

import numpy as np
import pytest

from lesson_lib import PlanarChain, double_pendulum, facts
from lesson_lib.course import feedback
from lesson_tools import markers
from lesson_lib.course.checks import framework, nb01_challenge, nb04_feedback, nb05_retrieve_and_space, independent
from lesson_lib.course.checks.nb06_mastery_and_project import TRIPLE_LENGTHS
from lesson_lib.course.reveal import ANSWER, CONTROL_ANSWER, idea_mentions, reveal, reveal_control

chain = double_pendulum()


# ---------------------------------------------------------------------- notebook: friendly NameErrors
@pytest.fixture(scope="module")
def shell():
    """A real IPython shell with lesson_lib.course.notebook.setup() installed; errors shown are recorded."""
    from IPython.core.interactiveshell import InteractiveShell
    from lesson_lib.course.notebook import setup
    sh = InteractiveShell.instance()
    setup()
    sh.shown = []
    sh._showtraceback = lambda etype, value, stb: sh.shown.append((etype, str(value), stb))
    yield sh
    sh.set_custom_exc((), None)
    InteractiveShell.clear_instance()


def test_require_names_the_missing_names_and_the_cell_to_run(shell):
    shell.shown.clear()
    shell.run_cell("from lesson_lib.course.notebook import require\nmodel = 1\n"
                   "require('model', 'data', 'chain', cell=\"'Train' (section 2)\")")
    ((etype, value, stb),) = shell.shown
    assert etype.__name__ == "MissingStep" and issubclass(etype, NameError)
    assert value == ("this cell needs `data`, `chain`, which the cell 'Train' (section 2) makes. Run that cell "
                     "first (or Run > Run All Above Selected Cell), then run this cell again.")
    assert stb == [f"MissingStep: {value}"]                     # the message alone, no traceback
    shell.shown.clear()
    shell.run_cell("require('model', cell='x')")                # everything there: nothing raised
    assert shell.shown == []


def test_require_by_default_names_the_first_code_cell(shell):
    shell.shown.clear()
    shell.run_cell("require('chain_never_made')")
    ((etype, value, stb),) = shell.shown
    assert "`chain_never_made`, which the cell with the imports (the first code cell) makes" in value


def test_other_name_errors_keep_their_traceback_and_get_a_hint(shell):
    shell.shown.clear()
    shell.run_cell("print(never_defined)")
    ((etype, value, stb),) = shell.shown
    assert etype is NameError and "never_defined" in value and len(stb) > 1
    assert any("NameError" in line for line in stb[:-1])
    assert stb[-1].startswith("Hint: ") and "Run > Run All Above Selected Cell" in stb[-1]


def test_setup_outside_ipython_does_nothing(monkeypatch):
    import IPython
    from lesson_lib.course.notebook import setup
    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    assert setup() is None


# ---------------------------------------------------------------------- reveal
def test_reveal_shows_the_answer_the_guess_and_one_tick_per_idea(capsys):
    ideas = {"idea A": ("apple",), "idea B": ("banana",), "idea C": ("cherry",)}
    print(reveal("  an apple and a cherry  ", answer="The answer.", ideas=ideas))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Answer: The answer." and lines[1] == ""
    assert lines[2] == 'You predicted: "an apple and a cherry"'
    assert lines[3:6] == ["  [x] idea A", "  [ ] idea B", "  [x] idea C"]
    assert re.fullmatch(r"You named 2 of 3 key ideas\b.*", lines[6]) and len(lines) == 7


def test_reveal_ends_with_different_feedback_for_all_some_and_none_of_the_ideas(capsys):
    endings = []
    for guess in ("apple banana", "apple", "durian"):
        print(reveal(guess, answer="A.", ideas={"a": ("apple",), "b": ("banana",)}))
        endings.append(capsys.readouterr().out.splitlines()[-1])
    assert len(set(endings)) == 3 and all(len(e) > 20 and e != "None" for e in endings), endings
    assert "1 of 2" in endings[1]


@pytest.mark.parametrize("fn, answer", [(reveal, ANSWER), (reveal_control, CONTROL_ANSWER)],
                         ids=["reveal", "reveal_control"])
def test_a_reveal_waits_for_a_prediction_or_an_explicit_ask_and_names_its_own_call(capsys, fn, answer):
    print(fn(""))
    out = capsys.readouterr().out
    assert answer not in out and f"{fn.__name__}(my_prediction, ask=True)" in out
    print(fn("   ", ask=True))
    assert " ".join(answer.split()) in " ".join(capsys.readouterr().out.split())


def test_reveal_without_a_prediction_prints_three_lines_and_no_answer(capsys):
    print(reveal(None))
    out = capsys.readouterr().out
    assert len(out.splitlines()) == 3 and ANSWER not in out and "None" not in out
    print(reveal("", ask=True))
    out = capsys.readouterr().out
    answer, rest = out.split("\n\n", 1)
    assert " ".join(answer.split()) == f"Answer: {ANSWER}" and "None" not in rest and len(rest) > 20


@pytest.mark.parametrize("guess, named, negated", [
    ("It does not learn the mass matrix or the potential energy or any equation of motion, just torques",
     [], [0, 1, 2]),
    ("It learns torques instead of the mass matrix", [], [0]),
    ("torques rather than the inertia", [], [0]),
    ("It doesn't learn torques, it learns the mass matrix", [0], []),
    ("not the whole map but the inertia and gravity", [0, 1], []),
    ("the mass matrix instead of the torques", [0], []),
    ("It never learns the potential, only the mass matrix", [0], [1]),
    ("the mass matrix and the potential, without learning the Coriolis term", [0, 1], [2]),
    ("It learns the mass matrix and the potential energy", [0, 1], []),
])
def test_a_keyword_after_a_negation_in_its_clause_does_not_count(guess, named, negated):
    states = list(idea_mentions(guess).values())
    assert [i for i, s in enumerate(states) if s == "named"] == named, states
    assert [i for i, s in enumerate(states) if s == "negated"] == negated, states


def test_a_negated_prediction_is_not_praised(capsys):
    print(reveal("It does not learn the mass matrix or the potential energy or any equation of motion, just torques"))
    out = capsys.readouterr().out
    assert "Well predicted" not in out and "[x]" not in out and out.count("only after a 'not'") == 3


def test_reveals_wrap_at_spaces_and_use_the_notebooks_symbols(capsys):
    from lesson_lib.course.reveal import CONTROL_ANSWER, WIDTH
    print(reveal("a guess about the mass matrix " * 8))
    print(reveal_control("close to the exact model", ask=True))
    out = capsys.readouterr().out
    assert all(len(line) <= WIDTH for line in out.splitlines()), max(out.splitlines(), key=len)
    flat = " ".join(out.split())                       # a word broken across lines would not be found whole
    assert f"Answer: {' '.join(ANSWER.split())}" in flat and f"Answer: {' '.join(CONTROL_ANSWER.split())}" in flat
    assert "q̈" in ANSWER and "q''" not in ANSWER + CONTROL_ANSWER and "q̇" in CONTROL_ANSWER


# ---------------------------------------------------------------------- framework
@pytest.mark.parametrize("x, digits, text", [
    (3.14159, 3, "3.142"), (2.1e-5, 3, "2.1e-05"), (-0.0004, 3, "-0.0004"), (0.0, 3, "0.000"),
    (-0.0, 3, "0.000"), (-1e-9, 3, "-1e-09"), (0.02, 1, "0.02"), (0.2, 1, "0.2"), (0.26, 1, "0.3"), (5, 3, "5.000"),
    (True, 3, "1.000"), (1 + 2j, 2, "1.00"), ([0.3, -1.2], 3, "[0.300, -1.200]"), ([0.26, 1], 1, "[0.3, 1.0]"),
    ([[1, 2], [3, 4]], 2, "[[1.00, 2.00], [3.00, 4.00]]"), ("abc", 3, "'abc'"), (None, 3, "None"),
])
def test_num_rounds_numbers_and_arrays(x, digits, text):
    assert framework.num(x, digits) == text


def test_num_rounds_to_three_digits_by_default():
    assert framework.num(1.23456) == "1.235" and framework.num([2e-4]) == "[0.0002]"


def test_short_puts_an_exception_on_one_line_of_at_most_150_characters():
    assert framework._short(ValueError("a  b\n  c")) == "ValueError: a b c"
    assert framework._short(KeyError()) == "KeyError"
    exact = "x" * 150
    assert framework._short(ValueError(exact)) == f"ValueError: {exact}"
    cut = framework._short(ValueError("y" * 151))
    assert cut == "ValueError: " + "y" * 147 + "..."


def test_close_compares_every_entry_up_to_and_including_tol():
    assert framework.close([1.0, 2.0], [1.5, 2.0], 0.5) and not framework.close([1.0, 2.0], [1.5, 2.0], 0.25)
    assert framework.close(np.zeros(0), np.zeros(0), 0.1)
    assert not framework.close(np.zeros(2), np.zeros(3), 1.0)


@pytest.mark.parametrize("got, key, what", [
    (None, "none", "f returned None"), ("text", "not numbers", "f returned str, not numbers"),
    ([1.0, 2.0], "shape", "f returned shape (2,), expected ()"), (np.nan, "not finite", "f returned NaN or inf"),
])
def test_as_array_says_what_the_learners_function_returned(got, key, what):
    with pytest.raises(framework.Fail) as info:
        framework.as_array(got, (), "f")
    assert (info.value.what, info.value.hint, str(info.value)) == (what, key, what)


def test_a_learner_error_keeps_the_learners_message():
    err = framework._LearnerError(ZeroDivisionError("division by zero"))
    assert str(err) == "division by zero" and isinstance(err.exc, ZeroDivisionError)


def test_register_records_a_spec_and_the_registered_name_prints_one_line(capsys):
    def _demo_check(fn):
        if framework.call(fn) != 1:
            raise framework.Fail("it is not 1", "not one")
    try:
        check = framework.register("99_demo", hints={"not one": "return 1"})(_demo_check)
        other = framework.register("99_demo", function="learner_fn")(lambda fn: None)
        spec = check.spec
        assert framework.REGISTRY["_demo_check"] is spec and framework.REGISTRY["<lambda>"] is other.spec
        assert (spec.name, spec.notebook, spec.function, spec.test, spec.hints) == \
            ("_demo_check", "99_demo", "_demo_check", _demo_check, {"not one": "return 1"})
        assert other.spec.function == "learner_fn" and other.spec.hints == {}
        assert check(lambda: 1) is None
        assert capsys.readouterr().out == "PASS: _demo_check\n"
        check(lambda: 2)
        assert capsys.readouterr().out == "FAIL: _demo_check: it is not 1. Hint: return 1\n"
    finally:
        for name in ("_demo_check", "<lambda>"):
            framework.REGISTRY.pop(name, None)


def test_a_check_without_a_teachers_stub_calls_not_implemented_not_attempted():
    def raises(*args):
        raise NotImplementedError("Your turn")
    spec = framework.Check("_nostub", "99_no_such_notebook", "fn", test=lambda fn: fn())
    assert framework.outcome(spec, raises).status == "not attempted"
    assert framework._function_def(lambda x: x) is None           # a lambda has no def to compare


# ---------------------------------------------------------------------- the exercises' own cases
def _matrix_of(label):
    """The matrix a case's label names, worked out from the label alone."""
    if label.startswith("the true M at q = "):
        q = ast.literal_eval(label.removeprefix("the true M at q = "))
        return independent.closed_form_mass_matrix(chain, np.array(q))
    if label == "M = -(true M)":
        return -chain.mass_matrix([0.3, -1.2])
    if label == "the true 3x3 M of a 3-link chain":
        return independent.three_link().mass_matrix([0.4, -0.9, 2.0])
    if label.startswith("M = diag"):
        return np.diag(ast.literal_eval(label.removeprefix("M = diag")))
    return np.array(ast.literal_eval(label.removeprefix("M = ")), dtype=float)


def test_each_inertia_case_is_the_matrix_its_label_names_with_the_right_answer():
    cases = nb01_challenge._cases()
    assert len(cases) == 8
    for label, M, expected in cases:
        np.testing.assert_allclose(M, _matrix_of(label), atol=1e-12, err_msg=label)
        symmetric = np.allclose(M, M.T, atol=1e-9)
        assert expected == bool(symmetric and np.linalg.eigvalsh(M).min() > 0), label


def test_the_pass_criterion_cases_sit_on_each_boundary_and_every_known_mistake_fails_one(monkeypatch):
    monkeypatch.setattr(facts, "PASS_MAX_ERROR", 0.3)
    T, cases = 0.3, nb04_feedback._cases()
    for e, lam, expected in cases:
        assert expected == (e < T and lam > 0)
    errors = [e for e, lam, _ in cases if lam > 0]
    assert T in errors and any(0.99 * T <= e < T for e in errors) and any(T < e <= 1.1 * T for e in errors)
    valid = [lam for e, lam, _ in cases if e < T]
    assert 0.0 in valid and any(-0.05 <= lam < 0 for lam in valid) and any(0 < lam <= 1e-5 for lam in valid)
    answers = {k: [bool(m(e, lam)) for e, lam, _ in cases] for k, m in nb04_feedback._MISTAKES.items()}
    truth = [want for _, _, want in cases]
    assert all(a != truth for a in answers.values())
    assert len({tuple(a) for a in answers.values()}) == len(answers)        # each mistake is told apart


def test_the_position_first_mistake_moves_q_before_qd():
    def f(q, qd):
        return -4.0 * q
    q, qd = nb05_retrieve_and_space._position_first(f, np.array([1.0]), np.array([0.5]), 0.1)
    np.testing.assert_allclose(q, [1.05])                                  # 1 + 0.1 * 0.5
    np.testing.assert_allclose(qd, [0.5 - 0.1 * 4.0 * 1.05])               # with the NEW q


@pytest.mark.parametrize("change, text", [
    (dict(m=[2.0, 1.0, 1.0]), "masses m are [2.000, 1.000, 1.000], expected [1.000, 1.000, 1.000]"),
    (dict(l=[1.0, 0.8, 0.5]), "lengths l are [1.000, 0.800, 0.500], expected [1.000, 0.800, 0.600]"),
    (dict(lc=[0.5, 0.4, 0.2]), "centres of mass lc are [0.500, 0.400, 0.200], expected [0.500, 0.400, 0.300]"),
    (dict(I=[0.1, 0.1, 0.1]), "inertias I are [0.100, 0.100, 0.100], expected [0.083, 0.053, 0.030]"),
    (dict(g=9.0), "gravity g are [9.000], expected [9.810]"),
])
def test_the_triple_pendulum_fail_line_names_the_wrong_parameter_and_its_values(change, text):
    from lesson_lib.course import checks
    l = np.array(TRIPLE_LENGTHS)
    rods = dict(m=[1.0] * 3, l=l, lc=l / 2, I=l**2 / 12, g=9.81)
    status, line = checks.evaluate("triple_pendulum", lambda: PlanarChain(**{**rods, **change}))
    assert status == "fail" and text in line, line


def test_the_closed_form_mass_matrix_matches_the_rnea_for_unequal_links():
    arm = PlanarChain(m=[1.3, 0.7], l=[1.4, 0.9], lc=[0.6, 0.35], I=[0.2, 0.05])
    for q in ([0.3, -1.2], [2.0, 0.7]):
        np.testing.assert_allclose(independent.closed_form_mass_matrix(arm, np.array(q)), arm.mass_matrix(q), atol=1e-12)


def test_the_finite_difference_derivative_accepts_integer_lists():
    dM = independent.mass_matrix_derivative_fd(chain, [0, 1])
    assert dM.shape == (2, 2, 2) and abs(dM[1, 0, 0] + np.sin(1.0)) < 1e-8     # dM11/dq2 = -sin q2 here


def test_random_states_fill_the_circle_and_the_speed_box():
    q, qd = independent.random_states(3, 2000, seed=0, qd_max=2.0)
    assert q.shape == qd.shape == (2000, 3) and q.min() < -3.0 and q.max() > 3.0
    assert np.abs(qd).max() <= 2.0 and qd.min() < -1.9 and qd.max() > 1.9


# ---------------------------------------------------------------------- the PASS report's diagnosis
class Bumped:
    """The truth's M plus `bump` on entry (1, 1) at q = (pi/2, -pi/2) only; `step` training steps so far."""
    n_dof = 2

    def __init__(self, bump, step, base=None):
        self.bump, self.step, self.base, self.calls = bump, step, base, []

    def mass_matrix(self, q):
        self.calls.append(len(q))
        M = chain.mass_matrix(q) if self.base is None else np.broadcast_to(self.base, (len(q), 2, 2)).copy()
        at = np.all(np.isclose(q, [np.pi / 2, -np.pi / 2]), axis=1)
        M[at, 1, 1] += self.bump
        return M


def test_diagnose_finds_where_the_error_is_worst():
    d = feedback.diagnose(Bumped(0.5, step=0), chain, points=5)
    assert d["max_error"] == pytest.approx(0.5) and d["worst_entry"] == (1, 1)
    np.testing.assert_allclose(d["worst_q"], [np.pi / 2, -np.pi / 2])
    assert not d["passed"] and d["steps"] == 0
    assert any("M[1,1] at q = (1.57,-1.57) rad" in h for h in d["hints"])


def test_diagnose_hints_follow_the_training_steps(monkeypatch):
    monkeypatch.setattr(facts, "STEPS_PER_PRESS", 100)
    hints = {step: feedback.diagnose(Bumped(0.5, step=step), chain, points=5)["hints"] for step in (0, 99, 100)}
    assert all(len(h) == 2 for h in hints.values())                   # a training hint, then where it is worst
    assert "untrained" in hints[0][0] and "99" in hints[99][0] and "100" in hints[100][0]
    assert len({h[0] for h in hints.values()}) == 3
    assert facts.text("PASS_MAX_ERROR") in hints[100][0]


def test_diagnose_at_the_threshold_fails_and_below_it_has_no_hint(monkeypatch):
    err = feedback.diagnose(Bumped(0.25, step=0), chain, points=5)["max_error"]
    monkeypatch.setattr(facts, "PASS_MAX_ERROR", err)                   # exactly at the threshold: FAIL
    at = feedback.diagnose(Bumped(0.25, step=0), chain, points=5)
    assert not at["passed"] and len(at["hints"]) == 2
    monkeypatch.setattr(facts, "PASS_MAX_ERROR", np.nextafter(err, 1.0))
    below = feedback.diagnose(Bumped(0.25, step=0), chain, points=5)
    assert below["passed"] and below["hints"] == []


def test_diagnose_flags_a_singular_mass_matrix_but_not_a_small_positive_one():
    singular = feedback.diagnose(Bumped(0.0, step=5000, base=np.diag([1.0, 0.0])), chain, points=3)
    assert singular["min_eig"] == 0.0 and "not positive-definite" in singular["hints"][0]
    small = feedback.diagnose(Bumped(0.0, step=5000), chain, points=3)         # the truth: 0 < min eig < 1
    assert 0 < small["min_eig"] < 1 and small["passed"] and small["hints"] == []


def test_diagnose_uses_the_lessons_grid_by_default(monkeypatch):
    monkeypatch.setattr(facts, "GRID_POINTS", 3)
    model = Bumped(0.0, step=0)
    feedback.diagnose(model, chain)
    assert model.calls == [9]


# ---------------------------------------------------------------------- marker messages
def test_short_cuts_long_text_to_forty_characters():
    assert markers._short("a  b\n c") == "a b c"
    assert markers._short("x" * 40) == "x" * 40
    assert markers._short("x" * 41) == "x" * 37 + "..."


def test_stale_reports_every_unknown_marker():
    problems = markers.stale("<!--fact:NOPE-->1<!--/fact--> and <!--fact:NOPE_2-->2<!--/fact-->", "README")
    assert len(problems) == 2 and "NOPE_2" in problems[1]


def test_bare_facts_are_found_whatever_their_case():
    found = markers.bare(f"press TRAIN ×{facts.STEPS_PER_PRESS} twice")
    assert [name for name, _ in found] == ["STEPS_PER_PRESS"]


def test_a_reveal_is_formatted_text_in_a_notebook_and_the_same_words_as_plain_text():
    """In a notebook the cell shows the HTML (the front end wraps it at spaces); elsewhere str() is the text."""
    import html as html_module
    shown = reveal("It learns the mass matrix & not much else", ask=True)
    markup = shown._repr_html_()
    assert markup.startswith("<div class='lesson-reveal'") and "word-break:normal" in markup
    assert "&amp;" in markup and "<b>Answer:</b>" in markup and markup.count("<li>") == 3
    text = " ".join(re.sub(r"<[^>]+>", " ", html_module.unescape(markup)).split())
    plain = " ".join(str(shown).replace("[x]", "☑").replace("[ ]", "☐").split())
    assert text == plain, (text, plain)
