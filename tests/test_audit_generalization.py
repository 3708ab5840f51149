"""Audits and generalisation tests on models whose answers are known: the truth dressed as a model (closed-form
M of the double pendulum), deliberately broken fakes, and trajectories built by hand."""
import numpy as np
import pytest

from lesson_lib import double_pendulum, rollout, sample_uniform
from lesson_lib.evaluation import audit, generalization

chain = double_pendulum()


def closed_form_M(q):
    """Textbook M(q) of the default double pendulum (1 kg, 1 m uniform rods): (B, 2, 2)."""
    c2 = np.cos(q[:, 1])
    M11 = 2 / 12 + 0.25 + 1 + 0.25 + c2
    M12 = 1 / 12 + 0.25 + 0.5 * c2
    M22 = np.full_like(M11, 1 / 12 + 0.25)
    return np.stack([np.stack([M11, M12], -1), np.stack([M12, M22], -1)], -2)


def smallest_eig_2x2(M):
    """Smallest eigenvalue of symmetric 2 x 2 matrices in closed form."""
    half_tr = 0.5 * (M[:, 0, 0] + M[:, 1, 1])
    det = M[:, 0, 0] * M[:, 1, 1] - M[:, 0, 1] * M[:, 1, 0]
    return half_tr - np.sqrt(half_tr**2 - det)


class Truth:
    """The RNEA dressed as a model, with a potential off by a constant."""
    n_dof = 2
    OFFSET = 7.0

    def mass_matrix(self, q):
        return chain.mass_matrix(q)

    def inverse_dynamics(self, q, qd, qdd):
        return chain.rnea(q, qd, qdd)

    def potential(self, q):
        return chain.potential_energy(q) + self.OFFSET


class Skewed:
    """A fake black box whose slope d tau / d qdd is [[1, 2], [0, 1 - qd_0^2 / 4]]: asymmetry 2 everywhere,
    symmetric part [[1, 1], [1, 1 - qd_0^2 / 4]] with determinant -qd_0^2 / 4 <= 0: positive-definite nowhere."""
    n_dof = 2

    def implied_mass_matrix(self, q, qd, qdd):
        qd = np.atleast_2d(qd)
        M = np.zeros((len(qd), 2, 2))
        M[:, 0, 0], M[:, 0, 1], M[:, 1, 1] = 1.0, 2.0, 1 - qd[:, 0] ** 2 / 4
        return M

    def inverse_dynamics(self, q, qd, qdd):
        return np.einsum("bij,bj->bi", self.implied_mass_matrix(q, qd, qdd), np.atleast_2d(qdd))


class Softening:
    """A fake with a symmetric slope diag(1, 1 - qd_0^2 / 4): positive-definite exactly when |qd_0| < 2."""
    n_dof = 2

    def implied_mass_matrix(self, q, qd, qdd):
        qd = np.atleast_2d(qd)
        M = np.zeros((len(qd), 2, 2))
        M[:, 0, 0], M[:, 1, 1] = 1.0, 1 - qd[:, 0] ** 2 / 4
        return M


class Singular:
    """A fake whose slope diag(1, 0) is symmetric and singular everywhere: never positive-definite."""
    n_dof = 2

    def implied_mass_matrix(self, q, qd, qdd):
        return np.broadcast_to(np.diag([1.0, 0.0]), (len(np.atleast_2d(q)), 2, 2))


class Shifting(Truth):
    """The true M plus qd_0 + qdd_1 on every entry: exact where the state is at rest, wrong elsewhere."""

    def implied_mass_matrix(self, q, qd, qdd):
        return chain.mass_matrix(q) + (np.atleast_2d(qd)[:, 0] + np.atleast_2d(qdd)[:, 1])[:, None, None]


def test_is_valid_inertia_on_known_matrices():
    assert audit.is_valid_inertia(closed_form_M(np.array([[0.3, -1.2]]))[0])
    assert not audit.is_valid_inertia([[1.0, 0.5], [0.4, 1.0]])             # asymmetric by 0.1
    assert audit.is_valid_inertia([[1.0, 0.5], [0.4, 1.0]], tol=0.1)
    assert not audit.is_valid_inertia([[1.0, 2.0], [2.0, 1.0]])             # eigenvalues 3 and -1
    assert not audit.is_valid_inertia(np.zeros((3, 3)))                    # semi-definite is not enough


def test_audit_of_the_truth_reports_symmetry_and_the_true_smallest_eigenvalue():
    rows = audit.audit(Truth(), scales=(1, 3), count=500, seed=4)
    assert [r["scale"] for r in rows] == [1, 3]
    for k, r in enumerate(rows):
        q = np.random.default_rng(4 + k).uniform(-np.pi, np.pi, (500, 2))   # the states audit draws first
        lam = smallest_eig_2x2(closed_form_M(q))
        assert r["max_asymmetry"] < 1e-14
        assert r["share_not_pd"] == 0.0
        assert r["min_eig"] == pytest.approx(lam.min(), abs=1e-12)
        np.testing.assert_allclose(r["worst"][0], q[np.argmin(lam)], atol=0)
        np.testing.assert_allclose(r["worst_M"], closed_form_M(q[np.argmin(lam)][None])[0], atol=1e-12)


