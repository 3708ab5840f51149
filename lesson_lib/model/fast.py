"""The fast path: the DeLaN's training loss and its gradient as ONE autograd node, the same numbers as
lesson_lib.model.definition.loss (tests/test_definition.py), with every reverse pass written by hand and derived
next to its code.  Only the models import it (DeLaN; the black box's network is `mlp`):

    loss_and_grad(theta, arch, batch)    (loss, d loss / d theta): what fit calls, without autograd's tape
    loss(theta, arch, batch)             the loss, differentiable by autograd in theta (one node)
    output_jet(theta, arch, q)           the network's jet J (n_out, 1+n, B), L's diagonal after softplus: what
                                         the DeLaN's public methods compute from (factor_and_potential reads it)
    jet_torque(arch, J, qd, qdd)         the definition's tau (B, n) from that jet
    network_jet(theta, arch, q)          definition.network_jet as one node (fit_verlet's forward dynamics)

How:

    X    = [cos q, sin q] and its q-derivatives: the input jet (1+n, B, 2n)        (input_jet)
    J    = the network pushed along the jet, one product per layer             (network_and_vjp; activate)
    tau  = M qdd + c + g as a quadratic form in J and the rates               (quadratic_torque)
    loss = mean((tau * inv_scale - target)^2)                                  (loss_and_vjp)

Reverse: d loss / d tau = 2 err inv_scale / err.size, through the quadratic form to d loss / d J
(quadratic_backward), through the network (the vjp network_and_vjp returns) to d loss / d theta.  Each forward
function returns its reverse pass as a closure over its own intermediates (fused_primitive).  Arms above
MAX_QUADRATIC_JOINTS differentiate the definition's loss by autograd.
"""
import functools

import autograd
import numpy as np
from autograd.extend import defvjp_argnums, primitive
from autograd.tracer import getval, isbox

from ..limits import MAX_QUADRATIC_JOINTS
from . import definition


# ---------------------------------------------------------------- activations: s, s' and s''/s' in place
def _isru(z):
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


def _tanh(z):
    """s = tanh z, s' = 1 - s^2, s''/s' = -2 s."""
    a = np.tanh(z, out=z)
    s1 = 1.0 - a * a
    return a, s1, a * -2.0


def _softplus(z):
    """s = log(1 + e^z) computed stably with logaddexp, s' = sigmoid(z) = e^(z - s), s''/s' = 1 - s'."""
    a = np.logaddexp(0.0, z)
    s1 = np.exp(z - a)
    z[...] = a
    return z, s1, 1.0 - s1


FAST = {"isru": _isru, "tanh": _tanh, "softplus": _softplus}      # definition.ACTIVATIONS' names


def activate(z, name):
    """(s(z), s'(z), s''(z)/s'(z)) of the activation `name`, computed in place over z (the reference is
    definition.ACTIVATIONS[name]).

    >>> s, slope, curvature = activate(np.array([0.5, 1.0]), "tanh")
    >>> s.round(3), slope.round(3), curvature.round(3)            # tanh, 1 - tanh^2, -2 tanh
    (array([0.462, 0.762]), array([0.786, 0.42 ]), array([-0.924, -1.523]))"""
    return FAST[name](z)


# ---------------------------------------------------------------- the network on a first-order jet in q
# A jet is one array X (1 + n, B, H): X[0] the value h(q) over the batch, X[1 + k] = dh/dq_k.  A layer maps a jet to
# a jet exactly, a = s(W h + b), da/dq_k = s'(z) * (W dh/dq_k); the last layer is computed transposed, the output jet
# J (n_out, 1 + n, B) with the batch on the contiguous axis.  The same numbers as definition.network_jet.
def input_jet(q):
    """Input jet of phi(q) = [cos q, sin q]: (1 + n, B, 2n) for q (B, n); d cos q_k / dq_k =
    -sin q_k, d sin q_k / dq_k = cos q_k, all other derivatives zero.

    >>> input_jet(np.array([[0.0, np.pi / 2]]))[:, 0].round(3) + 0.0   # rows: the value, d/dq_0, d/dq_1
    array([[ 1.,  0.,  0.,  1.],
           [ 0.,  0.,  1.,  0.],
           [ 0., -1.,  0.,  0.]])"""
    B, n = q.shape
    c, s = np.cos(q), np.sin(q)
    X = np.zeros((1 + n, B, 2 * n), dtype=q.dtype)
    X[0, :, :n], X[0, :, n:] = c, s
    for k in range(n):                              # row 1 + k: d phi / dq_k, nonzero in columns k and n + k
        X[1 + k, :, k] = -s[:, k]
        X[1 + k, :, n + k] = c[:, k]
    return X


