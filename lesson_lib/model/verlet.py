"""Training a DeLaN from recorded positions through Störmer–Verlet: no measured, nor differentiated, q̈.

A robot records q_k at a fixed step h, with noise (lesson_lib.data.sensors.record).  Differencing twice amplifies
the noise by 1/h² and a smoothing filter biases q̈ (sensors.estimate).  Here the *model's* accelerations
a_k = M(q_k)⁻¹ (tau_k - c(q_k, qd_k) - g(q_k)) (definition.forward_dynamics) are integrated instead, by the position
form of Störmer–Verlet, q_{k+1} - 2 q_k + q_{k-1} = h² a_k (time-symmetric and second order; for a constant M
the variational integrator of the trapezoidal discrete Lagrangian).  Applied i times around q_k it telescopes:

    q_{k+i} - 2 q_k + q_{k-i} = h² sum_{j=-i+1}^{i-1} (i - |j|) a_{k+j}

so the positions `span` samples either side of q_k say what the model's accelerations must add up to.  The loss,
in rad/s² (both sides divided by (span h)²), scaled per joint by the spread of q̈:

    r_k  = (q_{k+s} - 2 q_k + q_{k-s}) / (s h)²  -  sum_j (s - |j|) / s² a_{k+j}          (s = span in samples)
    loss = mean over k and the joints of (r_k / qdd_scale)²

The measured noise enters r_k as sqrt(6) sigma / (s h)² (0.1 rad/s² for sigma = 1e-4 rad, s h = 0.05 s), on the
side of the equation the model does not touch, so it adds variance but no bias; the triangular average acts on the
model's accelerations exactly as the integrator does, so it adds no smoothing bias either.  The accelerations need
q̇ at each sample (in c): the Savitzky–Golay estimate (first derivative: little noise) of sensors.estimate.

    model = DeLaN(seed=0)
    model.fit(estimate(rec), steps=6000)            # warm start: Savitzky–Golay q̈ and inverse dynamics (fast)
    fit_verlet(model, rec, steps=1000)              # then through the integrator

Batches are `chunks` runs of `chunk` consecutive samples of one trajectory (the accelerations are computed once
per run and shared by every window inside it); autograd differentiates definition.forward_dynamics, the solve and the
triangular sums.  The network's jet inside it is the fast path's fused one (fast.fused.network_jet, the same numbers
as definition.network_jet, tests/test_definition.py): the rest is the definition.
benchmarks/bench_sensors.py compares it with the filters.
"""
import math

import autograd.numpy as anp
import numpy as np
from autograd import value_and_grad

from .._validate import described, integer, positive_number
from ..data.sensors import estimate
from . import definition
from .fast.fused import network_jet
from .optimizers import Adam
from .training import TrainingDiverged


def verlet_weights(span, chunk):
    """K (chunk - 2 span, chunk): row r gives the weights (span - |j|) / span² on a_{r + span + j}, so that
    K @ a is each window's model side of the telescoped Störmer–Verlet equation (module docstring), in rad/s²."""
    j = np.arange(chunk)[None, :] - np.arange(span, chunk - span)[:, None]
    return np.maximum(span - np.abs(j), 0) / span**2


def position_second_differences(q, span, h):
    """(q_{k+s} - 2 q_k + q_{k-s}) / (s h)² for every centre k with s = span samples either side: q (..., T, n)
    gives (..., T - 2 span, n), in rad/s²."""
    return (q[..., 2 * span:, :] - 2 * q[..., span:-span, :] + q[..., :-2 * span, :]) / (span * h) ** 2


def verlet_loss(theta, arch, batch):
    """The loss of the module docstring on one batch (q_meas, q, qd, tau, K, h, span, qdd_scale): q_meas the
    recorded positions (C, T, n); q, qd, tau (C * T, n) the states and torques where the model's accelerations are
    evaluated; K = verlet_weights(span, T)."""
    q_meas, q, qd, tau, K, h, span, qdd_scale = batch
    learned = definition.learned_jet(theta, arch, q, network_jet)  # pragma: no mutate (plain jet: same a)
    a = definition.forward_dynamics(arch, *learned, qd, tau).reshape(q_meas.shape)
    r = position_second_differences(q_meas, span, h) - anp.einsum("cj,bjn->bcn", K, a)
    return anp.mean((r / qdd_scale) ** 2)


