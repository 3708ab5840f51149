"""What a learner and a grader measure: mass-matrix error over the whole torus, SPD margin, torque errors.

The lesson's PASS criterion (lesson_lib.facts): max |M_hat - M| < PASS_MAX_ERROR over a GRID_POINTS x GRID_POINTS
grid of the whole (q0, q1) torus and the learned M's smallest eigenvalue > 0 everywhere on it.

A model here is anything with n_dof and the methods a metric calls (DeLaN, BlackBox, or the truth dressed as a
model); a chain is a PlanarChain.  Configurations q are (n,) or (B, n) with B >= 1, at most
lesson_lib.validate.max_configurations(n) per call.
"""
import numpy as np

from .. import facts
from ..facts import GRID_POINTS
from ..limits import MAX_JOINTS
from ..validate import (
    array,
    as_data,
    as_state,
    configurations,
    has_api,
    integer,
    max_configurations,
    model_output,
    same_dof,
)

MODEL = "a model such as DeLaN() or BlackBox()"
WITH_M = ("a model with a mass matrix, such as DeLaN() (for a BlackBox's implied M use "
          "lesson_lib.evaluation.generalization.implied_mass_matrix_error)")
CHAIN = "a PlanarChain such as double_pendulum()"


def grid_fits(n_dof, points, fix=None):
    """Raise LimitExceeded unless a points^n_dof grid fits max_configurations(n_dof); the message names the
    points that would fit (or `fix`).

    >>> grid_fits(2, 41)
    >>> grid_fits(2, 600)
    Traceback (most recent call last):
    lesson_lib.validate.LimitExceeded: a 600^2 torus grid asks for 360,000 configurations of 2 joints, above the
    limit of 250,000 (1,000,000 mass-matrix entries per call); use points <= 500 for 2 joints (500^2 = 250,000
    configurations), or random configurations"""
    limit = max_configurations(n_dof)
    fit = int(limit ** (1 / n_dof))
    while (fit + 1) ** n_dof <= limit:
        fit += 1
    while fit and fit ** n_dof > limit:  # pragma: no mutate block (a guard: the root never rounds up at our limits)
        fit -= 1
    if fix is None:
        fix = (f"use points <= {fit} for {n_dof} joints ({fit}^{n_dof} = {fit ** n_dof:,} configurations), or "
               f"random configurations" if fit >= 2 else "use random configurations instead of a grid")
    configurations(f"a {points}^{n_dof} torus grid", points ** n_dof, n_dof, fix)


def torus_grid(n_dof=2, points=GRID_POINTS):
    """All combinations of `points` angles in [-pi, pi] per joint: (points ** n_dof, n_dof).

    n_dof >= 1, points >= 1; points ** n_dof may not exceed max_configurations(n_dof) (LimitExceeded).

    >>> torus_grid(2, 3).round(2)[:4]
    array([[-3.14, -3.14],
           [-3.14,  0.  ],
           [-3.14,  3.14],
           [ 0.  , -3.14]])"""
    n_dof = integer("n_dof", n_dof, low=1, high=MAX_JOINTS, hint="the number of joints, e.g. n_dof=2")
    points = integer("points", points, low=1, hint=f"angles per joint, e.g. points={GRID_POINTS}")
    grid_fits(n_dof, points)
    axes = np.meshgrid(*[np.linspace(-np.pi, np.pi, points)] * n_dof, indexing="ij")
    return np.stack([a.ravel() for a in axes], axis=-1)


def lesson_grid(n_dof):
    """The lesson's GRID_POINTS^n grid, or LimitExceeded saying to measure on random configurations instead.

    >>> lesson_grid(2).shape
    (1681, 2)"""
    grid_fits(n_dof, GRID_POINTS, f"the lesson's grid check is made for 2 joints; for {n_dof} measure on random "
                                  f"configurations: q = np.random.default_rng(0).uniform(-np.pi, np.pi, (2000, "
                                  f"{n_dof})), then mass_matrix_error(model, chain, q) and min_eigenvalue(model, q)")
    return torus_grid(n_dof, GRID_POINTS)


def configurations_arg(q, n_dof, name="q"):
    """Check configurations q for a metric: (n,) or (B, n) with 1 <= B <= max_configurations(n_dof).

    >>> configurations_arg([0.1, 0.2], 2)
    array([0.1, 0.2])"""
    q = as_state(name, q, n_dof)
    count = len(np.atleast_2d(q))
    if count == 0:
        raise ValueError(f"{name} holds no configurations (shape {q.shape}); a metric needs at least one")
    configurations(name, count, n_dof, f"split {name} into smaller batches")
    return q


def mass_matrix_error(model, chain, q=None):
    """max over q and entries of |M_hat(q) - M(q)| (q defaults to the whole-torus grid).

    >>> from lesson_lib import double_pendulum
    >>> mass_matrix_error(double_pendulum(), double_pendulum(), q=[[0.0, 0.0], [1.0, 2.0]])     # the truth: no error
    0.0"""
    has_api("model", model, ("mass_matrix",), WITH_M)
    has_api("chain", chain, ("mass_matrix",), CHAIN)
    same_dof(model, chain)
    q = lesson_grid(chain.n_dof) if q is None else configurations_arg(q, chain.n_dof)
    M = chain.mass_matrix(q)
    return float(np.max(np.abs(learned_mass_matrix(model, q, M.shape) - M)))


