"""Control of the true arm: computed torque against the closed-form error dynamics, PD against the static
balance with gravity, torque limits, one law for every model, errors, determinism."""
import numpy as np
import pytest

from lesson_lib import BlackBox, DeLaN, PlanarChain, double_pendulum, rollout
from lesson_lib.control import PD, ComputedTorque, Unstable, compare, track, tracking_errors
from lesson_lib.data import write_letters
from lesson_lib.validate import LimitExceeded

chain = double_pendulum()
letter = write_letters("s", seed=2)                                   # a moving reference, about 4 s


def closed_form_error(kp, kd, e0, ed0, t):
    """Solution of e'' + kd e' + kp e = 0 per joint from (e0, ed0): (T, n)."""
    out = []
    for p, d, x0, v0 in zip(kp, kd, e0, ed0, strict=True):
        disc = d * d - 4 * p
        if abs(disc) < 1e-12:                                         # critically damped: a double root
            r = -d / 2
            out.append((x0 + (v0 - r * x0) * t) * np.exp(r * t))
        else:
            r1, r2 = (-d + np.sqrt(complex(disc))) / 2, (-d - np.sqrt(complex(disc))) / 2
            c1 = (v0 - r2 * x0) / (r1 - r2)
            out.append((c1 * np.exp(r1 * t) + (x0 - c1) * np.exp(r2 * t)).real)
    return np.stack(out, axis=-1)


KP, KD = np.array([100.0, 50.0]), np.array([20.0, 8.0])               # joint 0 critically damped, joint 1 underdamped
E0, ED0 = np.array([0.05, -0.08]), np.array([0.3, 0.2])


def perturbed(hold, dt=0.01, model=chain, kp=KP, kd=KD):
    q_d, qd_d, _ = letter(0.0)
    return track(ComputedTorque(model, kp, kd), letter, chain, dt=dt, duration=1.5, tau_max=None, hold=hold,
                 q0=q_d[0] - E0, qd0=qd_d[0] - ED0)                 # e = q_d - q starts at E0


def test_computed_torque_with_the_true_model_makes_the_error_dynamics_linear():
    r = perturbed(hold=False)
    e = (r["q_d"] - r["q"])[:, 0]
    expected = closed_form_error(KP, KD, E0, ED0, r["t"])
    assert np.abs(expected[-1]).max() < 0.01 * np.abs(E0).max() < np.abs(expected[10]).max()   # it decays
    np.testing.assert_allclose(e, expected, atol=1e-6)


def test_a_digital_controller_approaches_the_continuous_law_as_its_tick_shrinks():
    gaps = []
    for dt in (0.01, 0.005):
        r = perturbed(hold=True, dt=dt)
        gaps.append(np.abs((r["q_d"] - r["q"])[:, 0] - closed_form_error(KP, KD, E0, ED0, r["t"])).max())
    assert 1e-5 < gaps[1] < gaps[0] and 1.6 < gaps[0] / gaps[1] < 2.5   # first order in dt: the held torque


def test_a_perfect_model_with_zero_gains_tracks_exactly_and_a_wrong_one_drifts():
    r = track(ComputedTorque(chain, 0, 0), letter, chain, duration=2.0, hold=False, tau_max=None)
    assert np.abs(r["q_d"] - r["q"]).max() < 1e-6                      # up to the integrator's error
    heavier = double_pendulum(m=1.1)
    r = track(ComputedTorque(heavier, 0, 0), letter, chain, duration=2.0, hold=False, tau_max=None)
    assert np.abs(r["q_d"] - r["q"]).max() > 1e-2


def constant_reference(q_d):
    q_d = np.asarray(q_d, float)
    return lambda t: (q_d, np.zeros_like(q_d), np.zeros_like(q_d))


def test_pd_alone_sags_until_its_spring_holds_the_weight():
    q_d = np.array([[0.4, 1.3], [1.2, 2.0], [-0.8, 1.0]])
    pd = PD(kp=100, kd=20)
    r = track(pd, constant_reference(q_d), chain, duration=4.0, tau_max=None)
    q, qd = r["q"][-1], r["qd"][-1]
    assert np.abs(qd).max() < 1e-6                                   # settled
    np.testing.assert_allclose(100 * (q_d - q), chain.gravity(q), atol=1e-5)   # K_p e = g(q): static balance
    assert np.abs(q_d - q).max() > 0.05                               # so it never reaches the target
    weightless = PlanarChain(m=[1, 1], l=[1, 1], lc=[0.5, 0.5], I=[1 / 12] * 2, g=0.0)
    r = track(pd, constant_reference(q_d), weightless, duration=4.0, tau_max=None)
    assert np.abs(q_d - r["q"][-1]).max() < 1e-6                      # without gravity it does


def test_a_tick_too_long_for_the_gains_is_reported_as_unstable():
    stiff = PD(kp=100, kd=200)                                         # K_d dt = 2 >> 2 lambda_min(M) at 100 Hz
    with pytest.raises(Unstable, match="smaller dt or lower gains"):
        track(stiff, constant_reference([[0.4, 1.3]]), chain, duration=1.0, dt=0.01, tau_max=None)
    r = track(stiff, constant_reference([[0.4, 1.3]]), chain, duration=0.3, dt=0.0005, tau_max=None)
    assert np.abs(r["qd"]).max() < 1.0                                 # at 2 kHz the same gains are fine