# ---------------------------------------------------------------- a hidden layer on the jet: forward, then reverse
def hidden_forward(X, W, b, act):
    """z = W h + b, a = s(z) on a jet X (1+n, B, H_in) -> A (1+n, B, H_out), in place in the product;
    and the record (X, A, s', s''/s') for the reverse pass.

    >>> A, record = hidden_forward(np.ones((3, 1, 2)), np.eye(2), np.zeros(2), "tanh")
    >>> A[:, 0].round(3)                                          # tanh(1), and tanh'(1) on the derivative rows
    array([[0.762, 0.762],
           [0.42 , 0.42 ],
           [0.42 , 0.42 ]])"""
    K, B, H_in = X.shape
    A = (X.reshape(K * B, H_in) @ W.T).reshape(K, B, len(W))
    A[0] += b
    _, s1, curv = activate(A[0], act)               # value row: s(z)
    A[1:] *= s1                                     # derivative rows: s'(z) dz/dq_k
    return A, (X, A, s1, curv)


def hidden_backward(G, W, record, dW, db, input_grad=True):
    """Reverse pass of hidden_forward: G = d loss / d A (1+n, B, H_out), overwritten; fills dW and db; returns
    d loss / d X (or None if not input_grad).

    Through the activation with output jet A (A_0 = s(z), A_k = s'(z) dz/dq_k) and G = d loss / d A:
        d loss / d z        = s'(z) G_0 + s''(z) sum_k G_k dz/dq_k = s'(z) G_0 + (s''/s')(z) sum_k G_k A_k,
        d loss / d(dz/dq_k) = s'(z) G_k;
    then through z = W h + b: dW = sum over rows and batch of G x h, db = sum over the batch of G_0, d/dh = G W.

    >>> X, W = np.ones((3, 1, 2)), np.eye(2)
    >>> A, record = hidden_forward(X.copy(), W, np.zeros(2), "tanh")
    >>> dW, db = np.empty((2, 2)), np.empty(2)
    >>> hidden_backward(np.ones(A.shape), W, record, dW, db).shape, db.round(3)
    ((3, 1, 2), array([-0.859, -0.859]))"""
    X, A, s1, curv = record
    K, B, H_in = X.shape
    curvature = np.add.reduce(G[1:] * A[1:], axis=0)               # (s''/s')(z) sum_k G_k A_k
    curvature *= curv
    G *= s1
    G[0] += curvature
    G2 = G.reshape(K * B, len(W))
    np.matmul(G2.T, X.reshape(K * B, H_in), out=dW)
    np.matmul(np.ones(B, G.dtype), G[0], out=db)                  # the sum over the batch, as one product
    return (G2 @ W).reshape(X.shape) if input_grad else None


# ---------------------------------------------------------------- the output layer: forward, then reverse
def output_forward(X, W, b, n_softplus):
    """The last layer, transposed: X (1+n, B, H) -> J (n_out, 1+n, B), softplus on the first
    n_softplus outputs; and the record (X, J, s', s''/s') (None, None without softplus).

    >>> J, record = output_forward(np.ones((3, 4, 2)), np.ones((1, 2)), np.zeros(1), 0)
    >>> J.shape                                                   # (n_out, 1 + n, B)
    (1, 3, 4)"""
    K, B, H = X.shape
    J = (W @ X.reshape(K * B, H).T).reshape(len(W), K, B)
    J[:, 0] += b[:, None]
    if not n_softplus:
        return J, (X, J, None, None)
    _, s1, curv = activate(J[:n_softplus, 0], "softplus")
    J[:n_softplus, 1:] *= s1[:, None]
    return J, (X, J, s1, curv)