def learned_mass_matrix(model, q, shape):
    """model.mass_matrix(q), checked: the expected shape, finite (a broken model is named, not averaged).

    >>> from lesson_lib import double_pendulum
    >>> learned_mass_matrix(double_pendulum(), np.zeros((1, 2)), (1, 2, 2)).round(3)
    array([[[2.667, 0.833],
            [0.833, 0.333]]])"""
    return model_output("model.mass_matrix(q)", model.mass_matrix(q), shape)


def min_eigenvalue(model, q=None):
    """Smallest eigenvalue of the learned M over q (defaults to the whole-torus grid).

    >>> from lesson_lib import double_pendulum
    >>> round(min_eigenvalue(double_pendulum(), q=[[0.0, 0.0]]), 4)
    0.0663"""
    has_api("model", model, ("mass_matrix",), WITH_M)
    q = lesson_grid(model.n_dof) if q is None else configurations_arg(q, model.n_dof)
    return float(np.linalg.eigvalsh(learned_mass_matrix(model, q, (*np.shape(q)[:-1], model.n_dof, model.n_dof))).min())


def torque_nmse(model, data):
    """Per joint: mean((tau_hat - tau)^2) / var(tau) on a data dict (0 is perfect, 1 is predicting the mean).

    data: dict of (N, n) arrays q, qd, qdd, tau with N >= 2 and torques that vary on every joint.

    >>> from lesson_lib import DeLaN, double_pendulum, sample_uniform
    >>> torque_nmse(DeLaN(seed=0), sample_uniform(double_pendulum(), 64)).shape
    (2,)"""
    has_api("model", model, ("inverse_dynamics",), MODEL)
    d = as_data("data", data, model.n_dof, min_samples=2)
    var = np.var(d["tau"], axis=0)
    if np.any(var == 0):
        j = int(np.argmin(var))
        raise ValueError(f"data['tau'] does not vary on joint {j} (all {len(d['tau'])} samples have tau = "
                         f"{d['tau'][0, j]:g}), so the error relative to its variance is undefined; use data with "
                         f"varying torques, e.g. sample_uniform(chain)")
    err = model_output("model.inverse_dynamics(q, qd, qdd)", model.inverse_dynamics(d["q"], d["qd"], d["qdd"]),
                       d["tau"].shape) - d["tau"]
    return np.mean(err**2, axis=0) / var


def part_errors(model, chain, data):
    """Root-mean-square error of each term of the manipulator equation against the truth: M qdd, c, g.

    >>> from lesson_lib import DeLaN, double_pendulum, sample_uniform
    >>> sorted(part_errors(DeLaN(seed=0), double_pendulum(), sample_uniform(double_pendulum(), 16)))
    ['M_qdd', 'c', 'g']"""
    has_api("model", model, ("parts",), WITH_M)
    has_api("chain", chain, ("mass_matrix", "coriolis", "gravity"), CHAIN)
    same_dof(model, chain)
    d = as_data("data", data, chain.n_dof, keys=("q", "qd", "qdd"))
    q, qd, qdd = d["q"], d["qd"], d["qdd"]
    parts = model.parts(q, qd, qdd)
    if not isinstance(parts, dict) or set(parts) != {"M_qdd", "c", "g"}:
        raise ValueError(f"model.parts(q, qd, qdd) returned {type(parts).__name__}, expected a dict of M_qdd, c, g")
    learned = {k: model_output(f"model.parts(q, qd, qdd)[{k!r}]", v, q.shape) for k, v in parts.items()}
    truth = {"M_qdd": np.einsum("bij,bj->bi", chain.mass_matrix(q), qdd), "c": chain.coriolis(q, qd),
             "g": chain.gravity(q)}
    return {k: float(np.sqrt(np.mean((learned[k] - truth[k]) ** 2))) for k in truth}


def compare_mass_matrices(M_hat, M):
    """The lesson's criterion from the learned and true M at the same configurations, (G, n, n) or (n, n) each:
    dict with max_error (max |M_hat - M|), min_eig (smallest eigenvalue of M_hat) and passed (bool).

    >>> M = np.array([[2.0, 0.5], [0.5, 1.0]])
    >>> result = compare_mass_matrices(M + 0.1, M)
    >>> round(result["max_error"], 3), round(result["min_eig"], 3), result["passed"]
    (0.1, 0.819, True)"""
    M_hat = array("M_hat", M_hat, (2, 3), "mass matrices of shape (n, n) or (G, n, n)")
    M = array("M", M, (2, 3), "mass matrices of shape (n, n) or (G, n, n)")
    if M_hat.shape != M.shape or M.shape[-1] != M.shape[-2] or M.size == 0:
        raise ValueError(f"M_hat has shape {M_hat.shape} and M {M.shape}; both must be the same non-empty "
                         f"(G, n, n) or (n, n): the learned and true mass matrices at the same configurations")
    err, lam = float(np.max(np.abs(M_hat - M))), float(np.linalg.eigvalsh(M_hat).min())
    return {"max_error": err, "min_eig": lam, "passed": bool(err < facts.PASS_MAX_ERROR and lam > 0)}


def lesson_check(model, chain):
    """The lesson's PASS check over the whole torus: dict with max_error, min_eig and passed (bool).

    >>> from lesson_lib import double_pendulum
    >>> lesson_check(double_pendulum(), double_pendulum())["passed"]                  # the truth passes
    True"""
    has_api("model", model, ("mass_matrix",), WITH_M)
    has_api("chain", chain, ("mass_matrix",), CHAIN)
    same_dof(model, chain)
    q = lesson_grid(chain.n_dof)
    M = chain.mass_matrix(q)
    return compare_mass_matrices(learned_mass_matrix(model, q, M.shape), M)
