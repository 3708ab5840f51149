"""Training shared by the DeLaN and the black box: weights, state, Adam, the schedule, the divergence guard.

A model is a Trainable that provides three methods, its public seam: `layer_sizes()`, `initial_weights(rng)` (the
flat weights theta) and `batch_loss(theta, batch)`, an autograd-differentiable scalar on a batch (q, qd, qdd,
target, inv_scale), each (B, n); `batch_loss_and_grad` may compute both faster (lesson_lib.model.diagonal is the
smallest example).  One step of `fit`:

    rows    = a minibatch of the training samples          target = tau inv_scale, inv_scale = sqrt(w) / tau_scale
    loss, g = model.batch_loss_and_grad(theta, batch)      (DeLaN: lesson_lib.model.fast.loss_and_grad)
    theta   = Adam(theta, g)                               a loss that explodes or is not finite undoes the call

`fit` continues from the current weights and Adam's moments: pressing "Train" again carries on.  It holds out a
validation split (whole trajectories when known), lowers the learning rate on plateaus and spikes (Schedule) and
ends with the best weights it saw; the last weights stay the resume point of the next call (`resumes`).

`fit`, `load`, `set_params` and `reset` are transactions: they complete or leave the model exactly as it was,
also when interrupted or when a callback raises."""
import contextlib
import copy
import functools
import math
from collections.abc import Mapping

import numpy as np
from autograd import value_and_grad
from autograd.tracer import getval
from threadpoolctl import ThreadpoolController

from ..facts import LR, POTENTIAL_SCALE, VALIDATION
from ..limits import MAX_BATCH_SIZE, MAX_N_DOF, MAX_STEPS_PER_CALL, MAX_WEIGHTS, max_states
from ..validate import (
    as_data,
    as_states,
    as_vector,
    boolean,
    described,
    integer,
    layer_widths,
    number,
    positive_number,
    trajectory_ids,
    within_limit,
)
from . import model_file
from .definition import check_activation, n_weights

BATCH = ("q", "qd", "qdd", "target", "inv_scale")   # the loss's batch, each (B, n)
VALIDATE_EVERY = 100     # steps between validation evaluations (more for large validation sets, see below)


@functools.cache
def _blas():
    """threadpoolctl's view of the BLAS libraries loaded with numpy, found once, at the first training call."""
    return ThreadpoolController()


def single_blas_thread():
    """A context manager: the body runs with BLAS limited to one thread (a step's products are small, and on 2
    cores OpenBLAS's threads cost more in hand-over than they save); the previous count is put back after."""
    return _blas().limit(limits=1, user_api="blas")


# ---------------------------------------------------------------------- Adam
class Adam:
    """Adam (Kingma & Ba), as autograd.misc.optimizers.adam, its moments kept between calls:

        m = b1 m + (1 - b1) g,   v = b2 v + (1 - b2) g^2,
        theta -= lr * mhat / (sqrt(vhat) + eps)   with mhat = m / (1 - b1^t), vhat = v / (1 - b2^t)

    (the bias corrections folded into two scalars).  `lr` is settable at any time; state() / set_state() export
    and restore the moments (save/load, undoing a failed fit)."""

    b1, b2, eps = 0.9, 0.999, 1e-8
    config = {"name": "adam", "b1": 0.9, "b2": 0.999, "eps": 1e-8}      # what a saved file records

    def __init__(self, lr):
        self.lr = lr
        self.m, self.v, self.t = np.zeros(0), np.zeros(0), 0

    @property
    def lr(self):
        """The learning rate: a finite number > 0."""
        return self._lr

    @lr.setter
    def lr(self, value):
        self._lr = positive_number("lr", value, hint="e.g. model.lr = 0.003")

    def initial_state(self, n):
        return {"m": np.zeros(n), "v": np.zeros(n), "t": 0, "lr": self.lr}

    def step(self, theta, g):
        """One update: the new theta (float64) from theta and the gradient g (both (n,))."""
        b1, b2, m, v = self.b1, self.b2, self.m, self.v
        self.t += 1
        m *= b1
        m += (1 - b1) * g
        v *= b2
        v += (1 - b2) * g * g
        c1, c2 = 1 - b1 ** self.t, math.sqrt(1 - b2 ** self.t)
        step = np.sqrt(v)
        step += self.eps * c2
        np.divide(m, step, out=step)
        step *= self.lr * c2 / c1
        return theta - step

    def state(self):
        return {"m": self.m.copy(), "v": self.v.copy(), "t": self.t, "lr": self.lr}

    def set_state(self, state):
        self.m, self.v = np.array(state["m"], dtype=float), np.array(state["v"], dtype=float)
        self.t, self.lr = int(state["t"]), float(state["lr"])


