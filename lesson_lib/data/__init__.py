"""Inverse-dynamics data (q, qd, qdd) -> tau from the truth: uniform samples and trajectories."""
from .sampling import sample_trajectories, sample_uniform

__all__ = ["sample_uniform", "sample_trajectories"]