def output_backward(G, W, record, dW, db):
    """Reverse of output_forward: G = d loss / d J (not modified); fills dW, db; returns
    d loss / d X (1+n, B, H).  Through softplus as in hidden_backward.

    >>> X, W = np.ones((3, 4, 2)), np.ones((1, 2))
    >>> J, record = output_forward(X, W, np.zeros(1), 0)
    >>> dW, db = np.empty((1, 2)), np.empty(1)
    >>> output_backward(np.ones(J.shape), W, record, dW, db).shape, db
    ((3, 4, 2), array([4.]))"""
    X, J, s1, curv = record
    K, B, H = X.shape
    G = G.copy()                                    # ours from here on: updated in place
    if s1 is not None:
        m = len(s1)
        curvature = np.add.reduce(G[:m, 1:] * J[:m, 1:], axis=1)    # (s''/s')(z) sum_k G_k J_k
        curvature *= curv
        G[:m] *= s1[:, None]
        G[:m, 0] += curvature
    G2 = G.reshape(len(G), K * B)
    np.matmul(G2, X.reshape(K * B, H), out=dW)
    np.add.reduce(G[:, 0], axis=-1, out=db)
    return (G2.T @ W).reshape(K, B, H)


# ---------------------------------------------------------------- the network: its layers, and back
def network_and_vjp(X, theta, layer_sizes, activation, n_softplus):
    """The network on the input jet X (1+n, B, layer_sizes[0]) with the flat weights theta (definition.unflatten's
    layout): its output jet J (layer_sizes[-1], 1+n, B), softplus on the first n_softplus outputs, in X's precision;
    and vjp(G, argnums), the gradients of G . J in (X, theta)[i] for i in argnums, a closure over every layer's
    record.

    >>> X, theta = np.ones((3, 4, 2)), np.full(definition.n_weights((2, 3, 1)), 0.1)
    >>> J, vjp = network_and_vjp(X, theta, (2, 3, 1), "tanh", 0)
    >>> J.shape, [g.shape for g in vjp(np.ones(J.shape), (0, 1))]
    ((1, 3, 4), [(3, 4, 2), (13,)])"""
    layers = definition.unflatten(theta.astype(X.dtype, copy=False), layer_sizes)
    records, A = [], X
    for W, b in layers[:-1]:
        A, record = hidden_forward(A, W, b, activation)
        records.append(record)
    J, last = output_forward(A, *layers[-1], n_softplus)

    def vjp(G, argnums):
        gtheta = np.empty(theta.shape, X.dtype)
        grads = definition.unflatten(gtheta, layer_sizes)
        G = output_backward(G, layers[-1][0], last, *grads[-1])
        for i in reversed(range(len(records))):
            G = hidden_backward(G, layers[i][0], records[i], *grads[i], input_grad=i > 0 or 0 in argnums)
        return tuple({0: G, 1: gtheta.astype(theta.dtype, copy=False)}[i] for i in argnums)
    return J, vjp


# ---------------------------------------------------------------- the torque as a quadratic form in the jet
# tau = M qdd + c + g is a fixed polynomial of the jet J and the rates: quadratic in L's entries and their
# q-derivatives (M, c), linear in J (g), linear in qdd, quadratic in qd.  With a constant 1 appended to the jet,
#
#     Ja    = [J_1 .. J_P', 1]                                (P = P' + 1, P' = n_out (1 + n))
#     mono  = [qdd_1 .. qdd_n,  qd_j qd_k (j <= k),  1]       (Mo monomials)
#     tau_i = sum_m mono_m  Ja^T C_im Ja                      (C_im symmetric P x P, the same at every sample)
#
# Forward: F_ip = sum_{r,m} C_iprm Ja_r mono_m (ONE product over the batch), tau_i = sum_p Ja_p F_ip.
# Reverse: C symmetric in (p, r), so d loss / d J_p = 2 sum_i (d loss / d tau_i) F_ip.
# C is read off definition.torque by polarization (float64, once per n, eps, v_scale): the rate monomials'
# coefficients kappa from tau at (qd, qdd) = (0, 0), (0, e_j), (e_j, 0), (e_j + e_k, 0); each kappa(J) =
# J^T A J + 2 b.J + c from its values at 0, ±e_p and e_p + e_r.  The points are small whole numbers: exact to
# rounding.  C has n P^2 Mo entries (2,028 for n = 2, 188,160 for n = 4): arms up to MAX_QUADRATIC_JOINTS use it.
def fits(n):
    """Whether the torque of an n-joint arm is computed as a quadratic form (limits.MAX_QUADRATIC_JOINTS).

    >>> fits(2), fits(4)
    (True, False)"""
    return n <= MAX_QUADRATIC_JOINTS


