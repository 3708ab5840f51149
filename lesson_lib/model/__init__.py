"""Learned models: the Deep Lagrangian Network, the black box foil, and what they are built from.

Read in this order: `definition` (the DeLaN, one function per equation, in plain autograd: what `DeLaN`
computes with), `delan` (DeLaN: M, c, g, tau at any state, and its training loss), `blackbox` (the foil),
`training` (fit: state, the divergence guard, best weights; `training_data`, `validation`, `schedule`),
`optimizers` (Adam, SGD), `model_file` (save/load), `activations` (the table of hidden activations), `verlet`
(training from recorded positions through Störmer–Verlet, no q̈: fit_verlet).

`fast/` is the fast path the DeLaN trains with, behind one seam, `fast.fused.loss_and_grad(theta, architecture,
batch)`, tested equal to `definition.loss`: `fast.fused` (the loss and the network's jet as single autograd
nodes), `fast.jet` (each layer's forward and reverse pass on a jet), `fast.quadratic` (the definition's torque as a
quadratic form in the jet), `fast.settings` (one BLAS thread while training).
"""
from .blackbox import BlackBox
from .delan import DeLaN
from .optimizers import SGD, Adam
from .training import TrainingDiverged

__all__ = ["DeLaN", "BlackBox", "TrainingDiverged", "Adam", "SGD"]
