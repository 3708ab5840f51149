"""Checks for 02_model: kinetic energy, the mass matrix from the RNEA, a jet through one layer, Coriolis from
dM/dq."""
from functools import partial

import autograd.numpy as anp
import numpy as np
from autograd import elementwise_grad, jacobian

from lesson_lib.facts import ACTIVATION
from lesson_lib.model.definition import ACTIVATIONS

from .diagnosis import (
    Case,
    Property,
    Raised,
    Variation,
    diagnose,
    grew,
    judge,
    read_like,
    read_pair_like,
    same,
    scaling,
)
from .framework import Fail, Offered, Tolerance, call, close, num, register
from .independent import closed_form_mass_matrix, mass_matrix_derivative_fd, random_states, rng, three_link, two_link

KINETIC_TOLERANCE = Tolerance(1e-9, 1e-9)

KINETIC_VARIATIONS = (
    Variation("half", "your value is exactly twice the truth: the factor 1/2 is missing", lambda M, qd: qd @ M @ qd),
    Variation("sign", "your value has the wrong sign: kinetic energy is never negative",
              lambda M, qd: -0.5 * qd @ M @ qd),
    Variation("no M", "your value does not depend on M: the mass matrix must sit between the two velocities",
              lambda M, qd: 0.5 * qd @ qd),
    Variation("M twice", "you put M qd on both sides, (M qd) . (M qd), so M enters twice: T = 1/2 qd^T M qd has qd "
                         "on the left and M qd on the right", lambda M, qd: 0.5 * (M @ qd) @ (M @ qd)),
    Variation("diagonal", "you kept only M's diagonal: its off-diagonal entries couple the joints (M_12 qd_1 qd_2 "
                          "counts twice), so T = 1/2 qd^T M qd uses the whole of M",
              lambda M, qd: 0.5 * np.sum(np.diag(M) * qd**2)),
    Variation("sum of Mqd", "1/2 sum(M qd) leaves out the velocity on the left: T = 1/2 qd^T (M qd) is the dot "
                            "product of qd with M qd", lambda M, qd: 0.5 * np.sum(M @ qd)),
)


def _power_of(k, factor, power, what, law):
    """A property: the result on a case's arguments with argument k multiplied by `factor` is factor**power times
    the result (the learner's function against itself); `law` says why, for the FAIL line."""
    def probe(ask, case):
        found = scaling(ask, case.args(), k, factor, power, KINETIC_TOLERANCE)
        return found and f"{grew(found[0], factor, what)} ({law})"
    return probe


def _joint_alone(ask, case):
    """With one joint moving alone, qd = v e_k, T is 1/2 M_kk v^2: every joint's motion counts."""
    M, qd = case.args()
    for k in range(len(qd)):
        alone = np.eye(len(qd))[k] * 1.5
        got = ask(M.copy(), alone)
        if got is not None and np.shape(got) == () and abs(float(got)) < 1e-12 < abs(0.5 * 1.5**2 * M[k, k]):
            return f"with joint {k} moving alone (qd = 1.5 e_{k}) your result is 0, where T is 1/2 M_{k}{k} 1.5^2"
    return None


KINETIC_PROPERTIES = (
    Property("qd power", "T = 1/2 qd^T M qd is quadratic in the velocity (qd on both sides of M): yours grows "
                         "otherwise with qd (above): a velocity missing or one too many, or a square root or a "
                         "square of the whole", _power_of(1, 2.0, 2, "qd", "T grows four times")),
    Property("M power", "T = 1/2 qd^T M qd is linear in M (M once, between the velocities): yours grows otherwise "
                        "with M (above): M missing, or in twice", _power_of(0, 2.0, 1, "M", "T doubles")),
    Property("joint ignored", "a joint's motion does not count in your energy (above: with that joint moving alone "
                              "it is 0): T = 1/2 qd^T M qd sums over every joint, so a term per joint is missing "
                              "(one joint's term alone, or a sum that stops early)", _joint_alone),
)


@register("02_model", variations=KINETIC_VARIATIONS, tolerance=KINETIC_TOLERANCE, properties=KINETIC_PROPERTIES,
          computed_by=(
    "lesson_lib.evaluation.generalization.learned_energy",        # 1/2 qd^T M qd + V for a model whose M is M
), hints={
    "shape": "T = 1/2 qd^T M qd is one number (your result's shape is above): with @, qd^T M qd is a number, while "
             "* multiplies entry by entry and keeps the arrays' shapes",
    "differs": "T = 1/2 qd^T M qd is one number: qd on both sides of M, and the factor 1/2",
    "not finite": "1/2 qd^T M qd has no division, root or log, so it cannot give NaN or inf from finite M and qd: "
                  "a placeholder (np.nan, np.empty) is still in your code",
    "undefined": "a name in your formula is not defined: the cell gives you M, qd and Mqd = M @ qd; check the "
                 "spelling of each name you use",
})
def kinetic_energy(fn):
    """fn(M, qd) -> T = 1/2 qd^T M qd, a number, at four states each of a 2- and a 3-link chain.

    Truth: the chain's kinetic energy summed over the links' velocities (not from M). Tolerance 1e-9 (absolute and
    relative).
    """
    cases = []
    for chain, seed in ((two_link(), 1), (three_link(), 2)):
        Q, QD = random_states(chain.n_dof, 4, seed)
        for q, qd in zip(Q, QD, strict=True):
            M = chain.mass_matrix(q)
            cases.append(Case(f"{chain.n_dof} joints, q = {num(q)}, qd = {num(qd)}",
                              lambda M=M, qd=qd: (M.copy(), qd.copy()), float(chain.kinetic_energy(q, qd)),
                              chain.n_dof))
    judge(fn, cases, lambda raw, case: read_like(raw, case.truth, "kinetic_energy", KINETIC_TOLERANCE),
          KINETIC_TOLERANCE, KINETIC_VARIATIONS, properties=KINETIC_PROPERTIES)


