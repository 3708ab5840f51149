"""What every learned model shares: its weights as one flat vector, everything training changes as one state, and
the public surface around them (fit, loss, save and load, reset, set_params, checked inputs).

A model is a Trainable that provides three members, its public seam: `layer_sizes` (a property: the network's
widths, inputs first), `initial_weights(rng)` (the flat weights theta) and `batch_loss(theta, batch)`, an
autograd-differentiable scalar on a batch (q, qd, qdd, target, inv_scale), each (B, n); `batch_loss_and_grad` may
compute both faster (lesson_lib.model.blackbox is the smallest example).  What training changes, the model's state:

    theta, step, loss_history, validation_history (step, loss, lr)     the weights and their record (after a fit,
                   the average of Adam's iterates that validated best, refined where the model can, or what the
                   call started from, or parts of the two joined: whichever validated best, lesson_lib.model.training)
    optimizer (lesson_lib.model.adam), schedule (lesson_lib.model.schedule), tau_scale (the loss's units)
    batch_rng      the minibatches' generator
    resume_point   the last iterate and Adam's state, which the next fit goes on from (`resumes`; None before
                   training and after set_params or reset: then fit starts from theta)

`fit` checks its arguments and data (lesson_lib.model.training_data), then runs the loop (lesson_lib.model.training);
it continues from the last iterate and Adam's moments: pressing "Train" again carries on.  `fit`, `load`,
`set_params` and `reset` are transactions: they complete or leave the model exactly as it was, also when
interrupted or when a callback raises.  `save` and `load` write and read lesson_lib.model.model_file.
"""
import contextlib
import copy
import functools
from collections.abc import Mapping

import numpy as np
from autograd import value_and_grad
from autograd.tracer import getval

from ..facts import VALIDATION
from ..limits import MAX_BATCH_SIZE, MAX_N_DOF, MAX_STEPS_PER_CALL, MAX_WEIGHTS, max_states
from ..validate import (
    as_data,
    as_states,
    as_vector,
    boolean,
    described,
    integer,
    layer_widths,
    positive_number,
    within_limit,
)
from . import model_file, training, training_data
from .adam import Adam
from .definition import check_activation, n_weights
from .schedule import Schedule

BATCH = ("q", "qd", "qdd", "target", "inv_scale")   # the loss's batch, each (B, n)


def init_mlp(rng, layer_sizes, out_scale=1.0):
    """Flat weights (definition.unflatten's layout) of an MLP with these layer sizes: W ~ N(0, 1/fan_in),
    the last layer times out_scale, biases zero.

    >>> init_mlp(np.random.default_rng(0), (2, 1)).round(3)         # W (1, 2), then b (1,)
    array([ 0.089, -0.093,  0.   ])"""
    parts = []
    for i, (fan_in, fan_out) in enumerate(zip(layer_sizes[:-1], layer_sizes[1:], strict=True)):
        scale = (out_scale if i == len(layer_sizes) - 2 else 1.0) / np.sqrt(fan_in)
        parts += [rng.normal(0.0, scale, fan_out * fan_in), np.zeros(fan_out)]
    return np.concatenate(parts)


@functools.cache
def _every_weight(size):
    """Trainable.trainable_mask of a model whose training changes every one of its `size` weights (read-only)."""
    ones = np.ones(size)
    ones.flags.writeable = False
    return ones


