"""A second structured model, and where the next one goes: a DeLaN whose mass matrix is diagonal.

    M(q) = diag(softplus(m(q)))^2 + eps I,   V(q) = potential_scale v(q),   tau = M qdd + c(q, qd) + g(q)

For a robot whose joints do not load each other (a Cartesian gantry, decoupled drives) this is the right prior,
with n + 1 outputs where the full DeLaN has n(n+1)/2 + 1.  It is the DeLaN with one piece changed: its network gives
L's diagonal and V alone, and the entries below L's diagonal are held at zero where the DeLaN's network would put
them (network_jet).  Everything else is the DeLaN's: its arguments and their checks, the Architecture's fields,
the definition's loss and equations, every public method, fit (by autograd's gradient of the definition's loss:
the fast path's loss is the full DeLaN's) and the warning of a collapsed M.  tests/test_diagonal.py holds it to
the same kind of tests as the DeLaN.
Shapes: q, qd, qdd (n,) or (B, n); M (n, n) or (B, n, n)."""
import autograd.numpy as anp
import numpy as np

from . import definition
from .delan import DeLaN


class DiagonalArchitecture(definition.Architecture):
    """The DeLaN's Architecture with n + 1 outputs: L's n diagonal entries and V.

    >>> DiagonalArchitecture(2, (8,)).layer_sizes
    (4, 8, 3)"""

    __slots__ = ()

    @property
    def layer_sizes(self):
        """The network's layer sizes: 2n features in; L's n diagonal entries and V out.

        >>> DiagonalArchitecture(3, (16,)).layer_sizes                  # 3 diagonal entries and V
        (6, 16, 4)"""
        return (2 * self.n_dof, *self.hidden, self.n_dof + 1)


def below_the_diagonal_zero(n, x, axis):
    """x with the n(n-1)/2 entries below L's diagonal, zero, put where the DeLaN's outputs have them (after the n
    diagonal ones, definition.tril_order) along `axis`: n + 1 outputs -> n(n+1)/2 + 1.

    >>> below_the_diagonal_zero(2, np.array([1.0, 2.0, 3.0]), axis=0)          # L_00, L_11, V -> L_00, L_11, L_10, V
    array([1., 2., 0., 3.])"""
    head, tail = anp.split(x, [n], axis=axis)
    shape = list(np.shape(x))
    shape[axis] = n * (n - 1) // 2
    return anp.concatenate([head, np.zeros(shape), tail], axis=axis)


def network_jet(theta, arch, q):
    """definition.network_jet in the DeLaN's output order: (B, n(n+1)/2 + 1) and (B, n, n(n+1)/2 + 1), the entries
    below L's diagonal zero.

    >>> arch = DiagonalArchitecture(2, (8,))
    >>> out, dout = network_jet(np.ones(definition.n_weights(arch.layer_sizes)), arch, np.zeros((1, 2)))
    >>> out.shape, dout.shape, float(out[0, 2])
    ((1, 4), (1, 2, 4), 0.0)"""
    out, dout = definition.network_jet(theta, arch, q)
    return below_the_diagonal_zero(arch.n_dof, out, -1), below_the_diagonal_zero(arch.n_dof, dout, -1)


class DiagonalDeLaN(DeLaN):
    """A DeLaN with a diagonal M; arguments as the DeLaN's (eps in kg m^2, potential_scale in J).

    >>> M = DiagonalDeLaN(seed=0).mass_matrix([0.3, -1.2])
    >>> bool(M[0, 1] == M[1, 0] == 0 and min(M[0, 0], M[1, 1]) > 0)          # diagonal, positive
    True"""

    @property
    def architecture(self):
        """The record (DiagonalArchitecture) that, with the weights, fixes the model's function.

        >>> type(DiagonalDeLaN().architecture).__name__
        'DiagonalArchitecture'"""
        return DiagonalArchitecture(*super().architecture)

    def batch_loss(self, theta, batch):
        """fit's loss (unchecked): definition.loss at theta on a training batch, with this network's jet.

        >>> model, ones = DiagonalDeLaN(seed=0), np.ones((4, 2))
        >>> bool(model.batch_loss(model.theta, (ones, ones, ones, ones, ones)) > 0)
        True"""
        return definition.loss(theta, self.architecture, batch, jet=network_jet)

    def learned_jet(self, theta, q):
        """definition.learned_jet with this network's jet: L (diagonal), dL and g at q, differentiable in theta.

        >>> model = DiagonalDeLaN(seed=0)
        >>> L, dL, g = model.learned_jet(model.theta, np.zeros((1, 2)))
        >>> float(L[0, 1, 0])                                           # nothing below the diagonal
        0.0"""
        return definition.learned_jet(theta, self.architecture, q, jet=network_jet)

    def _output_jet(self, q, derivatives=True, theta=None):
        """The DeLaN's output jet (n(n+1)/2 + 1, 1+n, B): this network's, zero below L's diagonal."""
        return below_the_diagonal_zero(self.n_dof, super()._output_jet(q, derivatives, theta), 0)