MASS_MATRIX_TOLERANCE = Tolerance(1e-9)


class _RneaOnly(Offered):
    """A chain that offers only n_dof and rnea, and remembers how rnea was called (to name the mistake).  In
    grading it stays in the judge: the learner's kernel gets a proxy whose rnea calls back (framework.Offered)."""
    attributes, methods = ("n_dof",), ("rnea",)
    refusal = ("in this exercise the chain only offers chain.rnea and chain.n_dof (chain.{name} is not "
               "available): build M from RNEA columns")

    def __init__(self, chain):
        self.n_dof, self._chain, self.calls = chain.n_dof, chain, []

    def rnea(self, q, qd, qdd, gravity=True):
        self.calls.append((np.array(q, dtype=float), np.array(qd, dtype=float), np.array(qdd, dtype=float),
                           bool(gravity)))
        return self._chain.rnea(q, qd, qdd, gravity=gravity)

    def __getattr__(self, name):
        raise AttributeError(self.refusal.format(name=name))

    def mistake(self, q):
        """The key of the hint that names what is wrong with the RNEA calls made at configuration q, or "store"
        when they are right (then the mistake is in how the torques were stored)."""
        n, calls = self.n_dof, self.calls
        units = {tuple(e) for e in np.eye(n)}
        if not calls:
            return "no rnea"
        if any(g for *_, g in calls):
            return "gravity"
        elsewhere = [at for at, *_ in calls if at.shape != q.shape or not np.allclose(at, q, rtol=0, atol=1e-12)]
        if elsewhere:
            return "degrees" if all(np.allclose(at, np.degrees(q)) for at in elsewhere) else "configuration"
        if any(tuple(qd) in units for _, qd, _, _ in calls) and not any(np.any(qdd) for _, _, qdd, _ in calls):
            return "slots"
        if any(np.any(qd) for _, qd, _, _ in calls):
            return "velocity"
        if not all(tuple(qdd) in units for _, _, qdd, _ in calls):
            return "unit scaled" if self.unit_scale() is not None else "unit"
        asked = [tuple(qdd) for _, _, qdd, _ in calls]
        if set(asked) != units:
            if asked == [tuple(e) for e in np.eye(n)[:len(asked)]]:
                return "stopped early"
            return "repeated" if len(set(asked)) < len(asked) else "columns"
        return "store"

    def asked(self):
        """'e_0, e_0': the unit vectors the calls asked for, in order (when every call asked for one), the first 8."""
        asked = [f"e_{int(np.argmax(qdd))}" for _, _, qdd, _ in self.calls]
        return ", ".join(asked[:8]) + (f" … ({len(asked)} calls)" if len(asked) > 8 else "")

    def unit_scale(self):
        """k when every acceleration asked for is k e_j, one k (not 1) for every call, else None."""
        scales = set()
        for _, _, qdd, _ in self.calls:
            nonzero = np.flatnonzero(qdd)
            if len(nonzero) != 1:
                return None
            scales.add(float(qdd[nonzero[0]]))
        return scales.pop() if len(scales) == 1 and scales != {1.0} else None


def _columns(chain, q):
    """M from RNEA columns, as the exercise builds it (what the storage mistakes below start from)."""
    n = chain.n_dof
    return np.stack([chain.rnea(q, np.zeros(n), e, gravity=False) for e in np.eye(n)], axis=1)


STORE_VARIATIONS = (     # the RNEA calls right, the torques stored otherwise
    Variation("store", "your RNEA calls are right: store the torque for e_j as column j of M (every row of that "
                       "column), not only its diagonal entry", lambda chain, q: np.diag(np.diag(_columns(chain, q)))),
    *(Variation("shifted", "your RNEA calls are right and every column is there, but in the wrong place: the torque "
                           "for e_j belongs in column j itself, not in column j - 1 or j + 1",
                lambda chain, q, k=k: np.roll(_columns(chain, q), k, axis=1)) for k in (-1, 1)),
    Variation("one entry", "column j holds the torque's entry j in every row: store the whole torque vector for e_j "
                           "as column j, M[:, j] = (the torque)",
              lambda chain, q: np.diag(_columns(chain, q))[None, :] * np.ones((chain.n_dof, 1))),
    Variation("every row", "`M += (the torque)` adds the torque to every row of M: store it in column j alone, "
                           "M[:, j] = (the torque for e_j)",
              lambda chain, q: np.tile(_columns(chain, q).sum(axis=1), (chain.n_dof, 1))),
)


