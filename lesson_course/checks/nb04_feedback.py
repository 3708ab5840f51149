"""Checks for 04_feedback: the lesson's criterion, written by the learner."""
from lesson_lib import facts

from .framework import Fail, as_bool, call, num, register
from .independent import grading, rng, shuffled


def _cases():
    """(max_error, min_eig, expected), around the current threshold T = facts.PASS_MAX_ERROR: well inside,
    just below T, exactly T, just above T, far above, and eigenvalues exactly 0 and just below 0."""
    T = facts.PASS_MAX_ERROR
    if not grading():
        return [(T / 4, 0.07, True), (T * 0.995, 1e-6, True), (T, 0.5, False), (T * 1.1, 0.5, False),
                (T * 1.75, 0.1, False), (T / 2, 0.0, False), (T / 2, -0.01, False), (T * 1.25, -1.0, False)]
    d = rng(401)                                 # grading: the same kinds of case, new values, a new order
    inside, outside, eig = (lambda: T * d.uniform(0.05, 0.9)), (lambda: T * d.uniform(1.01, 3)), (
        lambda: d.uniform(0.01, 1))
    return shuffled([(inside(), eig(), True), (T * (1 - d.uniform(1e-4, 0.01)), d.uniform(1e-9, 1e-3), True),
                     (T, eig(), False), (T * (1 + d.uniform(1e-4, 0.05)), eig(), False),
                     (T * d.uniform(1.5, 3), eig(), False),
                     (inside(), 0.0, False),
                     (inside(), -d.uniform(1e-4, 0.1), False), (outside(), -d.uniform(0.1, 2), False)], 402)


# Known mistakes, each as the answer it would give (see nb01_challenge for the idea).
_MISTAKES = {
    "or": lambda e, lam: e < facts.PASS_MAX_ERROR or lam > 0,
    "at most": lambda e, lam: e <= facts.PASS_MAX_ERROR and lam > 0,
    "non-negative": lambda e, lam: e < facts.PASS_MAX_ERROR and lam >= 0,
    "error only": lambda e, lam: e < facts.PASS_MAX_ERROR,
    "eigenvalue only": lambda e, lam: lam > 0,
    "inverted": lambda e, lam: not (e < facts.PASS_MAX_ERROR and lam > 0),
    "error above": lambda e, lam: e > facts.PASS_MAX_ERROR and lam > 0,
    "arguments swapped": lambda e, lam: lam < facts.PASS_MAX_ERROR and e > 0,
}


@register("04_feedback", computed_by=(
    "lesson_lib.evaluation.metrics.lesson_check",
    "lesson_lib.evaluation.metrics.compare_mass_matrices",
    "lesson_course.ui.bench.Bench._badge",
), hints={
    "none": "return the value of the condition, True or False",
    "or": "with `or` one condition is enough; the lesson needs both to hold at once (`and`)",
    "at most": "'below {PASS_MAX_ERROR}' is strict: an error of exactly {PASS_MAX_ERROR} does not pass",
    "non-negative": "positive means strictly above 0: an eigenvalue of exactly 0 is a singular mass matrix",
    "error only": "the smallest eigenvalue counts too: a model with a non-positive eigenvalue fails",
    "eigenvalue only": "the error counts too: a valid but inaccurate model fails",
    "inverted": "your answers are all the opposite: return True when the model passes",
    "error above": "the error must be below the threshold to pass, max_error < {PASS_MAX_ERROR}: your comparison "
                   "points the other way",
    "arguments swapped": "your test compares the eigenvalue with the threshold and the error with 0: the first "
                         "argument is max_error, the second min_eig",
    "undefined": "a name in your condition is not defined: the threshold is PASS_MAX_ERROR (imported in the "
                 "cell), the arguments are max_error and min_eig",
    "not a bool": "return the condition's value itself, True or False, not a text or a number",
    "criterion": "PASS needs both: the error strictly below {PASS_MAX_ERROR} and the smallest eigenvalue "
                 "strictly above 0",
})
def lesson_passes(fn):
    """fn(max_error, min_eig) -> True exactly when max_error < PASS_MAX_ERROR and min_eig > 0; the cases sit on
    both sides of each boundary of the current threshold (lesson_lib.facts)."""
    cases, answers = _cases(), []
    for max_error, min_eig, _ in cases:
        answers.append(as_bool(call(fn, max_error, min_eig), f"lesson_passes({num(max_error, 4)}, {num(min_eig, 4)})"))
    wrong = [(e, lam, got, want) for (e, lam, want), got in zip(cases, answers, strict=True) if got != want]
    if wrong:
        e, lam, got, want = wrong[0]
        key = next((k for k, mistake in _MISTAKES.items()
                    if answers == [bool(mistake(e_, lam_)) for e_, lam_, _ in cases]), "criterion")
        raise Fail(f"lesson_passes({num(e, 4)}, {num(lam, 4)}) returned {got}, expected {want}", key)
