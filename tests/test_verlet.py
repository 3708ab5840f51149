"""Training through Störmer–Verlet (lesson_lib.model.verlet): the telescoped integrator on closed forms and on a
trajectory the integrator itself made, forward dynamics against the torque, the gradient against finite
differences, what training does with noisy positions, and the messages for bad input."""
import re

import numpy as np
import pytest
from autograd import grad
from model_states import blas_threads, require_blas
from threadpoolctl import threadpool_limits

from lesson_lib import DeLaN, TrainingDiverged, double_pendulum
from lesson_lib.data import estimate, record
from lesson_lib.data.letters import write_letters
from lesson_lib.model import definition, verlet
from lesson_lib.model.verlet import fit_verlet, position_second_differences, verlet_weights

H = 0.002


@pytest.mark.parametrize("span", [1, 3, 10])
def test_both_sides_are_the_acceleration_for_a_cubic_motion(span):
    """q(t) = cubic: the second difference over span samples and the triangular average of the linear q̈ are
    both q̈ at the centre, exactly."""
    t = np.arange(60) * H
    q = np.stack([1.0 + 0.5 * t - 2.0 * t**2 + 7.0 * t**3, -0.3 * t + 4.0 * t**3], axis=1)
    qdd = np.stack([-4.0 + 42.0 * t, 24.0 * t], axis=1)
    K = verlet_weights(span, len(t))
    assert K.shape == (len(t) - 2 * span, len(t)) and np.allclose(K.sum(axis=1), 1.0)
    np.testing.assert_allclose(position_second_differences(q, span, H), qdd[span:-span], rtol=0, atol=1e-7)
    np.testing.assert_allclose(K @ qdd, qdd[span:-span], rtol=0, atol=1e-10)


def test_the_telescoped_equation_holds_on_a_trajectory_verlet_made():
    """q_{k+1} = 2 q_k - q_{k-1} + h² a(q_k) with a = -9.81 sin q (two pendulums): for every span the recorded
    positions and the accelerations along them satisfy the telescoped equation to rounding."""
    T, h = 200, 0.01
    q = np.zeros((T, 2))
    q[0] = q[1] = [1.0, -0.4]
    for k in range(1, T - 1):
        q[k + 1] = 2 * q[k] - q[k - 1] + h**2 * (-9.81 * np.sin(q[k]))
    a = -9.81 * np.sin(q)
    for span in (1, 5, 25):
        np.testing.assert_allclose(position_second_differences(q, span, h), verlet_weights(span, T) @ a,
                                   rtol=0, atol=1e-9)


