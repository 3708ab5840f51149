"""The learned models' public API on small independent checks: one state gives the first row of the batch with
the batch axis dropped, the black box's implied mass matrix is the finite-difference slope of its torque, its
torques are in the data's units, training lowers the torque error, and the optimisers say what they are."""
import numpy as np
import pytest

from lesson_lib import BlackBox, DeLaN, double_pendulum, sample_uniform, torque_nmse

chain = double_pendulum()
rng = np.random.default_rng(5)
Q, QD, QDD = (rng.uniform(-2, 2, (4, 2)) for _ in range(3))


def _methods(model):
    calls = {"inverse_dynamics": (Q, QD, QDD)}
    if isinstance(model, DeLaN):
        calls.update(mass_matrix=(Q,), mass_matrix_derivative=(Q,), cholesky_factor=(Q,), potential=(Q,),
                     gravity=(Q,), coriolis=(Q, QD), forward_dynamics=(Q, QD, QDD))
    else:
        calls.update(implied_mass_matrix=(Q, QD, QDD))
    return calls


@pytest.mark.parametrize("cls", [DeLaN, BlackBox])
def test_one_state_gives_the_batchs_first_row_without_the_batch_axis(cls):
    model = cls(seed=2)
    for name, args in _methods(model).items():
        batch = getattr(model, name)(*args)
        one = getattr(model, name)(*(a[0] for a in args))
        assert np.shape(one) == np.shape(batch)[1:], name
        np.testing.assert_allclose(one, batch[0], rtol=1e-12, atol=1e-12, err_msg=name)


def test_delan_parts_are_named_and_add_up_to_the_torque():
    model = DeLaN(seed=2)
    parts = model.parts(Q, QD, QDD)
    assert set(parts) == {"M_qdd", "c", "g"}
    np.testing.assert_allclose(parts["M_qdd"] + parts["c"] + parts["g"], model.inverse_dynamics(Q, QD, QDD),
                               atol=1e-12)
    one = model.parts(Q[0], QD[0], QDD[0])
    assert set(one) == {"M_qdd", "c", "g"} and all(np.shape(v) == (2,) for v in one.values())
    np.testing.assert_allclose(one["g"], parts["g"][0], atol=1e-12)


def _trained_black_box(seed=1, **kwargs):
    data = sample_uniform(chain, 256, seed=seed)
    model = BlackBox(seed=0, hidden=(16,), batch_size=64, **kwargs)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=1500)
    return model, data


def test_black_box_implied_mass_matrix_is_the_slope_of_its_torque():
    model, _ = _trained_black_box()
    h = 1e-5
    for q, qd, qdd in zip(Q, QD, QDD, strict=True):
        M = model.implied_mass_matrix(q, qd, qdd)
        for j in range(2):
            e = np.eye(2)[j] * h
            column = (model.inverse_dynamics(q, qd, qdd + e) - model.inverse_dynamics(q, qd, qdd - e)) / (2 * h)
            np.testing.assert_allclose(M[:, j], column, rtol=1e-5, atol=1e-6)


def test_black_box_training_lowers_the_torque_error_in_the_datas_units():
    data = sample_uniform(chain, 256, seed=1)
    before = torque_nmse(BlackBox(seed=0, hidden=(16,), batch_size=64), data)
    model, _ = _trained_black_box()
    after = torque_nmse(model, data)
    assert np.all(after < 0.4 * before), (before, after)
    tau = model.inverse_dynamics(data["q"], data["qd"], data["qdd"])
    assert 0.5 < tau.std(axis=0).min() / data["tau"].std(axis=0).min() < 2     # newton metres, not scaled units


def test_black_box_uses_the_activation_it_was_given():
    a, b = BlackBox(seed=3, activation="isru"), BlackBox(seed=3, activation="tanh")
    np.testing.assert_array_equal(a.get_params(), b.get_params())
    assert not np.allclose(a.inverse_dynamics(Q, QD, QDD), b.inverse_dynamics(Q, QD, QDD))
