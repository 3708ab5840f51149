"""Generalisation tests: train on part of the state space, test where the model has never been.

Two ways to leave the training data:
- faster: speeds and accelerations `speed` times the training box (|qd| <= 3 speed rad/s, |qdd| <= 10 speed rad/s^2);
- elsewhere: the shoulder angle q_0 on the half of the circle the training data never covered.

`half_circle` folds q_0 of a data set into one half, [0, pi] (side=+1) or [-pi, 0] (side=-1), and recomputes the
torques with the RNEA, so the data stay exact.
"""
import numpy as np

from .audit import implied_mass_matrix
from ..data import sample_uniform
from ..facts import QD_MAX, QDD_MAX
from .metrics import torque_nmse



def half_circle(chain, data, side=+1):
    """A copy of `data` with q_0 moved into one half of the circle (|q_0| with the sign of `side`), torques
    recomputed by the RNEA."""
    q = np.array(data["q"], dtype=float)
    q[:, 0] = np.sign(side) * np.abs(q[:, 0])
    return {"q": q, "qd": data["qd"], "qdd": data["qdd"], "tau": chain.rnea(q, data["qd"], data["qdd"])}


def test_set(chain, speed=1.0, side=+1, count=2000, seed=11):
    """Fresh samples with qd and qdd up to `speed` times the training box and q_0 on the half `side`."""
    d = sample_uniform(chain, count, seed=seed, qd_max=QD_MAX * speed, qdd_max=QDD_MAX * speed)
    return half_circle(chain, d, side)


def torque_error_percent(model, data):
    """Torque error as a percentage of the torques' variance, averaged over the joints (0 is perfect)."""
    return float(100 * np.mean(torque_nmse(model, data)))


def mass_matrix_error(model, chain, q):
    """max |M_hat - M| over the configurations q; for a black box its implied M at qd = qdd = 0."""
    z = np.zeros_like(q)
    M = implied_mass_matrix(model, q, z, z)
    return float(np.max(np.abs(M - chain.mass_matrix(q))))


def compare(models, chain, cases):
    """Rows {case, model: torque error %} for each case name -> (speed, side)."""
    rows = []
    for case, (speed, side) in cases.items():
        data = test_set(chain, speed, side)
        rows.append({"case": case, **{name: torque_error_percent(m, data) for name, m in models.items()}})
    return rows


def print_comparison(rows):
    """The comparison as a table, torque errors in % of the variance, rounded."""
    names = [k for k in rows[0] if k != "case"]
    print(f"{'test set':<34}" + "".join(f"{n:>12}" for n in names))
    for r in rows:
        print(f"{r['case']:<34}" + "".join(f"{r[n]:>11.2f}%" for n in names))


def speed_curve(models, chain, speeds, side=+1, seed=12):
    """{name: [torque error % at each speed multiplier]} on the seen half."""
    sets = [test_set(chain, s, side, seed=seed) for s in speeds]
    return {name: [torque_error_percent(m, d) for d in sets] for name, m in models.items()}


def learned_energy(model, q, qd):
    """The model's own energy 1/2 qd^T M_hat(q) qd + V_hat(q) along a trajectory (V_hat up to a constant)."""
    M = model.mass_matrix(q)
    return 0.5 * np.einsum("ti,tij,tj->t", qd, M, qd) + model.potential(q)


def agreement(t, q_a, q_b, tol=0.1):
    """How long two trajectories agree: (the first time some angle differs by more than tol, or t[-1] if never;
    the largest difference in rad)."""
    gap = np.max(np.abs(np.asarray(q_a) - np.asarray(q_b)), axis=1)
    apart = np.flatnonzero(gap > tol)
    return float(t[apart[0]] if apart.size else t[-1]), float(gap.max())
