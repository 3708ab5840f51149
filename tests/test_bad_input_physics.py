"""Bad and edge inputs across the physics, data and evaluation rooms, one row each.

BAD rows: (id, call, exception type, regex the message must match).  The regex names the argument, and the
message must not come from inside numpy.  EDGE rows: (id, call, independent expected value): valid inputs at the
edge (empty batches, lists, a single state, one link) that must give the correct result.
"""
import itertools

import numpy as np
import pytest
from bad_input import assert_refused

from lesson_lib import (
    BlackBox,
    DeLaN,
    PlanarChain,
    double_pendulum,
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
from lesson_lib.evaluation import audit, generalization
from lesson_lib.evaluation.metrics import compare_mass_matrices
from lesson_lib.physics.integrators import energy_errors, euler_step, rk4_step, simulate, symplectic_euler_step
from lesson_lib.validate import LimitExceeded

chain = double_pendulum()
LINKS = dict(m=[1.0, 1.0], l=[1.0, 1.0], lc=[0.5, 0.5], I=[0.1, 0.1])


def links(**change):
    return PlanarChain(**{**LINKS, **change})


class Truth:
    """The RNEA dressed as a model of `chain` (any number of joints)."""

    def __init__(self, c=chain):
        self.c, self.n_dof = c, c.n_dof

    def mass_matrix(self, q):
        return self.c.mass_matrix(q)

    def inverse_dynamics(self, q, qd, qdd):
        return self.c.rnea(q, qd, qdd)

    def parts(self, q, qd, qdd):
        return {"M_qdd": np.einsum("bij,bj->bi", self.c.mass_matrix(q), qdd), "c": self.c.coriolis(q, qd),
                "g": self.c.gravity(q)}

    def potential(self, q):
        return self.c.potential_energy(q)


class NoPotential:
    n_dof = 2

    def mass_matrix(self, q):
        return chain.mass_matrix(q)


four = PlanarChain(m=[1.0] * 4, l=[1.0] * 4, lc=[0.5] * 4, I=[0.1] * 4)
three = PlanarChain(m=[1.0] * 3, l=[1.0] * 3, lc=[0.5] * 3, I=[0.1] * 3)
data = sample_uniform(chain, 50, seed=1)


def with_(**change):
    return {**data, **change}


def zero_dynamics(q, qd):
    return np.zeros_like(q)


fd = chain.forward_dynamics
Z = np.zeros(2)

BAD = [
    # --------------------------------------------------------------- PlanarChain and double_pendulum
    ("g str", lambda: links(g="abc"), TypeError, r"g must be a number, got 'abc'"),
    ("g None", lambda: links(g=None), TypeError, r"g must be a number, got None"),
    ("g bool", lambda: links(g=True), TypeError, r"g must be a number, got True"),
    ("g nan", lambda: links(g=np.nan), ValueError, r"g must be a finite number"),
    ("g negative", lambda: links(g=-9.81), ValueError, r"g must be >= 0.*magnitude of gravity.*g=9\.81"),
    ("m str", lambda: links(m="ab"), TypeError, r"m must be a list of numbers, one per link, got 'ab'"),
    ("m None", lambda: links(m=None), TypeError, r"m must be a list of numbers"),
    ("m complex", lambda: links(m=[1 + 1j, 1.0]), TypeError, r"m must be .*complex numbers"),
    ("m bool", lambda: links(m=[True, True]), TypeError, r"m must be .*booleans"),
    ("m 2-D", lambda: links(m=[[1.0, 1.0]]), ValueError, r"m has shape \(1, 2\)"),
    ("m negative", lambda: links(m=[1.0, -1.0]), ValueError, r"m must be > 0 \(kg\) .*link 2: -1"),
    ("l zero", lambda: links(l=[1.0, 0.0]), ValueError, r"l must be > 0 \(m\)"),
    ("I negative", lambda: links(I=[0.1, -0.1]), ValueError, r"I must be >= 0"),
    ("lc nan", lambda: links(lc=[0.5, np.nan]), ValueError, r"lc contains NaN or inf"),
    ("lengths differ", lambda: links(l=[1.0]), ValueError, r"same length, got lengths \{'m': 2, 'l': 1"),
    ("no links", lambda: PlanarChain([], [], [], []), ValueError, r"at least one link"),
    ("singular link", lambda: links(lc=[0.5, 0.0], I=[0.1, 0.0]), ValueError,
     r"link 2 has no inertia about its joint \(I \+ m lc\^2 = 0.*keeps M\(q\) invertible.*I > 0"),
    ("dp m zero", lambda: double_pendulum(m=0), ValueError, r"m must be > 0"),
    ("dp l str", lambda: double_pendulum(l="1"), TypeError, r"l must be a number, got '1'"),
    ("dp g str", lambda: double_pendulum(g="abc"), TypeError, r"g must be a number"),
    ("gravity 'no'", lambda: chain.rnea(Z, Z, Z, gravity="no"), TypeError, r"gravity must be True or False, got 'no'"),
    ("gravity 0", lambda: chain.rnea(Z, Z, Z, gravity=0), TypeError, r"gravity must be True or False"),
    ("q bool", lambda: chain.rnea([True, False], Z, Z), TypeError, r"q must be numeric .*booleans"),
    ("qd complex", lambda: chain.rnea(Z, [1j, 0], Z), TypeError, r"qd must be numeric .*complex"),
    ("qdd overflow", lambda: chain.rnea(Z, Z, [1e308, -1e308]), ValueError, r"overflowed .*\|qdd\| = 1e\+308"),
    ("qd overflow", lambda: chain.kinetic_energy(Z, [1e200, 0.0]), ValueError, r"overflowed .*\|qd\| = 1e\+200"),
    ("M q shape", lambda: chain.mass_matrix([1.0, 2.0, 3.0]), ValueError, r"q has shape \(3,\), expected \(2,\)"),
    ("fd tau nan", lambda: chain.forward_dynamics(Z, Z, [np.nan, 0]), ValueError, r"tau contains NaN or inf"),
    ("fk q None", lambda: chain.forward_kinematics(None), TypeError, r"q must be numeric"),
    ("V q 3-D", lambda: chain.potential_energy(np.zeros((1, 1, 2))), ValueError, r"q has shape \(1, 1, 2\)"),
    ("E batches", lambda: chain.total_energy(np.zeros((3, 2)), np.zeros((4, 2))), ValueError,
     r"batch sizes disagree"),
    # --------------------------------------------------------------- integrators
    ("rollout dt too large", lambda: rollout(fd, [0.5, 0.3], Z, dt=1.0), ValueError,
     r"blew up at step \d+ of 500 \(starting at t = \d+ s\).*dt = 1 s is too large.*smaller dt"),
    ("rollout dynamics nan", lambda: rollout(lambda q, qd, tau: np.full(2, np.nan), Z, Z, dt=0.1), ValueError,
     r"blew up at step 1 of 500 .*reached nan.*dt = 0\.1 s is too large"),
    ("rollout steps<0", lambda: rollout(fd, Z, Z, steps=-5), ValueError, r"steps must be >= 0, got -5"),
    ("rollout steps 1.5", lambda: rollout(fd, Z, Z, steps=1.5), TypeError, r"steps must be a whole number, got 1\.5"),
    ("rollout steps None", lambda: rollout(fd, Z, Z, steps=None), TypeError, r"steps must be a whole number"),
    ("rollout steps limit", lambda: rollout(fd, Z, Z, steps=10**6), LimitExceeded,
     r"steps asks for 1,000,000, above the limit of 50,000"),
    ("rollout recording limit", lambda: rollout(fd, np.zeros((1000, 2)), np.zeros((1000, 2)), steps=1000),
     LimitExceeded, r"recording \(steps \+ 1\) x 1000 states asks for 1,001,000"),
    ("rollout dt 0", lambda: rollout(fd, Z, Z, dt=0), ValueError, r"dt must be > 0, got 0"),
    ("rollout dt str", lambda: rollout(fd, Z, Z, dt="0.01"), TypeError, r"dt must be a number"),
    ("rollout dt nan", lambda: rollout(fd, Z, Z, dt=np.nan), ValueError, r"dt must be a finite number"),
    ("rollout fd not callable", lambda: rollout(chain, Z, Z), TypeError,
     r"forward_dynamics must be a function forward_dynamics\(q, qd, tau\)"),
    ("rollout q0 joints", lambda: rollout(fd, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]), ValueError,
     r"q0 has 3 entries per state .*n_dof = 2"),
    ("rollout model joints", lambda: rollout(DeLaN(n_dof=3).forward_dynamics, Z, Z), ValueError,
     r"q0 has 2 entries per state but forward_dynamics belongs to a system with n_dof = 3"),
    ("rollout qd0 shape", lambda: rollout(fd, np.zeros((2, 2)), Z), ValueError, r"qd0 has shape \(2,\) but q0"),
    ("rollout q0 nan", lambda: rollout(fd, [np.nan, 0.0], Z), ValueError, r"q0 contains NaN"),
    ("rollout tau_fn shape", lambda: rollout(fd, Z, Z, tau_fn=lambda t, q, qd: np.zeros(3)), ValueError,
     r"tau_fn\(t, q, qd\) returned shape \(3,\), expected \(2,\)"),
    ("rollout tau_fn nan", lambda: rollout(fd, Z, Z, tau_fn=lambda t, q, qd: [np.nan, 0]), ValueError,
     r"tau_fn\(t, q, qd\) contains NaN"),
    ("rollout tau_fn not callable", lambda: rollout(fd, Z, Z, tau_fn=[1.0, 0.0]), TypeError,
     r"tau_fn must be a function"),
    ("rk4 f not callable", lambda: rk4_step("f", Z, Z, 0.1), TypeError, r"f must be a function f\(q, qd\) -> qdd"),
    ("rk4 f nan", lambda: rk4_step(lambda q, qd: np.full(2, np.nan), Z, Z, 0.1), ValueError,
     r"the integration blew up: .*reached nan.*dt = 0\.1 s"),
    ("euler q str", lambda: euler_step(zero_dynamics, "q", Z, 0.1), TypeError, r"q must be a state"),
    ("symplectic dt<0", lambda: symplectic_euler_step(zero_dynamics, Z, Z, -0.1), ValueError, r"dt must be > 0"),
    ("rk4 f wrong shape", lambda: rk4_step(lambda q, qd: np.zeros(3), Z, Z, 0.1), ValueError,
     r"dynamics returned qdd of shape \(3,\), expected \(2,\)"),
    ("euler q scalar", lambda: euler_step(zero_dynamics, 1.0, 0.0, 0.1), ValueError,
     r"q has shape \(\), expected a state of shape \(n,\)"),
    ("simulate step", lambda: simulate(None, zero_dynamics, Z, Z, 0.1, 3), TypeError, r"step must be a function"),
    ("simulate steps str", lambda: simulate(rk4_step, zero_dynamics, Z, Z, 0.1, "10"), TypeError,
     r"steps must be a whole number, got '10'"),
    ("energy duration<dt", lambda: energy_errors(chain, Z, Z, dt=0.01, duration=0.001), ValueError,
     r"duration = 0\.001 s is shorter than one step dt = 0\.01 s"),
    ("energy duration limit", lambda: energy_errors(chain, Z, Z, dt=0.01, duration=1e6), LimitExceeded,
     r"duration / dt = 1e\+06 / 0\.01 asks for 100,000,000"),
    ("energy q0 batch", lambda: energy_errors(chain, np.zeros((3, 2)), np.zeros((3, 2))), ValueError,
     r"q0 has shape \(3, 2\), expected \(2,\) for one state"),
    ("energy chain", lambda: energy_errors("pendulum", Z, Z), TypeError, r"chain must be a PlanarChain"),
    # --------------------------------------------------------------- data
    ("n_samples 0", lambda: sample_uniform(chain, 0), ValueError, r"n_samples must be >= 1, got 0"),
    ("n_samples<0", lambda: sample_uniform(chain, -5), ValueError, r"n_samples must be >= 1, got -5"),
    ("n_samples 2.7", lambda: sample_uniform(chain, 2.7), TypeError, r"n_samples must be a whole number, got 2\.7"),
    ("n_samples limit", lambda: sample_uniform(chain, 10**7), LimitExceeded,
     r"n_samples asks for 10,000,000, above the limit of 500,000"),
    ("seed<0", lambda: sample_uniform(chain, 10, seed=-1), ValueError, r"seed must be >= 0, got -1"),
    ("seed None", lambda: sample_uniform(chain, 10, seed=None), TypeError, r"seed must be a whole number"),
    ("noise nan", lambda: sample_uniform(chain, 10, noise=np.nan), ValueError, r"noise must be a finite number"),
    ("noise<0", lambda: sample_uniform(chain, 10, noise=-0.1), ValueError, r"noise must be >= 0"),
    ("qd_max str", lambda: sample_uniform(chain, 10, qd_max="3"), TypeError, r"qd_max must be a number"),
    ("chain None", lambda: sample_uniform(None), TypeError, r"chain must be a PlanarChain .*lacks n_dof"),
    ("n_traj 0", lambda: sample_trajectories(chain, n_traj=0), ValueError, r"n_traj must be >= 1"),
    ("traj dt 0", lambda: sample_trajectories(chain, dt=0), ValueError, r"dt must be > 0"),
    ("traj duration<0", lambda: sample_trajectories(chain, duration=-1), ValueError, r"duration must be > 0"),
    ("traj sample limit", lambda: sample_trajectories(chain, n_traj=1000, duration=100), LimitExceeded,
     r"n_traj x \(steps \+ 1\) samples asks for 10,001,000"),
    ("traj torque_amp<0", lambda: sample_trajectories(chain, torque_amp=-1), ValueError, r"torque_amp must be >= 0"),
    ("traj dt too large", lambda: sample_trajectories(chain, n_traj=2, duration=40, dt=2.0), ValueError,
     r"blew up at step .*dt = 2 s is too large"),
    # --------------------------------------------------------------- metrics
    ("grid points 0", lambda: torus_grid(2, points=0), ValueError, r"points must be >= 1, got 0"),
    ("grid points<0", lambda: torus_grid(2, points=-3), ValueError, r"points must be >= 1, got -3"),
    ("grid n_dof str", lambda: torus_grid("two"), TypeError, r"n_dof must be a whole number, got 'two'"),
    ("grid n_dof 2.7", lambda: torus_grid(2.7), TypeError, r"n_dof must be a whole number, got 2\.7"),
    ("grid n_dof huge", lambda: torus_grid(10**7, points=2), ValueError, r"n_dof must be between 1 and 1000"),
    ("grid 4 joints", lambda: torus_grid(4), LimitExceeded,
     r"a 41\^4 torus grid asks for 2,825,761 configurations of 4 joints, above the limit of 62,500.*"
     r"use points <= 15 for 4 joints \(15\^4 = 50,625"),
    ("lesson_check 4 joints", lambda: lesson_check(Truth(four), four), LimitExceeded,
     r"41\^4 torus grid .*made for 2 joints.*random configurations.*mass_matrix_error\(model, chain, q\)"),
    ("lesson_check dof", lambda: lesson_check(Truth(three), chain), ValueError,
     r"model has n_dof = 3 but chain has 2 joints; .*DeLaN\(n_dof=2\)"),
    ("lesson_check BlackBox", lambda: lesson_check(BlackBox(), chain), TypeError,
     r"model must be a model with a mass matrix, such as DeLaN\(\).*BlackBox.*lacks mass_matrix"),
    ("lesson_check model None", lambda: lesson_check(None, chain), TypeError,
     r"model must be a model with a mass matrix"),
    ("lesson_check chain str", lambda: lesson_check(Truth(), "double"), TypeError, r"chain must be a PlanarChain"),
    ("mme q empty", lambda: mass_matrix_error(Truth(), chain, np.zeros((0, 2))), ValueError,
     r"q holds no configurations"),
    ("mme q nan", lambda: mass_matrix_error(Truth(), chain, [np.nan, 0.0]), ValueError, r"q contains NaN"),
    ("mme q limit", lambda: mass_matrix_error(Truth(), chain, np.zeros((300_000, 2))), LimitExceeded,
     r"q asks for 300,000 configurations of 2 joints, above the limit of 250,000.*split q"),
    ("min_eig q shape", lambda: min_eigenvalue(Truth(), [0.0, 0.0, 0.0]), ValueError, r"q has shape \(3,\)"),
    ("nmse no tau", lambda: torque_nmse(Truth(), {k: data[k] for k in ("q", "qd", "qdd")}), ValueError,
     r"data lacks the key\(s\) 'tau'"),
    ("nmse data list", lambda: torque_nmse(Truth(), [data]), TypeError, r"data must be a dict of arrays"),
    ("nmse rows differ", lambda: torque_nmse(Truth(), with_(tau=data["tau"][:-1])), ValueError,
     r"arrays of data have different numbers of samples .*'tau': 49"),
    ("nmse zero variance", lambda: torque_nmse(Truth(), with_(tau=np.ones((50, 2)))), ValueError,
     r"data\['tau'\] does not vary on joint 0 .*tau = 1\b"),
    ("nmse one sample", lambda: torque_nmse(Truth(), {k: v[:1] for k, v in data.items()}), ValueError,
     r"data holds 1 sample\(s\), at least 2 needed"),
    ("nmse q bool", lambda: torque_nmse(Truth(), with_(q=data["q"] > 0)), TypeError,
     r"data\['q'\] must be numeric .*booleans"),
    ("nmse traj", lambda: torque_nmse(Truth(), with_(traj=np.zeros(3, int))), ValueError,
     r"data\['traj'\] must be \(50,\) whole numbers"),
    ("part_errors dof", lambda: part_errors(Truth(three), chain, data), ValueError, r"model has n_dof = 3"),
    ("part_errors q 1-D", lambda: part_errors(Truth(), chain, {"q": Z, "qd": Z, "qdd": Z}), ValueError,
     r"data\['q'\] has shape \(2,\), expected \(N, 2\)"),
    ("compare shapes", lambda: compare_mass_matrices(np.zeros((3, 2, 2)), np.zeros((4, 2, 2))), ValueError,
     r"M_hat has shape \(3, 2, 2\) and M \(4, 2, 2\)"),
    ("compare M_hat nan", lambda: compare_mass_matrices(np.full((1, 2, 2), np.nan), np.zeros((1, 2, 2))),
     ValueError, r"M_hat contains NaN"),
    ("compare M str", lambda: compare_mass_matrices(np.eye(2), "M"), TypeError, r"M must be mass matrices"),
    # --------------------------------------------------------------- audit and generalisation
    ("audit count 0", lambda: audit.audit(Truth(), count=0), ValueError, r"count must be >= 1, got 0"),
    ("audit scales empty", lambda: audit.audit(Truth(), scales=()), ValueError,
     r"scales must hold at least one number"),
    ("audit scale<0", lambda: audit.audit(Truth(), scales=(1, -2)), ValueError, r"each entry of scales must be > 0"),
    ("audit scales int", lambda: audit.audit(Truth(), scales=5), TypeError, r"scales must be a list of numbers"),
    ("audit model None", lambda: audit.audit(None), TypeError, r"model must be a model such as DeLaN"),
    ("audit count limit", lambda: audit.audit(Truth(), count=10**6), LimitExceeded,
     r"count asks for 1,000,000 configurations of 2 joints, above the limit of 250,000"),
    ("valid M not square", lambda: audit.is_valid_inertia(np.zeros((2, 3))), ValueError, r"M has shape \(2, 3\)"),
    ("valid M nan", lambda: audit.is_valid_inertia([[np.nan, 0], [0, 1]]), ValueError, r"M contains NaN"),
    ("valid tol<0", lambda: audit.is_valid_inertia(np.eye(2), tol=-1), ValueError, r"tol must be >= 0"),
    ("report M shape", lambda: audit.inertia_report(np.zeros((3, 2))), ValueError, r"M has shape \(3, 2\)"),
    ("sweep joint", lambda: audit.velocity_sweep(Truth(), Z, [0.0, 1.0], joint=2), ValueError,
     r"joint must be between 0 and 1, got 2"),
    ("sweep values 2-D", lambda: audit.velocity_sweep(Truth(), Z, np.zeros((2, 2))), ValueError,
     r"qd_values has shape \(2, 2\)"),
    ("states count<0", lambda: audit.sample_states(2, -1, 0), ValueError, r"count must be >= 0, got -1"),
    ("states scale 0", lambda: audit.sample_states(2, 10, 0, scale=0), ValueError, r"scale must be > 0"),
    ("half side 0", lambda: generalization.half_circle(chain, data, 0), ValueError, r"side must be \+1 or -1, got 0"),
    ("half side str", lambda: generalization.half_circle(chain, data, "+"), TypeError, r"side must be \+1 or -1"),
    ("half no qdd", lambda: generalization.half_circle(chain, {"q": Z, "qd": Z, "tau": Z}), ValueError,
     r"data lacks the key\(s\) 'qdd'"),
    ("test_set speed 0", lambda: generalization.test_set(chain, speed=0), ValueError, r"speed must be > 0"),
    ("test_set count 0", lambda: generalization.test_set(chain, count=0), ValueError, r"count must be >= 1"),
    ("gen mme dof", lambda: generalization.implied_mass_matrix_error(Truth(three), chain, Z), ValueError,
     r"model has n_dof = 3"),
    ("compare models empty", lambda: generalization.compare({}, chain, {"a": (1, 1)}), TypeError,
     r"models must be a non-empty dict"),
    ("compare case pair", lambda: generalization.compare({"t": Truth()}, chain, {"x": 2}), ValueError,
     r"cases\['x'\] must be a pair \(speed, side\)"),
    ("speeds empty", lambda: generalization.speed_curve({"t": Truth()}, chain, []), ValueError,
     r"speeds must hold at least one number"),
    ("energy no potential", lambda: generalization.learned_energy(NoPotential(), Z, Z), TypeError,
     r"model must be a DeLaN \(a model with a potential\).*lacks potential"),
    ("agreement shapes", lambda: generalization.agreement(np.arange(3.0), np.zeros((3, 2)), np.zeros((4, 2))),
     ValueError, r"t has shape \(3,\), q_a \(3, 2\) and q_b \(4, 2\)"),
    ("agreement tol 0", lambda: generalization.agreement([0.0], [[0.0]], [[0.0]], tol=0), ValueError,
     r"tol must be > 0"),
    ("print_audit rows", lambda: audit.print_audit([], "x"), TypeError, r"rows must be the non-empty list"),
    ("print_comparison rows", lambda: generalization.print_comparison("x"), TypeError,
     r"rows must be the non-empty list"),
]