@functools.cache
def _pairs(n):
    """(j, k) with j <= k: the monomials qd_j qd_k."""
    return np.triu_indices(n)


def monomials(qdT, qddT):
    """mono (Mo, B) from qd and qdd (n, B): [qdd, qd_j qd_k for j <= k, 1].

    >>> monomials(np.array([[2.0], [3.0]]), np.array([[5.0], [7.0]])).ravel()      # qdd, qd_0^2, qd_0 qd_1, qd_1^2, 1
    array([5., 7., 4., 6., 9., 1.])"""
    n, B = qdT.shape
    j, k = _pairs(n)
    mono = np.empty((n + len(j) + 1, B), qdT.dtype)
    mono[:n] = qddT
    np.multiply(qdT[j], qdT[k], out=mono[n:-1])
    mono[-1] = 1.0
    return mono


def _quadratic_parts(kappa, P):
    """(A, b, c) of kappa(J) = J^T A J + 2 b.J + c from its values at `_points`: kappa
    (..., 1 + 2P + P(P-1)/2) -> A (..., P, P), b (..., P), c (...)."""
    c, plus, minus, both = kappa[..., 0], kappa[..., 1:1 + P], kappa[..., 1 + P:1 + 2 * P], kappa[..., 1 + 2 * P:]
    p, r = np.triu_indices(P, 1)
    A = np.zeros(kappa.shape[:-1] + (P, P))
    A[..., np.arange(P), np.arange(P)] = (plus + minus) / 2 - c[..., None]
    A[..., p, r] = A[..., r, p] = (both - plus[..., p] - plus[..., r] + c[..., None]) / 2
    return A, (plus - minus) / 4, c


def _points(P):
    """The polarization points of a quadratic in P variables: 0, e_p, -e_p, e_p + e_r (p < r); (count, P)."""
    E = np.eye(P)
    p, r = np.triu_indices(P, 1)
    return np.concatenate([np.zeros((1, P)), E, -E, E[p] + E[r]])


def _rate_points(n):
    """(qd, qdd) points (count, n) each: (0, 0), (0, e_j), (e_j, 0), (e_j + e_k, 0) for j < k."""
    eye, (j, k) = np.eye(n), np.triu_indices(n, 1)
    qd = np.concatenate([np.zeros((1 + n, n)), eye, eye[j] + eye[k]])
    return qd, np.concatenate([np.zeros((1, n)), eye, np.zeros((n + len(j), n))])


def factor_and_potential(arch, J):
    """The definition's (L, dL, V, g) from an output jet J (n_out, 1+n, B) whose first n outputs are L's diagonal
    after softplus (as output_jet gives it); a jet without derivative rows gives dL (B, 0, n, n) and g (B, 0).

    >>> arch = definition.Architecture(2, (8,))
    >>> L, dL, V, g = factor_and_potential(arch, output_jet(np.full(definition.n_weights(arch.layer_sizes), 0.1), arch,
    ...                                                     np.zeros((3, 2))))
    >>> L.shape, dL.shape, V.shape, g.shape
    ((3, 2, 2), (3, 2, 2, 2), (3,), (3, 2))"""
    out, dout, n_L = J[:, 0].T, J[:, 1:].T, len(J) - 1
    return (*definition.place_factor(arch, out[:, :n_L], dout[:, :, :n_L]), *definition.potential_jet(arch, out, dout))


