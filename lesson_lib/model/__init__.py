"""Learned models: the Deep Lagrangian Network, the black box foil, and what they are built from.

Read in this order: `definition` (the DeLaN, one function per equation, in plain autograd: what `DeLaN` computes
with, and the table of activations), `delan` (DeLaN: M, c, g, tau at any state), `blackbox` (the foil), `training`
(fit: Adam, the validation split, the schedule, the divergence guard, best weights), `model_file` (save/load),
`verlet` (training from recorded positions through Störmer–Verlet, no q̈: fit_verlet), and `fast` (the same loss,
its gradient and the network's jet as single autograd nodes, tested equal to `definition.loss`).

One training step, six modules (facts and limits name the numbers):

    DeLaN.fit -> training.Trainable.fit -> _train:  minibatch, guard, Adam.step          training.py
                 DeLaN.batch_loss_and_grad                                                    delan.py
                 fast.loss_and_grad:  jet_forward -> quadratic_torque -> loss, and back  fast.py
                 the form's coefficients, read off definition.torque once per arm        definition.py
                 fit's arguments checked once, before the first step                     validate.py
"""
from .blackbox import BlackBox
from .delan import DeLaN
from .training import TrainingDiverged

__all__ = ["DeLaN", "BlackBox", "TrainingDiverged"]
