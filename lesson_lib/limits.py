"""Every limit of the library, one home each.  Most are hard limits: requests beyond them would hang the kernel or
exhaust the memory of a learner's machine (Binder gives about 2 GB); each raises lesson_lib.validate.LimitExceeded
with the number asked for and the limit, and each is far above every use in the course and its projects (figures
from a 2-core machine).  The others bound a setting's range (EPS_MAX, POTENTIAL_SCALE_RANGE), say when a
simulation has diverged (MAX_SPEED), what the arm's motors can give (TAU_MAX) or which arms take a faster path
(MAX_QUADRATIC_JOINTS).
"""

# ---------------------------------------------------------------------- the truth, data and evaluation
# MAX_MATRIX_ENTRIES: configurations x n_dof^2 at which one call evaluates mass matrices (torus grids, metrics,
#   audits).  A DeLaN needs about 0.6 GB at the limit.  The course uses 1,681 configurations (41 x 41 grid) for 2
#   joints and 2,000 for 3; the limit allows 250,000 for 2 joints, 111,111 for 3 (a 41^3 grid), 62,500 for 4.
# MAX_STEPS: time steps per rollout or simulate call: about 20 s of RK4 on the double pendulum.  The course uses
#   a few hundred to a few thousand.
# MAX_SAMPLES: samples in one generated data set, and states recorded by one rollout (steps + 1 times the batch).
#   The course uses 4,096 uniform samples and trajectory sets of a few thousand.
# MAX_JOINTS: joints of a grid or of random states asked for by number (one mass matrix fits MAX_MATRIX_ENTRIES).
MAX_MATRIX_ENTRIES = 1_000_000
MAX_STEPS = 50_000
MAX_SAMPLES = 500_000
MAX_JOINTS = 1_000
# MAX_LETTERS: characters one write_letters or write_word call writes (each letter takes a few seconds of writing).
#   The course writes 15 training letters, 11 test letters and words of a few letters.
MAX_LETTERS = 200

# ---------------------------------------------------------------------- learned models
MAX_N_DOF = 12                  # joints of a model: the jet has 1 + n rows and L's jet n^2 (1 + n) numbers per state
MAX_WEIGHTS = 5_000_000         # weights and biases of one network (40 MB each for theta, gradient, moments)
MAX_STEPS_PER_CALL = 200_000    # training steps per fit call (~2 min for the default network); call fit again
MAX_BATCH_SIZE = 131_072        # training minibatch
MAX_NUMBERS_PER_ARRAY = 50_000_000   # float64 numbers (400 MB) in the largest array one model call may build
EPS_MAX = 1.0                   # kg m^2: a DeLaN's eps; above it eps I outweighs a robot arm's inertia
POTENTIAL_SCALE_RANGE = (1e-3, 1e4)  # J: a DeLaN's potential unit, from a toy arm's millijoules to an industrial arm's
MAX_QUADRATIC_JOINTS = 3        # joints up to which the fast path computes the torque as a quadratic form (its
                                # coefficients: 2,028 for 2 joints, 25,230 for 3, 188,160 for 4)

# ---------------------------------------------------------------------- control
MAX_TRACKING_STEPS = 100_000    # controller ticks per tracking simulation (1000 s at 100 Hz)
TAU_MAX = (50.0, 25.0)          # N m: the double pendulum's motor torque limits, about twice what writing needs
MAX_SPEED = 1e3                 # rad/s: a joint this fast means the simulated closed loop has gone unstable


def max_states(n_dof, layer_sizes):
    """States one model call may evaluate (or train on at once): a call on B states builds arrays of up to
    B (1 + n) max(widest layer, n^2) numbers (the jet through the widest layer, L's jet).

    >>> max_states(2, (4, 32, 32, 4))
    520833"""
    return MAX_NUMBERS_PER_ARRAY // ((1 + n_dof) * max(max(layer_sizes), n_dof * n_dof))
