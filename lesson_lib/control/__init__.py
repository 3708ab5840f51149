"""Using a model for what models are for: computed-torque and PD control of the true arm (laws), and tracking a
joint reference such as a written word, with errors in the joints and at the pen (tracking)."""
from .laws import KD, KP, PD, ComputedTorque
from .tracking import TAU_MAX, Unstable, compare, print_comparison, track, tracking_errors

__all__ = ["ComputedTorque", "PD", "KP", "KD", "TAU_MAX", "track", "tracking_errors", "Unstable", "compare",
           "print_comparison"]
