"""Checks for 07_write_with_the_model: the computed-torque control law."""
from functools import partial

import numpy as np

from lesson_lib.control.laws import KD, KP

from .diagnosis import PRODUCTS, Case, Property, Raised, Variation, judge, read_like, same
from .framework import Offered, Tolerance, num, register
from .independent import random_states, rng, three_link, two_link


class _PartsOnly(Offered):
    """A model that offers only n_dof, mass_matrix(q), coriolis(q, qd) and gravity(q): the law's three pieces.  In
    grading it stays in the judge: the learner's kernel gets a proxy whose methods call back (framework.Offered)."""
    attributes, methods = ("n_dof",), ("mass_matrix", "coriolis", "gravity")
    refusal = ("in this exercise the model offers only mass_matrix(q), coriolis(q, qd) and gravity(q) "
               "(model.{name} is not available)")

    def __init__(self, chain):
        self.n_dof, self._chain = chain.n_dof, chain

    def mass_matrix(self, q):
        return self._chain.mass_matrix(q)

    def coriolis(self, q, qd):
        return self._chain.coriolis(q, qd)

    def gravity(self, q):
        return self._chain.gravity(q)

    def __getattr__(self, name):
        raise AttributeError(self.refusal.format(name=name))


def _cases():
    """(chain, q, qd, q_d, qd_d, qdd_d, kp, kd, e, e_dot): a double pendulum with the notebook's gains for every
    joint, a 3-link chain with gains of its own per joint, not critically damped (K_d < 2 sqrt(K_p)), so neither
    the notebook's KP, KD nor a K_d made from K_p stands in for the kd passed; states where every term of the law
    is non-zero.  The errors e, e_dot are drawn first and the desired motion placed at q + e, qd + e_dot."""
    out = []
    for chain, seed, kp, kd in ((two_link(), 7, KP, KD),
                                (three_link(), 8, np.array([100.0, 64.0, 36.0]), np.array([15.0, 12.0, 9.0]))):
        draw = rng(seed)
        Q, QD = random_states(chain.n_dof, 3, seed)
        n = chain.n_dof
        for q, qd in zip(Q, QD, strict=True):
            e = draw.uniform(0.05, 0.2, n) * draw.choice([-1, 1], n)           # e = q_d - q, never 0
            e_dot = draw.uniform(0.2, 0.8, n) * draw.choice([-1, 1], n)
            out.append((chain, q, qd, q + e, qd + e_dot, draw.uniform(-5, 5, n), kp, kd, e, e_dot))
    return out


TOLERANCE = Tolerance(1e-9)


def _law(model, q, qd, q_d, qd_d, qdd_d, kp, kd, commanded=lambda qdd_d, e, e_dot, kp, kd: qdd_d + kd * e_dot + kp * e,
         torque=lambda M, a, c, g: M @ a + c + g, e=lambda q, q_d: q_d - q, e_dot=lambda qd, qd_d, q, q_d: qd_d - qd,
         at=lambda q, qd, q_d, qd_d: ((q,), (q, qd), (q,)), c_of=lambda c, qd: c):
    """computed_torque from the reference with one piece written another way (a variation, once bound with
    partial): the commanded acceleration, the torque from its parts, the errors, the state the model is asked at
    (M's, c's, g's arguments), or what is made of c."""
    a = commanded(qdd_d, e(q, q_d), e_dot(qd, qd_d, q, q_d), kp, kd)
    at_M, at_c, at_g = at(q, qd, q_d, qd_d)
    return torque(model.mass_matrix(*at_M), a, c_of(model.coriolis(*at_c), qd), model.gravity(*at_g))


_at_desired = "the model is asked at the desired state (q_d, qd_d): M, c and g are the arm's own, at its actual " \
              "state q and qd"