# ---------------------------------------------------------------------- the learning-rate schedule
# Every validation, Schedule.update(v, best) answers (keep, change): keep when v < best (new best weights, which
# fit keeps with Adam's state); "spike" when v > SPIKE x best or not finite (fit goes back to the best weights,
# rate x FACTOR); "plateau" after PATIENCE evaluations without a loss THRESHOLD (relative) below the best (rate x
# FACTOR); None otherwise.  The rate stays >= base_lr x MIN_FACTOR, base_lr the user's rate (reset() returns to
# it).  Like PyTorch's ReduceLROnPlateau, but a spike also goes back to the best weights; the state is saved with
# the model.  benchmarks/bench_trajectories.py measures the settings.
PATIENCE = 10        # evaluations without progress before the rate is lowered (1,000 steps at 100 per evaluation)
THRESHOLD = 0.02     # progress: a validation loss at least 2 % below the best
FACTOR = 0.5         # the rate is multiplied by this on a plateau or a spike
SPIKE = 10.0         # a validation loss above SPIKE x the best is a spike (3 halved the rate on the ordinary
                     # ups and downs of the validation loss along fast trajectories: bench_trajectories.py)
MIN_FACTOR = 1 / 64  # the rate stays >= base_lr x MIN_FACTOR (six halvings)


class Schedule:
    """Plateau-and-spike schedule state: base_lr (the user's rate) and since (evaluations without progress)."""

    def __init__(self, base_lr):
        self.base_lr, self.since = float(base_lr), 0

    def initial_state(self):
        return {"base_lr": self.base_lr, "since": 0}

    def state(self):
        return {"base_lr": self.base_lr, "since": self.since}

    def set_state(self, state):
        self.base_lr, self.since = float(state["base_lr"]), int(state["since"])

    def update(self, v, best):
        """(keep, change) after the validation loss v, given the call's best: keep says whether v is a
        new best, change is "spike", "plateau" or None."""
        if not math.isfinite(v) or v > SPIKE * best:
            self.since = 0
            return False, "spike"
        self.since = 0 if v < best * (1 - THRESHOLD) else self.since + 1
        if self.since >= PATIENCE:
            self.since = 0
            return v < best, "plateau"
        return v < best, None

    def lowered(self, lr):
        """The rate after a plateau or a spike: lr x FACTOR, but not below base_lr x MIN_FACTOR."""
        return min(lr, max(lr * FACTOR, self.base_lr * MIN_FACTOR))


# ---------------------------------------------------------------------- the validation split
# The samples fit holds out to judge the weights, never to train on: with "traj" (one trajectory id per sample)
# whole trajectories, taken in a seeded order until they hold `fraction` of the samples (neighbours in time are
# nearly the same state); without it, single samples.  fraction 0 holds out nothing; otherwise at least one sample
# (trajectory) is held out and one left to train on.  The same arguments give the same rows, sorted int arrays,
# from their own generator (seed, stream 2):  split(10, fraction=0.2, seed=0)[1] is array([3, 7]).
def check_fraction(fraction):
    """The validation fraction as a float in [0, 0.5] (the validation set must stay the smaller part)."""
    return number("validation", fraction, low=0.0, high=0.5,
                  hint="the fraction of the samples held out to judge the weights, e.g. validation=0.05, or 0 for "
                       "none")


