"""Optimisers: what a training step does with the gradient.  Adam is the default; SGD with momentum.

    theta = optimizer.step(theta, g)       # a new array; theta is not modified

An optimiser holds `lr` (settable at any time), its hyperparameters and its state; `state()` / `set_state()`
export and restore the state (save/load, undoing a failed fit); `config()` names it and its hyperparameters.

    >>> opt = SGD(lr=0.1, momentum=0.5)
    >>> opt.step(np.array([1.0]), np.array([2.0]))       # v = 2, theta - lr v
    array([0.8])"""
import math

import numpy as np

from ..validate import described, number, positive_number


class Optimizer:
    """Base class: the learning rate (validated), the hyperparameters, state export and import."""

    name = ""
    hyper = ()                                    # names of the hyperparameters besides lr (attributes)

    def __init__(self, lr=None):
        self._lr = None if lr is None else positive_number("lr", lr)

    @property
    def lr(self):
        """The learning rate: a finite number > 0 (None until a model gives it one)."""
        return self._lr

    @lr.setter
    def lr(self, value):
        self._lr = positive_number("lr", value, hint="e.g. model.lr = 0.003")

    def config(self):
        """{"name": ..., "lr": ..., hyperparameters...}: what builds an equal optimiser (see `make_optimizer`)."""
        return {"name": self.name, "lr": self.lr, **{h: getattr(self, h) for h in self.hyper}}

    def __repr__(self):
        args = ([f"lr={self.lr:g}"] if self.lr is not None else []) + [f"{h}={getattr(self, h)!r}" for h in self.hyper]
        return f"{type(self).__name__}({', '.join(args)})"

    def initial_state(self, n):
        """The state before the first step, for n weights (with the current lr): what state() would export."""
        raise NotImplementedError

    def step(self, theta, g):
        """One update: returns the new theta (float64) from theta and the gradient g (both (n,))."""
        raise NotImplementedError

    def state(self):
        """The state as a dict of copies: arrays, step count, lr."""
        raise NotImplementedError

    def set_state(self, state):
        """Put back what state() exported (checked by the caller: same keys and shapes)."""
        raise NotImplementedError


class Adam(Optimizer):
    """Adam (Kingma & Ba), as autograd.misc.optimizers.adam, its moments kept between calls:

        m = b1 m + (1 - b1) g,   v = b2 v + (1 - b2) g^2,
        theta -= lr * mhat / (sqrt(vhat) + eps)   with mhat = m / (1 - b1^t), vhat = v / (1 - b2^t)

    (the bias corrections folded into two scalars)."""

    name = "adam"
    hyper = ("b1", "b2", "eps")

    def __init__(self, lr=None, b1=0.9, b2=0.999, eps=1e-8):
        super().__init__(lr)
        self.b1 = number("b1", b1, low=0.0, high=1.0, high_open=True)
        self.b2 = number("b2", b2, low=0.0, high=1.0, high_open=True)
        self.eps = positive_number("eps", eps)
        self.m, self.v, self.t = np.zeros(0), np.zeros(0), 0

    def initial_state(self, n):
        return {"m": np.zeros(n), "v": np.zeros(n), "t": 0, "lr": self.lr}

    def step(self, theta, g):
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


class SGD(Optimizer):
    """Stochastic gradient descent with momentum (PyTorch's convention): v = momentum v + g, theta -= lr v."""

    name = "sgd"
    hyper = ("momentum",)

    def __init__(self, lr=None, momentum=0.9):
        super().__init__(lr)
        self.momentum = number("momentum", momentum, low=0.0, high=1.0, high_open=True)
        self.velocity = np.zeros(0)

    def initial_state(self, n):
        return {"velocity": np.zeros(n), "lr": self.lr}

    def step(self, theta, g):
        self.velocity *= self.momentum
        self.velocity += g
        return theta - self.lr * self.velocity

    def state(self):
        return {"velocity": self.velocity.copy(), "lr": self.lr}

    def set_state(self, state):
        self.velocity, self.lr = np.array(state["velocity"], dtype=float), float(state["lr"])


OPTIMIZERS = {cls.name: cls for cls in (Adam, SGD)}


def make_optimizer(optimizer, lr):
    """A fresh optimiser with learning rate lr from a name in OPTIMIZERS, a config() dict or an
    Optimizer (copied; its own lr, if any, must agree)."""
    if isinstance(optimizer, Optimizer):
        if optimizer.lr is not None and optimizer.lr != lr:
            raise ValueError(f"the learning rate is given twice and disagrees: lr={lr:g} and {optimizer!r}; "
                             f"give it once, e.g. lr={optimizer.lr:g}, optimizer={type(optimizer).__name__}"
                             f"({', '.join(f'{h}={getattr(optimizer, h)!r}' for h in optimizer.hyper)})")
        optimizer = optimizer.config()
    if isinstance(optimizer, dict):
        settings = {k: v for k, v in optimizer.items() if k not in ("name", "lr")}
        name = optimizer.get("name")
    else:
        settings, name = {}, optimizer
    listed = ", ".join(repr(n) for n in OPTIMIZERS)
    if not isinstance(name, str):
        raise TypeError(f"optimizer must be one of {listed} or an optimiser object such as SGD(momentum=0.9), "
                        f"got {described(optimizer)}")
    if name not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {name!r}; choose one of {listed} (or an optimiser object such as "
                         f"SGD(momentum=0.9))")
    return OPTIMIZERS[name](lr=lr, **settings)
