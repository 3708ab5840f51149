"""Training that does not get worse: fit's validation split (whole trajectories when the data say which samples
belong together), the best weights restored with their optimiser state, the learning-rate schedule on plateaus
and spikes, the samples' weights, the potential's unit; all deterministic, saved with the model and undone by
fit's transaction."""

from itertools import pairwise

import numpy as np
import pytest
from test_adam import minibatches, sample_rows
from test_trainable import assert_same, full_snapshot

from lesson_lib import BlackBox, DeLaN, double_pendulum, sample_trajectories, sample_uniform
from lesson_lib.facts import VALIDATION
from lesson_lib.model import training as schedule
from lesson_lib.model.training import SPIKE, sample_weights, split, validation_interval

chain = double_pendulum()
MODELS = [DeLaN, BlackBox]


@pytest.fixture(scope="module")
def motions():
    """Six trajectories of 1 s (606 samples), trajectory-major."""
    return sample_trajectories(chain, n_traj=6, duration=1.0, seed=3)


@pytest.fixture(scope="module")
def uniform():
    return sample_uniform(chain, 600, seed=0)


def arrays(data):
    return data["q"], data["qd"], data["qdd"], data["tau"]


# ---------------------------------------------------------------- the split
LAYOUTS = {
    "trajectory-major": np.repeat(np.arange(8), 50),
    "interleaved": np.tile(np.arange(8), 50),
    "unequal lengths, ids not 0..k": np.repeat([7, 3, 12, 5, 40], [10, 200, 35, 90, 65]),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("fraction", [0.01, 0.05, 0.2, 0.5])
@pytest.mark.parametrize("seed", [0, 1, 7])
def test_the_split_holds_out_whole_trajectories(layout, fraction, seed):
    traj = LAYOUTS[layout]
    train, held = split(len(traj), traj, fraction, seed)
    assert np.array_equal(np.sort(np.concatenate([train, held])), np.arange(len(traj)))
    assert not set(traj[train]) & set(traj[held])                      # no trajectory in both sets
    assert len(train) and len(held)
    held_ids = set(traj[held])
    assert len(held) >= fraction * len(traj) or len(held_ids) == len(set(traj)) - 1
    # the fewest trajectories that reach the fraction: without the last one taken it would fall short
    sizes = {i: np.sum(traj == i) for i in held_ids}
    assert len(held_ids) == 1 or min(len(held) - s for s in sizes.values()) < fraction * len(traj)
    again = split(len(traj), traj, fraction, seed)
    assert np.array_equal(again[1], held)                              # the same rows at every call


def test_the_split_of_single_samples_and_of_nothing():
    train, held = split(1000, None, 0.05, 0)
    assert len(held) == 50 and len(train) == 950 and not set(train) & set(held)
    assert np.array_equal(split(1000, None, 0.05, 0)[1], held)
    assert not np.array_equal(split(1000, None, 0.05, 1)[1], held)     # the model's seed chooses
    assert len(split(2, None, 0.05, 0)[1]) == 1 and len(split(2, None, 0.5, 0)[0]) == 1
    train, held = split(10, np.zeros(10, int), 0.0, 0)                 # validation=0: everything is trained on
    assert np.array_equal(train, np.arange(10)) and len(held) == 0


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(validation=0.6), ValueError, r"validation must be .*0\.5"),
    (dict(validation=-0.1), ValueError, "validation must be"),
    (dict(validation="5%"), TypeError, "validation must be"),
    (dict(traj=np.zeros(606, int)), ValueError, r"at least 2 trajectories, got 1 .*validation=0"),
    (dict(traj=np.zeros(605, int)), ValueError, r"traj must be \(606,\) whole numbers"),
    (dict(traj=np.linspace(0, 5, 606)), ValueError, r"traj must be \(606,\) whole numbers"),
    (dict(traj=np.arange(606) - 3), ValueError, r"traj must be \(606,\) whole numbers >= 0"),
    (dict(restore_best="yes"), TypeError, "restore_best"),
])
def test_bad_validation_arguments_are_refused_and_change_nothing(kwargs, error, message, motions):
    model = DeLaN(seed=0)
    model.fit(*arrays(motions), steps=5)
    before = full_snapshot(model)
    with pytest.raises(error, match=message):
        model.fit(*arrays(motions), steps=5, **kwargs)
    assert_same(full_snapshot(model), before)


