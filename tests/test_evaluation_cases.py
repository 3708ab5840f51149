"""Hand-worked cases for the evaluation room: exact boundaries, tables printed from made-up rows, fake models
whose implied mass matrix or parts are known by construction, and the grid-size advice checked against integer
arithmetic."""
import re

import numpy as np
import pytest

from lesson_lib import double_pendulum, facts
from lesson_lib.evaluation import audit, generalization, metrics
from lesson_lib.validate import LimitExceeded, max_configurations

chain = double_pendulum()


# ---------------------------------------------------------------------- audit
def test_is_valid_inertia_boundaries():
    assert audit.is_valid_inertia([[2.0]])                                   # a 1 x 1 inertia is valid
    assert not audit.is_valid_inertia([[0.0]])                               # singular: not positive-definite
    skew = [[1.0, 0.5], [0.25, 1.0]]                                         # |M - M^T| = 0.25 exactly
    assert audit.is_valid_inertia(skew, tol=0.25) and not audit.is_valid_inertia(skew, tol=0.125)
    tiny = np.eye(2) + [[0.0, 1e-10], [0.0, 0.0]]
    assert audit.is_valid_inertia(tiny) and not audit.is_valid_inertia(np.eye(2) + [[0.0, 1e-8], [0.0, 0.0]])


def test_inertia_report_of_one_matrix_and_of_one_by_one_matrices():
    asym, lam = audit.inertia_report([[2.0, 1.0], [0.0, 1.0]])
    # symmetric part [[2, 0.5], [0.5, 1]]: eigenvalues (3 -+ sqrt(2)) / 2
    assert asym == 1.0 and lam == pytest.approx((3 - np.sqrt(2)) / 2, abs=1e-12)
    asym, lam = audit.inertia_report([[[2.0]], [[-1.0]]])
    np.testing.assert_array_equal(asym, [0.0, 0.0])
    np.testing.assert_allclose(lam, [2.0, -1.0])
    with pytest.raises(ValueError, match=r"M has shape \(2, 2, 3\)"):
        audit.inertia_report(np.zeros((2, 2, 3)))


def test_print_audit_prints_a_header_and_one_rounded_row_per_scale(capsys):
    audit.print_audit([{"scale": 2, "max_asymmetry": 0.12345, "share_not_pd": 0.25, "min_eig": -0.5},
                       {"scale": 10, "max_asymmetry": 1.5, "share_not_pd": 1.0, "min_eig": 0.0}], "black box")
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and lines[0].startswith("black box: implied mass matrix d tau / d qdd at random states")
    assert re.search(r"range\s+max \|M - M\^T\|\s+not pos\.-def\.\s+smallest eig$", lines[1]), lines[1]
    assert re.fullmatch(r"\s+2x\s+0\.123\s+25\.0%\s+-0\.500", lines[2]), lines[2]
    assert re.fullmatch(r"\s+10x\s+1\.500\s+100\.0%\s+0\.000", lines[3]), lines[3]


class SpeedInertia:
    """A fake black box whose implied mass matrix is diag(qd): an 'inertia' that changes with the speed."""
    n_dof = 2

    def implied_mass_matrix(self, q, qd, qdd):
        qd = np.asarray(qd)
        return qd[..., :, None] * np.eye(2)


def test_velocity_sweep_sweeps_joint_0_by_default_and_the_joint_asked_for():
    values = [0.0, 1.5, -2.0]
    got = audit.velocity_sweep(SpeedInertia(), [0.3, -1.2], values)
    np.testing.assert_array_equal(got, [np.diag([v, 0.0]) for v in values])
    got = audit.velocity_sweep(SpeedInertia(), [0.3, -1.2], values, joint=1)
    np.testing.assert_array_equal(got, [np.diag([0.0, v]) for v in values])