@pytest.mark.parametrize("call, error, pattern", [row[1:] for row in BAD], ids=[row[0] for row in BAD])
def test_bad_input_is_refused_with_a_clear_message(call, error, pattern):
    assert_refused(call, error, pattern)


# ---------------------------------------------------------------------- valid edge inputs: correct results
def closed_form_M(q):
    """Textbook M of the default double pendulum, (B, 2, 2)."""
    q = np.atleast_2d(q)
    c2 = np.cos(q[:, 1])
    M11, M12, M22 = 2 / 12 + 1.5 + c2, 1 / 12 + 0.25 + 0.5 * c2, np.full(len(q), 1 / 12 + 0.25)
    return np.stack([np.stack([M11, M12], -1), np.stack([M12, M22], -1)], -2)


def closed_form_g(q):
    """Textbook gravity torques of the default double pendulum, (B, 2)."""
    q = np.atleast_2d(q)
    s1, s12 = np.sin(q[:, 0]), np.sin(q[:, 0] + q[:, 1])
    return 9.81 * np.stack([1.5 * s1 + 0.5 * s12, 0.5 * s12], -1)


def closed_form_c(q, qd):
    """Textbook Coriolis and centrifugal torques of the default double pendulum, (B, 2)."""
    q, qd = np.atleast_2d(q), np.atleast_2d(qd)
    h = 0.5 * np.sin(q[:, 1])
    return np.stack([-h * (2 * qd[:, 0] * qd[:, 1] + qd[:, 1] ** 2), h * qd[:, 0] ** 2], -1)


