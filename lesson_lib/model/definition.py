"""The Deep Lagrangian Network, one function per equation, in plain autograd.

This is the model.  `DeLaN` computes M, c, g, tau, V and their derivatives with these functions, and fit's fast
loss (lesson_lib.model.fast) is tested equal to `loss` below.  No derivative is written by hand: s'(z) comes
from autograd's `elementwise_grad`, and autograd's `grad` differentiates the whole.

    features  phi = [cos q, sin q],  dphi/dq_k
    jet       a = s(z), z = W h + b,  da/dq_k = s'(z) * (W dh/dq_k)     (value and exact q-derivative)
    L         the first n outputs through softplus on the diagonal, the next n(n-1)/2 below it
    V         potential_scale x the last output, so g = dV/dq is potential_scale x its derivative row
    M         = L L^T + eps I,        dM/dq_k = dL/dq_k L^T + L dL/dq_k^T
    c         = Mdot qd - 1/2 [qd^T dM/dq_k qd]_k,   Mdot = sum_k qd_k dM/dq_k
    tau       = M qdd + c + g                                           (the three parts, summed)
    loss      = mean over the batch and the joints of (tau * inv_scale - target)^2
                (inv_scale = sqrt(the sample's weight) / the joint's torque scale, target = measured tau * inv_scale)

Shapes: q, qd, qdd, tau (B, n); a jet (h, dh) is h (B, H) and dh (B, n, H) with dh[:, k] = dh/dq_k; the
network's outputs (out, dout) are (B, n_out) and (B, n, n_out); L, M (B, n, n); dL, dM (B, n, n, n) indexed
[b, k, i, j] = d(.)_ij / dq_k.  A jet may carry no derivative rows (dh (B, 0, H)): then every d(.) is empty.
`arch` is an Architecture; theta the flat weight vector (layout of `unflatten`).
"""
import functools
from typing import NamedTuple

import autograd.numpy as np
import numpy as onp
from autograd import elementwise_grad

from ..facts import ACTIVATION, EPS, POTENTIAL_SCALE
from ..validate import choice

# The activations a network may use: name -> s(z) in autograd.numpy (the fast path's own versions,
# lesson_lib.model.fast.FAST, are held to these).  softplus is also the positive map on L's diagonal.
ACTIVATIONS = {
    "isru": lambda z: z / np.sqrt(1.0 + z * z),
    "tanh": np.tanh,
    "softplus": lambda z: np.logaddexp(0.0, z),
}


def check_activation(name, argument="activation"):
    """`name` if it is in ACTIVATIONS, else a ValueError listing the names there are."""
    return choice(argument, name, tuple(ACTIVATIONS))


class Architecture(NamedTuple):
    """What fixes a DeLaN's function of its weights: joints, hidden widths, activation, eps (kg m^2) and the
    potential's unit (J)."""
    n_dof: int
    hidden: tuple
    activation: str = ACTIVATION
    eps: float = EPS
    potential_scale: float = POTENTIAL_SCALE

    @property
    def layer_sizes(self):
        """The network's layer sizes: 2n features in; n(n+1)/2 entries of L and V out."""
        n = self.n_dof
        return (2 * n, *self.hidden, n * (n + 1) // 2 + 1)


def features(q):
    """The input jet: phi = [cos q, sin q] (B, 2n) and dphi/dq (B, n, 2n)."""
    one_hot = np.eye(q.shape[1])                    # d q_j / d q_k
    dcos = -np.sin(q)[:, :, None] * one_hot
    dsin = np.cos(q)[:, :, None] * one_hot
    return np.concatenate([np.cos(q), np.sin(q)], 1), np.concatenate([dcos, dsin], 2)


def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh); ds(z) = s'(z).  Returns (a, da)."""
    z = h @ W.T + b
    return s(z), ds(z)[:, None, :] * (dh @ W.T)


def network_jet(theta, arch, q):
    """The network's outputs (B, n_out) and their q-derivatives (B, n, n_out); the last layer is linear."""
    s = ACTIVATIONS[arch.activation]
    *hidden, (W, b) = unflatten(theta, arch.layer_sizes)
    h, dh = features(q)
    for W_i, b_i in hidden:
        h, dh = layer_jet(W_i, b_i, h, dh, s, elementwise_grad(s))
    return h @ W.T + b, dh @ W.T


def cholesky_jet(arch, out, dout):
    """L (B, n, n) and dL (B, n, n, n) from the outputs: softplus on the n diagonal entries, then placed."""
    n, softplus = arch.n_dof, ACTIVATIONS["softplus"]
    n_L = n * (n + 1) // 2
    ddiag = elementwise_grad(softplus)(out[:, :n])[:, None] * dout[:, :, :n]
    return place_factor(arch, np.concatenate([softplus(out[:, :n]), out[:, n:n_L]], 1),
                        np.concatenate([ddiag, dout[:, :, n:n_L]], 2))


