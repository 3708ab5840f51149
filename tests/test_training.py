"""fit's loop (lesson_lib.model.training): Adam on the training rows' minibatches, never worse at the end of a press
(the best weights restored with their optimiser state, the next press going on from the last), the schedule's
verdicts applied (spikes, plateaus), the divergence guard on every step and on the last update, one BLAS thread.  The
average kept stays in Adam's state; the model's weights are it with V's readout solved (test_potential_readout.py)."""
import re
from itertools import pairwise

import numpy as np
import pytest
from model_states import (
    adam_and_average,
    arrays,
    assert_same,
    blas_threads,
    full_snapshot,
    minibatches,
    recorder,
    require_blas,
    sample_rows,
    scripted,
    trained,
)
from threadpoolctl import threadpool_limits

from lesson_lib import BlackBox, DeLaN, TrainingDiverged, double_pendulum, sample_trajectories, sample_uniform
from lesson_lib.facts import LR, VALIDATION
from lesson_lib.model import schedule, training
from lesson_lib.model.schedule import SPIKE
from lesson_lib.model.training import validation_interval
from lesson_lib.model.training_data import split

chain = double_pendulum()
MODELS = [DeLaN, BlackBox]


@pytest.fixture(scope="module")
def motions():
    """Six trajectories of 1 s (606 samples), trajectory-major."""
    return sample_trajectories(chain, n_traj=6, duration=1.0, seed=3)


@pytest.fixture(scope="module")
def uniform():
    return sample_uniform(chain, 600, seed=0)


@pytest.fixture(scope="module")
def args():
    d = sample_uniform(double_pendulum(), 1024, seed=0)
    return d["q"], d["qd"], d["qdd"], d["tau"]


# ---------------------------------------------------------------- Adam on the training rows
def test_fit_on_trajectories_is_adam_on_the_training_trajectories_only(motions):
    """The minibatches come from the rows split() leaves for training, by trajectory; the model keeps the average of
    Adam's iterates and goes on from the last; the validation loss fit records is the loss on the held-out
    trajectories' rows, each weighing 1."""
    model = DeLaN(seed=5, batch_size=64)
    theta0 = model.get_params()
    model.fit(motions, steps=30)                                        # the dict's "traj" is used
    batches = minibatches(model, arrays(motions), 30, seed=5, traj=motions["traj"])
    last, average = adam_and_average(batches, theta0, 30, LR, model)
    np.testing.assert_allclose(model.resume_point["params"], last, rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.optimizer.average, average, rtol=0, atol=1e-12)
    held = split(606, motions["traj"], VALIDATION, 5)[1]
    held_batch = sample_rows(model, arrays(motions), held, weighted=False)
    assert model.validation_history == [(30, pytest.approx(float(model.loss(model.theta, held_batch)), rel=1e-6),
                                         LR)]


def test_validation_zero_trains_on_everything_without_evaluations(uniform):
    model = DeLaN(seed=4, batch_size=32)
    theta0 = model.get_params()
    model.fit(uniform, steps=250, validation=0)
    assert model.validation_history == [] and model.lr == LR
    batches = minibatches(model, arrays(uniform), 250, seed=4, rows=np.arange(600))
    last, average = adam_and_average(batches, theta0, 250, LR, model)
    np.testing.assert_allclose(model.resume_point["params"], last, rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.get_params(), average, rtol=0, atol=1e-12)     # nothing to refine against


def test_validation_interval():
    assert validation_interval(205, 128) == 100 and validation_interval(301, 128) == 100
    assert validation_interval(25_000, 128) == 1960                    # a large validation set: rarer evaluations


# ---------------------------------------------------------------- presses that never get worse
@pytest.mark.parametrize("cls", MODELS)
def test_every_press_ends_at_least_as_good_on_validation(cls, motions):
    """A high learning rate makes the last weights of a call worse than its best: the kept ones never are."""
    lr = 0.03 if cls is not DeLaN else 0.06       # at 0.03 the default DeLaN never ends a call worse: no case
    model = cls(seed=1, lr=lr)
    ends, last = [], []
    for _ in range(5):
        model.fit(motions, steps=300)
        ends.append(model.validation_history[-1][1])
        last.append(max(v for s, v, _ in model.validation_history[-4:-1]))
    assert all(b <= a for a, b in pairwise(ends)), ends
    unrestored = cls(seed=1, lr=lr)
    ends_unrestored = []
    for _ in range(5):
        unrestored.fit(motions, steps=300, restore_best=False)
        ends_unrestored.append(unrestored.validation_history[-1][1])
    assert any(b > a for a, b in pairwise(ends_unrestored)), ends_unrestored   # the case exists