@register("02_model", variations=STORE_VARIATIONS, tolerance=MASS_MATRIX_TOLERANCE, computed_by=(
    "lesson_lib.physics.chain.PlanarChain.mass_matrix",
    "lesson_lib.physics.chain.PlanarChain._mass_matrix",
), hints={
    "shape": "M must be an n x n matrix, one column per joint (chain.n_dof of them)",
    "no rnea": "build each column from chain.rnea: the check's chain offers nothing else",
    "gravity": "switch gravity off in every RNEA call (gravity=False): with gravity on, each column also carries "
               "the gravity torque g(q)",
    "degrees": "your RNEA calls pass q in degrees (np.degrees(q)): the RNEA, like numpy's sin and cos, takes angles "
               "in radians, so pass q as it is",
    "configuration": "your RNEA calls are made at another configuration than the q given (the line above says "
                     "where): M(q) is the RNEA's torques at q itself",
    "slots": "the unit vector goes in the acceleration slot (the third argument); the velocity (the second) "
             "must be zero",
    "velocity": "the velocity must be zero: with a non-zero velocity the RNEA adds Coriolis and centrifugal "
                "torques to each column",
    "unit": "the acceleration must be the unit vector e_j: 1 in place j, 0 everywhere else",
    "unit scaled": "the acceleration for column j must be the unit vector e_j, 1 in place j: yours is a multiple of "
                   "it (above), and the torque, like M q̈, grows with it: every column comes out that many times "
                   "the right one (or with the wrong sign)",
    "stopped early": "only the first column(s) of M were asked of the RNEA, in order, and the rest stayed 0: the "
                     "loop ended early (a `return` inside the loop, or a range that stops short of n)",
    "columns": "call the RNEA once per column, with e_j for every j from 0 to n - 1",
    "repeated": "your calls asked for one unit vector more than once and never for another (above, in the order "
                "called): the acceleration for column j is e_j, with its 1 in place j (e.g. np.eye(n)[j])",
    "differs": "your RNEA calls are right, so the torques are: the way they are put into M differs where the line "
               "above says",
    "not finite": "some entries of M are NaN or inf, so some column was never filled: give every column j from 0 "
                  "to n - 1 its RNEA torque",
}, raised=(
    Raised("attribute", "not offered", "in this exercise the chain offers only chain.rnea and chain.n_dof: build M "
                                       "from RNEA columns", lambda message, line: "is not available" in message),
))
def mass_matrix_from_rnea(fn):
    """fn(chain, q) -> M (n, n), column j = the RNEA's torque for zero velocity, acceleration e_j, no gravity;
    the chain offers only rnea and n_dof.

    Truth: the textbook closed-form M of the double pendulum (no RNEA involved) at three configurations, and the
    library's M for a 3-link chain.  How rnea was called names a mistake in the calls; with the calls right, the
    storage mistakes (STORE_VARIATIONS).  Tolerance 1e-9.
    """
    dp = two_link()
    states = [(dp, np.array(q), closed_form_mass_matrix(dp, np.array(q))) for q in ([0.3, -1.2], [2.5, 0.7],
                                                                                  [-1.0, 3.0])]
    q3 = np.array([0.4, -0.9, 2.0])
    states.append((three_link(), q3, three_link().mass_matrix(q3)))
    cases = [Case(f"{chain.n_dof} joints at q = {num(q)}", lambda chain=chain, q=q: (_RneaOnly(chain), q.copy()), M)
             for chain, q, M in states]
    results, offered = [], []
    for case in cases:
        chain, q = case.args()
        offered.append(chain)
        results.append(read_like(call(fn, chain, q), case.truth, "mass_matrix_from_rnea", MASS_MATRIX_TOLERANCE))
    wrong = [i for i, case in enumerate(cases) if not close(results[i], case.truth, MASS_MATRIX_TOLERANCE)]
    if not wrong:
        return
    f = wrong[0]
    what = f"for {cases[f].label} it returned {num(results[f])}, expected {num(cases[f].truth)}"
    key = offered[f].mistake(states[f][1])
    if key == "unit scaled":
        raise Fail(f"{what} (your accelerations are {num(offered[f].unit_scale())} e_j)", key)
    if key in ("columns", "repeated"):
        raise Fail(f"{what} (your RNEA calls asked for the accelerations {offered[f].asked()})", key)
    if key != "store":
        raise Fail(what, key)
    diagnose(cases, results, MASS_MATRIX_TOLERANCE, STORE_VARIATIONS)        # the calls are right (above)


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

    def args(self):
        return self.W.copy(), self.b.copy(), self.h.copy(), self.dh.copy(), self.s, self.ds


