"""Checks for 02_model: kinetic energy, the mass matrix from the RNEA, a jet through one layer, Coriolis from
dM/dq."""
import autograd.numpy as anp
import numpy as np
from autograd import elementwise_grad, jacobian

from lesson_lib.facts import ACTIVATION
from lesson_lib.model.definition import ACTIVATIONS

from .framework import Fail, Offered, as_array, as_number, as_pair, call, close, num, register, shape_of
from .independent import closed_form_mass_matrix, mass_matrix_derivative_fd, random_states, rng, three_link, two_link


@register("02_model", computed_by=(
    "lesson_lib.evaluation.generalization.learned_energy",        # 1/2 qd^T M qd + V for a model whose M is M
), hints={
    "shape": "T is one number, but you returned one number per joint: the product with qd on the left is "
             "still missing",
    "elementwise": "`qd * (M @ qd)` multiplies entry by entry and leaves one number per joint: T is their sum, "
                   "which `qd @ (M @ qd)` (a dot product) gives in one go",
    "half": "your value is exactly twice the truth: the factor 1/2 is missing",
    "sign": "your value has the wrong sign: kinetic energy is never negative",
    "no M": "your value does not depend on M: the mass matrix must sit between the two velocities",
    "formula": "T = 1/2 qd^T M qd is one number: qd on both sides of M, and the factor 1/2",
    "matrix": "`*` multiplies entry by entry, so qd * M * qd is an n x n array: the products with M and with qd "
              "are matrix products, @",
    "not finite": "1/2 qd^T M qd has no division, root or log, so it cannot give NaN or inf from finite M and qd: "
                  "a placeholder (np.nan, np.empty) is still in your code",
    "undefined": "a name in your formula is not defined: the cell gives you M, qd and Mqd = M @ qd; check the "
                 "spelling of each name you use",
})
def kinetic_energy(fn):
    """fn(M, qd) -> T = 1/2 qd^T M qd, a number, at four states each of a 2- and a 3-link chain.

    Truth: the chain's kinetic energy summed over the links' velocities (not from M). Tolerance 1e-9 (relative).
    """
    for chain, seed in ((two_link(), 1), (three_link(), 2)):
        Q, QD = random_states(chain.n_dof, 4, seed)
        for q, qd in zip(Q, QD, strict=True):
            truth = float(chain.kinetic_energy(q, qd))
            M = chain.mass_matrix(q)
            raw = call(fn, M.copy(), qd.copy())
            try:
                per_joint = as_array(raw, qd.shape, "kinetic_energy")
            except Fail:
                per_joint = None
            if shape_of(raw) == M.shape:
                raise Fail(f"for {chain.n_dof} joints it returned an array of shape {M.shape}, expected one number",
                           "matrix")
            if per_joint is not None and close(per_joint, 0.5 * qd * (M @ qd), 1e-9):
                raise Fail(f"for {chain.n_dof} joints it returned {num(per_joint)}, one number per joint, expected "
                           f"{num(truth)}", "elementwise")
            got = as_number(raw, "kinetic_energy")
            tol = 1e-9 * max(1.0, abs(truth))
            if close(got, truth, tol):
                continue
            known = {"half": 2 * truth, "sign": -truth, "no M": 0.5 * qd @ qd}
            key = next((k for k, v in known.items() if close(got, v, tol)), "formula")
            raise Fail(f"for {chain.n_dof} joints, q = {num(q)}, qd = {num(qd)} it returned {num(got)}, "
                       f"expected {num(truth)}", key)


