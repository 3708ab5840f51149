"""The integrators against closed forms: one step of each stepper on a linear system, the energy of the harmonic
oscillator under each stepper, the true energy of the double pendulum, and rollout with a torque."""
import math

import numpy as np
import pytest

from lesson_lib import PlanarChain, double_pendulum, rollout
from lesson_lib.physics.integrators import (
    STEPPERS,
    energy_errors,
    euler_step,
    rk4_step,
    simulate,
    symplectic_euler_step,
)

OMEGA = 1.7                                    # harmonic oscillator qdd = -OMEGA^2 q (per coordinate)


def oscillator(q, qd):
    return -OMEGA**2 * q


def oscillator_energy(q, qd):
    return 0.5 * (qd**2 + OMEGA**2 * q**2)


def test_one_step_of_each_stepper_matches_its_formula_on_a_linear_system():
    """For y' = A y with y = (q, qd), A = [[0, 1], [-w^2, 0]]: explicit Euler is I + hA, RK4 is the Taylor
    polynomial of exp(hA) to 4th order, symplectic Euler is qd' = qd - h w^2 q, then q' = q + h qd'."""
    h = 0.3
    A = np.array([[0.0, 1.0], [-OMEGA**2, 0.0]])
    y = np.array([0.7, -0.4])
    taylor4 = sum(np.linalg.matrix_power(h * A, k) / math.factorial(k) for k in range(5))
    np.testing.assert_allclose(np.hstack(euler_step(oscillator, y[:1], y[1:], h)), (np.eye(2) + h * A) @ y,
                               rtol=1e-14)
    np.testing.assert_allclose(np.hstack(rk4_step(oscillator, y[:1], y[1:], h)), taylor4 @ y, rtol=1e-14)
    qd1 = y[1] - h * OMEGA**2 * y[0]
    np.testing.assert_allclose(np.hstack(symplectic_euler_step(oscillator, y[:1], y[1:], h)),
                               [y[0] + h * qd1, qd1], rtol=1e-14)


def test_steppers_accept_a_batch_and_give_the_same_as_one_by_one():
    q, qd = np.array([[0.3, -0.2], [1.0, 0.5], [0.0, 0.0]]), np.array([[0.1, 0.0], [-1.0, 2.0], [0.4, -0.3]])
    f = double_pendulum().forward_dynamics
    dyn = lambda a, b: f(a, b, np.zeros_like(a))          # noqa: E731
    for step in STEPPERS.values():
        qb, qdb = step(dyn, q, qd, 0.01)
        for b in range(3):
            q1, qd1 = step(dyn, q[b], qd[b], 0.01)
            np.testing.assert_allclose(qb[b], q1, atol=1e-15)
            np.testing.assert_allclose(qdb[b], qd1, atol=1e-15)


