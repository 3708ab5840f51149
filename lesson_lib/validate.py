"""Checking arguments at the public boundary: one vocabulary for every room, clear messages, no numpy crashes.

Each public function checks its arguments once, with these helpers, before it changes anything.  A message names
the argument, says what it got and what is expected, and where there is one, the fix:

    ValueError: hidden must be a tuple of layer widths (whole numbers >= 1), got '32' (str); e.g. hidden=(32, 32)

Type mistakes raise TypeError, values of the right type but out of range raise ValueError, and requests that would
exhaust time or memory raise LimitExceeded (a ValueError) with the number asked for and the limit.
"""
import numbers
import operator
from collections.abc import Mapping

import numpy as np

from .limits import MAX_MATRIX_ENTRIES


class LimitExceeded(ValueError):
    """A request beyond a hard limit (grid size, batch size, steps per call) that would hang or exhaust memory.

    >>> within_limit("steps", 300_000, 200_000)
    Traceback (most recent call last):
    lesson_lib.validate.LimitExceeded: steps asks for 300,000, above the limit of 200,000"""


def described(x):
    """`x` for a message: its repr cut to 60 characters, and its type.

    >>> described([1, 2])
    '[1, 2] (list)'"""
    text = repr(x)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(x).__name__})"


def as_state(name, x, n, allow_batch=True):
    """Return ``x`` as a float array of shape (n,) or (B, n) (B may be 0), or raise saying what is wrong.

    Lists and arrays of real numbers are accepted; strings, None, booleans and complex numbers are not.

    >>> as_state("q", [0.1, 0.2], 2)
    array([0.1, 0.2])
    >>> as_state("q", [0.1, 0.2, 0.3], 2)
    Traceback (most recent call last):
    ValueError: q has shape (3,), expected (2,) for one state or (B, 2) for a batch of B states (2 joints)"""
    arr = _real(name, x, "numeric (a list or array of floats)", "numeric (a list or array of real numbers)")
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

    >>> (q, qd), single = as_states(2, q=[0.0, 1.0], qd=[[1.0, 2.0], [3.0, 4.0]])
    >>> q.tolist(), single
    ([[0.0, 1.0], [0.0, 1.0]], False)"""
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

    >>> number("lr", 3e-3, low=0.0, low_open=True)
    0.003
    >>> number("lr", "1e-3")
    Traceback (most recent call last):
    TypeError: lr must be a number, got '1e-3' (str)"""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Real, np.ndarray)) or np.ndim(x) != 0:
        raise TypeError(f"{name} must be a number, got {described(x)}" + (f"; {hint}" if hint else ""))
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
    """Return x as a finite float > 0, or raise.

    >>> positive_number("lr", 0)
    Traceback (most recent call last):
    ValueError: lr must be > 0, got 0"""
    return number(name, x, low=0.0, low_open=True, hint=hint)


def integer(name, x, low=None, high=None, hint=""):
    """Return x as an int within [low, high], or raise.  2.0 is accepted, 2.7, "2", True and None are not.

    >>> integer("steps", 2000.0)
    2000
    >>> integer("steps", 2.5, hint="e.g. steps=2000")
    Traceback (most recent call last):
    TypeError: steps must be a whole number, got 2.5 (float); e.g. steps=2000"""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name} must be a whole number, got {described(x)}" + (f"; {hint}" if hint else ""))
    try:
        value = operator.index(x)
    except TypeError:
        if isinstance(x, (numbers.Real, np.floating)) and np.isfinite(float(x)) and float(x) == int(x):
            value = int(x)
        else:
            raise TypeError(f"{name} must be a whole number, got {described(x)}"
                            + (f"; {hint}" if hint else "")) from None
    if (low is not None and value < low) or (high is not None and value > high):
        rng = (f">= {low}" if high is None else f"<= {high}" if low is None else f"between {low} and {high}")
        raise ValueError(f"{name} must be {rng}, got {value}" + (f"; {hint}" if hint else ""))
    return value