def test_fit_on_trajectories_is_adam_on_the_training_trajectories_only(motions):
    """The minibatches come from the rows split() leaves for training, by trajectory; the validation loss fit
    records is the loss on the held-out trajectories' rows, each weighing 1."""
    from autograd import grad
    from autograd.misc.optimizers import adam
    model = DeLaN(seed=5, batch_size=64)
    theta0 = model.get_params()
    model.fit(motions, steps=30)                                        # the dict's "traj" is used
    batches = minibatches(model, arrays(motions), 30, seed=5, traj=motions["traj"])
    expected = adam(lambda theta, i: grad(model.loss)(theta, batches[i]), theta0, num_iters=30, step_size=3e-3)
    np.testing.assert_allclose(model.get_params(), expected, rtol=0, atol=1e-12)
    held = split(606, motions["traj"], VALIDATION, 5)[1]
    held_batch = sample_rows(model, arrays(motions), held, weighted=False)
    assert model.validation_history == [(30, pytest.approx(float(model.loss(model.theta, held_batch)), rel=1e-6),
                                         3e-3)]


def test_a_data_dict_is_the_arrays_with_their_trajectories(motions):
    a, b, c = DeLaN(seed=2), DeLaN(seed=2), DeLaN(seed=2)
    a.fit(motions, steps=120)
    b.fit(*arrays(motions), steps=120, traj=motions["traj"])
    c.fit(*arrays(motions), steps=120)                                  # no traj: single samples held out
    assert_same(full_snapshot(a), full_snapshot(b))
    assert not np.array_equal(a.get_params(), c.get_params())
    with pytest.raises(TypeError, match="either one data dict .* not both: tau"):
        a.fit(motions, tau=motions["tau"], steps=5)
    with pytest.raises(ValueError, match="lacks the key"):
        a.fit({"q": motions["q"]}, steps=5)
    assert_same(full_snapshot(a), full_snapshot(b))


def test_validation_zero_trains_on_everything_without_evaluations(uniform):
    model = DeLaN(seed=4, batch_size=32)
    theta0 = model.get_params()
    model.fit(uniform, steps=250, validation=0)
    assert model.validation_history == [] and model.lr == 3e-3
    from autograd import grad
    from autograd.misc.optimizers import adam
    batches = minibatches(model, arrays(uniform), 250, seed=4, rows=np.arange(600))
    expected = adam(lambda theta, i: grad(model.loss)(theta, batches[i]), theta0, num_iters=250, step_size=3e-3)
    np.testing.assert_allclose(model.get_params(), expected, rtol=0, atol=1e-12)


def test_validation_interval():
    assert validation_interval(205, 128) == 100 and validation_interval(301, 128) == 100
    assert validation_interval(25_000, 128) == 1960                    # a large validation set: rarer evaluations


# ---------------------------------------------------------------- presses that never get worse
@pytest.mark.parametrize("cls", MODELS)
def test_every_press_ends_at_least_as_good_on_validation(cls, motions):
    """A high learning rate makes the last weights of a call worse than its best: the kept ones never are."""
    model = cls(seed=1, lr=0.03)
    ends, last = [], []
    for _ in range(5):
        model.fit(motions, steps=300)
        ends.append(model.validation_history[-1][1])
        last.append(max(v for s, v, _ in model.validation_history[-4:-1]))
    assert all(b <= a for a, b in pairwise(ends)), ends
    unrestored = cls(seed=1, lr=0.03)
    ends_unrestored = []
    for _ in range(5):
        unrestored.fit(motions, steps=300, restore_best=False)
        ends_unrestored.append(unrestored.validation_history[-1][1])
    assert any(b > a for a, b in pairwise(ends_unrestored)), ends_unrestored   # the case exists


def scripted(monkeypatch, model, losses):
    """Make the model's validation loss at step s be losses[s] (the training itself runs as usual)."""
    monkeypatch.setattr(model, "_validation_loss", lambda validation_set: losses[model.step])


def recorder():
    """A callback recording, at every call, the step, the weights and the optimiser state (with lr)."""
    seen = {}

    def callback(model):
        seen[model.step] = (model.get_params(), model.optimizer.state())
    return seen, callback


