"""Checks for 05_retrieve_and_space: a symplectic Euler step, from memory."""
from functools import partial

import numpy as np

from lesson_lib.physics import integrators

from .diagnosis import Case, Property, Raised, Variation, agrees, judge, read_pair_like, same
from .framework import Tolerance, num, register
from .independent import random_states, two_link

TOLERANCE = Tolerance(1e-12)


def _position_first(f, q, qd, dt):
    """The other symplectic Euler: q first with the old qd, then qd with f at the new q (accepted too)."""
    q_new = q + dt * qd
    return q_new, qd + dt * f(q_new, qd)


def _step(f, q, qd, dt, velocity=lambda f, q, qd, dt: qd + dt * f(q, qd),
          position=lambda q, qd, qd_new, dt: q + dt * qd_new, returned=lambda q_new, qd_new, q, qd: (q_new, qd_new)):
    """symplectic_euler_step from the reference with one of its updates written another way: a variation, once bound
    with partial."""
    qd_new = velocity(f, q, qd, dt)
    return returned(position(q, qd, qd_new, dt), qd_new, q, qd)


VARIATIONS = (
    Variation("explicit", "that is explicit Euler (q moved with the OLD velocity): update qd first, then move q with "
                          "the NEW qd", partial(_step, position=lambda q, qd, qd_new, dt: q + dt * qd)),
    Variation("no dt", "the velocity changes by dt times the acceleration, not by the acceleration itself",
              partial(_step, velocity=lambda f, q, qd, dt: qd + f(q, qd))),
    Variation("dt in position", "the position moves by dt times the new velocity, q + dt qd_new: your q_new adds the "
                                "velocity itself", partial(_step, position=lambda q, qd, qd_new, dt: q + qd_new)),
    Variation("dt squared", "the velocity changes by dt times the acceleration, once: your update multiplies it by "
                            "dt twice (dt squared)",
              partial(_step, velocity=lambda f, q, qd, dt: qd + dt**2 * f(q, qd))),
    *(Variation("dt scaled", "each update moves by one whole step dt: qd_new = qd + dt f(q, qd), then q_new = q + "
                             "dt qd_new (yours uses a fraction or a multiple of dt)", answer) for answer in (
        partial(_step, velocity=lambda f, q, qd, dt: qd + dt / 2 * f(q, qd)),
        partial(_step, velocity=lambda f, q, qd, dt: qd + 2 * dt * f(q, qd)),
        partial(_step, position=lambda q, qd, qd_new, dt: q + dt / 2 * qd_new),
        partial(_step, position=lambda q, qd, qd_new, dt: q + 2 * dt * qd_new))),
    Variation("minus", "the velocity grows by dt times the acceleration, qd + dt f(q, qd): with a minus sign the step "
                       "pushes the arm against the forces that move it",
              partial(_step, velocity=lambda f, q, qd, dt: qd - dt * f(q, qd))),
    Variation("old velocity dropped", "the new velocity is the old one plus the change: qd_new = qd + dt f(q, qd) "
                                      "(yours is the change alone)",
              partial(_step, velocity=lambda f, q, qd, dt: dt * f(q, qd))),
    Variation("old position dropped", "the new position starts from the old one: q_new = q + dt qd_new (yours starts "
                                      "elsewhere, from the velocity or from 0)",
              partial(_step, position=lambda q, qd, qd_new, dt: qd + dt * qd_new)),
    Variation("old position dropped", "the new position starts from the old one: q_new = q + dt qd_new (yours starts "
                                      "elsewhere, from the velocity or from 0)",
              partial(_step, position=lambda q, qd, qd_new, dt: dt * qd_new)),
    Variation("f swapped", "f takes the position first, f(q, qd): you called it with the velocity first",
              partial(_step, velocity=lambda f, q, qd, dt: qd + dt * f(qd, q))),
    Variation("position by acceleration", "the position moves by dt times the velocity, the NEW one, qd_new: yours "
                                          "moves it by the acceleration f",
              lambda f, q, qd, dt: (q + dt * f(q, qd), qd + dt * f(q, qd))),
    Variation("trapezoid", "that moves q with the average of the old and the new velocity (a trapezoid step): "
                           "symplectic Euler moves q with the NEW velocity alone",
              partial(_step, position=lambda q, qd, qd_new, dt: q + dt * (qd + qd_new) / 2)),
    Variation("q unchanged", "q_new is the old q: the position moves too, by dt times the NEW velocity",
              partial(_step, position=lambda q, qd, qd_new, dt: q)),
    Variation("old velocity returned", "your step returns the old velocity qd: return the new one, qd_new, which "
                                       "your q_new used",
              partial(_step, returned=lambda q_new, qd_new, q, qd: (q_new, qd))),
)


