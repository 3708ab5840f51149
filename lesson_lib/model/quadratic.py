"""What the network's output jet means: the definition's L, dL/dq, V and g read off it, and the torque as a
quadratic form in it (the fast path's, lesson_lib.model.fast; the DeLaN's public methods).

An output jet J (n_out, 1+n, B) holds, for every state of a batch, the network's outputs and their q-derivatives:
first L's n diagonal entries after softplus, then the n(n-1)/2 below the diagonal (definition.tril_order), then V
in units of potential_scale joules.  factor_and_potential reads (L, dL, V, g) off it; jet_torque gives tau.
"""
import functools

import numpy as np

from ..limits import MAX_QUADRATIC_JOINTS
from . import definition


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
    >>> from lesson_lib.model.fast import output_jet
    >>> L, dL, V, g = factor_and_potential(arch, output_jet(np.full(definition.n_weights(arch.layer_sizes), 0.1), arch,
    ...                                                     np.zeros((3, 2))))
    >>> L.shape, dL.shape, V.shape, g.shape
    ((3, 2, 2), (3, 2, 2, 2), (3,), (3, 2))"""
    out, dout, n_L = J[:, 0].T, J[:, 1:].T, len(J) - 1
    return (*definition.place_factor(arch, out[:, :n_L], dout[:, :, :n_L]), *definition.potential_jet(arch, out, dout))


def definition_torque(arch, J, qd, qdd):
    """The definition's tau (n, B) from an output jet J as factor_and_potential reads it and qd, qdd (B, n).

    >>> arch = definition.Architecture(2, (8,))
    >>> from lesson_lib.model.fast import output_jet
    >>> J = output_jet(np.full(definition.n_weights(arch.layer_sizes), 0.1), arch, np.zeros((3, 2)))
    >>> bool(np.allclose(definition_torque(arch, J, np.ones((3, 2)), np.ones((3, 2))).T,
    ...                  jet_torque(arch, J, np.ones((3, 2)), np.ones((3, 2)))))
    True"""
    L, dL, _, g = factor_and_potential(arch, J)
    return definition.torque(arch, L, dL, g, qd, qdd).T


@functools.cache
def coefficients(n, eps, v_scale, dtype=np.float64):
    """C as a read-only matrix (n P, P Mo) in dtype, rows (i, p), columns (r, m), for the DeLaN's output
    order of L's entries (definition.tril_order).

    >>> C = coefficients(2, 1e-3, 20.0)
    >>> C.shape, C.flags.writeable                                  # n P = 2 x 13 rows, P Mo = 13 x 6 columns
    ((26, 78), False)"""
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
    >>> from lesson_lib.model.fast import output_jet
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
    >>> from lesson_lib.model.fast import output_jet
    >>> J = output_jet(np.full(definition.n_weights(arch.layer_sizes), 0.1), arch, np.zeros((3, 2)))
    >>> tau, F = quadratic_torque(arch, J, np.ones((2, 3)), np.ones((2, 3)))
    >>> quadratic_backward(J, F, np.ones((2, 3))).shape == J.shape
    True"""
    P = J.size // J.shape[-1]
    gJ = np.einsum("ipb,ib->pb", F[:, :P], GT)
    gJ *= 2.0
    return gJ.reshape(J.shape)


def jet_torque(arch, J, qd, qdd):
    """definition.torque (B, n) from the output jet J (n_out, 1+n, B) (L's diagonal after softplus) and qd, qdd
    (B, n): its quadratic form where it fits, else the definition.

    >>> arch = definition.Architecture(2, (8,))
    >>> from lesson_lib.model.fast import output_jet
    >>> J = output_jet(np.full(definition.n_weights(arch.layer_sizes), 0.1), arch, np.zeros((3, 2)))
    >>> jet_torque(arch, J, np.zeros((3, 2)), np.zeros((3, 2))).shape         # at rest: gravity alone
    (3, 2)"""
    if fits(arch.n_dof):
        return quadratic_torque(arch, J, qd.T, qdd.T)[0].T
    return definition_torque(arch, J, qd, qdd).T