@pytest.mark.parametrize("cls", MODELS)
def test_the_best_weights_come_back_with_their_optimizer_state(cls, uniform, monkeypatch):
    model = cls(seed=0)
    scripted(monkeypatch, model, {100: 1.0, 200: 0.5, 300: 0.8, 350: 0.9})
    seen, callback = recorder()
    model.fit(uniform, steps=350, callback=callback, every=50)
    theta, state = seen[200]
    np.testing.assert_array_equal(model.get_params(), theta)
    assert_same(model.optimizer.state(), state)                        # moments and step count of those weights
    assert model.step == 350 and len(model.loss_history) == 350        # the steps were run
    assert model.validation_history == [(100, 1.0, 3e-3), (200, 0.5, 3e-3), (300, 0.8, 3e-3), (350, 0.5, 3e-3)]
    kept = cls(seed=0)
    scripted(monkeypatch, kept, {100: 1.0, 200: 0.5, 300: 0.8, 350: 0.9})
    seen, callback = recorder()
    kept.fit(uniform, steps=350, callback=callback, every=50, restore_best=False)
    np.testing.assert_array_equal(kept.get_params(), seen[350][0])
    assert kept.validation_history[-1] == (350, 0.9, 3e-3)


def test_the_weights_a_call_starts_from_are_a_candidate_unless_untrained(uniform, monkeypatch):
    model = DeLaN(seed=0)
    model.fit(uniform, steps=100, validation=0)
    start = model.get_params()
    scripted(monkeypatch, model, {100: 0.3, 200: 0.5, 250: 0.4})
    model.fit(uniform, steps=150)
    np.testing.assert_array_equal(model.get_params(), start)            # nothing in this call beat its start
    fresh = DeLaN(seed=0)
    scripted(monkeypatch, fresh, {100: 5.0, 150: 7.0})                  # worse than the untrained model would be
    seen, callback = recorder()
    fresh.fit(uniform, steps=150, callback=callback, every=50)
    np.testing.assert_array_equal(fresh.get_params(), seen[100][0])     # the best seen, not the random start


@pytest.mark.parametrize("cls", MODELS)
def test_training_goes_on_from_the_last_weights_while_the_model_keeps_the_best(cls, uniform, monkeypatch):
    """Two presses with the best kept train exactly as two presses without: the next call resumes from the last
    weights and their optimiser state, so a model that must get worse on validation before it gets better is
    not sent back to the same weights at every press."""
    script = {100: 0.5, 150: 0.9, 200: 0.95, 300: 0.3}
    kept, last = cls(seed=0), cls(seed=0)
    for model, restore in ((kept, True), (last, False)):
        scripted(monkeypatch, model, script)
        model.fit(uniform, steps=150, restore_best=restore)
    assert kept.resumes and not last.resumes
    assert not np.array_equal(kept.get_params(), last.get_params())    # the best (step 100) and the last
    script[150] = 0.5                                                  # the kept weights' loss at the next start
    for model, restore in ((kept, True), (last, False)):
        model.fit(uniform, steps=150, restore_best=restore)
    assert kept.loss_history == last.loss_history                      # the same training
    np.testing.assert_array_equal(kept.get_params(), last.get_params())   # step 300 is the best: kept by both
    assert_same(kept.optimizer.state(), last.optimizer.state())
    assert not kept.resumes


def test_set_params_drops_the_resume_point(uniform, monkeypatch):
    model = DeLaN(seed=0)
    scripted(monkeypatch, model, {100: 0.5, 150: 0.9})
    model.fit(uniform, steps=150)
    assert model.resumes
    theta = model.get_params()
    model.set_params(theta)
    assert not model.resumes
    monkeypatch.undo()
    model.fit(uniform, steps=1, validation=0)                          # one step from the weights it was given,
    assert np.abs(model.get_params() - theta).max() < 0.01             # not from the last weights, 50 steps away


def test_a_spike_goes_back_to_the_best_weights_and_halves_the_rate(uniform, monkeypatch):
    model = DeLaN(seed=0)
    scripted(monkeypatch, model, {100: 1.0, 200: 0.4, 300: 0.4 * SPIKE + 0.01, 400: 0.35, 450: 0.36})
    seen, callback = recorder()
    model.fit(uniform, steps=450, callback=callback, every=50)
    theta200, state200 = seen[200]
    theta300, state300 = seen[300]                                      # just after the spike's evaluation
    np.testing.assert_array_equal(theta300, theta200)
    assert_same(state300, {**state200, "lr": 1.5e-3})                  # coherent moments, the rate halved
    assert [lr for _, _, lr in model.validation_history] == [3e-3, 3e-3, 1.5e-3, 1.5e-3, 1.5e-3]
    np.testing.assert_array_equal(model.get_params(), seen[400][0])
    assert model.schedule.base_lr == 3e-3 and model.lr == 1.5e-3