class _RneaOnly(Offered):
    """A chain that offers only n_dof and rnea, and remembers how rnea was called (to name the mistake).  In
    grading it stays in the judge: the learner's kernel gets a proxy whose rnea calls back (framework.Offered)."""
    attributes, methods = ("n_dof",), ("rnea",)
    refusal = ("in this exercise the chain only offers chain.rnea and chain.n_dof (chain.{name} is not "
               "available): build M from RNEA columns")

    def __init__(self, chain):
        self.n_dof, self._chain, self.calls = chain.n_dof, chain, []

    def rnea(self, q, qd, qdd, gravity=True):
        self.calls.append((np.array(qd, dtype=float), np.array(qdd, dtype=float), bool(gravity)))
        return self._chain.rnea(q, qd, qdd, gravity=gravity)

    def __getattr__(self, name):
        raise AttributeError(self.refusal.format(name=name))

    def mistake(self):
        """The key of the hint that names what is wrong with the RNEA calls made, or "store"."""
        n, calls = self.n_dof, self.calls
        units = {tuple(e) for e in np.eye(n)}
        if not calls:
            return "no rnea"
        if any(g for _, _, g in calls):
            return "gravity"
        if any(tuple(qd) in units for qd, _, _ in calls) and not any(np.any(qdd) for _, qdd, _ in calls):
            return "slots"
        if any(np.any(qd) for qd, _, _ in calls):
            return "velocity"
        if not all(tuple(qdd) in units for _, qdd, _ in calls):
            return "unit"
        if {tuple(qdd) for _, qdd, _ in calls} != units:
            return "columns"
        return "store"


@register("02_model", computed_by=(
    "lesson_lib.physics.chain.PlanarChain.mass_matrix",
    "lesson_lib.physics.chain.PlanarChain._mass_matrix",
), hints={
    "shape": "M must be an n x n matrix, one column per joint (chain.n_dof of them)",
    "no rnea": "build each column from chain.rnea: the check's chain offers nothing else",
    "gravity": "switch gravity off in every RNEA call (gravity=False): with gravity on, each column also carries "
               "the gravity torque g(q)",
    "slots": "the unit vector goes in the acceleration slot (the third argument); the velocity (the second) "
             "must be zero",
    "velocity": "the velocity must be zero: with a non-zero velocity the RNEA adds Coriolis and centrifugal "
                "torques to each column",
    "unit": "the acceleration must be the unit vector e_j: 1 in place j, 0 everywhere else",
    "columns": "call the RNEA once per column, with e_j for every j from 0 to n - 1",
    "store": "your RNEA calls are right: store the torque for e_j as column j of M (every row of that column)",
    "shifted": "your RNEA calls are right and every column is there, but in the wrong place: the torque for e_j "
               "belongs in column j itself, not in column j - 1 or j + 1",
    "not finite": "some entries of M are NaN or inf, so some column was never filled: give every column j from 0 "
                  "to n - 1 its RNEA torque",
    "attribute": "in this exercise the chain offers only chain.rnea and chain.n_dof: build M from RNEA columns",
})
def mass_matrix_from_rnea(fn):
    """fn(chain, q) -> M (n, n), column j = the RNEA's torque for zero velocity, acceleration e_j, no gravity;
    the chain offers only rnea and n_dof.

    Truth: the textbook closed-form M of the double pendulum (no RNEA involved) at three configurations, and the
    library's M for a 3-link chain. Tolerance 1e-9.
    """
    dp = two_link()
    cases = [(dp, np.array(q), closed_form_mass_matrix(dp, np.array(q)))
             for q in ([0.3, -1.2], [2.5, 0.7], [-1.0, 3.0])]
    q3 = np.array([0.4, -0.9, 2.0])
    cases.append((three_link(), q3, three_link().mass_matrix(q3)))
    for chain, q, truth in cases:
        offered = _RneaOnly(chain)
        got = as_array(call(fn, offered, q.copy()), truth.shape, "mass_matrix_from_rnea")
        if not close(got, truth, 1e-9):
            key = offered.mistake()
            placed = [next((i for i in range(len(truth)) if close(got[:, j], truth[:, i], 1e-9)), None)
                      for j in range(len(truth))]
            if key == "store" and sorted(p for p in placed if p is not None) == list(range(len(truth))):
                key, shown = "shifted", "; ".join(f"the torque for e_{i} is in column {j}"
                                                 for j, i in enumerate(placed) if i != j)
                raise Fail(f"for {chain.n_dof} joints the columns are in other places ({shown})", key)
            raise Fail(f"for {chain.n_dof} joints at q = {num(q)} it returned {num(got)}, expected {num(truth)}",
                       key)


