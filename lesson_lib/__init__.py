"""lesson_lib: the library behind "Learn the structure, not the map" (Deep Lagrangian Networks)."""
from .chain import PlanarChain, double_pendulum, rollout

__all__ = ["PlanarChain", "double_pendulum", "rollout"]
