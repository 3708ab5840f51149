"""Three ways to step (q, qd)' = (qd, f(q, qd)) forward in time, and what they do to the energy.

- explicit Euler: q and qd both move with the OLD derivatives; first order; on a conservative system the
  energy grows steadily.
- symplectic (semi-implicit) Euler: qd first, then q with the NEW qd; still first order, but it preserves the
  phase-space structure, so the energy error stays bounded and oscillates instead of drifting.
- classical RK4 (rk4_step): fourth order; a tiny error per step that still accumulates
  (usually as a slow loss of energy), because it is not symplectic.
"""
import numpy as np

from .._validate import positive_number


def euler_step(f, q, qd, dt):
    """Explicit Euler: (q + dt qd, qd + dt f(q, qd))."""
    return q + dt * qd, qd + dt * f(q, qd)


def symplectic_euler_step(f, q, qd, dt):
    """Semi-implicit Euler: qd_new = qd + dt f(q, qd), then q_new = q + dt qd_new.  The library's answer to the
    exercise in 05."""
    qd_new = qd + dt * f(q, qd)
    return q + dt * qd_new, qd_new


def rk4_step(f, q, qd, dt):
    """One classical Runge–Kutta step of (q, qd)' = (qd, f(q, qd))."""
    k1q, k1v = qd, f(q, qd)
    k2q, k2v = qd + 0.5 * dt * k1v, f(q + 0.5 * dt * k1q, qd + 0.5 * dt * k1v)
    k3q, k3v = qd + 0.5 * dt * k2v, f(q + 0.5 * dt * k2q, qd + 0.5 * dt * k2v)
    k4q, k4v = qd + dt * k3v, f(q + dt * k3q, qd + dt * k3v)
    return (q + dt / 6 * (k1q + 2 * k2q + 2 * k3q + k4q),
            qd + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v))


def rollout(forward_dynamics, q0, qd0, dt=0.01, steps=500, tau_fn=None):
    """Integrate qdd = forward_dynamics(q, qd, tau) with RK4 from (q0, qd0).

    forward_dynamics: a callable like PlanarChain.forward_dynamics (or a learned model's).
    tau_fn(t, q, qd) -> tau gives the applied torque (zero when None); it is held over each step.
    Returns t (steps+1,), q and qd of shape (steps+1, *q0.shape).
    """
    q, qd = np.asarray(q0, dtype=float), np.asarray(qd0, dtype=float)
    dt = positive_number("dt", dt)
    qs, qds = [q], [qd]
    for k in range(int(steps)):
        tau = np.zeros_like(q) if tau_fn is None else np.asarray(tau_fn(k * dt, q, qd), dtype=float)
        q, qd = rk4_step(lambda a, b: forward_dynamics(a, b, tau), q, qd, dt)
        qs.append(q)
        qds.append(qd)
    return np.arange(int(steps) + 1) * dt, np.array(qs), np.array(qds)


STEPPERS = {"explicit Euler": euler_step, "symplectic Euler": symplectic_euler_step, "RK4": rk4_step}


def simulate(step, f, q0, qd0, dt, steps):
    """Repeat step(f, q, qd, dt) `steps` times from (q0, qd0): returns t (steps+1,), q and qd (steps+1, n)."""
    q, qd = np.asarray(q0, dtype=float), np.asarray(qd0, dtype=float)
    qs, qds = [q], [qd]
    for _ in range(int(steps)):
        q, qd = step(f, q, qd, dt)
        qs.append(q)
        qds.append(qd)
    return np.arange(int(steps) + 1) * dt, np.array(qs), np.array(qds)


def energy_errors(chain, q0, qd0, dt=0.01, duration=10.0):
    """Unforced motion of `chain` with each stepper: {name: (t, E(t) - E(0))} with E the true total energy (J)."""
    def f(q, qd):
        return chain.forward_dynamics(q, qd, np.zeros(chain.n_dof))
    steps = int(round(duration / dt))
    out = {}
    for name, step in STEPPERS.items():
        t, q, qd = simulate(step, f, q0, qd0, dt, steps)
        E = chain.total_energy(q, qd)
        out[name] = (t, E - E[0])
    return out