def test_audit_of_a_skewed_fake_reports_its_asymmetry_and_eigenvalues():
    rows = audit.audit(Skewed(), scales=(1, 2), count=400, seed=0)
    for r in rows:
        qd0 = r["worst"][1][0]
        assert r["max_asymmetry"] == pytest.approx(2.0, abs=1e-15)
        assert r["share_not_pd"] == 1.0
        # symmetric part [[1, 1], [1, d]], d = 1 - qd0^2/4: smallest eigenvalue (1 + d)/2 - sqrt(((1 - d)/2)^2 + 1)
        d = 1 - qd0**2 / 4
        assert r["min_eig"] == pytest.approx((1 + d) / 2 - np.sqrt(((1 - d) / 2) ** 2 + 1), abs=1e-12)
        assert abs(qd0) == pytest.approx(3.0 * r["scale"], rel=0.01)   # the worst state has the largest speed


def test_audit_share_not_positive_definite_matches_the_probability():
    """For diag(1, 1 - qd_0^2/4) with qd_0 uniform in [-3 s, 3 s], P(not PD) = P(|qd_0| >= 2) = 1 - 2 / (3 s)."""
    rows = audit.audit(Softening(), scales=(1, 2, 5), count=4000, seed=1)
    for r in rows:
        expected = 1 - 2 / (3 * r["scale"])
        assert r["share_not_pd"] == pytest.approx(expected, abs=4 * np.sqrt(expected * (1 - expected) / 4000))
        assert r["max_asymmetry"] == 0.0
        assert r["min_eig"] == pytest.approx(1 - (3 * r["scale"]) ** 2 / 4, rel=0.01)


def test_audit_counts_a_singular_slope_as_not_positive_definite():
    (r,) = audit.audit(Singular(), scales=(1,), count=50)
    assert r["share_not_pd"] == 1.0 and r["min_eig"] == 0.0 and r["max_asymmetry"] == 0.0


def test_inertia_report_and_velocity_sweep_on_known_matrices():
    M = np.array([[[2.0, 1.0], [3.0, 2.0]], [[1.0, 0.0], [0.0, 4.0]]])
    asym, lam = audit.inertia_report(M)
    np.testing.assert_allclose(asym, [2.0, 0.0])
    np.testing.assert_allclose(lam, [0.0, 1.0], atol=1e-15)   # symmetric part [[2, 2], [2, 2]]: eigenvalues 0, 4
    asym, lam = audit.inertia_report(np.zeros((0, 2, 2)))      # an empty batch gives empty reports
    assert asym.shape == lam.shape == (0,)
    v = np.linspace(-3, 3, 7)
    sweep = audit.velocity_sweep(Softening(), [0.3, -1.2], v, joint=0)
    np.testing.assert_allclose(sweep[:, 1, 1], 1 - v**2 / 4)
    np.testing.assert_allclose(audit.velocity_sweep(Truth(), [0.3, -1.2], v),
                               np.broadcast_to(closed_form_M(np.array([[0.3, -1.2]])), (7, 2, 2)), atol=1e-12)


def test_implied_mass_matrix_of_one_state_and_of_a_batch():
    q = np.array([0.3, -1.2])
    np.testing.assert_allclose(audit.implied_mass_matrix(Truth(), q, [0, 0], [0, 0]), closed_form_M(q[None])[0],
                               atol=1e-12)
    Q = np.random.default_rng(0).uniform(-3, 3, (5, 2))
    assert audit.implied_mass_matrix(Skewed(), Q, Q, Q).shape == (5, 2, 2)


def test_half_circle_folds_q0_and_keeps_the_rnea_consistent():
    d = sample_uniform(chain, 300, seed=3)
    d["traj"] = np.arange(300) // 30
    for side in (+1, -1):
        h = generalization.half_circle(chain, d, side)
        assert np.all(side * h["q"][:, 0] >= 0)
        np.testing.assert_array_equal(np.abs(h["q"][:, 0]), np.abs(d["q"][:, 0]))
        np.testing.assert_array_equal(h["q"][:, 1], d["q"][:, 1])
        np.testing.assert_array_equal(h["qd"], d["qd"])
        np.testing.assert_array_equal(h["traj"], d["traj"])
        # torques from the textbook equations, not from the RNEA: M qdd + c + g
        q, qd, qdd = h["q"], h["qd"], h["qdd"]
        s2, s1, s12 = np.sin(q[:, 1]), np.sin(q[:, 0]), np.sin(q[:, 0] + q[:, 1])
        hh = 0.5 * s2
        c = np.stack([-hh * (2 * qd[:, 0] * qd[:, 1] + qd[:, 1] ** 2), hh * qd[:, 0] ** 2], -1)
        g = np.stack([9.81 * (1.5 * s1 + 0.5 * s12), 9.81 * 0.5 * s12], -1)
        tau = np.einsum("bij,bj->bi", closed_form_M(q), qdd) + c + g
        np.testing.assert_allclose(h["tau"], tau, atol=1e-10)
    assert np.any(d["q"][:, 0] < 0)                       # the original was not changed
    with pytest.raises(ValueError, match="side must be"):
        generalization.half_circle(chain, d, 0)


