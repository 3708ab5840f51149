"""The RNEA truth against independent routes: closed form, Euler–Lagrange by autograd, energy, differences."""
import autograd.numpy as anp
import numpy as np
import pytest
from autograd import grad, hessian, jacobian

from lesson_lib import PlanarChain, double_pendulum, rollout

rng = np.random.default_rng(12345)


def closed_form_double_pendulum(p, q, qd, qdd):
    """Textbook M, c, g, tau for the double pendulum (q1 from the downward vertical, q2 relative)."""
    (m1, m2), (l1, _), (c1, c2), (I1, I2), g = p["m"], p["l"], p["lc"], p["I"], p["g"]
    cos2, sin2 = np.cos(q[:, 1]), np.sin(q[:, 1])
    M11 = I1 + I2 + m1 * c1**2 + m2 * (l1**2 + c2**2 + 2 * l1 * c2 * cos2)
    M12 = I2 + m2 * (c2**2 + l1 * c2 * cos2)
    M22 = np.full_like(M11, I2 + m2 * c2**2)
    M = np.stack([np.stack([M11, M12], -1), np.stack([M12, M22], -1)], -2)
    h = m2 * l1 * c2 * sin2
    c = np.stack([-h * (2 * qd[:, 0] * qd[:, 1] + qd[:, 1] ** 2), h * qd[:, 0] ** 2], -1)
    s12 = np.sin(q[:, 0] + q[:, 1])
    gv = np.stack([(m1 * c1 + m2 * l1) * g * np.sin(q[:, 0]) + m2 * c2 * g * s12, m2 * c2 * g * s12], -1)
    tau = np.einsum("bij,bj->bi", M, qdd) + c + gv
    return M, c, gv, tau


def random_states(n, B=200, scale=3.0):
    return (rng.uniform(-np.pi, np.pi, (B, n)), rng.uniform(-scale, scale, (B, n)),
            rng.uniform(-scale, scale, (B, n)))


@pytest.mark.parametrize("chain", [double_pendulum(), PlanarChain(m=[1.3, 0.7], l=[0.9, 1.4], lc=[0.3, 0.8],
                                                                  I=[0.05, 0.2], g=9.81)])
def test_rnea_matches_closed_form_double_pendulum(chain):
    q, qd, qdd = random_states(2)
    M, c, gv, tau = closed_form_double_pendulum(chain.params, q, qd, qdd)
    np.testing.assert_allclose(chain.mass_matrix(q), M, atol=1e-10)
    np.testing.assert_allclose(chain.coriolis(q, qd), c, atol=1e-10)
    np.testing.assert_allclose(chain.gravity(q), gv, atol=1e-10)
    np.testing.assert_allclose(chain.rnea(q, qd, qdd), tau, atol=1e-10)


def test_holding_both_rods_horizontal_needs_19_62():
    tau = double_pendulum().rnea([np.pi / 2, 0.0], [0.0, 0.0], [0.0, 0.0])
    # link 1: m g l/2, link 2: m g (l + l/2) -> 9.81 * (0.5 + 1.5) = 19.62; joint 2 holds m g l/2 = 4.905
    assert tau[0] == pytest.approx(19.62, abs=1e-12)
    assert tau[1] == pytest.approx(4.905, abs=1e-12)


def lagrangian_three_link(p):
    """Independent Lagrangian L(q, qd) of a planar chain from its forward kinematics, in autograd.numpy."""
    m, l, lc, I = (anp.array(p[k]) for k in ("m", "l", "lc", "I"))
    g = p["g"]

    def L(q, qd):
        T, V, x, y, vx, vy, th, w = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        for i in range(len(p["m"])):
            th, w = th + q[i], w + qd[i]
            cy = y - lc[i] * anp.cos(th)
            cvx, cvy = vx + lc[i] * anp.cos(th) * w, vy + lc[i] * anp.sin(th) * w
            T = T + 0.5 * m[i] * (cvx**2 + cvy**2) + 0.5 * I[i] * w**2
            V = V + m[i] * g * cy
            x, y = x + l[i] * anp.sin(th), y - l[i] * anp.cos(th)
            vx, vy = vx + l[i] * anp.cos(th) * w, vy + l[i] * anp.sin(th) * w
        return T - V
    return L


