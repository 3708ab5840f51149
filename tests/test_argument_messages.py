"""Every checked argument of the public functions: a bad value is refused with a message that starts with the
argument's name, says what is expected and, where it offers an example (`e.g. seed=0`), the example works.

One row per argument: (id, call taking the argument's value, bad value, exception, start of the message).  The
message must START with the given text (so it names the argument exactly as the caller wrote it).  When the
message offers `e.g. NAME=VALUE` for that argument, the same call with VALUE must succeed: the hint's example is
checked against the function itself, not against a copy of the hint.
"""
import ast
import re

import numpy as np
import pytest

from lesson_lib import double_pendulum, sample_trajectories, sample_uniform, torus_grid
from lesson_lib.evaluation import audit, generalization, metrics
from lesson_lib.physics.integrators import energy_errors, rk4_step, simulate
from lesson_lib.validate import LimitExceeded

chain = double_pendulum()
Z = np.zeros(2)
DATA = sample_uniform(chain, 40, seed=3)


class Truth:
    """The RNEA dressed as a model of the double pendulum."""
    n_dof = 2

    def mass_matrix(self, q):
        return chain.mass_matrix(q)

    def inverse_dynamics(self, q, qd, qdd):
        return chain.rnea(q, qd, qdd)

    def parts(self, q, qd, qdd):
        return {"M_qdd": np.einsum("bij,bj->bi", chain.mass_matrix(q), qdd), "c": chain.coriolis(q, qd),
                "g": chain.gravity(q)}

    def potential(self, q):
        return chain.potential_energy(q)


truth = Truth()


def zero(q, qd):
    return np.zeros_like(q)
CHAIN = r"must be a PlanarChain such as double_pendulum\(\), got"
MODEL = r"must be a model such as DeLaN\(\) or BlackBox\(\), got"
WITH_M = r"must be a model with a mass matrix, such as DeLaN\(\)"