def test_sample_states_fill_their_boxes():
    q, qd, qdd = audit.sample_states(2, 4000, 0)                            # scale 1: the training box
    for a, box in ((q, np.pi), (qd, facts.QD_MAX), (qdd, facts.QDD_MAX)):
        assert a.shape == (4000, 2) and np.abs(a).max() <= box and a.min() < -0.95 * box and a.max() > 0.95 * box
    _, qd, qdd = audit.sample_states(3, 4000, 1, scale=2.0, qd_max=1.0, qdd_max=4.0)
    assert qd.shape == (4000, 3) and np.abs(qd).max() <= 2.0 and qd.min() < -1.9 and qd.max() > 1.9
    assert np.abs(qdd).max() <= 8.0 and qdd.min() < -7.6 and qdd.max() > 7.6


# ---------------------------------------------------------------------- generalisation
def test_agreement_on_a_hand_made_pair_of_trajectories():
    t = [0.0, 0.1, 0.2, 0.3]
    q_a = np.full((4, 2), 1.0)
    q_b = q_a + [[0.0, 0.0], [0.05, 0.0], [0.0, -0.2], [0.3, 0.0]]
    assert generalization.agreement(t, q_a, q_b) == pytest.approx((0.2, 0.3))      # default tol 0.1 rad
    assert generalization.agreement(t, q_a, q_b, tol=0.25) == pytest.approx((0.3, 0.3))
    # exactly tol apart still agrees ("differs by MORE than tol")
    assert generalization.agreement(t, q_a, q_a + [[0.0, 0.125]] * 4, tol=0.125) == (0.3, 0.125)


def test_half_circle_keeps_the_velocities_and_recomputes_the_torques():
    data = {**generalization.sample_uniform(chain, 30, seed=5), "traj": np.arange(30)}
    folded = generalization.half_circle(chain, data, -1)
    assert set(folded) == set(data)
    np.testing.assert_array_equal(folded["qd"], data["qd"])
    np.testing.assert_array_equal(folded["qdd"], data["qdd"])
    np.testing.assert_array_equal(folded["traj"], data["traj"])
    np.testing.assert_allclose(folded["tau"], chain.rnea(folded["q"], data["qd"], data["qdd"]), atol=1e-12)


def test_test_set_defaults_are_the_training_box_on_the_positive_half():
    d = generalization.test_set(chain)
    assert d["q"].shape == (2000, 2) and d["q"][:, 0].min() >= 0
    assert np.abs(d["qd"]).max() <= facts.QD_MAX and np.abs(d["qd"]).max() > 0.95 * facts.QD_MAX
    assert np.abs(d["qdd"]).max() <= facts.QDD_MAX and np.abs(d["qdd"]).max() > 0.95 * facts.QDD_MAX


def test_speed_curve_uses_each_speed_and_the_side(monkeypatch):
    asked = []
    real = generalization.test_set

    def spy(chain, speed=1.0, side=+1, count=2000, seed=11):
        asked.append((speed, side, count))
        return real(chain, speed, side, 20, seed)
    monkeypatch.setattr(generalization, "test_set", spy)
    curve = generalization.speed_curve({"zero": ZeroModel()}, chain, [1, 3], side=-1)
    assert [a[:2] for a in asked] == [(1, -1), (3, -1)] and len(curve["zero"]) == 2


class ZeroModel:
    n_dof = 2

    def inverse_dynamics(self, q, qd, qdd):
        return np.zeros_like(np.asarray(q, float))


def test_print_comparison_prints_one_column_per_model(capsys):
    generalization.print_comparison([{"case": "2x speeds", "DeLaN": 1.234, "black box": 56.789},
                                     {"case": "other half", "DeLaN": 0.5, "black box": 100.0}])
    lines = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"test set\s+DeLaN\s+black box", lines[0]), lines[0]
    assert re.fullmatch(r"2x speeds\s+1\.23%\s+56\.79%", lines[1]), lines[1]
    assert re.fullmatch(r"other half\s+0\.50%\s+100\.00%", lines[2]), lines[2]


def test_learned_energy_of_one_state_is_a_number():
    class Truth:
        n_dof = 2
        mass_matrix, potential = staticmethod(chain.mass_matrix), staticmethod(chain.potential_energy)
    q, qd = np.array([0.3, -1.2]), np.array([1.0, 0.5])
    E = generalization.learned_energy(Truth(), q, qd)
    assert np.ndim(E) == 0 and E == pytest.approx(chain.total_energy(q, qd), abs=1e-12)


