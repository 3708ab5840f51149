"""Forward-mode jets through a multilayer perceptron, as one autograd primitive.

A *jet* carries a layer's value and its first derivative with respect to the joint angles q together.  Inside
the network a jet is one array X of shape (1 + n, B, H): X[0] is the value h(q) over the batch and X[1 + k] is
dh/dq_k.  A dense layer z = W h + b with activation a = s(z) maps a jet to a jet:

    value       a      = s(W h + b)
    derivative  da/dqk = s'(z) * (W dh/dqk)          (chain rule, exact: no finite differences)

The last layer is computed transposed, so the network's output jet J has shape (n_out, 1 + n, B): J[m, 0] is
output m over the batch and J[m, 1 + k] its derivative by q_k (what lesson_lib.structure works on, with the
batch on the last, contiguous axis).

`jet_mlp` runs the whole network as ONE autograd primitive with a hand-written vector-Jacobian product
(`jet_backward`), so autograd still differentiates the loss with respect to every W and b (reverse mode over
the forward jet) but records one node instead of dozens.  Each layer is one matrix product over all 1 + n
rows of the jet at once, and about ten in-place array operations: on a 2-core machine the number of numpy
calls, not the arithmetic, sets the time of a small network.  The gradient is tested with
autograd.test_util.check_grads.
"""
import numpy as np
from autograd.extend import defvjp_argnums, primitive


def periodic_features(q):
    """Input jet of the features phi(q) = [cos q, sin q]: shape (1 + n, B, 2n) for q of shape (B, n).

    d cos(q_k)/dq_k = -sin(q_k) and d sin(q_k)/dq_k = cos(q_k); all other derivatives are zero.
    The features are bounded and 2*pi-periodic, like the true mass matrix and gravity.
    """
    B, n = q.shape
    c, s = np.cos(q), np.sin(q)
    X = np.zeros((1 + n, B, 2 * n), dtype=q.dtype)
    X[0, :, :n], X[0, :, n:] = c, s
    k = np.arange(n)
    X[1 + k, :, k] = -s.T
    X[1 + k, :, n + k] = c.T
    return X


def _activate(z, act):
    """In place over z (the pre-activation): returns the value s(z), the slope s'(z) and the curvature
    ratio s''(z) / s'(z) that the reverse pass needs (the derivative rows carry s'(z) dz/dq).

    act: "isru", the smooth bounded s(z) = z / sqrt(1 + z^2) (tanh-like, with s' = (1 + z^2)^(-3/2) and
    s''/s' = -3 z / (1 + z^2); a square root is several times cheaper than tanh in float64 on this CPU),
    "tanh" (s' = 1 - s^2, s''/s' = -2 s) or "softplus" (s = log(1 + e^z) computed stably with logaddexp,
    s' = sigmoid(z), s''/s' = 1 - sigmoid(z)).
    """
    if act == "isru":
        r2 = z * z
        r2 += 1.0
        np.reciprocal(r2, out=r2)                   # 1 / (1 + z^2)
        r = np.sqrt(r2)
        slope = r2 * r
        r2 *= z
        r2 *= -3.0
        z *= r
        return z, slope, r2
    if act == "tanh":
        a = np.tanh(z, out=z)
        slope = 1.0 - a * a
        return a, slope, -2.0 * a
    if act == "softplus":
        a = np.logaddexp(0.0, z)
        slope = np.exp(z - a)
        return a, slope, 1.0 - slope
    raise ValueError(f"unknown activation {act!r}; use 'isru' or 'tanh'")


def _hidden_forward(X, W, b, act):
    """One hidden layer on a jet X (1+n, B, H_in) -> (1+n, B, H_out), and what its reverse pass needs."""
    K, B, _ = X.shape
    Z = (X.reshape(K * B, -1) @ W.T).reshape(K, B, -1)
    Z[0] += b
    a, slope, curv = _activate(Z[0], act)          # the value row is not needed again: overwritten by s(z)
    out = np.multiply(Z, slope)                     # derivative rows: s'(z) dz/dq_k
    out[0] = a
    return out, (X, Z, slope, curv)


def _output_forward(X, W, b, n_softplus):
    """The last layer, transposed: jet X (1+n, B, H) -> J (n_out, 1+n, B); softplus on the first n_softplus
    outputs, identity on the rest."""
    K, B, H = X.shape
    Z = (W @ X.reshape(K * B, H).T).reshape(-1, K, B)
    Z[:, 0] += b[:, None]
    J = Z.copy()
    slope = curv = None
    if n_softplus:
        a, slope, curv = _activate(Z[:n_softplus, 0].copy(), "softplus")
        J[:n_softplus, 0] = a
        J[:n_softplus, 1:] *= slope[:, None]
    return J, (X, Z, slope, curv)


