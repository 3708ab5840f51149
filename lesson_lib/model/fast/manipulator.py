"""The manipulator equation's structure, from a network's outputs to the torque.

The network gives, at each q, the entries of a lower-triangular L(q) (diagonal already positive) and a
potential V(q) in units of v_scale joules (the DeLaN's potential_scale), each with its q-derivative (a jet, see
lesson_lib.model.fast.jet).  From them:

    M      = L L^T + eps I                                 symmetric positive-definite for any L
    dM/dqk = dL/dqk L^T + L dL/dqk^T
    Mdot   = sum_k dM/dqk qd_k
    c      = Mdot qd - 1/2 [qd^T dM/dqk qd]_k              (Christoffel symbols of the first kind)
    g      = dV/dq                                         (V = v_scale x the network's last output)
    tau    = M qdd + c + g

Shapes: the network's jet J is (n_L + 1, 1+n, B) with n_L = n(n+1)/2 (L's entries, diagonal first, then V);
the readable functions use L (B, n, n), dL and dM (B, n, n, n) indexed [b, k, i, j] = d(.)_ij / dq_k and
q, qd, qdd, tau (B, n).  `_torque_forward` and `_torque_backward` (the torque and its reverse pass, used by the
training loss lesson_lib.model.fast.loss for arms of more than quadratic.MAX_N joints and by the autograd primitive
`manipulator_torque`) keep the batch on the last axis instead, where each numpy operation runs over long
contiguous rows; the primitive's reverse pass reuses the forward pass's pieces (handed over by
lesson_lib.model.fast.primitive while autograd traces).  Their definition in plain autograd is
lesson_lib.model.definition.
"""
import numpy as np

from .primitive import fused_primitive


def tril_order(n):
    """(rows, cols) of a lower-triangular n x n matrix's entries in the network's output order: diagonal first."""
    rows, cols = np.tril_indices(n)
    order = np.argsort(rows != cols, kind="stable")
    return rows[order], cols[order]


def jet_factor(J, tril, eps):
    """The jet of L: Lj (n, n, 1+n, B) with Lj[i, j, 0] = L_ij (+ eps on the diagonal) and
    Lj[i, j, 1 + k] = dL_ij / dq_k, all over the batch (J may hold the values alone, (n_L + 1, 1, B): then Lj is
    (n, n, 1, B))."""
    rows, cols = tril
    n = int(np.count_nonzero(rows == cols))
    Lj = np.zeros((n, n, *J.shape[1:]), dtype=J.dtype)
    Lj[rows, cols] = J[:len(rows)]
    Lj[np.arange(n), np.arange(n), 0] += eps
    return Lj


def cholesky_factor(J, tril, eps, v_scale=1.0):
    """L (B, n, n) with eps added to its diagonal, dL/dq (B, n, n, n), g = dV/dq (B, n) and V (B,)."""
    Lj, n_L = jet_factor(J, tril, eps), len(tril[0])
    return (np.moveaxis(Lj[:, :, 0], -1, 0), np.moveaxis(Lj[:, :, 1:], (-1, -2), (0, 1)),
            v_scale * J[n_L, 1:].T, v_scale * J[n_L, 0])


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


def parts(J, qd, qdd, tril, eps, v_scale=1.0):
    """The three terms (M qdd, c, g) of the manipulator equation, each (B, n)."""
    L, dL, g, _ = cholesky_factor(J, tril, eps, v_scale)
    M, dM = mass_matrix(L, dL, eps)
    return np.einsum("bij,bj->bi", M, qdd), coriolis(dM, qd), g


def _torque_forward(J, qd, qdd, tril, eps, v_scale):
    """tau (n, B), batch last, and the pieces the reverse pass needs.

    The same numbers as the sum of `parts`, rearranged so every term is a product of L, dL and vectors.
    With Lj = jet_factor(J) (L and dL_k for K = 0 and K = k), u = L^T qd, a = L^T qdd, Ldot = sum_k qd_k dL_k
    and w = Ldot^T qd:
        M qdd = L a + eps qdd,   Mdot qd = Ldot u + L w,   1/2 qd^T dM_k qd = qd^T dL_k u = (dL_k^T qd) . u,
        tau = L (a + w) + sum_k qd_k dL_k u - [(dL_k^T qd) . u]_k + g + eps qdd.
    In arrays: V[:, K] = Lj_K^T qd (u and dL_k^T qd), z[:, 0] = a + w and z[:, k] = u, weights = (1, qd), so
        tau = sum_K weights_K Lj_K z_K - [V_k . u]_k + g + eps qdd.
    Each einsum is one pass over the batch.  Shapes: Lj (n, n, 1+n, B); V, z (n, 1+n, B); tau (n, B).
    """
    Lj = jet_factor(J, tril, eps)
    qdT, qddT = np.ascontiguousarray(qd.T), np.ascontiguousarray(qdd.T)
    weights = np.concatenate([np.ones_like(qdT[:1]), qdT])
    V = np.einsum("ijKb,ib->jKb", Lj, qdT)
    z = np.empty_like(V)
    np.einsum("jkb,kb->jb", V[:, 1:], qdT, out=z[:, 0])                  # w
    z[:, 0] += np.einsum("ijb,ib->jb", Lj[:, :, 0], qddT)                 # + a
    z[:, 1:] = V[:, :1]                                                   # u
    tau = np.einsum("ijKb,jKb,Kb->ib", Lj, z, weights)
    tau -= np.einsum("jkb,jb->kb", V[:, 1:], V[:, 0])
    tau += v_scale * J[len(tril[0]), 1:]
    tau += eps * qddT
    return tau, (Lj, qdT, qddT, weights, V, z)


