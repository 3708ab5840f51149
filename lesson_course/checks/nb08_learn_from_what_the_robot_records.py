"""Checks for 08_learn_from_what_the_robot_records: q̈ from sampled positions, the second difference."""
import numpy as np

from .framework import Fail, as_array, call, close, num, register, shape_of
from .independent import grading, rng


def _cubic(T, h):
    """Positions (T, 2) of a cubic motion sampled every h s and its exact q̈ (T, 2): the second difference of a
    cubic is its q̈ at the middle sample, exactly (the independent truth).  Random coefficients when grading."""
    t = np.arange(T) * h
    c = np.array([[0.3, 0.8, -1.5, 2.0], [-1.2, 0.5, 0.9, -4.0]])      # c0 + c1 t + c2 t^2 + c3 t^3 per joint
    if grading():
        c = rng(801 + T).uniform(-4, 4, c.shape)
    q = np.stack([c[j, 0] + c[j, 1] * t + c[j, 2] * t**2 + c[j, 3] * t**3 for j in range(2)], axis=1)
    qdd = np.stack([2 * c[j, 2] + 6 * c[j, 3] * t for j in range(2)], axis=1)
    return q, qdd


@register("08_learn_from_what_the_robot_records", computed_by=(
    "lesson_lib.data.sensors.estimate",
    "lesson_lib.data.sensors._estimate_one",
    "lesson_lib.data.sensors.savgol_coefficients",                 # a 3-sample quadratic filter is the answer
    "lesson_lib.model.verlet.position_second_differences",
), hints={
    "rows": "the second difference exists at every sample but the first and the last: return T - 2 rows, one per "
            "inner sample k = 1 .. T-2",
    "axis": "take the differences along time (axis 0, the rows), not across the joints",
    "first": "that is the first difference, an estimate of q̇: q̈ is the difference of two neighbouring first "
             "differences",
    "h": "you divided by h once: each of the two differences divides by h, so the second difference divides by "
         "h squared",
    "middle": "the middle sample enters with a minus sign, and twice: the second difference compares each sample "
              "with its two neighbours",
    "order": "row k of the result belongs to the inner sample k + 1: keep the samples in time order (q[2:] "
             "follows q[1:-1] follows q[:-2])",
    "transposed": "your result is transposed: one row per inner sample (T - 2 rows), one column per joint, as q has "
                  "time along its rows",
    "quarter": "your result is exactly a quarter of q̈: the two neighbours are one step h from the middle sample, so "
               "the second difference divides by h squared, not by (2h) squared",
    "no middle": "the middle sample q_k is missing: q_(k+1) and q_(k-1) alone make a first difference over two "
                 "steps, not a second difference; the middle sample enters too, twice and with a minus sign",
    "not finite": "some rows are NaN or inf: a placeholder (np.nan, np.empty) is left in rows your code never "
                  "filled; every inner sample k = 1 .. T-2 gets a row",
    "index": "the second difference needs both neighbours of sample k: k runs over the inner samples only, "
             "1 .. T-2 (q[k + 1] does not exist for the last sample)",
    "general": "the second difference is the change of the first difference from one step to the next, divided "
               "by h once more",
})
def second_difference(fn):
    """fn(q, h) -> (T - 2, n): the central second difference (q_{k+1} - 2 q_k + q_{k-1}) / h² at every inner
    sample, for positions q (T, n) sampled every h s.  Probed on a cubic motion (two joints, 25 samples at
    h = 0.002 s and 9 at h = 0.05 s), whose second difference is its exact q̈.  Tolerance 1e-6 rad/s²."""
    for T, h in ((25, 0.002), (9, 0.05)):
        q, qdd = _cubic(T, h)
        got = call(fn, q.copy(), h)
        shape = shape_of(got)
        rows, cols = shape if shape is not None and len(shape) == 2 else (T - 2, 2)
        if rows == T and cols != 2:
            raise Fail(f"for positions of shape {q.shape} it returned shape {(rows, cols)}", "axis")
        if (rows, cols) == (2, T - 2):
            raise Fail(f"for positions of shape {q.shape} it returned shape {(rows, cols)}, expected {(T - 2, 2)}",
                       "transposed")
        if cols == 2 and rows != T - 2:
            raise Fail(f"for {T} samples it returned {rows} rows, expected {T - 2}",
                       "first" if rows == T - 1 else "rows")
        a = as_array(got, (T - 2, 2), "second_difference")
        want = qdd[1:-1]
        if close(a, want, 1e-6):
            continue
        # the mistakes, from the exact q̈ alone (a cubic's second difference is h² q̈ exactly, so the check carries
        # no line of the answer): divided by h once, the middle sample added, the rows reversed
        known = {"h": h * want, "middle": want + 4 * q[1:-1] / h**2, "order": want[::-1], "quarter": want / 4,
                 "no middle": [want + 2 * q[1:-1] / h**2, (q[2:] - q[:-2]) / h**2]}
        key = next((k for k, v in known.items() for candidate in (v if isinstance(v, list) else [v])
                    if close(a, candidate, 1e-6 * max(1.0, np.abs(candidate).max()))), "general")
        raise Fail(f"on a cubic motion sampled every h = {h} s its first row is {num(a[0])}, expected q̈ = "
                   f"{num(want[0])} rad/s²", key)
