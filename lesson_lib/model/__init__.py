"""Learned models: the Deep Lagrangian Network, the black box foil, and what they are built from
(activations: the table of hidden activations; jet: the network with q-derivatives; structure: from L and V to
tau; handover: fused autograd primitives; optimizers: Adam and SGD; training: state, fit and the divergence
guard; training_data: what fit accepts; model_file: save/load; plain: the whole loss in plain autograd, readable and
slow, for the notebooks and the tests)."""
from .blackbox import BlackBox
from .delan import DeLaN
from .optimizers import SGD, Adam
from .training import TrainingDiverged

__all__ = ["DeLaN", "BlackBox", "TrainingDiverged", "Adam", "SGD"]