def _jet(W, b, h, dh, s, ds, z=lambda W, b, h: h @ W.T + b, value=lambda s, z, W, b, h: s(z),
         rows=lambda W, b, h, dh, s, ds, z: ds(z)[:, None, :] * (dh @ W.T)):
    """layer_jet from the reference with one piece replaced (a variation, once bound with partial): z(W, b, h),
    the value, or the derivative rows."""
    z_ = z(W, b, h)
    return value(s, z_, W, b, h), rows(W, b, h, dh, s, ds, z_)


def _inputs_only(x, W):
    """x (a or da, output units on the last axis) as a loop over h's units instead of W's rows leaves it: the
    output units past the number of inputs stay 0."""
    kept = np.zeros_like(x)
    kept[..., :min(W.shape)] = x[..., :min(W.shape)]
    return kept


def _over_inputs(value_too, W, b, h, dh, s, ds):
    """layer_jet as a loop over h's units would make it (the rows only, or the value too)."""
    a, da = _jet(W, b, h, dh, s, ds)
    return (_inputs_only(a, W) if value_too else a), _inputs_only(da, W)


_dz = lambda W, h, dh: dh @ W.T                           # noqa: E731 -- the rows W dh/dq_k, before the slope
JET_VARIATIONS = (
    # the value (and, with it, the rows)
    Variation("transpose", "W has shape (H_out, H_in) while the rows of h and of each dh[:, k] are samples: multiply "
                           "them by W transposed, the same way for the value and for the derivative rows",
              partial(_jet, z=lambda W, b, h: h @ W + b,
                      rows=lambda W, b, h, dh, s, ds, z: ds(z)[:, None, :] * (dh @ W))),
    Variation("units", "a has one column per output unit, H_out = W.shape[0] of them (the rows of W): a loop over h's "
                       "units (the inputs) fills only as many as there are inputs; h @ W.T + b gives every unit "
                       "without a loop", partial(_over_inputs, True)),
    Variation("value", "your value is z = W h + b itself: the layer's value is the activation of it, s(z)",
              partial(_jet, value=lambda s, z, W, b, h: z)),
    Variation("input returned", "your value is h, the layer's input: the value is its output, a = s(z) with "
                                "z = W h + b", partial(_jet, value=lambda s, z, W, b, h: h)),
    Variation("bias after", "the bias belongs inside the activation, z = W h + b and then a = s(z): you added it "
                            "after s", partial(_jet, z=lambda W, b, h: h @ W.T, value=lambda s, z, W, b, h: s(z) + b)),
    Variation("bias after", "the bias belongs inside the activation, z = W h + b and then a = s(z): you added it "
                            "after s", partial(_jet, value=lambda s, z, W, b, h: s(z - b) + b,
                                            rows=lambda W, b, h, dh, s, ds, z: ds(z - b)[:, None, :] * _dz(W, h, dh))),
    Variation("minus b", "the bias is added, z = W h + b: you subtracted it",
              partial(_jet, z=lambda W, b, h: h @ W.T - b)),
    Variation("no bias", "the bias is missing: z = W h + b, and the slope s'(z) is taken at that same z",
              partial(_jet, z=lambda W, b, h: h @ W.T)),
    # the value right, the derivative rows not
    Variation("transpose", "W has shape (H_out, H_in) while the rows of h and of each dh[:, k] are samples: multiply "
                           "them by W transposed, the same way for the value and for the derivative rows",
              partial(_jet, rows=lambda W, b, h, dh, s, ds, z: ds(z)[:, None, :] * (dh @ W))),
    Variation("units", "a has one column per output unit, H_out = W.shape[0] of them (the rows of W): a loop over h's "
                       "units (the inputs) fills only as many as there are inputs; h @ W.T + b gives every unit "
                       "without a loop", partial(_over_inputs, False)),
    Variation("s for slope", "you multiplied the derivative rows by the activation s(z) itself: the chain rule needs "
                             "its slope s'(z), the function ds",
              partial(_jet, rows=lambda W, b, h, dh, s, ds, z: s(z)[:, None, :] * _dz(W, h, dh))),
    Variation("slope at a", "you took the slope at a = s(z): ds takes z, the same z = W h + b that the value's s "
                            "took, so the rows are ds(z) times W dh/dq_k",
              partial(_jet, rows=lambda W, b, h, dh, s, ds, z: ds(s(z))[:, None, :] * _dz(W, h, dh))),
    Variation("tanh slope", "1 - a^2 is the slope of tanh, not of the course's activation: use the ds you were "
                            "given, ds(z), the slope of s itself",
              partial(_jet, rows=lambda W, b, h, dh, s, ds, z: (1 - s(z) ** 2)[:, None, :] * _dz(W, h, dh))),
    Variation("sigmoid slope", "a (1 - a) is the slope of the logistic sigmoid, not of the course's activation: use "
                               "the ds you were given, ds(z), the slope of s itself",
              partial(_jet, rows=lambda W, b, h, dh, s, ds, z: (s(z) * (1 - s(z)))[:, None, :] * _dz(W, h, dh))),
    Variation("slope added", "the chain rule multiplies: the rows are s'(z) TIMES W dh/dq_k, unit by unit (you "
                             "added them)",
              partial(_jet, rows=lambda W, b, h, dh, s, ds, z: ds(z)[:, None, :] + _dz(W, h, dh))),
    Variation("no slope", "the derivative rows skip the activation: by the chain rule they must be multiplied by its "
                          "slope s'(z), unit by unit", partial(_jet, rows=lambda W, b, h, dh, s, ds, z: _dz(W, h, dh))),
    Variation("slope without bias", "you took the slope s' without the bias: the derivative rows need s' at the same "
                                    "z = W h + b as the value",
              partial(_jet, rows=lambda W, b, h, dh, s, ds, z: ds(h @ W.T)[:, None, :] * _dz(W, h, dh))),
    Variation("bias in rows", "the bias is a constant, so its derivative by q is zero: it belongs in z, not in the "
                              "derivative rows W dh/dq_k",
              partial(_jet, rows=lambda W, b, h, dh, s, ds, z: ds(z)[:, None, :] * (_dz(W, h, dh) + b))),
    Variation("bias in rows", "the bias is a constant, so its derivative by q is zero: it belongs in z, not in the "
                              "derivative rows W dh/dq_k",
              partial(_jet, rows=lambda W, b, h, dh, s, ds, z: ds(z)[:, None, :] * _dz(W, h, dh) + b)),
    Variation("through s", "the derivative rows are not pushed through the activation like the value: they are "
                           "W dh/dq_k multiplied by the slope s'(z), taken at the value's z",
              partial(_jet, rows=lambda W, b, h, dh, s, ds, z: s(_dz(W, h, dh)))),
    Variation("through s", "the derivative rows are not pushed through the activation like the value: they are "
                           "W dh/dq_k multiplied by the slope s'(z), taken at the value's z",
              partial(_jet, rows=lambda W, b, h, dh, s, ds, z: ds(_dz(W, h, dh)))),
    Variation("through s", "the derivative rows are not pushed through the activation like the value: they are "
                           "W dh/dq_k multiplied by the slope s'(z), taken at the value's z",
              partial(_jet, rows=lambda W, b, h, dh, s, ds, z: ds(_dz(W, h, dh)) * _dz(W, h, dh))),
    Variation("order", "s'(z) belongs to the layer's output units: apply W to dh/dq_k first, then multiply by s'(z) "
                       "(you multiplied before the product with W)",
              partial(_jet, rows=lambda W, b, h, dh, s, ds, z: (ds(z)[:, None, :] * dh) @ W.T)),
    Variation("no W", "the derivative rows must go through the layer's weights too: W dh/dq_k, then times s'(z)",
              partial(_jet, rows=lambda W, b, h, dh, s, ds, z: ds(z)[:, None, :] * dh)),
)
JET_TOLERANCE = Tolerance(1e-9)


