"""Auditing a learned model's inertia: is what plays the role of M a valid mass matrix?

A real mass matrix is symmetric, positive-definite and depends on q only.  For a model we audit its *implied*
mass matrix, d tau_hat / d qdd: for the DeLaN that is exactly its M(q) (tau is linear in qdd), for the black
box it is whatever the network's slope happens to be, at each (q, qd, qdd).
"""
import numpy as np

from ..facts import QD_MAX, QDD_MAX

SYMMETRY_TOL = 1e-9


def is_valid_inertia(M, tol=SYMMETRY_TOL):
    """True when the square matrix M is symmetric (max |M - M^T| <= tol) and positive-definite (all
    eigenvalues > 0).  The library's answer to exercise 01."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(M).min()
    return bool(asymmetry <= tol and smallest > 0)


def implied_mass_matrix(model, q, qd, qdd):
    """d tau_hat / d qdd at a batch of states, (B, n, n): the black box's slope, or the DeLaN's M(q)."""
    if hasattr(model, "implied_mass_matrix"):
        return model.implied_mass_matrix(q, qd, qdd)
    return model.mass_matrix(q)


def sample_states(n_dof, count, seed, scale=1.0, qd_max=QD_MAX, qdd_max=QDD_MAX):
    """Random (q, qd, qdd): q on the whole torus, qd and qdd uniform in `scale` times the training box."""
    rng = np.random.default_rng(seed)
    q = rng.uniform(-np.pi, np.pi, (count, n_dof))
    qd = rng.uniform(-scale * qd_max, scale * qd_max, (count, n_dof))
    qdd = rng.uniform(-scale * qdd_max, scale * qdd_max, (count, n_dof))
    return q, qd, qdd


def inertia_report(M):
    """Per state: largest asymmetry max |M - M^T| and smallest eigenvalue of the symmetric part (M + M^T)/2
    (the part that sets the kinetic energy 1/2 qd^T M qd)."""
    MT = np.swapaxes(M, -1, -2)
    asym = np.max(np.abs(M - MT), axis=(-2, -1))
    lam = np.linalg.eigvalsh(0.5 * (M + MT)).min(axis=-1)
    return asym, lam


def audit(model, scales=(1, 2, 5, 10), count=2000, seed=0):
    """For each range multiplier s: states with qd, qdd up to s times the training box, and over them the
    largest asymmetry, the share of states whose implied M is not positive-definite, the smallest eigenvalue,
    and the worst state (q, qd, qdd) with its implied M.  Returns a list of dicts, one per scale."""
    rows = []
    for k, s in enumerate(scales):
        q, qd, qdd = sample_states(model.n_dof, count, seed + k, scale=s)
        M = implied_mass_matrix(model, q, qd, qdd)
        asym, lam = inertia_report(M)
        w = int(np.argmin(lam))
        rows.append({"scale": s, "max_asymmetry": float(asym.max()), "share_not_pd": float(np.mean(lam <= 0)),
                     "min_eig": float(lam.min()), "worst": (q[w], qd[w], qdd[w]), "worst_M": M[w]})
    return rows


def print_audit(rows, name):
    """The audit as a small table with rounded numbers."""
    print(f"{name}: implied mass matrix d tau / d qdd at {'random states'}")
    print(f"  {'range':>6}  {'max |M - M^T|':>13}  {'not pos.-def.':>13}  {'smallest eig':>12}")
    for r in rows:
        print(f"  {r['scale']:>5}x  {r['max_asymmetry']:>13.3f}  {100 * r['share_not_pd']:>12.1f}%  "
              f"{r['min_eig']:>12.3f}")


def velocity_sweep(model, q, qd_values, joint=0):
    """Implied M at one configuration q while qd[joint] sweeps qd_values (other qd and all qdd zero): (K, n, n).
    A real inertia would not change at all."""
    n = model.n_dof
    qd = np.zeros((len(qd_values), n))
    qd[:, joint] = qd_values
    Q = np.broadcast_to(np.asarray(q, dtype=float), (len(qd_values), n))
    return implied_mass_matrix(model, Q, qd, np.zeros_like(qd))
