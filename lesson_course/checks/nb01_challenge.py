"""Checks for 01_challenge: could this matrix be an inertia?"""
from functools import partial

import numpy as np

from .diagnosis import Case, Property, Raised, Variation, judge
from .framework import Tolerance, as_bool, num, register
from .independent import grading, rng, shuffled, three_link, two_link

# The smallest eigenvalue of the positive-definite case nearest the boundary: an answer that wants the smallest
# eigenvalue above TOLERANCE.atol (a margin of its own) refuses it, one that accepts 0 accepts the singular cases.
TOLERANCE = Tolerance(1e-6)


def _fixed_cases():
    """(label, M, expected): true mass matrices (2 and 3 links), SPD with a negative entry, indefinite with
    positive entries (and with a negative trace), singular (twice: one whose singular values give 0 exactly),
    asymmetric, negative-definite, 3 x 3 indefinite matrices, one whose top-left 2 x 2 block is positive-definite
    and one with a positive determinant (so a test written for 2 x 2 only cannot pass), and a positive-definite
    matrix whose smallest eigenvalue is TOLERANCE.atol."""
    A, M = np.array, two_link().mass_matrix([0.3, -1.2])
    return [("the true M at q = (0.3, -1.2)", M, True),
            ("M = [[1, -0.5], [-0.5, 1]]", A([[1.0, -0.5], [-0.5, 1.0]]), True),
            ("M = [[1, 2], [2, 1]]", A([[1.0, 2.0], [2.0, 1.0]]), False),
            ("M = [[-1, 2], [2, -1]]", A([[-1.0, 2.0], [2.0, -1.0]]), False),
            ("M = [[1, 1], [1, 1]]", A([[1.0, 1.0], [1.0, 1.0]]), False),
            ("M = diag(2, 0)", np.diag([2.0, 0.0]), False),
            ("M = [[2, 0.5], [-0.5, 2]]", A([[2.0, 0.5], [-0.5, 2.0]]), False),
            ("M = -(true M)", -M, False),
            ("the true 3x3 M of a 3-link chain", three_link().mass_matrix([0.4, -0.9, 2.0]), True),
            ("M = diag(1, 1, -1)", np.diag([1.0, 1.0, -1.0]), False),
            ("M = diag(3, -1, -1)", np.diag([3.0, -1.0, -1.0]), False),
            (f"M = R diag(2, {TOLERANCE.atol:g}) R^T (R a rotation by 0.6 rad)", _rotated([2.0, TOLERANCE.atol], 0.6),
             True)]


def _rotated(eigenvalues, angle):
    """R diag(eigenvalues) R^T for the rotation R by `angle`: a symmetric matrix with exactly those eigenvalues."""
    c, s = np.cos(angle), np.sin(angle)
    R = np.array([[c, -s], [s, c]])
    return R @ np.diag(eigenvalues) @ R.T


def _cases():
    """The cases as a notebook has them; when grading, each turned by a random rotation R of its first two axes and
    scaled, s R M Rᵀ (symmetry, definiteness, the answer and the kind of its 2 x 2 corner unchanged; a singular
    case by a signed permutation, which keeps its zero eigenvalue exact), in a random order: no table of values
    or order to learn."""
    if not grading():
        return _fixed_cases()
    draw, out = rng(101), []
    for _label, M, answer in shuffled(_fixed_cases(), 102):
        if np.isclose(np.linalg.eigvalsh(M)[0], TOLERANCE.atol, rtol=1e-6, atol=0):     # the boundary: turned only
            turned = _rotated(np.linalg.eigvalsh(M)[::-1], draw.uniform(-np.pi, np.pi))
            out.append((f"M = {num(turned, 6)}", turned, answer))
            continue
        if np.abs(np.linalg.eigvals(M)).min() < 1e-12:      # singular: a signed permutation keeps its 0 exact
            R = np.eye(len(M))[draw.permutation(len(M))] * draw.choice([-1.0, 1.0], len(M))
            scale = 2.0 ** int(draw.integers(-3, 4))
        elif (M.min() > 0) != answer:     # its entries' signs tell against the answer: a permutation keeps them
            R, scale = np.eye(len(M))[draw.permutation(len(M))], draw.uniform(0.5, 2.0)
        else:                 # a rotation of the first two axes (a 3 x 3 case keeps its 2 x 2 corner's kind)
            R = np.eye(len(M))
            R[:2, :2] = np.linalg.qr(draw.normal(size=(2, 2)))[0]
            scale = draw.uniform(0.5, 2.0)
        turned = scale * R @ M @ R.T
        out.append((f"M = {num(turned)}", turned, answer))
    return out


