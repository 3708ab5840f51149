"""The rigid-body truth: planar chains by the recursive Newton–Euler algorithm, and time integrators."""
from .chain import PlanarChain, double_pendulum
from .integrators import rk4_step, rollout

__all__ = ["PlanarChain", "double_pendulum", "rk4_step", "rollout"]