def _torque_backward(J, pieces, tril, GT, v_scale):
    """d loss / d J (n_L + 1, 1+n, B) from G = d loss / d tau (GT, n x B): the chain rule back through
    `_torque_forward`, one batch column at a time written out (K = 0..n indexes the jet: Lj_0 = L, Lj_k = dL/dq_k;
    ω_0 = 1, ω_k = qd_k are the weights; i, j index joints):

        forward                                          reverse (g_X = d loss / d X)
        V_jK  = sum_i Lj_ijK qd_i                        g_Lj_ijK += qd_i g_V_jK
        z_j0  = a_j + w_j,  a_j = sum_i L_ij qdd_i,      g_L_ij   += qdd_i g_z_j0            (through a)
              w_j = sum_k V_jk qd_k                      g_V_jk   += g_z_j0 qd_k             (through w)
        z_jk  = u_j = V_j0            (k >= 1)           g_V_j0   += sum_k g_z_jk
        tau_i = sum_K ω_K sum_j Lj_ijK z_jK              g_Lz_iK   = G_i ω_K  (d loss / d (Lj_K z_K)_i)
                                                         g_z_jK    = sum_i Lj_ijK g_Lz_iK
                                                         g_Lj_ijK += g_Lz_iK z_jK
              - sum_j V_ji V_j0                          g_V_jk   -= G_k V_j0,  g_V_j0 -= sum_k G_k V_jk
              + v_scale dV/dq_i + eps qdd_i              g_J[V row, 1 + i] = v_scale G_i  (V's value: no effect)

    Finally L's entries sit at J's rows in `tril` order (Lj[rows, cols] = J[:n_L]; eps is a constant), so
    g_J[:n_L] = g_Lj[rows, cols].  tests/test_definition.py and test_delan's check_grads hold this to autograd's own."""
    Lj, qdT, qddT, weights, V, z = pieces
    rows, cols = tril
    g_Lz = GT[:, None] * weights                                          # (n, 1+n, B)
    g_z = np.einsum("ijKb,iKb->jKb", Lj, g_Lz)
    g_V = np.empty_like(V)
    np.subtract(g_z[:, 1:].sum(axis=1), np.einsum("jkb,kb->jb", V[:, 1:], GT), out=g_V[:, 0])   # u = V_0
    np.subtract(g_z[:, :1] * qdT, V[:, :1] * GT, out=g_V[:, 1:])                                # dL_k^T qd
    g_Lj = np.einsum("iKb,jKb->ijKb", g_Lz, z)
    g_Lj += np.einsum("ib,jKb->ijKb", qdT, g_V)
    g_Lj[:, :, 0] += np.einsum("ib,jb->ijb", qddT, g_z[:, 0])
    g_J = np.empty_like(J)
    g_J[:len(rows)] = g_Lj[rows, cols]
    g_J[len(rows), 0] = 0.0
    np.multiply(GT, v_scale, out=g_J[len(rows), 1:])
    return g_J


def _torque_pieces(J, qd, qdd, tril, eps, v_scale):
    tau, pieces = _torque_forward(J, qd, qdd, tril, eps, v_scale)
    return tau.T, pieces                                                  # (B, n), a view


def _torque_vjp(argnums, pieces, J, qd, qdd, tril, eps, v_scale):
    return lambda G: (_torque_backward(J, pieces, tril, G.T, v_scale),)


_manipulator_torque = fused_primitive(_torque_pieces, _torque_vjp, wrt=(0,))


def manipulator_torque(J, qd, qdd, tril, eps, v_scale=1.0):
    """tau = M qdd + c + g (B, n) from the network's jet J, as one autograd primitive (differentiable in J)."""
    return _manipulator_torque(J, qd, qdd, tril, eps, v_scale)
