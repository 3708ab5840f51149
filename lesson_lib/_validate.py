"""Input checking shared by the physics and the model: clear messages instead of numpy crashes."""
import numpy as np


def as_state(name, x, n, allow_batch=True):
    """Return ``x`` as a float array of shape (n,) or (B, n), or raise a ValueError saying what is wrong.

    The error names the argument, the shape it got and the shape it expected, so a learner can fix the call.
    """
    try:
        if x is None or isinstance(x, (str, bytes)):
            raise TypeError
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric (a list or array of floats), got {type(x).__name__}: {x!r:.60}")
    ok = (arr.ndim == 1 and arr.shape[0] == n) or (allow_batch and arr.ndim == 2 and arr.shape[1] == n)
    if not ok:
        want = f"({n},) for one state" + (f" or (B, {n}) for a batch of B states" if allow_batch else "")
        raise ValueError(f"{name} has shape {arr.shape}, expected {want} ({n} joints)")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf; every entry must be a finite number")
    return arr


def as_states(n, **arrays):
    """Check several state arrays of one call together and broadcast them to a common batch.

    Returns (list of (B, n) arrays in the given order, single) where ``single`` says all inputs were (n,).
    """
    checked = {k: as_state(k, v, n) for k, v in arrays.items()}
    batch = {k: v.shape[0] for k, v in checked.items() if v.ndim == 2}
    if len(set(batch.values())) > 1:
        raise ValueError(f"batch sizes disagree: {batch}; give every argument the same number of rows B")
    B = next(iter(batch.values()), 1)
    out = [np.broadcast_to(np.atleast_2d(v), (B, n)) for v in checked.values()]
    return out, not batch


def positive_number(name, x):
    """Return x as a float if it is a finite number > 0, else raise a ValueError."""
    try:
        value = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive number, got {x!r}")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value}")
    return value