def _rows_doubled(ask, case):
    """(value, rows) with dh as given and (value, rows) with dh doubled, or None."""
    W, b, h, dh, s, ds = case.args()
    one, two = ask(W, b, h, dh, s, ds), ask(W.copy(), b.copy(), h.copy(), 2 * dh, s, ds)
    if not (isinstance(one, tuple) and isinstance(two, tuple)) or any(
            np.shape(x) != np.shape(y) for x, y in zip(one, two, strict=True)):
        return None
    return one, two


def _value_from_rows(ask, case):
    """The value a = s(W h + b) does not depend on dh."""
    found = _rows_doubled(ask, case)
    if found and not same(found[1][0], found[0][0], JET_TOLERANCE):
        return "doubling dh changed your value a"
    return None


def _rows_not_linear(ask, case):
    """The derivative rows are linear in dh: doubling dh doubles them."""
    found = _rows_doubled(ask, case)
    if found and not same(found[1][1], 2 * found[0][1], JET_TOLERANCE):
        return "doubling dh did not double your derivative rows da"
    return None


def _joints_mixed(ask, case):
    """da[:, k] comes from dh[:, k] alone: changing joint 0's rows leaves the other joints' as they were."""
    W, b, h, dh, s, ds = case.args()
    one = ask(W, b, h, dh, s, ds)
    moved = dh.copy()
    moved[:, 0] *= 2.0
    two = ask(W.copy(), b.copy(), h.copy(), moved, s, ds)
    if not (isinstance(one, tuple) and isinstance(two, tuple)) or np.shape(one[1]) != np.shape(two[1]) or np.ndim(
            one[1]) != 3:
        return None
    if not same(two[1][:, 1:], one[1][:, 1:], JET_TOLERANCE):
        return "changing joint 0's rows dh[:, 0] changed the derivative rows of another joint"
    return None


JET_PROPERTIES = (
    Property("value from rows", "the value a = s(W h + b) does not depend on the derivative rows dh: yours changes "
                                "with them (above), so dh went into the value", _value_from_rows),
    Property("rows not linear", "the derivative rows are linear in dh (the chain rule multiplies dh by W and by "
                                "s'(z), neither of which depends on dh): yours are not (above), so something that "
                                "is not multiplied by dh is added to them (a bias?), or dh went through a function "
                                "(s or ds) instead of being multiplied", _rows_not_linear),
    Property("joints mixed", "each joint's derivative rows come from its own: da[:, k] from dh[:, k] alone (above, "
                             "yours mixes them): a product or a sum over the joint axis, or that axis moved",
             _joints_mixed),
)


