"""The plain-autograd DeLaN (lesson_lib.model.definition) against two independent truths: the library's DeLaN, whose
loss and gradient come from hand-written primitives, and the Euler-Lagrange equations differentiated by
autograd from the Lagrangian 1/2 qd^T M(q) qd - V(q)."""
import numpy as np
import pytest
from autograd import grad, hessian, jacobian, value_and_grad

from lesson_course import checks
from lesson_lib import BlackBox, DeLaN, double_pendulum, sample_uniform
from lesson_lib.model import definition, fast, training_data
from lesson_lib.model.training_data import sample_weights
from lesson_lib.physics.chain import PlanarChain


def four_links():
    """A 4-link arm: its training loss is the definition's (with the fused jet), not the quadratic form's."""
    return PlanarChain(m=[1.0, 0.8, 0.6, 0.4], l=[0.5, 0.4, 0.3, 0.2], lc=[0.25, 0.2, 0.15, 0.1],
                       I=[0.02, 0.015, 0.01, 0.005])


def setting(n_dof, activation, weight_scale=1.0, batch=64):
    """A DeLaN with its weights scaled, torque scales set from the data, and a float64 batch of its data."""
    chain = {2: double_pendulum, 3: checks.reference_triple_pendulum, 4: four_links}[n_dof]()
    d = sample_uniform(chain, batch, seed=3)
    model = DeLaN(n_dof=n_dof, hidden=(16, 12), activation=activation, seed=1)
    model.set_params(weight_scale * model.get_params())
    model.tau_scale = d["tau"].std(axis=0)
    return model, model.training_batch(d)


def test_the_plain_batch_is_the_one_fit_builds():
    model, batch = setting(2, "isru")
    d = sample_uniform(double_pendulum(), 64, seed=3)
    rows = training_data.samples(d["q"], d["qd"], d["qdd"], d["tau"], np.sqrt(sample_weights(d["qd"], d["qdd"])),
                                 model.tau_scale, np.float32)                         # float32, as fit trains
    fits = training_data.batch(rows, 2)
    for mine, theirs in zip(batch, fits, strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-6)


def test_the_public_loss_checks_its_arguments_and_computes_what_fit_minimises():
    """model.loss (checked) gives batch_loss's value and gradient to the last bit; a float32 batch stays float32 (fit's
    precision), lists are read as arrays, and a refused batch leaves no trace (the model is unchanged)."""
    model, batch = setting(2, "isru")
    before = model.get_params()
    value, g = value_and_grad(model.loss)(model.theta, batch)
    value_unchecked, g_unchecked = value_and_grad(model.batch_loss)(model.theta, batch)
    assert value == value_unchecked and np.array_equal(g, g_unchecked)
    single = tuple(x.astype(np.float32) for x in batch)
    assert np.asarray(model.loss(model.theta.astype(np.float32), single)).dtype == np.float32
    assert model.loss(model.theta.astype(np.float32), single) == pytest.approx(value, rel=1e-5)
    assert model.loss(list(model.theta), tuple(x.tolist() for x in batch)) == pytest.approx(value, rel=1e-12)
    with pytest.raises(ValueError, match="different numbers of samples"):
        model.loss(model.theta, batch[:4] + (batch[4][:3],))
    assert np.array_equal(model.get_params(), before)


CASES = [(2, "isru", 1.0), (2, "tanh", 3.0), (3, "isru", 2.0), (4, "isru", 1.0)]


