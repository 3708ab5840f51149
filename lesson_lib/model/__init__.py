"""Learned models: the Deep Lagrangian Network, the black-box foil, and what they are built from
(jet: the network with q-derivatives; structure: from L and V to tau; training: optimiser and guard)."""
from .blackbox import BlackBox
from .delan import DeLaN
from .training import TrainingDiverged

__all__ = ["DeLaN", "BlackBox", "TrainingDiverged"]
