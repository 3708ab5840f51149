"""Auditing a learned model's inertia: is what plays the role of M a valid mass matrix?

A mass matrix is symmetric, positive-definite and depends on q only.  A model's *implied* mass matrix is
d tau_hat / d qdd: the DeLaN's M(q) exactly, the black box's slope at each (q, qd, qdd)."""
import numpy as np

from ..facts import QD_MAX, QDD_MAX
from ..limits import MAX_JOINTS, MAX_SAMPLES
from ..model.delan import InertiaCollapsed, inertia_collapse  # noqa: F401 -- the audit asked of any model
from ..validate import (
    array,
    as_state,
    as_states,
    configurations,
    has_api,
    integer,
    model_output,
    number,
    number_list,
    within_limit,
)
from .metrics import MODEL, learned_mass_matrix

SYMMETRY_TOL = 1e-9


def is_valid_inertia(M, tol=SYMMETRY_TOL):
    """True when M is symmetric (max |M - M^T| <= tol) and positive-definite (exercise 01's answer).

    >>> is_valid_inertia(np.array([[2.0, 0.5], [0.5, 1.0]])), is_valid_inertia(np.array([[1.0, 2.0], [2.0, 1.0]]))
    (True, False)"""
    M = array("M", M, (2,), "one square matrix (n, n)")
    if M.shape[0] != M.shape[1] or M.size == 0:
        raise ValueError(f"M has shape {M.shape}, expected one square matrix (n, n) with n >= 1")
    tol = number("tol", tol, low=0.0, hint="the largest asymmetry |M - M^T| allowed, e.g. tol=1e-9")
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(M).min()
    return bool(asymmetry <= tol and smallest > 0)


def _model(model):
    """Check a model for the audits: n_dof and either implied_mass_matrix or mass_matrix."""
    methods = ("implied_mass_matrix",) if hasattr(model, "implied_mass_matrix") else ("mass_matrix",)
    return has_api("model", model, methods, MODEL)


def implied_mass_matrix(model, q, qd, qdd):
    """d tau_hat / d qdd: (n, n) or (B, n, n) for q, qd, qdd (n,) or (B, n).

    >>> from lesson_lib import DeLaN
    >>> model, q, qd = DeLaN(seed=0), np.array([0.3, 0.1]), np.array([1.0, -2.0])
    >>> bool(np.allclose(implied_mass_matrix(model, q, qd, np.zeros(2)), model.mass_matrix(q)))   # a DeLaN's is M
    True"""
    _model(model)
    (q, qd, qdd), single = as_states(model.n_dof, q=q, qd=qd, qdd=qdd)
    configurations("q, qd, qdd", len(q), model.n_dof, "split the states into smaller batches")
    n = model.n_dof
    shape = (n, n) if single else (len(q), n, n)
    if single:
        q, qd, qdd = q[0], qd[0], qdd[0]
    if hasattr(model, "implied_mass_matrix"):
        return model_output("model.implied_mass_matrix(q, qd, qdd)", model.implied_mass_matrix(q, qd, qdd), shape)
    return learned_mass_matrix(model, q, shape)


def sample_states(n_dof, count, seed, scale=1.0, qd_max=QD_MAX, qdd_max=QDD_MAX):
    """Random (q, qd, qdd), each (count, n_dof): q on the torus, qd and qdd in `scale` times the
    training box.

    >>> q, qd, qdd = sample_states(2, count=3, seed=0)
    >>> q.shape, bool(np.abs(qd).max() <= 3.0)
    ((3, 2), True)"""
    n_dof = integer("n_dof", n_dof, low=1, high=MAX_JOINTS, hint="the number of joints, e.g. n_dof=2")
    count = within_limit("count", integer("count", count, low=0, hint="the number of states, e.g. count=500"),
                         MAX_SAMPLES, "use fewer states")
    seed = integer("seed", seed, low=0, hint="a whole number >= 0, e.g. seed=0")
    scale = number("scale", scale, low=0.0, low_open=True, hint="a multiple of the training box, e.g. scale=2")
    qd_max = number("qd_max", qd_max, low=0.0, hint="the largest joint speed in rad/s, e.g. qd_max=3")
    qdd_max = number("qdd_max", qdd_max, low=0.0, hint="the largest joint acceleration in rad/s^2, e.g. qdd_max=10")
    rng = np.random.default_rng(seed)
    q = rng.uniform(-np.pi, np.pi, (count, n_dof))
    qd = rng.uniform(-scale * qd_max, scale * qd_max, (count, n_dof))
    qdd = rng.uniform(-scale * qdd_max, scale * qdd_max, (count, n_dof))
    return q, qd, qdd