@register("02_model", variations=JET_VARIATIONS, tolerance=JET_TOLERANCE, properties=JET_PROPERTIES, computed_by=(
    "lesson_lib.model.definition.layer_jet",
    "lesson_lib.model.fast.hidden_forward",                  # the same layer on value and rows stacked
), hints={
    "pair": "return two arrays, the value a and its derivative rows da, as a pair",
    "shape": "a holds one row per sample, (B, H_out); da one block per joint k, (B, n, H_out), with da[:, k] the "
             "derivative by q_k",
    "differs": "a = s(z) with z = W h + b, and for every joint k, da/dq_k = s'(z) times W dh/dq_k, unit by unit, "
               "with s'(z) the same for every k (the line above says which part differs, and where)",
    "not finite": "some of a or da is NaN or inf: a placeholder (np.nan, np.empty) is left where a joint's "
                  "derivative rows were never filled; fill da[:, k] for every joint k",
}, raised=(
    Raised("shapes", "joint axis", "s'(z) has one row per sample, shape (B, H_out), while the derivative rows have a "
                                   "joint axis too, (B, n, H_out): give s'(z) a joint axis of length 1 (None in the "
                                   "middle) so it multiplies every joint's rows",
           lambda message, line: "ds(" in line and "[:,None" not in _bare(line)),
    Raised("index", "joint index",
           "dh[:, k] has one block per joint: k runs over the joints, range(n) with n = dh.shape[1], "
           "not over the layer's units",
           lambda message, line: "dh[:,k]" in _bare(line) or "da[:,k]" in _bare(line)),
))
def layer_jet(fn):
    """fn(W, b, h, dh, s, ds) -> (a, da): one layer a = s(W h + b) on a jet, h (B, H_in), dh (B, n, H_in) with
    dh[:, k] = dh/dq_k; a (B, H_out), da (B, n, H_out) with da[:, k] = s'(z) * (W dh/dq_k).

    Truth: autograd's jacobian (reverse mode) of q -> s(W h(q) + b) for a made-up smooth h(q), sample by sample,
    for a square layer (2 joints, 4 -> 4), a wider one (2 joints, 4 -> 6) and 3 joints (6 -> 5), five states
    each, with the course's activation.  Tolerance 1e-9.
    """
    cases = []
    for n, h_in, h_out, seed in ((2, 4, 4, 5), (2, 4, 6, 6), (3, 6, 5, 7)):
        layer = _Layer(n, h_in, h_out, seed)
        cases.append(Case(f"a {h_in} -> {h_out} layer and {n} joints", layer.args, (layer.a, layer.da)))
    judge(fn, cases, lambda raw, case: read_pair_like(raw, case.truth, "layer_jet", JET_TOLERANCE,
                                                      ("its value a", "its derivative rows da"),
                                                      (("samples", "units"), ("samples", "joints", "units"))),
          JET_TOLERANCE, JET_VARIATIONS, describe=_jet_what, names=("the value a", "the rows da"),
          properties=JET_PROPERTIES)


def _bare(line):
    """A line of code without its spaces (to find a pattern however it is spaced)."""
    return line.replace(" ", "")


def _jet_what(case, got):
    a, da = case.truth
    if not close(got[0], a, JET_TOLERANCE):
        return f"for {case.label} the value a differs from s(W h + b) by up to {num(np.abs(got[0] - a).max())}"
    return (f"for {case.label} the value is right but da differs from autograd's jacobian by up to "
            f"{num(np.abs(got[1] - da).max())}")


# ---------------------------------------------------------------------- Coriolis from dM/dq
# The Christoffel symbol's three terms, each read from dM by an index pattern: dM[k, i, j] = dM_ij/dq_k first.
TERMS = ("kij", "jik", "ijk")
ORDINALS = ("first", "second", "third")
MEANING = {"kij": "dM_ij/dq_k", "jik": "dM_ik/dq_j", "ijk": "dM_jk/dq_i"}


def christoffel(dM, qd, coefficients=(0.5, 0.5, -0.5), patterns=TERMS, velocities="jk", mask=None):
    """c_i = sum_jk mask_ijk Gamma_ijk v_j w_k, Gamma_ijk = sum_t coefficient_t dM[pattern_t(i, j, k)]: the right
    answer with its defaults; each variation changes one argument.  velocities: the indices whose qd multiply
    ("jk" is right, "jj" is qd_j twice, "ik" qd_i where qd_j belongs, "" none)."""
    n = len(qd)
    gamma = sum(c * np.einsum(f"{p}->ijk", dM) for c, p in zip(coefficients, patterns, strict=True))
    if mask is not None:
        i, j, k = np.meshgrid(*(np.arange(n),) * 3, indexing="ij")
        gamma = gamma * mask(i, j, k, n)
    one = np.ones(n)
    v = {"i": np.einsum("i,j,k->ijk", qd, one, one), "j": np.einsum("i,j,k->ijk", one, qd, one),
         "k": np.einsum("i,j,k->ijk", one, one, qd)}
    factor = np.ones((n, n, n))
    for index in velocities:
        factor = factor * v[index]
    return np.einsum("ijk,ijk->i", gamma, factor)


