"""Hand-worked cases for the physics room: a blow-up at a known step, the torque held over a step, the torque's
shapes, what a stepper must return, the energy report's defaults, and overflow reported without a warning."""
import warnings

import numpy as np
import pytest

from lesson_lib import PlanarChain, double_pendulum, rollout
from lesson_lib.physics.integrators import energy_errors, euler_step, rk4_step, simulate

chain = double_pendulum()
Z = np.zeros(2)


def blows_up_at(step, n=2):
    """Dynamics that return NaN from the first stage of step `step` on (RK4: four calls a step)."""
    calls = []

    def fd(q, qd, tau):
        calls.append(1)
        return np.full(n, np.nan) if len(calls) > 4 * (step - 1) else np.zeros(n)
    return fd


def test_a_blow_up_names_its_step_its_start_time_and_a_smaller_dt():
    with pytest.raises(ValueError) as info:
        rollout(blows_up_at(3), Z, Z, dt=0.5, steps=10)
    message = str(info.value)
    assert message.startswith("the integration blew up at step 3 of 10 (starting at t = 1 s): ")
    assert "dt = 0.5 s is too large" in message and "e.g. dt=0.05" in message


def test_the_torque_is_read_at_the_start_of_each_step_and_held():
    def tau_fn(t, q, qd):
        return -3.0 * q - 0.5 * qd + t
    q0, qd0 = np.array([0.4, -0.2]), np.array([1.0, 0.3])
    t, q, qd = rollout(chain.forward_dynamics, q0, qd0, dt=0.05, steps=2, tau_fn=tau_fn)
    tau0 = tau_fn(0.0, q0, qd0)
    q1, qd1 = rk4_step(lambda a, b: chain.forward_dynamics(a, b, tau0), q0, qd0, 0.05)
    tau1 = tau_fn(0.05, q1, qd1)
    q2, qd2 = rk4_step(lambda a, b: chain.forward_dynamics(a, b, tau1), q1, qd1, 0.05)
    np.testing.assert_allclose(q, [q0, q1, q2], atol=1e-14)
    np.testing.assert_allclose(qd, [qd0, qd1, qd2], atol=1e-14)


def test_one_torque_serves_a_whole_batch_and_a_scalar_is_refused():
    q0 = np.array([[0.1, 0.2], [0.3, -0.4], [1.0, 0.0]])
    _, q, _ = rollout(chain.forward_dynamics, q0, np.zeros_like(q0), dt=0.01, steps=3,
                      tau_fn=lambda t, q, qd: np.array([1.0, -0.5]))
    _, q_each, _ = rollout(chain.forward_dynamics, q0, np.zeros_like(q0), dt=0.01, steps=3,
                           tau_fn=lambda t, q, qd: np.tile([1.0, -0.5], (3, 1)))
    np.testing.assert_allclose(q, q_each, atol=1e-15)
    with pytest.raises(ValueError, match=r"^tau_fn\(t, q, qd\) returned shape \(\), expected \(2,\) like q"):
        rollout(chain.forward_dynamics, Z, Z, steps=2, tau_fn=lambda t, q, qd: 1.0)


@pytest.mark.parametrize("out, what", [
    (np.zeros(2), r"step\(f, q, qd, dt\) returned ndarray, expected a pair \(q_new, qd_new\)"),
    ((Z, Z, Z), r"step\(f, q, qd, dt\) returned tuple, expected a pair"),
    ((np.array([np.nan, 0.0]), Z), r"step's q_new contains NaN or inf"),
    ((Z, np.zeros(3)), r"step's qd_new has shape \(3,\), expected \(2,\)"),
])
def test_a_home_made_stepper_must_return_a_finite_pair_like_the_state(out, what):
    with pytest.raises(ValueError, match="^" + what):
        simulate(lambda f, q, qd, dt: out, lambda q, qd: np.zeros_like(q), Z, Z, 0.1, 2)


def test_a_home_made_stepper_is_used_as_it_is():
    def half_euler(f, q, qd, dt):                                   # explicit Euler with half the step
        return euler_step(f, q, qd, dt / 2)
    f = lambda q, qd: -q                                            # noqa: E731
    _, q, qd = simulate(half_euler, f, [1.0], [0.0], 0.2, 2)
    _, q_e, qd_e = simulate(euler_step, f, [1.0], [0.0], 0.1, 2)
    np.testing.assert_allclose(q, q_e, atol=1e-15)
    np.testing.assert_allclose(qd, qd_e, atol=1e-15)


def test_energy_errors_default_to_ten_seconds_at_a_hundredth():
    rod = PlanarChain(m=[1.0], l=[1.0], lc=[0.5], I=[1 / 12])
    errors = energy_errors(rod, [0.5], [0.0])
    for t, dE in errors.values():
        assert t.shape == dE.shape == (1001,) and t[1] == pytest.approx(0.01) and t[-1] == pytest.approx(10.0)
        assert dE[0] == 0.0


def test_an_overflow_is_one_clear_error_without_numpy_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"^kinetic_energy overflowed to inf or NaN: .*\|qd\| = 1e\+200"):
            chain.kinetic_energy(Z, [1e200, 0.0])
        with pytest.raises(ValueError, match=r"^the RNEA overflowed to inf or NaN: .*\|qdd\| = 1e\+308"):
            chain.rnea(Z, Z, [1e308, -1e308])


def test_a_chain_says_what_it_is():
    assert repr(chain) == ("PlanarChain(n_dof=2, m=[1.0, 1.0], l=[1.0, 1.0], lc=[0.5, 0.5], "
                           f"I=[{1 / 12}, {1 / 12}], g=9.81)")