def _updates(ask, case):
    """(q, qd, q_new, qd_new, velocity right, position right): whether the learner's qd_new is qd + dt f(q, qd),
    and whether its q_new is q + dt times its own qd_new (or the pair is the other variant's), or None."""
    f, q, qd, dt = case.args()
    got = ask(f, q.copy(), qd.copy(), dt)
    if not isinstance(got, tuple) or np.shape(got[0]) != q.shape or np.shape(got[1]) != qd.shape:
        return None
    q_new, qd_new = got
    if same(got, _position_first(f, q, qd, dt), TOLERANCE):
        return None
    return (q, qd, q_new, qd_new, same(qd_new, qd + dt * f(q, qd), TOLERANCE),
            same(q_new, q + dt * qd_new, TOLERANCE))


def _position_update(ask, case):
    found = _updates(ask, case)
    if found and found[4] and not found[5]:
        q, _, q_new, qd_new, *_ = found
        dt = case.args()[3]
        return f"your qd_new is right, but q_new - q is {num(q_new - q, 6)} where dt qd_new is {num(dt * qd_new, 6)}"
    return None


def _velocity_update(ask, case):
    found = _updates(ask, case)
    if found and found[5] and not found[4]:
        f, q, qd, dt = case.args()
        moved = ", the acceleration at the moved position q + dt qd" if same(
            found[3], qd + dt * f(q + dt * qd, qd), TOLERANCE) else ""
        return (f"your q_new follows from your qd_new (q + dt qd_new), but qd_new - qd is {num(found[3] - qd, 6)} "
                f"where dt f(q, qd) is {num(dt * f(q, qd), 6)}{moved}")
    return None


PROPERTIES = (
    Property("position update", "your velocity update is right and your position update is not: the new position "
                                "is the old one moved by one step dt at the NEW velocity, and nothing more (yours "
                                "moves by something else: above)", _position_update, locates=True),
    Property("velocity update", "your position update is right (it follows from your new velocity) and your "
                                "velocity update is not: the new velocity is the old one plus dt times the "
                                "acceleration f at the current state (q, qd), taken once", _velocity_update,
             locates=True),
)


@register("05_retrieve_and_space", variations=VARIATIONS, tolerance=TOLERANCE, properties=PROPERTIES, computed_by=(
    "lesson_lib.physics.integrators.symplectic_euler_step",
    "lesson_lib.physics.integrators._symplectic_euler",
), hints={
    "pair": "return the pair (q_new, qd_new)",
    "differs": "first the new velocity from the acceleration at the current state, then the new position from the "
               "NEW velocity, both over one step dt",
}, raised=(
    Raised("unbound", "new velocity first",
           "q_new uses the new velocity before the line that computes it: compute qd_new "
           "first, then q_new", lambda message, line: "qd_new" in message),
    Raised("uncalled", "f uncalled", "f is the acceleration function: call it at the current state, f(q, qd), to get "
                                     "the acceleration", lambda message, line: "'function'" in message),
))
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
    cases = [Case(f"q = {num(q)}, qd = {num(qd)} with dt = {dt}", lambda q=q, qd=qd: (f, q.copy(), qd.copy(), dt),
                  integrators.symplectic_euler_step(f, q, qd, dt)) for q, qd in zip(Q, QD, strict=True)]

    def read(raw, case):
        got = read_pair_like(raw, case.truth, "symplectic_euler_step", TOLERANCE, ("q_new", "qd_new"), say_part=False)
        if agrees(got, case.truth, TOLERANCE):
            return got
        return case.truth if agrees(got, _position_first(*case.args()), TOLERANCE) else got   # the other one

    judge(fn, cases, read, TOLERANCE, VARIATIONS, names=("q_new", "qd_new"), properties=PROPERTIES,
          describe=lambda case, got: (
        f"from {case.label} it returned q_new = {num(got[0], 5)}, qd_new = {num(got[1], 5)}; expected "
        f"{num(case.truth[0], 5)}, {num(case.truth[1], 5)}"))