def definition_torque(arch, J, qd, qdd):
    """The definition's tau (n, B) from an output jet J as factor_and_potential reads it and qd, qdd (B, n).

    >>> arch = definition.Architecture(2, (8,))
    >>> J = output_jet(np.full(definition.n_weights(arch.layer_sizes), 0.1), arch, np.zeros((3, 2)))
    >>> bool(np.allclose(definition_torque(arch, J, np.ones((3, 2)), np.ones((3, 2))).T,
    ...                  jet_torque(arch, J, np.ones((3, 2)), np.ones((3, 2)))))
    True"""
    L, dL, _, g = factor_and_potential(arch, J)
    return definition.torque(arch, L, dL, g, qd, qdd).T


@functools.cache
def coefficients(n, eps, v_scale, dtype=np.float64):
    """C as a read-only matrix (n P, P Mo) in dtype, rows (i, p), columns (r, m), for the DeLaN's output
    order of L's entries (definition.tril_order)."""
    arch = definition.Architecture(n, (), eps=eps, potential_scale=v_scale)
    n_out = n * (n + 1) // 2 + 1
    P = n_out * (1 + n)
    jets, (qd, qdd) = _points(P), _rate_points(n)
    J = np.repeat(jets, len(qd), axis=0).T.reshape(n_out, 1 + n, -1)            # every jet with every rate
    tau = definition_torque(arch, J, np.tile(qd, (len(jets), 1)), np.tile(qdd, (len(jets), 1))
                            ).reshape(n, len(jets), len(qd))
    one, by_qdd, by_qd = tau[..., 0], tau[..., 1:1 + n], tau[..., 1 + n:1 + 2 * n]
    square = by_qd - one[..., None]                                              # kappa_jj
    j, k = _pairs(n)
    cross = np.empty(one.shape + (len(j),))
    diagonal = j == k
    cross[..., diagonal] = square
    jo, ko = j[~diagonal], k[~diagonal]
    cross[..., ~diagonal] = tau[..., 1 + 2 * n:] - by_qd[..., jo] - by_qd[..., ko] + one[..., None]
    kappa = np.concatenate([by_qdd - one[..., None], cross, one[..., None]], axis=-1)   # (n, jets, Mo), mono order
    A, b, c = _quadratic_parts(np.moveaxis(kappa, -1, 1), P)                    # (n, Mo, P, P), (n, Mo, P), (n, Mo)
    C = np.zeros((n, len(kappa[0, 0]), P + 1, P + 1))
    C[:, :, :P, :P] = A
    C[:, :, :P, P] = C[:, :, P, :P] = b
    C[:, :, P, P] = c
    C = np.moveaxis(C, 1, -1).reshape(n * (P + 1), (P + 1) * C.shape[1]).astype(dtype)   # (i, p) x (r, m)
    C.flags.writeable = False
    return C


def quadratic_torque(arch, J, qdT, qddT):
    """tau (n, B) from J (n_out, 1+n, B) and qd, qdd (n, B); and the form F (n, P, B) for the reverse pass.

    >>> arch = definition.Architecture(2, (8,))
    >>> J = output_jet(np.full(definition.n_weights(arch.layer_sizes), 0.1), arch, np.zeros((3, 2)))
    >>> tau, F = quadratic_torque(arch, J, np.ones((2, 3)), np.ones((2, 3)))
    >>> bool(np.allclose(tau, definition_torque(arch, J, np.ones((3, 2)), np.ones((3, 2)))))
    True"""
    n_out, K, B = J.shape
    P = n_out * K
    C = coefficients(arch.n_dof, arch.eps, arch.potential_scale, J.dtype.type)
    Ja = np.empty((P + 1, B), J.dtype)
    Ja[:P] = J.reshape(P, B)
    Ja[P] = 1.0
    mono = monomials(qdT, qddT)
    JM = (Ja[:, None] * mono).reshape((P + 1) * len(mono), B)                  # Ja_r mono_m, (P Mo, B)
    F = (C @ JM).reshape(arch.n_dof, P + 1, B)
    return np.einsum("ipb,pb->ib", F, Ja), F


