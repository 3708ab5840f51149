"""A second structured model, and where the next one goes: a DeLaN whose mass matrix is diagonal.

    M(q) = diag(softplus(m(q)))^2 + eps I,   V(q) = potential_scale v(q),   tau = M qdd + c(q, qd) + g(q)

For a robot whose joints do not load each other (a Cartesian gantry, decoupled drives) this is the right prior,
with n outputs where the full DeLaN has n(n+1)/2.  It is written only through public seams: Trainable's three
methods (layer_sizes, initial_weights, batch_loss) and the definition's functions (the network's jet, M and dM/dq
from a factor, the Christoffel sum, gravity from V), differentiated by autograd; fit trains it as it trains the
DeLaN, without a fast path.  tests/test_diagonal.py holds it to the same kind of tests as the DeLaN.
Shapes: q, qd, qdd (n,) or (B, n); M (n, n) or (B, n, n)."""
from typing import NamedTuple

import autograd.numpy as anp
import numpy as np
from autograd import elementwise_grad

from ..facts import ACTIVATION, BATCH_SIZE, EPS, HIDDEN, LR, POTENTIAL_SCALE
from ..validate import number
from . import definition
from .trainable import Trainable, init_mlp


class DiagonalArchitecture(NamedTuple):
    """The definition's Architecture with n + 1 outputs: the diagonal's n entries and V."""
    n_dof: int
    hidden: tuple
    activation: str = ACTIVATION
    eps: float = EPS
    potential_scale: float = POTENTIAL_SCALE

    @property
    def sizes(self):
        return (2 * self.n_dof, *self.hidden, self.n_dof + 1)


def learned(theta, arch, q):
    """(L, dL, g) at q (B, n): L = diag(softplus(first n outputs)) and its q-derivatives, g = dV/dq."""
    out, dout = definition.network_jet(theta, arch, q)
    softplus = definition.ACTIVATIONS["softplus"]
    n = arch.n_dof
    diagonal = softplus(out[:, :n])
    ddiagonal = elementwise_grad(softplus)(out[:, :n])[:, None] * dout[:, :, :n]
    eye = np.eye(n)
    return diagonal[:, :, None] * eye, ddiagonal[..., None] * eye, definition.potential_jet(arch, out, dout)[1]


class DiagonalDeLaN(Trainable):
    """A DeLaN with a diagonal M; arguments as the DeLaN's (eps in kg m^2, potential_scale in J)."""

    architecture_fields = ("n_dof", "hidden", "activation", "eps", "potential_scale")

    def __init__(self, n_dof=2, hidden=HIDDEN, seed=0, lr=LR, batch_size=BATCH_SIZE, eps=EPS, activation=ACTIVATION,
                 potential_scale=POTENTIAL_SCALE):
        self.eps = number("eps", eps, low=0.0, low_open=True, hint="kg m^2, e.g. eps=0.001")
        self.potential_scale = number("potential_scale", potential_scale, low=0.0, low_open=True)
        super().__init__(n_dof, hidden, seed, lr, batch_size, activation)

    @property
    def architecture(self):
        return DiagonalArchitecture(self.n_dof, self.hidden, self.activation, self.eps, self.potential_scale)

    def layer_sizes(self):
        return self.architecture.sizes

    def initial_weights(self, rng):
        return init_mlp(rng, self.sizes, out_scale=0.5)

    def batch_loss(self, theta, batch):
        """mean((tau inv_scale - target)^2) with tau = the definition's torque from the diagonal factor."""
        q, qd, qdd, target, inv_scale = batch
        tau = definition.torque(self.architecture, *learned(theta, self.architecture, q), qd, qdd)
        return anp.mean((tau * inv_scale - target) ** 2)

    def _at(self, q):
        (q,), single = self.checked_states(q=q)
        return learned(self.theta, self.architecture, q), single

    def mass_matrix(self, q):
        """Learned M(q), diagonal: (n, n) or (B, n, n)."""
        (L, dL, _), single = self._at(q)
        M = definition.mass_matrix_jet(self.architecture, L, dL)[0]
        return M[0] if single else M

    def inverse_dynamics(self, q, qd, qdd):
        """tau_hat = M(q) qdd + c(q, qd) + g(q): (n,) or (B, n)."""
        (q, qd, qdd), single = self.checked_states(q=q, qd=qd, qdd=qdd)
        tau = definition.torque(self.architecture, *learned(self.theta, self.architecture, q), qd, qdd)
        return tau[0] if single else tau
