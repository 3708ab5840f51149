"""fit, load, set_params and reset are transactions; the divergence guard checks the last update too; the
training data are checked once, before any step, and explained in terms of the data."""
import copy
import re

import numpy as np
import pytest

from lesson_lib import BlackBox, DeLaN, TrainingDiverged, double_pendulum, sample_uniform


@pytest.fixture(scope="module")
def args():
    d = sample_uniform(double_pendulum(), 1024, seed=0)
    return d["q"], d["qd"], d["qdd"], d["tau"]


def full_snapshot(model):
    """Every attribute of the model and of what it holds (optimiser, generator), deep-copied: independent of the
    model's own _state(), so a forgotten piece of state shows up."""
    return copy.deepcopy(model.__dict__)


def assert_same(a, b, where="model"):
    """Recursive equality: arrays by value and dtype, generators by state, objects by their attributes."""
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype, where
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, np.random.Generator):
        assert a.bit_generator.state == b.bit_generator.state, where
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            assert_same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}[{i}]")
    elif hasattr(a, "__dict__") and not callable(a):
        assert type(a) is type(b), where
        assert_same(vars(a), vars(b), where)
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def trained(cls, args, steps=30, **kw):
    model = cls(seed=0, **kw)
    model.fit(*args, steps=steps)
    return model


MODELS = [DeLaN, BlackBox]


# ---------------------------------------------------------------- the divergence guard
def test_one_diverging_step_raises_and_changes_nothing(args):
    model = trained(DeLaN, args)
    model.lr = 10.0
    before = full_snapshot(model)
    with pytest.raises(TrainingDiverged, match=r"after its last update \(step 31\).*smaller learning rate"):
        model.fit(*args, steps=1)
    assert_same(full_snapshot(model), before)
    # the next call starts from the good state: its reference is the good loss, so it raises again
    with pytest.raises(TrainingDiverged):
        model.fit(*args, steps=1)
    assert_same(full_snapshot(model), before)
    model.lr = 3e-3
    model.fit(*args, steps=5)
    assert model.step == 35


def test_untrained_model_at_lr_10_diverges_within_the_call(args):
    model = DeLaN(seed=0, lr=10.0)
    before = full_snapshot(model)
    with pytest.raises(TrainingDiverged, match=r"at step 2: the loss went from .* with learning rate lr=10\. The "
                                               r"model was put back to its last good state \(step 0"):
        model.fit(*args, steps=200)
    assert_same(full_snapshot(model), before)


@pytest.mark.parametrize("lr", [10.0, 1e3, 1e-2, 5e-324])
def test_the_message_never_recommends_a_learning_rate_of_zero_or_less(lr, args, monkeypatch):
    model = trained(DeLaN, args, steps=5)
    model.lr = lr
    # force the guard to fire whatever lr does: the loss jumps a billionfold after the first update
    original = model.batch_loss
    monkeypatch.setattr(model, "batch_loss",
                        lambda theta, batch: original(theta, batch) * (1.0 if model.step == 5 else 1e9))
    with pytest.raises(TrainingDiverged) as err:
        model.fit(*args, steps=3)
    for value in re.findall(r"model\.lr = ([^ ,]+)", str(err.value)):
        assert float(value.rstrip(".")) > 0, str(err.value)
    if lr < 1e-300:
        assert "model.lr =" not in str(err.value)


def test_a_loss_that_cannot_start_is_not_blamed_on_the_learning_rate(args):
    model = DeLaN(seed=0)
    model.set_params(model.get_params() * 1e30)
    with pytest.raises(TrainingDiverged, match="learning rate is not the cause") as err:
        model.fit(*args, steps=3)
    assert "model.lr =" not in str(err.value) and model.step == 0


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


# ---------------------------------------------------------------- training data
def test_data_checks_name_the_problem_and_change_nothing(args):
    q, qd, qdd, tau = args
    model = trained(DeLaN, args)
    before = full_snapshot(model)
    flat = tau.copy()
    flat[:, 1] = 2.5
    cases = [
        ((q[:1], qd[:1], qdd[:1], tau[:1]), r"at least 2 samples .*got 1\b"),
        ((q[:0], qd[:0], qdd[:0], tau[:0]), r"at least 2 samples .*got 0\b"),
        ((q, qd, qdd, flat), r"torques of joint 1 do not vary .*cannot teach"),
        ((q, qd, qdd, 0 * tau), r"torques of joint 0 do not vary"),
        ((q, qd * 1e7, qdd, tau), r"qd reaches 3e\+07 rad/s .*far beyond any robot's data .*units of qd"),
        ((q, qd, qdd * 1e13, tau), r"qdd reaches .* rad/s\^2 .*units of qdd"),
        ((q, qd, qdd, tau * 1e35), r"tau reaches .* N m .*float32 training step would overflow"),
        ((q + 1e7, qd, qdd, tau), r"q reaches 1e\+07 rad .*units of q"),
    ]
    for data, message in cases:
        with pytest.raises(ValueError, match=message) as err:
            model.fit(*data, steps=5)
        assert "smaller lr" not in str(err.value) and "learning rate" not in str(err.value)
        assert_same(full_snapshot(model), before)
