"""The lesson's numbers, one home each.

The library, the checks, the feedback, the Bench, the tests and the notebooks' text all read these.  In the
notebooks' markdown and in README.md a fact is written between markers, `<!--fact:NAME-->0.2<!--/fact-->`
(only the value shows once rendered), as `text(NAME)` writes it; `lesson-tools build` writes the
current value in, and `lesson-tools check` (run by the tests) fails while any marker holds a stale
value, or while prose writes a fact's value bare (lesson_tools.markers; a number that only looks like a fact is
marked `<!--not-fact-->batch 256<!--/not-fact-->`), or while a default in the code differs from its fact
(lesson_tools.build.FACT_DEFAULTS).
"""

# The lesson's PASS criterion: max |M_hat - M| < PASS_MAX_ERROR (kg m^2) over a GRID_POINTS x GRID_POINTS grid
# of the whole (q0, q1) torus, and the learned M's smallest eigenvalue > 0 at every grid point.
PASS_MAX_ERROR = 0.2
GRID_POINTS = 41

# The project in notebook 06 (a triple pendulum): PASS when max |M_hat - M| < TRIPLE_MAX_ERROR (kg m^2) on
# random configurations of the whole torus (its true M's entries reach about 6.8).
TRIPLE_MAX_ERROR = 0.3

# The training data the Bench and the notebooks use: N_SAMPLES inverse-dynamics samples with q on the whole
# torus, |qd| <= QD_MAX (rad/s) and |qdd| <= QDD_MAX (rad/s^2), drawn from SEED.
N_SAMPLES = 4096
QD_MAX = 3.0
QDD_MAX = 10.0
SEED = 0

# The default DeLaN and its training: chosen for what one press learns on held-out letters at about the cost per
# step of 2x32 at batch 128 (benchmarks/bench_learning_speed.py, issue 60; Adam averages its iterates,
# lesson_lib.model.adam).  One press of the Bench's Train button runs STEPS_PER_PRESS steps.
HIDDEN = (48,)
ACTIVATION = "isru"
EPS = 1e-3
LR = 1e-2
BATCH_SIZE = 320
STEPS_PER_PRESS = 2000
# L's entries read MASS_UNITS units of the last hidden layer of their own and V the others, as the authors' DeLaN keeps
# two networks (one for L, one for V): a narrow network for L learns M faster and generalises better
# (benchmarks/bench_learning_speed.py --ablation).  For two joints (3 entries of L) and HIDDEN's 48 units; another arm
# or width gets as many units per entry of L and per unit of width (12 of 48 for three joints).
MASS_UNITS = 6

# The DeLaN's potential is measured in units of POTENTIAL_SCALE joules (V = POTENTIAL_SCALE x the network's
# output), and fit holds out the fraction VALIDATION of the samples (whole trajectories when the data say which
# samples belong together) to keep the best weights and to lower the learning rate on plateaus and spikes
# (benchmarks/bench_trajectories.py).
POTENTIAL_SCALE = 20.0
VALIDATION = 0.05


def _number(v):
    return f"{v:g}"


def _layers(widths):
    widths = tuple(widths)
    return f"{len(widths)}×{widths[0]}" if len(set(widths)) == 1 else "–".join(map(str, widths))


# How prose writes each fact (the text between its markers), e.g. PASS_MAX_ERROR -> "0.2", GRID_POINTS ->
# "41 × 41" (the grid is square), HIDDEN -> "1×48" (layers × units).
FORMATS = {"PASS_MAX_ERROR": _number, "GRID_POINTS": lambda n: f"{n} × {n}", "N_SAMPLES": str, "QD_MAX": _number,
           "QDD_MAX": _number, "SEED": str, "HIDDEN": _layers, "ACTIVATION": str, "EPS": _number, "LR": _number,
           "BATCH_SIZE": str, "STEPS_PER_PRESS": str, "MASS_UNITS": str, "TRIPLE_MAX_ERROR": _number,
           "POTENTIAL_SCALE": _number, "VALIDATION": lambda f: f"{100 * f:g} %"}


def text(name):
    """The fact `name` as prose writes it, from its current value: text("PASS_MAX_ERROR") == "0.2".

    >>> text("PASS_MAX_ERROR"), text("GRID_POINTS"), text("HIDDEN")
    ('0.2', '41 × 41', '1×48')"""
    if name not in FORMATS:
        raise KeyError(f"no fact named {name!r}; the facts are {', '.join(FORMATS)}")
    return FORMATS[name](globals()[name])