def boolean(name, x):
    """Return x if it is True or False (numpy booleans too), else raise: "no" is not False.

    >>> boolean("restore_best", "no")
    Traceback (most recent call last):
    TypeError: restore_best must be True or False, got 'no' (str)"""
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    raise TypeError(f"{name} must be True or False, got {described(x)}")


def choice(name, x, options):
    """Return x if it is one of `options` (strings), else raise listing them.

    >>> choice("activation", "relu", ("isru", "tanh"))
    Traceback (most recent call last):
    ValueError: unknown activation 'relu'; choose one of 'isru', 'tanh'"""
    listed = ", ".join(repr(o) for o in options)
    if not isinstance(x, str):
        raise TypeError(f"{name} must be one of {listed}, got {described(x)}")
    if x not in options:
        raise ValueError(f"unknown {name} {x!r}; choose one of {listed}")
    return x


def layer_widths(name, x, example="(32, 32)"):
    """Return x as a non-empty tuple of ints >= 1 (layer widths), or raise.  A bare int or a string is refused.

    >>> layer_widths("hidden", [32, 32.0])
    (32, 32)
    >>> layer_widths("hidden", 32)
    Traceback (most recent call last):
    TypeError: hidden must be a tuple of layer widths (whole numbers >= 1), got 32 (int); e.g. hidden=(32, 32)"""
    bad = TypeError(f"{name} must be a tuple of layer widths (whole numbers >= 1), got {described(x)}; "
                    f"e.g. {name}={example}")
    if isinstance(x, (str, bytes, numbers.Number)) or x is None:
        raise bad
    try:
        items = tuple(x)
    except TypeError:
        raise bad from None
    if not items:
        raise ValueError(f"{name} must have at least one layer, got {described(x)}; e.g. {name}={example}")
    widths = []
    for item in items:
        try:
            widths.append(integer(f"each width in {name}", item, low=1))
        except TypeError:
            raise bad from None
    return tuple(widths)


def within_limit(name, value, limit, fix=""):
    """Return value if value <= limit, else raise LimitExceeded naming both numbers.

    >>> within_limit("steps", 2000, 200_000)
    2000"""
    if value > limit:
        raise LimitExceeded(f"{name} asks for {value:,}, above the limit of {limit:,}" + (f"; {fix}" if fix else ""))
    return value


def as_vector(name, x, size, hint=""):
    """Return x as a finite float vector of shape (size,) (a flat parameter vector, not a state), or raise with
    as_state's messages for types and NaN, and one about the length.

    >>> as_vector("params", [1, 2, 3], 3)
    array([1., 2., 3.])
    >>> as_vector("params", [1, 2], 3)
    Traceback (most recent call last):
    ValueError: params must be a flat vector of 3 numbers, got shape (2,)"""
    try:
        return as_state(name, x, size, allow_batch=False)
    except ValueError as err:
        if not str(err).startswith(f"{name} has shape"):
            raise
        raise ValueError(f"{name} must be a flat vector of {size} numbers{hint}, got shape {np.shape(x)}") from None


# ---------------------------------------------------------------------- hard limits (lesson_lib.limits)


def max_configurations(n_dof):
    """The most configurations of an n_dof-joint chain one call may evaluate: MAX_MATRIX_ENTRIES // n_dof^2.

    >>> max_configurations(2)
    250000"""
    return MAX_MATRIX_ENTRIES // n_dof**2


def configurations(name, count, n_dof, fix=""):
    """Return count if that many configurations of n_dof joints fit under MAX_MATRIX_ENTRIES, else raise
    LimitExceeded naming both numbers.

    >>> configurations("grid", 1681, 2)
    1681"""
    limit = max_configurations(n_dof)
    if count > limit:
        asks = f"{count:,}" if count <= 10**15 else "more than 10^15"
        raise LimitExceeded(f"{name} asks for {asks} configurations of {n_dof} joints, above the limit of {limit:,} "
                            f"({MAX_MATRIX_ENTRIES:,} mass-matrix entries per call)" + (f"; {fix}" if fix else ""))
    return count


