"""Generalisation tests: train on part of the state space, test where the model has never been.

Two ways to leave the training data:
- faster: speeds and accelerations `speed` times the training box (|qd| <= 3 speed rad/s, |qdd| <= 10 speed rad/s^2);
- elsewhere: the shoulder angle q_0 on the half of the circle the training data never covered.

`half_circle` folds q_0 of a data set into one half, [0, pi] (side=+1) or [-pi, 0] (side=-1), and recomputes the
torques with the RNEA, so the data stay exact.
"""
import numpy as np

from ..data import sample_uniform
from ..facts import QD_MAX, QDD_MAX
from ..limits import MAX_SAMPLES
from ..validate import array, as_data, as_states, has_api, integer, number, number_list, sign, within_limit
from .audit import implied_mass_matrix
from .metrics import CHAIN, MODEL, configurations_arg, same_dof, torque_nmse


def half_circle(chain, data, side=+1):
    """A copy of `data` with q_0 moved into one half of the circle (|q_0| with the sign of `side`, +1 or -1),
    torques recomputed by the RNEA.  Other keys ("traj", "t") are kept.

    >>> from lesson_lib import double_pendulum, sample_uniform
    >>> folded = half_circle(double_pendulum(), sample_uniform(double_pendulum(), 50), side=-1)
    >>> bool(folded["q"][:, 0].max() <= 0)
    True"""
    has_api("chain", chain, ("rnea",), CHAIN)
    d = as_data("data", data, chain.n_dof)
    side = sign("side", side)
    q = d["q"].copy()
    q[:, 0] = side * np.abs(q[:, 0])
    return {**data, "q": q, "qd": d["qd"], "qdd": d["qdd"], "tau": chain.rnea(q, d["qd"], d["qdd"])}


def test_set(chain, speed=1.0, side=+1, count=2000, seed=11):
    """Fresh samples with qd and qdd up to `speed` (> 0) times the training box and q_0 on the half `side`.

    >>> from lesson_lib import double_pendulum
    >>> data = test_set(double_pendulum(), speed=2.0, side=+1, count=100)
    >>> bool(data["q"][:, 0].min() >= 0), bool(np.abs(data["qd"]).max() > 3.0)
    (True, True)"""
    has_api("chain", chain, ("rnea",), CHAIN)
    speed = number("speed", speed, low=0.0, low_open=True, hint="a multiple of the training speeds, e.g. speed=2")
    side = sign("side", side)
    count = integer("count", count, low=1, hint="the number of samples, e.g. count=2000")
    within_limit("count", count, MAX_SAMPLES, "use fewer samples")
    seed = integer("seed", seed, low=0, hint="a whole number >= 0, e.g. seed=11")
    d = sample_uniform(chain, count, seed=seed, qd_max=QD_MAX * speed, qdd_max=QDD_MAX * speed)
    return half_circle(chain, d, side)


def torque_error_percent(model, data):
    """Torque error as a percentage of the torques' variance, averaged over the joints (0 is perfect).

    >>> from lesson_lib import DeLaN, double_pendulum
    >>> data = test_set(double_pendulum(), count=100)
    >>> bool(torque_error_percent(DeLaN(seed=0), data) > 10)                  # untrained: far off
    True"""
    return float(100 * np.mean(torque_nmse(model, data)))


def implied_mass_matrix_error(model, chain, q):
    """max |M_hat - M| over the configurations q (n,) or (B, n); for a black box its implied M at qd = qdd = 0.

    >>> from lesson_lib import DeLaN, double_pendulum
    >>> round(implied_mass_matrix_error(DeLaN(seed=0), double_pendulum(), [[0.0, 0.0]]), 3)
    2.228"""
    has_api("model", model, (), MODEL)
    has_api("chain", chain, ("mass_matrix",), CHAIN)
    same_dof(model, chain)
    q = configurations_arg(q, chain.n_dof)
    z = np.zeros_like(q)
    M = implied_mass_matrix(model, q, z, z)
    return float(np.max(np.abs(M - chain.mass_matrix(q))))


def _models(models):
    """Check a dict {name: model} (at least one)."""
    if not isinstance(models, dict) or not models:
        raise TypeError(f"models must be a non-empty dict {{name: model}}, e.g. {{'DeLaN': delan}}, got "
                        f"{type(models).__name__}")
    for name, m in models.items():
        has_api(f"models[{name!r}]", m, ("inverse_dynamics",), MODEL)
    return models


