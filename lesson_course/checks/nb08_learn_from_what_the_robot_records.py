"""Checks for 08_learn_from_what_the_robot_records: q̈ from sampled positions, the second difference."""
import numpy as np

from .diagnosis import Case, Property, Raised, Variation, agrees, grew, judge, read_like, scaling
from .framework import Fail, Tolerance, num, register, shape_of
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


TOLERANCE = Tolerance(1e-6)


def _numerator(q):
    """q_(k+1) - 2 q_k + q_(k-1) at every inner sample."""
    return q[2:] - 2 * q[1:-1] + q[:-2]


VARIATIONS = (
    Variation("h", "you divided by h once: each of the two differences divides by h, so the second difference divides "
                   "by h squared", lambda q, h: _numerator(q) / h),
    Variation("quarter", "your result is exactly a quarter of q̈: the two neighbours are one step h from the middle "
                         "sample, so the second difference divides by h squared, not by (2h) squared",
              lambda q, h: _numerator(q) / (2 * h) ** 2),
    Variation("times h squared", "you multiplied by h squared: the second difference divides by it, / h**2",
              lambda q, h: _numerator(q) * h**2),
    Variation("precedence", "your result is the numerator times h^2 / 2, as `/ 2*h**2` gives (Python reads it as "
                            "(... / 2) * h**2): divide by h squared, / h**2", lambda q, h: _numerator(q) / 2 * h**2),
    Variation("not divided", "your result is the numerator itself, not divided by h squared (`/ h*h` divides by h "
                             "and multiplies by h again): divide with parentheses, / (h*h), or / h**2",
              lambda q, h: _numerator(q)),
    Variation("middle", "the middle sample enters with a minus sign, and twice: the second difference compares each "
                        "sample with its two neighbours", lambda q, h: (q[2:] + 2 * q[1:-1] + q[:-2]) / h**2),
    Variation("no middle", "the middle sample q_k is missing: q_(k+1) and q_(k-1) alone make a first difference over "
                           "two steps, not a second difference; the middle sample enters too, twice and with a minus "
                           "sign", lambda q, h: (q[2:] - q[:-2]) / h**2),
    Variation("no middle", "the middle sample q_k is missing: q_(k+1) and q_(k-1) alone make a first difference over "
                           "two steps, not a second difference; the middle sample enters too, twice and with a minus "
                           "sign", lambda q, h: (q[2:] + q[:-2]) / h**2),
    Variation("middle once", "the middle sample enters twice, -2 q_k: with it once, the differences of a straight "
                             "motion are not 0", lambda q, h: (q[2:] - q[1:-1] + q[:-2]) / h**2),
    *(Variation("neighbour sign", "both neighbours enter with a plus sign, q_(k+1) + q_(k-1), and the middle sample "
                                  "with -2: one of your neighbours has a minus sign", answer)
      for answer in (lambda q, h: (q[2:] - 2 * q[1:-1] - q[:-2]) / h**2,
                     lambda q, h: (-q[2:] - 2 * q[1:-1] + q[:-2]) / h**2)),
    *(Variation("parentheses", "only part of your numerator is divided by h squared: put the whole numerator in "
                               "parentheses, (q_(k+1) - 2 q_k + q_(k-1)) / h**2", answer)
      for answer in (lambda q, h: q[2:] - 2 * q[1:-1] + q[:-2] / h**2,
                     lambda q, h: q[2:] / h**2 - 2 * q[1:-1] + q[:-2],
                     lambda q, h: q[2:] - 2 * q[1:-1] / h**2 + q[:-2],
                     lambda q, h: q[2:] - (2 * q[1:-1] + q[:-2]) / h**2)),
    *(Variation("sample shifted", "one of your three terms takes its samples one step off: q_(k+1) is q[2:], q_k "
                                  "is q[1:-1] and q_(k-1) is q[:-2], each row k of the three from the same inner "
                                  "sample", answer) for answer in (
        lambda q, h: (q[1:-1] - 2 * q[:-2] + q[2:]) / h**2, lambda q, h: (q[1:-1] - 2 * q[1:-1] + q[:-2]) / h**2,
        lambda q, h: (q[2:] - 2 * q[2:] + q[:-2]) / h**2,
        lambda q, h: (q[2:] - 2 * q[1:-1] + q[1:-1]) / h**2, lambda q, h: (q[2:] - 2 * q[1:-1] + q[2:]) / h**2)),
    Variation("order", "row k of the result belongs to the inner sample k + 1: keep the samples in time order (q[2:] "
                       "follows q[1:-1] follows q[:-2])", lambda q, h: (_numerator(q) / h**2)[::-1]),
    *(Variation("one joint", "every column of your result is one joint's second difference: each joint (column of "
                             "q) gets its own, column by column", lambda q, h, j=j: np.repeat(
                                 _numerator(q)[:, [j]] / h**2, q.shape[1], axis=1)) for j in (0, -1)),
)

def _straight_line(ask, case):
    """A motion at constant velocity has no acceleration: its second difference is 0 at every inner sample."""
    q, h = case.args()
    t = np.arange(len(q)) * h
    line = 0.3 - 0.8 * t[:, None] * np.array([1.0, -2.0])[:q.shape[1]]
    got = ask(line, h)
    if got is None or np.shape(got) != (len(q) - 2, q.shape[1]):
        return None
    if not agrees(got, np.zeros_like(got), TOLERANCE):
        return (f"on a straight-line motion (constant velocity, no acceleration) it returned rows up to "
                f"{num(np.abs(got).max())}, not 0")
    return None