class Trainable:
    """Weights as one flat vector theta, trained by an optimiser on minibatches of inverse-dynamics samples.

    Steps compute in `train_dtype` (float32, like PyTorch's default); weights, optimiser state and predictions are
    float64.

    >>> from lesson_lib import BlackBox, DeLaN
    >>> issubclass(DeLaN, Trainable) and issubclass(BlackBox, Trainable)
    True"""

    train_dtype = np.float32
    architecture_fields = ("n_dof", "hidden", "activation")   # a saved file must match these (and the optimiser)

    def __init__(self, n_dof, hidden, seed, lr, batch_size, activation):
        self.n_dof = within_limit("n_dof", integer("n_dof", n_dof, low=1, hint="the number of joints, e.g. n_dof=2"),
                                  MAX_N_DOF)
        self.hidden = layer_widths("hidden", hidden)
        self.activation = check_activation(activation)
        self.seed = integer("seed", seed, low=0, hint="e.g. seed=0")
        within_limit("the network's number of weights", n_weights(self.layer_sizes), MAX_WEIGHTS,
                     fix="use fewer or narrower hidden layers")
        self.max_states = max_states(self.n_dof, self.layer_sizes)
        self.batch_size = within_limit("batch_size", integer("batch_size", batch_size, low=1, hint="e.g. 128"),
                                       min(MAX_BATCH_SIZE, self.max_states), fix="train on smaller minibatches")
        lr = positive_number("lr", lr, hint="e.g. lr=0.003")
        self.optimizer, self.schedule = Adam(lr), Schedule(lr)
        self.batch_rng = np.random.default_rng([self.seed, 1])
        self._set_state(self._initial_state())

    # ------------------------------------------------------------------ settings
    @property
    def lr(self):
        """The current learning rate; settable between or during fits (the schedule starts from it, and
        reset() returns to it).

        >>> from lesson_lib import DeLaN
        >>> model = DeLaN()
        >>> model.lr = 0.01
        >>> model.lr, model.schedule.base_lr
        (0.01, 0.01)"""
        return self.optimizer.lr

    @lr.setter
    def lr(self, value):
        self.optimizer.lr = self.schedule.base_lr = positive_number("lr", value, hint="e.g. model.lr = 0.003")

    def config(self):
        """Class, architecture fields, optimiser (name and hyperparameters), seed and batch_size: what a
        saved file records.

        >>> from lesson_lib import DeLaN
        >>> DeLaN(hidden=(16,)).config()["hidden"]
        (16,)"""
        return {"class": type(self).__name__, **{f: getattr(self, f) for f in self.architecture_fields},
                "optimizer": Adam.config(), "seed": self.seed, "batch_size": self.batch_size}

    def __repr__(self):
        return (f"{type(self).__name__}({model_file.arguments(self.config())}, seed={self.seed}, lr={self.lr:g}, "
                f"batch_size={self.batch_size}, step={self.step})")

    # ------------------------------------------------------------------ state
    def _initial_state(self):
        """The untrained model's state, from the seed, at the learning rate the user chose."""
        lr, theta = self.schedule.base_lr, self.initial_weights(np.random.default_rng(self.seed))
        optimizer = Adam(lr, theta.size)
        optimizer.start_average(theta)
        return {"params": theta, "step": 0, "loss_history": [], "validation_history": np.zeros((0, 3)), "resume": None,
                "optimizer": optimizer.state(), "schedule": Schedule(lr).state(),
                "tau_scale": np.ones(self.n_dof),
                "batch_rng": np.random.default_rng([self.seed, 1]).bit_generator.state}

    def _state(self):
        """Copies of everything training changes: weights, step, histories, resume point, optimiser and
        schedule state, scales, the minibatch random state."""
        return {"params": self.theta.copy(), "step": self.step, "loss_history": list(self.loss_history),
                "validation_history": np.array(self.validation_history, dtype=float).reshape(-1, 3),
                "resume": copy.deepcopy(self.resume_point),
                "optimizer": self.optimizer.state(), "schedule": self.schedule.state(),
                "tau_scale": self.tau_scale.copy(), "batch_rng": self.batch_rng.bit_generator.state}

    def _set_state(self, state):
        """Put back a state from _state(), _initial_state() or a checked file."""
        self.theta = np.array(state["params"], dtype=float)
        self.step = int(state["step"])
        self.loss_history = [float(x) for x in state["loss_history"]]
        self.validation_history = [(int(s), float(v), float(lr)) for s, v, lr in state["validation_history"]]
        self.resume_point = copy.deepcopy(state["resume"])
        self.optimizer.set_state(state["optimizer"])
        self.schedule.set_state(state["schedule"])
        self.tau_scale = np.array(state["tau_scale"], dtype=float)
        self.batch_rng.bit_generator.state = state["batch_rng"]

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
        transaction.

        >>> from lesson_lib import DeLaN, double_pendulum, sample_uniform
        >>> model = DeLaN(seed=0)
        >>> losses = model.fit(sample_uniform(double_pendulum(), 64), steps=3)
        >>> model.reset()
        >>> model.step, bool(np.array_equal(model.theta, DeLaN(seed=0).theta))
        (0, True)"""
        state = self._initial_state()
        with self._transaction():
            self._set_state(state)

    def get_params(self):
        """The weights as one flat vector (a copy).

        >>> from lesson_lib import DeLaN
        >>> DeLaN(hidden=(16,)).get_params().shape
        (148,)"""
        return self.theta.copy()

    def set_params(self, flat):
        """Set the weights from a flat vector like get_params(); training goes on from them, and the average of the
        iterates starts again from the next step's (lesson_lib.model.adam).  Checked first: a wrong length, type or a
        NaN leaves the model as it was.

        >>> from lesson_lib import DeLaN
        >>> model = DeLaN(hidden=(32, 32))
        >>> model.set_params(np.zeros(3))
        Traceback (most recent call last):
        ValueError: params must be a flat vector of 1348 numbers (like get_params()), got shape (3,)"""
        theta = as_vector("params", flat, self.theta.size, hint=" (like get_params())")
        with self._transaction():
            self.theta, self.resume_point = theta, None
            self.optimizer.start_average(theta)

    @property
    def trainable_mask(self):
        """1 for each weight training changes, 0 for one it never changes: flat, like theta (every weight here; a
        subclass may hold some where they start, e.g. DeLaN's L and V on units of their own, at 0).

        >>> from lesson_lib import BlackBox
        >>> bool(BlackBox(hidden=(8,)).trainable_mask.all())
        True"""
        return _every_weight(self.theta.size)

    @property
    def resumes(self):
        """True when the next fit goes on from other weights than the model's: the previous call's last iterate
        (the model keeps an average of the iterates, the best on the validation samples; lesson_lib.model.training).

        >>> from lesson_lib import DeLaN
        >>> DeLaN().resumes                                          # untrained: nothing to go on from
        False"""
        return self.resume_point is not None

    def save(self, path):
        """Write the model to `path` (".npz" added if missing, as np.savez does); returns the file name.
        Format: lesson_lib.model.model_file.

        >>> import os
        >>> import tempfile
        >>> from lesson_lib import DeLaN
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     os.path.basename(DeLaN().save(os.path.join(folder, "my_model")))
        'my_model.npz'"""
        return model_file.save(self.config(), self._state(), path)

    def load(self, path):
        """Load what save() wrote and return the model (seed and batch_size stay this model's).  A file of
        another architecture is refused, naming each differing field.  A transaction: a missing, corrupt or foreign
        file leaves the model as it was.

        >>> import os
        >>> import tempfile
        >>> from lesson_lib import DeLaN
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = DeLaN(seed=1).save(os.path.join(folder, "my_model"))
        ...     bool(np.array_equal(DeLaN(seed=2).load(path).theta, DeLaN(seed=1).theta))
        True"""
        state = model_file.read(self.config(), self._state(), path)
        with self._transaction():
            self._set_state(state)
        return self

    # ------------------------------------------------------------------ inputs of the public methods
    def checked_states(self, **arrays):
        """Checked state arrays, each (B, n), and whether they were single states; B within the limit.

        >>> from lesson_lib import DeLaN
        >>> (q, qd), single = DeLaN().checked_states(q=[0.1, 0.2], qd=[[0.0, 0.0], [1.0, 1.0]])
        >>> q.shape, single
        ((2, 2), False)"""
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
        magnitudes = ", ".join(f"|{k}| up to {np.max(np.abs(v), initial=0):.3g}" for k, v in inputs.items())
        raise ValueError(f"the model's {what} overflowed to inf or NaN for these inputs ({magnitudes}): states that "
                         f"large are far outside any robot's (the course's reach a few rad and tens of rad/s); check "
                         f"their units and scale")

    # ------------------------------------------------------------------ training
    def data_scales(self, q, qd, qdd, tau_scale):
        """The data-dependent scales set before the first step: {attribute: value}.

        >>> from lesson_lib import DeLaN
        >>> DeLaN().data_scales(None, None, None, np.array([2.0, 0.5]))
        {'tau_scale': array([2. , 0.5])}"""
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
        trajectory of each sample (optional).  Checked once, before any step (lesson_lib.model.training_data).
        validation: the fraction held out (0 for none), whole trajectories when traj is known; every
        `training.validation_interval` steps the loss on it decides the best weights and the learning rate
        (model.validation_history: (step, validation loss, lr)).
        restore_best: end with the best weights seen (else the last); the weights are the average of the iterates
        (lesson_lib.model.adam), refined where the model can (refined: DeLaN solves V's readout), or with
        restore_best the weights the call started from or the two joined (recombined), whichever validates best; the
        next call goes on from the last iterate either way.
        callback(model) every `every` steps.  A transaction: on TrainingDiverged, a raising callback or
        KeyboardInterrupt the model is put back as it was, and the exception is raised.

        >>> from lesson_lib import DeLaN, double_pendulum, sample_uniform
        >>> model = DeLaN(seed=0)
        >>> losses = model.fit(sample_uniform(double_pendulum(), 256), steps=200)
        >>> len(losses), model.step, bool(losses[-1] < losses[0])
        (200, 200, True)"""
        steps = within_limit("steps", integer("steps", steps, low=0, hint="e.g. steps=2000"), MAX_STEPS_PER_CALL,
                             fix="call fit several times (it continues where it stopped)")
        if callback is not None and not callable(callback):
            raise TypeError(f"callback must be a function of the model (or None), got {described(callback)}")
        every = integer("every", every, low=1, hint="the number of steps between callbacks, e.g. every=250")
        restore_best = boolean("restore_best", restore_best)
        q, qd, qdd, tau, traj = self._data(q, qd, qdd, tau, traj)
        first = self.step == 0
        q, qd, qdd, tau, tau_scale = training_data.check_training_data(self.n_dof, q, qd, qdd, tau,
                                                                        None if first else self.tau_scale)
        train_rows, validation_rows = training_data.split(len(q), traj, validation, self.seed)
        # overflow in a diverging float32 step is reported by the guard, not by numpy's warnings
        with self._transaction(), training.single_blas_thread(), np.errstate(over="ignore", invalid="ignore"):
            if first:
                for name, value in self.data_scales(q, qd, qdd, tau_scale).items():
                    setattr(self, name, value)
            weights = np.sqrt(training_data.sample_weights(qd, qdd))
            samples = training_data.samples(q, qd, qdd, tau, weights, self.tau_scale, self.train_dtype)
            validation_set = None
            if len(validation_rows):
                held = training_data.samples(*(x[validation_rows] for x in (q, qd, qdd, tau)), 1.0, self.tau_scale,
                                             self.train_dtype)
                validation_set = training_data.batch(held, self.n_dof)
            losses = training.train(self, samples[:, train_rows], validation_set, steps, callback, every,
                                    restore_best)
        if steps:
            self.after_fit(q, qdd)
        return losses

    def refined(self, theta, rows, validation_set):
        """The weights fit keeps, theta (P,), refined where the model can solve part of them given the training
        samples rows (5n, N) and the validation batch: theta itself here (DeLaN: V's readout by least squares).
        Unchecked, like batch_loss: fit's hook, which fit calls with what it has checked.

        >>> from lesson_lib import BlackBox
        >>> model = BlackBox()
        >>> model.refined(model.theta, None, None) is model.theta
        True"""
        return theta

    def recombined(self, theta, start):
        """A tuple of weight vectors made of parts of theta and of start (P,), the weights a fit call ends with and
        those it started from, that fit weighs beside them at the end of the call: () here (DeLaN: the call's L
        joined to the V it started from).

        >>> from lesson_lib import BlackBox
        >>> model = BlackBox()
        >>> model.recombined(model.theta, model.theta)
        ()"""
        return ()

    def after_fit(self, q, qdd):
        """What a model checks after training on q, qdd (N, n): nothing here (DeLaN: a collapsed M).

        >>> from lesson_lib import BlackBox
        >>> BlackBox().after_fit(np.zeros((2, 2)), np.zeros((2, 2)))     # the black box checks nothing"""

    def training_batch(self, data):
        """fit's batch of a data dict, in float64 and whole: (q, qd, qdd, target, inv_scale),
        each (N, n), target = tau inv_scale, inv_scale = sqrt(w) / tau_scale (w: sample_weights).

        >>> from lesson_lib import DeLaN, double_pendulum, sample_uniform
        >>> [x.shape for x in DeLaN().training_batch(sample_uniform(double_pendulum(), 8))]
        [(8, 2), (8, 2), (8, 2), (8, 2), (8, 2)]"""
        d = as_data("data", data, self.n_dof)
        q, qd, qdd, tau = (d[k] for k in ("q", "qd", "qdd", "tau"))
        weights = np.sqrt(training_data.sample_weights(qd, qdd))
        return training_data.batch(training_data.samples(q, qd, qdd, tau, weights, self.tau_scale, float), self.n_dof)

    def loss(self, theta, batch):
        """fit's loss at the flat weights theta on a batch from training_batch, differentiable by
        autograd in theta; both arguments checked first.  It does not change the model.

        >>> from lesson_lib import DeLaN, double_pendulum, sample_uniform
        >>> model = DeLaN()
        >>> bool(model.loss(model.get_params(), model.training_batch(sample_uniform(double_pendulum(), 8))) > 0)
        True"""
        return self.batch_loss(self._checked_theta(theta), self._checked_batch(batch))

    def batch_loss_and_grad(self, theta, batch):
        """fit's loss and its gradient in theta (autograd; DeLaN's fast path gives the same numbers).

        >>> from lesson_lib import BlackBox, double_pendulum, sample_uniform
        >>> model = BlackBox()
        >>> batch = model.training_batch(sample_uniform(double_pendulum(), 8))
        >>> value, g = model.batch_loss_and_grad(model.theta, batch)
        >>> g.shape == model.theta.shape
        True"""
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