VARIATIONS = (
    Variation("sign", "the errors are desired minus actual (e = q_d - q, e_dot = qd_d - qd): with actual minus "
                      "desired the feedback pushes the arm further away",
              partial(_law, e=lambda q, q_d: q - q_d, e_dot=lambda qd, qd_d, q, q_d: qd - qd_d)),
    Variation("sign", "the errors are desired minus actual (e = q_d - q, e_dot = qd_d - qd): with actual minus "
                      "desired the feedback pushes the arm further away", partial(_law, e=lambda q, q_d: q - q_d)),
    Variation("sign", "the errors are desired minus actual (e = q_d - q, e_dot = qd_d - qd): with actual minus "
                      "desired the feedback pushes the arm further away",
              partial(_law, e_dot=lambda qd, qd_d, q, q_d: qd - qd_d)),
    Variation("velocity error", "the velocity error is e_dot = qd_d - qd, the desired minus the actual velocity: "
                                "yours mixes in a position", partial(_law, e_dot=lambda qd, qd_d, q, q_d: q_d - qd)),
    Variation("velocity error", "the velocity error is e_dot = qd_d - qd, the desired minus the actual velocity: "
                                "yours mixes in a position", partial(_law, e_dot=lambda qd, qd_d, q, q_d: qd_d - q)),
    Variation("feed-forward", "the desired acceleration qdd_d is missing from the commanded acceleration: without it "
                              "the law waits for an error before it moves the arm",
              partial(_law, commanded=lambda qdd_d, e, e_dot, kp, kd: kd * e_dot + kp * e)),
    Variation("gains", "the gains are swapped: K_p multiplies the position error e, K_d the velocity error e_dot",
              partial(_law, commanded=lambda qdd_d, e, e_dot, kp, kd: qdd_d + kp * e_dot + kd * e)),
    Variation("notebook's gains", "use the gains passed in, kp and kd: the notebook's KP and KD are one choice of "
                                  "them, and the check passes others",
              partial(_law, commanded=lambda qdd_d, e, e_dot, kp, kd: qdd_d + KD * e_dot + KP * e)),
    *(Variation("damping from kp", "use the damping gain kd passed in: yours is made from kp (2 sqrt(K_p), critical "
                                   "damping, is one choice of kd), and the check passes gains not made that way",
                partial(_law, commanded=lambda qdd_d, e, e_dot, kp, kd, f=f: qdd_d + f(kp) * e_dot + kp * e))
      for f in (lambda kp: 2 * np.sqrt(kp), np.sqrt, lambda kp: kp)),
    Variation("no M", "the commanded acceleration must be multiplied by the mass matrix M(q) to become a torque",
              partial(_law, torque=lambda M, a, c, g: a + c + g)),
    *(Variation("product", "M(q) a is a matrix-vector product, M @ a (entry i the sum over j of M_ij a_j): yours "
                           "multiplies M and a another way",
                partial(_law, torque=lambda M, a, c, g, p=p: p(M, a) + c + g))
      for what, p in PRODUCTS if what != "M's inverse"),
    Variation("M inverse", "M^-1 a (np.linalg.solve(M, a)) is what forward dynamics does with a torque: the law "
                           "goes the other way and multiplies, M(q) @ a",
              partial(_law, torque=lambda M, a, c, g: np.linalg.solve(M, a) + c + g)),
    Variation("outside M", "the feedback terms must pass through M(q) too: M multiplies the whole commanded "
                           "acceleration, desired acceleration and both feedback terms",
              lambda model, q, qd, q_d, qd_d, qdd_d, kp, kd: (
                  model.mass_matrix(q) @ qdd_d + kd * (qd_d - qd) + kp * (q_d - q) + model.coriolis(q, qd)
                  + model.gravity(q))),
    Variation("no position feedback", "the position feedback K_p e is missing from the commanded acceleration: "
                                      "without it nothing pulls the arm back onto the path (e = q_d - q)",
              partial(_law, commanded=lambda qdd_d, e, e_dot, kp, kd: qdd_d + kd * e_dot)),
    Variation("no velocity feedback", "the velocity feedback K_d e_dot is missing from the commanded acceleration: "
                                      "without it nothing damps the error (e_dot = qd_d - qd)",
              partial(_law, commanded=lambda qdd_d, e, e_dot, kp, kd: qdd_d + kp * e)),
    *(Variation("one error for both", "the two feedback terms take two errors: K_d the velocity error e_dot = qd_d - "
                                      "qd, K_p the position error e = q_d - q (yours uses one of them twice)",
                partial(_law,
                                          commanded=commanded)) for commanded in (
        lambda qdd_d, e, e_dot, kp, kd: qdd_d + kd * e_dot + kp * e_dot,
        lambda qdd_d, e, e_dot, kp, kd: qdd_d + kd * e + kp * e)),
    Variation("no feedback", "the commanded acceleration is only the desired one: without K_d e_dot + K_p e the law "
                             "never corrects an error, and the arm drifts off the path",
              partial(_law, commanded=lambda qdd_d, e, e_dot, kp, kd: qdd_d)),
    Variation("no c", "the Coriolis and centrifugal torque c(q, qd) is missing",
              partial(_law, torque=lambda M, a, c, g: M @ a + g)),
    Variation("no g", "the gravity torque g(q) is missing", partial(_law, torque=lambda M, a, c, g: M @ a + c)),
    Variation("no c, g", "both c(q, qd) and g(q) are missing: the law cancels the whole rest of the equation of "
                         "motion", partial(_law, torque=lambda M, a, c, g: M @ a)),
    Variation("minus c, g", "c(q, qd) and g(q) are subtracted: they are torques the arm needs on top of M times the "
                            "commanded acceleration, so the law adds them (+ c + g)",
              partial(_law, torque=lambda M, a, c, g: M @ a - c - g)),
    Variation("g sign", "g(q) is subtracted: the gravity torque is what the arm needs to hold itself up, so the law "
                        "adds it (+ g)", partial(_law, torque=lambda M, a, c, g: M @ a + c - g)),
    Variation("c sign", "c(q, qd) is subtracted: the Coriolis and centrifugal torque is needed on top of M a, so the "
                        "law adds it (+ c)", partial(_law, torque=lambda M, a, c, g: M @ a - c + g)),
    Variation("c through M", "c(q, qd) is a torque already: add it after the product with M, M(q) a + c(q, qd) + "
                             "g(q), rather than adding it to the acceleration",
              partial(_law, torque=lambda M, a, c, g: M @ (a + c) + g)),
    Variation("g through M", "g(q) is a torque already: add it after the product with M, M(q) a + c(q, qd) + g(q), "
                             "rather than adding it to the acceleration",
              partial(_law, torque=lambda M, a, c, g: M @ (a + g) + c)),
    Variation("c, g through M", "c(q, qd) and g(q) are torques already: add them after the product with M, M(q) a + "
                                "c(q, qd) + g(q), rather than adding them to the acceleration",
              partial(_law, torque=lambda M, a, c, g: M @ (a + c + g))),
    *(Variation("c arguments", "model.coriolis takes the arm's configuration and its velocity, c(q, qd): yours is "
                               "given another pair (a desired value, or a position for a velocity)",
                partial(_law, at=at))
      for at in (lambda q, qd, q_d, qd_d: ((q,), (q, q_d), (q,)), lambda q, qd, q_d, qd_d: ((q,), (q, qd_d), (q,)),
                 lambda q, qd, q_d, qd_d: ((q,), (qd, q), (q,)), lambda q, qd, q_d, qd_d: ((q,), (q_d, qd), (q,)))),
    *(Variation("c times qd", "c(q, qd) is already the Coriolis and centrifugal torque C(q, qd) qd: do not multiply "
                              "it by qd again", partial(_law, c_of=c_of)) for c_of in (lambda c, qd: c * qd,
                                                                             lambda c, qd: c @ qd)),
    *(Variation("desired", _at_desired, partial(_law, at=lambda q, qd, q_d, qd_d, which=which: (
        (q_d if "M" in which else q,), (q_d, qd_d) if "c" in which else (q, qd), (q_d if "g" in which else q,))))
      for which in ("Mcg", "M", "c", "g", "cg", "Mc", "Mg")),
    *(Variation("term scaled", "a term of the commanded acceleration is counted twice, or with the wrong sign: it is "
                               "qdd_d + K_d e_dot + K_p e, each term once and added",
                partial(_law, commanded=lambda qdd_d, e, e_dot, kp, kd, f=f: f(qdd_d, kd * e_dot, kp * e)))
      for f in (lambda a, b, c: 2 * a + b + c, lambda a, b, c: a + 2 * b + c, lambda a, b, c: a + b + 2 * c,
                lambda a, b, c: -a + b + c)),
)
def _parts(ask, case):
    """Each part of the law tried alone, the learner's against the truth's: [(name, right)], or None.  At rest with
    no error and no desired acceleration the torque is g(q); then one thing at a time is added: the desired
    acceleration (M qdd_d), the velocity (c), the position error (M K_p e), the velocity error (M K_d e_dot)."""
    model, q, qd, q_d, qd_d, qdd_d, kp, kd = case.args()
    chain, zero = model._chain, np.zeros_like(q)
    M, e, e_dot = chain.mass_matrix(q), q_d - q, qd_d - qd

    def torque(qd_, q_d_, qd_d_, qdd_d_):
        return ask(_PartsOnly(chain), q.copy(), qd_, q_d_, qd_d_, qdd_d_, np.copy(kp), np.copy(kd))

    rest = torque(zero, q.copy(), zero, zero)
    tried = (("M qdd_d", torque(zero, q.copy(), zero, qdd_d.copy()), M @ qdd_d),
             ("c", torque(qd.copy(), q.copy(), qd.copy(), zero), chain.coriolis(q, qd)),
             ("M K_p e", torque(zero, q_d.copy(), zero, zero), M @ (kp * e)),
             ("M K_d e_dot", torque(zero, q.copy(), e_dot.copy(), zero), M @ (kd * e_dot)))
    if rest is None or np.shape(rest) != q.shape or any(t is None or np.shape(t) != q.shape for _, t, _ in tried):
        return None
    return [("g", same(rest, chain.gravity(q), TOLERANCE))] + [
        (name, same(t - rest, want, TOLERANCE)) for name, t, want in tried]


