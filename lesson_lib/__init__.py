"""lesson_lib: the library behind "Learn the structure, not the map" (Deep Lagrangian Networks).

Rooms (one concern each; a later room uses the earlier ones, never a copy of them):

- physics/     PlanarChain, double_pendulum (the RNEA truth); integrators (rk4_step, rollout, Euler steppers)
- data/        inverse-dynamics data from the truth: uniform samples, trajectories, letters written by the arm;
               what the arm's sensors record, and q̇, q̈ estimated from it (sensors)
- model/       DeLaN (M = L L^T + eps I, g = dV/dq, c from dM/dq), BlackBox (the foil), DiagonalDeLaN (where the
               next structured model goes); definition (the model in plain autograd), fast (the same loss as one
               autograd node) and quadratic (the torque read off the network's jet); training by concern
               (trainable, training, adam, schedule, training_data, model_file): model/__init__.py draws one
               training step
- evaluation/  mass-matrix error over the torus, SPD margin, torque errors, the lesson's PASS check; audits
- control/     computed-torque and PD control of the true arm, tracking letters
- facts        the lesson's numbers (PASS threshold, grid size, default training settings), one home each
- limits       hard limits that keep a call from hanging or exhausting memory, one home each
- validate     the checks of every public function's arguments, and the messages that say what is wrong

The names below are the public API: `from lesson_lib import DeLaN, double_pendulum, ...`.  The science only: what
a notebook calls on top of it (checks, reveals, reviews, the Bench, figures) is lesson_course, and the teachers'
and graders' tools are lesson_tools; both import this package, which imports neither.
"""
from .data import sample_trajectories, sample_uniform
from .evaluation.metrics import lesson_check, mass_matrix_error, min_eigenvalue, part_errors, torque_nmse, torus_grid
from .model import BlackBox, DeLaN, TrainingDiverged
from .physics import PlanarChain, double_pendulum, rollout

__all__ = ["PlanarChain", "double_pendulum", "rollout", "DeLaN", "BlackBox", "TrainingDiverged",
           "sample_uniform", "sample_trajectories", "lesson_check", "mass_matrix_error", "min_eigenvalue",
           "part_errors", "torque_nmse", "torus_grid"]
