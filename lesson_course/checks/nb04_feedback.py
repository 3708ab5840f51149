"""Checks for 04_feedback: the lesson's criterion, written by the learner."""
from functools import partial

from lesson_lib import facts

from .diagnosis import Case, Variation, judge
from .framework import Tolerance, as_bool, num, register
from .independent import grading, rng, shuffled

# How near the cases come to each boundary: an error TOLERANCE.rtol below the threshold and an eigenvalue of
# TOLERANCE.atol must pass, so a threshold or a margin of one's own further in than that fails.
TOLERANCE = Tolerance(atol=1e-6, rtol=1e-3)


def _cases():
    """(max_error, min_eig, expected), around the current threshold T = facts.PASS_MAX_ERROR: well inside, just
    below T (by TOLERANCE.rtol), an eigenvalue just above 0 (TOLERANCE.atol), exactly T, just above T, far above,
    and eigenvalues exactly 0 and just below 0."""
    T = facts.PASS_MAX_ERROR
    near_T, near_0 = (T * (1 - TOLERANCE.rtol), 0.5, True), (T / 2, TOLERANCE.atol, True)
    if not grading():
        return [(T / 4, 0.07, True), near_T, near_0, (T, 0.5, False), (T * 1.1, 0.5, False),
                (T * 1.75, 0.1, False), (T / 2, 0.0, False), (T / 2, -0.01, False), (T * 1.25, -1.0, False)]
    d = rng(401)                                 # grading: the same kinds of case, new values, a new order
    inside, outside, eig = (lambda: T * d.uniform(0.05, 0.9)), (lambda: T * d.uniform(1.01, 3)), (
        lambda: d.uniform(0.01, 1))
    return shuffled([(inside(), eig(), True), (near_T[0], eig(), True), (inside(), TOLERANCE.atol, True),
                     (T, eig(), False), (T * (1 + d.uniform(1e-4, 0.05)), eig(), False),
                     (T * d.uniform(1.5, 3), eig(), False),
                     (inside(), 0.0, False),
                     (inside(), -d.uniform(1e-4, 0.1), False), (outside(), -d.uniform(0.1, 2), False)], 402)


def _criterion(test, max_error, min_eig):
    """lesson_passes from a criterion on (e, lam, T), T the threshold when called: a variation, once bound with
    partial."""
    return bool(test(max_error, min_eig, facts.PASS_MAX_ERROR))


VARIATIONS = (
    Variation("or", "with `or` one condition is enough; the lesson needs both to hold at once (`and`)",
              partial(_criterion, lambda e, lam, T: e < T or lam > 0)),
    Variation("at most", "'below {PASS_MAX_ERROR}' is strict: an error of exactly {PASS_MAX_ERROR} does not pass",
              partial(_criterion, lambda e, lam, T: e <= T and lam > 0)),
    Variation("non-negative", "positive means strictly above 0: an eigenvalue of exactly 0 is a singular mass matrix",
              partial(_criterion, lambda e, lam, T: e < T and lam >= 0)),
    Variation("both boundaries", "both comparisons must be strict: an error of exactly {PASS_MAX_ERROR} does not pass "
                                 "(below is <), and an eigenvalue of exactly 0 is not positive (above is >)",
              partial(_criterion, lambda e, lam, T: e <= T and lam >= 0)),
    Variation("error only", "the smallest eigenvalue counts too: a model with a non-positive eigenvalue fails",
              partial(_criterion, lambda e, lam, T: e < T)),
    Variation("eigenvalue only", "the error counts too: a valid but inaccurate model fails",
              partial(_criterion, lambda e, lam, T: lam > 0)),
    Variation("inverted", "your answers are all the opposite: return True when the model passes",
              partial(_criterion, lambda e, lam, T: not (e < T and lam > 0))),
    Variation("error above", "the error must be below the threshold to pass, max_error < {PASS_MAX_ERROR}: your "
                             "comparison points the other way",
              partial(_criterion, lambda e, lam, T: e > T and lam > 0)),
    Variation("eigenvalue below", "the smallest eigenvalue must be above 0 to pass, min_eig > 0: your comparison "
                                  "points the other way", partial(_criterion, lambda e, lam, T: e < T and lam < 0)),
    Variation("size of eigenvalue", "a negative eigenvalue is not positive: compare min_eig itself with 0, not its "
                                    "size (abs), which is above 0 for negative ones too",
              partial(_criterion, lambda e, lam, T: e < T and abs(lam) > 0)),
    Variation("bounds swapped", "the error is compared with the threshold and the eigenvalue with 0: max_error < "
                                "{PASS_MAX_ERROR} and min_eig > 0 (yours swaps the two bounds)",
              partial(_criterion, lambda e, lam, T: e < 0 and lam > T)),
    Variation("arguments swapped", "your test compares the eigenvalue with the threshold and the error with 0: the "
                                   "first argument is max_error, the second min_eig",
              partial(_criterion, lambda e, lam, T: lam < T and e > 0)),
)