def test_forward_dynamics_undoes_the_torque():
    model = DeLaN(seed=3)
    rng = np.random.default_rng(0)
    q, qd, qdd = (rng.uniform(-2, 2, (16, 2)) for _ in range(3))
    arch, learned = model.architecture, definition.learned_jet(model.get_params(), model.architecture, q)
    tau = definition.torque(arch, *learned, qd, qdd)
    np.testing.assert_allclose(definition.forward_dynamics(arch, *learned, qd, tau), qdd, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(tau, model.inverse_dynamics(q, qd, qdd), rtol=1e-6, atol=1e-8)


@pytest.fixture(scope="module")
def letters():
    chain = double_pendulum()
    train = write_letters("ocs", chain).sample(dt=H)
    return chain, train, record(train, sigma=1e-3, seed=0)


def _batch(rec, span=10, chunk=64, chunks=3):
    states = estimate(rec)
    starts, h = verlet._runs(rec, chunk)
    rows = (starts[:chunks, None] + np.arange(chunk)).ravel()
    return (rec["q"][rows].reshape(chunks, chunk, -1), states["q"][rows], states["qd"][rows], states["tau"][rows],
            verlet_weights(span, chunk), h, span, np.std(states["qdd"], axis=0))


def test_the_losss_gradient_is_the_finite_difference_one(letters):
    _, _, rec = letters
    model, batch = DeLaN(seed=0), _batch(rec)
    theta = model.get_params().astype(float)
    direction = np.random.default_rng(1).standard_normal(theta.size)
    e = 1e-6
    fd = (verlet.verlet_loss(theta + e * direction, model, batch)
          - verlet.verlet_loss(theta - e * direction, model, batch)) / (2 * e)
    assert grad(verlet.verlet_loss)(theta, model, batch) @ direction == pytest.approx(fd, rel=1e-5)


def test_the_loss_is_the_module_formula_for_any_model_settings(letters):
    """A DeLaN with another activation, eps and potential unit: the loss equals the formula written out with the
    model's own M, c and g (numpy, not the definition), each residual scaled by the spread of q̈."""
    _, _, rec = letters
    model = DeLaN(seed=2, activation="tanh", eps=0.01, potential_scale=5.0)
    q_meas, q, qd, tau, K, h, span, qdd_scale = batch = _batch(rec)
    a = np.linalg.solve(model.mass_matrix(q), (tau - model.coriolis(q, qd) - model.gravity(q))[..., None])[..., 0]
    r = position_second_differences(q_meas, span, h) - np.einsum("cj,bjn->bcn", K, a.reshape(q_meas.shape))
    want = np.mean((r / qdd_scale) ** 2)
    got = verlet.verlet_loss(model.get_params().astype(float), model, batch)
    assert got == pytest.approx(want, rel=1e-5) and not np.allclose(qdd_scale, 1.0)


def test_training_through_verlet_recovers_the_mass_matrix_the_filter_blurs(letters):
    """sigma = 1e-3 rad: the Savitzky-Golay model's M is off; training on through the integrator halves the error
    on the visited states (bench_sensors.py: 0.31 -> 0.085 with the 15 letters and 2,000 steps)."""
    chain, train, rec = letters
    visited = train["q"][::10]
    model = DeLaN(seed=0)
    model.fit(estimate(rec), steps=3000)
    before = np.abs(model.mass_matrix(visited) - chain.mass_matrix(visited)).max()
    losses = fit_verlet(model, rec, steps=800)
    after = np.abs(model.mass_matrix(visited) - chain.mass_matrix(visited)).max()
    assert np.mean(losses[-100:]) < np.mean(losses[:100])
    assert after < 0.5 * before, (before, after)
    assert np.linalg.eigvalsh(model.mass_matrix(visited)).min() > 0


def test_a_non_finite_loss_raises_and_keeps_the_weights(letters, monkeypatch):
    _, _, rec = letters
    model = DeLaN(seed=0)
    theta = model.get_params()
    monkeypatch.setattr(definition, "forward_dynamics",
                        lambda arch, L, dL, g, qd, tau: L[..., 0] * np.nan)
    with pytest.raises(TrainingDiverged, match=r"at step 0 \(lr=0\.001\).*try a smaller lr, e\.g\. lr=0\.0001$"):
        fit_verlet(model, rec, steps=5)
    np.testing.assert_array_equal(model.get_params(), theta)


def test_a_non_finite_gradient_of_a_finite_loss_raises_too(letters, monkeypatch):
    model = DeLaN(seed=0)
    theta = model.get_params()
    monkeypatch.setattr(verlet, "value_and_grad", lambda f: lambda theta, i: (1.0, theta * np.nan))
    with pytest.raises(TrainingDiverged, match="non-finite at step 0"):
        fit_verlet(model, letters[2], steps=5)
    np.testing.assert_array_equal(model.get_params(), theta)


def test_the_rate_falls_from_lr_along_a_half_cosine_to_a_thousandth_of_it(letters, monkeypatch):
    rates = []

    class Recorded(verlet.Adam):
        def step(self, theta, g):
            rates.append(self.lr)
            return super().step(theta, g)
    monkeypatch.setattr(verlet, "Adam", Recorded)
    fit_verlet(DeLaN(seed=0), letters[2], steps=100, chunk=8, chunks=1, span=0.004, lr=2e-3)
    assert len(rates) == 100 and rates[0] == 2e-3 and rates[50] == pytest.approx(1e-3, rel=1e-12)
    assert np.all(np.diff(rates) <= 0) and rates[-1] == pytest.approx(2e-6, rel=1e-12)   # the floor, 1e-3 lr


def test_the_runs_are_half_overlapping_inside_each_trajectory_long_enough():
    """Trajectories of 8, 7 and 15 samples, chunk 8: one run in the first, none in the second, runs every 4
    samples in the third while they fit (the one at 8 would end past it); h is the mean step of the trajectories
    that have runs."""
    t = np.concatenate([np.arange(8) * 0.01, np.arange(7) * 0.5, np.arange(15) * 0.02])
    traj = np.repeat([0, 1, 2], [8, 7, 15])
    starts, h = verlet._runs({"t": t, "traj": traj}, 8)
    assert starts.tolist() == [0, 15, 19] and h == pytest.approx(0.015, rel=1e-12)


def test_a_span_of_half_the_chunk_is_refused_and_one_sample_less_is_not(letters):
    rec = letters[2]
    with pytest.raises(ValueError, match="4 samples either side, too long for chunk=8 samples"):
        fit_verlet(DeLaN(), rec, steps=1, chunk=8, span=4 * H)
    assert len(fit_verlet(DeLaN(), rec, steps=1, chunk=9, span=4 * H)) == 1


def test_recorded_positions_in_float32_are_read_as_float64(letters):
    rec = letters[2]
    low = {**rec, "q": rec["q"].astype(np.float32)}
    same = {**rec, "q": low["q"].astype(float)}
    small = dict(steps=2, chunk=16, chunks=2, span=0.004)
    assert fit_verlet(DeLaN(seed=0), low, **small) == fit_verlet(DeLaN(seed=0), same, **small)


@pytest.mark.parametrize("call, error, words", [
    (lambda rec: fit_verlet(object(), rec), TypeError, "must be a DeLaN.*got .*object"),
    (lambda rec: fit_verlet(DeLaN(), {"q": rec["q"]}), TypeError, "(?s)'q', 'tau', 't' and 'traj'.*got .*dict"),
    (lambda rec: fit_verlet(DeLaN(), ["q", "tau", "t", "traj"]), TypeError, "must be a dict"),
    (lambda rec: fit_verlet(DeLaN(n_dof=3), rec), ValueError, "recording has 2 joints, the model 3"),
    (lambda rec: fit_verlet(DeLaN(), {**rec, "tau": rec["tau"] * np.nan}), ValueError,
     r"recording\['tau'\] contains NaN"),
    (lambda rec: fit_verlet(DeLaN(), {**rec, "tau": rec["tau"][:, :1]}), ValueError, "must have the shape of"),
    (lambda rec: fit_verlet(DeLaN(), rec, span=1.0), ValueError, "too long for chunk=128"),
    (lambda rec: fit_verlet(DeLaN(), rec, chunk=10 ** 6), ValueError, "no trajectory of the recording has"),
    (lambda rec: fit_verlet(DeLaN(), rec, lr=-1), ValueError, "^lr must be .*e.g. lr=1e-3"),
    (lambda rec: fit_verlet(DeLaN(), rec, steps=0), ValueError, "^steps must"),
    (lambda rec: fit_verlet(DeLaN(), rec, chunk=7), ValueError, "^chunk must"),
    (lambda rec: fit_verlet(DeLaN(), rec, chunks=0), ValueError, "^chunks must"),
    (lambda rec: fit_verlet(DeLaN(), rec, seed=-1), ValueError, "^seed must be"),
    (lambda rec: fit_verlet(DeLaN(), rec, span=-0.1), ValueError, "^span must be .*seconds, e.g. span=0.05"),
])
def test_bad_input_says_what_is_wrong(letters, call, error, words):
    with pytest.raises(error, match=words):
        call(letters[2])


def test_the_smallest_settings_are_accepted(letters):
    losses = fit_verlet(DeLaN(seed=0), letters[2], steps=1, chunk=8, chunks=1, span=0.004)
    assert len(losses) == 1 and np.all(np.isfinite(losses))


@pytest.mark.parametrize("settings, span, in_samples, window", [
    ({}, 10, 10, 0.1),
    (dict(activation="tanh", eps=0.01, potential_scale=5.0), 0.4, 1, 0.2),   # under a sample either side: one
], ids=["defaults", "other model, a span under one sample, another window"])
def test_one_batch_of_every_run_gives_the_loss_over_all_runs_each_joint_scaled_by_its_own_spread(
        letters, settings, span, in_samples, window):
    """chunks at least the number of runs: the one step's loss is verlet_loss over every run once (drawn without
    replacement, in any order), with the model's own settings, span made a whole number of samples (at least 1),
    and q̈'s spread per joint from the Savitzky-Golay estimate with the window given."""
    _, _, rec = letters
    chunk = 64
    starts, h = verlet._runs(rec, chunk)
    model = DeLaN(seed=2, **settings)
    theta = model.get_params()
    (first,) = fit_verlet(model, rec, steps=1, chunk=chunk, chunks=len(starts), span=span * h, window=window)
    span = in_samples
    states = estimate(rec, window=window)
    rows = (starts[:, None] + np.arange(chunk)).ravel()
    every_run = (rec["q"][rows].reshape(len(starts), chunk, 2), states["q"][rows], states["qd"][rows],
                 states["tau"][rows], verlet_weights(span, chunk), h, span, np.std(states["qdd"], axis=0))
    scales = every_run[-1]
    assert abs(scales[0] - scales[1]) > 0.1 * scales.max()          # one scale for both joints would show
    # the runs in another order: the same loss up to rounding
    assert first == pytest.approx(verlet.verlet_loss(theta, model, every_run), rel=1e-9)


def test_the_same_seed_draws_the_same_runs_and_another_seed_others(letters):
    small = dict(steps=3, chunk=16, chunks=1, span=0.004)
    runs = [fit_verlet(DeLaN(seed=0), letters[2], seed=seed, **small) for seed in (5, 5, 6)]
    assert runs[0] == runs[1] and runs[0] != runs[2]


def test_a_span_too_long_for_the_chunk_says_the_chunk_that_would_fit(letters):
    rec = letters[2]
    h = np.diff(rec["t"][rec["traj"] == rec["traj"][0]]).mean()
    with pytest.raises(ValueError) as err:
        fit_verlet(DeLaN(), rec, span=0.2)
    s, above = map(int, re.search(r"is (\d+) samples either side.*use a chunk above (\d+)", str(err.value)).groups())
    assert s == round(0.2 / h) and above == 2 * s


# ---------------------------------------------------------------------- one BLAS thread
def test_fit_verlet_trains_on_one_blas_thread_too(monkeypatch):
    """Notebook 08's training through Störmer–Verlet: every step with one BLAS thread (two threads spinning for a
    busy machine's cores made it ~20x slower at load 8, against 2.6-3.2x with one: benchmarks/bench_load.py)."""
    require_blas()
    from lesson_lib import DeLaN, double_pendulum
    from lesson_lib.data import record, write_letters
    from lesson_lib.model import verlet
    seen = []

    class Watched(verlet.Adam):
        def step(self, theta, g):
            seen.append(set(blas_threads()))
            return super().step(theta, g)
    monkeypatch.setattr(verlet, "Adam", Watched)
    rec = record(write_letters("o", double_pendulum()).sample(dt=0.002), sigma=1e-3, seed=0)
    with threadpool_limits(limits=2, user_api="blas"):
        verlet.fit_verlet(DeLaN(seed=0), rec, steps=3, chunk=8, chunks=1, span=0.004)
        assert set(blas_threads()) == {2}
    assert seen == [{1}] * 3
