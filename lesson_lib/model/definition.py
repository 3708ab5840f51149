"""The whole DeLaN training loss in plain autograd: short, readable, and slow.

The same network, weights and loss as lesson_lib.model.DeLaN, written straight from the
equations in autograd.numpy, so that autograd's `grad` differentiates it.  No derivative
is written by hand: s'(z) comes from autograd's `elementwise_grad`.

    jet   a = s(z), z = W h + b,  da/dq_k = s'(z) * (W dh/dq_k)   (value and derivative)
    L     the first n outputs through softplus (+ eps) on the diagonal, the rest below it
    V     the last output times v_scale (the DeLaN's potential_scale, in J), so g = dV/dq is v_scale times
          its derivative row
    M     = L L^T + eps I,        dM/dq_k = dL/dq_k L^T + L dL/dq_k^T
    c     = Mdot qd - 1/2 [qd^T dM/dq_k qd]_k,   with Mdot = sum_k qd_k dM/dq_k
    tau   = M qdd + c + g
    loss  = mean over the batch and the joints of (tau * inv_scale - target)^2
            (inv_scale = sqrt(the sample's weight) / the joint's torque scale, target = measured tau * inv_scale:
            each sample's weighted, scaled squared error, as DeLaN.fit weighs it)

Shapes: q, qd, qdd, tau (B, n); a jet (h, dh) is h (B, H) and dh (B, n, H), with
dh[:, k] = dh/dq_k; L, M (B, n, n); dL, dM (B, n, n, n), [b, k, i, j] = d(.)_ij / dq_k.
theta is the DeLaN's flat weight vector (layout of lesson_lib.model.fast.jet.unflatten), sizes
its layer sizes (DeLaN.sizes: 2n features in, n(n+1)/2 entries of L and V out).  The
library computes the same numbers with one hand-written autograd primitive
(fast.loss.delan_loss) in DeLaN.loss; tests/test_definition.py checks both give
the same loss and gradient on model.training_batch(data), the batch fit builds.
"""
import autograd.numpy as np
from autograd import elementwise_grad

from ..facts import ACTIVATION, EPS, POTENTIAL_SCALE
from .activations import ACTIVATIONS
from .fast.jet import unflatten
from .fast.manipulator import tril_order


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


def network_jet(theta, q, sizes, activation=ACTIVATION):
    """The outputs (B, n_out) and their q-derivatives (B, n, n_out).
    The hidden layers use `activation`, the last layer is linear."""
    s = ACTIVATIONS[activation].reference
    *hidden, (W, b) = unflatten(theta, sizes)
    h, dh = features(q)
    for W_i, b_i in hidden:
        h, dh = layer_jet(W_i, b_i, h, dh, s, elementwise_grad(s))
    return h @ W.T + b, dh @ W.T


def cholesky_jet(out, dout, n, eps=EPS):
    """L (B, n, n) and dL (B, n, n, n) from the outputs: n diagonal entries
    (softplus + eps), then the n(n-1)/2 below the diagonal."""
    softplus = ACTIVATIONS["softplus"].reference
    # the diagonal: softplus (+ eps) on a jet, the layer rule once more
    diag = softplus(out[:, :n]) + eps
    ddiag = elementwise_grad(softplus)(out[:, :n])[:, None] * dout[:, :, :n]
    n_L = n * (n + 1) // 2
    entries = np.concatenate([diag, out[:, n:n_L]], 1)
    dentries = np.concatenate([ddiag, dout[:, :, n:n_L]], 2)
    rows, cols = tril_order(n)
    place = np.eye(n * n)[rows * n + cols].reshape(n_L, n, n)   # 0/1 table:
    L = np.einsum("bm,mij->bij", entries, place)           # entry m goes to
    dL = np.einsum("bkm,mij->bkij", dentries, place)       # (rows[m], cols[m])
    return L, dL


def manipulator_terms(theta, q, qd, sizes, activation=ACTIVATION, eps=EPS, v_scale=POTENTIAL_SCALE, jet=network_jet):
    """M(q) (B, n, n), c(q, qd) and g(q) (B, n): the pieces of the manipulator equation.  jet(theta, q, sizes,
    activation) gives the outputs and their q-derivatives: network_jet, or the same numbers from the fast path."""
    n = q.shape[1]
    out, dout = jet(theta, q, sizes, activation)
    L, dL = cholesky_jet(out, dout, n, eps)
    LT = np.swapaxes(L, 1, 2)
    M = L @ LT + eps * np.eye(n)
    dL_LT = dL @ LT[:, None]
    dM = dL_LT + np.swapaxes(dL_LT, 2, 3)
    Mdot = np.einsum("bkij,bk->bij", dM, qd)
    dT_dq = 0.5 * np.einsum("bkij,bi,bj->bk", dM, qd, qd)    # dT/dq_k
    c = np.einsum("bij,bj->bi", Mdot, qd) - dT_dq
    g = v_scale * dout[:, :, -1]
    return M, c, g


def torque(theta, q, qd, qdd, sizes, activation=ACTIVATION, eps=EPS, v_scale=POTENTIAL_SCALE):
    """tau = M(q) qdd + c(q, qd) + g(q), (B, n)."""
    M, c, g = manipulator_terms(theta, q, qd, sizes, activation, eps, v_scale)
    return np.einsum("bij,bj->bi", M, qdd) + c + g


def forward_dynamics(theta, q, qd, tau, sizes, activation=ACTIVATION, eps=EPS, v_scale=POTENTIAL_SCALE,
                     jet=network_jet):
    """qdd = M(q)^-1 (tau - c(q, qd) - g(q)), (B, n): the acceleration the torque gives (M is SPD: solvable)."""
    M, c, g = manipulator_terms(theta, q, qd, sizes, activation, eps, v_scale, jet)
    return np.linalg.solve(M, (tau - c - g)[:, :, None])[:, :, 0]


def loss(theta, batch, sizes, activation=ACTIVATION, eps=EPS, v_scale=POTENTIAL_SCALE):
    """The training loss of a batch (q, qd, qdd, target, inv_scale), each (B, n): the mean of
    (tau * inv_scale - target)^2, see the top of this module."""
    q, qd, qdd, target, inv_scale = batch
    tau = torque(theta, q, qd, qdd, sizes, activation, eps, v_scale)
    return np.mean((tau * inv_scale - target) ** 2)
