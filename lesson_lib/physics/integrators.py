"""Three ways to step (q, qd)' = (qd, f(q, qd)) forward in time, and what they do to the energy.

- explicit Euler: q and qd move with the OLD derivatives; first order; the energy grows steadily.
- symplectic (semi-implicit) Euler: qd first, then q with the NEW qd; first order, the energy error stays
  bounded for a constant M (for the double pendulum, stepping qd rather than p = M qd, it still creeps up
  slowly, far below explicit Euler's).
- classical RK4 (rk4_step): fourth order; not symplectic, so its tiny error still accumulates.

q, qd are (n,) or (B, n); f(q, qd) returns qdd of the same shape.  A blown-up integration (a state beyond
BLOW_UP, or a non-finite acceleration) stops with a message that blames the step dt."""
import numpy as np

from ..limits import MAX_SAMPLES, MAX_STEPS
from ..validate import array, as_state, callable_arg, has_api, integer, positive_number, within_limit

# A rollout whose |q| (rad) or |qd| (rad/s) passes this has blown up: no motion in the course comes near it, and
# stopping here keeps the dynamics far from floating-point overflow.
BLOW_UP = 1e6


class _BlowUp(Exception):
    """Raised by the guarded dynamics: the integration left the finite, sane range (carries the largest value)."""


def _guard(f, shape):
    """f(q, qd, *args) with its output checked on every call: non-finite raises _BlowUp, a wrong shape
    ValueError."""
    def guarded(q, qd, *args):
        qdd = np.asarray(f(q, qd, *args), dtype=float)
        if qdd.shape != shape:
            raise ValueError(f"the dynamics returned qdd of shape {qdd.shape}, expected {shape} (one acceleration "
                             f"per joint, like q)")
        if not np.all(np.isfinite(qdd)):
            raise _BlowUp(np.nan)
        return qdd
    return guarded


def _blown_up(err, dt, step=None, steps=None):
    """The message for a blown-up integration: where it happened and what to change."""
    where = "" if step is None else f" at step {step} of {steps} (starting at t = {(step - 1) * dt:g} s)"
    return ValueError(f"the integration blew up{where}: the state or its acceleration reached {err.args[0]:.3g} "
                      f"(NaN/inf or beyond {BLOW_UP:g}); dt = {dt:g} s is too large for this motion: use a smaller "
                      f"dt (e.g. dt={dt / 10:g}) with proportionally more steps (if that blows up too, the dynamics "
                      f"themselves diverge from this state)")


def _pair(q, qd, q_name="q", qd_name="qd"):
    """Check a state pair for the generic integrators: real, finite, (n,) or (B, n), the same shape."""
    q = array(q_name, q, (1, 2), "a state of shape (n,) or a batch (B, n)")
    qd = as_state(qd_name, qd, q.shape[-1])
    if qd.shape != q.shape:
        raise ValueError(f"{qd_name} has shape {qd.shape} but {q_name} has {q.shape}; give both the same shape")
    return q, qd


def _time_step(dt):
    return positive_number("dt", dt, hint="the time step in seconds, e.g. dt=0.01")


def _one_step(step, f, q, qd, dt):
    """Check (f, q, qd, dt) once, then take one step with f's output checked."""
    callable_arg("f", f, "f(q, qd) -> qdd")
    q, qd = _pair(q, qd)
    dt = _time_step(dt)
    try:
        return step(_guard(f, q.shape), q, qd, dt)
    except _BlowUp as err:
        raise _blown_up(err, dt) from None


def _euler(f, q, qd, dt):
    return q + dt * qd, qd + dt * f(q, qd)


def _symplectic_euler(f, q, qd, dt):
    qd_new = qd + dt * f(q, qd)
    return q + dt * qd_new, qd_new


def _rk4(f, q, qd, dt):
    k1q, k1v = qd, f(q, qd)
    k2q, k2v = qd + 0.5 * dt * k1v, f(q + 0.5 * dt * k1q, qd + 0.5 * dt * k1v)
    k3q, k3v = qd + 0.5 * dt * k2v, f(q + 0.5 * dt * k2q, qd + 0.5 * dt * k2v)
    k4q, k4v = qd + dt * k3v, f(q + dt * k3q, qd + dt * k3v)
    return (q + dt / 6 * (k1q + 2 * k2q + 2 * k3q + k4q),
            qd + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v))


