"""What fit accepts as training data (lesson_lib.model.training.check_training_data): each refusal read whole, at
the joint and with the unit where it happens, and the edges of what is accepted."""
import numpy as np
import pytest

from lesson_lib.model.training import DATA_LIMIT, check_training_data

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