# ---------------------------------------------------------------------- arrays, lists, callables, models, data
def _real(name, x, what, what_real):
    """x as a float array, or TypeError: "{name} must be {what}" for None, strings and what numpy cannot read,
    "{name} must be {what_real}" for booleans, complex numbers and other non-numbers."""
    if x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be {what}, got {described(x)}")
    try:
        raw = np.asarray(x)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be {what}, got {described(x)}") from None
    if raw.dtype.kind not in "iuf":
        kind = {"b": "booleans", "c": "complex numbers"}.get(raw.dtype.kind, "values that are not numbers")
        raise TypeError(f"{name} must be {what_real}, got {kind}: {described(x)}")
    return raw.astype(float)


def array(name, x, ndim, what):
    """Return x as a float array with one of the numbers of dimensions in `ndim` and only finite entries.

    `what` says what is expected in words, e.g. "mass matrices of shape (G, n, n)".  Strings, None, booleans and
    complex numbers are refused, as in as_state.

    >>> array("M", [[2.0, 0.0], [0.0, 1.0]], (2, 3), "mass matrices of shape (n, n) or (G, n, n)").shape
    (2, 2)"""
    arr = _real(name, x, what, f"{what} (real numbers)")
    if arr.ndim not in ndim:
        raise ValueError(f"{name} has shape {arr.shape}, expected {what}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf; every entry must be a finite number")
    return arr


def number_list(name, x, low=0.0, low_open=True, example="(1, 2)"):
    """Return a non-empty sequence of finite numbers, each > low (or >= low), as a tuple of the items as given
    (so 1 stays 1 in what is printed later).

    >>> number_list("speeds", [1, 2.5])
    (1, 2.5)"""
    if isinstance(x, (str, bytes, numbers.Number)) or x is None or not hasattr(x, "__iter__"):
        raise TypeError(f"{name} must be a list of numbers, got {described(x)}; e.g. {name}={example}")
    items = tuple(x)
    if not items:
        raise ValueError(f"{name} must hold at least one number, got {described(x)}; e.g. {name}={example}")
    for v in items:
        number(f"each entry of {name}", v, low=low, low_open=low_open, hint=f"e.g. {name}={example}")
    return items


def sign(name, x):
    """Return +1 or -1 (as an int) for a side of something; 0, 0.5, True or "+" are refused.

    >>> sign("side", -1.0), sign("side", 1)
    (-1, 1)"""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be +1 or -1, got {described(x)}")
    if x not in (1, -1):
        raise ValueError(f"{name} must be +1 or -1, got {described(x)}")
    return int(x)


def callable_arg(name, f, expected):
    """Return f if it can be called, else raise TypeError saying what was expected (e.g. "f(q, qd) -> qdd").

    >>> callable_arg("f", print, "f(x)") is print
    True"""
    if not callable(f):
        raise TypeError(f"{name} must be a function {expected}, got {described(f)}")
    return f


def has_api(name, obj, methods, expected):
    """Return obj if it has an integer n_dof >= 1 and every method in `methods`, else raise TypeError.

    `expected` names what fits, e.g. "a PlanarChain such as double_pendulum()".

    >>> has_api("chain", "arm", ("rnea",), "a PlanarChain such as double_pendulum()")
    Traceback (most recent call last):
    TypeError: chain must be a PlanarChain such as double_pendulum(), got 'arm' (str): it lacks n_dof (a whole number
    >= 1), rnea"""
    n = getattr(obj, "n_dof", None)
    good_n = isinstance(n, numbers.Integral) and not isinstance(n, (bool, np.bool_)) and n >= 1
    lacks = ([] if good_n else ["n_dof (a whole number >= 1)"]) + [m for m in methods
                                                                    if not callable(getattr(obj, m, None))]
    if lacks:
        raise TypeError(f"{name} must be {expected}, got {described(obj)}: it lacks {', '.join(lacks)}")
    return obj


