"""Hints that diagnose (lesson_course.checks.diagnosis, issue 57 item 2) and a check that sees what a function does
to its arguments (item 3).

Every mistake a check names by computing it (its variations), tried as the learner's answer, fails with that
mistake's own hint, in a notebook and under a judge's salt: no two mistakes the check's inputs cannot tell apart
carry different hints, and no named mistake passes.  The issue's examples each get a hint that names their
mistake.  The benchmark's unseen answers (benchmarks/bench_wrong_answers.py) are none of the tests' answers.  An
answer that changes any argument it is given fails with a hint that says so and names the argument.
"""
import inspect
import sys
from pathlib import Path

import numpy as np
import pytest
from check_cases import RIGHT, WRONG

from lesson_course import checks
from lesson_course.checks import diagnosis, framework
from lesson_lib import DeLaN, PlanarChain

NAMES = sorted(checks.REGISTRY)
VARIATIONS = [(name, i) for name in NAMES for i in range(len(checks.REGISTRY[name].variations))]
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import bench_wrong_answers as bench  # noqa: E402 -- the benchmark's answers, beside the tests'


# ---------------------------------------------------------------------- every named mistake is named as itself
@pytest.mark.parametrize("salt", (None, 2**40 + 7))
@pytest.mark.parametrize("name, i", VARIATIONS, ids=[f"{n}-{checks.REGISTRY[n].variations[i].key}-{i}"
                                                     for n, i in VARIATIONS])
def test_each_mistake_a_check_names_gets_its_own_hint_when_made(name, i, salt, monkeypatch):
    from lesson_course.checks import independent
    monkeypatch.setattr(independent, "SALT", salt)
    spec = checks.REGISTRY[name]
    variation = spec.variations[i]
    result = framework.outcome(spec, variation.answer)
    assert result.status == "fail", f"{name}: the mistake {variation.key!r} passes: {result.line}"
    assert spec.hint(result.hint) == spec.hint(variation.key), (
        f"{name}: the mistake {variation.key!r} got the hint of {result.hint!r}: {result.line}")


def test_every_check_that_compares_numbers_names_mistakes_and_declares_its_tolerance():
    for name, spec in checks.REGISTRY.items():
        assert isinstance(spec.tolerance, framework.Tolerance), name
        if name not in ("triple_pendulum", "triple_delan"):         # a chain's parts, a training: named otherwise
            assert len(spec.variations) >= 5, f"{name}: {len(spec.variations)} mistakes named by computing them"


# ---------------------------------------------------------------------- the issue's examples
def _line(name, answer):
    result = framework.outcome(checks.REGISTRY[name], answer)
    assert result.status == "fail", result.line
    return result.hint, result.line, result.line.split(". Hint: ")[1]


def test_the_issues_examples_get_hints_that_name_their_mistakes():
    """Issue 57's samples: each hint names what the learner did (the tests' answers, tests/check_cases.py)."""
    key, line, hint = _line("mass_matrix_from_rnea", WRONG["mass_matrix_from_rnea"]["degrees"])
    assert key == "degrees" and "degrees" in hint and "radians" in hint
    key, line, hint = _line("computed_torque", WRONG["computed_torque"]["not summed"])       # return M @ a, c, g
    assert key == "not summed" and "add" in hint and "@" not in hint and "sum over axis 0" in line
    key, line, hint = _line("total_mass", WRONG["total_mass"]["wrapped"])                  # [chain.m.sum()]
    assert key == "wrapped" and "list" in hint and "per link" not in hint
    key, line, hint = _line("layer_jet", WRONG["layer_jet"]["shapes"])                     # z = W @ h + b
    assert "`z = W @ h + b`, where W is (4, 4), h (5, 4) and b (4,)" in line, line
    assert "s'(z)" not in hint and "joint axis" not in hint
    key, line, hint = _line("symplectic_euler_step", WRONG["symplectic_euler_step"]["changed input"])
    assert key == "changed input" and "`q` and `qd` in place" in line and "caller" in hint
    key, line, hint = _line("triple_delan", WRONG["triple_delan"]["settled"])               # fit(q, qd, tau, qdd)
    assert key == "settled" and "order (q, qd, qdd, tau)" in hint and "train longer" not in hint