def place_factor(arch, entries, dentries):
    """L = the entries (B, n_L) in their places, and dL from their derivatives (B, n, n_L).  The diagonal entries
    must be positive already (softplus)."""
    return lower_triangular(arch.n_dof, entries), lower_triangular(arch.n_dof, dentries)


def lower_triangular(n, entries):
    """(..., n, n) from L's n(n+1)/2 entries (..., n_L) in the network's output order (tril_order)."""
    return np.reshape(entries @ _placement(n, entries.dtype), entries.shape[:-1] + (n, n))


@functools.cache
def tril_order(n):
    """(rows, cols) of L's entries in the network's output order: the diagonal first, then below it."""
    rows, cols = onp.tril_indices(n)
    order = onp.argsort(rows != cols, kind="stable")
    return _constant(rows[order]), _constant(cols[order])


@functools.cache
def _placement(n, dtype):
    """The 0/1 table (n_L, n n) in dtype that puts L's entries in their places: row m has its one at
    rows[m] n + cols[m]."""
    rows, cols = tril_order(n)
    return _constant(onp.eye(n * n, dtype=dtype)[rows * n + cols])


def _constant(array):
    array.flags.writeable = False
    return array


def potential_jet(arch, out, dout):
    """V (B,) and g = dV/dq (B, n): the last output in units of potential_scale joules."""
    return arch.potential_scale * out[:, -1], arch.potential_scale * dout[:, :, -1]


def mass_matrix_jet(arch, L, dL):
    """M = L L^T + eps I (B, n, n) and dM/dq_k = dL_k L^T + (dL_k L^T)^T (B, n, n, n)."""
    LT = np.swapaxes(L, 1, 2)
    dL_LT = dL @ LT[:, None]
    return L @ LT + arch.eps * np.eye(arch.n_dof, dtype=L.dtype), dL_LT + np.swapaxes(dL_LT, 2, 3)


def coriolis(dM, qd):
    """c = Mdot qd - 1/2 [qd^T dM/dq_k qd]_k (B, n), Mdot = sum_k qd_k dM/dq_k: from dM/dq alone."""
    Mdot = np.einsum("bkij,bk->bij", dM, qd)
    return np.einsum("bij,bj->bi", Mdot, qd) - 0.5 * np.einsum("bkij,bi,bj->bk", dM, qd, qd)


def parts(arch, L, dL, g, qd, qdd):
    """The manipulator equation's three terms (M(q) qdd, c(q, qd), g(q)), each (B, n), from L, dL/dq and g at q."""
    M, dM = mass_matrix_jet(arch, L, dL)
    return np.einsum("bij,bj->bi", M, qdd), coriolis(dM, qd), g


def torque(arch, L, dL, g, qd, qdd):
    """tau = M(q) qdd + c(q, qd) + g(q) (B, n): the sum of the parts."""
    return sum(parts(arch, L, dL, g, qd, qdd))


def forward_dynamics(arch, L, dL, g, qd, tau):
    """qdd = M(q)^-1 (tau - c(q, qd) - g(q)) (B, n): the acceleration the torque gives (M is SPD: solvable)."""
    M, dM = mass_matrix_jet(arch, L, dL)
    return np.linalg.solve(M, (tau - coriolis(dM, qd) - g)[:, :, None])[:, :, 0]


def learned_jet(theta, arch, q, jet=network_jet):
    """L, dL (the Cholesky factor's jet) and g at q, from the network's outputs jet(theta, arch, q): network_jet,
    or the same numbers as one autograd node (fast.network_jet)."""
    out, dout = jet(theta, arch, q)
    return (*cholesky_jet(arch, out, dout), potential_jet(arch, out, dout)[1])


def loss(theta, arch, batch, jet=network_jet):
    """The training loss of a batch (q, qd, qdd, target, inv_scale), each (B, n): mean (tau * inv_scale -
    target)^2."""
    q, qd, qdd, target, inv_scale = batch
    tau = torque(arch, *learned_jet(theta, arch, q, jet), qd, qdd)
    return np.mean((tau * inv_scale - target) ** 2)


def unflatten(theta, layer_sizes):
    """Layers [(W, b), ...] of an MLP with these layer sizes, as views into the flat vector theta."""
    layers, k = [], 0
    for fan_in, fan_out in zip(layer_sizes[:-1], layer_sizes[1:], strict=True):
        W = theta[k:k + fan_in * fan_out].reshape(fan_out, fan_in)
        k += fan_in * fan_out
        layers.append((W, theta[k:k + fan_out]))
        k += fan_out
    return layers


def n_weights(layer_sizes):
    """The number of weights and biases of an MLP with these layer sizes."""
    return sum((a + 1) * b for a, b in zip(layer_sizes[:-1], layer_sizes[1:], strict=True))