def test_harmonic_oscillator_energy_euler_grows_exactly_symplectic_bounded_rk4_tiny():
    """Explicit Euler multiplies this oscillator's energy by exactly (1 + h^2 w^2) per step; symplectic Euler
    keeps it within a band of relative width about h w; RK4 loses about (h w)^6 / 72 per step."""
    h, N = 0.05, 2000
    q0, qd0 = np.array([1.0]), np.array([0.0])
    E0 = oscillator_energy(q0, qd0)[0]
    E = {name: oscillator_energy(*simulate(step, oscillator, q0, qd0, h, N)[1:])[:, 0]
         for name, step in STEPPERS.items()}
    k = np.arange(N + 1)
    np.testing.assert_allclose(E["explicit Euler"], E0 * (1 + h**2 * OMEGA**2) ** k, rtol=1e-9)
    band = np.abs(E["symplectic Euler"] / E0 - 1)
    assert band.max() < h * OMEGA                         # bounded: no drift over 2000 steps
    assert band[N // 2:].max() < 1.05 * band[:N // 2].max()
    rk4_loss = 1 - E["RK4"][-1] / E0
    assert 0 < rk4_loss < 2 * N * (h * OMEGA) ** 6 / 72   # slow loss, of the predicted size
    assert rk4_loss > 0.5 * N * (h * OMEGA) ** 6 / 72


def test_pendulum_energy_euler_grows_symplectic_bounded_rk4_tiny():
    """A single rod (constant mass matrix, nonlinear gravity), 60 s: explicit Euler's energy error grows from
    one 20 s window to the next; symplectic Euler's stays in the same band; RK4's stays below 1 uJ per second."""
    rod = PlanarChain(m=[1.0], l=[1.0], lc=[0.5], I=[1 / 12])
    errors = energy_errors(rod, [1.0], [0.0], dt=0.01, duration=60.0)
    peaks = {}
    for name, (t, dE) in errors.items():
        peaks[name] = [np.abs(dE[(t >= a) & (t < a + 20)]).max() for a in (0, 20, 40)]
    e0, e1, e2 = peaks["explicit Euler"]
    assert e2 > e1 + 3 > e0 + 6                            # J: it keeps pumping energy in
    s0, s1, s2 = peaks["symplectic Euler"]
    assert s0 < 0.1 and abs(s1 - s0) < 0.01 * s0 and abs(s2 - s0) < 0.01 * s0
    assert max(peaks["RK4"]) < 60e-6


def test_energy_errors_on_the_double_pendulum_against_its_true_energy():
    """E(t) - E(0) from energy_errors equals the chain's energy (from link kinematics) along each stepper's own
    motion; over the 6 s of notebook 05, explicit Euler gains joules, symplectic Euler stays ten times closer,
    RK4 within 10 uJ."""
    chain = double_pendulum()
    q0, qd0 = np.array([0.5, 0.3]), np.zeros(2)
    errors = energy_errors(chain, q0, qd0, dt=0.01, duration=6.0)
    assert list(errors) == ["explicit Euler", "symplectic Euler", "RK4"]
    f = lambda q, qd: chain.forward_dynamics(q, qd, np.zeros(2))      # noqa: E731
    for name, step in STEPPERS.items():
        t, dE = errors[name]
        assert t.shape == dE.shape == (601,) and t[-1] == pytest.approx(6.0)
        _, q, qd = simulate(step, f, q0, qd0, 0.01, 600)
        E = np.array([chain.kinetic_energy(a, b) + chain.potential_energy(a) for a, b in zip(q, qd, strict=True)])
        np.testing.assert_allclose(dE, E - E[0], atol=1e-12)
    euler, sympl, rk4 = (np.abs(errors[k][1]).max() for k in ("explicit Euler", "symplectic Euler", "RK4"))
    assert errors["explicit Euler"][1][-1] > 1.0
    assert sympl < euler / 10
    assert rk4 < 1e-5


def test_rollout_with_constant_torque_and_no_gravity_is_a_parabola():
    """One link, g = 0, constant tau: qdd = tau / (I + m lc^2), so q(t) = q0 + qd0 t + a t^2 / 2 (RK4 is exact
    on a quadratic)."""
    link = PlanarChain(m=[2.0], l=[1.0], lc=[0.4], I=[0.1], g=0.0)
    a = 3.0 / (0.1 + 2.0 * 0.4**2)
    t, q, qd = rollout(link.forward_dynamics, [0.2], [-1.0], dt=0.05, steps=40, tau_fn=lambda t, q, qd: [3.0])
    np.testing.assert_allclose(t, 0.05 * np.arange(41), atol=1e-15)
    np.testing.assert_allclose(q[:, 0], 0.2 - 1.0 * t + 0.5 * a * t**2, atol=1e-12)
    np.testing.assert_allclose(qd[:, 0], -1.0 + a * t, atol=1e-12)


def test_rollout_holds_the_torque_over_each_step_and_batches_like_one_by_one():
    """tau_fn is evaluated at the start of each step: a torque switching on at t = 0.1 first acts in the step
    from 0.1 to 0.15.  A batch of states rolls out like each state alone."""
    link = PlanarChain(m=[1.0], l=[1.0], lc=[0.5], I=[0.0], g=0.0)           # inertia about the joint: 0.25
    t, q, qd = rollout(link.forward_dynamics, [0.0], [0.0], dt=0.05, steps=4,
                       tau_fn=lambda t, q, qd: np.array([1.0 if t >= 0.1 - 1e-12 else 0.0]))
    np.testing.assert_allclose(qd[:, 0], [0, 0, 0, 4 * 0.05, 4 * 0.10], atol=1e-12)
    chain = double_pendulum()
    q0, qd0 = np.array([[0.3, -0.2], [2.0, 1.0]]), np.array([[0.0, 1.0], [-1.0, 0.5]])
    tb, qb, qdb = rollout(chain.forward_dynamics, q0, qd0, dt=0.01, steps=50)
    assert qb.shape == qdb.shape == (51, 2, 2)
    for b in range(2):
        _, q1, qd1 = rollout(chain.forward_dynamics, q0[b], qd0[b], dt=0.01, steps=50)
        np.testing.assert_allclose(qb[:, b], q1, atol=1e-13)
        np.testing.assert_allclose(qdb[:, b], qd1, atol=1e-13)


def test_rollout_with_zero_steps_returns_the_initial_state():
    t, q, qd = rollout(double_pendulum().forward_dynamics, [0.3, 0.1], [0.0, 2.0], steps=0)
    assert t.tolist() == [0.0] and q.tolist() == [[0.3, 0.1]] and qd.tolist() == [[0.0, 2.0]]


def test_rollout_blow_up_blames_dt_and_names_the_step():
    """With dt = 1 s the double pendulum's RK4 blows up within a few steps; the message says so instead of
    complaining about qd."""
    with pytest.raises(ValueError, match=r"blew up at step \d+ of 500 .*dt = 1 s is too large") as err:
        rollout(double_pendulum().forward_dynamics, [0.5, 0.3], [0.0, 0.0], dt=1.0)
    assert "qd contains" not in str(err.value)
    t, q, _ = rollout(double_pendulum().forward_dynamics, [0.5, 0.3], [0.0, 0.0], dt=0.01, steps=500)
    assert np.abs(q).max() < 10                       # the same motion with a sensible dt is fine


def test_simulate_checks_a_learner_stepper_and_gives_the_same_as_the_library():
    def my_symplectic(f, q, qd, dt):
        qd_new = qd + dt * f(q, qd)
        return q + dt * qd_new, qd_new

    q0, qd0 = np.array([1.0]), np.array([0.0])
    ours = simulate(my_symplectic, oscillator, q0, qd0, 0.1, 30)
    lib = simulate(symplectic_euler_step, oscillator, q0, qd0, 0.1, 30)
    for a, b in zip(ours, lib, strict=True):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match=r"step\(f, q, qd, dt\) returned ndarray, expected a pair"):
        simulate(lambda f, q, qd, dt: q, oscillator, q0, qd0, 0.1, 3)
    with pytest.raises(ValueError, match=r"step's qd_new has shape \(2,\)"):
        simulate(lambda f, q, qd, dt: (q, np.zeros(2)), oscillator, q0, qd0, 0.1, 3)
