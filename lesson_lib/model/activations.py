"""The activations a network may use, as one table: name -> (reference s(z), fast jet function).

- `reference(z)`: s(z) in autograd.numpy; autograd differentiates it, and the tests hold `fast` to it.
- `fast(z)`: what the jet (fast.jet) calls, in place over z: returns s(z), s'(z) and s''(z)/s'(z) (the
  curvature ratio jet.hidden_backward needs), each z's shape.

To add an activation, add an entry to ACTIVATIONS.  softplus is also the positive map on L's diagonal."""
from collections import namedtuple

import autograd.numpy as anp
import numpy as np

from ..validate import choice

Activation = namedtuple("Activation", "reference fast")


def _isru_fast(z):
    """s = z / sqrt(1 + z^2), s' = (1 + z^2)^(-3/2), s''/s' = -3 z / (1 + z^2) (cheaper than tanh)."""
    p = z * z
    p += 1.0
    np.reciprocal(p, out=p)                     # 1 / (1 + z^2)
    r = np.sqrt(p)
    s1 = p * r
    p *= z
    p *= -3.0
    z *= r
    return z, s1, p


def _tanh_fast(z):
    """s = tanh z, s' = 1 - s^2, s''/s' = -2 s."""
    a = np.tanh(z, out=z)
    s1 = 1.0 - a * a
    return a, s1, a * -2.0


def _softplus_fast(z):
    """s = log(1 + e^z) computed stably with logaddexp, s' = sigmoid(z) = e^(z - s), s''/s' = 1 - s'."""
    a = np.logaddexp(0.0, z)
    s1 = np.exp(z - a)
    z[...] = a
    return z, s1, 1.0 - s1


ACTIVATIONS = {
    "isru": Activation(reference=lambda z: z / anp.sqrt(1.0 + z * z), fast=_isru_fast),
    "tanh": Activation(reference=anp.tanh, fast=_tanh_fast),
    "softplus": Activation(reference=lambda z: anp.logaddexp(0.0, z), fast=_softplus_fast),
}


def check_activation(name, argument="activation"):
    """Return `name` if it is in ACTIVATIONS, else raise listing the registered names."""
    return choice(argument, name, tuple(ACTIVATIONS))


def activate(z, name):
    """ACTIVATIONS[name].fast(z): (s(z), s'(z), s''(z)/s'(z)), computed in place over z."""
    try:
        fast = ACTIVATIONS[name].fast
    except (KeyError, TypeError):
        check_activation(name)
        raise
    return fast(z)
