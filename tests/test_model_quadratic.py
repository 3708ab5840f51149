"""The torque as a quadratic form in the jet (lesson_lib.model.fast.quadratic) against the manipulator's einsum
torque and the readable sum of its parts, its reverse pass against finite differences, and the loss's choice of
form by the arm's size."""
import numpy as np
import pytest

from lesson_lib.model.fast import loss as fast_loss
from lesson_lib.model.fast import manipulator, quadratic

rng = np.random.default_rng(11)


@pytest.fixture(autouse=True)
def fresh_coefficients():
    """Each test reads the coefficients off the torque again, not from the cache an earlier test filled."""
    quadratic.coefficients.cache_clear()
    quadratic._pairs.cache_clear()


def random_jet(n, B=7, dtype=float):
    tril = manipulator.tril_order(n)
    J = rng.normal(size=(len(tril[0]) + 1, 1 + n, B)).astype(dtype)
    J[:n, 0] = np.abs(J[:n, 0]) + 0.1                               # L's diagonal is positive (softplus)
    return J, tril, rng.normal(size=(B, n)).astype(dtype), rng.normal(size=(B, n)).astype(dtype)


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("eps, v_scale", [(1e-3, 1.0), (0.05, 20.0)])
def test_the_quadratic_form_is_the_manipulators_torque(n, eps, v_scale):
    J, tril, qd, qdd = random_jet(n)
    tau, _ = quadratic.torque_forward(J, qd.T, qdd.T, eps, v_scale)
    np.testing.assert_allclose(tau.T, sum(manipulator.parts(J, qd, qdd, tril, eps, v_scale)), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tau, manipulator._torque_forward(J, qd, qdd, tril, eps, v_scale)[0], rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_quadratic_forms_reverse_pass_is_its_derivative(n):
    J, tril, qd, qdd = random_jet(n, B=3)
    G = rng.normal(size=(n, 3))
    _, H = quadratic.torque_forward(J, qd.T, qdd.T, 1e-3, 7.5)
    gJ = quadratic.torque_backward(J, H, G)
    h = 1e-6
    for index in np.ndindex(J.shape):
        step = np.zeros_like(J)
        step[index] = h
        up, down = (quadratic.torque_forward(J + s, qd.T, qdd.T, 1e-3, 7.5)[0] for s in (step, -step))
        assert gJ[index] == pytest.approx(np.sum(G * (up - down)) / (2 * h), rel=1e-6, abs=1e-8)
    np.testing.assert_allclose(gJ, manipulator._torque_backward(J, manipulator._torque_forward(
        J, qd, qdd, tril, 1e-3, 7.5)[1], tril, G, 7.5), rtol=1e-11, atol=1e-12)


def test_the_coefficients_are_symmetric_and_read_only():
    n = 2
    C = quadratic.coefficients(n, 1e-3, 20.0)
    P, Mo = 4 * 3 + 1, 2 + 3 + 1
    assert C.shape == (n * P, P * Mo)
    C4 = C.reshape(n, P, P, Mo)
    np.testing.assert_array_equal(C4, np.swapaxes(C4, 1, 2))
    with pytest.raises(ValueError):
        C[0, 0] = 1.0


def test_float32_jets_stay_float32_and_close_to_float64():
    J, _, qd, qdd = random_jet(2, B=64)
    tau64, _ = quadratic.torque_forward(J, qd.T, qdd.T, 1e-3, 20.0)
    tau32, H = quadratic.torque_forward(J.astype(np.float32), qd.T.astype(np.float32), qdd.T.astype(np.float32),
                                        1e-3, 20.0)
    assert tau32.dtype == H.dtype == np.float32
    np.testing.assert_allclose(tau32, tau64, rtol=1e-4, atol=1e-4 * np.abs(tau64).max())


def test_the_loss_takes_the_quadratic_form_up_to_max_n_and_the_einsums_above(monkeypatch):
    assert quadratic.fits(quadratic.MAX_N) and not quadratic.fits(quadratic.MAX_N + 1)
    J, tril, qd, qdd = random_jet(2)
    used = []
    monkeypatch.setattr(quadratic, "torque_forward", lambda *a: used.append("quadratic") or (np.zeros((2, 7)), None))
    monkeypatch.setattr(manipulator, "_torque_forward", lambda *a: used.append("einsum") or (np.zeros((2, 7)), None))
    fast_loss.torque_forward(J, qd.T, qdd.T, tril, 1e-3, 1.0)
    monkeypatch.setattr(quadratic, "MAX_N", 1)
    fast_loss.torque_forward(J, qd.T, qdd.T, tril, 1e-3, 1.0)
    assert used == ["quadratic", "einsum"]


@pytest.mark.parametrize("n", [2, 4])
def test_the_loss_computes_in_the_features_precision_and_returns_the_weights(n):
    """fit passes float32 features (as PyTorch trains) and float64 weights: the loss is float32, its gradient float64
    and close to the float64 one; both forms of the torque (quadratic for n = 2, einsums for n = 4)."""
    from autograd import value_and_grad

    from lesson_lib import DeLaN
    from lesson_lib.model.fast.jet import periodic_features
    model = DeLaN(n_dof=n, hidden=(8, 8), seed=2)
    q, qd, qdd, tau = (rng.normal(size=(16, n)) for _ in range(4))
    inv_scale = rng.uniform(0.5, 2.0, (16, n))

    def loss(theta, dtype):
        return fast_loss.delan_loss(theta, periodic_features(q.astype(dtype)), *(x.astype(dtype) for x in (
            qd, qdd, tau * inv_scale, inv_scale)), model.sizes, model.activation, n, model._tril, model.eps,
            model.potential_scale)
    (v32, g32), (v64, g64) = (value_and_grad(loss)(model.theta, dtype) for dtype in (np.float32, np.float64))
    assert np.asarray(v32).dtype == np.float32 and np.asarray(v64).dtype == np.float64
    assert g32.dtype == g64.dtype == np.float64
    assert v32 == pytest.approx(v64, rel=1e-4)
    assert np.linalg.norm(g32 - g64) <= 1e-3 * np.linalg.norm(g64)
