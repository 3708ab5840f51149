"""Training shared by the DeLaN and the black box: parameters, Adam with kept state, divergence guard.

A model subclass provides `_init_theta(rng)` (all weights as one flat vector theta) and `_loss(theta, batch)`,
an autograd-differentiable scalar.  `fit` continues from the current parameters and optimiser state, so calling
it again (pressing "Train" again) carries on rather than restarting.
"""
import json
import math

import numpy as np
from autograd import value_and_grad

from ._runtime import keep_freed_memory, single_blas_thread
from .._validate import as_states, positive_number


class TrainingDiverged(RuntimeError):
    """Raised when a training step produced a non-finite or exploding loss; the last good state is kept."""


def init_mlp(rng, sizes, out_scale=1.0):
    """Flat weight vector (layout of lesson_lib.model.jet.unflatten) of an MLP with these layer sizes:
    W ~ N(0, 1/fan_in), the last layer scaled by out_scale, biases zero."""
    parts = []
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        scale = (out_scale if i == len(sizes) - 2 else 1.0) / np.sqrt(fan_in)
        parts += [rng.normal(0.0, scale, fan_out * fan_in), np.zeros(fan_out)]
    return np.concatenate(parts)


class Trainable:
    """Weights as one flat vector theta, trained by Adam on minibatches of inverse-dynamics samples.

    Training steps compute in `train_dtype`, float32 like PyTorch's default (twice as fast on large layers
    as float64, and precise far beyond the lesson's tolerance); the weights, the optimiser state and every
    prediction stay float64.
    """

    train_dtype = np.float32

    def __init__(self, n_dof, seed, lr, batch_size):
        self.n_dof = int(n_dof)
        self.seed = int(seed)
        self.lr = positive_number("lr", lr)
        self.batch_size = int(batch_size)
        self.reset()

    # ------------------------------------------------------------------ state
    def reset(self):
        """Re-initialise the weights and the optimiser from the seed (the untrained model)."""
        rng = np.random.default_rng(self.seed)
        self.theta = self._init_theta(rng)
        self._m, self._v = np.zeros_like(self.theta), np.zeros_like(self.theta)
        self.step = 0
        self.loss_history = []
        self.tau_scale = np.ones(self.n_dof)
        self._batch_rng = np.random.default_rng([self.seed, 1])

    def get_params(self):
        """The weights as one flat vector (a copy)."""
        return self.theta.copy()

    def set_params(self, flat):
        """Set the weights from a flat vector of the length get_params() returns."""
        flat = np.asarray(flat, dtype=float)
        n = self.theta.size
        if flat.shape != (n,):
            raise ValueError(f"params must be a flat vector of {n} numbers, got shape {flat.shape}")
        if not np.all(np.isfinite(flat)):
            raise ValueError("params contain NaN or inf")
        self.theta = flat.copy()

    def _state(self):
        return {"params": self.get_params(), "m": self._m.copy(), "v": self._v.copy(), "step": self.step,
                "tau_scale": self.tau_scale, "loss_history": np.array(self.loss_history),
                "batch_rng": np.array(json.dumps(self._batch_rng.bit_generator.state))}

    def _set_state(self, state):
        self.set_params(state["params"])
        self._m, self._v = np.array(state["m"]), np.array(state["v"])
        self.step, self.tau_scale = int(state["step"]), np.array(state["tau_scale"])
        self.loss_history = list(np.asarray(state["loss_history"]))
        self._batch_rng.bit_generator.state = json.loads(str(state["batch_rng"]))

    def save(self, path):
        """Save weights, optimiser state and step count to an .npz file."""
        np.savez(path, **self._state())

    def load(self, path):
        """Load what save() wrote; the architecture (n_dof, hidden sizes) must match."""
        with np.load(path) as f:
            self._set_state({k: f[k] for k in f.files})
        return self

    def _on_first_fit(self, q, qd, qdd, tau):
        """Hook for data-dependent scales set once, before the first step."""

    # ------------------------------------------------------------------ training
    def fit(self, q, qd, qdd, tau, steps=2000, callback=None, every=250):
        """Run `steps` more Adam steps on minibatches of (q, qd, qdd, tau), each (N, n).

        callback(model) is called every `every` steps (for live plots).  Returns the list of losses.
        Raises TrainingDiverged (with the last good parameters restored) if a loss is non-finite or explodes.
        """
        keep_freed_memory()
        with single_blas_thread():
            return self._fit(q, qd, qdd, tau, steps, callback, every)

    def _fit(self, q, qd, qdd, tau, steps, callback, every):
        (q, qd, qdd, tau), _ = as_states(self.n_dof, q=q, qd=qd, qdd=qdd, tau=tau)
        steps = int(steps)
        if steps < 0:
            raise ValueError(f"steps must be >= 0, got {steps}")
        if self.step == 0:
            self.tau_scale = np.maximum(tau.std(axis=0), 1e-8)
            self._on_first_fit(q, qd, qdd, tau)
        good = self._state()
        loss_and_grad = value_and_grad(self._loss)
        b1, b2, eps = 0.9, 0.999, 1e-8
        flat, m, v = self.theta, self._m, self._v
        n, N, B = self.n_dof, len(q), min(self.batch_size, len(q))
        # the samples as rows (4n, N): one gather per step, and each batch's q.T, qd.T, ... are contiguous
        samples = np.ascontiguousarray(np.concatenate([q, qd, qdd, tau / self.tau_scale], axis=1).T,
                                       dtype=self.train_dtype)
        losses, ref = [], None
        for _ in range(steps):
            cols = samples[:, self._batch_rng.integers(0, N, B)]
            loss, g = loss_and_grad(flat, (cols[:n].T, cols[n:2 * n].T, cols[2 * n:3 * n].T, cols[3 * n:].T))
            loss = float(loss)
            ref = loss if ref is None else ref
            if not (math.isfinite(loss) and math.isfinite(g @ g)) or loss > 1e3 * max(ref, 1e-3):
                self._diverged(good, loss, ref)
            # Adam (Kingma & Ba), as autograd.misc.optimizers.adam, with its moments kept between calls:
            # theta -= lr * mhat / (sqrt(vhat) + eps) with mhat = m / (1 - b1^t), vhat = v / (1 - b2^t), here
            # with the bias corrections folded into two scalars (the same step, fewer passes over theta).
            # Each step is at most a few times lr per weight when g is finite, so theta stays finite.
            self.step += 1
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            c1, c2 = 1 - b1 ** self.step, math.sqrt(1 - b2 ** self.step)
            step = np.sqrt(v)
            step += eps * c2
            np.divide(m, step, out=step)
            step *= self.lr * c2 / c1
            flat = flat - step
            self.theta = flat
            losses.append(loss)
            if callback is not None and self.step % every == 0:
                callback(self)
        self.loss_history.extend(losses)
        return losses

    def _diverged(self, good, loss, ref):
        bad_step = self.step + 1
        self._set_state(good)
        raise TrainingDiverged(
            f"training diverged at step {bad_step}: the loss went from {ref:.3g} to {loss:.3g} with learning "
            f"rate lr={self.lr:g}. The model was put back to its last good state (step {self.step}, before this "
            f"call). Use a smaller learning rate, e.g. model.lr = {min(self.lr / 10, 3e-3):g}, and train again.")