def test_rnea_matches_euler_lagrange_three_links():
    chain = PlanarChain(m=[1.5, 0.8, 0.4], l=[1.1, 0.7, 0.5], lc=[0.6, 0.2, 0.35], I=[0.12, 0.05, 0.01], g=9.81)
    L = lagrangian_three_link(chain.params)
    dL_dqd = grad(L, 1)
    for _ in range(20):
        q, qd, qdd = (rng.uniform(-2, 2, 3) for _ in range(3))
        # tau = d/dt dL/dqd - dL/dq = (d2L/dqd2) qdd + (d2L/dqd dq) qd - dL/dq
        M = hessian(L, 1)(q, qd)
        mixed = jacobian(dL_dqd, 0)(q, qd)
        tau_el = M @ qdd + mixed @ qd - grad(L, 0)(q, qd)
        np.testing.assert_allclose(chain.rnea(q, qd, qdd), tau_el, atol=1e-10)
        np.testing.assert_allclose(chain.mass_matrix(q), M, atol=1e-10)


def test_mass_matrix_symmetric_positive_definite():
    chain = PlanarChain(m=[1.5, 0.8, 0.4], l=[1.1, 0.7, 0.5], lc=[0.6, 0.2, 0.35], I=[0.12, 0.05, 0.01])
    M = chain.mass_matrix(rng.uniform(-np.pi, np.pi, (500, 3)))
    np.testing.assert_allclose(M, np.swapaxes(M, 1, 2), atol=1e-14)
    assert np.linalg.eigvalsh(M).min() > 0


def test_Mdot_minus_2C_is_skew_symmetric():
    """With C from Christoffel symbols, qd^T (Mdot - 2C) qd = 0 for every qd; we check the matrix form
    Mdot - 2C skew, with Mdot and C built from finite differences of the RNEA's M."""
    chain, h = double_pendulum(), 1e-6
    for _ in range(20):
        q, qd = rng.uniform(-np.pi, np.pi, 2), rng.uniform(-3, 3, 2)
        dM = np.stack([(chain.mass_matrix(q + h * e) - chain.mass_matrix(q - h * e)) / (2 * h) for e in np.eye(2)])
        Mdot = np.einsum("kij,k->ij", dM, qd)
        # C_ij = sum_k 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i) qd_k
        C = 0.5 * (np.einsum("kij,k->ij", dM, qd) + np.einsum("jik,k->ij", dM, qd) - np.einsum("ijk,k->ij", dM, qd))
        np.testing.assert_allclose(C @ qd, chain.coriolis(q, qd), atol=1e-7)
        S = Mdot - 2 * C
        np.testing.assert_allclose(S, -S.T, atol=1e-7)


def test_coriolis_is_quadratic_in_velocity():
    chain = PlanarChain(m=[1.5, 0.8, 0.4], l=[1.1, 0.7, 0.5], lc=[0.6, 0.2, 0.35], I=[0.12, 0.05, 0.01])
    q, qd, _ = random_states(3, B=50)
    for k in (-2.0, 0.5, 3.0):
        np.testing.assert_allclose(chain.coriolis(q, k * qd), k**2 * chain.coriolis(q, qd), atol=1e-10)


def test_energy_matches_closed_form_and_is_conserved_by_rollout():
    chain = double_pendulum()
    q0, qd0 = np.array([2.0, -1.0]), np.array([0.5, 1.5])
    # closed form T = 1/2 qd^T M qd with the textbook M
    M, *_ = closed_form_double_pendulum(chain.params, q0[None], qd0[None], qd0[None])
    assert chain.kinetic_energy(q0, qd0) == pytest.approx(0.5 * qd0 @ M[0] @ qd0, abs=1e-12)
    y1 = -0.5 * np.cos(q0[0])
    y2 = -np.cos(q0[0]) - 0.5 * np.cos(q0.sum())
    assert chain.potential_energy(q0) == pytest.approx(9.81 * (y1 + y2), abs=1e-12)
    t, q, qd = rollout(chain.forward_dynamics, q0, qd0, dt=2e-3, steps=2500)   # 5 s of chaotic motion
    E = chain.total_energy(q, qd)
    drift = np.max(np.abs(E - E[0]))
    assert drift < 1e-7 * np.max(np.abs(chain.kinetic_energy(q, qd))), drift
    assert np.ptp(q[:, 1]) > 1.0          # it really moved