def split(n_samples, traj=None, fraction=0.05, seed=0):
    """(train_rows, validation_rows): sorted int arrays that partition range(n_samples); see the module's rules."""
    fraction = check_fraction(fraction)
    traj = None if traj is None else trajectory_ids("traj", traj, n_samples)
    everything, nothing = np.arange(n_samples), np.zeros(0, dtype=int)
    if fraction == 0:
        return everything, nothing
    rng = np.random.default_rng([seed, 2])
    if traj is None:
        if n_samples < 2:
            raise ValueError(f"a validation split needs at least 2 samples, got {n_samples}; use validation=0")
        count = min(max(1, round(fraction * n_samples)), n_samples - 1)
        held = np.sort(rng.permutation(n_samples)[:count])
        return np.setdiff1d(everything, held), held
    ids, sizes = np.unique(traj, return_counts=True)
    if len(ids) < 2:
        raise ValueError(f"a validation split by trajectory needs at least 2 trajectories, got {len(ids)} "
                         f"(traj is {ids[0] if len(ids) else 'empty'} throughout); record more trajectories, or "
                         f"use validation=0 to train on all samples without validation")
    order = rng.permutation(len(ids))
    taken = np.searchsorted(np.cumsum(sizes[order]), fraction * n_samples) + 1   # the prefix reaching fraction
    held_ids = ids[order[:min(taken, len(ids) - 1)]]
    mask = np.isin(traj, held_ids)
    return everything[~mask], everything[mask]


# ---------------------------------------------------------------------- what fit accepts, and each sample's weight
# Shapes, types, finiteness: validate.as_states.  At least 2 samples, and every joint's torque varies (the loss
# divides each joint's error by its torques' standard deviation).  Values a robot's data never reach (above
# DATA_LIMIT, in any unit) are refused with their units to check: the float32 step would overflow on them.
DATA_LIMIT = 1e6


def _refuse(text):
    raise ValueError(f"{text}.  The model was not changed.")


def check_training_data(n_dof, q, qd, qdd, tau, tau_scale=None):
    """(q, qd, qdd, tau) as float (N, n) arrays and the torque scale the loss divides by (the per-joint standard
    deviation, or the model's `tau_scale`), or ValueError saying what is wrong and the fix."""
    (q, qd, qdd, tau), _ = as_states(n_dof, q=q, qd=qd, qdd=qdd, tau=tau)
    N = len(q)
    if N < 2:
        _refuse(f"training needs at least 2 samples (rows of q, qd, qdd, tau), got {N}")
    for name, x, unit in (("q", q, "rad"), ("qd", qd, "rad/s"), ("qdd", qdd, "rad/s^2"), ("tau", tau, "N m")):
        j = int(np.abs(x).max(axis=0).argmax())
        if np.abs(x[:, j]).max() > DATA_LIMIT:
            _refuse(f"{name} reaches {np.abs(x[:, j]).max():.3g} {unit} (joint {j}), far beyond any robot's data "
                    f"(the float32 training step would overflow above about {DATA_LIMIT:g}): check the units of "
                    f"{name}")
    spread = tau.std(axis=0)
    for j in range(n_dof):
        if spread[j] <= 1e-12 * np.abs(tau[:, j]).max():
            _refuse(f"the torques of joint {j} do not vary (tau[:, {j}] is {tau[0, j]:g} in all {N} samples): these "
                    f"data cannot teach the model how that torque depends on the state (the loss divides each "
                    f"joint's error by its torques' standard deviation); use samples from varied motions")
    return q, qd, qdd, tau, spread if tau_scale is None else np.asarray(tau_scale, dtype=float)


def sample_weights(qd, qdd, scale=POTENTIAL_SCALE):
    """Each sample's weight in the training loss, (N,), mean 1:

        w_i  proportional to  1 / (1 + (|qdd_i| / scale)^2 + (|qd_i|^2 / scale)^2),   scale = POTENTIAL_SCALE 1/s^2.

    A model off by a relative amount makes a torque error that grows like |qdd| (M qdd) and |qd|^2 (c): dividing
    by the expected size asks for the same relative accuracy everywhere, not just on the fastest samples.
    Validation uses no weights; benchmarks/bench_trajectories.py measures the effect."""
    speed2, accel = np.sum(qd * qd, axis=1), np.sqrt(np.sum(qdd * qdd, axis=1))
    w = np.reciprocal(1.0 + (accel / scale) ** 2 + (speed2 / scale) ** 2)
    return w / w.mean()