def compare(models, chain, cases):
    """Rows {case, model: torque error %} for each case name -> (speed, side).

    >>> from lesson_lib import BlackBox, DeLaN, double_pendulum
    >>> rows = compare({"DeLaN": DeLaN(seed=0), "black box": BlackBox(seed=0)}, double_pendulum(),
    ...                {"seen": (1.0, +1), "twice as fast": (2.0, +1)})
    >>> [row["case"] for row in rows], sorted(rows[0])
    (['seen', 'twice as fast'], ['DeLaN', 'black box', 'case'])"""
    _models(models)
    has_api("chain", chain, ("rnea",), CHAIN)
    if not isinstance(cases, dict) or not cases:
        raise TypeError(f"cases must be a non-empty dict {{name: (speed, side)}}, e.g. {{'2x speeds': (2, +1)}}, "
                        f"got {type(cases).__name__}")
    for case, value in cases.items():
        if not isinstance(value, (tuple, list)) or len(value) != 2:
            raise ValueError(f"cases[{case!r}] must be a pair (speed, side), e.g. (2, +1), got {value!r}")
    rows = []
    for case, (speed, side) in cases.items():
        data = test_set(chain, speed, side)
        rows.append({"case": case, **{name: torque_error_percent(m, data) for name, m in models.items()}})
    return rows


def print_comparison(rows):
    """The comparison as a table, torque errors in % of the variance, rounded.

    >>> print_comparison([{"case": "seen", "DeLaN": 1.234, "black box": 5.0}])
    test set                                 DeLaN   black box
    seen                                     1.23%       5.00%"""
    if not isinstance(rows, (list, tuple)) or not rows or not all(isinstance(r, dict) and "case" in r for r in rows):
        raise TypeError(f"rows must be the non-empty list of dicts that compare(...) returns, got "
                        f"{type(rows).__name__}")
    names = [k for k in rows[0] if k != "case"]
    print(f"{'test set':<34}" + "".join(f"{n:>12}" for n in names))
    for r in rows:
        print(f"{r['case']:<34}" + "".join(f"{r[n]:>11.2f}%" for n in names))


def speed_curve(models, chain, speeds, side=+1, seed=12):
    """{name: [torque error % at each speed multiplier]} on the half `side`.

    >>> from lesson_lib import DeLaN, double_pendulum
    >>> curves = speed_curve({"DeLaN": DeLaN(seed=0)}, double_pendulum(), [1, 2])
    >>> len(curves["DeLaN"])
    2"""
    _models(models)
    speeds = number_list("speeds", speeds, example="[1, 2, 3]")
    sets = [test_set(chain, s, side, seed=seed) for s in speeds]
    return {name: [torque_error_percent(m, d) for d in sets] for name, m in models.items()}


def learned_energy(model, q, qd):
    """The model's own energy 1/2 qd^T M_hat(q) qd + V_hat(q) at states (n,) or along a trajectory (T, n):
    a number or (T,) (V_hat is defined up to a constant).

    >>> from lesson_lib import DeLaN
    >>> model = DeLaN(seed=0)
    >>> bool(learned_energy(model, [0.3, 0.1], [1.0, 0.0]) > learned_energy(model, [0.3, 0.1], [0.0, 0.0]))   # KE > 0
    True"""
    has_api("model", model, ("mass_matrix", "potential"), "a DeLaN (a model with a potential)")
    (q, qd), single = as_states(model.n_dof, q=q, qd=qd)
    E = 0.5 * np.einsum("ti,tij,tj->t", qd, model.mass_matrix(q), qd) + model.potential(q)
    return E[0] if single else E


def agreement(t, q_a, q_b, tol=0.1):
    """How long two trajectories agree: (the first time some angle differs by more than tol, or t[-1] if never;
    the largest difference in rad).  t: (T,) with T >= 1; q_a, q_b: (T, n) each; tol > 0 (rad).

    >>> t = np.array([0.0, 1.0, 2.0])
    >>> agreement(t, np.zeros((3, 2)), np.array([[0.0, 0.0], [0.05, 0.0], [0.3, 0.0]]), tol=0.1)
    (2.0, 0.3)"""
    t = array("t", t, (1,), "the times (T,) of the trajectories, T >= 1")
    q_a = array("q_a", q_a, (2,), f"a trajectory of angles (T, n) with T = {len(t)}")
    q_b = array("q_b", q_b, (2,), f"a trajectory of angles (T, n) with T = {len(t)}")
    if len(t) == 0 or q_a.shape != q_b.shape or len(q_a) != len(t):
        raise ValueError(f"t has shape {t.shape}, q_a {q_a.shape} and q_b {q_b.shape}; expected (T,), (T, n) and "
                         f"(T, n) with one row per time, T >= 1 (e.g. both from rollout with the same dt and steps)")
    tol = number("tol", tol, low=0.0, low_open=True, hint="the largest difference in rad that counts as agreeing")
    gap = np.max(np.abs(q_a - q_b), axis=1)
    apart = np.flatnonzero(gap > tol)
    return float(t[apart[0]] if apart.size else t[-1]), float(gap.max())
