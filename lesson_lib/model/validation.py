"""The validation split: the samples `fit` holds out to judge the weights, never to train on.

    train_rows, validation_rows = split(N, traj=None, fraction=0.05, seed=0)

With "traj" (one trajectory id per sample) whole trajectories are held out, taken in a seeded order until they
hold `fraction` of the samples (neighbours in time are nearly the same state); without it, single samples.
fraction 0 holds out nothing; otherwise at least one sample (trajectory) is held out and one left to train on.
The same arguments give the same rows, sorted int arrays, from their own generator (seed, stream 2).

    >>> split(10, fraction=0.2, seed=0)[1]
    array([3, 7])"""
import numpy as np

from ..validate import number, trajectory_ids


def check_fraction(fraction):
    """The validation fraction as a float in [0, 0.5] (the validation set must stay the smaller part)."""
    return number("validation", fraction, low=0.0, high=0.5,
                  hint="the fraction of the samples held out to judge the weights, e.g. validation=0.05, or 0 for "
                       "none")


def split(n_samples, traj=None, fraction=0.05, seed=0):
    """(train_rows, validation_rows): sorted int arrays that partition range(n_samples); see the module's rules."""
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
    ids, sizes = np.unique(traj, return_counts=True)
    if len(ids) < 2:
        raise ValueError(f"a validation split by trajectory needs at least 2 trajectories, got {len(ids)} "
                         f"(traj is {ids[0] if len(ids) else 'empty'} throughout); record more trajectories, or "
                         f"use validation=0 to train on all samples without validation")
    order = rng.permutation(len(ids))
    taken = np.searchsorted(np.cumsum(sizes[order]), fraction * n_samples) + 1   # the prefix reaching fraction
    held_ids = ids[order[:min(taken, len(ids) - 1)]]
    mask = np.isin(traj, held_ids)
    return everything[~mask], everything[mask]