def validation_interval(n_validation, batch_size):
    """Steps between validation evaluations: VALIDATE_EVERY, or more for a large validation set,
    so that evaluating it costs at most about 3 % of the training time."""
    return max(VALIDATE_EVERY, 10 * math.ceil(n_validation / batch_size))


class TrainingDiverged(RuntimeError):
    """A training step gave a non-finite or exploding loss; the model is as it was before the call."""


def init_mlp(rng, sizes, out_scale=1.0):
    """Flat weights (definition.unflatten's layout) of an MLP with these layer sizes: W ~ N(0, 1/fan_in),
    the last layer times out_scale, biases zero."""
    parts = []
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        scale = (out_scale if i == len(sizes) - 2 else 1.0) / np.sqrt(fan_in)
        parts += [rng.normal(0.0, scale, fan_out * fan_in), np.zeros(fan_out)]
    return np.concatenate(parts)


def _minibatch_rows(rng, N, B, steps, chunk=256):
    """The rows (B,) of each of `steps` minibatches, uniform over N, drawn `chunk` steps per call
    (the same numbers as one draw per step)."""
    for start in range(0, steps, chunk):
        yield from rng.integers(0, N, (min(chunk, steps - start), B))


def _scales(model):
    """The model's scales for a message, e.g. "eps=0.001, potential_scale=20"."""
    return ", ".join(f"{k}={getattr(model, k):g}" for k in ("eps", "potential_scale") if hasattr(model, k)) or \
        "the torque scale comes from the data"


class DivergenceGuard:
    """Watches one fit call's losses against its first one: a non-finite loss or gradient, or a loss
    above 1000 x max(first, 1e-3), raises TrainingDiverged."""

    def __init__(self, model):
        self.model, self.start, self.ref = model, model.step, None

    def check(self, loss, g=None, final=False):
        finite = math.isfinite(loss) and (g is None or math.isfinite(g @ g))
        if self.ref is None and finite:
            self.ref = loss
        if finite and loss <= 1e3 * max(self.ref, 1e-3):
            return
        model = self.model
        if self.ref is None:
            raise TrainingDiverged(
                f"training cannot start: at the model's current weights the float32 loss or its gradient is not "
                f"finite (loss {loss:.3g}) before any update, so the learning rate is not the cause. The weights "
                f"(e.g. from set_params) are too large for these data, or the model's scales are ({_scales(model)}); "
                f"model.reset() starts again from the seed, the default scales are in lesson_lib.facts. "
                f"The model was not changed (step {self.start}).")
        where = f"after its last update (step {model.step})" if final else f"at step {model.step + 1}"
        suggestion = min(model.lr / 10, LR)
        advice = (f"Use a smaller learning rate, e.g. model.lr = {suggestion:g}, and train again." if suggestion > 0
                  else "The learning rate is already as small as a float allows: check the data and the weights.")
        raise TrainingDiverged(
            f"training diverged {where}: the loss went from {self.ref:.3g} to {loss:.3g} with learning rate "
            f"lr={model.lr:g}. The model was put back to its last good state (step {self.start}, before this "
            f"call). {advice}")


class BestWeights:
    """The best weights of one fit call and their optimiser state.  The first candidate is the weights
    the call started from, or none (loss inf) for an untrained model."""

    def __init__(self, model, loss):
        self.model = model
        self.keep(loss)

    def keep(self, loss):
        self.loss, self.pair = loss, _weights_and_moments(self.model)

    def restore(self):
        """Put the best weights and their optimiser state back, at the current learning rate."""
        _apply(self.model, self.pair)


def _weights_and_moments(model):
    """Copies of the model's weights and optimiser state."""
    return {"params": model.theta.copy(), "optimizer": model.optimizer.state()}