class _Layer:
    """A layer z = W h + b, a = s(z) fed by a made-up smooth input h(q) = tanh(P [cos q, sin q] + p) at a batch of
    states: what the learner's layer_jet gets (W, b, h, dh, s, ds), and the truth (a, da) by autograd's jacobian
    of q -> s(W h(q) + b), sample by sample (reverse mode, no jet involved)."""

    def __init__(self, n, h_in, h_out, seed, batch=5):
        draw = rng(seed)
        self.P, self.p = draw.normal(0, 1, (h_in, 2 * n)), draw.normal(0, 0.5, h_in)
        self.W, self.b = draw.normal(0, 1 / np.sqrt(h_in), (h_out, h_in)), draw.normal(0, 1, h_out)
        self.s = ACTIVATIONS[ACTIVATION]
        self.ds = elementwise_grad(self.s)
        self.q = draw.uniform(-np.pi, np.pi, (batch, n))
        self.h = np.stack([self.input(q) for q in self.q])
        self.dh = np.stack([jacobian(self.input)(q).T for q in self.q])           # (B, n, H_in)
        self.a = np.stack([self.output(q) for q in self.q])
        self.da = np.stack([jacobian(self.output)(q).T for q in self.q])          # (B, n, H_out)

    def input(self, q):
        return anp.tanh(self.P @ anp.concatenate([anp.cos(q), anp.sin(q)]) + self.p)

    def output(self, q):
        return self.s(self.W @ self.input(q) + self.b)

    def values(self):
        """The value each known mistake gives (key -> a)."""
        W, b, h, s = self.W, self.b, self.h, self.s
        if W.shape[0] == W.shape[1]:
            return {"transpose": s(h @ W + b)}
        return {"units": self._inputs_only(self.a)}

    def derivatives(self):
        """The derivative rows each known mistake gives (key -> list of da), the value being right."""
        W, b, h, dh, s, ds = self.W, self.b, self.h, self.dh, self.s, self.ds
        z, dz = h @ W.T + b, dh @ W.T
        known = {"s for slope": [s(z)[:, None] * dz], "no slope": [dz],
                 "slope without bias": [ds(h @ W.T)[:, None] * dz], "bias in rows": [ds(z)[:, None] * (dz + b)],
                 "through s": [s(dz), ds(dz), ds(dz) * dz]}
        if W.shape[0] == W.shape[1]:
            known.update({"order": [(ds(z)[:, None] * dh) @ W.T], "transpose": [ds(z)[:, None] * (dh @ W)],
                          "no W": [ds(z)[:, None] * dh]})
        else:
            known["units"] = [self._inputs_only(self.da)]
        return known

    def _inputs_only(self, x):
        """x (a or da, output units on the last axis) as a loop over h's units instead of W's rows leaves it:
        the output units past the number of inputs stay 0."""
        kept = np.zeros_like(x)
        kept[..., :min(self.W.shape)] = x[..., :min(self.W.shape)]
        return kept