def _derivative_index_last(dM, qd):
    """The Christoffel sum as a learner computes it who reads dM_ij/dq_k as dM[i, j, k] (the derivative index
    last instead of first): sum_jk 1/2 (dM[i, j, k] + dM[i, k, j] - dM[j, k, i]) qd_j qd_k."""
    return np.einsum("ijk,j,k->i", dM, qd, qd) - 0.5 * np.einsum("jki,j,k->i", dM, qd, qd)


# The terms' mistakes, as far as they differ in c: the two added terms are equal in the sum (swap j and k, and
# qd_j qd_k stays), so a mistake in either gives the same c; and dM[k, i, j] = dM[k, j, i] (M is symmetric), so a
# term can only be the derivative by q_i, or by q_j or q_k (the same in the sum).
RIGHT_COEFFICIENTS = (0.5, 0.5, -0.5)
ADDED = "one of the two added terms (dM_ij/dq_k = dM[k, i, j] or dM_ik/dq_j = dM[j, i, k], equal in the sum)"
SUBTRACTED = "the third term, dM_jk/dq_i = dM[i, j, k], the one subtracted,"
TERM_VARIATIONS = (
    *(Variation(f"{'added' if t == 0 else 'third'} term {key}", text.format(what=what),
                partial(christoffel, coefficients=tuple(factor * c if u == t else c
                                                        for u, c in enumerate(RIGHT_COEFFICIENTS))))
      for t, what in ((0, ADDED), (2, SUBTRACTED))
      for key, factor, text in (
          ("missing", 0.0, "{what} is missing from your Christoffel symbol"),
          ("sign", -1.0, "{what} has the wrong sign: the first two terms are added, the third subtracted"),
          ("no half", 2.0, "{what} lacks the factor 1/2: the 1/2 multiplies all three terms"))),
    Variation("term index", "two of your terms cancel each other, leaving half of one: an added term is a derivative "
                            "by q_i like the subtracted one, or the subtracted one is a derivative by q_j or q_k like "
                            "the added ones. dM's first index is the derivative's: the added terms are dM[k, i, j] and "
                            "dM[j, i, k], the subtracted one dM[i, j, k]",
              partial(christoffel, patterns=("ijk", "jik", "ijk"))),
    Variation("terms swapped", "your third term, the one subtracted, has swapped places with an added one: "
                               "Gamma_ijk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i), the third term being the "
                               "derivative by q_i, dM[i, j, k]", partial(christoffel, patterns=("ijk", "jik", "kij"))),
)


LOOPS = (   # (key, hint, mask(i, j, k, n)): a loop's range mistaken
    ("j up to i", "your sum over j stops at i (range(i + 1) or range(i)): c_i sums over every j and k, from 0 to "
                  "n - 1", lambda i, j, k, n: j <= i),
    ("j up to i", "your sum over j stops at i (range(i + 1) or range(i)): c_i sums over every j and k, from 0 to "
                  "n - 1", lambda i, j, k, n: j < i),
    ("k up to j", "your sum over k stops at j (range(j + 1) or range(j)): c_i sums over every j and k, from 0 to "
                  "n - 1", lambda i, j, k, n: k <= j),
    ("k up to j", "your sum over k stops at j (range(j + 1) or range(j)): c_i sums over every j and k, from 0 to "
                  "n - 1", lambda i, j, k, n: k < j),
    ("last j or k", "a loop over j or k leaves out its last index (range(n - 1)): c_i sums over every j and every "
                    "k from 0 to n - 1 (with j and k alike in the sum, which one cannot be told)",
     lambda i, j, k, n: k < n - 1),
    ("first j or k", "a loop over j or k leaves out index 0 (range(1, n)): c_i sums over every j and every k from 0 "
                     "to n - 1 (with j and k alike in the sum, which one cannot be told)", lambda i, j, k, n: k > 0),
    ("k tied to j", "your sum takes k = j only (one loop for both): c_i sums over every pair j, k, a loop over k "
                    "inside the loop over j", lambda i, j, k, n: j == k),
    ("j or k tied to i", "your sum ties j or k to i: c_i sums over every pair j, k, from 0 to n - 1 each, whatever i "
                         "is", lambda i, j, k, n: k == i),
)


def _assigned(dM, qd):
    gamma = 0.5 * (np.einsum("kij->ijk", dM) + np.einsum("jik->ijk", dM) - dM)      # Gamma[i, j, k]
    last = len(qd) - 1
    return gamma[:, last, last] * qd[last] ** 2


