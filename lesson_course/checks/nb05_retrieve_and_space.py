"""Checks for 05_retrieve_and_space: a symplectic Euler step, from memory."""
import numpy as np

from lesson_lib.physics import integrators

from .framework import Fail, as_array, as_pair, call, close, num, register
from .independent import random_states, two_link


def _position_first(f, q, qd, dt):
    """The other symplectic Euler: q first with the old qd, then qd with f at the new q (accepted too)."""
    q_new = q + dt * qd
    return q_new, qd + dt * f(q_new, qd)


@register("05_retrieve_and_space", computed_by=(
    "lesson_lib.physics.integrators.symplectic_euler_step",
    "lesson_lib.physics.integrators._symplectic_euler",
), hints={
    "pair": "return the pair (q_new, qd_new)",
    "explicit": "that is explicit Euler (q moved with the OLD velocity): update qd first, then move q with the "
                "NEW qd",
    "order": "return the pair in the order (q_new, qd_new)",
    "no dt": "the velocity changes by dt times the acceleration, not by the acceleration itself",
    "trapezoid": "that moves q with the average of the old and the new velocity (a trapezoid step): symplectic "
                 "Euler moves q with the NEW velocity alone",
    "minus": "the velocity grows by dt times the acceleration, qd + dt f(q, qd): with a minus sign the step "
             "pushes the arm against the forces that move it",
    "unbound": "q_new uses the new velocity before the line that computes it: compute qd_new first, then q_new",
    "uncalled": "f is the acceleration function: call it at the current state, f(q, qd), to get the acceleration",
    "q unchanged": "q_new is the old q: the position moves too, by dt times the NEW velocity",
    "step": "first the new velocity from the acceleration at the current state, then the new position from the "
            "NEW velocity, both over one step dt",
})
def symplectic_euler_step(fn):
    """fn(f, q, qd, dt) -> (q_new, qd_new), semi-implicit (symplectic) Euler: qd_new = qd + dt f(q, qd), then
    q_new = q + dt qd_new (lesson_lib.physics.integrators).  The other symplectic variant (q first with the old
    qd, then qd with f at the new q) is accepted too.  Unforced double pendulum, three states, dt = 0.01 s.
    Tolerance 1e-12.
    """
    chain = two_link()

    def f(q, qd):
        return chain.forward_dynamics(q, qd, np.zeros(2))

    Q, QD = random_states(2, 3, 5)
    dt = 0.01
    for q, qd in zip(Q, QD, strict=True):
        got = as_pair(call(fn, f, q.copy(), qd.copy(), dt), "symplectic_euler_step")
        got = tuple(as_array(g, (2,), "symplectic_euler_step") for g in got)
        right = [integrators.symplectic_euler_step(f, q, qd, dt), _position_first(f, q, qd, dt)]
        if any(all(close(g, w, 1e-12) for g, w in zip(got, want, strict=True)) for want in right):
            continue
        q_a, qd_a = right[0]
        known = {"explicit": integrators.euler_step(f, q, qd, dt), "order": (qd_a, q_a),
                 "no dt": (q + dt * (qd + f(q, qd)), qd + f(q, qd)),
                 "minus": (q + dt * (qd - dt * f(q, qd)), qd - dt * f(q, qd)),
                 "trapezoid": (q + dt * (qd + qd_a) / 2, qd_a), "q unchanged": (q, qd_a)}
        key = next((k for k, v in known.items() if all(close(g, w, 1e-12) for g, w in zip(got, v, strict=True))),
                   "step")
        raise Fail(f"from q = {num(q)}, qd = {num(qd)} with dt = {dt} it returned q_new = {num(got[0], 5)}, "
                   f"qd_new = {num(got[1], 5)}; expected {num(q_a, 5)}, {num(qd_a, 5)}", key)