def test_test_set_scales_the_speeds_and_picks_a_half():
    for speed, side in ((1, +1), (3, -1)):
        d = generalization.test_set(chain, speed, side, count=1000, seed=2)
        assert np.all(side * d["q"][:, 0] >= 0)
        assert 0.95 * 3 * speed < np.abs(d["qd"]).max() <= 3 * speed
        assert 0.95 * 10 * speed < np.abs(d["qdd"]).max() <= 10 * speed


def test_torque_error_and_mass_matrix_error_on_known_models():
    data = generalization.test_set(chain, 1, +1, count=500)
    assert generalization.torque_error_percent(Truth(), data) == pytest.approx(0.0, abs=1e-20)

    class Zero(Truth):                                    # predicts tau = 0: error mean(tau^2) / var(tau)
        def inverse_dynamics(self, q, qd, qdd):
            return np.zeros_like(np.atleast_2d(q))
    tau = data["tau"]
    want = 100 * np.mean(np.mean(tau**2, axis=0) / np.var(tau, axis=0))
    assert generalization.torque_error_percent(Zero(), data) == pytest.approx(want, rel=1e-12)

    class Offset(Truth):                                  # M + 0.05 on every entry
        def mass_matrix(self, q):
            return chain.mass_matrix(q) + 0.05
    q = data["q"]
    assert generalization.implied_mass_matrix_error(Truth(), chain, q) < 1e-15
    assert generalization.implied_mass_matrix_error(Offset(), chain, q) == pytest.approx(0.05, abs=1e-14)
    assert generalization.implied_mass_matrix_error(Shifting(), chain, q) < 1e-15      # the implied M at rest
    assert generalization.implied_mass_matrix_error(Skewed(), chain, q) == pytest.approx(
        np.max(np.abs(np.array([[1.0, 2.0], [0.0, 1.0]]) - closed_form_M(q))), abs=1e-12)


def test_compare_and_speed_curve_on_the_truth_and_a_zero_model(capsys):
    class Zero(Truth):
        def inverse_dynamics(self, q, qd, qdd):
            return np.zeros_like(np.atleast_2d(q))
    models = {"truth": Truth(), "zero": Zero()}
    rows = generalization.compare(models, chain, {"seen": (1, +1), "unseen fast": (2, -1)})
    assert [r["case"] for r in rows] == ["seen", "unseen fast"]
    for r, (speed, side) in zip(rows, ((1, +1), (2, -1)), strict=True):
        tau = generalization.test_set(chain, speed, side)["tau"]
        assert r["truth"] == pytest.approx(0.0, abs=1e-20)
        assert r["zero"] == pytest.approx(100 * np.mean(np.mean(tau**2, axis=0) / np.var(tau, axis=0)), rel=1e-12)
    generalization.print_comparison(rows)
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["test", "set", "truth", "zero"] and out[2].startswith("unseen fast")
    curve = generalization.speed_curve(models, chain, [1, 2])
    assert curve["truth"] == pytest.approx([0.0, 0.0], abs=1e-20) and len(curve["zero"]) == 2


def test_learned_energy_of_the_truth_is_the_true_energy_up_to_a_constant():
    t, q, qd = rollout(chain.forward_dynamics, [1.0, -0.5], [0.5, 1.0], dt=0.01, steps=200)
    E_true = chain.total_energy(q, qd)                    # from link kinematics, not from M
    E_model = generalization.learned_energy(Truth(), q, qd)
    np.testing.assert_allclose(E_model - E_true, Truth.OFFSET, atol=1e-12)
    assert generalization.learned_energy(Truth(), q[5], qd[5]) == pytest.approx(E_model[5], abs=1e-12)


def test_agreement_finds_the_first_time_apart_and_the_largest_gap():
    t = 0.1 * np.arange(11)
    q_a = np.zeros((11, 2))
    q_b = q_a.copy()
    q_b[:, 1] = 0.03 * np.arange(11)                      # 0.03 rad per sample: above 0.1 from index 4 on
    assert generalization.agreement(t, q_a, q_b, tol=0.1) == pytest.approx((0.4, 0.3))
    assert generalization.agreement(t, q_a, q_b, tol=0.5) == pytest.approx((1.0, 0.3))   # never apart: t[-1]
    assert generalization.agreement(t, q_b, q_a, tol=0.1) == pytest.approx((0.4, 0.3))   # symmetric in a, b
    q_b[7, 0] = -0.9                                      # a larger negative gap elsewhere
    assert generalization.agreement(t, q_a, q_b, tol=0.1) == pytest.approx((0.4, 0.9))
