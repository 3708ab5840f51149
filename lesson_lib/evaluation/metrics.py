"""What a learner and a grader measure: mass-matrix error over the whole torus, SPD margin, torque errors.

The lesson's PASS criterion (lesson_lib.facts): max |M_hat - M| < PASS_MAX_ERROR over a GRID_POINTS x GRID_POINTS
grid of the whole (q0, q1) torus and the learned M's smallest eigenvalue > 0 everywhere on it.
"""
import numpy as np

from .._validate import as_states
from ..facts import GRID_POINTS, PASS_MAX_ERROR


def torus_grid(n_dof=2, points=GRID_POINTS):
    """All combinations of `points` angles in [-pi, pi] per joint: (points ** n_dof, n_dof)."""
    axes = np.meshgrid(*[np.linspace(-np.pi, np.pi, points)] * n_dof, indexing="ij")
    return np.stack([a.ravel() for a in axes], axis=-1)


def mass_matrix_error(model, chain, q=None):
    """max over q and entries of |M_hat(q) - M(q)| (q defaults to the whole-torus grid)."""
    q = torus_grid(chain.n_dof) if q is None else q
    return float(np.max(np.abs(model.mass_matrix(q) - chain.mass_matrix(q))))


def min_eigenvalue(model, q=None):
    """Smallest eigenvalue of the learned M over q (defaults to the whole-torus grid)."""
    q = torus_grid(model.n_dof) if q is None else q
    return float(np.linalg.eigvalsh(model.mass_matrix(q)).min())


def torque_nmse(model, data):
    """Per joint: mean((tau_hat - tau)^2) / var(tau) on a data dict (0 is perfect, 1 is predicting the mean)."""
    (q, qd, qdd, tau), _ = as_states(model.n_dof, q=data["q"], qd=data["qd"], qdd=data["qdd"], tau=data["tau"])
    err = model.inverse_dynamics(q, qd, qdd) - tau
    return np.mean(err**2, axis=0) / np.var(tau, axis=0)


def part_errors(model, chain, data):
    """Root-mean-square error of each term of the manipulator equation against the truth: M qdd, c, g."""
    q, qd, qdd = data["q"], data["qd"], data["qdd"]
    learned = model.parts(q, qd, qdd)
    truth = {"M_qdd": np.einsum("bij,bj->bi", chain.mass_matrix(q), qdd), "c": chain.coriolis(q, qd),
             "g": chain.gravity(q)}
    return {k: float(np.sqrt(np.mean((learned[k] - truth[k]) ** 2))) for k in truth}


def compare_mass_matrices(M_hat, M):
    """The lesson's criterion from the learned and true M at the same configurations, (G, n, n) each:
    dict with max_error (max |M_hat - M|), min_eig (smallest eigenvalue of M_hat) and passed (bool)."""
    err, lam = float(np.max(np.abs(M_hat - M))), float(np.linalg.eigvalsh(M_hat).min())
    return {"max_error": err, "min_eig": lam, "passed": bool(err < PASS_MAX_ERROR and lam > 0)}


def lesson_check(model, chain):
    """The lesson's PASS check over the whole torus: dict with max_error, min_eig and passed (bool)."""
    q = torus_grid(chain.n_dof)
    return compare_mass_matrices(model.mass_matrix(q), chain.mass_matrix(q))