def jet_forward(X, layers, hidden_act="isru", n_softplus=0):
    """Push the input jet X (1+n, B, H_0) through layers [(W, b), ...]; returns the output jet
    J (n_out, 1+n, B) and, for the reverse pass, what every layer kept."""
    cache = []
    for W, b in layers[:-1]:
        X, kept = _hidden_forward(X, W, b, hidden_act)
        cache.append(kept)
    J, kept = _output_forward(X, *layers[-1], n_softplus)
    return J, cache + [kept]


def _curvature_term(G, Z, slope, curv):
    """d loss / d z from the derivative rows: s''(z) sum_k G_k dz/dq_k = s'(z) * curv * sum_k G_k Z_k."""
    s = np.multiply(G[1:], Z[1:]).sum(axis=0)
    s *= curv
    s *= slope
    return s


def jet_backward(layers, cache, G, grads, input_grad=True):
    """Reverse pass through jet_forward.  G = d loss / d J (n_out, 1+n, B); grads: the layers' (dW, db) arrays
    to fill (views into one flat gradient vector).  Returns d loss / d input jet (None if not input_grad)."""
    (W, _), (X, Z, slope, curv), (dW, db) = layers[-1], cache[-1], grads[-1]
    K, B, H = X.shape
    gZ = G.copy()
    if slope is not None:
        m = len(slope)
        gZ[:m] *= slope[:, None]
        if K > 1:
            gZ[:m, 0] += _curvature_term(np.swapaxes(G[:m], 0, 1), np.swapaxes(Z[:m], 0, 1), slope, curv)
    gZ2 = gZ.reshape(len(gZ), K * B)
    np.matmul(gZ2, X.reshape(K * B, H), out=dW)
    np.sum(gZ[:, 0], axis=-1, out=db)
    G = (gZ2.T @ W).reshape(K, B, H)
    for i in range(len(layers) - 2, -1, -1):
        (W, _), (X, Z, slope, curv), (dW, db) = layers[i], cache[i], grads[i]
        gZ = np.multiply(G, slope)
        if K > 1:
            gZ[0] += _curvature_term(G, Z, slope, curv)
        gZ2 = gZ.reshape(K * B, -1)
        np.matmul(gZ2.T, X.reshape(K * B, -1), out=dW)
        np.sum(gZ[0], axis=0, out=db)
        G = (gZ2 @ W).reshape(X.shape) if (i > 0 or input_grad) else None
    return G


def unflatten(theta, sizes):
    """Layers [(W, b), ...] of an MLP with the given layer sizes, as views into the flat vector theta."""
    layers, k = [], 0
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        W = theta[k:k + fan_in * fan_out].reshape(fan_out, fan_in)
        k += fan_in * fan_out
        layers.append((W, theta[k:k + fan_out]))
        k += fan_out
    return layers


def n_weights(sizes):
    """Number of weights and biases of an MLP with these layer sizes."""
    return sum((a + 1) * b for a, b in zip(sizes[:-1], sizes[1:]))


@primitive
def jet_mlp(X, theta, sizes, hidden_act="isru", n_softplus=0):
    """The network as ONE autograd primitive.

    X: input jet (1+n, B, sizes[0]); theta: all weights and biases as one flat vector (layout of `unflatten`);
    hidden layers use hidden_act, the last layer softplus on its first n_softplus outputs and identity on the
    rest.  Returns the output jet J (sizes[-1], 1+n, B): the value and the q-derivatives of every output.
    """
    J, cache = jet_forward(X, unflatten(theta, sizes), hidden_act, n_softplus)
    _last_forward[:] = [J, cache]
    return J


# autograd builds a primitive's vector-Jacobian product right after running it, on the very array it returned:
# keep that forward pass's intermediate jets so the reverse pass does not recompute them.
_last_forward = [None, None]


def _jet_mlp_vjp(argnums, ans, args, kwargs):
    X, theta, sizes, *rest = args
    layers = unflatten(theta, sizes)
    J, cache = _last_forward
    if J is not ans:
        _, cache = jet_forward(X, layers, *rest, **kwargs)
    _last_forward[:] = [None, None]

    def vjp(G):
        gtheta = np.empty_like(theta)
        gX = jet_backward(layers, cache, G, unflatten(gtheta, sizes), input_grad=0 in argnums)
        out = {0: gX, 1: gtheta}
        return tuple(out[i] for i in argnums)
    return vjp


defvjp_argnums(jet_mlp, _jet_mlp_vjp)