def test_torque_limits_are_respected_and_the_arm_feels_the_saturated_torque():
    limit = np.array([8.0, 4.0])
    r = track(ComputedTorque(chain), letter, chain, duration=2.0, tau_max=limit)
    assert np.all(np.abs(r["tau"]) <= limit) and r["saturated"].any()
    steps = len(r["t"]) - 1
    _, q, qd = rollout(chain.forward_dynamics, r["q"][0], r["qd"][0], dt=r["dt"], steps=steps,
                       tau_fn=lambda t, q, qd: r["tau"][int(round(t / r["dt"]))])
    np.testing.assert_allclose(q, r["q"], atol=1e-12)
    free = track(ComputedTorque(chain), letter, chain, duration=2.0, tau_max=None)
    assert tracking_errors(r)["rms_q"] > 10 * tracking_errors(free)["rms_q"]


def test_one_law_for_every_model_with_inverse_dynamics():
    rng = np.random.default_rng(3)
    q, qd, q_d, qd_d, qdd_d = rng.uniform(-1, 1, (5, 6, 2))
    v = qdd_d + KD * (qd_d - qd) + KP * (q_d - q)                     # the commanded acceleration
    delan = DeLaN(hidden=(8,), seed=1)
    for model in (chain, delan):                                      # M v + c + g from the model's parts
        expected = np.einsum("bij,bj->bi", model.mass_matrix(q), v) + model.coriolis(q, qd) + model.gravity(q)
        np.testing.assert_allclose(ComputedTorque(model, KP, KD)(q, qd, q_d, qd_d, qdd_d), expected, atol=1e-10)
    box = BlackBox(hidden=(8,), seed=1)
    np.testing.assert_allclose(ComputedTorque(box, KP, KD)(q, qd, q_d, qd_d, qdd_d), box.inverse_dynamics(q, qd, v))
    np.testing.assert_allclose(PD(KP, KD)(q, qd, q_d, qd_d, qdd_d), KP * (q_d - q) + KD * (qd_d - qd))


def test_track_follows_the_sampled_letters_and_counts_each_while_it_runs():
    hw = write_letters("il", seed=0)                                  # two letters of different durations
    r = track(ComputedTorque(chain), hw, chain, dt=0.01)
    d = hw.sample(dt=0.01)
    assert r["labels"] == ["i", "l"] and hw.durations[0] > hw.durations[1] + 0.2
    assert r["active"][-1].tolist() == [True, False]                  # the i is still running, the l is done
    for b in (0, 1):
        running = r["active"][:, b]
        assert running.sum() == np.sum(d["traj"] == b)
        np.testing.assert_allclose(r["q_d"][running, b], d["q"][d["traj"] == b], atol=1e-12)


def test_tracking_errors_count_only_running_trajectories():
    q_d = np.zeros((3, 2, 2))
    q = q_d + np.array([0.03, 0.04])
    q[2, 1] = 5.0                                                     # trajectory 1 has ended: ignored
    xy_d = np.zeros((3, 2, 2))
    xy = xy_d + np.array([0.003, 0.004])                              # 5 mm off
    xy[0, 0] = [0.0, 0.012]                                           # 12 mm off once
    result = {"q": q, "q_d": q_d, "xy": xy, "xy_d": xy_d, "tau": np.ones((3, 2, 2)),
              "active": np.array([[True, True], [True, True], [True, False]]),
              "saturated": np.array([[False, False], [True, False], [False, True]])}
    err = tracking_errors(result)
    assert err["rms_q"] == pytest.approx(np.sqrt((0.03**2 + 0.04**2) / 2))
    assert err["rms_xy"] == pytest.approx(np.sqrt((4 * 0.005**2 + 0.012**2) / 5))
    assert err["max_xy"] == pytest.approx(0.012) and err["saturated"] == pytest.approx(0.2)
    np.testing.assert_allclose(err["rms_xy_per_traj"], [np.sqrt((2 * 0.005**2 + 0.012**2) / 3), 0.005])


def test_tracking_is_deterministic_and_pd_lags_far_behind_computed_torque():
    a = track(PD(), letter, chain, duration=1.0)
    b = track(PD(), letter, chain, duration=1.0)
    for k in ("q", "qd", "tau", "xy"):
        np.testing.assert_array_equal(a[k], b[k])
    rows = {r["controller"]: r for r in compare({"truth": ComputedTorque(chain), "PD": PD()}, letter, chain,
                                                 duration=2.0)}
    assert rows["PD"]["rms_xy"] > 20 * rows["truth"]["rms_xy"]


@pytest.mark.parametrize("call, error, match", [
    (lambda: ComputedTorque(object()), TypeError, "inverse_dynamics"),
    (lambda: PD(kp=-1), ValueError, "kp must be"),
    (lambda: PD(kd="a"), TypeError, "kd must be"),
    (lambda: track(PD(), letter, tau_max=0), ValueError, "tau_max must be"),
    (lambda: track(PD(), constant_reference([[0.0, 0.0]])), ValueError, "duration"),
    (lambda: track(PD(), letter, hold="yes"), TypeError, "hold must be"),
    (lambda: track(PD(), letter, dt=0), ValueError, "dt must be"),
    (lambda: track(PD(), letter, dt=1e-6), LimitExceeded, "steps"),
    (lambda: track(PD(), letter, q0=[0.0, 0.0, 0.0]), ValueError, "q0 has shape"),
])
def test_bad_arguments_get_clear_messages(call, error, match):
    with pytest.raises(error, match=match):
        call()