ROWS = [
    # ------------------------------------------------------------------ evaluation.audit
    ("audit count", lambda v: audit.audit(truth, scales=(1,), count=v), 0, ValueError, "count must be >= 1"),
    ("audit count limit", lambda v: audit.audit(truth, count=v), 300_000, LimitExceeded,
     r"count asks for 300,000 configurations of 2 joints, above the limit of 250,000 .*; \w"),
    ("audit seed", lambda v: audit.audit(truth, scales=(1,), count=5, seed=v), -1, ValueError, "seed must be >= 0"),
    ("audit scales", lambda v: audit.audit(truth, scales=v, count=5), 5, TypeError, "scales must be a list"),
    ("audit model", lambda v: audit.audit(v), "model", TypeError, "model " + MODEL),
    ("valid tol", lambda v: audit.is_valid_inertia(np.eye(2), tol=v), -1.0, ValueError, "tol must be >= 0"),
    ("valid M", lambda v: audit.is_valid_inertia(v), "M", TypeError, r"M must be one square matrix \(n, n\)"),
    ("report M", lambda v: audit.inertia_report(v), "M", TypeError, r"M must be square matrices of shape"),
    ("implied limit", lambda v: audit.implied_mass_matrix(truth, v, v, v), np.zeros((300_000, 2)), LimitExceeded,
     r"q, qd, qdd asks for 300,000 configurations .*; \w"),
    ("states n_dof", lambda v: audit.sample_states(v, 3, 0), 0, ValueError, "n_dof must be between 1 and 1000"),
    ("states n_dof high", lambda v: audit.sample_states(v, 3, 0), 1001, ValueError, "n_dof must be between"),
    ("states count", lambda v: audit.sample_states(2, v, 0), -1, ValueError, "count must be >= 0"),
    ("states count limit", lambda v: audit.sample_states(2, v, 0), 10**6, LimitExceeded,
     r"count asks for 1,000,000, above the limit of 500,000; \w"),
    ("states seed", lambda v: audit.sample_states(2, 3, v), -1, ValueError, "seed must be >= 0"),
    ("states scale", lambda v: audit.sample_states(2, 3, 0, scale=v), 0.0, ValueError, "scale must be > 0"),
    ("states qd_max", lambda v: audit.sample_states(2, 3, 0, qd_max=v), -1.0, ValueError, "qd_max must be >= 0"),
    ("states qdd_max", lambda v: audit.sample_states(2, 3, 0, qdd_max=v), -1.0, ValueError, "qdd_max must be >= 0"),
    ("sweep q", lambda v: audit.velocity_sweep(truth, v, [0.0, 1.0]), np.zeros((3, 2)), ValueError,
     r"q has shape \(3, 2\), expected \(2,\) for one state \(2 joints\)"),
    ("sweep joint", lambda v: audit.velocity_sweep(truth, Z, [0.0, 1.0], joint=v), 2, ValueError,
     r"joint must be between 0 and 1, got 2; a joint index 0\.\.1$"),
    ("sweep values", lambda v: audit.velocity_sweep(truth, Z, v), "fast", TypeError,
     r"qd_values must be a 1-D list of joint speeds"),
    ("print_audit rows", lambda v: audit.print_audit(v, "x"), [1], TypeError,
     r"rows must be the non-empty list of dicts that audit\(model\) returns, got list$"),
    ("print_audit row keys", lambda v: audit.print_audit(v, "x"), [{"scale": 1}], TypeError, r"rows must be"),
    # ------------------------------------------------------------------ evaluation.generalization
    ("half chain", lambda v: generalization.half_circle(v, DATA), "arm", TypeError, "chain " + CHAIN),
    ("half side", lambda v: generalization.half_circle(chain, DATA, v), 2, ValueError, r"side must be \+1 or -1"),
    ("test_set chain", lambda v: generalization.test_set(v, count=5), None, TypeError, "chain " + CHAIN),
    ("test_set speed", lambda v: generalization.test_set(chain, speed=v, count=5), -1, ValueError,
     "speed must be > 0"),
    ("test_set side", lambda v: generalization.test_set(chain, side=v, count=5), 0, ValueError,
     r"side must be \+1 or -1"),
    ("test_set count", lambda v: generalization.test_set(chain, count=v), 0, ValueError, "count must be >= 1"),
    ("test_set count limit", lambda v: generalization.test_set(chain, count=v), 10**6, LimitExceeded,
     r"count asks for 1,000,000, above the limit of 500,000; \w"),
    ("test_set seed", lambda v: generalization.test_set(chain, count=5, seed=v), -1, ValueError,
     "seed must be >= 0"),
    ("gen mme model", lambda v: generalization.implied_mass_matrix_error(v, chain, Z), 3, TypeError, "model " + MODEL),
    ("gen mme chain", lambda v: generalization.implied_mass_matrix_error(truth, v, Z), 3, TypeError, "chain " + CHAIN),
    ("models", lambda v: generalization.compare(v, chain, {"a": (1, 1)}), [truth], TypeError,
     r"models must be a non-empty dict \{name: model\}, e\.g\. \{'DeLaN': delan\}, got list$"),
    ("models entry", lambda v: generalization.compare({"t": v}, chain, {"a": (1, 1)}), "x", TypeError,
     r"models\['t'\] " + MODEL),
    ("compare chain", lambda v: generalization.compare({"t": truth}, v, {"a": (1, 1)}), "x", TypeError,
     "chain " + CHAIN),
    ("compare cases", lambda v: generalization.compare({"t": truth}, chain, v), [(1, 1)], TypeError,
     r"cases must be a non-empty dict .*, got list$"),
    ("compare cases empty", lambda v: generalization.compare({"t": truth}, chain, v), {}, TypeError,
     r"cases must be a non-empty dict"),
    ("speeds", lambda v: generalization.speed_curve({"t": truth}, chain, v), "fast", TypeError,
     "speeds must be a list of numbers"),
    ("energy q", lambda v: generalization.learned_energy(truth, v, Z), [0.0], ValueError, r"q has shape \(1,\)"),
    ("agreement t", lambda v: generalization.agreement(v, [[0.0]], [[0.0]]), "t", TypeError,
     r"t must be the times \(T,\) of the trajectories"),
    ("agreement q_a", lambda v: generalization.agreement([0.0], v, [[0.0]]), "q", TypeError,
     r"q_a must be a trajectory of angles \(T, n\) with T = 1"),
    ("agreement q_b", lambda v: generalization.agreement([0.0], [[0.0]], v), "q", TypeError,
     r"q_b must be a trajectory of angles \(T, n\) with T = 1"),
    ("agreement tol", lambda v: generalization.agreement([0.0], [[0.0]], [[0.0]], tol=v), -1.0, ValueError,
     r"tol must be > 0, got -1; \w"),
    ("print_comparison rows", lambda v: generalization.print_comparison(v), [{"x": 1}], TypeError,
     r"rows must be the non-empty list of dicts that compare\(\.\.\.\) returns, got list$"),
    # ------------------------------------------------------------------ evaluation.metrics
    ("grid n_dof", lambda v: torus_grid(v, points=2), 1001, ValueError, "n_dof must be between 1 and 1000"),
    ("grid points", lambda v: torus_grid(2, points=v), 0, ValueError, "points must be >= 1"),
    ("mme model", lambda v: metrics.mass_matrix_error(v, chain, Z), "x", TypeError, "model " + WITH_M),
    ("mme chain", lambda v: metrics.mass_matrix_error(truth, v, Z), "x", TypeError, "chain " + CHAIN),
    ("min_eig model", lambda v: metrics.min_eigenvalue(v, Z), "x", TypeError, "model " + WITH_M),
    ("nmse model", lambda v: metrics.torque_nmse(v, DATA), "x", TypeError, "model " + MODEL),
    ("parts model", lambda v: metrics.part_errors(v, chain, DATA), "x", TypeError, "model " + WITH_M),
    ("parts chain", lambda v: metrics.part_errors(truth, v, DATA), "x", TypeError, "chain " + CHAIN),
    ("lesson model", lambda v: metrics.lesson_check(v, chain), "x", TypeError, "model " + WITH_M),
    ("lesson chain", lambda v: metrics.lesson_check(truth, v), "x", TypeError, "chain " + CHAIN),
    ("compare M_hat", lambda v: metrics.compare_mass_matrices(v, np.eye(2)), "x", TypeError,
     r"M_hat must be mass matrices of shape \(n, n\) or \(G, n, n\)"),
    ("compare not square", lambda v: metrics.compare_mass_matrices(v, v), np.zeros((1, 2, 3)), ValueError,
     r"M_hat has shape \(1, 2, 3\) and M \(1, 2, 3\); both must be the same non-empty"),
    ("compare empty", lambda v: metrics.compare_mass_matrices(v, v), np.zeros((0, 2, 2)), ValueError,
     r"M_hat has shape \(0, 2, 2\)"),
    # ------------------------------------------------------------------ data.sampling
    ("uniform chain", lambda v: sample_uniform(v, 5), "x", TypeError, "chain " + CHAIN),
    ("uniform n_samples", lambda v: sample_uniform(chain, v), 0, ValueError, "n_samples must be >= 1"),
    ("uniform seed", lambda v: sample_uniform(chain, 5, seed=v), -1, ValueError, "seed must be >= 0"),
    ("uniform qd_max", lambda v: sample_uniform(chain, 5, qd_max=v), -1, ValueError, "qd_max must be >= 0"),
    ("uniform qdd_max", lambda v: sample_uniform(chain, 5, qdd_max=v), -1, ValueError, "qdd_max must be >= 0"),
    ("uniform noise", lambda v: sample_uniform(chain, 5, noise=v), -1, ValueError, "noise must be >= 0"),
    ("traj chain", lambda v: sample_trajectories(v), "x", TypeError, "chain " + CHAIN),
    ("traj n_traj", lambda v: sample_trajectories(chain, n_traj=v, duration=0.05), 0, ValueError,
     "n_traj must be >= 1"),
    ("traj seed", lambda v: sample_trajectories(chain, n_traj=1, duration=0.05, seed=v), -1, ValueError,
     "seed must be >= 0"),
    ("traj torque_amp", lambda v: sample_trajectories(chain, n_traj=1, duration=0.05, torque_amp=v), -1, ValueError,
     "torque_amp must be >= 0"),
    # ------------------------------------------------------------------ physics
    ("gravity q", lambda v: chain.gravity(v), [0.0], ValueError, r"q has shape \(1,\), expected \(2,\)"),
    ("simulate step", lambda v: simulate(v, zero, Z, Z, 0.1, 2), "rk4", TypeError,
     r"step must be a function step\(f, q, qd, dt\) -> \(q_new, qd_new\), e\.g\. rk4_step, got 'rk4'"),
    ("simulate f", lambda v: simulate(rk4_step, v, Z, Z, 0.1, 2), 3, TypeError,
     r"f must be a function f\(q, qd\) -> qdd, got 3 \(int\)$"),
    ("simulate q0", lambda v: simulate(rk4_step, zero, v, Z, 0.1, 2), "q", TypeError, r"q0 must be a state"),
    ("simulate qd0", lambda v: simulate(rk4_step, zero, Z, v, 0.1, 2), [0.0], ValueError,
     r"qd0 has shape \(1,\), expected \(2,\)"),
    ("simulate recording", lambda v: simulate(rk4_step, zero, v, v, 0.1, 1000), np.zeros((1000, 2)), LimitExceeded,
     r"recording \(steps \+ 1\) x 1000 states asks for 1,001,000, above the limit of 500,000; \w"),
    ("energy qd0", lambda v: energy_errors(chain, Z, v), np.zeros((3, 2)), ValueError,
     r"qd0 has shape \(3, 2\), expected \(2,\) for one state"),
    ("traj samples limit", lambda v: sample_trajectories(chain, n_traj=v, duration=100), 1000, LimitExceeded,
     r"n_traj x \(steps \+ 1\) samples asks for 10,001,000, above the limit of 500,000; \w"),
]
EXAMPLE = re.compile(r"e\.g\. (\w+)=([-+\w.]+)")