def _part(names):
    """A property: exactly the parts `names` of the law are wrong, each tried alone (the others right)."""
    def probe(ask, case):
        parts = _parts(ask, case)
        if parts is None or {name for name, right in parts if not right} != set(names):
            return None
        return "tried alone, your torque's parts are " + ", ".join(
            f"{name} {'right' if right else 'wrong'}" for name, right in parts)
    return probe


def _some_parts(ask, case):
    parts = _parts(ask, case)
    if parts is None or all(right for _, right in parts):
        return None
    return "tried alone, your torque's parts are " + ", ".join(
        f"{name} {'right' if right else 'wrong'}" for name, right in parts)


PROPERTIES = (
    Property("gravity part", "only the gravity part of your torque is wrong (at rest, with no error and no desired "
                             "acceleration, the torque is g(q) alone): g(q) enters once, at the arm's q, added",
             _part(("g",)), locates=True),
    Property("coriolis part", "only the Coriolis part of your torque is wrong (moving, with no error and no desired "
                              "acceleration, the torque is c(q, qd) + g(q)): c enters once, at the arm's q and qd, "
                              "added after the product with M", _part(("c",)), locates=True),
    Property("desired part", "only the part that comes from the desired acceleration is wrong: qdd_d enters the "
                             "commanded acceleration once, with a plus sign, and goes through M(q)",
             _part(("M qdd_d",)), locates=True),
    Property("feedback part", "only the feedback is wrong (above, which term): K_p times e = q_d - q and K_d times "
                              "e_dot = qd_d - qd join the commanded acceleration, which goes through M(q)",
             _part(("M K_p e",)), locates=True),
    Property("feedback part", "only the feedback is wrong (above, which term): K_p times e = q_d - q and K_d times "
                              "e_dot = qd_d - qd join the commanded acceleration, which goes through M(q)",
             _part(("M K_d e_dot",)), locates=True),
    Property("feedback part", "only the feedback is wrong (above, which term): K_p times e = q_d - q and K_d times "
                              "e_dot = qd_d - qd join the commanded acceleration, which goes through M(q)",
             _part(("M K_p e", "M K_d e_dot")), locates=True),
    Property("through M", "everything M(q) multiplies is wrong while c and g are right: the product of M(q) with the "
                          "commanded acceleration is where yours differs (M taken at the arm's q, times the whole "
                          "of a, with @)", _part(("M qdd_d", "M K_p e", "M K_d e_dot")), locates=True),
    Property("parts", "each part of the law tried alone is right or wrong as listed above: fix the wrong ones "
                      "(the law adds M(q) times the commanded acceleration, c(q, qd) and g(q))", _some_parts,
             locates=True),
)