@pytest.mark.parametrize("cls", MODELS)
def test_the_best_weights_come_back_with_their_optimizer_state(cls, uniform, monkeypatch):
    model = cls(seed=0)
    scripted(monkeypatch, model, {100: 1.0, 200: 0.5, 300: 0.8, 350: 0.9})
    seen, callback = recorder()
    model.fit(uniform, steps=350, callback=callback, every=50)
    theta, state = seen[200]
    np.testing.assert_array_equal(model.optimizer.average, state["average"])   # the average kept at step 200
    assert_same(model.optimizer.state(), state)                        # moments and step count of those weights
    np.testing.assert_array_equal(model.resume_point["params"], seen[350][0])   # the next call goes on from the last
    assert model.step == 350 and len(model.loss_history) == 350        # the steps were run
    assert model.validation_history == [(100, 1.0, LR), (200, 0.5, LR), (300, 0.8, LR), (350, 0.5, LR)]
    kept = cls(seed=0)
    scripted(monkeypatch, kept, {100: 1.0, 200: 0.5, 300: 0.8, 350: 0.9})
    seen, callback = recorder()
    kept.fit(uniform, steps=350, callback=callback, every=50, restore_best=False)
    np.testing.assert_array_equal(kept.optimizer.average, seen[350][1]["average"])
    assert kept.validation_history[-1] == (350, 0.9, LR)


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
    np.testing.assert_array_equal(fresh.optimizer.average, seen[100][1]["average"])   # the best seen, not the start


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
    assert kept.resumes and last.resumes                               # both go on from their last iterate
    assert_same(kept.resume_point, last.resume_point)
    assert not np.array_equal(kept.get_params(), last.get_params())    # the best (step 100) and the last
    script[150] = 0.5                                                  # the kept weights' loss at the next start
    for model, restore in ((kept, True), (last, False)):
        model.fit(uniform, steps=150, restore_best=restore)
    assert kept.loss_history == last.loss_history                      # the same training
    np.testing.assert_array_equal(kept.get_params(), last.get_params())   # step 300 is the best: kept by both
    assert_same(kept.optimizer.state(), last.optimizer.state())
    assert_same(kept.resume_point, last.resume_point)


# ---------------------------------------------------------------- the schedule's verdicts
def test_a_spike_goes_back_to_the_best_weights_and_halves_the_rate(uniform, monkeypatch):
    model = DeLaN(seed=0)
    scripted(monkeypatch, model, {100: 1.0, 200: 0.4, 300: 0.4 * SPIKE + 0.01, 400: 0.35, 450: 0.36})
    seen, callback = recorder()
    model.fit(uniform, steps=450, callback=callback, every=50)
    theta200, state200 = seen[200]
    theta300, state300 = seen[300]                                      # just after the spike's evaluation
    np.testing.assert_array_equal(theta300, theta200)
    assert_same(state300, {**state200, "lr": LR / 2})                  # coherent moments, the rate halved
    assert [lr for _, _, lr in model.validation_history] == [LR, LR, LR / 2, LR / 2, LR / 2]
    np.testing.assert_array_equal(model.optimizer.average, seen[400][1]["average"])
    assert model.schedule.base_lr == LR and model.lr == LR / 2


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
    np.testing.assert_array_equal(model.optimizer.average, seen[100][1]["average"])   # the end of the call does


def test_new_bests_by_a_hair_are_kept_but_do_not_hold_the_rate_up(uniform, monkeypatch):
    monkeypatch.setattr(schedule, "PATIENCE", 3)
    model = DeLaN(seed=0)
    scripted(monkeypatch, model, {100: 1.0, 200: 0.995, 300: 0.99, 400: 0.985, 450: 2.0})
    seen, callback = recorder()
    model.fit(uniform, steps=450, callback=callback, every=50)
    assert [lr for _, _, lr in model.validation_history] == [LR, LR, LR, LR / 2, LR / 2]
    np.testing.assert_array_equal(model.optimizer.average, seen[400][1]["average"])   # the last new best is kept


def test_the_schedule_counts_evaluations_across_calls(uniform, monkeypatch):
    monkeypatch.setattr(schedule, "PATIENCE", 3)
    model = DeLaN(seed=0)
    scripted(monkeypatch, model, {100: 1.0, 200: 1.1, 300: 1.1})
    model.fit(uniform, steps=300)
    assert model.schedule.since == 2 and model.lr == LR
    scripted(monkeypatch, model, {300: 1.0, 400: 1.05, 500: 1.05})   # the call starts from the kept best
    model.fit(uniform, steps=200)
    assert [lr for _, _, lr in model.validation_history] == [LR, LR, LR, LR / 2, LR / 2]


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
    model.lr = LR
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
    model.set_params(np.full(model.get_params().size, 1e30))          # M = L L^T overflows float32 at any input
    with pytest.raises(TrainingDiverged, match="learning rate is not the cause") as err:
        model.fit(*args, steps=3)
    assert "model.lr =" not in str(err.value) and model.step == 0


# ---------------------------------------------------------------------- one BLAS thread
def test_single_blas_thread_sets_one_thread_and_restores_the_count_even_after_an_error():
    require_blas()
    with threadpool_limits(limits=2, user_api="blas"):
        with pytest.raises(ZeroDivisionError):
            with training.single_blas_thread():
                assert set(blas_threads()) == {1}
                raise ZeroDivisionError("an error inside the block")
        assert set(blas_threads()) == {2}


def test_fit_trains_on_one_blas_thread_and_leaves_the_process_as_it_found_it():
    """Training runs with one BLAS thread (seen from fit's callback); no process-wide side effect: the count after
    a fit (and after a fit that fails) is the one before."""
    require_blas()
    from lesson_lib import DeLaN, double_pendulum, sample_uniform
    data = sample_uniform(double_pendulum(), 64, seed=0)
    seen = []
    with threadpool_limits(limits=2, user_api="blas"):
        DeLaN(seed=0).fit(data, steps=3, callback=lambda model: seen.append(set(blas_threads())), every=1)
        with pytest.raises(TypeError):
            DeLaN(seed=0).fit(data, steps=3, callback=42)
        assert set(blas_threads()) == {2}
    assert seen == [{1}] * 3