def test_forward_dynamics_inverts_rnea():
    chain = PlanarChain(m=[1.5, 0.8, 0.4], l=[1.1, 0.7, 0.5], lc=[0.6, 0.2, 0.35], I=[0.12, 0.05, 0.01])
    q, qd, qdd = random_states(3)
    np.testing.assert_allclose(chain.forward_dynamics(q, qd, chain.rnea(q, qd, qdd)), qdd, atol=1e-9)


def test_batch_equals_one_by_one():
    chain = double_pendulum()
    q, qd, qdd = random_states(2, B=7)
    batch = {"rnea": chain.rnea(q, qd, qdd), "M": chain.mass_matrix(q), "c": chain.coriolis(q, qd),
             "g": chain.gravity(q), "fd": chain.forward_dynamics(q, qd, qdd), "T": chain.kinetic_energy(q, qd),
             "V": chain.potential_energy(q)}
    for b in range(7):
        single = {"rnea": chain.rnea(q[b], qd[b], qdd[b]), "M": chain.mass_matrix(q[b]),
                  "c": chain.coriolis(q[b], qd[b]), "g": chain.gravity(q[b]),
                  "fd": chain.forward_dynamics(q[b], qd[b], qdd[b]), "T": chain.kinetic_energy(q[b], qd[b]),
                  "V": chain.potential_energy(q[b])}
        for k in batch:
            assert np.shape(single[k]) == np.shape(batch[k][b])
            np.testing.assert_array_equal(single[k], batch[k][b])


@pytest.mark.parametrize("args, match", [
    (([0.1, 0.2, 0.3], [0, 0], [0, 0]), r"q has shape \(3,\), expected \(2,\)"),
    (([0.1, 0.2], np.zeros((4, 3)), [0, 0]), r"qd has shape \(4, 3\)"),
    ((np.zeros((1, 2, 2)), [0, 0], [0, 0]), r"q has shape \(1, 2, 2\)"),
    (([0.1, np.nan], [0, 0], [0, 0]), r"q contains NaN or inf"),
    (([0.1, 0.2], [0, np.inf], [0, 0]), r"qd contains NaN or inf"),
    ((["a", "b"], [0, 0], [0, 0]), r"q must be numeric"),
    (([0.1, 0.2], [0, 0], None), r"qdd must be numeric"),
    ((np.zeros((3, 2)), np.zeros((4, 2)), [0, 0]), r"batch sizes disagree"),
])
def test_bad_input_raises_clear_error(args, match):
    with pytest.raises((TypeError, ValueError), match=match):
        double_pendulum().rnea(*args)


def test_bad_parameters_raise_clear_error():
    with pytest.raises(ValueError, match="same length"):
        PlanarChain(m=[1, 1], l=[1], lc=[0.5, 0.5], I=[0.1, 0.1])
    with pytest.raises(ValueError, match="> 0"):
        PlanarChain(m=[1, -1], l=[1, 1], lc=[0.5, 0.5], I=[0.1, 0.1])
    with pytest.raises(ValueError, match="q has shape"):
        double_pendulum().mass_matrix([1.0, 2.0, 3.0])


def test_a_link_needs_inertia_about_its_joint():
    """The last diagonal entry of M is the last link's inertia about its joint, I + m lc^2 (nothing else moves
    when only the last joint turns), so with I + m lc^2 = 0 M is singular: such a chain is refused."""
    for I, lc in ((1e-9, 0.0), (0.0, 1e-4), (0.3, 0.2)):
        chain = PlanarChain(m=[1.0, 2.0], l=[1.0, 1.0], lc=[0.5, lc], I=[0.1, I])
        M = chain.mass_matrix(rng.uniform(-np.pi, np.pi, (50, 2)))
        np.testing.assert_allclose(M[:, 1, 1], I + 2.0 * lc**2, rtol=1e-12)
        assert np.all(np.linalg.eigvalsh(M)[:, 0] <= I + 2.0 * lc**2 + 1e-15)
    with pytest.raises(ValueError, match="link 2 has no inertia about its joint"):
        PlanarChain(m=[1.0, 2.0], l=[1.0, 1.0], lc=[0.5, 0.0], I=[0.1, 0.0])


def test_params_and_dof():
    chain = double_pendulum()
    assert chain.n_dof == 2
    assert chain.params == {"m": [1.0, 1.0], "l": [1.0, 1.0], "lc": [0.5, 0.5], "I": [1 / 12, 1 / 12], "g": 9.81}
