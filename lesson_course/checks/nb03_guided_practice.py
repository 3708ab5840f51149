"""Checks for 03_guided_practice: the two measurements behind the PASS check, at configurations never seen."""
from functools import partial

import numpy as np

from lesson_lib.physics.chain import double_pendulum

from .diagnosis import Case, Property, Raised, Variation, judge, read_pair_like, same
from .framework import Fail, Offered, Tolerance, as_pair, num, register, shape_of
from .independent import grading, rng

TOLERANCE = Tolerance(1e-9)


def _errors(model, chain, q, err=lambda M_hat, M: np.abs(M_hat - M).max(),
            lam=lambda M_hat, M: np.linalg.eigvalsh(M_hat).min()):
    """errors_at from the reference with one of its two numbers computed another way: a variation, once bound with
    partial."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return err(M_hat, M), lam(M_hat, M)


VARIATIONS = (
    Variation("absolute", "a large negative entry of M_hat - M is a large error too: take the absolute value before "
                          "the maximum", partial(_errors, err=lambda M_hat, M: (M_hat - M).max())),
    Variation("most negative", "the most negative entry of M_hat - M is not the largest error: an error's size "
                               "counts, the largest |M_hat - M| (absolute values, then the maximum)",
              partial(_errors, err=lambda M_hat, M: (M_hat - M).min())),
    Variation("mean", "that is an average: the check wants the largest entry-wise error over all configurations",
              partial(_errors, err=lambda M_hat, M: np.abs(M_hat - M).mean())),
    Variation("norm", "that is a norm of the whole difference (every entry of every configuration together): the "
                      "error the lesson measures is its largest entry, |M_hat - M| at its maximum",
              partial(_errors, err=lambda M_hat, M: np.linalg.norm(M_hat - M))),
    Variation("norm", "that is a norm of the whole difference (every entry of every configuration together): the "
                      "error the lesson measures is its largest entry, |M_hat - M| at its maximum",
              partial(_errors, err=lambda M_hat, M: np.linalg.norm(M_hat - M, axis=(1, 2)).max())),
    Variation("rms", "that is a root-mean-square error, a kind of average: the lesson's error is the largest entry of "
                     "|M_hat - M|, over every configuration and every entry",
              partial(_errors, err=lambda M_hat, M: np.sqrt(np.mean((M_hat - M) ** 2)))),
    *(Variation("one matrix", "that is the largest error of one configuration: take it over the whole batch",
                partial(_errors, err=lambda M_hat, M, k=k: np.abs(M_hat[k] - M[k]).max())) for k in (0, -1)),
    *(Variation("per configuration first", "you took a number per configuration, then the wrong one of those over "
                                           "the batch: the largest error is the largest of all, and the smallest "
                                           "eigenvalue the smallest of all", answer) for answer in (
        partial(_errors, err=lambda M_hat, M: np.abs(M_hat - M).max(axis=(1, 2)).min()),
        partial(_errors, lam=lambda M_hat, M: np.linalg.eigvalsh(M_hat)[:, 0].max()),
        partial(_errors, lam=lambda M_hat, M: np.linalg.eigvalsh(M_hat)[:, 0].mean()))),
    Variation("relative", "you divided the error by the size of M, a relative error: the lesson's error is in kg m^2, "
                          "the largest |M_hat - M| itself",
              partial(_errors, err=lambda M_hat, M: np.abs(M_hat - M).max()
                                                                    / np.abs(M).max())),
    Variation("error", "the error is the largest |M_hat - M| over every configuration and every entry: yours is the "
                       "largest |M_hat| alone", partial(_errors, err=lambda M_hat, M: np.abs(M_hat).max())),
    Variation("truth", "those are the eigenvalues of the true M: the check wants the learned M_hat's",
              partial(_errors, lam=lambda M_hat, M: np.linalg.eigvalsh(M).min())),
    Variation("ascending", "np.linalg.eigvalsh returns each matrix's eigenvalues in ascending order, so the last "
                           "column holds the largest: the check wants the smallest",
              partial(_errors, lam=lambda M_hat, M: np.linalg.eigvalsh(M_hat).max())),
    Variation("ascending", "np.linalg.eigvalsh returns each matrix's eigenvalues in ascending order, so the last "
                           "column holds the largest: the check wants the smallest",
              partial(_errors, lam=lambda M_hat, M: np.linalg.eigvalsh(M_hat)[:, -1].min())),
    *(Variation("one matrix eigenvalue", "that is the smallest eigenvalue of one configuration: take it over the "
                                         "whole batch",
                partial(_errors, lam=lambda M_hat, M, k=k: np.linalg.eigvalsh(M_hat)[k].min())) for k in (0, -1)),
    Variation("determinant", "the determinant is the product of the eigenvalues, not the smallest of them: take "
                             "np.linalg.eigvalsh(M_hat) and its minimum",
              partial(_errors, lam=lambda M_hat, M: np.linalg.det(M_hat).min())),
    Variation("diagonal", "the diagonal entries of M_hat are not its eigenvalues: take np.linalg.eigvalsh(M_hat) and "
                          "its minimum",
              partial(_errors, lam=lambda M_hat, M: np.diagonal(M_hat, axis1=1, axis2=2).min())),
    Variation("mean eigenvalue", "that is an average of the eigenvalues: the check wants the smallest, over every "
                                 "configuration",
              partial(_errors, lam=lambda M_hat, M: np.linalg.eigvalsh(M_hat).mean())),
    Variation("difference", "those are the eigenvalues of M_hat - M: the check wants the learned M_hat's own",
              partial(_errors, lam=lambda M_hat, M: np.linalg.eigvalsh(M_hat - M).min())),
)


class _StandIn(Offered):
    """A model whose M_hat is mass_matrix(q): another model's turned, R M_hat R^T (the same eigenvalues, other
    entries), or the true M with one entry off: what a property hands the learner's function.  In grading it stays in
    the judge, as the other offered objects do (framework.Offered)."""
    attributes, methods = ("n_dof",), ("mass_matrix",)
    refusal = "in this exercise the model's M_hat is all errors_at needs (model.{name} is not used)"

    def __init__(self, n_dof, mass_matrix):
        self.n_dof, self._mass_matrix = n_dof, mass_matrix

    def mass_matrix(self, q):
        return self._mass_matrix(q)

    def __getattr__(self, name):
        raise AttributeError(self.refusal.format(name=name))


def _turned(model, R):
    return _StandIn(model.n_dof, lambda q: R @ model.mass_matrix(q) @ R.T)


def _not_eigenvalue(ask, case):
    """The smallest eigenvalue does not change when every M_hat is turned (R M_hat R^T)."""
    model, chain, q = case.args()
    angle = 0.7
    R = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    before, after = ask(_turned(model, np.eye(2)), chain, q.copy()), ask(_turned(model, R), chain, q.copy())
    if isinstance(before, tuple) and isinstance(after, tuple) and not same(after[1], before[1], TOLERANCE):
        shown = _apart(before[1], after[1], num)
        return (f"turning every M_hat (R M_hat R^T, the same eigenvalues) moved your second number from {shown[0]} "
                f"to {shown[1]}")
    return None


OFF_BY = 0.05          # kg m^2: one entry of the stand-in's M_hat off the true M (below M's smallest eigenvalue)


def _every_entry(ask, case):
    """The largest error counts every entry of M_hat - M: tried with stand-in models whose M_hat is the true M but
    for one entry (and its mirror) at one configuration mid-batch, off by OFF_BY, one entry after another, so that a
    number taken over some entries only (the diagonal, a row, a column) misses one of them."""
    from lesson_lib.evaluation.metrics import mass_matrix_error
    model, chain, q = case.args()
    one = q[len(q) // 3]
    for i, j in zip(*np.triu_indices(model.n_dof, k=0), strict=True):
        i, j = int(i), int(j)
        off = np.zeros((model.n_dof, model.n_dof))
        off[i, j] = off[j, i] = OFF_BY

        def mass_matrix(x, off=off):
            """The true M, but at the configuration `one` (wherever it sits in the batch, to rounding and whole
            turns: a learner's function may convert or wrap the angles) one entry off."""
            apart = np.remainder(np.asarray(x, dtype=float) - one + np.pi, 2 * np.pi) - np.pi
            at_one = np.all(np.abs(apart) < 1e-5, axis=-1)[..., None, None]
            return chain.mass_matrix(x) + np.where(at_one, off, 0.0)

        stand_in = _StandIn(model.n_dof, mass_matrix)
        got, expected = ask(stand_in, chain, q.copy()), mass_matrix_error(stand_in, chain, q)
        if isinstance(got, tuple) and not same(got[0], expected, TOLERANCE):
            return (f"with a model whose M_hat is the true M but for entry ({i}, {j}){' and its mirror' * (i != j)} "
                    f"of one configuration, off by {OFF_BY}, your first number was {num(got[0])}, expected "
                    f"{num(expected)}")
    return None


def _batch_order(ask, case):
    """The largest error and the smallest eigenvalue over the batch do not depend on the configurations' order:
    tried with the configurations of the largest error and of the smallest eigenvalue (the course's own) at the two
    ends of the batch, each way round, and rolled by an odd number of rows, so that a number taken from a slice of
    the batch (one that leaves out an end, a half, every other row) misses one of them in some order."""
    model, chain, q = case.args()
    error, eigenvalue = _per_configuration(model, chain, q)
    worst, lowest = int(error.argmax()), int(eigenvalue.argmin())
    rows = np.arange(len(q))
    middle = rows[(rows != worst) & (rows != lowest)]
    first, last = np.array([worst]), np.array([lowest] if lowest != worst else [], dtype=int)
    orders = (np.concatenate([first, middle, last]), np.concatenate([last, middle, first]),
              np.roll(rows, len(q) // 3 | 1))
    before = ask(model, chain, q.copy())
    for order in orders:
        after = ask(model, chain, q[order])
        if isinstance(before, tuple) and isinstance(after, tuple) and not same(after, before, TOLERANCE):
            shown = _apart(before, after, _pair)
            return f"the same configurations in another order moved your numbers from {shown[0]} to {shown[1]}"
    return None


def _pair(pair, digits=3):
    return f"({num(pair[0], digits)}, {num(pair[1], digits)})"


def _apart(a, b, show):
    """show(a, digits), show(b, digits) with the fewest decimals (3 or more) that tell a and b apart."""
    digits = next((d for d in range(3, 13) if show(a, d) != show(b, d)), 12)
    return show(a, digits), show(b, digits)


PROPERTIES = (
    Property("batch order", "the largest error and the smallest eigenvalue are over the whole batch, so they do not "
                            "depend on the order of the configurations: yours do (above), so they come from some "
                            "of the configurations only (one of them, or a slice)", _batch_order, always=True),
    Property("not an eigenvalue", "the smallest eigenvalue of M_hat does not change when M_hat is turned (R M_hat "
                                  "R^T keeps its eigenvalues): your second number does (above), so it is no "
                                  "eigenvalue (an entry, a diagonal entry) or comes from another matrix",
             _not_eigenvalue),
    Property("every entry", "the largest error is over every entry of M_hat - M, the off-diagonal ones too: yours "
                            "missed one (above), so it is over some entries only (the diagonal, a row, a column)",
             _every_entry, always=True),
)


@register("03_guided_practice", variations=VARIATIONS, tolerance=TOLERANCE, properties=PROPERTIES, computed_by=(
    "lesson_lib.evaluation.metrics.mass_matrix_error",
    "lesson_lib.evaluation.metrics.min_eigenvalue",
    "lesson_lib.evaluation.metrics.lesson_check",
    "lesson_lib.evaluation.metrics.compare_mass_matrices",
    "lesson_lib.evaluation.generalization.implied_mass_matrix_error",
    "lesson_lib.evaluation.audit.inertia_report",
    "lesson_lib.evaluation.audit.is_valid_inertia",
    "lesson_course.feedback.diagnose",
    "lesson_course.ui.bench.Bench._measure_model",
    "lesson_course.ui.bench.Bench._draw_readout",
), hints={
    "none": "return both numbers, the error first, then the eigenvalue",
    "pair": "return a pair of single numbers: the largest error over the whole batch, then the smallest "
            "eigenvalue over the whole batch",
    "per column": "np.linalg.eigvalsh(M_hat) has one row per configuration: .min(axis=0) gives the smallest of "
                  "each column (one number per eigenvalue's rank); the check wants one number, the smallest over "
                  "the whole batch",
    "per axis": "you returned an array, a minimum or maximum along one axis only: the check wants a single number "
                "over the whole batch, every configuration and every entry",
    "differs": "the first number is the largest |M_hat - M| over every configuration and every entry, the second "
               "the smallest eigenvalue of the learned M_hat over every configuration",
}, raised=(
    Raised("uncalled", "max uncalled", ".max and .min without parentheses are the methods, not the numbers: call them, "
                                       "with ()", lambda message, line: ".max" in line or ".min" in line),
))
def errors_at(fn):
    """fn(model, chain, q) -> (largest |M_hat - M| entry over the batch, smallest eigenvalue of M_hat over the
    batch), on an untrained DeLaN (large errors) at 200 seeded configurations, against
    lesson_lib.evaluation.metrics. Tolerance 1e-9."""
    from lesson_lib.evaluation.metrics import mass_matrix_error, min_eigenvalue
    from lesson_lib.model.delan import DeLaN

    chain, q = double_pendulum(), rng(11).uniform(-np.pi, np.pi, (200, 2))   # the lesson's arm: M_hat below M
    model = DeLaN(seed=5)
    if grading():             # as in a notebook, the largest error is an underestimate (M_hat - M < 0)
        for seed in rng(5).integers(2**31, size=20):
            model = DeLaN(seed=int(seed))
            diff = model.mass_matrix(q) - chain.mass_matrix(q)
            if diff.max() < np.abs(diff).max() - 1e-6:
                break
    q = _mid_batch(model, chain, q)                       # the worst configurations mid-batch: mistakes stay visible
    truth = (mass_matrix_error(model, chain, q), min_eigenvalue(model, q))
    case = Case("the 200 configurations", lambda: (model, chain, q.copy()), truth)
    judge(fn, [case], _read, TOLERANCE, VARIATIONS, names=("the largest error", "the smallest eigenvalue"),
          properties=PROPERTIES,
          describe=lambda case, got: f"it returned ({num(got[0])}, {num(got[1])}), expected ({num(case.truth[0])}, "
                                     f"{num(case.truth[1])})")


def _mid_batch(model, chain, q):
    """q (B, n) reordered so that the configuration of the largest error sits at row B/4 and that of the smallest
    eigenvalue at row B/2 (the same row when one configuration holds both): a number taken from one configuration or
    an end of the batch misses them, whatever the model.  A slice that holds both rows gets them right, and the
    "batch order" property, tried on a right result too, moves them to the batch's ends."""
    quarter, half = len(q) // 4, len(q) // 2
    error, lowest = _per_configuration(model, chain, q)
    order = np.arange(len(q))
    i = int(error.argmax())
    order[[quarter, i]] = order[[i, quarter]]
    k = int(lowest[order].argmin())
    if k != quarter:                              # the largest error's configuration stays where it was placed
        order[[half, k]] = order[[k, half]]
    return q[order]


def _per_configuration(model, chain, q):
    """Each configuration's largest |M_hat - M| entry and smallest eigenvalue of M_hat, (B,) each: the course's own."""
    M_hat = model.mass_matrix(q)
    return np.abs(M_hat - chain.mass_matrix(q)).max(axis=(1, 2)), np.linalg.eigvalsh(M_hat)[:, 0]


def _read(raw, case):
    """The pair of single numbers, or a Fail naming an array where one number belongs."""
    first, second = as_pair(raw, "errors_at")
    for value, what in ((first, "first number (the largest error)"), (second, "second number (the smallest "
                                                                              "eigenvalue)")):
        shape = shape_of(value)
        if shape is not None and len(shape) > 0:
            raise Fail(f"errors_at's {what} has shape {shape}, expected a single number",
                       "per column" if shape == (2,) and value is second else "per axis")
    return read_pair_like(raw, case.truth, "errors_at", TOLERANCE, ("its first number (the largest error)",
                                                                    "its second number (the smallest eigenvalue)"))
