"""Checks for 07_write_with_the_model: the computed-torque control law."""
import numpy as np

from lesson_lib.control.laws import KD, KP

from .framework import Fail, Offered, as_array, call, close, num, register
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


@register("07_write_with_the_model", computed_by=(
    "lesson_lib.control.laws.ComputedTorque",
    "lesson_lib.control.laws.inverse_dynamics_of",
), hints={
    "shape": "tau has one entry per joint: multiply the matrix M by the vector of accelerations (@, a "
             "matrix-vector product), not entry by entry",
    "sign": "the errors are desired minus actual (e = q_d - q, e_dot = qd_d - qd): with actual minus desired the "
            "feedback pushes the arm further away",
    "feed-forward": "the desired acceleration qdd_d is missing from the commanded acceleration: without it the "
                    "law waits for an error before it moves the arm",
    "gains": "the gains are swapped: K_p multiplies the position error e, K_d the velocity error e_dot",
    "notebook's gains": "use the gains passed in, kp and kd: the notebook's KP and KD are one choice of them, and "
                        "the check passes others",
    "damping from kp": "use the kd passed in: K_d = 2 sqrt(K_p) is one choice (critical damping), and the check "
                       "passes gains that are not critically damped",
    "no M": "the commanded acceleration must be multiplied by the mass matrix M(q) to become a torque",
    "outside M": "the feedback terms must pass through M(q) too: M multiplies the whole commanded acceleration, "
                 "desired acceleration and both feedback terms",
    "no c": "the Coriolis and centrifugal torque c(q, qd) is missing",
    "no g": "the gravity torque g(q) is missing",
    "no c, g": "both c(q, qd) and g(q) are missing: the law cancels the whole rest of the equation of motion",
    "minus c, g": "c(q, qd) and g(q) are subtracted: they are torques the arm needs on top of M times the commanded "
                  "acceleration, so the law adds them (+ c + g)",
    "no feedback": "the commanded acceleration is only the desired one: without K_d e_dot + K_p e the law never "
                   "corrects an error, and the arm drifts off the path",
    "g sign": "g(q) is subtracted: the gravity torque is what the arm needs to hold itself up, so the law adds it "
              "(+ g)",
    "c sign": "c(q, qd) is subtracted: the Coriolis and centrifugal torque is needed on top of M a, so the law "
              "adds it (+ c)",
    "arguments": "model.coriolis(q, qd) takes the configuration and the velocity; model.mass_matrix(q) and "
                 "model.gravity(q) take q alone",
    "formula": "tau = M(q) times the commanded acceleration (qdd_d + K_d e_dot + K_p e), plus c(q, qd), plus g(q)",
})
def computed_torque(fn):
    """fn(model, q, qd, q_d, qd_d, qdd_d, kp, kd) -> tau (n,) = M(q) (qdd_d + K_d e_dot + K_p e) + c(q, qd) + g(q),
    e = q_d - q, e_dot = qd_d - qd; the model offers only mass_matrix, coriolis and gravity.

    Truth: the RNEA at the commanded acceleration, chain.rnea(q, qd, qdd_d + K_d e_dot + K_p e), which is the
    torque that makes the true arm's error obey e'' + K_d e' + K_p e = 0 (no M, c, g split involved); three states
    each of a double pendulum (one gain for both joints) and a 3-link chain (one gain per joint). Tolerance 1e-9.
    """
    for chain, q, qd, q_d, qd_d, qdd_d, kp, kd, e, e_dot in _cases():
        commanded = qdd_d + kd * e_dot + kp * e
        truth = chain.rnea(q, qd, commanded)
        got = as_array(call(fn, _PartsOnly(chain), q.copy(), qd.copy(), q_d.copy(), qd_d.copy(), qdd_d.copy(),
                            np.copy(kp), np.copy(kd)), truth.shape, "computed_torque")
        if close(got, truth, 1e-9):
            continue
        M, c, g = chain.mass_matrix(q), chain.coriolis(q, qd), chain.gravity(q)
        known = {"sign": [M @ (qdd_d - kd * e_dot - kp * e) + c + g, M @ (qdd_d + kd * e_dot - kp * e) + c + g,
                          M @ (qdd_d - kd * e_dot + kp * e) + c + g],
                 "feed-forward": [M @ (kd * e_dot + kp * e) + c + g],
                 "gains": [M @ (qdd_d + kp * e_dot + kd * e) + c + g],
                 "notebook's gains": [M @ (qdd_d + KD * e_dot + KP * e) + c + g],
                 "damping from kp": [M @ (qdd_d + 2 * np.sqrt(kp) * e_dot + kp * e) + c + g],
                 "no M": [qdd_d + kd * e_dot + kp * e + c + g],
                 "outside M": [M @ qdd_d + kd * e_dot + kp * e + c + g],
                 "no c": [truth - c], "no g": [truth - g], "no c, g": [truth - c - g],
                 "minus c, g": [truth - 2 * c - 2 * g], "no feedback": [M @ qdd_d + c + g],
                 "g sign": [truth - 2 * g], "c sign": [truth - 2 * c]}
        key = next((k for k, answers in known.items() if any(close(got, a, 1e-9) for a in answers)), "formula")
        qdd = np.linalg.solve(M, got - c - g)                 # what the true arm would do with this torque
        raise Fail(f"at q = {num(q)} with e = {num(e)}, e_dot = {num(e_dot)} ({chain.n_dof} joints) it returned "
                   f"{num(got)}, expected {num(truth)} N m (the RNEA at the commanded acceleration): the true arm "
                   f"would accelerate at {num(qdd)}, not {num(commanded)} rad/s^2", key)
