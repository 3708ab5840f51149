"""Learned models: the Deep Lagrangian Network, the black box foil, and what they are built from.

Read in this order: `definition` (the DeLaN's whole loss in plain autograd, readable and slow),
`delan` (DeLaN: the same loss as `DeLaN.loss`, and M, c, g, tau at any state), `blackbox` (the foil),
`training` (fit: state, the divergence guard, best weights; `training_data`, `validation`, `schedule`),
`optimizers` (Adam, SGD), `model_file` (save/load), `activations` (the table of hidden activations), `verlet`
(training from recorded positions through Störmer–Verlet, no q̈: fit_verlet).

`fast/` is the fast path the DeLaN trains with, tested equal to `definition`: `fast.loss` (the training loss as
one autograd primitive), built from `fast.jet` (the network with its q-derivatives, forward and reverse),
`fast.quadratic` (the torque as a quadratic form in the jet, for up to 3 joints) and `fast.manipulator` (from L
and V to M, c, g and tau for any arm), `fast.primitive` (how a fused primitive's forward pass hands its pieces to
its reverse pass), `fast.settings` (BLAS threads and glibc's allocator during training).
"""
from .blackbox import BlackBox
from .delan import DeLaN
from .optimizers import SGD, Adam
from .training import TrainingDiverged

__all__ = ["DeLaN", "BlackBox", "TrainingDiverged", "Adam", "SGD"]
