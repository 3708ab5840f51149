"""fit's data: what it accepts, each sample's weight, the validation split, and the samples as the loss's batches.

    check_training_data(n, q, qd, qdd, tau)   the arrays and the torque scale, or a ValueError naming the problem
    sample_weights(qd, qdd)                   each sample's weight in the loss, mean 1
    split(N, traj, fraction, seed)            (train rows, validation rows)
    samples(...) -> rows (5n, N);  batch(rows, n) -> (q, qd, qdd, target, inv_scale), each (B, n)

Shapes, types and finiteness are validate.as_states's; a message says what is wrong and that the model was not
changed (fit checks before its first step).
"""
import numpy as np

from ..facts import POTENTIAL_SCALE
from ..validate import as_states, number, trajectory_ids

# Values a robot's data never reach (above DATA_LIMIT, in any unit) are refused with their units to check: the
# float32 step would overflow on them.
DATA_LIMIT = 1e6


def _not_trained(text):
    """fit's refusal of its data: a ValueError saying what is wrong and that nothing changed."""
    return ValueError(f"{text}.  The model was not changed.")


def check_training_data(n_dof, q, qd, qdd, tau, tau_scale=None):
    """(q, qd, qdd, tau) as float (N, n) arrays and the torque scale the loss divides by (the per-joint standard
    deviation, or the model's `tau_scale`), or ValueError saying what is wrong and the fix: at least 2 samples, no
    value beyond DATA_LIMIT, every joint's torque varies.

    >>> q = qd = qdd = np.zeros((2, 2))
    >>> check_training_data(2, q, qd, qdd, [[1.0, 2.0], [3.0, 6.0]])[-1]      # the torque scale: each joint's spread
    array([1., 2.])
    >>> check_training_data(2, q[:1], qd[:1], qdd[:1], [[1.0, 2.0]])
    Traceback (most recent call last):
    ValueError: training needs at least 2 samples (rows of q, qd, qdd, tau), got 1.  The model was not changed."""
    (q, qd, qdd, tau), _ = as_states(n_dof, q=q, qd=qd, qdd=qdd, tau=tau)
    N = len(q)
    if N < 2:
        raise _not_trained(f"training needs at least 2 samples (rows of q, qd, qdd, tau), got {N}")
    for name, x, unit in (("q", q, "rad"), ("qd", qd, "rad/s"), ("qdd", qdd, "rad/s^2"), ("tau", tau, "N m")):
        j = int(np.abs(x).max(axis=0).argmax())
        if np.abs(x[:, j]).max() > DATA_LIMIT:
            raise _not_trained(f"{name} reaches {np.abs(x[:, j]).max():.3g} {unit} (joint {j}), far beyond any "
                               f"robot's data (the float32 training step would overflow above about "
                               f"{DATA_LIMIT:g}): check the units of {name}")
    spread = tau.std(axis=0)
    for j in range(n_dof):
        if spread[j] <= 1e-12 * np.abs(tau[:, j]).max():
            raise _not_trained(f"the torques of joint {j} do not vary (tau[:, {j}] is {tau[0, j]:g} in all {N} "
                               f"samples): these data cannot teach the model how that torque depends on the state "
                               f"(the loss divides each joint's error by its torques' standard deviation); use "
                               f"samples from varied motions")
    return q, qd, qdd, tau, spread if tau_scale is None else np.asarray(tau_scale, dtype=float)


def sample_weights(qd, qdd, scale=POTENTIAL_SCALE):
    """Each sample's weight in the training loss, (N,), mean 1:

        w_i  proportional to  1 / (1 + (|qdd_i| / scale)^2 + (|qd_i|^2 / scale)^2),   scale = POTENTIAL_SCALE 1/s^2.

    A model off by a relative amount makes a torque error that grows like |qdd| (M qdd) and |qd|^2 (c): dividing
    by the expected size asks for the same relative accuracy everywhere, not just on the fastest samples.
    Validation uses no weights; benchmarks/bench_trajectories.py measures the effect.

    >>> sample_weights(np.zeros((2, 2)), np.array([[0.0, 0.0], [20.0, 0.0]]))     # |qdd| = scale: half the weight
    array([1.33333333, 0.66666667])"""
    speed2, accel = np.sum(qd * qd, axis=1), np.sqrt(np.sum(qdd * qdd, axis=1))
    w = np.reciprocal(1.0 + (accel / scale) ** 2 + (speed2 / scale) ** 2)
    return w / w.mean()


