"""What the output jet means (lesson_lib.model.quadratic): the torque as a quadratic form in the jet against the
definition's torque evaluated on the same jet, its reverse pass against finite differences and autograd's, the
coefficients' symmetry, and the precision of float32 jets.  Which form fit's loss takes: tests/test_quadratic.py."""
import numpy as np
import pytest
from autograd import make_vjp

from lesson_lib.model import definition, quadratic

rng = np.random.default_rng(11)


@pytest.fixture
def fresh_coefficients():
    """Each test reads the coefficients off the torque again, not from the cache an earlier test filled."""
    quadratic.coefficients.cache_clear()
    quadratic._pairs.cache_clear()


def random_jet(n, B=7, dtype=float, eps=1e-3, v_scale=7.5):
    arch = definition.Architecture(n, (), eps=eps, potential_scale=v_scale)
    J = rng.normal(size=(arch.layer_sizes[-1], 1 + n, B)).astype(dtype)
    J[:n, 0] = np.abs(J[:n, 0]) + 0.1                               # L's diagonal is positive (softplus)
    return arch, J, rng.normal(size=(B, n)).astype(dtype), rng.normal(size=(B, n)).astype(dtype)


@pytest.mark.usefixtures("fresh_coefficients")
@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("eps, v_scale", [(1e-3, 1.0), (0.05, 20.0)])
def test_the_quadratic_form_is_the_definitions_torque(n, eps, v_scale):
    arch, J, qd, qdd = random_jet(n, eps=eps, v_scale=v_scale)
    tau, _ = quadratic.quadratic_torque(arch, J, qd.T, qdd.T)
    np.testing.assert_allclose(tau, quadratic.definition_torque(arch, J, qd, qdd), rtol=1e-12, atol=1e-12)
    L, dL = definition.place_factor(arch, J[:-1, 0].T, J[:-1, 1:].T)            # and from M, c, g themselves
    M, dM = definition.mass_matrix_jet(arch, L, dL)
    parts = np.einsum("bij,bj->bi", M, qdd) + definition.coriolis(dM, qd) + v_scale * J[-1, 1:].T
    np.testing.assert_allclose(tau.T, parts, rtol=1e-12, atol=1e-12)


@pytest.mark.usefixtures("fresh_coefficients")
@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_quadratic_forms_reverse_pass_is_its_derivative(n):
    arch, J, qd, qdd = random_jet(n, B=3)
    G = rng.normal(size=(n, 3))
    _, F = quadratic.quadratic_torque(arch, J, qd.T, qdd.T)
    gJ = quadratic.quadratic_backward(J, F, G)
    h = 1e-6
    for index in np.ndindex(J.shape):
        step = np.zeros_like(J)
        step[index] = h
        up, down = (quadratic.quadratic_torque(arch, J + s, qd.T, qdd.T)[0] for s in (step, -step))
        assert gJ[index] == pytest.approx(np.sum(G * (up - down)) / (2 * h), rel=1e-6, abs=1e-8)
    vjp, _ = make_vjp(lambda j: quadratic.definition_torque(arch, j, qd, qdd))(J)
    np.testing.assert_allclose(gJ, vjp(G), rtol=1e-11, atol=1e-12)


@pytest.mark.usefixtures("fresh_coefficients")
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
    arch, J, qd, qdd = random_jet(2, B=64, v_scale=20.0)
    tau64, _ = quadratic.quadratic_torque(arch, J, qd.T, qdd.T)
    tau32, F = quadratic.quadratic_torque(arch, J.astype(np.float32), qd.T.astype(np.float32), qdd.T.astype(np.float32))
    assert tau32.dtype == F.dtype == np.float32
    np.testing.assert_allclose(tau32, tau64, rtol=1e-4, atol=1e-4 * np.abs(tau64).max())