def quadratic_backward(J, F, GT):
    """d loss / d J (n_out, 1+n, B) from GT = d loss / d tau (n, B): 2 sum_i G_i F_ip over the jet's entries.

    >>> arch = definition.Architecture(2, (8,))
    >>> J = output_jet(np.full(definition.n_weights(arch.layer_sizes), 0.1), arch, np.zeros((3, 2)))
    >>> tau, F = quadratic_torque(arch, J, np.ones((2, 3)), np.ones((2, 3)))
    >>> quadratic_backward(J, F, np.ones((2, 3))).shape == J.shape
    True"""
    P = J.size // J.shape[-1]
    gJ = np.einsum("ipb,ib->pb", F[:, :P], GT)
    gJ *= 2.0
    return gJ.reshape(J.shape)


# ---------------------------------------------------------------- one autograd node for many numpy operations
# A fused function runs many numpy operations as ONE autograd node, its reverse pass written by hand.  As micrograd
# keeps each _backward beside its forward, closing over its operands, forward(*args) returns (value, vjp): vjp(G,
# argnums) gives the gradients of G . value in args[i] for i in argnums, a closure over the forward pass's own
# intermediate arrays.  Untraced, the value alone is used; under autograd, `recorded` puts it on the tape as one
# node whose VJP is that closure.  Nothing outlives a call but what its caller (or autograd's tape) holds.
@primitive
def recorded(value, vjp, *args):
    """value, recorded by autograd as a function of args whose VJP is vjp(G, argnums), argnums counted in args."""
    return value


defvjp_argnums(recorded, lambda argnums, value, args, kwargs: lambda G: args[1](G, tuple(i - 2 for i in argnums)))


def fused_primitive(forward, wrt):
    """f(*args) = forward(*args)[0] as ONE autograd node, differentiable in the arguments at the positions wrt;
    forward(*args) -> (value, vjp) as above.

    >>> from autograd import grad
    >>> def forward(x):                                            # f(x) = sum x^2, its VJP a closure over 2 x
    ...     return np.sum(x * x), lambda G, argnums: (G * 2 * x,)
    >>> grad(fused_primitive(forward, wrt=(0,)))(np.array([1.0, -3.0]))
    array([ 2., -6.])"""
    def fused(*args):
        traced = tuple(i for i, a in enumerate(args) if isbox(a))
        if not set(traced) <= set(wrt):
            raise NotImplementedError(f"{forward.__name__} is differentiable only in arguments {wrt}, asked for "
                                      f"{traced}")
        value, vjp = forward(*map(getval, args))
        return recorded(value, vjp, *args) if traced else value
    return fused


# ---------------------------------------------------------------- the network's jet as one node
_mlp = fused_primitive(network_and_vjp, wrt=(0, 1))


def mlp(X, theta, layer_sizes, activation, n_softplus=0):
    """The network as ONE autograd node, differentiable in X and theta: input jet X (1+n, B, layer_sizes[0]) ->
    output jet J (layer_sizes[-1], 1+n, B); softplus on the first n_softplus outputs.  In X's precision.

    >>> mlp(np.ones((1, 4, 2)), np.full(definition.n_weights((2, 3, 1)), 0.1), (2, 3, 1), "tanh").shape
    (1, 1, 4)"""
    return _mlp(X, theta, layer_sizes, activation, n_softplus)


def network_jet(theta, arch, q):
    """definition.network_jet: the network's outputs (B, n_out) and q-derivatives (B, n, n_out) at q (B, n), the
    same numbers as one autograd node.

    >>> arch = definition.Architecture(2, (8,))
    >>> theta, q = np.full(definition.n_weights(arch.layer_sizes), 0.1), np.ones((3, 2))
    >>> all(np.allclose(a, b) for a, b in zip(network_jet(theta, arch, q), definition.network_jet(theta, arch, q)))
    True"""
    J = mlp(input_jet(q), theta, arch.layer_sizes, arch.activation)
    return J[:, 0].T, J[:, 1:].T


EVAL_CHUNK = 1024       # states per pass of `output_jet` (each state's jet is its own; benchmarks/bench_bench.py)


def output_jet(theta, arch, q, derivatives=True):
    """The network's output jet J (n_out, 1+n, B) at q (B, n), L's diagonal after softplus (what
    factor_and_potential reads), EVAL_CHUNK states per pass; without derivatives the values alone, (n_out, 1, B).

    >>> arch = definition.Architecture(2, (8,))
    >>> output_jet(np.full(definition.n_weights(arch.layer_sizes), 0.1), arch, np.zeros((5, 2))).shape
    (4, 3, 5)"""
    rows = slice(None) if derivatives else slice(0, 1)
    return np.concatenate([mlp(input_jet(q[i:i + EVAL_CHUNK])[rows], theta, arch.layer_sizes, arch.activation,
                               arch.n_dof) for i in range(0, max(len(q), 1), EVAL_CHUNK)], axis=-1)