# ---------------------------------------------------------------------- the validation split
# The samples fit holds out to judge the weights, never to train on: with "traj" (one trajectory id per sample)
# whole trajectories, taken in a seeded order until they hold `fraction` of the samples (neighbours in time are
# nearly the same state); without it, single samples.  fraction 0 holds out nothing; otherwise at least one sample
# (trajectory) is held out and one left to train on.  The same arguments give the same rows, sorted int arrays,
# from their own generator (seed, stream 2).
def check_fraction(fraction):
    """The validation fraction as a float in [0, 0.5] (the validation set must stay the smaller part).

    >>> check_fraction(0.05)
    0.05"""
    return number("validation", fraction, low=0.0, high=0.5,
                  hint="the fraction of the samples held out to judge the weights, e.g. validation=0.05, or 0 for "
                       "none")


def split(n_samples, traj=None, fraction=0.05, seed=0):
    """(train_rows, validation_rows): sorted int arrays that partition range(n_samples); see the rules above.

    >>> split(10, fraction=0.2, seed=0)[1]
    array([2, 8])
    >>> split(6, traj=[0, 0, 1, 1, 2, 2], fraction=0.2)[1]                # one whole trajectory
    array([4, 5])"""
    fraction = check_fraction(fraction)
    traj = None if traj is None else trajectory_ids("traj", traj, n_samples)
    everything, nothing = np.arange(n_samples), np.zeros(0, dtype=int)
    if fraction == 0:
        return everything, nothing
    rng = np.random.default_rng([seed, 2])
    if traj is None:
        if n_samples < 2:
            raise ValueError(f"a validation split needs at least 2 samples, got {n_samples}; use validation=0")
        count = min(max(1, round(fraction * n_samples)), n_samples - 1)
        held = np.sort(rng.permutation(n_samples)[:count])
        return np.setdiff1d(everything, held), held
    ids, counts = np.unique(traj, return_counts=True)
    if len(ids) < 2:
        raise ValueError(f"a validation split by trajectory needs at least 2 trajectories, got {len(ids)} "
                         f"(traj is {ids[0] if len(ids) else 'empty'} throughout); record more trajectories, or "
                         f"use validation=0 to train on all samples without validation")
    order = rng.permutation(len(ids))
    taken = np.searchsorted(np.cumsum(counts[order]), fraction * n_samples) + 1   # the prefix reaching fraction
    held_ids = ids[order[:min(taken, len(ids) - 1)]]
    mask = np.isin(traj, held_ids)
    return everything[~mask], everything[mask]


# ---------------------------------------------------------------------- the samples as the loss's batches
def samples(q, qd, qdd, tau, root_weight, tau_scale, dtype):
    """The samples as rows (5n, N) in dtype, one gather per minibatch: q, qd, qdd, target = tau inv_scale and
    inv_scale = root_weight / tau_scale; root_weight (N,) or 1 (the validation samples).

    >>> samples(np.ones((1, 1)), np.zeros((1, 1)), np.zeros((1, 1)), np.full((1, 1), 3.0), 1.0, np.array([2.0]),
    ...         float).ravel()
    array([1. , 0. , 0. , 1.5, 0.5])"""
    inv_scale = np.broadcast_to(np.reshape(root_weight, (-1, 1)) / tau_scale, tau.shape)
    return np.ascontiguousarray(np.concatenate([q, qd, qdd, tau * inv_scale, inv_scale], axis=1).T, dtype=dtype)


def batch(rows, n):
    """The loss's batch (q, qd, qdd, target, inv_scale), each (B, n), from sample rows (5n, B): views, each
    column of a row contiguous.

    >>> [x.tolist() for x in batch(np.arange(5.0).reshape(5, 1), 1)]
    [[[0.0]], [[1.0]], [[2.0]], [[3.0]], [[4.0]]]"""
    return rows[:n].T, rows[n:2 * n].T, rows[2 * n:3 * n].T, rows[3 * n:4 * n].T, rows[4 * n:].T