def euler_step(f, q, qd, dt):
    """Explicit Euler: (q + dt qd, qd + dt f(q, qd)).  f(q, qd) -> qdd; q, qd: (n,) or (B, n); dt > 0 (s).

    >>> fall = lambda q, qd: -9.81 + 0 * q                 # qdd of a falling body
    >>> euler_step(fall, np.array([0.0]), np.array([0.0]), 0.1)
    (array([0.]), array([-0.981]))"""
    return _one_step(_euler, f, q, qd, dt)


def symplectic_euler_step(f, q, qd, dt):
    """qd_new = qd + dt f(q, qd), then q_new = q + dt qd_new (the answer to 05's exercise);
    q, qd (n,) or (B, n); dt > 0 (s).

    >>> fall = lambda q, qd: -9.81 + 0 * q
    >>> symplectic_euler_step(fall, np.array([0.0]), np.array([0.0]), 0.1)
    (array([-0.0981]), array([-0.981]))"""
    return _one_step(_symplectic_euler, f, q, qd, dt)


def rk4_step(f, q, qd, dt):
    """One classical Runge–Kutta step of (q, qd)' = (qd, f(q, qd)); q, qd (n,) or (B, n); dt > 0 (s).

    >>> fall = lambda q, qd: -9.81 + 0 * q
    >>> q, qd = rk4_step(fall, np.array([0.0]), np.array([0.0]), 0.1)
    >>> q.round(6), qd.round(6)                                   # exact for a constant acceleration
    (array([-0.04905]), array([-0.981]))"""
    return _one_step(_rk4, f, q, qd, dt)


STEPPERS = {"explicit Euler": euler_step, "symplectic Euler": symplectic_euler_step, "RK4": rk4_step}
_UNCHECKED = {euler_step: _euler, symplectic_euler_step: _symplectic_euler, rk4_step: _rk4}


def _steps(steps, batch):
    """Check a number of steps: a whole number 0..MAX_STEPS whose (steps + 1) x batch recorded states fit."""
    steps = integer("steps", steps, low=0, hint="the number of time steps, e.g. steps=500")
    within_limit("steps", steps, MAX_STEPS, "split the motion into several calls, or use a larger dt")
    within_limit(f"recording (steps + 1) x {batch} states", (steps + 1) * batch, MAX_SAMPLES,
                 "use fewer steps or a smaller batch")
    return steps


def _march(advance, q, qd, dt, steps):
    """q, qd = advance(k, q, qd) for k < steps: t (steps+1,), q, qd (steps+1, ...); ValueError naming the
    step and dt on a blow-up."""
    qs, qds = [q], [qd]
    for k in range(steps):
        try:
            q, qd = advance(k, q, qd)
            peak = max(np.max(np.abs(q), initial=0.0), np.max(np.abs(qd), initial=0.0))
            if not peak < BLOW_UP:                     # NaN fails the comparison too
                raise _BlowUp(peak)
        except _BlowUp as err:
            raise _blown_up(err, dt, k + 1, steps) from None
        qs.append(q)
        qds.append(qd)
    return np.arange(steps + 1) * dt, np.array(qs), np.array(qds)


def _torque(tau_fn, t, q, qd):
    """tau_fn(t, q, qd) checked: finite, shaped like q (or one (n,) torque for the whole batch)."""
    tau = array("tau_fn(t, q, qd)", tau_fn(t, q, qd), (0, 1, 2), f"torques shaped like q, {q.shape}")
    if tau.shape not in (q.shape, q.shape[-1:]):
        raise ValueError(f"tau_fn(t, q, qd) returned shape {tau.shape}, expected {q.shape} like q (one torque per "
                         f"joint)")
    return tau


