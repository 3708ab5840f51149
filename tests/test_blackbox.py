"""The black box (lesson_lib.model.blackbox) as its docstrings describe it: its inputs in units of the data's
spread, its loss the scaled torque error fit minimises (float32 kept), the same initialisation as the DeLaN."""
import numpy as np
import pytest

from lesson_lib import BlackBox, DeLaN, double_pendulum, sample_uniform
from lesson_lib.model.definition import unflatten

chain = double_pendulum()
data = sample_uniform(chain, 256, seed=4)


@pytest.fixture(scope="module")
def box():
    model = BlackBox(seed=0)
    model.fit(data, steps=30, validation=0)
    return model


def test_the_inputs_scale_is_the_spread_of_qd_and_qdd_in_the_first_fits_data(box):
    np.testing.assert_allclose(box.input_scale, [data["qd"].std(), data["qdd"].std()], rtol=1e-6)


def test_the_network_sees_qd_and_qdd_divided_by_their_scale():
    """Doubling qd and tripling qdd while the scales double and triple gives the same torques."""
    q, qd, qdd = data["q"][:20], data["qd"][:20], data["qdd"][:20]
    unit, scaled = BlackBox(seed=2), BlackBox(seed=2)
    scaled.input_scale = np.array([2.0, 3.0])
    np.testing.assert_allclose(scaled.inverse_dynamics(q, 2 * qd, 3 * qdd), unit.inverse_dynamics(q, qd, qdd),
                               rtol=1e-12, atol=1e-12)
    assert not np.allclose(unit.inverse_dynamics(q, 2 * qd, 3 * qdd), unit.inverse_dynamics(q, qd, qdd))


def test_the_loss_is_the_scaled_torque_error_of_its_predictions_and_float32_stays_float32(box):
    """training_batch's documented fields: target = tau * inv_scale, so the loss is mean(((tau_hat - tau) *
    inv_scale)^2) with tau_hat the model's own inverse dynamics."""
    batch = box.training_batch(data)
    q, qd, qdd, target, inv_scale = batch
    tau_hat = box.inverse_dynamics(q, qd, qdd)
    want = np.mean(((tau_hat - data["tau"]) * inv_scale) ** 2)
    assert box.loss(box.get_params(), batch) == pytest.approx(want, rel=1e-10)
    single = tuple(x.astype(np.float32) for x in batch)
    value = box.loss(box.get_params().astype(np.float32), single)
    assert np.asarray(value).dtype == np.float32 and value == pytest.approx(want, rel=1e-4)


@pytest.mark.parametrize("cls", [BlackBox, DeLaN])
def test_both_models_start_from_the_same_initialisation(cls):
    """W ~ N(0, 1/fan_in), the output layer's half that, biases zero (wide layers: the spread is measured); a DeLaN's
    output weights that training keeps at 0 (L from V's units, V from L's) start at 0."""
    model = cls(hidden=(256, 256), seed=5)
    layers = unflatten(model.get_params(), model.layer_sizes)
    kept = unflatten(model.trainable_mask, model.layer_sizes)
    for i, ((W, b), (trained, _)) in enumerate(zip(layers, kept, strict=True)):
        want = 0.5 if i == len(layers) - 1 else 1.0
        assert W[trained == 1].std() * np.sqrt(W.shape[1]) == pytest.approx(want, rel=0.08), (cls.__name__, i)
        assert not W[trained == 0].any() and not b.any()
    assert np.array_equal(cls().get_params(), cls(seed=0).get_params())        # the default seed is 0