empty = np.zeros((0, 2))
point_masses = PlanarChain(m=[1.0, 2.0], l=[1.0, 0.5], lc=[1.0, 0.5], I=[0.0, 0.0], g=9.81)

EDGE = [
    ("rnea empty batch", lambda: chain.rnea(empty, empty, empty), np.zeros((0, 2))),
    ("M empty batch", lambda: chain.mass_matrix(empty), np.zeros((0, 2, 2))),
    ("fd empty batch", lambda: chain.forward_dynamics(empty, empty, empty), np.zeros((0, 2))),
    ("energy empty batch", lambda: chain.total_energy(empty, empty), np.zeros(0)),
    ("M from a list", lambda: chain.mass_matrix([0.3, -1.2]), closed_form_M([0.3, -1.2])[0]),
    ("rnea one state, lists", lambda: chain.rnea([0.3, -1.2], [0, 0], [1, 0]),
     closed_form_M([0.3, -1.2])[0] @ [1, 0] + closed_form_g([0.3, -1.2])[0]),
    ("one link from scalars", lambda: PlanarChain(2.0, 1.0, 0.4, 0.1).mass_matrix([0.7]), [[0.1 + 2.0 * 0.16]]),
    ("g = 0 has no gravity", lambda: links(g=0).gravity([[0.3, 1.0], [1.0, -2.0]]), np.zeros((2, 2))),
    ("point masses (I = 0, lc = l)", lambda: point_masses.mass_matrix([0.0, 0.4]),
     # M11 = m1 l1^2 + m2 (l1^2 + l2^2 + 2 l1 l2 cos q2), M12 = m2 (l2^2 + l1 l2 cos q2), M22 = m2 l2^2
     [[1 + 2 * (1 + 0.25 + np.cos(0.4)), 2 * (0.25 + 0.5 * np.cos(0.4))], [2 * (0.25 + 0.5 * np.cos(0.4)), 0.5]]),
    ("grid of one point", lambda: torus_grid(1, points=1), [[-np.pi]]),
    ("grid 3 x 3", lambda: torus_grid(2, points=3), list(itertools.product([-np.pi, 0.0, np.pi], repeat=2))),
    ("grid 15^4 fits", lambda: torus_grid(4, points=15).shape, (15**4, 4)),
    ("rollout 0 steps", lambda: np.concatenate(rollout(fd, [0.3, 0.1], [0.0, 2.0], steps=0), axis=None),
     [0.0, 0.3, 0.1, 0.0, 2.0]),
    ("rollout at rest hanging", lambda: rollout(fd, Z, Z, dt=0.1, steps=5)[1], np.zeros((6, 2))),
    ("simulate a list batch", lambda: simulate(euler_step, zero_dynamics, [[0.0, 1.0]], [[1.0, 0.0]], 0.5, 2)[1],
     [[[0.0, 1.0]], [[0.5, 1.0]], [[1.0, 1.0]]]),
    ("one sample", lambda: (lambda d: d["tau"] - closed_form_M(d["q"])[0] @ d["qdd"][0] - closed_form_c(
        d["q"], d["qd"]) - closed_form_g(d["q"]))(sample_uniform(chain, 1)), np.zeros((1, 2))),
    ("static samples", lambda: (lambda d: d["tau"] - closed_form_g(d["q"]))(
        sample_uniform(chain, 20, qd_max=0, qdd_max=0)), np.zeros((20, 2))),
    ("nmse from lists", lambda: torque_nmse(Truth(), {k: v.tolist() for k, v in data.items()}), [0.0, 0.0]),
    ("mme one configuration", lambda: mass_matrix_error(Truth(), chain, [0.3, -1.2]), 0.0),
    ("compare one matrix", lambda: compare_mass_matrices(np.eye(2), np.eye(2) * 1.1),
     {"max_error": 0.1, "min_eig": 1.0, "passed": True}),
    ("report empty batch", lambda: [a.shape for a in audit.inertia_report(np.zeros((0, 2, 2)))], [(0,), (0,)]),
    ("states count 0", lambda: [a.shape for a in audit.sample_states(2, 0, 0)], [(0, 2)] * 3),
    ("implied M of a list", lambda: audit.implied_mass_matrix(Truth(), [0.3, -1.2], [0, 0], [0, 0]),
     closed_form_M([0.3, -1.2])[0]),
    ("half circle of lists", lambda: generalization.half_circle(chain, {k: v.tolist() for k, v in data.items()},
                                                               -1)["q"][:, 0], -np.abs(data["q"][:, 0])),
    ("agreement of one sample", lambda: generalization.agreement([0.0], [[0.0, 0.0]], [[0.0, 0.2]]), (0.0, 0.2)),
]


@pytest.mark.parametrize("call, expected", [row[1:] for row in EDGE], ids=[row[0] for row in EDGE])
def test_valid_edge_input_gives_the_correct_result(call, expected):
    got = call()
    if isinstance(expected, dict):
        assert got.keys() == expected.keys()
        for k in expected:
            assert got[k] == pytest.approx(expected[k], abs=1e-12)
    elif isinstance(expected, tuple) and all(isinstance(v, int) for v in expected):
        assert got == expected
    else:
        np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(expected, dtype=float), atol=1e-12)
        assert np.shape(got) == np.shape(expected)


def test_the_table_is_large_enough():
    assert len(BAD) >= 60 and len(EDGE) >= 20
