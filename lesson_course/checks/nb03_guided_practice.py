"""Checks for 03_guided_practice: the two measurements behind the PASS check, at configurations never seen."""
import numpy as np

from lesson_lib.physics.chain import double_pendulum

from .framework import Fail, as_number, as_pair, call, close, num, register, shape_of
from .independent import grading, rng


@register("03_guided_practice", computed_by=(
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
    "absolute": "a large negative entry of M_hat - M is a large error too: take the absolute value before the "
                "maximum",
    "mean": "that is an average: the check wants the largest entry-wise error over all configurations",
    "error": "the error is the largest |M_hat - M| over every configuration and every entry",
    "truth": "those are the eigenvalues of the true M: the check wants the learned M_hat's",
    "ascending": "np.linalg.eigvalsh returns each matrix's eigenvalues in ascending order, so the last column "
                 "holds the largest: the check wants the smallest",
    "one matrix": "that is the smallest eigenvalue of one configuration: take it over the whole batch",
    "eigenvalue": "the smallest eigenvalue of the learned M_hat over every configuration of the batch",
    "swapped": "both numbers are right but in the other order: return the largest error first, then the "
               "smallest eigenvalue",
    "per column": "np.linalg.eigvalsh(M_hat) has one row per configuration: .min(axis=0) gives the smallest of "
                  "each column (one number per eigenvalue's rank); the check wants one number, the smallest over "
                  "the whole batch",
    "per axis": "you returned an array, a minimum or maximum along one axis only: the check wants a single number "
                "over the whole batch, every configuration and every entry",
    "uncalled": ".max and .min without parentheses are the methods, not the numbers: call them, with ()",
})
def errors_at(fn):
    """fn(model, chain, q) -> (largest |M_hat - M| entry over the batch, smallest eigenvalue of M_hat over the
    batch), on an untrained DeLaN (large errors) at 200 seeded configurations, against
    lesson_lib.evaluation.metrics. Tolerance 1e-9."""
    from lesson_lib.evaluation.metrics import mass_matrix_error, min_eigenvalue
    from lesson_lib.model.delan import DeLaN

    chain, q = double_pendulum(), rng(11).uniform(-np.pi, np.pi, (200, 2))   # the lesson's arm: M_hat below M
    model = DeLaN(seed=5)
    if grading():             # as in a notebook, the largest error is an underestimate (M_hat - M < 0), and the
        for seed in rng(5).integers(2**31, size=20):    # smallest eigenvalue sits mid-batch: mistakes stay visible
            model = DeLaN(seed=int(seed))
            diff = model.mass_matrix(q) - chain.mass_matrix(q)
            if diff.max() < np.abs(diff).max() - 1e-6:
                break
        q = np.roll(q, 100 - int(np.linalg.eigvalsh(model.mass_matrix(q)).min(axis=1).argmin()), axis=0)
    first, second = as_pair(call(fn, model, chain, q), "errors_at")
    for value, what in ((first, "first number (the largest error)"), (second, "second number (the smallest "
                                                                              "eigenvalue)")):
        shape = shape_of(value)
        if shape is not None and len(shape) > 0:
            raise Fail(f"errors_at's {what} has shape {shape}, expected a single number",
                       "per column" if shape == (2,) and value is second else "per axis")
    err = as_number(first, "errors_at, as its first number (the largest error),")
    lam = as_number(second, "errors_at, as its second number (the smallest eigenvalue),")
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    want_err, want_lam = mass_matrix_error(model, chain, q), min_eigenvalue(model, q)
    if close(err, want_lam, 1e-9) and close(lam, want_err, 1e-9) and not close(want_err, want_lam, 1e-9):
        raise Fail(f"it returned ({num(err)}, {num(lam)}), expected ({num(want_err)}, {num(want_lam)})", "swapped")
    if not close(err, want_err, 1e-9):
        known = {"absolute": (M_hat - M).max(), "mean": np.abs(M_hat - M).mean()}
        key = next((k for k, v in known.items() if close(err, v, 1e-9)), "error")
        raise Fail(f"max error {num(err)}, expected {num(want_err)}", key)
    if not close(lam, want_lam, 1e-9):
        eig = np.linalg.eigvalsh(M_hat)
        known = {"truth": [np.linalg.eigvalsh(M).min()], "ascending": [eig.max(), eig[:, -1].min()],
                 "one matrix": [eig[0].min(), eig[-1].min()]}
        key = next((k for k, v in known.items() if any(close(lam, x, 1e-9) for x in v)), "eigenvalue")
        raise Fail(f"smallest eigenvalue {num(lam)}, expected {num(want_lam)}", key)
