"""Forward-mode jets through a multilayer perceptron, as one autograd primitive.

A *jet* carries a layer's value and its first derivative with respect to the joint angles q together.  Inside
the network a jet is one array X of shape (1 + n, B, H): X[0] is the value h(q) over the batch and X[1 + k] is
dh/dq_k.  A dense layer z = W h + b with activation a = s(z) maps a jet to a jet:

    value       a      = s(W h + b)
    derivative  da/dqk = s'(z) * (W dh/dqk)          (chain rule, exact: no finite differences)

The last layer is computed transposed, so the network's output jet J has shape (n_out, 1 + n, B): J[m, 0] is
output m over the batch and J[m, 1 + k] its derivative by q_k (what lesson_lib.model.structure works on, with the
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
    """In place over z (the pre-activation, overwritten by s(z)): returns s(z), the slope s'(z) that the
    derivative rows are multiplied by, and the curvature ratio s''(z) / s'(z) that the reverse pass needs.

    act: "isru", the smooth bounded s(z) = z / sqrt(1 + z^2) (tanh-like, with s' = (1 + z^2)^(-3/2) and
    s''/s' = -3 z / (1 + z^2); a square root is several times cheaper than tanh on this CPU), "tanh"
    (s' = 1 - s^2, s''/s' = -2 s) or "softplus" (s = log(1 + e^z) computed stably with logaddexp,
    s' = sigmoid(z), s''/s' = 1 - s').
    """
    if act == "isru":
        p = z * z
        p += 1.0
        np.reciprocal(p, out=p)                     # 1 / (1 + z^2)
        r = np.sqrt(p)
        s1 = p * r
        p *= z
        p *= -3.0
        z *= r
        return z, s1, p
    if act == "tanh":
        a = np.tanh(z, out=z)
        s1 = 1.0 - a * a
        return a, s1, a * -2.0
    if act == "softplus":
        a = np.logaddexp(0.0, z)
        s1 = np.exp(z - a)
        z[...] = a
        return z, s1, 1.0 - s1
    raise ValueError(f"unknown activation {act!r}; use 'isru' or 'tanh'")


def _hidden_forward(X, W, b, act):
    """One hidden layer on a jet X (1+n, B, H_in) -> (1+n, B, H_out), computed in place in the matrix
    product's result; returns it and the activation's slope and curvature ratio (for the reverse pass)."""
    K, B, _ = X.shape
    Z = (X.reshape(K * B, -1) @ W.T).reshape(K, B, -1)
    Z[0] += b
    _, s1, curv = _activate(Z[0], act)              # value row: s(z)
    Z[1:] *= s1                                     # derivative rows: s'(z) dz/dq_k
    return Z, (s1, curv)


def _output_forward(X, W, b, n_softplus):
    """The last layer, transposed: jet X (1+n, B, H) -> J (n_out, 1+n, B); softplus on the first n_softplus
    outputs, identity on the rest."""
    K, B, H = X.shape
    J = (W @ X.reshape(K * B, H).T).reshape(-1, K, B)
    J[:, 0] += b[:, None]
    if not n_softplus:
        return J, (None, None)
    _, s1, curv = _activate(J[:n_softplus, 0], "softplus")
    J[:n_softplus, 1:] *= s1[:, None]
    return J, (s1, curv)


def jet_forward(X, layers, hidden_act="isru", n_softplus=0):
    """Push the input jet X (1+n, B, H_0) through layers [(W, b), ...]; returns the output jet
    J (n_out, 1+n, B) and, for the reverse pass, every layer's input jet and activation slope and curvature."""
    jets, acts = [X], []
    for W, b in layers[:-1]:
        X, act = _hidden_forward(X, W, b, hidden_act)
        jets.append(X)
        acts.append(act)
    J, act = _output_forward(X, *layers[-1], n_softplus)
    return J, (jets + [J], acts + [act])


def jet_backward(layers, cache, G, grads, input_grad=True):
    """Reverse pass through jet_forward.  G = d loss / d J (n_out, 1+n, B); grads: the layers' (dW, db) arrays
    to fill (views into one flat gradient vector).  Returns d loss / d input jet (None if not input_grad).

    Through an activation with output jet A (A_0 = s(z), A_k = s'(z) dz/dq_k) and G = d loss / d A:
        d loss / d z        = s'(z) G_0 + s''(z) sum_k G_k dz/dq_k = s'(z) G_0 + (s''/s')(z) sum_k G_k A_k,
        d loss / d(dz/dq_k) = s'(z) G_k.
    """
    jets, acts = cache
    (W, _), (dW, db), X, J, (s1, curv) = layers[-1], grads[-1], jets[-2], jets[-1], acts[-1]
    K, B, H = X.shape
    G = G.copy()                                    # ours from here on: updated in place
    if s1 is not None:
        m = len(s1)
        bend = np.einsum("mkb,mkb,mb->mb", G[:m, 1:], J[:m, 1:], curv)
        G[:m] *= s1[:, None]
        G[:m, 0] += bend
    G2 = G.reshape(len(G), K * B)
    np.matmul(G2, X.reshape(K * B, H), out=dW)
    np.add.reduce(G[:, 0], axis=-1, out=db)
    G = (G2.T @ W).reshape(K, B, H)
    for i in range(len(layers) - 2, -1, -1):
        (W, _), (dW, db), X, A, (s1, curv) = layers[i], grads[i], jets[i], jets[i + 1], acts[i]
        bend = np.einsum("kbh,kbh,bh->bh", G[1:], A[1:], curv)
        G *= s1
        G[0] += bend
        G2 = G.reshape(K * B, -1)
        np.matmul(G2.T, X.reshape(K * B, -1), out=dW)
        np.add.reduce(G[0], axis=0, out=db)
        G = (G2 @ W).reshape(X.shape) if (i > 0 or input_grad) else None
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
    The network computes in X's precision (training passes float32 features, like PyTorch's default; the
    weights stay float64 and so does their gradient).
    """
    layers = unflatten(theta.astype(X.dtype, copy=False), sizes)
    J, cache = jet_forward(X, layers, hidden_act, n_softplus)
    _last_forward[:] = [J, (layers, cache)]
    return J


# autograd builds a primitive's vector-Jacobian product right after running it, on the very array it returned:
# keep that forward pass's intermediate jets so the reverse pass does not recompute them.
_last_forward = [None, None]


def _jet_mlp_vjp(argnums, ans, args, kwargs):
    X, theta, sizes, *rest = args
    J, kept = _last_forward
    _last_forward[:] = [None, None]
    if J is ans:
        layers, cache = kept
    else:
        layers = unflatten(theta.astype(X.dtype, copy=False), sizes)
        _, cache = jet_forward(X, layers, *rest, **kwargs)

    def vjp(G):
        gtheta = np.empty(theta.shape, X.dtype)
        gX = jet_backward(layers, cache, G, unflatten(gtheta, sizes), input_grad=0 in argnums)
        out = {0: gX, 1: gtheta.astype(theta.dtype, copy=False)}
        return tuple(out[i] for i in argnums)
    return vjp


defvjp_argnums(jet_mlp, _jet_mlp_vjp)