CORIOLIS_VARIATIONS = (
    Variation("twice", "your result is twice the truth: the factor 1/2 in the Christoffel symbol is missing",
              lambda dM, qd: christoffel(dM, qd, coefficients=(1.0, 1.0, -1.0))),
    Variation("sign", "your result has the wrong sign: check the signs of the three dM terms",
              lambda dM, qd: christoffel(dM, qd, coefficients=(-0.5, -0.5, 0.5))),
    Variation("index", "dM's FIRST index is the derivative: dM[k, i, j] holds dM_ij/dq_k (you read the derivative "
                       "index last)", _derivative_index_last),
    *TERM_VARIATIONS,
    Variation("assigned", "`c[i] = ...` inside the loops keeps only the last term (j = k = n - 1): add each term to "
                          "c[i] with += instead", _assigned),
    Variation("one velocity twice", "your term is multiplied by one velocity twice, qd_j qd_j (or qd_k qd_k): c_i "
                                    "sums Gamma_ijk qd_j qd_k, one velocity indexed j and one indexed k (qd[j] * "
                                    "qd[k])", lambda dM, qd: christoffel(dM, qd, velocities="jj")),
    Variation("one velocity", "each Christoffel term is multiplied by both velocities, qd_j and qd_k: c is quadratic "
                              "in qd, and yours is linear", lambda dM, qd: christoffel(dM, qd, velocities="j")),
    *(Variation("velocity index", "your term is multiplied by qd_i, the velocity of the joint whose torque c_i is: "
                                  "the velocities in c_i's sum are qd_j and qd_k, the indices summed over (qd[j] * "
                                  "qd[k])", lambda dM, qd, v=v: christoffel(dM, qd, velocities=v))
      for v in ("ik", "ij", "ii", "i")),
    Variation("no velocity", "each Christoffel term is multiplied by the velocities qd_j and qd_k: c is quadratic in "
                             "qd", lambda dM, qd: christoffel(dM, qd, velocities="")),
    *(Variation(key, text, lambda dM, qd, mask=mask: christoffel(dM, qd, mask=mask)) for key, text, mask in LOOPS),
)
CORIOLIS_TOLERANCE = Tolerance(1e-6)


def _coriolis_power(k, factor, power, what, law):
    """A property: c on a case's arguments with argument k multiplied by `factor` is factor**power times c."""
    def probe(ask, case):
        found = scaling(ask, case.args(), k, factor, power, Tolerance(1e-9, 1e-9))
        return found and f"{grew(found[0], factor, what)} ({law})"
    return probe


CORIOLIS_PROPERTIES = (
    Property("qd power", "c is quadratic in the velocity, each Christoffel term times qd_j and qd_k: yours grows "
                         "otherwise with qd (above): a velocity missing, or one too many",
             _coriolis_power(1, 2.0, 2, "qd", "c grows four times")),
    Property("dM power", "c is linear in dM, each Christoffel term a sum of dM's entries: yours grows otherwise with "
                         "dM (above): dM missing from a term, or multiplied by itself",
             _coriolis_power(0, 2.0, 1, "dM", "c doubles")),
)


@register("02_model", points=2, variations=CORIOLIS_VARIATIONS, tolerance=CORIOLIS_TOLERANCE,
          properties=CORIOLIS_PROPERTIES, computed_by=(
    "lesson_lib.physics.chain.PlanarChain.coriolis",
    "lesson_lib.model.definition.coriolis",                       # the same Christoffel sum, vectorised
), hints={
    "shape": "c has one entry per joint i (your result's shape is above): for each i, sum over j and k only",
    "differs": "sum Gamma_ijk qd_j qd_k over j and k for each i, reading each of the three terms of Gamma_ijk from "
               "dM by the rule dM[k, i, j] = dM_ij/dq_k",
}, raised=(
    Raised("undefined", "loop variable",
           "a loop variable is used outside its loop: c_i sums over both j and k, so nest "
           "a loop over k inside the loop over j",
           lambda message, line: any(f"name '{v}' is not defined" in message for v in "jk")),
))
def coriolis_from_dM(fn):
    """fn(dM, qd) -> c (n,) with c_i = sum_jk Gamma_ijk qd_j qd_k, where
    Gamma_ijk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i) and dM[k, i, j] = dM_ij / dq_k.

    Truth: the RNEA's Coriolis and centrifugal torque chain.coriolis(q, qd); dM from central differences of
    the true M, at three states each of a 2- and a 3-link chain. Tolerance 1e-6.
    """
    cases = []
    for chain, seed in ((two_link(), 3), (three_link(), 4)):
        Q, QD = random_states(chain.n_dof, 3, seed)
        for q, qd in zip(Q, QD, strict=True):
            dM = mass_matrix_derivative_fd(chain, q)
            cases.append(Case(f"{chain.n_dof} joints, q = {num(q)}, qd = {num(qd)}",
                              lambda dM=dM, qd=qd: (dM.copy(), qd.copy()), chain.coriolis(q, qd), chain.n_dof))
    judge(fn, cases, lambda raw, case: read_like(raw, case.truth, "coriolis_from_dM", CORIOLIS_TOLERANCE),
          CORIOLIS_TOLERANCE, CORIOLIS_VARIATIONS, properties=CORIOLIS_PROPERTIES,
          describe=lambda case, got: f"for {case.label} it returned {num(got)}, expected {num(case.truth)} "
                                     f"(from the RNEA)")
