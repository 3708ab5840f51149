"""Checks for 01_challenge: could this matrix be an inertia?"""
import numpy as np

from .framework import Fail, as_bool, call, num, register
from .independent import grading, rng, shuffled, three_link, two_link


def _fixed_cases():
    """(label, M, expected): true mass matrices (2 and 3 links), SPD with a negative entry, indefinite with
    positive entries, singular, asymmetric, negative-definite, and a 3 x 3 indefinite matrix whose top-left
    2 x 2 block is positive-definite (so a test written for 2 x 2 only cannot pass)."""
    A, M = np.array, two_link().mass_matrix([0.3, -1.2])
    return [("the true M at q = (0.3, -1.2)", M, True),
            ("M = [[1, -0.5], [-0.5, 1]]", A([[1.0, -0.5], [-0.5, 1.0]]), True),
            ("M = [[1, 2], [2, 1]]", A([[1.0, 2.0], [2.0, 1.0]]), False),
            ("M = [[1, 1], [1, 1]]", A([[1.0, 1.0], [1.0, 1.0]]), False),
            ("M = [[2, 0.5], [-0.5, 2]]", A([[2.0, 0.5], [-0.5, 2.0]]), False),
            ("M = -(true M)", -M, False),
            ("the true 3x3 M of a 3-link chain", three_link().mass_matrix([0.4, -0.9, 2.0]), True),
            ("M = diag(1, 1, -1)", np.diag([1.0, 1.0, -1.0]), False)]


def _cases():
    """The cases as a notebook has them; when grading, each turned by a random rotation R of its first two axes and
    scaled, s R M Rᵀ (symmetry, definiteness, the answer and the kind of its 2 x 2 corner unchanged; a singular
    case by a signed permutation, which keeps its zero eigenvalue exact), in a random order: no table of values
    or order to learn."""
    if not grading():
        return _fixed_cases()
    draw, out = rng(101), []
    for _label, M, answer in shuffled(_fixed_cases(), 102):
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


# Known mistakes in the eigenvalue test, each as the answer it would give on a symmetric matrix: a learner whose
# answers on the symmetric cases all match one of them made that mistake.
_MISTAKES = {
    "entries": lambda M: M.min() > 0,
    "largest": lambda M: np.linalg.eigvalsh(M)[-1] > 0,
    "zero": lambda M: np.linalg.eigvalsh(M)[0] >= 0,
    "absolute": lambda M: np.abs(np.linalg.eigvalsh(M)).min() > 0,
    "determinant": lambda M: np.linalg.det(M) > 0,
    "diagonal": lambda M: np.diag(M).min() > 0,
}


@register("01_challenge", computed_by=(       # every function of the library that tells an SPD matrix
    "lesson_lib.evaluation.audit.is_valid_inertia",
    "lesson_lib.evaluation.audit.inertia_report",
    "lesson_lib.evaluation.metrics.min_eigenvalue",
    "lesson_lib.evaluation.metrics.compare_mass_matrices",
    "lesson_course.ui.bench.Bench._measure_model",
    "lesson_course.ui.bench.Bench._draw_readout",
), hints={
    "bool": "return True or False, e.g. bool(...) around the condition",
    "entries": "positive-definite is about the eigenvalues, not the entries: [[1, 2], [2, 1]] has only positive "
               "entries but an eigenvalue -1, and [[1, -0.5], [-0.5, 1]] is positive-definite",
    "largest": "np.linalg.eigvalsh returns the eigenvalues in ascending order, so index -1 is the largest one; "
               "positive-definite needs the smallest above 0",
    "zero": "a zero eigenvalue must give False: positive-definite needs every eigenvalue strictly above 0, and "
            "[[1, 1], [1, 1]] is singular",
    "absolute": "-(true M) has only negative eigenvalues: compare the eigenvalues themselves with 0, not their "
                "absolute values",
    "symmetry": "[[2, 0.5], [-0.5, 2]] is not symmetric: keep the given asymmetry test in the return line "
                "(np.linalg.eigvalsh only reads the lower triangle, so it cannot notice)",
    "determinant": "the determinant is the product of the eigenvalues, so two negative ones give a positive "
                   "determinant: -(true M) has det > 0 but is negative-definite. Test each eigenvalue, the smallest",
    "diagonal": "the diagonal entries are not the eigenvalues (except for a diagonal matrix): [[1, 2], [2, 1]] "
                "has 1s on its diagonal but an eigenvalue -1",
    "uncalled": "`smallest` holds a method, not a number: `.min` without parentheses names the method, `.min()` "
                "calls it",
    "size": "your function must work for n x n matrices of any size, not only 2 x 2",
    "eigenvalues": "positive-definite means every eigenvalue is above 0: `smallest` must be the smallest "
                   "eigenvalue of M",
    "or": "a valid inertia must pass both tests, symmetric AND positive-definite: the final line joins them "
          "with `or`, so a symmetric matrix passes whatever its eigenvalues (`smallest` may well be right)",
})
def is_valid_inertia(fn):
    """fn(M) -> True iff M is symmetric (to 1e-9) and positive-definite (every eigenvalue > 0), on eight
    matrices with known answers (_cases)."""
    cases, answers = _cases(), []
    for label, M, _ in cases:
        answers.append(as_bool(call(fn, M.copy()), f"for {label} it", "bool"))
    wrong = [(label, got, want) for (label, _, want), got in zip(cases, answers, strict=True) if got != want]
    if not wrong:
        return
    label, got, want = wrong[0]
    if answers == [bool(np.max(np.abs(M - M.T)) <= 1e-9 or np.linalg.eigvalsh(M)[0] > 0) for _, M, _ in cases]:
        raise Fail(f"for {label} it returned {got}, expected {want}", "or")       # `or` where `and` belongs
    symmetric = [(M, answer) for (_, M, _), answer in zip(cases, answers, strict=True)
                 if np.max(np.abs(M - M.T)) <= 1e-9]
    key = next((k for k, mistake in _MISTAKES.items() if all(bool(mistake(M)) == a for M, a in symmetric)), None)
    if key is None:
        wrong_labels = {w[0] for w in wrong}
        asymmetric = {label for label, M, _ in cases if np.max(np.abs(M - M.T)) > 1e-9}
        larger = {label for label, M, _ in cases if len(M) > 2}
        key = "symmetry" if wrong_labels <= asymmetric else "size" if wrong_labels <= larger else "eigenvalues"
    raise Fail(f"for {label} it returned {got}, expected {want}", key)
