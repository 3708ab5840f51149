"""Data from the truth and the metrics a learner and a grader call."""
import numpy as np
import pytest

from lesson_lib import (
    DeLaN,
    double_pendulum,
    facts,
    lesson_check,
    mass_matrix_error,
    min_eigenvalue,
    part_errors,
    rollout,
    sample_trajectories,
    sample_uniform,
    torque_nmse,
    torus_grid,
)

chain = double_pendulum()


class TruthAsModel:
    """The RNEA dressed as a model: every metric must call it perfect."""
    n_dof = 2
    mass_matrix = staticmethod(chain.mass_matrix)
    inverse_dynamics = staticmethod(chain.rnea)

    @staticmethod
    def parts(q, qd, qdd):
        return {"M_qdd": np.einsum("bij,bj->bi", chain.mass_matrix(q), qdd), "c": chain.coriolis(q, qd),
                "g": chain.gravity(q)}


def test_uniform_samples_are_seeded_in_their_boxes_and_consistent():
    a, b = sample_uniform(chain, 500, seed=4), sample_uniform(chain, 500, seed=4)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
        assert a[k].shape == (500, 2)
    assert np.abs(a["q"]).max() <= np.pi and np.abs(a["qd"]).max() <= facts.QD_MAX
    assert np.abs(a["qdd"]).max() <= facts.QDD_MAX
    np.testing.assert_allclose(chain.rnea(a["q"], a["qd"], a["qdd"]), a["tau"], atol=1e-12)
    noisy = sample_uniform(chain, 20000, seed=4, noise=0.5)
    residual = noisy["tau"] - chain.rnea(noisy["q"], noisy["qd"], noisy["qdd"])
    assert residual.std() == pytest.approx(0.5, rel=0.03)


def test_trajectory_samples_satisfy_the_dynamics():
    d = sample_trajectories(chain, n_traj=3, duration=1.0, dt=0.01, seed=1)
    assert d["q"].shape == (3 * 101, 2)
    np.testing.assert_allclose(chain.rnea(d["q"], d["qd"], d["qdd"]), d["tau"], atol=1e-9)
    assert np.ptp(d["q"]) > 0.1                         # it moved


def test_trajectory_samples_say_which_trajectory_and_time_they_belong_to():
    """Rows are trajectory-major; re-running RK4 from each trajectory's first sample with its recorded torques
    (held over each step) reproduces all its samples, so "traj", "t", order and tau agree."""
    d = sample_trajectories(chain, n_traj=3, duration=0.5, dt=0.01, seed=1)
    assert set(d) == {"q", "qd", "qdd", "tau", "traj", "t"}
    assert d["traj"].dtype.kind == "i" and d["traj"].shape == d["t"].shape == (3 * 51,)
    np.testing.assert_array_equal(d["traj"], np.repeat([0, 1, 2], 51))
    for k in range(3):
        rows = d["traj"] == k
        t, q, qd, tau = d["t"][rows], d["q"][rows], d["qd"][rows], d["tau"][rows]
        np.testing.assert_allclose(t, 0.01 * np.arange(51), atol=1e-12)
        _, q_again, qd_again = rollout(chain.forward_dynamics, q[0], qd[0], dt=0.01, steps=50,
                                       tau_fn=lambda tk, *_, tau=tau: tau[int(round(tk / 0.01))])
        np.testing.assert_allclose(q_again, q, atol=1e-12)
        np.testing.assert_allclose(qd_again, qd, atol=1e-12)
    assert set(sample_uniform(chain, 10)) == {"q", "qd", "qdd", "tau"}          # uniform data stay as they were


def test_metrics_call_the_truth_perfect_and_an_untrained_model_imperfect():
    d = sample_uniform(chain, 300, seed=2)
    truth = TruthAsModel()
    assert mass_matrix_error(truth, chain) == 0.0
    np.testing.assert_allclose(torque_nmse(truth, d), 0.0, atol=1e-20)
    assert all(v < 1e-12 for v in part_errors(truth, chain, d).values())
    assert lesson_check(truth, chain)["passed"]
    model = DeLaN(seed=0)
    assert mass_matrix_error(model, chain) > facts.PASS_MAX_ERROR
    assert np.all(torque_nmse(model, d) > 0.05)
    assert min_eigenvalue(model) > 0
    assert not lesson_check(model, chain)["passed"]


def test_torus_grid_covers_the_whole_circle():
    g = torus_grid(2)
    assert g.shape == (facts.GRID_POINTS**2, 2)
    assert g.min() == -np.pi and g.max() == np.pi
    assert torus_grid(3, points=5).shape == (125, 3)


def test_feedback_report_verdicts_and_hints(capsys):
    from lesson_course.feedback import report
    truth = TruthAsModel()
    truth.step = facts.STEPS_PER_PRESS
    report(truth, chain)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("PASS:") and len(out) == 1
    model = DeLaN(seed=0)
    report(model, chain)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("FAIL:") and "after 0 steps" in out[0]
    assert any("untrained" in line for line in out[1:]) and any("worst in M[" in line for line in out[1:])
