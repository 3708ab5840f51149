"""The network pushing a first-order jet in q through its layers: each layer's forward and reverse pass.

A *jet* carries a layer's value and its first derivative with respect to the joint angles q together.  Inside
the network a jet is one array X of shape (1 + n, B, H): X[0] is the value h(q) over the batch and X[1 + k] is
dh/dq_k.  A dense layer z = W h + b with activation a = s(z) maps a jet to a jet:

    value       a      = s(W h + b)
    derivative  da/dqk = s'(z) * (W dh/dqk)          (chain rule, exact: no finite differences)

The last layer is computed transposed, so the network's output jet J has shape (n_out, 1 + n, B): J[m, 0] is
output m over the batch and J[m, 1 + k] its derivative by q_k, the batch on the last, contiguous axis.  The
same numbers as lesson_lib.model.definition.network_jet.  Each layer is one matrix product over all 1 + n rows
of the jet and about ten in-place array operations: on a 2-core machine the number of numpy calls, not the
arithmetic, sets the time of a small network.  lesson_lib.model.fast.fused makes the passes one autograd node.
"""

import numpy as np

from ..activations import activate


def periodic_features(q):
    """Input jet of the features phi(q) = [cos q, sin q]: shape (1 + n, B, 2n) for q of shape (B, n).

    d cos(q_k)/dq_k = -sin(q_k) and d sin(q_k)/dq_k = cos(q_k); all other derivatives are zero.
    The features are bounded and 2*pi-periodic, like the true mass matrix and gravity.
    """
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
    """One hidden layer z = W h + b, a = s(z) on a jet X (1+n, B, H_in) -> A (1+n, B, H_out), computed in place
    in the matrix product's result.  Returns A and the record the reverse pass needs: (X, A, s', s''/s')."""
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
    """The last layer, transposed: jet X (1+n, B, H) -> J (n_out, 1+n, B); softplus on the first n_softplus
    outputs (L's diagonal), identity on the rest.  Returns J and the record (X, J, s', s''/s') for the reverse
    pass (s' and s''/s' are None without softplus)."""
    K, B, H = X.shape
    J = (W @ X.reshape(K * B, H).T).reshape(len(W), K, B)
    J[:, 0] += b[:, None]
    if not n_softplus:
        return J, (X, J, None, None)
    _, s1, curv = activate(J[:n_softplus, 0], "softplus")
    J[:n_softplus, 1:] *= s1[:, None]
    return J, (X, J, s1, curv)


def output_backward(G, W, record, dW, db):
    """Reverse pass of output_forward: G = d loss / d J (n_out, 1+n, B) (not modified); fills dW and db; returns
    d loss / d X (1+n, B, H).  Through softplus as in hidden_backward, on the first len(s') outputs."""
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
    """Reverse pass through jet_forward.  G = d loss / d J (n_out, 1+n, B); grads: the layers' (dW, db) arrays
    to fill (views into one flat gradient vector).  Returns d loss / d input jet (None if not input_grad)."""
    G = output_backward(G, layers[-1][0], records[-1], *grads[-1])
    for i in range(len(layers) - 2, -1, -1):
        G = hidden_backward(G, layers[i][0], records[i], *grads[i], input_grad=i > 0 or input_grad)
    return G
