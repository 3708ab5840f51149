"""The fast path: the DeLaN's training loss and its gradient as ONE autograd node, the same numbers as
lesson_lib.model.definition.loss (tests/test_definition.py), with every reverse pass written by hand and derived
next to its code.  Only the models import it (DeLaN; the black box's network is `mlp`):

    loss_and_grad(theta, arch, batch)    (loss, d loss / d theta): what fit calls, without autograd's tape
    loss(theta, arch, batch)             the loss, differentiable by autograd in theta (one node)
    output_jet(theta, arch, q)           the network's jet J (n_out, 1+n, B), L's diagonal after softplus: what
                                         the DeLaN's public methods compute from (lesson_lib.model.quadratic reads
                                         the definition's L, dL, V, g and tau off it)
    network_jet(theta, arch, q)          definition.network_jet as one node (fit_verlet's forward dynamics)

How:

    X    = [cos q, sin q] and its q-derivatives: the input jet (1+n, B, 2n)        (input_jet)
    J    = the network pushed along the jet, one product per layer             (network_and_vjp; activate)
    tau  = M qdd + c + g as a quadratic form in J and the rates    (quadratic.quadratic_torque)
    loss = mean((tau * inv_scale - target)^2)                                  (loss_and_vjp)

Reverse: d loss / d tau = 2 err inv_scale / err.size, through the quadratic form to d loss / d J
(quadratic.quadratic_backward), through the network (the vjp network_and_vjp returns) to d loss / d theta.  Each forward
function returns its reverse pass as a closure over its own intermediates (fused_primitive).  Arms above
MAX_QUADRATIC_JOINTS differentiate the definition's loss by autograd.
"""
import autograd
import numpy as np
from autograd.extend import defvjp_argnums, primitive
from autograd.tracer import getval, isbox

from . import definition, quadratic


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


# ---------------------------------------------------------------- one autograd node for many numpy operations
# A fused function runs many numpy operations as ONE autograd node, its reverse pass written by hand.  As micrograd
# keeps each _backward beside its forward, closing over its operands, forward(*args) returns (value, vjp): vjp(G,
# argnums) gives the gradients of G . value in args[i] for i in argnums, a closure over the forward pass's own
# intermediate arrays.  Untraced, the value alone is used; under autograd, `_recorded` puts it on the tape as one
# node whose VJP is that closure.  Nothing outlives a call but what its caller (or autograd's tape) holds.
@primitive
def _recorded(value, vjp, *args):
    """value, recorded by autograd as a function of args whose VJP is vjp(G, argnums), argnums counted in args."""
    return value


defvjp_argnums(_recorded, lambda argnums, value, args, kwargs: lambda G: args[1](G, tuple(i - 2 for i in argnums)))


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
        return _recorded(value, vjp, *args) if traced else value
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


def hidden_jet(theta, arch, q):
    """definition.hidden_jet as one jet X (1+n, B, H): the last hidden layer's value X[0] and q-derivatives X[1:], at
    q (B, n) (no autograd: what the potential's readout solve reads, lesson_lib.model.potential_readout).

    >>> arch = definition.Architecture(2, (8,))
    >>> theta, q = np.full(definition.n_weights(arch.layer_sizes), 0.1), np.ones((3, 2))
    >>> X, (h, dh) = hidden_jet(theta, arch, q), definition.hidden_jet(theta, arch, q)
    >>> bool(np.allclose(X[0], h) and np.allclose(X[1:], dh.transpose(1, 0, 2)))
    True"""
    X = input_jet(q)
    for W, b in definition.unflatten(theta, arch.layer_sizes)[:-1]:
        X, _ = hidden_forward(X, W, b, arch.activation)
    return X


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
    err, form = quadratic.quadratic_torque(arch, J, qd.T, qdd.T)
    err *= inv_scale.T                                                    # err is ours: scaled in place
    err -= target.T
    flat = err.reshape(-1)

    def vjp(G, argnums=(0,)):
        dtau = err * inv_scale.T
        dtau *= 2.0 * G / err.size                                        # d loss / d tau
        return network_vjp(quadratic.quadratic_backward(J, form, dtau), (1,))     # d loss / d theta
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
    if quadratic.fits(arch.n_dof):
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
    if quadratic.fits(arch.n_dof):
        value, vjp = loss_and_vjp(*_arguments(theta, arch, batch))
        return value, vjp(1.0)[0]
    return autograd.value_and_grad(loss)(theta, arch, batch)