def _threshold(cases, answers):
    """(key, where) when the answers are exactly those of `e < c and lam > 0`, or of `e < T and lam > c`, for a bound
    c of the learner's own (not the lesson's): the interval the answers put c in; else None."""
    T = facts.PASS_MAX_ERROR
    accepted = [(e, lam) for (e, lam, _), a in zip(cases, answers, strict=True) if a]
    refused = [(e, lam) for (e, lam, _), a in zip(cases, answers, strict=True) if not a]
    for key, value, other in (("threshold", lambda e, lam: e, lambda e, lam: lam > 0),
                              ("eigenvalue margin", lambda e, lam: -lam, lambda e, lam: e < T)):
        low = max((value(e, lam) for e, lam in accepted), default=None)      # the learner's c lies above these
        high = min((value(e, lam) for e, lam in refused if other(e, lam)), default=None)      # and at most these
        if low is None or high is None or not low < high:
            continue
        c = (low + high) / 2
        if all(bool(value(e, lam) < c and other(e, lam)) == a for (e, lam, _), a in zip(cases, answers, strict=True)):
            right = T if key == "threshold" else 0.0
            if not low < right <= high:
                return key, (f"your threshold on the error lies between {num(low, 4)} and {num(high, 4)}"
                             if key == "threshold" else
                             f"your bound on the eigenvalue lies between {num(-high, 6)} and {num(-low, 6)}")
    return None


@register("04_feedback", variations=VARIATIONS, tolerance=TOLERANCE, computed_by=(
    "lesson_lib.evaluation.metrics.lesson_check",
    "lesson_lib.evaluation.metrics.compare_mass_matrices",
    "lesson_course.ui.bench.Bench._badge",
), hints={
    "none": "return the value of the condition, True or False",
    "not a bool": "return the condition's value itself, True or False, not a text or a number",
    "threshold": "the threshold is PASS_MAX_ERROR = {PASS_MAX_ERROR} itself, the error strictly below it: your "
                 "function draws the line elsewhere (above, the two errors it lies between)",
    "eigenvalue margin": "positive means above 0, however little: your function wants the smallest eigenvalue above "
                         "a margin of its own (above, the two values it lies between)",
    "differs": "PASS needs both: the error strictly below {PASS_MAX_ERROR} and the smallest eigenvalue strictly "
               "above 0",
    "undefined": "a name in your condition is not defined: the threshold is PASS_MAX_ERROR (imported in the cell), "
                 "the arguments are max_error and min_eig",
})
def lesson_passes(fn):
    """fn(max_error, min_eig) -> True exactly when max_error < PASS_MAX_ERROR and min_eig > 0; the cases sit on
    both sides of each boundary of the current threshold (lesson_lib.facts), the nearest TOLERANCE from it."""
    values = _cases()
    cases = [Case(f"lesson_passes({num(e, 4)}, {num(lam, 6 if 0 < abs(lam) < 1e-3 else 4)})",
                  lambda e=e, lam=lam: (e, lam), want) for e, lam, want in values]
    answers = []

    def read(raw, case):
        answers.append(as_bool(raw, case.label))
        return answers[-1]

    def deduce(wrong):
        found = _threshold(values, answers) if len(answers) == len(values) else None
        return (found[0], f" ({found[1]})") if found else None

    judge(fn, cases, read, TOLERANCE, VARIATIONS, deduce=deduce,
          describe=lambda case, got: f"{case.label} returned {got}, expected {case.truth}")