def _h_power(ask, case):
    """The same samples with h doubled: a quarter of the second difference (it divides by h squared)."""
    q, h = case.args()
    found = scaling(ask, [q, h], 1, 2.0, -2, TOLERANCE)
    return found and f"{grew(found[0], 2.0, 'h')} (a quarter: it divides by h squared)"


def _q_linear(ask, case):
    """The second difference is linear in the positions: doubling q doubles it."""
    q, h = case.args()
    found = scaling(ask, [q, h], 0, 2.0, 1, TOLERANCE)
    return found and f"{grew(found[0], 2.0, 'q')} (twice)"


def _ends(ask, case):
    """Only the first or last rows wrong: the ends computed another way."""
    q, h = case.args()
    got = ask(q, h)
    if got is None or np.shape(got) != np.shape(case.truth) or len(got) < 5:
        return None
    bad = [k for k in range(len(got)) if not agrees(got[k], case.truth[k], TOLERANCE)]
    if bad and all(k in (0, 1, len(got) - 2, len(got) - 1) for k in bad):
        return f"only rows {', '.join(map(str, bad))} of {len(got)} differ, at the ends, and every inner one is right"
    return None


PROPERTIES = (
    Property("straight line", "a motion at constant velocity has no acceleration: your estimate of one that moves "
                              "along a straight line is not 0 (above), so its three samples' weights do not add up "
                              "to 0, or its two neighbours do not enter alike", _straight_line),
    Property("h power", "the second difference divides by h squared: the same samples with h doubled give a "
                        "quarter of it, and yours changes otherwise (above)", _h_power),
    Property("not linear", "the second difference is linear in the positions (a weighted sum of three samples): "
                           "doubling q must double it, and yours does not (above): a square, a product of samples, "
                           "or a constant added", _q_linear),
    Property("ends", "your inner rows are right and only the first or last ones differ: those are computed another "
                     "way (np.gradient, for one, takes one-sided differences at the edges, and its second pass "
                     "reaches two samples out): each row k needs q[k-1], q[k] and q[k+1] alike, the whole array "
                     "sliced three ways", _ends),
)


@register("08_learn_from_what_the_robot_records", variations=VARIATIONS, tolerance=TOLERANCE, properties=PROPERTIES,
          computed_by=(
    "lesson_lib.data.sensors.estimate",
    "lesson_lib.data.sensors._estimate_one",
    "lesson_lib.data.sensors.savgol_coefficients",                 # a 3-sample quadratic filter is the answer
    "lesson_lib.model.verlet.position_second_differences",
), hints={
    "rows": "the second difference exists at every sample but the first and the last: return T - 2 rows, one per "
            "inner sample k = 1 .. T-2",
    "rows lost": "the second difference at sample k reads sample k and its two neighbours, so it loses one sample "
                 "at each end (T - 2 rows): yours loses more (above): a difference of differences that reaches "
                 "k ± 2, a slice or range that stops short, or the ends cut off twice",
    "axis": "take the differences along time (axis 0, the rows), not across the joints",
    "first": "that is the first difference, an estimate of q̇: q̈ is the difference of two neighbouring first "
             "differences",
    "transposed": "your result is transposed: one row per inner sample (T - 2 rows), one column per joint, as q has "
                  "time along its rows",
    "not finite": "some rows are NaN or inf: a placeholder (np.nan, np.empty) is left in rows your code never "
                  "filled; every inner sample k = 1 .. T-2 gets a row",
    "differs": "the second difference is the change of the first difference from one step to the next, divided "
               "by h once more",
}, raised=(
    Raised("index", "neighbour index",
           "the second difference needs both neighbours of sample k: k runs over the inner samples "
           "only, 1 .. T-2 (q[k + 1] does not exist for the last sample)",
           lambda message, line: "+1]" in line.replace(" ", "")),
))
def second_difference(fn):
    """fn(q, h) -> (T - 2, n): the central second difference (q_{k+1} - 2 q_k + q_{k-1}) / h² at every inner
    sample, for positions q (T, n) sampled every h s.  Probed on a cubic motion (two joints, 25 samples at
    h = 0.002 s and 9 at h = 0.05 s), whose second difference is its exact q̈.  Tolerance 1e-6 rad/s²."""
    cases = []
    for T, h in ((25, 0.002), (9, 0.05)):
        q, qdd = _cubic(T, h)
        cases.append(Case(f"a cubic motion sampled every h = {h} s", lambda q=q, h=h: (q.copy(), h), qdd[1:-1]))
    judge(fn, cases, _read, TOLERANCE, VARIATIONS, properties=PROPERTIES, describe=lambda case, got: (
        f"on {case.label} its first row is {num(got[0])}, expected q̈ = {num(case.truth[0])} rad/s²"))


def _read(raw, case):
    """The result of shape (T - 2, n), or a Fail naming what its shape shows."""
    q, _ = case.args()
    T, want = len(q), case.truth
    shape = shape_of(raw)
    rows, cols = shape if shape is not None and len(shape) == 2 else want.shape
    if rows == T and cols != 2:
        raise Fail(f"for positions of shape {q.shape} it returned shape {(rows, cols)}", "axis")
    if (rows, cols) == (2, T - 2):
        raise Fail(f"for positions of shape {q.shape} it returned shape {(rows, cols)}, expected {(T - 2, 2)}",
                   "transposed")
    if cols == 2 and rows != T - 2:
        raise Fail(f"for {T} samples it returned {rows} rows, expected {T - 2}",
                   "first" if rows == T - 1 else "rows lost" if rows < T - 2 else "rows")
    return read_like(raw, want, "second_difference", TOLERANCE)