@register("07_write_with_the_model", variations=VARIATIONS, tolerance=TOLERANCE, properties=PROPERTIES, computed_by=(
    "lesson_lib.control.laws.ComputedTorque",
    "lesson_lib.control.laws.inverse_dynamics_of",
), hints={
    "shape": "tau has one entry per joint (your result's shape is above): M(q) @ a is a matrix-vector product, one "
             "torque per joint, and c and g add to it entry by entry",
    "differs": "tau = M(q) times the commanded acceleration (qdd_d + K_d e_dot + K_p e), plus c(q, qd), plus g(q)",
}, raised=(
    Raised("arguments", "model arguments", "model.coriolis(q, qd) takes the configuration and the velocity; "
                                           "model.mass_matrix(q) and model.gravity(q) take q alone",
           lambda message, line: any(name in message for name in ("coriolis", "mass_matrix", "gravity"))),
))
def computed_torque(fn):
    """fn(model, q, qd, q_d, qd_d, qdd_d, kp, kd) -> tau (n,) = M(q) (qdd_d + K_d e_dot + K_p e) + c(q, qd) + g(q),
    e = q_d - q, e_dot = qd_d - qd; the model offers only mass_matrix, coriolis and gravity.

    Truth: the RNEA at the commanded acceleration, chain.rnea(q, qd, qdd_d + K_d e_dot + K_p e), which is the
    torque that makes the true arm's error obey e'' + K_d e' + K_p e = 0 (no M, c, g split involved); three states
    each of a double pendulum (one gain for both joints) and a 3-link chain (one gain per joint). Tolerance 1e-9.
    """
    cases = []
    for chain, q, qd, q_d, qd_d, qdd_d, kp, kd, e, e_dot in _cases():
        commanded = qdd_d + kd * e_dot + kp * e
        cases.append(Case((chain, q, qd, e, e_dot, commanded),
                          lambda chain=chain, q=q, qd=qd, q_d=q_d, qd_d=qd_d, qdd_d=qdd_d, kp=kp, kd=kd: (
                              _PartsOnly(chain), q.copy(), qd.copy(), q_d.copy(), qd_d.copy(), qdd_d.copy(),
                              np.copy(kp), np.copy(kd)),
                          chain.rnea(q, qd, commanded)))
    judge(fn, cases, lambda raw, case: read_like(raw, case.truth, "computed_torque", TOLERANCE), TOLERANCE,
          VARIATIONS, describe=_what, properties=PROPERTIES)


def _what(case, got):
    """What the torque does: the true arm's acceleration under it, against the commanded one."""
    chain, q, qd, e, e_dot, commanded = case.label
    qdd = np.linalg.solve(chain.mass_matrix(q), got - chain.coriolis(q, qd) - chain.gravity(q))
    return (f"at q = {num(q)} with e = {num(e)}, e_dot = {num(e_dot)} ({chain.n_dof} joints) it returned {num(got)}, "
            f"expected {num(case.truth)} N m (the RNEA at the commanded acceleration): the true arm would accelerate "
            f"at {num(qdd)}, not {num(commanded)} rad/s^2")