@register("02_model", computed_by=(
    "lesson_lib.model.definition.layer_jet",
    "lesson_lib.model.fast.hidden_forward",                  # the same layer on value and rows stacked
), hints={
    "pair": "return two arrays, the value a and its derivative rows da, as a pair",
    "shape": "a holds one row per sample, (B, H_out); da one block per joint k, (B, n, H_out), with da[:, k] the "
             "derivative by q_k",
    "transpose": "W has shape (H_out, H_in) while the rows of h and of each dh[:, k] are samples: multiply them "
                 "by W transposed, the same way for the value and for the derivative rows",
    "units": "a has one column per output unit, H_out = W.shape[0] of them (the rows of W): a loop over h's "
             "units (the inputs) fills only as many as there are inputs; h @ W.T + b gives every unit without a "
             "loop",
    "value": "the value row is s(z), the activation of z = W h + b with the bias included",
    "s for slope": "you multiplied the derivative rows by the activation s(z) itself: the chain rule needs its "
                   "slope s'(z), the function ds",
    "no slope": "the derivative rows skip the activation: by the chain rule they must be multiplied by its slope "
                "s'(z), unit by unit",
    "slope without bias": "you took the slope s' without the bias: the derivative rows need s' at the same "
                          "z = W h + b as the value",
    "bias in rows": "the bias is a constant, so its derivative by q is zero: it belongs in z, not in the "
                    "derivative rows W dh/dq_k",
    "through s": "the derivative rows are not pushed through the activation like the value: they are W dh/dq_k "
                 "multiplied by the slope s'(z), taken at the value's z",
    "order": "s'(z) belongs to the layer's output units: apply W to dh/dq_k first, then multiply by s'(z) (you "
             "multiplied before the product with W)",
    "no W": "the derivative rows must go through the layer's weights too: W dh/dq_k, then times s'(z)",
    "derivative": "the value is right but the derivative rows are not: for every joint k, da/dq_k is s'(z) "
                  "times W dh/dq_k, unit by unit, with s'(z) the same for every k",
    "shapes": "s'(z) has one row per sample, shape (B, H_out), while the derivative rows have a joint axis too, "
              "(B, n, H_out): give s'(z) a joint axis of length 1 (None in the middle) so it multiplies every "
              "joint's rows",
    "not finite": "some of a or da is NaN or inf: a placeholder (np.nan, np.empty) is left where a joint's "
                  "derivative rows were never filled; fill da[:, k] for every joint k",
    "index": "dh[:, k] has one block per joint: k runs over the joints, range(n) with n = dh.shape[1], not over "
             "the layer's units",
})
def layer_jet(fn):
    """fn(W, b, h, dh, s, ds) -> (a, da): one layer a = s(W h + b) on a jet, h (B, H_in), dh (B, n, H_in) with
    dh[:, k] = dh/dq_k; a (B, H_out), da (B, n, H_out) with da[:, k] = s'(z) * (W dh/dq_k).

    Truth: autograd's jacobian (reverse mode) of q -> s(W h(q) + b) for a made-up smooth h(q), sample by sample,
    for a square layer (2 joints, 4 -> 4), a wider one (2 joints, 4 -> 6) and 3 joints (6 -> 5), five states
    each, with the course's activation.  Tolerance 1e-9.
    """
    for n, h_in, h_out, seed in ((2, 4, 4, 5), (2, 4, 6, 6), (3, 6, 5, 7)):
        layer = _Layer(n, h_in, h_out, seed)
        got = as_pair(call(fn, layer.W.copy(), layer.b.copy(), layer.h.copy(), layer.dh.copy(), layer.s, layer.ds),
                      "layer_jet")
        B = len(layer.q)
        a = as_array(got[0], (B, h_out), "layer_jet, as its value a,")
        da = as_array(got[1], (B, n, h_out), "layer_jet, as its derivative rows da,")
        where = f"for a {h_in} -> {h_out} layer and {n} joints"
        if not close(a, layer.a, 1e-9):
            key = next((k for k, v in layer.values().items() if close(a, v, 1e-9)), "value")
            raise Fail(f"{where} the value a differs from s(W h + b) by up to {num(np.abs(a - layer.a).max())}",
                       key)
        if not close(da, layer.da, 1e-9):
            key = next((k for k, vs in layer.derivatives().items() if any(close(da, v, 1e-9) for v in vs)),
                       "derivative")
            raise Fail(f"{where} the value is right but da differs from autograd's jacobian by up to "
                       f"{num(np.abs(da - layer.da).max())}", key)


