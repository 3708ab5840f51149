"""The network pushing a first-order jet in q through its layers: each layer's forward and reverse pass.

A jet is one array X (1 + n, B, H): X[0] the value h(q) over the batch, X[1 + k] = dh/dq_k.  A layer maps a jet
to a jet, exactly:

    a = s(W h + b),   da/dq_k = s'(z) * (W dh/dq_k)

The last layer is computed transposed: the output jet J is (n_out, 1 + n, B), the batch on the contiguous axis.
The same numbers as definition.network_jet; one matrix product per layer over all 1 + n rows."""

import numpy as np

from ..activations import activate


def periodic_features(q):
    """Input jet of phi(q) = [cos q, sin q]: (1 + n, B, 2n) for q (B, n); d cos q_k / dq_k =
    -sin q_k, d sin q_k / dq_k = cos q_k, all other derivatives zero."""
    B, n = q.shape
    c, s = np.cos(q), np.sin(q)
    X = np.zeros((1 + n, B, 2 * n), dtype=q.dtype)
    X[0, :, :n], X[0, :, n:] = c, s
    for k in range(n):                              # row 1 + k: d phi / dq_k, nonzero in columns k and n + k
        X[1 + k, :, k] = -s[:, k]
        X[1 + k, :, n + k] = c[:, k]
    return X


# ---------------------------------------------------------------- one hidden layer: forward, then reverse
def hidden_forward(X, W, b, act):
    """z = W h + b, a = s(z) on a jet X (1+n, B, H_in) -> A (1+n, B, H_out), in place in the product;
    and the record (X, A, s', s''/s') for the reverse pass."""
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
    """
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
    n_softplus outputs; and the record (X, J, s', s''/s') (None, None without softplus)."""
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
    d loss / d X (1+n, B, H).  Through softplus as in hidden_backward."""
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


# ---------------------------------------------------------------- the network: loops over the layers
def jet_forward(X, layers, hidden_act, n_softplus):
    """Push the input jet X (1+n, B, H_0) through layers [(W, b), ...]; returns the output jet J (n_out, 1+n, B)
    and the layers' records for the reverse pass."""
    records = []
    for W, b in layers[:-1]:
        X, record = hidden_forward(X, W, b, hidden_act)
        records.append(record)
    J, record = output_forward(X, *layers[-1], n_softplus)
    return J, records + [record]


def jet_backward(layers, records, G, grads, input_grad=True):
    """Reverse of jet_forward: G = d loss / d J (n_out, 1+n, B); grads: the layers' (dW, db) to fill.
    Returns d loss / d input jet (None if not input_grad)."""
    G = output_backward(G, layers[-1][0], records[-1], *grads[-1])
    for i in range(len(layers) - 2, -1, -1):
        G = hidden_backward(G, layers[i][0], records[i], *grads[i], input_grad=i > 0 or input_grad)
    return G
