"""fit's data (lesson_lib.model.training_data): what it accepts (each refusal read whole, at the joint and with the
unit where it happens, and the edges of what is accepted), the validation split, the samples' weights."""
import numpy as np
import pytest
from model_states import assert_same, full_snapshot

from lesson_lib import DeLaN, double_pendulum, sample_trajectories, sample_uniform
from lesson_lib.model.training_data import DATA_LIMIT, check_training_data, sample_weights, split

rng = np.random.default_rng(0)
STATES = dict(zip(("q", "qd", "qdd", "tau"), (rng.uniform(-1, 1, (6, 2)) for _ in range(4)), strict=True))
KEPT = "  The model was not changed."
SPREAD = STATES["tau"].std(axis=0)


def check(**changes):
    """check_training_data on STATES with `changes`: an entry {name: (row, joint, value)} sets one value."""
    arrays = {k: v.copy() for k, v in STATES.items()}
    options = {}
    for name, change in changes.items():
        if name in arrays:
            row, joint, value = change
            arrays[name][row, joint] = value
        else:
            options[name] = change
    return check_training_data(2, arrays["q"], arrays["qd"], arrays["qdd"], arrays["tau"], **options)


@pytest.mark.parametrize("name, unit", [("q", "rad"), ("qd", "rad/s"), ("qdd", "rad/s^2"), ("tau", "N m")])
def test_a_value_no_robot_reaches_is_named_with_its_unit_and_joint(name, unit):
    check(**{name: (3, 1, DATA_LIMIT)})                                        # at the limit: fine
    with pytest.raises(ValueError) as err:
        check(**{name: (3, 1, -2e7)})
    assert str(err.value) == (f"{name} reaches 2e+07 {unit} (joint 1), far beyond any robot's data (the float32 "
                              f"training step would overflow above about 1e+06): check the units of {name}." + KEPT)


def test_two_samples_are_enough_and_one_is_not():
    q, qd, qdd, tau, scale = check_training_data(2, *(STATES[k][:2] for k in ("q", "qd", "qdd", "tau")))
    np.testing.assert_allclose(scale, STATES["tau"][:2].std(axis=0), rtol=1e-15)
    with pytest.raises(ValueError) as err:
        check_training_data(2, *(STATES[k][:1] for k in ("q", "qd", "qdd", "tau")))
    assert str(err.value) == "training needs at least 2 samples (rows of q, qd, qdd, tau), got 1." + KEPT


def test_a_joint_whose_torque_never_changes_is_named():
    tau = STATES["tau"].copy()
    tau[:, 1] = 3.0
    with pytest.raises(ValueError) as err:
        check_training_data(2, STATES["q"], STATES["qd"], STATES["qdd"], tau)
    assert str(err.value).startswith("the torques of joint 1 do not vary (tau[:, 1] is 3 in all 6 samples): ")
    tau[:, 1] = 3.0 + 1e-12 * (-1.0) ** np.arange(6)                          # spread 1e-12: a rounding error
    with pytest.raises(ValueError, match="the torques of joint 1 do not vary"):
        check_training_data(2, STATES["q"], STATES["qd"], STATES["qdd"], tau)
    tau[0, 1] = 3.0 + 1e-6                                                     # varies a little: accepted
    check_training_data(2, STATES["q"], STATES["qd"], STATES["qdd"], tau)


def test_the_scale_is_the_models_when_it_has_one():
    *_, scale = check(tau_scale=[2.0, 3.0])
    assert scale.tolist() == [2.0, 3.0]


@pytest.fixture(scope="module")
def args():
    d = sample_uniform(double_pendulum(), 1024, seed=0)
    return d["q"], d["qd"], d["qdd"], d["tau"]


@pytest.fixture(scope="module")
def motions():
    """Six trajectories of 1 s (606 samples), trajectory-major."""
    return sample_trajectories(double_pendulum(), n_traj=6, duration=1.0, seed=3)


def arrays(data):
    return data["q"], data["qd"], data["qdd"], data["tau"]


# ---------------------------------------------------------------- fit's refusals, the model unchanged
def test_data_checks_name_the_problem_and_change_nothing(args):
    q, qd, qdd, tau = args
    model = DeLaN(seed=0)
    model.fit(*args, steps=30)
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


# ---------------------------------------------------------------- the samples' weights
def test_sample_weights_by_hand():
    qd = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 4.0]])                # |qd|^2 = 0, 4, 16
    qdd = np.array([[3.0, 4.0], [0.0, 10.0], [5.0, 0.0]])              # |qdd| = 5, 10, 5
    size = np.array([1 + 0.5 ** 2, 1 + 1 + 0.4 ** 2, 1 + 0.5 ** 2 + 1.6 ** 2])   # in units of 10 / s^2
    np.testing.assert_allclose(sample_weights(qd, qdd, scale=10.0), (1 / size) / np.mean(1 / size), rtol=1e-12)
    np.testing.assert_allclose(sample_weights(2 * qd, 4 * qdd, scale=40.0), sample_weights(qd, qdd, scale=10.0),
                               rtol=1e-12)                               # only |qd|^2 / scale and |qdd| / scale count
    np.testing.assert_array_equal(sample_weights(np.zeros((4, 2)), np.zeros((4, 2))), np.ones(4))   # at rest
    fast = sample_trajectories(double_pendulum(), n_traj=2, duration=2.0, seed=0)
    w = sample_weights(fast["qd"], fast["qdd"])                         # the default unit: POTENTIAL_SCALE / s^2
    speed = np.sum(fast["qd"] ** 2, axis=1)
    assert w.mean() == pytest.approx(1.0) and w[np.argmax(speed)] < 0.01 < 1.0 < w[np.argmin(speed)]
