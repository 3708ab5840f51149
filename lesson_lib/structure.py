"""The manipulator equation's structure, from a network's outputs to the torque.

The network gives, at each q, the entries of a lower-triangular L(q) (diagonal already positive) and a
potential V(q), each with its q-derivative (a jet, see lesson_lib.jet).  From them:

    M      = L L^T + eps I                                 symmetric positive-definite for any L
    dM/dqk = dL/dqk L^T + L dL/dqk^T
    Mdot   = sum_k dM/dqk qd_k
    c      = Mdot qd - 1/2 [qd^T dM/dqk qd]_k              (Christoffel symbols of the first kind)
    g      = dV/dq
    tau    = M qdd + c + g

Shapes: J (B, 1+n, n_L+1) with n_L = n(n+1)/2; L (B, n, n); dL and dM (B, n, n, n) indexed [b, k, i, j] =
d(.)_ij / dq_k; q, qd, qdd, tau (B, n).
"""
import numpy as np
from autograd.extend import defvjp, primitive


def placement(n):
    """(n_L, n*n) 0/1 matrix placing the n_L network outputs into a lower-triangular L, diagonal first."""
    rows, cols = np.tril_indices(n)
    order = np.argsort(rows != cols, kind="stable")
    P = np.zeros((len(rows), n * n))
    P[np.arange(len(rows)), rows[order] * n + cols[order]] = 1.0
    return P


def cholesky_factor(J, P, eps):
    """L (B, n, n) with eps added to its diagonal, dL/dq (B, n, n, n), g = dV/dq (B, n) and V (B,)."""
    B, n1, _ = J.shape
    n, n_L = n1 - 1, P.shape[0]
    Lall = (J[:, :, :n_L] @ P).reshape(B, n1, n, n)
    return Lall[:, 0] + eps * np.eye(n), Lall[:, 1:], J[:, 1:, n_L], J[:, 0, n_L]


def mass_matrix(L, dL, eps):
    """M = L L^T + eps I and dM/dq_k = dL_k L^T + (dL_k L^T)^T."""
    LT = np.swapaxes(L, -1, -2)
    dLLT = dL @ LT[:, None]
    return L @ LT + eps * np.eye(L.shape[-1]), dLLT + np.swapaxes(dLLT, -1, -2)


def coriolis(dM, qd):
    """c = Mdot qd - 1/2 [qd^T dM_k qd]_k from dM/dq (B, n, n, n) and qd (B, n)."""
    Mdot = np.einsum("bkij,bk->bij", dM, qd)
    quad = np.einsum("bkij,bi,bj->bk", dM, qd, qd)
    return np.einsum("bij,bj->bi", Mdot, qd) - 0.5 * quad


def parts(J, qd, qdd, P, eps):
    """The three terms (M qdd, c, g) of the manipulator equation, each (B, n)."""
    L, dL, g, _ = cholesky_factor(J, P, eps)
    M, dM = mass_matrix(L, dL, eps)
    return np.einsum("bij,bj->bi", M, qdd), coriolis(dM, qd), g


def _torque_pieces(J, qd, qdd, P, eps):
    """The products of L, dL and the velocities that the fast torque formula and its gradient share."""
    L, dL, g, _ = cholesky_factor(J, P, eps)
    u = np.einsum("bij,bi->bj", L, qd)                            # L^T qd
    a = np.einsum("bij,bi->bj", L, qdd)                           # L^T qdd
    Ldot = np.einsum("bkij,bk->bij", dL, qd)                      # sum_k qd_k dL_k
    w = np.einsum("bij,bi->bj", Ldot, qd)                         # Ldot^T qd
    dLT_qd = np.einsum("bkij,bi->bkj", dL, qd)                    # rows (dL_k^T qd)
    return L, g, u, a, Ldot, w, dLT_qd


@primitive
def manipulator_torque(J, qd, qdd, P, eps):
    """tau = M qdd + c + g from the network's jet J, as one autograd primitive (differentiable in J).

    The same numbers as the sum of `parts`, rearranged so every term is a product of L, dL and vectors:
    with u = L^T qd, a = L^T qdd, Ldot = sum_k qd_k dL_k and w = Ldot^T qd,
        M qdd = L a + eps qdd,   Mdot qd = Ldot u + L w,   1/2 qd^T dM_k qd = qd^T dL_k u = (dL_k^T qd) . u,
        tau = L (a + w) + Ldot u - [(dL_k^T qd) . u]_k + g + eps qdd.
    """
    pieces = _torque_pieces(J, qd, qdd, P, eps)
    L, g, u, a, Ldot, w, dLT_qd = pieces
    tau = (np.einsum("bij,bj->bi", L, a + w) + np.einsum("bij,bj->bi", Ldot, u)
           - np.einsum("bkj,bj->bk", dLT_qd, u) + g + eps * qdd)
    _last_forward[:] = [tau, pieces]
    return tau


_last_forward = [None, None]     # as in lesson_lib.jet: reuse the forward pass's pieces in the reverse pass


def _torque_vjp(ans, J, qd, qdd, P, eps):
    """Reverse mode of manipulator_torque with respect to J: the chain rule through the products above,
    then P^T maps dL and d(dL) back onto J's columns (and dg onto the potential's derivative column)."""
    B, n1, n_out = J.shape
    n, n_L = n1 - 1, P.shape[0]
    tau, pieces = _last_forward
    if tau is not ans:
        pieces = _torque_pieces(J, qd, qdd, P, eps)
    _last_forward[:] = [None, None]
    L, _, u, a, Ldot, w, dLT_qd = pieces

    def vjp(G):
        v = np.einsum("bij,bi->bj", L, G)                         # L^T G
        gu = np.einsum("bij,bi->bj", Ldot, G) - np.einsum("bk,bkj->bj", G, dLT_qd)
        gL = G[:, :, None] * (a + w)[:, None, :] + qdd[:, :, None] * v[:, None, :] + qd[:, :, None] * gu[:, None, :]
        gLdot = qd[:, :, None] * v[:, None, :] + G[:, :, None] * u[:, None, :]
        gdL = qd[:, :, None, None] * gLdot[:, None] - G[:, :, None, None] * (qd[:, :, None] * u[:, None, :])[:, None]
        gLall = np.concatenate([gL[:, None], gdL], axis=1).reshape(B, n1, n * n)
        gJ = np.zeros_like(J)
        gJ[:, :, :n_L] = gLall @ P.T
        gJ[:, 1:, n_L] = G
        return gJ
    return vjp


defvjp(manipulator_torque, _torque_vjp)
