"""Training a DeLaN from recorded positions through Störmer–Verlet: no measured, nor differentiated, q̈.

Differencing noisy positions twice amplifies the noise by 1/h² and smoothing biases q̈ (sensors.estimate).  Here
the model's accelerations a_k = M(q_k)⁻¹ (tau_k - c - g) (definition.forward_dynamics) are integrated instead:
Störmer–Verlet, q_{k+1} - 2 q_k + q_{k-1} = h² a_k, applied s times around q_k telescopes to

    r_k  = (q_{k+s} - 2 q_k + q_{k-s}) / (s h)²  -  sum_{|j|<s} (s - |j|) / s² a_{k+j}     (rad/s²)
    loss = mean over k and the joints of (r_k / qdd_scale)²

The noise sits on the side the model does not touch (variance, no bias), and the triangular sum is the
integrator's own (no smoothing bias).  q̇ in c is the Savitzky–Golay estimate of sensors.estimate.

    model.fit(estimate(rec), steps=6000)            # warm start on Savitzky–Golay q̈
    fit_verlet(model, rec, steps=1000)              # then through the integrator

A batch is `chunks` runs of `chunk` consecutive samples of one trajectory; L, dL and g are the model's
(DeLaN.learned_jet: the network's jet as one autograd node), the rest is the definition under autograd.
benchmarks/bench_sensors.py compares it with the filters."""
import math

import autograd.numpy as anp
import numpy as np
from autograd import value_and_grad

from ..data.sensors import estimate
from ..validate import described, integer, positive_number
from . import definition
from .adam import Adam
from .delan import DeLaN
from .training import TrainingDiverged, single_blas_thread


def verlet_weights(span, chunk):
    """K (chunk - 2 span, chunk): row r holds (span - |j|) / span² at column r + span + j, so K @ a is
    each window's model side, in rad/s².

    >>> verlet_weights(1, 4)                          # span 1: the model's a at the centre alone, weight 1
    array([[0., 1., 0., 0.],
           [0., 0., 1., 0.]])"""
    j = np.arange(chunk)[None, :] - np.arange(span, chunk - span)[:, None]
    return np.maximum(span - np.abs(j), 0) / span**2


def position_second_differences(q, span, h):
    """(q_{k+s} - 2 q_k + q_{k-s}) / (s h)² for every centre k, s = span: q (..., T, n) ->
    (..., T - 2 span, n), in rad/s².

    >>> t = np.arange(5.0)[:, None] * 0.1                          # q = t^2: the second derivative 2 everywhere
    >>> position_second_differences(t ** 2, span=1, h=0.1).round(6).ravel()
    array([2., 2., 2.])"""
    return (q[..., 2 * span:, :] - 2 * q[..., span:-span, :] + q[..., :-2 * span, :]) / (span * h) ** 2


def verlet_loss(theta, model, batch):
    """The module's loss at the weights theta of `model` (a DeLaN) on one batch: q_meas (C, T, n) the recorded
    positions; q, qd, tau (C T, n) where the accelerations are evaluated; K = verlet_weights(span, T).

    >>> from lesson_lib.data import estimate, record, write_word
    >>> rec, model = record(write_word("o").sample(dt=0.005), sigma=0.0), DeLaN(seed=0)
    >>> states, K = estimate(rec), verlet_weights(2, 8)
    >>> batch = (rec["q"][None, :8], states["q"][:8], states["qd"][:8], states["tau"][:8], K, 0.005, 2, np.ones(2))
    >>> bool(verlet_loss(model.get_params(), model, batch) > 0)
    True"""
    q_meas, q, qd, tau, K, h, span, qdd_scale = batch
    L, dL, g = model.learned_jet(theta, q)
    a = definition.forward_dynamics(model.architecture, L, dL, g, qd, tau).reshape(q_meas.shape)
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
    """Train a DeLaN from `recording` (sensors.record) through Störmer–Verlet for `steps` Adam steps of
    `chunks` runs of `chunk` samples, lr falling to 0 along a half cosine; span in seconds either side of each
    centre; window: the Savitzky–Golay window for q̇.  Returns the losses; raises TrainingDiverged on a non-finite
    loss or gradient, keeping the weights it had.

    >>> from lesson_lib.data import record, write_word
    >>> rec = record(write_word("o").sample(dt=0.005), sigma=1e-4)
    >>> losses = fit_verlet(DeLaN(seed=0), rec, steps=3, chunk=16, chunks=1, span=0.01)
    >>> len(losses)
    3"""
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

    loss_and_grad = value_and_grad(lambda theta, i: verlet_loss(theta, model, batch(i)))
    theta, losses = model.get_params(), []
    adam = Adam(lr, theta.size)
    with single_blas_thread():              # small products: BLAS threads only wait for each other, and on a
        for i in range(steps):              # busy machine for the other processes too (benchmarks/bench_load.py)
            value, g = loss_and_grad(theta, i)
            if not (np.isfinite(value) and np.all(np.isfinite(g))):
                raise TrainingDiverged(f"the Störmer–Verlet loss became non-finite at step {i} (lr={lr:g}): the "
                                       f"weights are as before fit_verlet; try a smaller lr, e.g. lr={lr / 10:g}")
            losses.append(float(value))
            adam.lr = lr * max(0.5 * (1 + math.cos(math.pi * i / steps)), 1e-3)
            theta = adam.step(theta, g * model.trainable_mask)  # only the weights the model trains
    model.set_params(theta)
    return losses
