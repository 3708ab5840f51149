"""The second structured model (lesson_lib.model.diagonal.DiagonalDeLaN), held to the DeLaN's kind of tests: its M is
diagonal and SPD for any weights, its dM/dq and g = dV/dq are exact (autograd and finite differences), its torque is
the definition's, fit trains it as a transaction like any model, and it learns a robot whose M is diagonal."""
import numpy as np
import pytest
from autograd import grad, jacobian

from lesson_lib import TrainingDiverged
from lesson_lib.model import definition
from lesson_lib.model.diagonal import DiagonalDeLaN
from lesson_lib.model.trainable import Trainable

rng = np.random.default_rng(0)


def random_model(scale, n_dof=2, seed=0):
    model = DiagonalDeLaN(n_dof=n_dof, seed=seed)
    model.set_params(scale * np.random.default_rng(seed).standard_normal(model.get_params().size))
    return model


@pytest.mark.parametrize("scale", [0.01, 1.0, 100.0])
@pytest.mark.parametrize("n_dof", [2, 3])
def test_mass_matrix_is_diagonal_and_spd_for_any_weights(scale, n_dof):
    q = np.concatenate([rng.uniform(-np.pi, np.pi, (200, n_dof)), rng.uniform(-1e3, 1e3, (50, n_dof))])
    M = random_model(scale, n_dof).mass_matrix(q)
    off = M * (1 - np.eye(n_dof))
    assert np.all(np.isfinite(M)) and not off.any()
    assert np.diagonal(M, axis1=1, axis2=2).min() >= random_model(scale, n_dof).eps


def test_its_jet_is_exact():
    """dM/dq and g from the jet against autograd's jacobian of M(q) and grad of V(q), and central differences."""
    model, h = random_model(0.7, 2, seed=3), 1e-6
    arch = model.architecture
    for q in rng.uniform(-np.pi, np.pi, (4, 2)):
        L, dL, g = model.learned_jet(model.theta, q[None])
        dM = definition.mass_matrix_jet(arch, L, dL)[1][0]
        M_of_q = lambda x: definition.mass_matrix_jet(arch, *model.learned_jet(model.theta, x[None])[:2])[0][0]  # noqa
        V_of_q = lambda x: arch.potential_scale * definition.network_jet(model.theta, arch, x[None])[0][0, -1]  # noqa
        np.testing.assert_allclose(dM, np.moveaxis(jacobian(M_of_q)(q), -1, 0), atol=1e-10)
        np.testing.assert_allclose(g[0], grad(V_of_q)(q), atol=1e-10)
        for k, e in enumerate(np.eye(2) * h):
            np.testing.assert_allclose(dM[k], (model.mass_matrix(q + e) - model.mass_matrix(q - e)) / (2 * h),
                                       atol=1e-7)


def test_the_torque_is_the_definitions_and_coriolis_is_quadratic_in_qd():
    model = random_model(0.5)
    q, qd, qdd = (rng.uniform(-2, 2, (6, 2)) for _ in range(3))
    L, dL, g = model.learned_jet(model.theta, q)
    M_qdd, c, g = definition.parts(model.architecture, L, dL, g, qd, qdd)
    np.testing.assert_allclose(model.inverse_dynamics(q, qd, qdd), M_qdd + c + g, rtol=1e-12)
    c2 = definition.parts(model.architecture, L, dL, g, 2 * qd, qdd)[1]
    np.testing.assert_allclose(c2, 4 * c, rtol=1e-10, atol=1e-12)


def decoupled_robot(q, qd, qdd):
    """Two joints that do not load each other: M = diag(2 + cos q1, 1), V = 3 (1 - cos q0): tau by Lagrange."""
    m0, dm0 = 2 + np.cos(q[:, 1]), -np.sin(q[:, 1])
    tau0 = m0 * qdd[:, 0] + dm0 * qd[:, 0] * qd[:, 1] + 3 * np.sin(q[:, 0])
    tau1 = qdd[:, 1] - 0.5 * dm0 * qd[:, 0] ** 2
    return np.stack([tau0, tau1], axis=1)


def test_fit_trains_it_to_a_robot_whose_mass_matrix_is_diagonal():
    q, qd, qdd = rng.uniform(-np.pi, np.pi, (2048, 2)), rng.uniform(-2, 2, (2048, 2)), rng.uniform(-5, 5, (2048, 2))
    data = {"q": q, "qd": qd, "qdd": qdd, "tau": decoupled_robot(q, qd, qdd)}
    model = DiagonalDeLaN(seed=0, potential_scale=5.0)
    model.fit(data, steps=1500)
    grid = rng.uniform(-np.pi, np.pi, (200, 2))
    want = np.stack([np.diag([2 + np.cos(a), 1.0]) for a in grid[:, 1]])
    assert isinstance(model, Trainable) and model.step == 1500
    assert np.abs(model.mass_matrix(grid) - want).max() < 0.15


def test_fit_is_a_transaction_for_it_too():
    model = random_model(0.3)
    before = model.get_params()
    q = rng.uniform(-1, 1, (64, 2))
    with pytest.raises(TrainingDiverged):
        model.fit(q, q, q, 1e5 * np.sin(q), steps=5, callback=lambda m: (_ for _ in ()).throw(
            TrainingDiverged("stopped by the callback")), every=1)
    np.testing.assert_array_equal(model.get_params(), before)
    assert model.step == 0


def test_the_delans_methods_and_checks_serve_it_unchanged():
    """The public methods the DeLaN has, on the diagonal factor: L diagonal with a positive diagonal, M = L L^T + eps
    I, forward dynamics inverting inverse dynamics; and its arguments refused with the DeLaN's own messages."""
    from lesson_lib import DeLaN
    model = random_model(0.5)
    q, qd, qdd = (rng.uniform(-2, 2, (6, 2)) for _ in range(3))
    L = model.cholesky_factor(q)
    assert not (L * (1 - np.eye(2))).any() and np.diagonal(L, axis1=1, axis2=2).min() > 0
    np.testing.assert_allclose(model.mass_matrix(q), L @ np.swapaxes(L, 1, 2) + model.eps * np.eye(2), rtol=1e-12)
    np.testing.assert_allclose(model.forward_dynamics(q, qd, model.inverse_dynamics(q, qd, qdd)), qdd, atol=1e-8)
    for bad in ({"eps": 2.0}, {"eps": 0.0}, {"potential_scale": 0.0}):
        messages = []
        for cls in (DiagonalDeLaN, DeLaN):
            with pytest.raises(ValueError) as err:
                cls(**bad)
            messages.append(str(err.value))
        assert messages[0] == messages[1], bad