# ---------------------------------------------------------------------- metrics
def test_compare_mass_matrices_needs_strictly_below_the_threshold_and_strictly_positive(monkeypatch):
    monkeypatch.setattr(facts, "PASS_MAX_ERROR", 0.25)
    at = metrics.compare_mass_matrices([[1.25, 0.0], [0.0, 1.0]], np.eye(2))       # error exactly 0.25
    assert at["max_error"] == 0.25 and not at["passed"]
    below = metrics.compare_mass_matrices([[1.125, 0.0], [0.0, 1.0]], np.eye(2))
    assert below["passed"]
    singular = metrics.compare_mass_matrices(np.diag([1.0, 0.0]), np.diag([1.0, 0.0]))
    assert singular["min_eig"] == 0.0 and singular["max_error"] == 0.0 and not singular["passed"]


class OffsetParts:
    """The truth's parts, each shifted by a known constant: RMS errors 0.5 (M qdd), 0.25 (c), 1.0 (g)."""
    n_dof = 2

    def parts(self, q, qd, qdd):
        M = chain.mass_matrix(q)
        return {"M_qdd": np.einsum("bij,bj->bi", M, qdd) + 0.5, "c": chain.coriolis(q, qd) - 0.25,
                "g": chain.gravity(q) + 1.0}


def test_part_errors_are_root_mean_square_errors_of_each_term():
    errors = metrics.part_errors(OffsetParts(), chain, generalization.sample_uniform(chain, 25, seed=2))
    assert errors == pytest.approx({"M_qdd": 0.5, "c": 0.25, "g": 1.0}, abs=1e-12)


def test_the_default_grid_is_the_lessons():
    grid = metrics.torus_grid()
    assert grid.shape == (facts.GRID_POINTS ** 2, 2)
    assert grid[0].tolist() == [-np.pi, -np.pi] and grid[-1].tolist() == [np.pi, np.pi]


def _largest_fitting(n, limit):
    """The largest whole p with p ** n <= limit, by integer arithmetic."""
    p = 1
    while (p + 1) ** n <= limit:
        p += 1
    return p


@pytest.mark.parametrize("n_dof", [3, 4, 5, 8, 12])
def test_the_grid_advice_names_the_largest_grid_that_fits(n_dof):
    with pytest.raises(LimitExceeded) as info:
        metrics.torus_grid(n_dof, points=60)
    fit = _largest_fitting(n_dof, max_configurations(n_dof))
    assert f"use points <= {fit} for {n_dof} joints ({fit}^{n_dof} = {fit ** n_dof:,} configurations)" \
        in str(info.value)
    assert metrics.torus_grid(n_dof, points=fit).shape == (fit ** n_dof, n_dof)
    with pytest.raises(LimitExceeded):
        metrics.torus_grid(n_dof, points=fit + 1)


def test_the_grid_advice_survives_a_cube_root_that_rounds_down(monkeypatch):
    # 64 ** (1/3) is 3.9999999999999996 in floating point: the advice must still say 4 (4^3 = 64 fits)
    from lesson_lib import validate as _validate
    for module in (metrics, _validate):
        monkeypatch.setattr(module, "max_configurations", lambda n: 64)
    with pytest.raises(LimitExceeded, match=r"use points <= 4 for 3 joints \(4\^3 = 64 configurations\)"):
        metrics.grid_fits(3, 5)


def test_no_grid_advice_when_not_even_two_points_per_joint_fit():
    with pytest.raises(LimitExceeded) as info:
        metrics.torus_grid(13, points=2)                  # 2^13 = 8192 > 1,000,000 // 169 = 5917
    assert "points <=" not in str(info.value) and "random configurations" in str(info.value)
    with pytest.raises(LimitExceeded, match=r"use points <= 2 for 12 joints"):
        metrics.torus_grid(12, points=3)                  # 2^12 = 4096 <= 6944 < 3^12