@pytest.mark.parametrize("call, bad, error, start", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_a_bad_argument_is_named_first_and_the_example_in_the_message_works(call, bad, error, start):
    with pytest.raises(error) as info:
        call(bad)
    message = str(info.value)
    assert re.match(start, message), message
    name = re.match(r"[\w\[\]']+", message)[0]
    for hinted, value in EXAMPLE.findall(message):
        if hinted == name:
            call(ast.literal_eval(value))          # the example the message offers is accepted


HINTED = ["audit count", "audit seed", "states n_dof", "states count", "states seed", "states scale", "states qd_max",
          "states qdd_max", "test_set speed", "test_set count", "test_set seed", "grid n_dof", "grid points",
          "uniform n_samples", "uniform seed", "uniform qd_max", "uniform qdd_max", "uniform noise", "traj n_traj",
          "traj seed", "valid tol", "audit scales", "speeds"]


@pytest.mark.parametrize("row", HINTED)
def test_the_message_gives_an_example_of_a_good_value(row):
    _, call, bad, error, start = next(r for r in ROWS if r[0] == row)
    with pytest.raises(error) as info:
        call(bad)
    name = re.match(r"\w+", str(info.value))[0]
    assert re.search(rf"e\.g\. {name}=", str(info.value)), str(info.value)