def test_a_plateau_halves_the_rate_down_to_its_floor(uniform, monkeypatch):
    monkeypatch.setattr(schedule, "PATIENCE", 2)
    model = DeLaN(seed=0, lr=0.002)
    steps = range(100, 2001, 100)
    scripted(monkeypatch, model, {s: 1.0 if s == 100 else 1.2 for s in steps})   # no new best after step 100
    seen, callback = recorder()
    model.fit(uniform, steps=2000, callback=callback, every=100)
    rates = [lr for _, _, lr in model.validation_history]
    expected = [0.002 * max(0.5 ** (k // 2), 1 / 64) for k in range(20)]   # halved every 2nd evaluation
    assert rates == pytest.approx(expected, rel=1e-12)
    assert not np.array_equal(seen[300][0], seen[100][0])              # a plateau does not go back
    np.testing.assert_array_equal(model.get_params(), seen[100][0])     # the end of the call does


def test_new_bests_by_a_hair_are_kept_but_do_not_hold_the_rate_up(uniform, monkeypatch):
    monkeypatch.setattr(schedule, "PATIENCE", 3)
    model = DeLaN(seed=0)
    scripted(monkeypatch, model, {100: 1.0, 200: 0.995, 300: 0.99, 400: 0.985, 450: 2.0})
    seen, callback = recorder()
    model.fit(uniform, steps=450, callback=callback, every=50)
    assert [lr for _, _, lr in model.validation_history] == [3e-3, 3e-3, 3e-3, 1.5e-3, 1.5e-3]
    np.testing.assert_array_equal(model.get_params(), seen[400][0])    # the last new best is kept


def test_the_schedule_counts_evaluations_across_calls(uniform, monkeypatch):
    monkeypatch.setattr(schedule, "PATIENCE", 3)
    model = DeLaN(seed=0)
    scripted(monkeypatch, model, {100: 1.0, 200: 1.1, 300: 1.1})
    model.fit(uniform, steps=300)
    assert model.schedule.since == 2 and model.lr == 3e-3
    scripted(monkeypatch, model, {300: 1.0, 400: 1.05, 500: 1.05})   # the call starts from the kept best
    model.fit(uniform, steps=200)
    assert [lr for _, _, lr in model.validation_history] == [3e-3, 3e-3, 3e-3, 1.5e-3, 1.5e-3]


def test_schedule_rules():
    s = schedule.Schedule(0.01)
    assert s.update(1.0, float("inf")) == (True, None) and s.since == 0
    assert s.update(float("nan"), 1.0) == (False, "spike") and s.update(SPIKE + 0.01, 1.0) == (False, "spike")
    assert s.update(SPIKE, 1.0) == (False, None) and s.since == 1
    assert s.update(0.99, 1.0) == (True, None) and s.since == 2         # a new best, but no progress
    assert s.update(0.97, 1.0) == (True, None) and s.since == 0         # progress: 2 % or more below the best
    assert s.lowered(0.01) == 0.005 and s.lowered(0.0002) == pytest.approx(0.01 / 64)
    assert s.lowered(1e-5) == 1e-5                                     # never raised back up


# ---------------------------------------------------------------- state: reset, transactions, files
def lowered(model, uniform, monkeypatch):
    """The model after a call in which a spike lowered the rate, with a plateau count running and a resume point
    (the last weights were not the best)."""
    scripted(monkeypatch, model, {100: 1.0, 200: SPIKE + 0.5, 300: 1.2, 320: 1.1})
    model.fit(uniform, steps=320)
    monkeypatch.undo()
    assert model.lr == model.schedule.base_lr / 2 and model.schedule.since == 1 and model.resumes
    return model


@pytest.mark.parametrize("cls", MODELS)
def test_reset_returns_to_the_rate_the_user_chose(cls, uniform, monkeypatch):
    model = cls(seed=0, lr=0.004)
    lowered(model, uniform, monkeypatch)
    model.reset()
    assert_same(full_snapshot(model), full_snapshot(cls(seed=0, lr=0.004)))
    model.lr = 0.001                                                  # a rate set by hand is the new base
    lowered(model, uniform, monkeypatch)
    assert model.lr == 0.0005
    model.reset()
    assert model.lr == 0.001


@pytest.mark.parametrize("cls", MODELS)
def test_an_interrupted_fit_undoes_the_schedule_and_the_best_weights(cls, uniform, monkeypatch):
    model = lowered(cls(seed=0), uniform, monkeypatch)
    scripted(monkeypatch, model, {320: 1.0, 400: 0.9, 500: 0.9 * SPIKE + 0.1, 600: 3.0, 700: 0.5})
    before = full_snapshot(model)

    def stop(m):
        if m.step == 650:                                             # after a new best and a spike
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        model.fit(uniform, steps=400, callback=stop, every=50)
    assert_same(full_snapshot(model), before)


@pytest.mark.parametrize("cls", MODELS)
def test_save_and_load_keep_the_schedule_and_the_validation_history(cls, uniform, monkeypatch, tmp_path):
    a = lowered(cls(seed=0), uniform, monkeypatch)
    b = cls(seed=0).load(a.save(tmp_path / "m"))
    assert_same(full_snapshot(b), full_snapshot(a))
    assert b.schedule.since == 1 and len(b.validation_history) == 4
    a.fit(uniform, steps=250)
    b.fit(uniform, steps=250)
    assert_same(full_snapshot(b), full_snapshot(a))
    with np.load(tmp_path / "m.npz") as f:
        for key, bad, says in (
                ("schedule.since", np.array(-1), "its schedule's count of evaluations without a new best is negative"),
                ("schedule.base_lr", np.array(0.0), "its schedule's learning rate is 0.0, expected > 0"),
                ("validation_history", np.zeros((2, 2)), "its entry 'validation_history' has shape (2, 2)")):
            d = {k: f[k] for k in f.files}
            d[key] = bad
            np.savez(tmp_path / "bad.npz", **d)
            with pytest.raises(ValueError) as err:
                b.load(tmp_path / "bad.npz")
            assert str(err.value).startswith(f"cannot load {str(tmp_path / 'bad.npz')!r}: {says}"), str(err.value)
    assert_same(full_snapshot(b), full_snapshot(a))


def test_a_file_of_another_format_is_refused_naming_the_one_it_reads(tmp_path):
    with np.load(DeLaN(seed=0).save(tmp_path / "new")) as f:
        d = {k: f[k] for k in f.files}
    d["format"] = np.array(1)                                        # the format of a version never released
    np.savez(tmp_path / "old.npz", **d)
    model = DeLaN(seed=0)
    before = full_snapshot(model)
    with pytest.raises(ValueError) as err:
        model.load(tmp_path / "old.npz")
    assert str(err.value) == (f"cannot load {str(tmp_path / 'old.npz')!r}: it has file format array(1); this "
                              f"lesson_lib reads format 2. The model was not changed.")
    assert_same(full_snapshot(model), before)


# ---------------------------------------------------------------- the loss: the samples' weights, V's unit
def test_sample_weights_by_hand():
    qd = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 4.0]])                # |qd|^2 = 0, 4, 16
    qdd = np.array([[3.0, 4.0], [0.0, 10.0], [5.0, 0.0]])              # |qdd| = 5, 10, 5
    size = np.array([1 + 0.5 ** 2, 1 + 1 + 0.4 ** 2, 1 + 0.5 ** 2 + 1.6 ** 2])   # in units of 10 / s^2
    np.testing.assert_allclose(sample_weights(qd, qdd, scale=10.0), (1 / size) / np.mean(1 / size), rtol=1e-12)
    np.testing.assert_allclose(sample_weights(2 * qd, 4 * qdd, scale=40.0), sample_weights(qd, qdd, scale=10.0),
                               rtol=1e-12)                               # only |qd|^2 / scale and |qdd| / scale count
    np.testing.assert_array_equal(sample_weights(np.zeros((4, 2)), np.zeros((4, 2))), np.ones(4))   # at rest
    fast = sample_trajectories(chain, n_traj=2, duration=2.0, seed=0)
    w = sample_weights(fast["qd"], fast["qdd"])                         # the default unit: POTENTIAL_SCALE / s^2
    speed = np.sum(fast["qd"] ** 2, axis=1)
    assert w.mean() == pytest.approx(1.0) and w[np.argmax(speed)] < 0.01 < 1.0 < w[np.argmin(speed)]


def test_the_potential_is_measured_in_its_unit():
    q = np.random.default_rng(0).uniform(-3, 3, (20, 2))
    unit, scaled = DeLaN(seed=0, potential_scale=1.0), DeLaN(seed=0, potential_scale=7.5)
    np.testing.assert_array_equal(scaled.get_params(), unit.get_params())
    np.testing.assert_allclose(scaled.gravity(q), 7.5 * unit.gravity(q), rtol=1e-12)
    np.testing.assert_allclose(scaled.potential(q), 7.5 * unit.potential(q), rtol=1e-12)
    np.testing.assert_array_equal(scaled.mass_matrix(q), unit.mass_matrix(q))
    assert "potential_scale=7.5" in repr(scaled) and "potential_scale" not in repr(DeLaN())
    with pytest.raises(ValueError, match="potential_scale must be"):
        DeLaN(potential_scale=0)