def test_loop_mistakes_in_the_coriolis_sum_get_hints_of_their_own():
    """Issue 57: five different loop mistakes got one identical hint.  Five here, each named differently."""
    def loops(i_range=None, j_range=None, k_range=None, reset=False, returns=False):
        def coriolis_from_dM(dM, qd):
            n = len(qd)
            c = np.zeros(n)
            for i in (i_range or range)(n):
                if reset:
                    c = np.zeros(n)
                for j in (j_range(i) if j_range else range(n)):
                    for k in (k_range or range)(n):
                        c[i] += 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k]) * qd[j] * qd[k]
                if returns:
                    return c
            return c
        return coriolis_from_dM
    mistakes = [loops(j_range=lambda i: range(i)), loops(k_range=lambda n: range(1, n)), loops(reset=True),
                loops(returns=True), loops(i_range=lambda n: range(n - 1))]
    hints = [_line("coriolis_from_dM", answer)[2] for answer in mistakes]
    assert len(set(hints)) == len(hints) - 1, hints    # a return in the loop and an i-range one short: both stop early
    assert all(h != checks.REGISTRY["coriolis_from_dM"].hint("differs") for h in hints), hints


def test_what_differs_says_which_entry_by_how_much_and_which_way():
    tol = framework.Tolerance(1e-9)
    assert diagnosis.differs(np.array([1.0, 2.5]), np.array([1.0, 2.0]), tol) == (
        "entry [1] is 2.500 where 2.000 is right (0.500 too large, 1.250 times it); the other 1 agree")
    text = diagnosis.differs(np.array([[1.0, 0.0], [3.0, 4.0]]), np.array([[1.0, 2.0], [3.0, 5.0]]), tol)
    assert text == "2 of its 4 entries differ, the most [0, 1]: is 0.000 where 2.000 is right (2.000 too small)"
    assert diagnosis.differs(0.5, 2.0, tol) == "is 0.500 where 2.000 is right (1.500 too small, 0.250 times it)"


@pytest.mark.parametrize("got, key", [
    ([np.array([-1.0, 2.0]), np.array([-3.0, 1.0])], "sign"),
    ([np.array([3.0, -6.0]), np.array([9.0, -3.0])], "factor"),
    ([np.array([1.5, -1.5]), np.array([3.5, -0.5])], "offset"),
    ([np.array([1.0, 0.0]), np.array([3.0, 0.0])], "stopped early"),
    ([np.array([0.0, -2.0]), np.array([0.0, -1.0])], "wiped"),
    ([np.array([-2.0, 1.0]), np.array([-1.0, 3.0])], "reversed"),
    ([np.array([0.0, 0.0]), np.array([0.0, 0.0])], "zeros"),
    ([np.array([1.0, -2.1]), np.array([3.0, -1.0])], None),          # one entry off: no pattern, what differs
])
def test_patterns_any_result_can_show_are_named_only_when_every_case_shows_them(got, key):
    want = [np.array([1.0, -2.0]), np.array([3.0, -1.0])]
    found = diagnosis.pattern(got, want, framework.Tolerance(1e-9))
    assert (found[0] if found else None) == key


# ---------------------------------------------------------------------- the benchmark's answers are not the tests'
def _fingerprint(name, answer):
    """What `answer` returns (or raises) on every call check `name` makes, and what its array arguments are after
    it, rounded: two answers that give the same are one answer."""
    seen = []

    def record(*args, **kwargs):
        try:
            value = answer(*args, **kwargs)
        except Exception as exc:
            seen.append(("raised", type(exc).__name__, str(exc)))
            raise
        seen.append((_rounded(value), _rounded([a for a in args if isinstance(a, np.ndarray)])))   # and its inputs
        return value
    framework.outcome(checks.REGISTRY[name], record)
    return tuple(seen)


def _rounded(value):
    if isinstance(value, PlanarChain):
        return _rounded([value.m, value.l, value.lc, value.I, value.g])
    if isinstance(value, (tuple, list)):
        return tuple(_rounded(v) for v in value)
    if isinstance(value, (bool, np.bool_)) or value is None or isinstance(value, str):
        return repr(value)
    try:
        return np.round(np.asarray(value, dtype=float), 9).tobytes() + str(np.shape(value)).encode()
    except (TypeError, ValueError):
        return type(value).__name__


