"""Inverse-dynamics data (q, qd, qdd) -> tau from the truth: uniform samples, trajectories, and letters written by
the arm (the DeLaN paper's kind of data)."""
from .letters import Handwriting, letters, strokes, write_letters, write_word
from .sampling import sample_trajectories, sample_uniform

__all__ = ["sample_uniform", "sample_trajectories", "letters", "write_letters", "write_word", "strokes", "Handwriting"]