def _runs(recording, chunk):
    """Start rows of the runs of `chunk` consecutive samples inside one trajectory (half-overlapping), and h."""
    t, traj = np.asarray(recording["t"]), np.asarray(recording["traj"])
    starts, steps = [], []
    for k in np.unique(traj):
        rows = np.flatnonzero(traj == k)
        if len(rows) >= chunk:
            starts += range(rows[0], rows[-1] - chunk + 2, chunk // 2)          # chunk >= 8: a step of >= 4
            steps.append(np.diff(t[rows]).mean())
    if not starts:
        raise ValueError(f"no trajectory of the recording has {chunk} samples: use a shorter chunk (or span), or "
                         f"record longer motions")
    return np.array(starts), float(np.mean(steps))


def fit_verlet(model, recording, steps=1000, span=0.05, chunk=128, chunks=4, lr=1e-3, seed=0, window=0.1):
    """Train `model` (a DeLaN) from `recording` (sensors.record: q, tau, t, traj) through Störmer–Verlet (see the
    module) for `steps` Adam steps of `chunks` runs of `chunk` samples, the rate falling from lr to 0 along a
    half cosine (a constant rate lets the noisy batches undo the progress); span: seconds either side of each centre
    (made a whole number of samples); window: the Savitzky–Golay window that gives q̇ (sensors.estimate).
    Returns the losses.  On a non-finite loss or gradient it raises TrainingDiverged and keeps the weights it had."""
    from .delan import DeLaN
    if not isinstance(model, DeLaN):
        raise TypeError(f"model must be a DeLaN (its mass matrix and potential are what the integrator uses), got "
                        f"{described(model)}")
    steps = integer("steps", steps, low=1)
    chunk, chunks = integer("chunk", chunk, low=8), integer("chunks", chunks, low=1)
    lr = positive_number("lr", lr, hint="e.g. lr=1e-3 (the warm-started model needs small steps)")
    states = estimate(recording, window=window)            # checks the recording (its keys and steps); q̇ from S-G
    if states["q"].shape[1] != model.n_dof:
        raise ValueError(f"the recording has {states['q'].shape[1]} joints, the model {model.n_dof} (DeLaN(n_dof=...))")
    q_meas = np.asarray(recording["q"], dtype=float)
    starts, h = _runs(recording, chunk)
    s = max(1, int(round(positive_number("span", span, hint="seconds, e.g. span=0.05") / h)))
    if 2 * s >= chunk:
        raise ValueError(f"span={span} s is {s} samples either side, too long for chunk={chunk} samples: use a "
                         f"chunk above {2 * s} or a shorter span")
    K = verlet_weights(s, chunk)
    qdd_scale = np.std(states["qdd"], axis=0) + 1e-12
    rng = np.random.default_rng(integer("seed", seed, low=0))
    picks = [rng.choice(len(starts), min(chunks, len(starts)), replace=False) for _ in range(steps)]

    def batch(i):
        rows = (starts[picks[i]][:, None] + np.arange(chunk)).ravel()
        return (q_meas[rows].reshape(len(picks[i]), chunk, model.n_dof), states["q"][rows], states["qd"][rows],
                states["tau"][rows], K, h, s, qdd_scale)

    loss_and_grad = value_and_grad(lambda theta, i: verlet_loss(theta, model.architecture, batch(i)))
    theta, losses = model.get_params(), []
    adam = Adam(lr=lr)
    adam.set_state(adam.initial_state(theta.size))
    for i in range(steps):
        value, g = loss_and_grad(theta, i)
        if not (np.isfinite(value) and np.all(np.isfinite(g))):
            raise TrainingDiverged(f"the Störmer–Verlet loss became non-finite at step {i} (lr={lr:g}): the "
                                   f"weights are as before fit_verlet; try a smaller lr, e.g. lr={lr / 10:g}")
        losses.append(float(value))
        adam.lr = lr * max(0.5 * (1 + math.cos(math.pi * i / steps)), 1e-3)
        theta = adam.step(theta, g)
    model.set_params(theta)
    return losses