def test_no_answer_of_the_benchmark_is_one_of_the_tests():
    """The benchmark measures the hints on answers the tests never saw: none returns (or raises) what a test's wrong
    answer does on the check's inputs (the trainings of 06, by their code)."""
    theirs = {name: [a for v in WRONG[name].values() for a in (v if isinstance(v, list) else [v])] for name in NAMES}
    prints = {name: {_fingerprint(name, a) for a in answers} for name, answers in theirs.items()
              if name != "triple_delan"}
    for number, answer in enumerate(bench.ANSWERS + bench.SECOND + bench.THIRD + bench.FIFTH + bench.SIXTH
                                     + bench.SEVENTH):
        if answer.check == "triple_delan":
            body = "\n".join(answer.source.strip().splitlines()[2:])
            assert not any(body in inspect.getsource(a) for a in theirs[answer.check] if callable(a)), answer.mistake
            continue
        mine = _fingerprint(answer.check, bench.define(answer, number))
        assert mine not in prints[answer.check], f"{answer.check}: the benchmark's {answer.mistake!r} is a test's"


def test_the_benchmark_holds_at_least_sixty_answers_over_every_exercise():
    assert len(bench.ANSWERS) >= 60 and {a.check for a in bench.ANSWERS} == set(checks.REGISTRY)


# ---------------------------------------------------------------------- an answer that changes its arguments
def _changeable(value):
    """Paths into `value` (a check's argument) that an answer can change in place: [] when there is none."""
    if isinstance(value, np.ndarray):
        return [()]
    if isinstance(value, dict):
        return [(k, *p) for k, v in value.items() for p in _changeable(v)]
    if isinstance(value, PlanarChain):
        return [(".m",)]
    if isinstance(value, DeLaN):
        return [(".weights",)]
    return []


def _change(value, path):
    """Change `value` in place where `path` points, as a learner's `x += ...` or `x[...] = ...` would."""
    if path == ():
        value[(0,) * value.ndim] += 1.0
    elif path == (".m",):
        value.m[0] += 1.0
    elif path == (".weights",):
        value.set_params(value.get_params() + 1.0)
    else:
        _change(value[path[0]], path[1:])


def _arguments(name):
    """The arguments check `name` hands the answer on its first call."""
    seen = []

    def record(*args):
        seen.append(args)
        return RIGHT[name](*args)
    framework.outcome(checks.REGISTRY[name], record)
    return seen[0]


CHANGES = [(name, k, path) for name in NAMES for k, arg in enumerate(_arguments(name)) for path in _changeable(arg)]


def changing(name, k, path):
    """The right answer of check `name`, changing its argument k in place (at `path`) before it answers."""
    def answer(*args):
        _change(args[k], path)
        return RIGHT[name](*args)
    return answer


@pytest.mark.parametrize("name, k, path", CHANGES)
def test_an_answer_that_changes_an_argument_in_place_fails_and_is_told_which(name, k, path):
    result = framework.outcome(checks.REGISTRY[name], changing(name, k, path))
    assert result.status == "fail" and result.hint == "changed input", result.line
    assert "in place" in result.line and "caller" in checks.REGISTRY[name].hint("changed input")


def test_every_check_with_arrays_to_change_is_tried():
    """The checks whose arguments hold arrays, a chain or a model: every one but 04 and 06's chain maker."""
    assert {name for name, *_ in CHANGES} == set(NAMES) - {"lesson_passes", "triple_pendulum"}


@pytest.mark.parametrize("always", [False, True])
def test_a_property_marked_always_fails_a_result_that_agrees_with_every_case(always):
    """A sum taken over a slice that holds every nonzero entry agrees with the case; only a property tried on right
    results too (`always`) can fail it, and then it names that property."""
    def in_another_order(ask, case):
        x, = case.args()
        return None if ask(x) == ask(x[::-1]) else "reversed, the same entries gave another sum"

    case = diagnosis.Case("the entries", lambda: (np.array([1.0, 2.0, 3.0, 0.0]),), 6.0)
    prop = diagnosis.Property("order", "a sum does not depend on the entries' order", in_another_order, always=always)
    sliced = lambda x: float(x[:3].sum())                                          # noqa: E731 -- a learner's slip
    judged = lambda fn: diagnosis.judge(fn, [case], lambda raw, c: float(raw), 1e-9,    # noqa: E731
                                        properties=(prop,))
    assert judged(lambda x: float(x.sum())) is None                                # a right answer passes either way
    if not always:
        assert judged(sliced) is None
        return
    with pytest.raises(framework.Fail) as failed:
        judged(sliced)
    assert failed.value.hint == "order" and "right result, but reversed" in failed.value.what