def _apply(model, pair):
    """Give the model these weights and this optimiser state, at the current learning rate."""
    lr = model.lr
    model.optimizer.set_state({**pair["optimizer"], "lr": lr})
    model.theta = np.array(pair["params"], dtype=float)


class Trainable:
    """Weights as one flat vector theta, trained by an optimiser on minibatches of inverse-dynamics samples.

    Steps compute in `train_dtype` (float32, like PyTorch's default); weights, optimiser state and predictions are
    float64."""

    train_dtype = np.float32
    architecture_fields = ("n_dof", "hidden", "activation")   # a saved file must match these (and the optimiser)

    def __init__(self, n_dof, hidden, seed, lr, batch_size, activation):
        self.n_dof = within_limit("n_dof", integer("n_dof", n_dof, low=1, hint="the number of joints, e.g. n_dof=2"),
                                  MAX_N_DOF)
        self.hidden = layer_widths("hidden", hidden)
        self.activation = check_activation(activation)
        self.seed = integer("seed", seed, low=0, hint="e.g. seed=0")
        self.sizes = self.layer_sizes()
        within_limit("the network's number of weights", n_weights(self.sizes), MAX_WEIGHTS,
                     fix="use fewer or narrower hidden layers")
        self.max_states = max_states(self.n_dof, self.sizes)
        self.batch_size = within_limit("batch_size", integer("batch_size", batch_size, low=1, hint="e.g. 128"),
                                       min(MAX_BATCH_SIZE, self.max_states), fix="train on smaller minibatches")
        self.optimizer = Adam(positive_number("lr", lr, hint="e.g. lr=0.003"))
        self.schedule = Schedule(self.optimizer.lr)
        self._batch_rng = np.random.default_rng([self.seed, 1])
        self._set_state(self._initial_state())

    # ------------------------------------------------------------------ settings
    @property
    def lr(self):
        """The current learning rate; settable between or during fits (the schedule starts from it, and
        reset() returns to it)."""
        return self.optimizer.lr

    @lr.setter
    def lr(self, value):
        self.optimizer.lr = value
        self.schedule.base_lr = self.optimizer.lr

    def config(self):
        """Class, architecture fields, optimiser (name and hyperparameters), seed and batch_size: what a
        saved file records."""
        return {"class": type(self).__name__, **{f: getattr(self, f) for f in self.architecture_fields},
                "optimizer": dict(Adam.config), "seed": self.seed, "batch_size": self.batch_size}

    def __repr__(self):
        return (f"{type(self).__name__}({model_file.arguments(self.config())}, seed={self.seed}, lr={self.lr:g}, "
                f"batch_size={self.batch_size}, step={self.step})")

    # ------------------------------------------------------------------ state
    def _initial_state(self):
        """The untrained model's state, from the seed, at the learning rate the user chose."""
        n = n_weights(self.sizes)
        return {"params": self.initial_weights(np.random.default_rng(self.seed)), "step": 0, "loss_history": [],
                "validation_history": np.zeros((0, 3)), "resume": None,
                "optimizer": {**self.optimizer.initial_state(n), "lr": self.schedule.base_lr},
                "schedule": self.schedule.initial_state(), "tau_scale": np.ones(self.n_dof),
                "batch_rng": np.random.default_rng([self.seed, 1]).bit_generator.state}

    def _state(self):
        """Copies of everything training changes: weights, step, histories, resume point, optimiser and
        schedule state, scales, the minibatch random state."""
        return {"params": self.theta.copy(), "step": self.step, "loss_history": list(self.loss_history),
                "validation_history": np.array(self.validation_history, dtype=float).reshape(-1, 3),
                "resume": copy.deepcopy(self._resume),
                "optimizer": self.optimizer.state(), "schedule": self.schedule.state(),
                "tau_scale": self.tau_scale.copy(), "batch_rng": self._batch_rng.bit_generator.state}

    def _set_state(self, state):
        """Put back a state from _state(), _initial_state() or a checked file."""
        self.theta = np.array(state["params"], dtype=float)
        self.step = int(state["step"])
        self.loss_history = [float(x) for x in state["loss_history"]]
        self.validation_history = [(int(s), float(v), float(lr)) for s, v, lr in state["validation_history"]]
        self._resume = copy.deepcopy(state["resume"])
        self.optimizer.set_state(state["optimizer"])
        self.schedule.set_state(state["schedule"])
        self.tau_scale = np.array(state["tau_scale"], dtype=float)
        self._batch_rng.bit_generator.state = state["batch_rng"]

    @contextlib.contextmanager
    def _transaction(self):
        """Run the body; if it raises anything (KeyboardInterrupt too), put the model back."""
        before = self._state()
        try:
            yield
        except BaseException:
            self._set_state(before)
            raise

    def reset(self):
        """The untrained model again, from the seed, at the learning rate the user chose.  A
        transaction."""
        state = self._initial_state()
        with self._transaction():
            self._set_state(state)

    def get_params(self):
        """The weights as one flat vector (a copy)."""
        return self.theta.copy()

    def set_params(self, flat):
        """Set the weights from a flat vector like get_params(); training goes on from them.
        Checked first: a wrong length, type or a NaN leaves the model as it was."""
        theta = as_vector("params", flat, self.theta.size, hint=" (like get_params())")
        with self._transaction():
            self.theta, self._resume = theta, None

    @property
    def resumes(self):
        """True when the next fit goes on from the previous call's last weights, which were worse on
        the validation samples than the best ones the model kept."""
        return self._resume is not None

    def save(self, path):
        """Write the model to `path` (".npz" added if missing, as np.savez does); returns the file name.
        Format: lesson_lib.model.model_file."""
        return model_file.save(self.config(), self._state(), path)

    def load(self, path):
        """Load what save() wrote and return the model (seed and batch_size stay this model's).  A file of
        another architecture is refused, naming each differing field.  A transaction: a missing, corrupt or foreign
        file leaves the model as it was."""
        state = model_file.read(self.config(), self._state(), path)
        with self._transaction():
            self._set_state(state)
        return self

    # ------------------------------------------------------------------ inputs of the public methods
    def checked_states(self, **arrays):
        """Checked state arrays, each (B, n), and whether they were single states; B within the limit."""
        checked, single = as_states(self.n_dof, **arrays)
        within_limit("the number of states in one call", len(checked[0]), self.max_states,
                     fix="evaluate the states in smaller chunks")
        return checked, single

    def _finite(self, what, values, **inputs):
        """values (an array or a tuple of arrays) if all finite; else ValueError naming the inputs'
        largest magnitudes (finite inputs that overflowed)."""
        arrays = values if isinstance(values, tuple) else (values,)
        if all(np.all(np.isfinite(a)) for a in arrays):
            return values
        sizes = ", ".join(f"|{k}| up to {np.max(np.abs(v), initial=0):.3g}" for k, v in inputs.items())
        raise ValueError(f"the model's {what} overflowed to inf or NaN for these inputs ({sizes}): states that large "
                         f"are far outside any robot's (the course's reach a few rad and tens of rad/s); check their "
                         f"units and scale")

    # ------------------------------------------------------------------ training
    def data_scales(self, q, qd, qdd, tau_scale):
        """The data-dependent scales set before the first step: {attribute: value}."""
        return {"tau_scale": tau_scale}

    def _data(self, q, qd, qdd, tau, traj):
        """fit's data as arrays (q, qd, qdd, tau, traj), from arrays or from one data dict as q."""
        if not isinstance(q, Mapping):
            return q, qd, qdd, tau, traj
        given = [name for name, x in (("qd", qd), ("qdd", qdd), ("tau", tau)) if x is not None]
        if given:
            raise TypeError(f"fit takes either one data dict (fit(data, steps=...)) or the arrays q, qd, qdd, tau, "
                            f"not both: {', '.join(given)} given beside a dict")
        data = as_data("data", q, self.n_dof, min_samples=0)
        return data["q"], data["qd"], data["qdd"], data["tau"], data.get("traj") if traj is None else traj

    def fit(self, q, qd=None, qdd=None, tau=None, steps=2000, callback=None, every=250, traj=None,
            validation=VALIDATION, restore_best=True):
        """Run `steps` more optimiser steps on minibatches; returns this call's losses.

        Data: q, qd, qdd, tau, each (N, n) with N >= 2, or one data dict, fit(data, steps=...); traj (N,) the
        trajectory of each sample (optional).  Checked once, before any step (model.training_data).
        validation: the fraction held out (0 for none), whole trajectories when traj is known; every
        `validation_interval` steps the loss on it decides the best weights and the learning rate
        (model.validation_history: (step, validation loss, lr)).
        restore_best: end with the best weights seen (else the last); the next call goes on from the last either way.
        callback(model) every `every` steps.  A transaction: on TrainingDiverged, a raising callback or
        KeyboardInterrupt the model is put back as it was, and the exception is raised."""
        steps = within_limit("steps", integer("steps", steps, low=0, hint="e.g. steps=2000"), MAX_STEPS_PER_CALL,
                             fix="call fit several times (it continues where it stopped)")
        if callback is not None and not callable(callback):
            raise TypeError(f"callback must be a function of the model (or None), got {described(callback)}")
        every = integer("every", every, low=1, hint="the number of steps between callbacks, e.g. every=250")
        restore_best = boolean("restore_best", restore_best)
        q, qd, qdd, tau, traj = self._data(q, qd, qdd, tau, traj)
        first = self.step == 0
        q, qd, qdd, tau, tau_scale = check_training_data(self.n_dof, q, qd, qdd, tau, None if first else self.tau_scale)
        train_rows, validation_rows = split(len(q), traj, validation, self.seed)
        # overflow in a diverging float32 step is reported by the guard, not by numpy's warnings
        with self._transaction(), single_blas_thread(), np.errstate(over="ignore", invalid="ignore"):
            if first:
                for name, value in self.data_scales(q, qd, qdd, tau_scale).items():
                    setattr(self, name, value)
            # the samples as rows (5n, N): one gather per step, and each batch's q.T, qd.T, ... are contiguous
            samples = self._samples(q, qd, qdd, tau, np.sqrt(sample_weights(qd, qdd)))
            validation_set = (self._batch(self._samples(*(x[validation_rows] for x in (q, qd, qdd, tau)), 1.0))
                              if len(validation_rows) else None)
            losses = self._train(samples[:, train_rows], validation_set, steps, callback, every, restore_best)
        if steps:
            self.after_fit(q, qdd)
        return losses

    def after_fit(self, q, qdd):
        """What a model checks after training on q, qdd (N, n): nothing here (DeLaN: a collapsed M)."""

    def training_batch(self, data):
        """fit's batch of a data dict, in float64 and whole: (q, qd, qdd, target, inv_scale),
        each (N, n), target = tau inv_scale, inv_scale = sqrt(w) / tau_scale (w: sample_weights)."""
        d = as_data("data", data, self.n_dof)
        q, qd, qdd, tau = (d[k] for k in ("q", "qd", "qdd", "tau"))
        return self._batch(self._samples(q, qd, qdd, tau, np.sqrt(sample_weights(qd, qdd)), dtype=float))

    def loss(self, theta, batch):
        """fit's loss at the flat weights theta on a batch from training_batch, differentiable by
        autograd in theta; both arguments checked first.  It does not change the model."""
        return self.batch_loss(self._checked_theta(theta), self._checked_batch(batch))

    def batch_loss_and_grad(self, theta, batch):
        """fit's loss and its gradient in theta (autograd; DeLaN's fast path gives the same numbers)."""
        return value_and_grad(self.batch_loss)(theta, batch)

    def _checked_theta(self, theta):
        """theta as it is (an array or autograd's box of one) once its value passed as_vector,
        or as_vector's float copy of a list."""
        value = getval(theta)
        checked = as_vector("theta", value, self.theta.size, hint=" (the flat weights, like get_params())")
        return theta if isinstance(value, np.ndarray) and value.dtype.kind == "f" else checked

    def _checked_batch(self, batch):
        """The batch's five arrays as they are (float32 stays float32) once checked as finite
        (B, n) arrays with one B >= 1, or float copies of lists."""
        if not isinstance(batch, (tuple, list)) or len(batch) != len(BATCH):
            raise TypeError(f"batch must be the {len(BATCH)} arrays ({', '.join(BATCH)}) that "
                            f"model.training_batch(data) returns, got {described(batch)}")
        values = [getval(x) for x in batch]
        checked = as_data("batch", dict(zip(BATCH, values, strict=True)), self.n_dof, keys=BATCH)
        return tuple(x if isinstance(v, np.ndarray) and v.dtype.kind == "f" else checked[k]
                     for k, x, v in zip(BATCH, batch, values, strict=True))

    def _samples(self, q, qd, qdd, tau, root_weight, dtype=None):
        """Samples as rows (5n, N) in `dtype` (default train_dtype): q, qd, qdd, target = tau
        inv_scale, inv_scale = root_weight / tau_scale; root_weight (N,) or 1 (the validation samples)."""
        inv_scale = np.reshape(root_weight, (-1, 1)) / self.tau_scale
        inv_scale = np.broadcast_to(inv_scale, tau.shape)
        return np.ascontiguousarray(np.concatenate([q, qd, qdd, tau * inv_scale, inv_scale], axis=1).T,
                                    dtype=self.train_dtype if dtype is None else dtype)

    def _batch(self, cols):
        """The loss's batch (q, qd, qdd, target, inv_scale), each (B, n), from sample rows (5n, B)."""
        n = self.n_dof
        return cols[:n].T, cols[n:2 * n].T, cols[2 * n:3 * n].T, cols[3 * n:4 * n].T, cols[4 * n:].T

    def _train(self, samples, validation_set, steps, callback, every, restore_best):
        """The loop: per step a minibatch, loss and gradient, the guard, the update, the bookkeeping,
        validation and callback; then the guard on the last loss and the call's best weights."""
        loss_and_grad = self.batch_loss_and_grad
        guard, losses = DivergenceGuard(self), []
        N = samples.shape[1]
        B = min(self.batch_size, N)
        batch, best = None, None
        if validation_set is not None and steps:
            best = BestWeights(self, self._validation_loss(validation_set) if self.step else math.inf)
            interval = validation_interval(len(validation_set[0]), B)
        if self._resume is not None and steps:                  # training goes on where it stopped
            _apply(self, self._resume)
            self._resume = None
        for rows in _minibatch_rows(self._batch_rng, N, B, steps):
            batch = self._batch(samples[:, rows])
            loss, g = loss_and_grad(self.theta, batch)
            loss = float(loss)
            guard.check(loss, g)
            self.theta = self.optimizer.step(self.theta, g)
            self.step += 1
            self.loss_history.append(loss)
            losses.append(loss)
            if best is not None and self.step % interval == 0:
                self._validate(best, validation_set)
            if callback is not None and self.step % every == 0:
                callback(self)
        if batch is not None:
            guard.check(float(self.batch_loss(self.theta, batch)), final=True)
        if best is not None:
            self._finish(best, validation_set, restore_best)
        return losses

    def _validation_loss(self, validation_set):
        return float(self.batch_loss(self.theta, validation_set))

    def _validate(self, best, validation_set):
        """One validation evaluation: the schedule's verdict and what follows from it."""
        v = self._validation_loss(validation_set)
        keep, change = self.schedule.update(v, best.loss)
        if keep:
            best.keep(v)
        elif change == "spike":
            best.restore()
        if change:
            self.optimizer.lr = self.schedule.lowered(self.lr)
        self.validation_history.append((self.step, v, self.lr))

    def _finish(self, best, validation_set, restore_best):
        """End of a call: the last weights are a candidate too; go back to the best unless told
        otherwise; record the validation loss of the weights kept."""
        v = self._validation_loss(validation_set)
        if v < best.loss:
            best.keep(v)
        if restore_best and best.loss < v:
            self._resume = _weights_and_moments(self)
            best.restore()
            v = best.loss
        entry = (self.step, v, self.lr)
        if self.validation_history and self.validation_history[-1][0] == self.step:
            self.validation_history[-1] = entry                       # evaluated at this very step: replaced
        else:
            self.validation_history.append(entry)
