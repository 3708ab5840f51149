"""The course's colours, one home: the Bench and the notebooks' figures (lesson_course.ui.plots).

Checked by tests/test_bench.py: every colour for text, or under white text, has a contrast ratio >= 4.5:1 against
white (WCAG 2 AA, `contrast_ratio`); under simulated deuteranopia and protanopia (`simulate_cvd`) LEARNED turns
bluish and TRUE yellowish, so they differ in hue, not only lightness.  Learned lines are dashed, true solid.
The course text calls LEARNED "teal" and TRUE "gold"."""
import numpy as np
from matplotlib.colors import to_rgb

LEARNED = "#007a8a"          # teal: the learned M (DeLaN)
TRUE = "#946b00"             # dark gold: the true M (RNEA)
BLACK_BOX = "#4b4b4b"        # grey: the black-box MLP
OTHER = ("#b33c00", "#1f4e99", "#333333")   # further series: vermillion, blue, near-black
TEXT = "#333333"             # ordinary text the Bench writes (messages)

PASS = "#1b6e3a"             # badge and Train button backgrounds, white text on each
FAIL = "#b3261e"             # also the colour of error messages
RUNNING = "#1f4e99"          # the badge while training runs
BUSY = "#5c5c5c"             # the Train button while training runs
TRACK, TRACK_EDGE = "#e6e6e6", "#767676"    # the progress bar's empty track and its edge (>= 3:1 on white)

EIGEN_MAP = "viridis"        # colour map of the smallest-eigenvalue map
MARKER_FACE, MARKER_EDGE = "white", "black"

# Simulation of dichromacy, Machado, Oliveira & Fernandes (2009), severity 1, applied to linear RGB.
_MACHADO = {
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
}


def _linear(rgb):
    """sRGB in [0, 1] -> linear RGB (the sRGB transfer curve)."""
    rgb = np.asarray(rgb, dtype=float)
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def _srgb(linear):
    linear = np.clip(linear, 0.0, 1.0)
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)


def relative_luminance(color):
    """WCAG 2 relative luminance of a colour (any matplotlib colour spec): 0 for black, 1 for white."""
    return float(_linear(to_rgb(color)) @ [0.2126, 0.7152, 0.0722])


def contrast_ratio(foreground, background="white"):
    """WCAG 2 contrast ratio (L_light + 0.05) / (L_dark + 0.05), from 1 (none) to 21 (black on white)."""
    light, dark = sorted((relative_luminance(foreground), relative_luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def simulate_cvd(rgb, kind):
    """What a learner with `kind` ("deuteranopia" or "protanopia") sees: sRGB values in [0, 1], shape (..., 3),
    mapped through linear RGB by Machado et al.'s matrix.  Used on single colours and on screenshots."""
    return _srgb(_linear(rgb) @ _MACHADO[kind].T)


def lab(rgb):
    """CIE L*a*b* (D65) of sRGB values in [0, 1], shape (..., 3): L* lightness, a* green-red, b* blue-yellow."""
    xyz = _linear(rgb) @ np.array([[0.4124, 0.3576, 0.1805],
                                   [0.2126, 0.7152, 0.0722],
                                   [0.0193, 0.1192, 0.9505]]).T / [0.95047, 1.0, 1.08883]
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)