def inertia_report(M):
    """Per state: max |M - M^T| and the smallest eigenvalue of (M + M^T) / 2; M (n, n) or (B, n, n).

    >>> asymmetry, smallest = inertia_report(np.array([[2.0, 0.5], [0.5, 1.0]]))
    >>> float(asymmetry), round(float(smallest), 3)
    (0.0, 0.793)"""
    M = array("M", M, (2, 3), "square matrices of shape (n, n) or (B, n, n)")
    if M.shape[-1] != M.shape[-2] or M.shape[-1] == 0:
        raise ValueError(f"M has shape {M.shape}, expected square matrices (n, n) or (B, n, n) with n >= 1")
    MT = np.swapaxes(M, -1, -2)
    asym = np.max(np.abs(M - MT), axis=(-2, -1))
    lam = np.linalg.eigvalsh(0.5 * (M + MT)).min(axis=-1)
    return asym, lam


def audit(model, scales=(1, 2, 5, 10), count=2000, seed=0):
    """For each range multiplier in `scales`: over `count` states with qd, qdd up to that multiple of the
    training box, the largest asymmetry, the share not positive-definite, the smallest eigenvalue and the worst
    state with its implied M.  A list of dicts, one per scale.

    >>> from lesson_lib import BlackBox
    >>> rows = audit(BlackBox(seed=0), scales=(1, 10), count=20)
    >>> [row["scale"] for row in rows], sorted(rows[0])[:3]
    ([1, 10], ['max_asymmetry', 'min_eig', 'scale'])"""
    _model(model)
    scales = number_list("scales", scales, example="(1, 2, 5, 10)")
    count = integer("count", count, low=1, hint="the number of states per scale, e.g. count=2000")
    configurations("count", count, model.n_dof, "use fewer states per scale")
    seed = integer("seed", seed, low=0, hint="a whole number >= 0, e.g. seed=0")
    rows = []
    for k, s in enumerate(scales):
        q, qd, qdd = sample_states(model.n_dof, count, seed + k, scale=s)
        M = implied_mass_matrix(model, q, qd, qdd)
        asym, lam = inertia_report(M)
        w = int(np.argmin(lam))
        rows.append({"scale": s, "max_asymmetry": float(asym.max()), "share_not_pd": float(np.mean(lam <= 0)),
                     "min_eig": float(lam.min()), "worst": (q[w], qd[w], qdd[w]), "worst_M": M[w]})
    return rows


AUDIT_KEYS = ("scale", "max_asymmetry", "share_not_pd", "min_eig")


def print_audit(rows, name):
    """The audit as a small table with rounded numbers.

    >>> from lesson_lib import BlackBox
    >>> print_audit(audit(BlackBox(seed=0), scales=(1,), count=20), "untrained black box")   # doctest: +ELLIPSIS
    untrained black box: implied mass matrix d tau / d qdd at random states
       range  max |M - M^T|  not pos.-def.  smallest eig
          1x          0.248          65.0%        -0.101"""
    if not isinstance(rows, (list, tuple)) or not rows or not all(
            isinstance(r, dict) and all(k in r for k in AUDIT_KEYS) for r in rows):
        raise TypeError(f"rows must be the non-empty list of dicts that audit(model) returns, got "
                        f"{type(rows).__name__}")
    print(f"{name}: implied mass matrix d tau / d qdd at {'random states'}")
    print(f"  {'range':>6}  {'max |M - M^T|':>13}  {'not pos.-def.':>13}  {'smallest eig':>12}")
    for r in rows:
        print(f"  {r['scale']:>5}x  {r['max_asymmetry']:>13.3f}  {100 * r['share_not_pd']:>12.1f}%  "
              f"{r['min_eig']:>12.3f}")


def velocity_sweep(model, q, qd_values, joint=0):
    """Implied M at q (n,) while qd[joint] sweeps qd_values (K,): (K, n, n); a real inertia is constant.

    >>> from lesson_lib import DeLaN
    >>> sweep = velocity_sweep(DeLaN(seed=0), [0.3, 0.1], [0.0, 5.0])
    >>> sweep.shape, bool(np.allclose(sweep[0], sweep[1]))                # a DeLaN's M does not depend on qd
    ((2, 2, 2), True)"""
    _model(model)
    n = model.n_dof
    q = as_state("q", q, n, allow_batch=False)
    qd_values = array("qd_values", qd_values, (1,), "a 1-D list of joint speeds (rad/s)")
    joint = integer("joint", joint, low=0, high=n - 1, hint=f"a joint index 0..{n - 1}")
    qd = np.zeros((len(qd_values), n))
    qd[:, joint] = qd_values
    return implied_mass_matrix(model, np.broadcast_to(q, qd.shape), qd, np.zeros_like(qd))