def _derivative_index_last(dM, qd):
    """The Christoffel sum as a learner computes it who reads dM_ij/dq_k as dM[i, j, k] (the derivative index
    last instead of first): sum_jk 1/2 (dM[i, j, k] + dM[i, k, j] - dM[j, k, i]) qd_j qd_k."""
    return np.einsum("ijk,j,k->i", dM, qd, qd) - 0.5 * np.einsum("jki,j,k->i", dM, qd, qd)


@register("02_model", points=2, computed_by=(
    "lesson_lib.physics.chain.PlanarChain.coriolis",
    "lesson_lib.model.definition.coriolis",                       # the same Christoffel sum, vectorised
), hints={
    "shape": "c has one entry per joint i: sum over j and k only",
    "twice": "your result is twice the truth: the factor 1/2 in the Christoffel symbol is missing",
    "sign": "your result has the wrong sign: check the signs of the three dM terms",
    "last missing": "you have only the first two terms: the third, minus the derivative of M_jk with respect "
                    "to q_i, is missing",
    "last added": "the third term must be SUBTRACTED",
    "half first": "the factor 1/2 must multiply all three terms, not only the first two",
    "index": "dM's FIRST index is the derivative: dM[k, i, j] holds dM_ij/dq_k (you read the derivative index "
             "last)",
    "formula": "sum Gamma_ijk qd_j qd_k over j and k for each i, reading each of the three terms of Gamma_ijk "
               "from dM by the rule dM[k, i, j] = dM_ij/dq_k",
    "assigned": "`c[i] = ...` inside the loops keeps only the last term (j = k = n - 1): add each term to c[i] with "
                "+= instead",
    "no velocity": "each Christoffel term is multiplied by the velocities qd_j and qd_k: c is quadratic in qd",
    "undefined": "a loop variable is used outside its loop: c_i sums over both j and k, so nest a loop over k "
                 "inside the loop over j",
})
def coriolis_from_dM(fn):
    """fn(dM, qd) -> c (n,) with c_i = sum_jk Gamma_ijk qd_j qd_k, where
    Gamma_ijk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i) and dM[k, i, j] = dM_ij / dq_k.

    Truth: the RNEA's Coriolis and centrifugal torque chain.coriolis(q, qd); dM from central differences of
    the true M, at three states each of a 2- and a 3-link chain. Tolerance 1e-6.
    """
    for chain, seed in ((two_link(), 3), (three_link(), 4)):
        Q, QD = random_states(chain.n_dof, 3, seed)
        for q, qd in zip(Q, QD, strict=True):
            dM = mass_matrix_derivative_fd(chain, q)
            truth = chain.coriolis(q, qd)
            got = as_array(call(fn, dM.copy(), qd.copy()), (chain.n_dof,), "coriolis_from_dM")
            if close(got, truth, 1e-6):
                continue
            Mdot_qd = np.einsum("kij,k,j->i", dM, qd, qd)
            half = 0.5 * np.einsum("kij,i,j->k", dM, qd, qd)
            last = chain.n_dof - 1
            gamma = 0.5 * (np.einsum("kij->ijk", dM) + np.einsum("jik->ijk", dM) - dM)   # Gamma[i, j, k]
            known = {"twice": 2 * truth, "sign": -truth, "last missing": Mdot_qd, "last added": Mdot_qd + half,
                     "half first": Mdot_qd - 2 * half, "index": _derivative_index_last(dM, qd),
                     "assigned": gamma[:, last, last] * qd[last] ** 2,
                     "no velocity": gamma.sum(axis=(1, 2))}
            key = next((k for k, v in known.items() if close(got, v, 1e-6)), "formula")
            raise Fail(f"for {chain.n_dof} joints, q = {num(q)}, qd = {num(qd)} it returned {num(got)}, "
                       f"expected {num(truth)} (from the RNEA)", key)
