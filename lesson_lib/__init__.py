"""lesson_lib: the library behind "Learn the structure, not the map" (Deep Lagrangian Networks).

- chain:     PlanarChain, double_pendulum, rollout: the RNEA truth
- delan:     DeLaN: the structured model (M = L L^T, g = dV/dq, c from dM/dq)
- blackbox:  BlackBox: an MLP (q, qd, qdd) -> tau, the foil
- data:      sample_uniform, sample_trajectories: inverse-dynamics data from the truth
- metrics:   mass-matrix error over the torus, SPD margin, torque errors, the lesson's PASS check
"""
from .blackbox import BlackBox
from .chain import PlanarChain, double_pendulum, rollout
from .data import sample_trajectories, sample_uniform
from .delan import DeLaN
from .metrics import lesson_check, mass_matrix_error, min_eigenvalue, part_errors, torque_nmse, torus_grid
from .training import TrainingDiverged

__all__ = ["PlanarChain", "double_pendulum", "rollout", "DeLaN", "BlackBox", "TrainingDiverged",
           "sample_uniform", "sample_trajectories", "lesson_check", "mass_matrix_error", "min_eigenvalue",
           "part_errors", "torque_nmse", "torus_grid"]