def model_output(call, value, shape):
    """value (what `call`, e.g. "model.mass_matrix(q)", returned) as a float array of the expected shape with only
    finite entries, or ValueError naming the call: a model that gives the wrong shape or NaN is broken, and a
    metric computed from it would be garbage.

    >>> model_output("model.mass_matrix(q)", [[1.0, float("nan")]], (1, 2))
    Traceback (most recent call last):
    ValueError: model.mass_matrix(q) returned NaN or inf at 1 entries: the model is broken (e.g. weights from
    set_params that overflow)"""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{call} returned {described(value)}, not numbers: the model is broken") from None
    if arr.shape != tuple(shape):
        raise ValueError(f"{call} returned shape {arr.shape}, expected {tuple(shape)}: the model does not fit "
                         f"these states (check its n_dof)")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{call} returned NaN or inf at {int(np.sum(~np.isfinite(arr)))} entries: the model is "
                         f"broken (e.g. weights from set_params that overflow)")
    return arr


def same_dof(model, chain, model_name="model", chain_name="chain"):
    """Raise unless model and chain have the same number of joints.

    >>> from lesson_lib import DeLaN, double_pendulum
    >>> same_dof(DeLaN(n_dof=3), double_pendulum())
    Traceback (most recent call last):
    ValueError: model has n_dof = 3 but chain has 2 joints; build the model for this chain, e.g. DeLaN(n_dof=2)"""
    if model.n_dof != chain.n_dof:
        raise ValueError(f"{model_name} has n_dof = {model.n_dof} but {chain_name} has {chain.n_dof} joints; "
                         f"build the model for this chain, e.g. DeLaN(n_dof={chain.n_dof})")


DATA_KEYS = ("q", "qd", "qdd", "tau")


def trajectory_ids(name, traj, N):
    """traj as an (N,) array of whole numbers >= 0, the trajectory of each sample (as sample_trajectories gives).

    >>> trajectory_ids("traj", [0, 0, 1], 3)
    array([0, 0, 1])"""
    arr = np.asarray(traj)
    if arr.shape != (N,) or arr.dtype.kind not in "iu" or (N and arr.min() < 0):
        raise ValueError(f"{name} must be ({N},) whole numbers >= 0 (the trajectory of each sample, like "
                         f"sample_trajectories(...)['traj']), got {described(traj)}")
    return arr


def as_data(name, data, n, keys=DATA_KEYS, min_samples=1):
    """Return a checked copy of a data dict: each of `keys` an (N, n) float array, one N >= min_samples for all.

    Optional keys are checked when present: "traj" (N,) whole numbers >= 0 (the trajectory of each sample) and
    "t" (N,) finite times.  Other keys pass through unchanged.

    >>> d = as_data("data", {"q": [[0.0, 1.0]], "qd": [[0.0, 0.0]], "qdd": [[1.0, 0.0]], "tau": [[2.0, 0.5]]}, 2)
    >>> d["tau"]
    array([[2. , 0.5]])"""
    if not isinstance(data, Mapping):
        raise TypeError(f"{name} must be a dict of arrays with keys {', '.join(keys)} (e.g. from "
                        f"sample_uniform(chain)), got {described(data)}")
    missing = [k for k in keys if k not in data]
    if missing:
        raise ValueError(f"{name} lacks the key(s) {', '.join(repr(k) for k in missing)}; a data dict holds "
                         f"{', '.join(keys)}, each (N, {n}) (e.g. from sample_uniform(chain))")
    out = dict(data)
    for k in keys:
        out[k] = as_state(f"{name}[{k!r}]", data[k], n)
        if out[k].ndim != 2:
            raise ValueError(f"{name}[{k!r}] has shape {out[k].shape}, expected (N, {n}): one row per sample")
    counts = {k: out[k].shape[0] for k in keys}
    if len(set(counts.values())) > 1:
        raise ValueError(f"the arrays of {name} have different numbers of samples {counts}; every array needs "
                         f"one row per sample")
    N = counts[keys[0]]
    if N < min_samples:
        raise ValueError(f"{name} holds {N} sample(s), at least {min_samples} needed")
    if "traj" in data:
        trajectory_ids(f"{name}['traj']", data["traj"], N)
    if "t" in data:
        out["t"] = array(f"{name}['t']", data["t"], (1,), f"({N},) times of the samples")
        if out["t"].shape != (N,):
            raise ValueError(f"{name}['t'] has shape {out['t'].shape}, expected ({N},): one time per sample")
    return out
