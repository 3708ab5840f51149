"""The torque as a quadratic form in the jet (lesson_lib.model.fast.quadratic_torque) against the definition's torque
evaluated on the same jet, its reverse pass against finite differences and autograd's, and the fused loss's choice
of form by the arm's size."""
import numpy as np
import pytest
from autograd import make_vjp

from lesson_lib.model import definition, fast

rng = np.random.default_rng(11)


@pytest.fixture(autouse=True)
def fresh_coefficients():
    """Each test reads the coefficients off the torque again, not from the cache an earlier test filled."""
    fast.coefficients.cache_clear()
    fast._pairs.cache_clear()


def random_jet(n, B=7, dtype=float, eps=1e-3, v_scale=7.5):
    arch = definition.Architecture(n, (), eps=eps, potential_scale=v_scale)
    J = rng.normal(size=(arch.sizes[-1], 1 + n, B)).astype(dtype)
    J[:n, 0] = np.abs(J[:n, 0]) + 0.1                               # L's diagonal is positive (softplus)
    return arch, J, rng.normal(size=(B, n)).astype(dtype), rng.normal(size=(B, n)).astype(dtype)


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("eps, v_scale", [(1e-3, 1.0), (0.05, 20.0)])
def test_the_quadratic_form_is_the_definitions_torque(n, eps, v_scale):
    arch, J, qd, qdd = random_jet(n, eps=eps, v_scale=v_scale)
    tau, _ = fast.quadratic_torque(arch, J, qd.T, qdd.T)
    np.testing.assert_allclose(tau, fast.definition_torque(arch, J, qd, qdd), rtol=1e-12, atol=1e-12)
    L, dL = definition.place_factor(arch, J[:-1, 0].T, J[:-1, 1:].T)            # and from M, c, g themselves
    M, dM = definition.mass_matrix_jet(arch, L, dL)
    parts = np.einsum("bij,bj->bi", M, qdd) + definition.coriolis(dM, qd) + v_scale * J[-1, 1:].T
    np.testing.assert_allclose(tau.T, parts, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_quadratic_forms_reverse_pass_is_its_derivative(n):
    arch, J, qd, qdd = random_jet(n, B=3)
    G = rng.normal(size=(n, 3))
    _, F = fast.quadratic_torque(arch, J, qd.T, qdd.T)
    gJ = fast.quadratic_backward(J, F, G)
    h = 1e-6
    for index in np.ndindex(J.shape):
        step = np.zeros_like(J)
        step[index] = h
        up, down = (fast.quadratic_torque(arch, J + s, qd.T, qdd.T)[0] for s in (step, -step))
        assert gJ[index] == pytest.approx(np.sum(G * (up - down)) / (2 * h), rel=1e-6, abs=1e-8)
    vjp, _ = make_vjp(lambda j: fast.definition_torque(arch, j, qd, qdd))(J)
    np.testing.assert_allclose(gJ, vjp(G), rtol=1e-11, atol=1e-12)


def test_the_coefficients_are_symmetric_and_read_only():
    n = 2
    C = fast.coefficients(n, 1e-3, 20.0)
    P, Mo = 4 * 3 + 1, 2 + 3 + 1
    assert C.shape == (n * P, P * Mo)
    C4 = C.reshape(n, P, P, Mo)
    np.testing.assert_array_equal(C4, np.swapaxes(C4, 1, 2))
    with pytest.raises(ValueError):
        C[0, 0] = 1.0


def test_float32_jets_stay_float32_and_close_to_float64():
    arch, J, qd, qdd = random_jet(2, B=64, v_scale=20.0)
    tau64, _ = fast.quadratic_torque(arch, J, qd.T, qdd.T)
    tau32, F = fast.quadratic_torque(arch, J.astype(np.float32), qd.T.astype(np.float32), qdd.T.astype(np.float32))
    assert tau32.dtype == F.dtype == np.float32
    np.testing.assert_allclose(tau32, tau64, rtol=1e-4, atol=1e-4 * np.abs(tau64).max())


def test_the_loss_takes_the_quadratic_form_up_to_max_quadratic_joints_and_the_definition_above(monkeypatch):
    assert fast.fits(fast.MAX_QUADRATIC_JOINTS) and not fast.fits(fast.MAX_QUADRATIC_JOINTS + 1)
    from lesson_lib import DeLaN
    model = DeLaN(hidden=(4,))
    batch = tuple(rng.normal(size=(5, 2)) for _ in range(5))
    used, plain = [], definition.loss
    monkeypatch.setattr(fast, "quadratic_torque", lambda *a: used.append("quadratic") or (np.zeros((2, 5)), None))
    monkeypatch.setattr(definition, "loss", lambda *a, **k: used.append("definition") or plain(*a, **k))
    fast.loss(model.theta, model.architecture, batch)
    monkeypatch.setattr(fast, "MAX_QUADRATIC_JOINTS", 1)
    fast.loss(model.theta, model.architecture, batch)
    assert used == ["quadratic", "definition"]


@pytest.mark.parametrize("n", [2, 4])
def test_the_loss_computes_in_the_features_precision_and_returns_the_weights(n):
    """fit passes a float32 batch (as PyTorch trains) and float64 weights: the loss is float32, its gradient float64
    and close to the float64 one; both forms of the torque (quadratic for n = 2, the definition's for n = 4)."""
    from autograd import value_and_grad

    from lesson_lib import DeLaN
    model = DeLaN(n_dof=n, hidden=(8, 8), seed=2)
    q, qd, qdd, tau = (rng.normal(size=(16, n)) for _ in range(4))
    inv_scale = rng.uniform(0.5, 2.0, (16, n))

    def loss(theta, dtype):
        batch = tuple(x.astype(dtype) for x in (q, qd, qdd, tau * inv_scale, inv_scale))
        return fast.loss(theta, model.architecture, batch)
    (v32, g32), (v64, g64) = (value_and_grad(loss)(model.theta, dtype) for dtype in (np.float32, np.float64))
    assert np.asarray(v32).dtype == np.float32 and np.asarray(v64).dtype == np.float64
    assert g32.dtype == g64.dtype == np.float64
    assert v32 == pytest.approx(v64, rel=1e-4)
    assert np.linalg.norm(g32 - g64) <= 1e-3 * np.linalg.norm(g64)