def _inertia(smallest, M, tol=1e-9, joined="and", symmetric=True, strict=True):
    """is_valid_inertia as the template writes it, with `smallest` computed the learner's way: a variation, once
    bound with partial (importing the check calls nothing: the grader's kernel copy has its functions hollowed)."""
    M = np.asarray(M, dtype=float)
    asymmetric = np.max(np.abs(M - M.T)) > tol
    value = smallest(M)
    positive = value > 0 if strict else value >= 0
    if joined == "or":
        return bool(not asymmetric or positive)
    return bool((not asymmetric or not symmetric) and positive)


SMALLEST = lambda M: np.linalg.eigvalsh(M)[0]              # noqa: E731 -- the right `smallest`
VARIATIONS = (
    Variation("or", "a valid inertia must pass both tests, symmetric AND positive-definite: the final line joins them "
                    "with `or`, so a symmetric matrix passes whatever its eigenvalues (`smallest` may well be right)",
              partial(_inertia, SMALLEST, joined="or")),
    Variation("symmetry", "[[2, 0.5], [-0.5, 2]] is not symmetric: keep the given asymmetry test in the return line "
                          "(np.linalg.eigvalsh only reads the lower triangle, so it cannot notice)",
              partial(_inertia, SMALLEST, symmetric=False)),
    Variation("zero", "a zero eigenvalue must give False: positive-definite needs every eigenvalue strictly above 0, "
                      "and [[1, 1], [1, 1]] is singular", partial(_inertia, SMALLEST, strict=False)),
    Variation("entries", "positive-definite is about the eigenvalues, not the entries: [[1, 2], [2, 1]] has only "
                         "positive entries but an eigenvalue -1, and [[1, -0.5], [-0.5, 1]] is positive-definite",
              partial(_inertia, lambda M: M.min())),
    Variation("largest", "np.linalg.eigvalsh returns the eigenvalues in ascending order, so index -1 is the largest "
                         "one; positive-definite needs the smallest above 0",
              partial(_inertia, lambda M: np.linalg.eigvalsh(M)[-1])),
    Variation("absolute", "-(true M) has only negative eigenvalues: compare the eigenvalues themselves with 0, not "
                          "what loses their sign (absolute values, squares, or singular values, which are sizes)",
              partial(_inertia, lambda M: np.abs(np.linalg.eigvalsh(M)).min())),
    Variation("absolute", "-(true M) has only negative eigenvalues: compare the eigenvalues themselves with 0, not "
                          "what loses their sign (absolute values, squares, or singular values, which are sizes)",
              partial(_inertia, lambda M: np.linalg.svd(M)[1].min())),
    Variation("minus M", "the eigenvalues of -M are those of M with the opposite sign, so your test accepts "
                         "negative-definite matrices and refuses positive-definite ones: take the eigenvalues of M "
                         "itself", partial(_inertia, lambda M: np.linalg.eigvalsh(-M)[0])),
    Variation("determinant", "the determinant is the product of the eigenvalues, so two negative ones give a positive "
                             "determinant: -(true M) has det > 0 but is negative-definite. Test each eigenvalue, the "
                             "smallest", partial(_inertia, lambda M: np.linalg.det(M))),
    Variation("trace", "the trace is the sum of the eigenvalues, and a sum can be positive while one eigenvalue is "
                       "negative ([[1, 2], [2, 1]]: trace 2, eigenvalues 3 and -1): test the smallest eigenvalue",
              partial(_inertia, lambda M: np.trace(M))),
    Variation("diagonal", "the diagonal entries are not the eigenvalues (except for a diagonal matrix): [[1, 2], "
                          "[2, 1]] has 1s on its diagonal but an eigenvalue -1",
              partial(_inertia, lambda M: np.diag(M).min())),
    Variation("corner", "your test looks at the top-left 2 x 2 corner only: a 3 x 3 matrix can have a "
                        "positive-definite corner and a negative eigenvalue (diag(1, 1, -1)), so take the eigenvalues "
                        "of the whole matrix", partial(_inertia, lambda M: np.linalg.eigvalsh(M[:2, :2])[0])),
    Variation("margin", "your test wants the smallest eigenvalue above a margin of its own: positive-definite means "
                        "above 0, however little (one case's smallest eigenvalue is tiny but positive)",
              partial(_inertia, lambda M: np.linalg.eigvalsh(M)[0] - 10 * TOLERANCE.atol)),
)


def _turned(eigenvalues, seed):
    """R diag(eigenvalues) R^T for a rotation R: none (seed 0), an eighth of a turn of the first two axes either way
    (seeds 1 and 2), else a random one (seeded): a symmetric matrix with exactly those eigenvalues."""
    n = len(eigenvalues)
    R = np.eye(n)
    if seed in (1, 2):
        angle = np.pi / 4 if seed == 1 else -np.pi / 4
        R[:2, :2] = [[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]]
    elif seed > 2:
        R = np.linalg.qr(rng(seed).normal(size=(n, n)))[0]
    return R @ np.diag(np.asarray(eigenvalues, dtype=float)) @ R.T


