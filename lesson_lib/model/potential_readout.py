"""V's readout solved: at the end of each fit call the weights from V's hidden units to V are set by least squares.

The torque is affine in those weights w (K,): L does not read them, and V = potential_scale (h . w + b) with h V's K
units of the last hidden layer, so

    g(q) = potential_scale (dh/dq) w,        tau(w + dw) = tau(w) + potential_scale (dh/dq) dw.

On a batch the loss's residual tau inv_scale - target is therefore r + A dw, A = potential_scale (dh/dq) inv_scale,
and for the features the network has, the best readout is a linear least-squares problem (variable projection,
Golub & Pereyra 1973: the linear weights solved, the others trained).  Adam trains the features and L, and fit keeps
the best average of its iterates (lesson_lib.model.training); the weights the call ends with get the damped step

    dw(lam) = argmin |r + A dw|^2 + lam s |dw|^2 = -(A^T A + lam s I)^-1 A^T r,     s = mean of diag(A^T A)

on about SOLVE_SAMPLES training samples, lam from RIDGE_PATH (or no step) chosen by FOLDS-fold cross-validation over
stretches of consecutive samples (parts of whole trajectories when the data are trajectories), and kept only if it
lowers the loss on the validation samples.  Training itself never sees it: Adam's iterates, its average and every
validation decision are as without it, so the mass matrix learns as before.  On notebook 07's held-out letters g's
error after one press falls by two fifths to two thirds, after three by 29 to 36 % (benchmarks/bench_learning_speed.py
--ablation); a solve costs about ten training steps, once a call.
Shapes: theta (P,); a batch (q, qd, qdd, target, inv_scale), each (B, n); r (B, n); A (B, n, K).
"""
import math

import numpy as np

from . import definition, fast, quadratic, training_data

RIDGE_PATH = 10.0 ** np.arange(0, -11, -1)   # the damping strengths lam tried, relative to s: 1 down to 1e-10
FOLDS = 5                                   # cross-validation folds choosing lam
SOLVE_SAMPLES = 1024                        # at most about this many training samples (evenly spaced) per solve


def readout_index(model):
    """The positions in theta (K,) of the weights from V's units to V: the last row of the last layer, at the
    units model.potential_units.

    >>> from lesson_lib import DeLaN
    >>> readout_index(DeLaN(hidden=(8,), mass_units=2))    # 4 x 8 + 8 weights in, then 3 rows of 8 for L, V's from 2
    array([66, 67, 68, 69, 70, 71])"""
    W, _ = definition.unflatten(np.arange(model.theta.size), model.layer_sizes)[-1]
    return W[-1, model.potential_units]


def residual_and_design(model, theta, batch):
    """(r (B, n), A (B, n, K)): the batch's loss residual tau inv_scale - target at theta, and its derivative in the
    readout, so that the residual at readout w + dw is r + A dw (float64).

    >>> from lesson_lib import DeLaN, double_pendulum, sample_uniform
    >>> model = DeLaN(seed=0)
    >>> batch = model.training_batch(sample_uniform(double_pendulum(), 8))
    >>> r, A = residual_and_design(model, model.theta, batch)
    >>> r.shape, A.shape                                          # 8 states, 2 joints, V's 42 units
    ((8, 2), (8, 2, 42))"""
    q, qd, qdd, target, inv_scale = (np.asarray(x, dtype=float) for x in batch)
    arch = model.architecture
    dh = fast.hidden_jet(theta, arch, q)[1:, :, model.potential_units]            # (n, B, K)
    A = arch.potential_scale * dh.transpose(1, 0, 2) * inv_scale[:, :, None]
    tau = quadratic.jet_torque(arch, model._output_jet(q, theta=theta), qd, qdd)
    return tau * inv_scale - target, A


