"""Trajectory data: the torques really are the documented sinusoids, and the initial states fill their boxes.

A sampled sinusoid tau_k = A sin(w k dt + phi) obeys tau_{k+1} + tau_{k-1} = 2 cos(w dt) tau_k exactly, so the
frequency and the amplitude of each joint's torque can be read off three consecutive samples, with no fit.
"""
import numpy as np
import pytest

from lesson_lib import double_pendulum, sample_trajectories

chain = double_pendulum()


def sinusoid(tau, dt):
    """(frequency in Hz, amplitude) of a sampled sinusoid tau (K,), from the three samples around its peak."""
    k = int(np.clip(np.argmax(np.abs(tau[1:-1])) + 1, 1, len(tau) - 2))
    cos_w = (tau[k + 1] + tau[k - 1]) / (2 * tau[k])
    w = np.arccos(np.clip(cos_w, -1, 1)) / dt
    slope = (tau[k + 1] - tau[k - 1]) / (2 * np.sin(w * dt))
    return w / (2 * np.pi), np.hypot(tau[k], slope)


def per_trajectory(d, key):
    return [d[key][d["traj"] == k] for k in np.unique(d["traj"])]


def test_the_defaults_give_eight_four_second_trajectories_with_torques_up_to_5():
    d = sample_trajectories(chain)
    assert d["q"].shape == (8 * 401, 2) and d["t"].max() == pytest.approx(4.0)
    amps = []
    for tau in per_trajectory(d, "tau"):
        for j in range(2):
            f, A = sinusoid(tau[:, j], 0.01)
            assert 0.3 - 1e-9 <= f <= 2.0 + 1e-9
            amps.append(A)
    assert max(amps) <= 5.0 + 1e-9 and max(amps) > 4.0
    assert np.ptp(amps) > 1.0                                   # drawn per trajectory and joint


def test_each_torque_is_a_sinusoid_in_the_documented_band():
    d = sample_trajectories(chain, n_traj=12, duration=1.0, dt=0.01, seed=4, torque_amp=2.0)
    freqs, amps = [], []
    for tau, t in zip(per_trajectory(d, "tau"), per_trajectory(d, "t"), strict=True):
        for j in range(2):
            f, A = sinusoid(tau[:, j], 0.01)
            # the whole record is that one sinusoid: tau = A sin(2 pi f t + phi) for some phi
            phase = np.arctan2(*np.linalg.lstsq(np.stack([np.sin(2 * np.pi * f * t), np.cos(2 * np.pi * f * t)], 1),
                                                tau[:, j], rcond=None)[0][::-1])
            np.testing.assert_allclose(tau[:, j], A * np.sin(2 * np.pi * f * t + phase), atol=1e-6)
            freqs.append(f)
            amps.append(A)
    assert min(freqs) >= 0.3 - 1e-9 and max(freqs) <= 2.0 + 1e-9 and np.ptp(freqs) > 1.0
    assert max(amps) <= 2.0 + 1e-9 and np.ptp(amps) > 1.0


def test_initial_states_fill_the_torus_and_the_speed_box():
    d = sample_trajectories(chain, n_traj=64, duration=0.02, dt=0.01, seed=1)
    first = d["t"] == 0
    q0, qd0 = d["q"][first], d["qd"][first]
    assert q0.shape == (64, 2) and np.abs(q0).max() <= np.pi and q0.min() < -2.5 and q0.max() > 2.5
    assert np.abs(qd0).max() <= 1.0 and qd0.min() < -0.8 and qd0.max() > 0.8


def test_the_same_seed_gives_the_same_trajectories_and_another_seed_others():
    a, b = (sample_trajectories(chain, n_traj=2, duration=0.1, seed=7) for _ in range(2))
    c = sample_trajectories(chain, n_traj=2, duration=0.1, seed=8)
    for k in ("q", "qd", "qdd", "tau"):
        np.testing.assert_array_equal(a[k], b[k])
        assert not np.allclose(a[k], c[k])