def rollout(forward_dynamics, q0, qd0, dt=0.01, steps=500, tau_fn=None):
    """Integrate qdd = forward_dynamics(q, qd, tau) with RK4 from (q0, qd0), (n,) or (B, n).

    forward_dynamics: like PlanarChain.forward_dynamics (or a learned model's); dt > 0 (s); steps 0..MAX_STEPS;
    tau_fn(t, q, qd) -> tau, held over each step (zero when None).  Returns t (steps+1,), q and qd
    (steps+1, *q0.shape).

    >>> from lesson_lib.physics.chain import double_pendulum
    >>> t, q, qd = rollout(double_pendulum().forward_dynamics, [0.5, 0.0], [0.0, 0.0], dt=0.01, steps=100)
    >>> t.shape, q.shape, round(float(t[-1]), 2)
    ((101,), (101, 2), 1.0)"""
    callable_arg("forward_dynamics", forward_dynamics, "forward_dynamics(q, qd, tau) -> qdd, e.g. "
                 "chain.forward_dynamics")
    q, qd = _pair(q0, qd0, "q0", "qd0")
    owner = getattr(forward_dynamics, "__self__", None)          # a bound method: check its number of joints
    if owner is not None and getattr(owner, "n_dof", q.shape[-1]) != q.shape[-1]:
        raise ValueError(f"q0 has {q.shape[-1]} entries per state but forward_dynamics belongs to a system with "
                         f"n_dof = {owner.n_dof}; give one angle per joint")
    dt, steps = _time_step(dt), _steps(steps, q.size // q.shape[-1])
    if tau_fn is not None:
        callable_arg("tau_fn", tau_fn, "tau_fn(t, q, qd) -> tau")
    f = _guard(forward_dynamics, q.shape)
    zero = np.zeros_like(q)

    def advance(k, q, qd):
        tau = zero if tau_fn is None else _torque(tau_fn, k * dt, q, qd)
        return _rk4(lambda a, b: f(a, b, tau), q, qd, dt)
    return _march(advance, q, qd, dt, steps)


def simulate(step, f, q0, qd0, dt, steps):
    """Repeat step(f, q, qd, dt) `steps` times from (q0, qd0): t (steps+1,), q and qd (steps+1, ...).
    step: one of STEPPERS' values or any function returning (q_new, qd_new).

    >>> t, q, qd = simulate(rk4_step, lambda q, qd: -q, np.array([1.0]), np.array([0.0]), 0.01, 314)
    >>> round(float(q[-1, 0]), 3)                                   # cos(3.14)
    -1.0"""
    callable_arg("step", step, "step(f, q, qd, dt) -> (q_new, qd_new), e.g. rk4_step")
    callable_arg("f", f, "f(q, qd) -> qdd")
    q, qd = _pair(q0, qd0, "q0", "qd0")
    dt, steps = _time_step(dt), _steps(steps, q.size // q.shape[-1])
    g = _guard(f, q.shape)
    inner = _UNCHECKED.get(step)  # pragma: no mutate (a shortcut: the checked stepper gives the same numbers)

    def advance(k, q, qd):
        if inner is not None:
            return inner(g, q, qd, dt)
        out = step(g, q, qd, dt)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise ValueError(f"step(f, q, qd, dt) returned {type(out).__name__}, expected a pair (q_new, qd_new)")
        return _pair(*out, "step's q_new", "step's qd_new")
    return _march(advance, q, qd, dt, steps)


def steps_for(duration, dt):
    """The number of steps of dt that covers `duration` (both checked, in s): round(duration / dt), 1..MAX_STEPS.

    >>> steps_for(2.0, 0.01)
    200"""
    dt = _time_step(dt)
    duration = positive_number("duration", duration, hint="the simulated time in seconds, e.g. duration=10")
    steps = int(round(duration / dt))
    if steps < 1:
        raise ValueError(f"duration = {duration:g} s is shorter than one step dt = {dt:g} s; use duration >= dt")
    return within_limit(f"duration / dt = {duration:g} / {dt:g}", steps, MAX_STEPS,
                        "use a larger dt or a shorter duration")


def energy_errors(chain, q0, qd0, dt=0.01, duration=10.0):
    """Unforced motion of `chain` from one state (n,) with each stepper: {name: (t, E(t) - E(0))} (J).

    >>> from lesson_lib.physics.chain import double_pendulum
    >>> drift = energy_errors(double_pendulum(), [1.0, 0.0], [0.0, 0.0], dt=0.01, duration=0.3)
    >>> {name: bool(abs(dE[-1]) < 1e-4) for name, (t, dE) in drift.items()}
    {'explicit Euler': False, 'symplectic Euler': False, 'RK4': True}"""
    has_api("chain", chain, ("forward_dynamics", "total_energy"), "a PlanarChain such as double_pendulum()")
    q0, qd0 = (as_state(k, v, chain.n_dof, allow_batch=False) for k, v in (("q0", q0), ("qd0", qd0)))
    steps, zero = steps_for(duration, dt), np.zeros(chain.n_dof)

    def f(q, qd):
        return chain.forward_dynamics(q, qd, zero)
    out = {}
    for name, step in STEPPERS.items():
        t, q, qd = simulate(step, f, q0, qd0, dt, steps)
        E = chain.total_energy(q, qd)
        out[name] = (t, E - E[0])
    return out