def damped_steps(gram, projected):
    """The steps (1 + len(RIDGE_PATH), K): no step, then dw(lam) = -(gram + lam s I)^-1 projected for each lam of
    RIDGE_PATH, from one eigendecomposition (gram = A^T A (K, K), projected = A^T r (K,), s = mean of diag(gram); no
    step at all when s is 0).

    >>> damped_steps(np.eye(2), np.array([1.0, -2.0]))[[0, 1, -1]]     # gram = I, s = 1: dw = -projected / (1 + lam)
    array([[ 0. ,  0. ],
           [-0.5,  1. ],
           [-1. ,  2. ]])"""
    steps = np.zeros((1 + len(RIDGE_PATH), len(gram)))
    scale = np.trace(gram) / len(gram)
    if not scale > 0:
        return steps
    values, vectors = np.linalg.eigh(gram)
    values, rotated = np.maximum(values, 0.0), vectors.T @ projected
    for k, lam in enumerate(RIDGE_PATH, start=1):
        steps[k] = -vectors @ (rotated / (values + lam * scale))
    return steps


def normal_equations(A, r):
    """(A^T A (K, K), A^T r (K,)) of the least-squares problem r + A dw (A (B, n, K), r (B, n)).

    >>> normal_equations(np.ones((3, 1, 2)), np.ones((3, 1)))
    (array([[3., 3.],
           [3., 3.]]), array([3., 3.]))"""
    A = A.reshape(-1, A.shape[-1])
    return A.T @ A, A.T @ r.ravel()


def cross_validated(A, r, folds=FOLDS):
    """The row of damped_steps whose damping gives the least squared residual summed over `folds` stretches of
    consecutive samples, each predicted by the steps solved on the others (A (B, n, K), r (B, n)).

    >>> rng = np.random.default_rng(0)
    >>> A = rng.standard_normal((50, 1, 3))
    >>> cross_validated(A, -A @ np.array([1.0, 2.0, 3.0]))         # exact data: the least damping
    11
    >>> noise = rng.standard_normal((60, 2, 40))                    # 40 readout weights, residuals of pure noise:
    >>> cross_validated(noise, rng.standard_normal((60, 2)))        # no step
    0"""
    held_out = np.array_split(np.arange(len(r)), folds)
    parts = [normal_equations(A[i], r[i]) for i in held_out]
    total = np.zeros(1 + len(RIDGE_PATH))
    for k, i in enumerate(held_out):
        others = [p for j, p in enumerate(parts) if j != k]
        steps = damped_steps(sum(g for g, _ in others), sum(b for _, b in others))
        total += np.sum((r[i].reshape(-1, 1) + A[i].reshape(-1, A.shape[-1]) @ steps.T) ** 2, axis=0)
    return int(np.argmin(np.nan_to_num(total, nan=np.inf)))


def solved(model, theta, rows, validation_set):
    """theta with V's readout moved by the cross-validated damped step on the training samples `rows` (5n, N),
    if that lowers the loss on the validation batch; else theta itself.

    >>> from lesson_lib import DeLaN, double_pendulum, sample_uniform
    >>> model, chain = DeLaN(seed=0), double_pendulum()
    >>> rows = np.concatenate([x.T for x in model.training_batch(sample_uniform(chain, 256))])
    >>> held = model.training_batch(sample_uniform(chain, 64, seed=1))
    >>> bool(model.batch_loss(solved(model, model.theta, rows, held), held) < model.batch_loss(model.theta, held))
    True"""
    rows = rows[:, ::math.ceil(rows.shape[1] / SOLVE_SAMPLES)]
    r, A = residual_and_design(model, theta, training_data.batch(rows, model.n_dof))
    if len(r) < FOLDS or not (np.isfinite(r).all() and np.isfinite(A).all() and np.any(A)):
        return theta                                    # too few samples, a diverged model or V's units flat
    choice = cross_validated(A, r)
    if choice == 0:
        return theta
    step = damped_steps(*normal_equations(A, r))[choice]
    rv, Av = residual_and_design(model, theta, validation_set)
    if not np.mean((rv + Av @ step) ** 2) < np.mean(rv ** 2):
        return theta
    out = theta.copy()
    out[readout_index(model)] += step
    return out
