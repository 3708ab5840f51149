"""What every model shares (lesson_lib.model.trainable): fit, load, set_params and reset are transactions, the
learning rate is the model's and the schedule's, fit takes its data as arrays or one dict."""
import numpy as np
import pytest
from model_states import arrays, assert_same, full_snapshot, lowered, scripted, trained

from lesson_lib import BlackBox, DeLaN, double_pendulum, sample_trajectories, sample_uniform
from lesson_lib.model.schedule import SPIKE

MODELS = [DeLaN, BlackBox]


@pytest.fixture(scope="module")
def args():
    d = sample_uniform(double_pendulum(), 1024, seed=0)
    return d["q"], d["qd"], d["qdd"], d["tau"]


@pytest.fixture(scope="module")
def uniform():
    return sample_uniform(double_pendulum(), 600, seed=0)


@pytest.fixture(scope="module")
def motions():
    """Six trajectories of 1 s (606 samples), trajectory-major."""
    return sample_trajectories(double_pendulum(), n_traj=6, duration=1.0, seed=3)


# ---------------------------------------------------------------- transactions
@pytest.mark.parametrize("cls", MODELS)
@pytest.mark.parametrize("error", [KeyboardInterrupt, ValueError])
@pytest.mark.parametrize("trained_steps, at_step", [(0, 2), (30, 30 + 1), (30, 30 + 7)])
def test_fit_interrupted_or_failing_callback_leaves_the_model_as_it_was(cls, error, trained_steps, at_step, args):
    """Also the first fit (trained_steps 0), which sets the data's scales: they go back to the untrained ones."""
    model = trained(cls, args, steps=trained_steps)
    before = full_snapshot(model)

    def callback(m):
        if m.step == at_step:
            raise error("stop")
    with pytest.raises(error):
        model.fit(*args, steps=10, callback=callback, every=1)
    assert_same(full_snapshot(model), before)


@pytest.mark.parametrize("cls", MODELS)
def test_fit_completes_consistently(cls, args):
    model = cls(seed=0)
    seen = []
    losses = model.fit(*args, steps=12, callback=lambda m: seen.append((m.step, len(m.loss_history))), every=4)
    assert seen == [(4, 4), (8, 8), (12, 12)] and model.loss_history == losses and model.step == 12


@pytest.mark.parametrize("cls", MODELS)
def test_set_params_refused_leaves_the_model_as_it_was(cls, args):
    model = trained(cls, args)
    before = full_snapshot(model)
    good = model.get_params()
    for bad, error in ((good[:-1], ValueError), (np.append(good, 0.0), ValueError), (good.reshape(1, -1), ValueError),
                       (np.where(np.arange(good.size) == 7, np.nan, good), ValueError), ("weights", TypeError),
                       (None, TypeError), (good > 0, TypeError), (good + 0j, TypeError)):
        with pytest.raises(error, match="params"):
            model.set_params(bad)
        assert_same(full_snapshot(model), before)
    model.set_params(list(good * 2))                             # a list is fine
    np.testing.assert_array_equal(model.get_params(), good * 2)


@pytest.mark.parametrize("cls", MODELS)
def test_reset_goes_back_to_the_seed_and_interrupted_reset_changes_nothing(cls, args, monkeypatch):
    model = trained(cls, args)
    model.lr = 1e-3
    before = full_snapshot(model)
    calls = []
    original = model._set_state

    def interrupted(state):                                      # interrupted half-way through applying the state
        calls.append(1)
        if len(calls) == 1:
            model.theta = np.zeros_like(model.theta)
            raise KeyboardInterrupt
        original(state)
    monkeypatch.setattr(model, "_set_state", interrupted)
    with pytest.raises(KeyboardInterrupt):
        model.reset()
    monkeypatch.undo()
    assert_same(full_snapshot(model), before)
    model.reset()
    fresh = cls(seed=0, lr=1e-3)
    assert_same(full_snapshot(model), full_snapshot(fresh))


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


# ---------------------------------------------------------------- the rate, the resume point, the data
def test_lr_forwards_to_the_optimizer_and_can_change_during_a_call(args):
    model = DeLaN(seed=0)
    model.lr = 1e-3
    assert model.optimizer.lr == 1e-3
    for bad, error in ((-1e-3, ValueError), (0.0, ValueError), (np.nan, ValueError), (True, TypeError),
                       ("1", TypeError)):
        with pytest.raises(error, match="lr"):
            model.lr = bad
        assert model.lr == 1e-3
    # a schedule set from the callback: the same as two calls with the two rates
    a, b = DeLaN(seed=4), DeLaN(seed=4)

    def halve(model):
        model.lr = model.lr / 2
    a.fit(*args, steps=20, callback=halve, every=10)
    b.fit(*args, steps=10)
    b.lr = b.lr / 2
    b.fit(*args, steps=10)
    np.testing.assert_array_equal(a.get_params(), b.get_params())


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
    assert np.abs(model.resume_point["params"] - theta).max() < 0.01   # not from the last iterate, 50 steps away
    np.testing.assert_array_equal(model.get_params(), model.resume_point["params"])   # the average starts again:
    #                                                                    after one step it is that step's iterate


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