TURNS = (0, 1, 2, *range(110, 122))            # the rotations a property tries each set of eigenvalues with
SPECTRA = ([0.5, 2.0], [-1.0, 2.0], [-2.0, -1.0], [0.5, 2.0, 3.0], [-1.0, 2.0, 3.0], [-3.0, -2.0, -1.0])


def _not_eigenvalues(ask, case):
    """Definiteness depends on the eigenvalues alone: the same eigenvalues, turned any way, get one answer."""
    for eigenvalues in SPECTRA:
        answers = [ask(_turned(eigenvalues, seed)) for seed in TURNS]
        if all(isinstance(a, bool) for a in answers) and len(set(answers)) > 1:
            return (f"it answered {answers[0]} for a matrix with eigenvalues {num(eigenvalues, 1)} and "
                    f"{[a for a in answers if a != answers[0]][0]} for the same matrix turned (R M R^T, the same "
                    f"eigenvalues)")
    return None


def _accepted(ask, eigenvalues):
    return any(ask(_turned(eigenvalues, seed)) is True for seed in TURNS[:4])


def _sign_lost(ask, case):
    """A matrix whose eigenvalues are all negative is no inertia."""
    for eigenvalues in (e for e in SPECTRA if max(e) < 0):
        if _accepted(ask, eigenvalues):
            return f"it accepts a matrix whose eigenvalues are all negative, {num(eigenvalues, 1)}"
    return None


def _not_smallest(ask, case):
    """One negative eigenvalue is enough to refuse, whatever the others."""
    for eigenvalues in (e for e in SPECTRA if min(e) < 0 < max(e)):
        if _accepted(ask, eigenvalues):
            return f"it accepts a matrix with eigenvalues {num(eigenvalues, 1)}, one of them negative"
    return None


PROPERTIES = (
    Property("not eigenvalues", "whether a symmetric matrix is positive-definite depends on its eigenvalues alone, "
                                "and turning it (R M R^T) keeps them: your test changes its answer when M is "
                                "turned, so `smallest` is not an eigenvalue (an entry, the diagonal, a row sum, an "
                                "eigenvector's entry, the eigenvalues of another matrix)", _not_eigenvalues),
    Property("sign lost", "a matrix whose eigenvalues are all negative passes your test: the eigenvalues' sign is "
                          "lost on the way (absolute values, squares or singular values are sizes, never negative)",
             _sign_lost),
    Property("not the smallest", "positive-definite needs every eigenvalue above 0, so the one to test is the "
                                 "smallest: your test lets a negative eigenvalue through when another one is "
                                 "positive (np.linalg.eigvalsh sorts them ascending: the smallest comes first)",
             _not_smallest),
)


@register("01_challenge", variations=VARIATIONS, tolerance=TOLERANCE, properties=PROPERTIES, computed_by=(
    # every function of the library that tells an SPD matrix
    "lesson_lib.evaluation.audit.is_valid_inertia",
    "lesson_lib.evaluation.audit.inertia_report",
    "lesson_lib.evaluation.metrics.min_eigenvalue",
    "lesson_lib.evaluation.metrics.compare_mass_matrices",
    "lesson_course.ui.bench.Bench._measure_model",
    "lesson_course.ui.bench.Bench._draw_readout",
), hints={
    "bool": "return True or False, e.g. bool(...) around the condition",
    "size": "your function must work for n x n matrices of any size, not only 2 x 2",
    "differs": "positive-definite means every eigenvalue is above 0: `smallest` must be the smallest eigenvalue of "
               "M (the matrices your function got wrong are above)",
}, raised=(
    Raised("uncalled", "min uncalled", "`smallest` holds a method, not a number: `.min` without parentheses names the "
                                       "method, `.min()` calls it", lambda message, line: "smallest" in line),
))
def is_valid_inertia(fn):
    """fn(M) -> True iff M is symmetric (to 1e-9) and positive-definite (every eigenvalue > 0), on twelve matrices
    with known answers (_cases), one of them positive-definite with its smallest eigenvalue TOLERANCE.atol."""
    cases = [Case(label, lambda M=M: (M.copy(),), answer) for label, M, answer in _cases()]

    def deduce(wrong):        # wrong on 3 x 3 matrices alone: the code works for 2 x 2 only
        return "size" if all(len(cases[i].args()[0]) > 2 for i in wrong) else None

    judge(fn, cases, lambda raw, case: as_bool(raw, f"for {case.label} it", "bool"), TOLERANCE, VARIATIONS,
          describe=lambda case, got: f"for {case.label} it returned {got}, expected {case.truth}", deduce=deduce,
          properties=PROPERTIES)
