"""What fit accepts as training data (lesson_lib.model.training_data.check_training_data): each refusal read
whole, at the joint and with the unit where it happens, and the edges of what is accepted."""
import numpy as np
import pytest

from lesson_lib.model.training_data import FLOAT32_SAFE, Q_PRECISE, SCALED_SAFE, check_training_data

rng = np.random.default_rng(0)
STATES = dict(zip(("q", "qd", "qdd", "tau"), (rng.uniform(-1, 1, (6, 2)) for _ in range(4))))
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
def test_a_value_too_large_for_float32_is_named_with_its_unit_and_joint(name, unit):
    with pytest.raises(ValueError) as err:
        check(**{name: (3, 1, -2e31)})
    assert str(err.value) == (f"{name} reaches 2e+31 {unit} (joint 1): too large for the float32 training step, which "
                              f"ends at 3.4e+38; check the units of {name}." + KEPT)


def test_values_at_the_limits_are_accepted_and_just_beyond_refused():
    check(qdd=(0, 0, FLOAT32_SAFE))                                            # at the limit: fine
    check(q=(2, 0, Q_PRECISE))
    with pytest.raises(ValueError) as err:
        check(q=(2, 1, 2 * Q_PRECISE))
    assert str(err.value) == ("q reaches 2e+04 rad (joint 1): float32 keeps 7 digits, so angles beyond 10000 rad lose "
                              "their precision; wrap them first (only cos q and sin q matter), e.g. q = (q + np.pi) % "
                              "(2 * np.pi) - np.pi." + KEPT)


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


def test_the_scale_is_the_models_when_it_has_one_and_scaled_torques_beyond_the_limit_are_refused():
    *_, scale = check(tau_scale=[2.0, 3.0])
    assert scale.tolist() == [2.0, 3.0]
    largest = np.abs(STATES["tau"]).max(axis=0)
    tiny = np.where(largest == largest.min(), 1e-13, 1.0)          # the joint with the smaller torques scaled tiny
    worst = (largest / tiny).max()
    with pytest.raises(ValueError) as err:
        check(tau_scale=list(tiny))
    assert str(err.value) == (f"these data would overflow the float32 training step: tau / std(tau) reaches "
                              f"{worst:.3g}, above the limit of 1e+12 (the loss squares the scaled torque error; "
                              f"float32 ends at 3.4e+38); check the units of tau, or leave out the samples with "
                              f"extreme tau." + KEPT)


@pytest.mark.parametrize("name, value, power, why", [
    ("qd", 1e7, 2, "its Coriolis terms square velocities"),
    ("qdd", 1e13, 1, "the mass-matrix term is linear in qdd")])
def test_a_model_that_squares_velocities_refuses_what_its_step_would_overflow(name, value, power, why):
    ratio = value ** power / SPREAD.min()
    assert ratio > SCALED_SAFE
    check(**{name: (3, 1, value)})                                             # a model that does not square them
    with pytest.raises(ValueError) as err:
        check(**{name: (3, 1, value)}, squares_velocities=True)
    assert str(err.value) == (
        f"these data would overflow the float32 training step: {name} reaches {value:.3g} (joint 1) while the smallest "
        f"torque standard deviation is {SPREAD.min():.3g}, so the torque the model computes, scaled, reaches "
        f"{name}{'^2' if power == 2 else ''} / std(tau) = {ratio:.3g}, above the limit of 1e+12 ({why}, and the loss "
        f"squares the scaled torque error again; float32 ends at 3.4e+38); check the units of {name} and tau, or "
        f"leave out the samples with extreme {name}." + KEPT)
