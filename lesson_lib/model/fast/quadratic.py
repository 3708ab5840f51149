"""The torque as a quadratic form in the network's jet: one matrix product per batch instead of ~30 small ones.

tau = M qdd + c + g is a fixed polynomial of the jet J and the rates: quadratic in L's entries and their
q-derivatives (M, c), linear in J (g), linear in qdd, quadratic in qd.  With a constant 1 appended to the jet,

    Ja    = [J_1 .. J_P', 1]                                (P = P' + 1, P' = n_out (1 + n))
    mono  = [qdd_1 .. qdd_n,  qd_j qd_l (j <= l),  1]       (Mo monomials)
    tau_i = sum_m mono_m  Ja^T C_im Ja                      (C_im symmetric P x P, the same at every sample)

Forward: F_ip = sum_{r,m} C_iprm Ja_r mono_m (ONE product over the batch), tau_i = sum_p Ja_p F_ip.
Reverse: C symmetric in (p, r), so d loss / d J_p = 2 sum_i (d loss / d tau_i) F_ip.

C is read off definition.torque by polarization (float64, once per n, eps, v_scale): the rate monomials'
coefficients kappa from tau at (qd, qdd) = (0, 0), (0, e_j), (e_j, 0), (e_j + e_l, 0); each kappa(J) =
J^T A J + 2 b.J + c from its values at 0, ±e_p and e_p + e_r.  The points are small whole numbers: exact to
rounding.  C has n P^2 Mo entries (2,028 for n = 2, 188,160 for n = 4), so `fits` says which arms use it."""
import functools

import numpy as np

from .. import definition
from ..definition import Architecture
from ...limits import MAX_QUADRATIC_JOINTS


def fits(n):
    """Whether the torque of an n-joint arm is computed as a quadratic form (lesson_lib.limits.MAX_QUADRATIC_JOINTS)."""
    return n <= MAX_QUADRATIC_JOINTS


@functools.lru_cache(maxsize=None)
def _pairs(n):
    """(j, l) with j <= l: the monomials qd_j qd_l."""
    return np.triu_indices(n)


def monomials(qdT, qddT):
    """mono (Mo, B) from qd and qdd (n, B): [qdd, qd_j qd_l for j <= l, 1]."""
    n, B = qdT.shape
    j, l = _pairs(n)
    mono = np.empty((n + len(j) + 1, B), qdT.dtype)
    mono[:n] = qddT
    np.multiply(qdT[j], qdT[l], out=mono[n:-1])
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
    """(qd, qdd) points (count, n) each: (0, 0), (0, e_j), (e_j, 0), (e_j + e_l, 0) for j < l."""
    I, (j, l) = np.eye(n), np.triu_indices(n, 1)
    qd = np.concatenate([np.zeros((1 + n, n)), I, I[j] + I[l]])
    return qd, np.concatenate([np.zeros((1, n)), I, np.zeros((n + len(j), n))])


def learned(arch, J):
    """The definition's (L, dL, V, g) from a jet J (n_out, 1+n, B) whose first n outputs are L's diagonal after
    softplus (as jet.jet_forward gives it); a jet without derivative rows gives dL (B, 0, n, n) and g (B, 0)."""
    out, dout, n_L = J[:, 0].T, J[:, 1:].T, len(J) - 1
    return (*definition.place_factor(arch, out[:, :n_L], dout[:, :, :n_L]), *definition.potential_jet(arch, out, dout))


def definition_torque(arch, J, qd, qdd):
    """The definition's tau (n, B) from a jet J as `learned` takes it and qd, qdd (B, n)."""
    L, dL, _, g = learned(arch, J)
    return definition.torque(arch, L, dL, g, qd, qdd).T


@functools.lru_cache(maxsize=None)
def coefficients(n, eps, v_scale, dtype=np.float64):
    """C as a read-only matrix (n P, P Mo) in dtype, rows (i, p), columns (r, m), for the DeLaN's output
    order of L's entries (definition.tril_order)."""
    arch = Architecture(n, (), eps=eps, potential_scale=v_scale)
    n_out = n * (n + 1) // 2 + 1
    P = n_out * (1 + n)
    jets, (qd, qdd) = _points(P), _rate_points(n)
    J = np.repeat(jets, len(qd), axis=0).T.reshape(n_out, 1 + n, -1)            # every jet with every rate
    tau = definition_torque(arch, J, np.tile(qd, (len(jets), 1)), np.tile(qdd, (len(jets), 1))
                            ).reshape(n, len(jets), len(qd))
    one, by_qdd, by_qd = tau[..., 0], tau[..., 1:1 + n], tau[..., 1 + n:1 + 2 * n]
    square = by_qd - one[..., None]                                              # kappa_jj
    j, l = _pairs(n)
    cross = np.empty(one.shape + (len(j),))
    diagonal = j == l
    cross[..., diagonal] = square
    jo, lo = j[~diagonal], l[~diagonal]
    cross[..., ~diagonal] = tau[..., 1 + 2 * n:] - by_qd[..., jo] - by_qd[..., lo] + one[..., None]
    kappa = np.concatenate([by_qdd - one[..., None], cross, one[..., None]], axis=-1)   # (n, jets, Mo), mono order
    A, b, c = _quadratic_parts(np.moveaxis(kappa, -1, 1), P)                    # (n, Mo, P, P), (n, Mo, P), (n, Mo)
    C = np.zeros((n, len(kappa[0, 0]), P + 1, P + 1))
    C[:, :, :P, :P] = A
    C[:, :, :P, P] = C[:, :, P, :P] = b
    C[:, :, P, P] = c
    C = np.moveaxis(C, 1, -1).reshape(n * (P + 1), (P + 1) * C.shape[1]).astype(dtype)   # (i, p) x (r, m)
    C.flags.writeable = False
    return C


def torque(arch, J, qdT, qddT):
    """tau (n, B) from J (n_out, 1+n, B) and qd, qdd (n, B); and the form F (n, P, B) for the reverse pass."""
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


def torque_backward(J, F, GT):
    """d loss / d J (n_out, 1+n, B) from GT = d loss / d tau (n, B): 2 sum_i G_i F_ip over the jet's entries."""
    P = J.size // J.shape[-1]
    gJ = np.einsum("ipb,ib->pb", F[:, :P], GT)
    gJ *= 2.0
    return gJ.reshape(J.shape)