@pytest.mark.parametrize("n_dof, activation, weight_scale", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fit_gets_autograds_loss_and_gradient_to_the_bit_without_its_tracing(n_dof, activation, weight_scale,
                                                                             dtype):
    model, batch = setting(n_dof, activation, weight_scale)
    batch = tuple(x.astype(dtype) for x in batch)                    # float32: as fit trains
    value, g = model.batch_loss_and_grad(model.theta, batch)
    want_value, want_g = value_and_grad(model.batch_loss)(model.theta, batch)
    assert value == want_value and g.dtype == want_g.dtype
    np.testing.assert_array_equal(g, want_g)


class Doubled(DeLaN):
    """A DeLaN whose loss is twice the DeLaN's: fit must train on it, not on the fused loss it redefines."""

    def batch_loss(self, theta, batch):
        return 2.0 * super().batch_loss(theta, batch)


def test_a_subclass_that_redefines_the_loss_is_trained_on_its_own_loss():
    d = sample_uniform(double_pendulum(), 256, seed=3)
    args = (d["q"], d["qd"], d["qdd"], d["tau"])
    mine, plain = Doubled(seed=1), DeLaN(seed=1)
    mine.fit(*args, steps=1, validation=0.0)
    plain.fit(*args, steps=1, validation=0.0)
    assert mine.loss_history[0] == pytest.approx(2 * plain.loss_history[0], rel=1e-6)
    batch = plain.training_batch(d)
    value, g = mine.batch_loss_and_grad(plain.theta, batch)
    want_value, want_g = plain.batch_loss_and_grad(plain.theta, batch)
    assert value == pytest.approx(2 * want_value, rel=1e-12)
    np.testing.assert_allclose(g, 2 * want_g, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("n_dof, activation, weight_scale", CASES)
def test_plain_gradient_equals_the_librarys_training_gradient(n_dof, activation, weight_scale):
    model, batch = setting(n_dof, activation, weight_scale)
    value, g_lib = value_and_grad(model.loss)(model.theta, batch)
    g_plain = grad(definition.loss)(model.theta, model.architecture, batch)
    assert definition.loss(model.theta, model.architecture, batch) == pytest.approx(value, rel=1e-12)
    assert np.linalg.norm(g_plain - g_lib) <= 1e-10 * np.linalg.norm(g_lib)


@pytest.mark.parametrize("n_dof, activation, weight_scale", CASES)
def test_plain_torque_equals_the_librarys_inverse_dynamics(n_dof, activation, weight_scale):
    model, (q, qd, qdd, _, _) = setting(n_dof, activation, weight_scale)
    arch = model.architecture
    tau = definition.torque(arch, *definition.learned_jet(model.theta, arch, q), qd, qdd)
    np.testing.assert_allclose(tau, model.inverse_dynamics(q, qd, qdd), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("n_dof, activation, weight_scale", CASES)
def test_the_fused_network_jet_and_its_gradient_equal_plains(n_dof, activation, weight_scale):
    """fast.network_jet (what fit_verlet's forward dynamics use) against definition.network_jet: the outputs,
    their q-derivatives and the gradient of the accelerations they give, through definition.forward_dynamics."""
    model, (q, qd, _, _, _) = setting(n_dof, activation, weight_scale)
    arch = model.architecture
    for mine, theirs in zip(fast.network_jet(model.theta, arch, q), definition.network_jet(model.theta, arch, q),
                            strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)
    tau = np.random.default_rng(5).normal(size=q.shape)
    def squared_accelerations(theta, jet):
        return (definition.forward_dynamics(arch, *definition.learned_jet(theta, arch, q, jet), qd, tau) ** 2).sum()
    grads = [grad(squared_accelerations)(model.theta, jet) for jet in (fast.network_jet, definition.network_jet)]
    assert np.linalg.norm(grads[0] - grads[1]) <= 1e-10 * np.linalg.norm(grads[1])


def test_the_jet_equals_autograds_jacobian_of_the_network():
    model, (q, _, _, _, _) = setting(3, "isru", 2.0, batch=4)
    out, dout = definition.network_jet(model.theta, model.architecture, q)
    value = lambda q1: definition.network_jet(model.theta, model.architecture, q1[None])[0][0]   # noqa: E731
    for b in range(len(q)):
        np.testing.assert_allclose(dout[b], jacobian(value)(q[b]).T, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n_dof", [2, 3])
def test_plain_torque_obeys_euler_lagrange(n_dof):
    """tau = d/dt dL/dqd - dL/dq for the Lagrangian L = 1/2 qd^T M(q) qd - V(q) built from the network's values
    alone (no jet): tau = (d2L/dqd2) qdd + (d2L/dqd dq) qd - dL/dq, every derivative by autograd."""
    model, (q, qd, qdd, _, _) = setting(n_dof, "isru", 2.0, batch=4)

    def lagrangian(q1, qd1):
        out, dout = definition.network_jet(model.theta, model.architecture, q1[None])
        L = definition.cholesky_jet(model.architecture, out, dout)[0][0]
        M = L @ L.T + model.eps * np.eye(n_dof)
        return 0.5 * qd1 @ M @ qd1 - model.potential_scale * out[0, -1]

    arch = model.architecture
    tau = definition.torque(arch, *definition.learned_jet(model.theta, arch, q), qd, qdd)
    for b in range(len(q)):
        dL_dqd = grad(lagrangian, 1)
        euler_lagrange = (hessian(lagrangian, 1)(q[b], qd[b]) @ qdd[b] + jacobian(dL_dqd, 0)(q[b], qd[b]) @ qd[b]
                          - grad(lagrangian, 0)(q[b], qd[b]))
        np.testing.assert_allclose(tau[b], euler_lagrange, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_fast_features_jet_equals_the_definitions_for_every_arm_size(dtype):
    """fast.input_jet (what DeLaN's methods and fit use) against definition.features, for 1 to MAX_N_DOF
    joints in both precisions: a numpy kernel that writes a strided output wrongly shows up here."""
    from lesson_lib.limits import MAX_N_DOF
    for n in range(1, MAX_N_DOF + 1):
        q = np.random.default_rng(n).uniform(-np.pi, np.pi, (16, n))
        X = fast.input_jet(q.astype(dtype))
        phi, dphi = definition.features(q)
        assert X.dtype == dtype
        np.testing.assert_allclose(X[0], phi, atol=1e-6)
        np.testing.assert_allclose(np.moveaxis(X[1:], 0, 1), dphi, atol=1e-6)


def test_an_unknown_activation_is_named_in_the_error():
    with pytest.raises(ValueError, match=r"^unknown activation 'bogus'; choose one of 'isru', 'tanh', 'softplus'"):
        definition.check_activation("bogus")


@pytest.mark.parametrize("cls", [DeLaN, BlackBox])
def test_unknown_activation_refused_at_construction_listing_the_registered_names(cls):
    with pytest.raises(ValueError, match="activation") as err:
        cls(activation="bogus")
    for name in definition.ACTIVATIONS:
        assert repr(name) in str(err.value)
    with pytest.raises(TypeError, match="activation"):
        cls(activation=None)