def jet_torque(arch, J, qd, qdd):
    """definition.torque (B, n) from the output jet J (n_out, 1+n, B) (L's diagonal after softplus) and qd, qdd
    (B, n): its quadratic form where it fits, else the definition.

    >>> arch = definition.Architecture(2, (8,))
    >>> J = output_jet(np.full(definition.n_weights(arch.layer_sizes), 0.1), arch, np.zeros((3, 2)))
    >>> jet_torque(arch, J, np.zeros((3, 2)), np.zeros((3, 2))).shape         # at rest: gravity alone
    (3, 2)"""
    if fits(arch.n_dof):
        return quadratic_torque(arch, J, qd.T, qdd.T)[0].T
    return definition_torque(arch, J, qd, qdd).T


# ---------------------------------------------------------------- the training loss as one node
def loss_and_vjp(theta, arch, X, qd, qdd, target, inv_scale):
    """The loss mean((tau * inv_scale - target)^2) on the input jet X of the batch's q, and vjp(G, argnums) its
    gradient in theta (argnums (0,): theta alone is differentiable).

    >>> arch, ones = definition.Architecture(2, (8,)), np.ones((3, 2))
    >>> theta = np.full(definition.n_weights(arch.layer_sizes), 0.1)
    >>> value, vjp = loss_and_vjp(theta, arch, input_jet(ones), ones, ones, ones, ones)
    >>> bool(value >= 0), vjp(1.0)[0].shape == theta.shape
    (True, True)"""
    J, network_vjp = network_and_vjp(X, theta, arch.layer_sizes, arch.activation, arch.n_dof)
    err, form = quadratic_torque(arch, J, qd.T, qdd.T)
    err *= inv_scale.T                                                    # err is ours: scaled in place
    err -= target.T
    flat = err.reshape(-1)

    def vjp(G, argnums=(0,)):
        dtau = err * inv_scale.T
        dtau *= 2.0 * G / err.size                                        # d loss / d tau
        return network_vjp(quadratic_backward(J, form, dtau), (1,))     # d loss / d theta
    return (flat @ flat) / flat.size, vjp


_loss = fused_primitive(loss_and_vjp, wrt=(0,))


def _arguments(theta, arch, batch):
    q, qd, qdd, target, inv_scale = batch
    return theta, arch, input_jet(q), qd, qdd, target, inv_scale


def loss(theta, arch, batch):
    """definition.loss(theta, arch, batch), differentiable in theta, in the batch's precision.

    >>> arch, ones = definition.Architecture(2, (8,)), np.ones((3, 2))
    >>> theta = np.full(definition.n_weights(arch.layer_sizes), 0.1)
    >>> bool(np.isclose(loss(theta, arch, (ones,) * 5), definition.loss(theta, arch, (ones,) * 5)))
    True"""
    if fits(arch.n_dof):
        return _loss(*_arguments(theta, arch, batch))
    return definition.loss(theta, arch, batch, jet=network_jet)


def loss_and_grad(theta, arch, batch):
    """(loss(theta, arch, batch), its gradient in theta): the numbers autograd.value_and_grad(loss) gives, by the
    same two passes without autograd's tape.

    >>> from autograd import grad
    >>> arch, ones = definition.Architecture(2, (8,)), np.ones((3, 2))
    >>> theta = np.full(definition.n_weights(arch.layer_sizes), 0.1)
    >>> value, g = loss_and_grad(theta, arch, (ones,) * 5)
    >>> bool(np.allclose(g, grad(definition.loss)(theta, arch, (ones,) * 5)))
    True"""
    if fits(arch.n_dof):
        value, vjp = loss_and_vjp(*_arguments(theta, arch, batch))
        return value, vjp(1.0)[0]
    return autograd.value_and_grad(loss)(theta, arch, batch)
