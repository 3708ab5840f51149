"""Near misses (issue 58 item 7): every check refuses an answer just outside the tolerance it declares
(`register(tolerance=...)`, read from the check, no number restated here) and accepts one just inside, in a notebook
and under a judge's salt; and no check of exact arithmetic declares a tolerance loose enough to pass an answer off
by more than a millionth of the values it compares.

Just outside is the right answer moved by 1.01 times the tolerance, just inside by 0.99 times, both ways: a check
whose comparison is looser than it says, or that compares only one way, fails here by name.  A check of True or
False answers declares how near its cases come to each boundary; its near misses are the right rule with the
boundary moved just past, or just short of, that case.
"""
import numpy as np
import pytest
from check_cases import RIGHT, FakeTrainedDeLaN

from lesson_course import checks
from lesson_course.checks import framework, independent
from lesson_lib import PlanarChain, facts

NAMES = sorted(checks.REGISTRY)
OUTSIDE, INSIDE = 1.01, 0.99
EXACT = 1e-6          # the course's checks of exact arithmetic tell apart answers a millionth of their values apart


def nudged(value, tol, k):
    """`value` (a number, an array, or a pair of them) with every entry moved by k times what `tol` allows there."""
    if isinstance(value, (tuple, list)):
        return type(value)(nudged(v, tol, k) for v in value)
    a = np.asarray(value, dtype=float)
    return a + k * tol.allowed(a)


def near_miss(name, k):
    """The check's right answer moved by k times its declared tolerance (k < 0: the other way)."""
    spec = checks.REGISTRY[name]
    tol, right = spec.tolerance, RIGHT[name]
    if name == "triple_pendulum":             # the masses moved: the torque that holds the rods moves by as much
        def answer():
            chain = right()
            return PlanarChain(nudged(chain.m, tol, k), chain.l, chain.lc, chain.I, g=chain.g)
        return answer
    if name == "triple_delan":                # M_hat = M + offset I: the largest error is the offset itself
        return lambda chain, data: FakeTrainedDeLaN(abs(k) * tol.atol)
    if name == "is_valid_inertia":            # the eigenvalue bound moved up or down past the nearest case
        return lambda M, tol_=1e-9: bool(np.max(np.abs(M - M.T)) <= tol_ and np.linalg.eigvalsh(M)[0] > k * tol.atol)
    if name == "lesson_passes":               # the error's threshold moved down (k > 0), the eigenvalue's bound up
        T = facts.PASS_MAX_ERROR
        if k > 0:
            return lambda e, lam: bool(e < T * (1 - k * tol.rtol) and lam > 0)
        return lambda e, lam: bool(e < T and lam > -k * tol.atol)
    return lambda *args: nudged(right(*args), tol, k)


def outcome(name, k):
    return framework.outcome(checks.REGISTRY[name], near_miss(name, k))


@pytest.mark.parametrize("salt", (None, 2**40 + 7))
@pytest.mark.parametrize("name", NAMES)
def test_an_answer_just_outside_the_declared_tolerance_fails_and_one_just_inside_passes(name, salt, monkeypatch):
    monkeypatch.setattr(independent, "SALT", salt)
    tol = checks.REGISTRY[name].tolerance
    for sign in ((1,) if name == "is_valid_inertia" else (1, -1)):     # 01: below 0 lie the singular cases
        outside, inside = outcome(name, sign * OUTSIDE), outcome(name, sign * INSIDE)
        assert outside.status == "fail", (
            f"{name} accepted an answer {OUTSIDE} times its declared tolerance {tol} away: its comparison is looser "
            f"than it declares ({outside.line})")
        assert inside.status == "pass", (
            f"{name} refused an answer {INSIDE} times its declared tolerance {tol} away: its comparison is tighter "
            f"than it declares, or its truth is off by that much ({inside.line})")


def _values(name):
    """Every value the right answer returns on the check's inputs, flattened."""
    seen = []

    def record(*args):
        value = RIGHT[name](*args)
        seen.append(value)
        return value
    assert framework.outcome(checks.REGISTRY[name], record).status == "pass"
    flat = []
    for v in seen:
        for part in (v if isinstance(v, (tuple, list)) else [v]):
            flat.append(np.ravel(np.asarray(part.m if isinstance(part, PlanarChain) else part, dtype=float)))
    return np.concatenate(flat)


@pytest.mark.parametrize("name", [n for n in NAMES if n not in ("triple_delan", "is_valid_inertia", "lesson_passes")])
def test_no_check_of_exact_arithmetic_passes_an_answer_a_millionth_off(name):
    """Loosening a tolerance (1e-9 to 1e-2, say) fails here: what the check allows, against the largest value it
    compares, is at most a millionth.  (06's training is judged by facts.TRIPLE_MAX_ERROR, 01 and 04 below.)"""
    tol, scale = checks.REGISTRY[name].tolerance, float(np.abs(_values(name)).max())
    allowed = tol.atol + tol.rtol * scale
    assert allowed <= EXACT * scale, (
        f"{name} passes answers off by {allowed:.3g} where its values reach {scale:.3g}: its tolerance {tol} is looser "
        f"than a millionth of them")


@pytest.mark.parametrize("name", ["is_valid_inertia", "lesson_passes"])
def test_checks_of_true_or_false_put_a_case_a_millionth_from_zero_and_a_hundredth_from_the_threshold(name):
    tol = checks.REGISTRY[name].tolerance
    assert tol.atol <= EXACT and tol.rtol <= 0.01, f"{name}'s cases come no nearer the boundaries than {tol}"


def test_the_training_check_is_judged_by_the_fact_it_declares():
    assert checks.REGISTRY["triple_delan"].tolerance.atol == facts.TRIPLE_MAX_ERROR
