"""Hard limits of the model room, one home each: requests beyond them would hang or exhaust memory.

They raise lesson_lib._validate.LimitExceeded with the number asked for and the limit.  Each is generous for
every legitimate use in the course and its projects: 41 x 41 grids, 4096 training samples, 2000-point checks,
projects with up to ~100k samples, robots with up to a dozen joints, 2000-step presses.
"""

MAX_N_DOF = 12                  # joints: the jet has 1 + n rows and L's jet n^2 (1 + n) numbers per state
MAX_WEIGHTS = 5_000_000         # weights and biases of one network (40 MB each for theta, gradient, moments)
MAX_STEPS_PER_CALL = 200_000    # training steps per fit call (~2 min for the default network); call fit again
MAX_BATCH_SIZE = 131_072        # training minibatch
MAX_NUMBERS_PER_ARRAY = 50_000_000   # float64 numbers (400 MB) in the largest array one call may build


def max_states(n_dof, sizes):
    """States one call may evaluate (or train on at once): a call on B states builds arrays of up to
    B (1 + n) max(widest layer, n^2) numbers (the jet through the widest layer, L's jet)."""
    return MAX_NUMBERS_PER_ARRAY // ((1 + n_dof) * max(max(sizes), n_dof * n_dof))
