"""Forward-mode jets through a multilayer perceptron, as autograd primitives.

A *jet* carries a layer's value and its first derivative with respect to the joint angles q together, in one
array X of shape (B, 1 + n, H):  X[:, 0] is the value h(q) and X[:, 1 + k] is dh/dq_k.  A dense layer
z = W h + b with activation a = s(z) maps a jet to a jet:

    value       a      = s(W h + b)
    derivative  da/dqk = s'(z) * (W dh/dqk)          (chain rule, exact: no finite differences)

`jet_mlp` does this for the whole network as ONE autograd primitive with a hand-written vector-Jacobian
product (`jet_backward`), so autograd still differentiates the loss with respect to every W and b (reverse
mode over the forward jet) but records one node instead of dozens: on a 2-core machine each autograd node
costs tens of microseconds, more than the arithmetic of a small layer.  Its gradient is tested with
autograd.test_util.check_grads.
"""
import numpy as np
from autograd.extend import defvjp_argnums, primitive


def periodic_features(q):
    """Input jet of the features phi(q) = [cos q, sin q]: shape (B, 1 + n, 2n).

    d cos(q_k)/dq_k = -sin(q_k) and d sin(q_k)/dq_k = cos(q_k); all other derivatives are zero.
    The features are bounded and 2*pi-periodic, like the true mass matrix and gravity.
    """
    B, n = q.shape
    c, s = np.cos(q), np.sin(q)
    X = np.zeros((B, 1 + n, 2 * n))
    X[:, 0, :n], X[:, 0, n:] = c, s
    k = np.arange(n)
    X[:, 1 + k, k] = -s
    X[:, 1 + k, n + k] = c
    return X


def _activation(z, act):
    """Value, first and second derivative of the activation at z.

    act: "isru", the smooth bounded s(z) = z / sqrt(1 + z^2) (tanh-like; one square root, several times
    cheaper than tanh in float64 on this CPU), or "tanh", or a boolean array over the output columns:
    softplus where True, identity where False.
    """
    if isinstance(act, str):
        if act == "isru":
            r = 1.0 / np.sqrt(1.0 + z * z)
            a = z * r
            d1 = r * r * r
            return a, d1, -3.0 * a * r * d1
        if act == "tanh":
            a = np.tanh(z)
            d1 = 1.0 - a * a
            return a, d1, -2.0 * a * d1
        raise ValueError(f"unknown activation {act!r}; use 'isru' or 'tanh'")
    a, d1, d2 = z.copy(), np.ones_like(z), np.zeros_like(z)
    zs = z[:, act]
    a[:, act] = np.logaddexp(0.0, zs)             # softplus, stable for large |z|
    d1[:, act] = sig = np.exp(zs - a[:, act])     # sigmoid = softplus'
    d2[:, act] = sig * (1.0 - sig)
    return a, d1, d2


def _matmul_T(X, W):
    """X @ W.T over the last axis as ONE 2-D matrix product (a 3-D @ runs many tiny products instead)."""
    return (X.reshape(-1, X.shape[-1]) @ W.T).reshape(*X.shape[:-1], W.shape[0])


def jet_forward(X, layers, hidden_act="isru", out_mask=None):
    """Push the input jet X (B, 1+n, H_0) through layers [(W, b), ...]; returns the output jet and, for the
    reverse pass, every layer's input jet, pre-activation jet Z and activation derivatives s'(z), s''(z)."""
    inputs, Zs = [], []
    for i, (W, b) in enumerate(layers):
        last = i == len(layers) - 1
        act = (np.zeros(W.shape[0], dtype=bool) if out_mask is None else out_mask) if last else hidden_act
        Z = _matmul_T(X, W)
        Z[:, 0] += b
        a, d1, d2 = _activation(Z[:, 0], act)
        inputs.append(X)
        Zs.append((Z, d1, d2))
        X = np.empty_like(Z)
        X[:, 0] = a
        X[:, 1:] = d1[:, None, :] * Z[:, 1:]
    return X, (inputs, Zs)


def jet_backward(layers, cache, G, input_grad=True):
    """Reverse pass through jet_forward: given G = d loss / d output jet, return [dW1, db1, dW2, db2, ...]
    and d loss / d input jet (None when input_grad is False: training never needs it)."""
    inputs, Zs = cache
    grads = []
    for k, ((W, b), X, (Z, d1, d2)) in reversed(list(enumerate(zip(layers, inputs, Zs)))):
        gZ = np.empty_like(Z)
        gZ[:, 0] = G[:, 0] * d1 + d2 * np.einsum("bkh,bkh->bh", G[:, 1:], Z[:, 1:])
        gZ[:, 1:] = G[:, 1:] * d1[:, None, :]
        gZ2 = gZ.reshape(-1, gZ.shape[-1])
        grads[:0] = [gZ2.T @ X.reshape(-1, X.shape[-1]), gZ[:, 0].sum(axis=0)]
        G = (gZ2 @ W).reshape(X.shape) if (k > 0 or input_grad) else None
    return grads, G


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
def jet_mlp(X, theta, sizes, hidden_act="isru", out_mask=None):
    """The network as ONE autograd primitive.

    X: input jet (B, 1+n, sizes[0]); theta: all weights and biases as one flat vector (layout of `unflatten`);
    hidden layers use hidden_act, the last layer softplus where out_mask is True and identity elsewhere.
    Returns the output jet (B, 1+n, sizes[-1]): the value and the q-derivative of every output.
    """
    J, cache = jet_forward(X, unflatten(theta, sizes), hidden_act, out_mask)
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
        grads, gX = jet_backward(layers, cache, G, input_grad=0 in argnums)
        out = {0: gX, 1: np.concatenate([gw.ravel() for gw in grads])}
        return tuple(out[i] for i in argnums)
    return vjp


defvjp_argnums(jet_mlp, _jet_mlp_vjp)
