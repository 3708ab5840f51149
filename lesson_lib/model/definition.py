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
    """`name` if it is in ACTIVATIONS, else a ValueError listing the names there are.

    >>> check_activation("tanh")
    'tanh'"""
    return choice(argument, name, tuple(ACTIVATIONS))


class Architecture(NamedTuple):
    """What fixes a DeLaN's function of its weights: joints, hidden widths, activation, eps (kg m^2) and the
    potential's unit (J).

    >>> Architecture(n_dof=2, hidden=(32, 32))
    Architecture(n_dof=2, hidden=(32, 32), activation='isru', eps=0.001, potential_scale=20.0)"""
    n_dof: int
    hidden: tuple
    activation: str = ACTIVATION
    eps: float = EPS
    potential_scale: float = POTENTIAL_SCALE

    @property
    def layer_sizes(self):
        """The network's layer sizes: 2n features in; n(n+1)/2 entries of L and V out.

        >>> Architecture(2, (32, 32)).layer_sizes                         # [cos q, sin q] in; L_00, L_11, L_10, V out
        (4, 32, 32, 4)"""
        n = self.n_dof
        return (2 * n, *self.hidden, n * (n + 1) // 2 + 1)


def features(q):
    """The input jet: phi = [cos q, sin q] (B, 2n) and dphi/dq (B, n, 2n).

    >>> phi, dphi = features(np.array([[0.0, np.pi / 2]]))
    >>> phi.round(3), dphi.shape
    (array([[1., 0., 0., 1.]]), (1, 2, 4))"""
    one_hot = np.eye(q.shape[1])                    # d q_j / d q_k
    dcos = -np.sin(q)[:, :, None] * one_hot
    dsin = np.cos(q)[:, :, None] * one_hot
    return np.concatenate([np.cos(q), np.sin(q)], 1), np.concatenate([dcos, dsin], 2)


def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh); ds(z) = s'(z).  Returns (a, da).

    >>> a, da = layer_jet(np.eye(2), np.zeros(2), np.array([[1.0, 2.0]]), np.array([[[1.0, 0.0]]]), np.tanh,
    ...                   lambda z: 1 - np.tanh(z) ** 2)
    >>> a.round(3), da.round(3)                                   # tanh(h) and tanh'(h) dh
    (array([[0.762, 0.964]]), array([[[0.42, 0.  ]]]))"""
    z = h @ W.T + b
    return s(z), ds(z)[:, None, :] * (dh @ W.T)


def hidden_jet(theta, arch, q):
    """The last hidden layer's jet: h (B, H) and dh/dq (B, n, H) (the features, when there is no hidden layer).

    >>> arch = Architecture(2, (8,))
    >>> h, dh = hidden_jet(np.full(n_weights(arch.layer_sizes), 0.1), arch, np.zeros((5, 2)))
    >>> h.shape, dh.shape                                         # (B, H), (B, n, H)
    ((5, 8), (5, 2, 8))"""
    s = ACTIVATIONS[arch.activation]
    h, dh = features(q)
    for W_i, b_i in unflatten(theta, arch.layer_sizes)[:-1]:
        h, dh = layer_jet(W_i, b_i, h, dh, s, elementwise_grad(s))
    return h, dh


def network_jet(theta, arch, q):
    """The network's outputs (B, n_out) and their q-derivatives (B, n, n_out); the last layer is linear.

    >>> arch = Architecture(2, (8,))
    >>> out, dout = network_jet(np.full(n_weights(arch.layer_sizes), 0.1), arch, np.zeros((5, 2)))
    >>> out.shape, dout.shape                                     # (B, n_out), (B, n, n_out)
    ((5, 4), (5, 2, 4))"""
    W, b = unflatten(theta, arch.layer_sizes)[-1]
    h, dh = hidden_jet(theta, arch, q)
    return h @ W.T + b, dh @ W.T


def cholesky_jet(arch, out, dout):
    """L (B, n, n) and dL (B, n, n, n) from the outputs: softplus on the n diagonal entries, then placed.

    >>> arch = Architecture(2, (8,))
    >>> L, dL = cholesky_jet(arch, np.array([[0.0, 0.0, 1.0, 5.0]]), np.zeros((1, 2, 4)))
    >>> L.round(3)                                                # softplus(0) = log 2 on the diagonal
    array([[[0.693, 0.   ],
            [1.   , 0.693]]])"""
    n, softplus = arch.n_dof, ACTIVATIONS["softplus"]
    n_L = n * (n + 1) // 2
    ddiag = elementwise_grad(softplus)(out[:, :n])[:, None] * dout[:, :, :n]
    return place_factor(arch, np.concatenate([softplus(out[:, :n]), out[:, n:n_L]], 1),
                        np.concatenate([ddiag, dout[:, :, n:n_L]], 2))


def place_factor(arch, entries, dentries):
    """L = the entries (B, n_L) in their places, and dL from their derivatives (B, n, n_L).  The diagonal entries
    must be positive already (softplus).

    >>> L, dL = place_factor(Architecture(2, ()), np.array([[1.0, 2.0, 3.0]]), np.zeros((1, 2, 3)))
    >>> L
    array([[[1., 0.],
            [3., 2.]]])"""
    return lower_triangular(arch.n_dof, entries), lower_triangular(arch.n_dof, dentries)


def lower_triangular(n, entries):
    """(..., n, n) from L's n(n+1)/2 entries (..., n_L) in the network's output order (tril_order).

    >>> lower_triangular(3, np.arange(1.0, 7.0))                 # the diagonal first, then below it
    array([[1., 0., 0.],
           [4., 2., 0.],
           [5., 6., 3.]])"""
    return np.reshape(entries @ _placement(n, entries.dtype), entries.shape[:-1] + (n, n))


@functools.cache
def tril_order(n):
    """(rows, cols) of L's entries in the network's output order: the diagonal first, then below it.

    >>> rows, cols = tril_order(3)
    >>> list(zip(rows.tolist(), cols.tolist()))                     # (0, 0), (1, 1), (2, 2), then below the diagonal
    [(0, 0), (1, 1), (2, 2), (1, 0), (2, 0), (2, 1)]"""
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
    """V (B,) and g = dV/dq (B, n): the last output in units of potential_scale joules.

    >>> V, g = potential_jet(Architecture(2, (), potential_scale=20.0), np.array([[0.5]]), np.array([[[0.1], [0.0]]]))
    >>> V, g                                                      # in units of 20 J
    (array([10.]), array([[2., 0.]]))"""
    return arch.potential_scale * out[:, -1], arch.potential_scale * dout[:, :, -1]


def mass_matrix_jet(arch, L, dL):
    """M = L L^T + eps I (B, n, n) and dM/dq_k = dL_k L^T + (dL_k L^T)^T (B, n, n, n).

    >>> M, dM = mass_matrix_jet(Architecture(2, (), eps=1e-3), np.eye(2)[None], np.zeros((1, 2, 2, 2)))
    >>> M[0]
    array([[1.001, 0.   ],
           [0.   , 1.001]])"""
    LT = np.swapaxes(L, 1, 2)
    dL_LT = dL @ LT[:, None]
    return L @ LT + arch.eps * np.eye(arch.n_dof, dtype=L.dtype), dL_LT + np.swapaxes(dL_LT, 2, 3)


def coriolis(dM, qd):
    """c = Mdot qd - 1/2 [qd^T dM/dq_k qd]_k (B, n), Mdot = sum_k qd_k dM/dq_k: from dM/dq alone.

    >>> dM = np.zeros((1, 2, 2, 2))
    >>> dM[0, 1, 0, 0] = 1.0                                       # dM_00 / dq_1 = 1
    >>> coriolis(dM, np.array([[1.0, 1.0]]))                      # Mdot qd - 1/2 [qd^T dM/dq_k qd]_k
    array([[ 1. , -0.5]])"""
    Mdot = np.einsum("bkij,bk->bij", dM, qd)
    return np.einsum("bij,bj->bi", Mdot, qd) - 0.5 * np.einsum("bkij,bi,bj->bk", dM, qd, qd)


def parts(arch, L, dL, g, qd, qdd):
    """The manipulator equation's three terms (M(q) qdd, c(q, qd), g(q)), each (B, n), from L, dL/dq and g at q.

    >>> arch = Architecture(2, ())
    >>> M_qdd, c, g = parts(arch, np.eye(2)[None], np.zeros((1, 2, 2, 2)), np.array([[1.0, 0.0]]), np.zeros((1, 2)),
    ...                     np.array([[2.0, 0.0]]))
    >>> M_qdd.round(3), c, g                                      # M = I + eps I
    (array([[2.002, 0.   ]]), array([[0., 0.]]), array([[1., 0.]]))"""
    M, dM = mass_matrix_jet(arch, L, dL)
    return np.einsum("bij,bj->bi", M, qdd), coriolis(dM, qd), g


def torque(arch, L, dL, g, qd, qdd):
    """tau = M(q) qdd + c(q, qd) + g(q) (B, n): the sum of the parts.

    >>> arch = Architecture(2, ())
    >>> torque(arch, np.eye(2)[None], np.zeros((1, 2, 2, 2)), np.array([[1.0, 0.0]]), np.zeros((1, 2)),
    ...        np.array([[2.0, 0.0]])).round(3)
    array([[3.002, 0.   ]])"""
    return sum(parts(arch, L, dL, g, qd, qdd))


def forward_dynamics(arch, L, dL, g, qd, tau):
    """qdd = M(q)^-1 (tau - c(q, qd) - g(q)) (B, n): the acceleration the torque gives (M is SPD: solvable).

    >>> arch = Architecture(2, (), eps=0.0)
    >>> forward_dynamics(arch, 2 * np.eye(2)[None], np.zeros((1, 2, 2, 2)), np.zeros((1, 2)), np.zeros((1, 2)),
    ...                  np.array([[4.0, 8.0]]))                   # M = 4 I: qdd = tau / 4
    array([[1., 2.]])"""
    M, dM = mass_matrix_jet(arch, L, dL)
    return np.linalg.solve(M, (tau - coriolis(dM, qd) - g)[:, :, None])[:, :, 0]


def learned_jet(theta, arch, q, jet=network_jet):
    """L, dL (the Cholesky factor's jet) and g at q, from the network's outputs jet(theta, arch, q): network_jet,
    or the same numbers as one autograd node (fast.network_jet).

    >>> arch = Architecture(2, (8,))
    >>> L, dL, g = learned_jet(np.full(n_weights(arch.layer_sizes), 0.1), arch, np.zeros((3, 2)))
    >>> L.shape, dL.shape, g.shape
    ((3, 2, 2), (3, 2, 2, 2), (3, 2))"""
    out, dout = jet(theta, arch, q)
    return (*cholesky_jet(arch, out, dout), potential_jet(arch, out, dout)[1])


def loss(theta, arch, batch, jet=network_jet):
    """The training loss of a batch (q, qd, qdd, target, inv_scale), each (B, n): mean (tau * inv_scale -
    target)^2.

    >>> arch = Architecture(2, (8,))
    >>> theta, ones = np.full(n_weights(arch.layer_sizes), 0.1), np.ones((3, 2))
    >>> bool(loss(theta, arch, (ones, ones, ones, ones, ones)) >= 0)
    True"""
    q, qd, qdd, target, inv_scale = batch
    tau = torque(arch, *learned_jet(theta, arch, q, jet), qd, qdd)
    return np.mean((tau * inv_scale - target) ** 2)


def unflatten(theta, layer_sizes):
    """Layers [(W, b), ...] of an MLP with these layer sizes, as views into the flat vector theta.

    >>> [(W.shape, b.shape) for W, b in unflatten(np.zeros(n_weights((4, 8, 4))), (4, 8, 4))]
    [((8, 4), (8,)), ((4, 8), (4,))]"""
    layers, k = [], 0
    for fan_in, fan_out in zip(layer_sizes[:-1], layer_sizes[1:], strict=True):
        W = theta[k:k + fan_in * fan_out].reshape(fan_out, fan_in)
        k += fan_in * fan_out
        layers.append((W, theta[k:k + fan_out]))
        k += fan_out
    return layers


def n_weights(layer_sizes):
    """The number of weights and biases of an MLP with these layer sizes.

    >>> n_weights((4, 32, 32, 4))                                 # (4 + 1) 32 + (32 + 1) 32 + (32 + 1) 4
    1348"""
    return sum((a + 1) * b for a, b in zip(layer_sizes[:-1], layer_sizes[1:], strict=True))
