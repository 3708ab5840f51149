"""Checking arguments at the public boundary: one vocabulary for every room, clear messages, no numpy crashes.

Each public function checks its arguments once, with these helpers, before it changes anything.  A message names
the argument, says what it got and what is expected, and where there is one, the fix:

    ValueError: hidden must be a tuple of layer widths (whole numbers >= 1), got '32' (str); e.g. hidden=(32, 32)

Type mistakes raise TypeError, values of the right type but out of range raise ValueError, and requests that would
exhaust time or memory raise LimitExceeded (a ValueError) with the number asked for and the limit.
"""
import numbers
import operator

import numpy as np


class LimitExceeded(ValueError):
    """A request beyond a hard limit (grid size, batch size, steps per call) that would hang or exhaust memory."""


def _got(x):
    """`x` for a message: its repr cut to 60 characters, and its type."""
    text = repr(x)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(x).__name__})"


def as_state(name, x, n, allow_batch=True):
    """Return ``x`` as a float array of shape (n,) or (B, n) (B may be 0), or raise saying what is wrong.

    Lists and arrays of real numbers are accepted; strings, None, booleans and complex numbers are not.
    """
    if x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be numeric (a list or array of floats), got {_got(x)}")
    try:
        raw = np.asarray(x)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be numeric (a list or array of floats), got {_got(x)}") from None
    if raw.dtype.kind not in "iuf":
        kind = {"b": "booleans", "c": "complex numbers"}.get(raw.dtype.kind, "values that are not numbers")
        raise TypeError(f"{name} must be numeric (a list or array of real numbers), got {kind}: {_got(x)}")
    arr = raw.astype(float)
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


def number(name, x, low=None, high=None, low_open=False, high_open=False, hint=""):
    """Return x as a finite float within [low, high] (open ends where asked), or raise.

    Booleans and strings are refused (``True`` is not a learning rate, ``"1e-3"`` is not a number).
    """
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Real, np.ndarray)) or np.ndim(x) != 0:
        raise TypeError(f"{name} must be a number, got {_got(x)}" + (f"; {hint}" if hint else ""))
    value = float(x)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value}" + (f"; {hint}" if hint else ""))
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if too_low or too_high:
        parts = []
        if low is not None:
            parts.append(f"{'>' if low_open else '>='} {low:g}")
        if high is not None:
            parts.append(f"{'<' if high_open else '<='} {high:g}")
        raise ValueError(f"{name} must be {' and '.join(parts)}, got {value:g}" + (f"; {hint}" if hint else ""))
    return value


def positive_number(name, x, hint=""):
    """Return x as a finite float > 0, or raise."""
    return number(name, x, low=0.0, low_open=True, hint=hint)


def integer(name, x, low=None, high=None, hint=""):
    """Return x as an int within [low, high], or raise.  2.0 is accepted, 2.7, "2", True and None are not."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be a whole number, got {_got(x)}" + (f"; {hint}" if hint else ""))
    try:
        value = operator.index(x)
    except TypeError:
        if isinstance(x, (numbers.Real, np.floating)) and np.isfinite(float(x)) and float(x) == int(x):
            value = int(x)
        else:
            raise TypeError(f"{name} must be a whole number, got {_got(x)}" + (f"; {hint}" if hint else "")) from None
    if (low is not None and value < low) or (high is not None and value > high):
        rng = (f">= {low}" if high is None else f"<= {high}" if low is None else f"between {low} and {high}")
        raise ValueError(f"{name} must be {rng}, got {value}" + (f"; {hint}" if hint else ""))
    return value


def boolean(name, x):
    """Return x if it is True or False (numpy booleans too), else raise: "no" is not False."""
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    raise TypeError(f"{name} must be True or False, got {_got(x)}")


def choice(name, x, options):
    """Return x if it is one of `options` (strings), else raise listing them."""
    listed = ", ".join(repr(o) for o in options)
    if not isinstance(x, str):
        raise TypeError(f"{name} must be one of {listed}, got {_got(x)}")
    if x not in options:
        raise ValueError(f"unknown {name} {x!r}; choose one of {listed}")
    return x


def sizes(name, x, example="(32, 32)"):
    """Return x as a non-empty tuple of ints >= 1 (layer widths), or raise.  A bare int or a string is refused."""
    bad = TypeError(f"{name} must be a tuple of layer widths (whole numbers >= 1), got {_got(x)}; "
                    f"e.g. {name}={example}")
    if isinstance(x, (str, bytes, numbers.Number)) or x is None:
        raise bad
    try:
        items = tuple(x)
    except TypeError:
        raise bad from None
    if not items:
        raise ValueError(f"{name} must have at least one layer, got {_got(x)}; e.g. {name}={example}")
    widths = []
    for item in items:
        try:
            widths.append(integer(f"each width in {name}", item, low=1))
        except TypeError:
            raise bad from None
    return tuple(widths)


def within_limit(name, value, limit, fix=""):
    """Return value if value <= limit, else raise LimitExceeded naming both numbers."""
    if value > limit:
        raise LimitExceeded(f"{name} asks for {value:,}, above the limit of {limit:,}" + (f"; {fix}" if fix else ""))
    return value


def as_vector(name, x, size, hint=""):
    """Return x as a finite float vector of shape (size,) (a flat parameter vector, not a state), or raise with
    as_state's messages for types and NaN, and one about the length."""
    try:
        return as_state(name, x, size, allow_batch=False)
    except ValueError as err:
        if not str(err).startswith(f"{name} has shape"):
            raise
        raise ValueError(f"{name} must be a flat vector of {size} numbers{hint}, got shape {np.shape(x)}") from None
