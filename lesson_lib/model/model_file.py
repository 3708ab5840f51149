"""The saved model file: an .npz archive with a format version, the architecture and the training state.

    format        FORMAT_VERSION
    config        JSON: Trainable.config() (class, architecture, optimizer, seed, batch_size)
    params, step, loss_history, tau_scale (input_scale for the black box)
    validation_history  (K, 3): step, validation loss, learning rate
    optimizer.*, schedule.*             the optimiser's and the schedule's state
    resume.params, resume.optimizer.*   where the next fit goes on, if not from params (Trainable.resumes)
    batch_rng     JSON: the minibatch generator's state

`read` reads it all, and refuses what is not such a file, before the model changes."""
import json
import os
import secrets

import numpy as np

from ..facts import EPS, POTENTIAL_SCALE
from ..validate import described

FORMAT_VERSION = 3      # 3: the optimiser keeps the average of its iterates (optimizer.average)
NESTED = ("optimizer", "schedule")     # states stored as one entry per key, e.g. optimizer.m


def npz_path(path):
    """`path` as a string ending in ".npz" (np.savez appends it, so save('model') and load('model') agree).

    >>> npz_path("model"), npz_path("model.npz")
    ('model.npz', 'model.npz')"""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name (str or pathlib.Path), got {described(path)}")
    path = os.fspath(path)
    return path if path.endswith(".npz") else path + ".npz"


def arguments(config):
    """The architecture as constructor arguments: "n_dof=2, hidden=(32, 32), activation='isru'" (eps and
    potential_scale only when not the defaults; a DeLaN's mass_units always).

    >>> print(arguments({"n_dof": 2, "hidden": [32, 32], "activation": "isru", "eps": 0.01}))
    n_dof=2, hidden=(32, 32), activation='isru', eps=0.01"""
    args = [f"n_dof={config['n_dof']}", f"hidden={tuple(config['hidden'])}", f"activation={config['activation']!r}"]
    if "eps" in config and config["eps"] != EPS:
        args.append(f"eps={config['eps']!r}")
    if "potential_scale" in config and config["potential_scale"] != POTENTIAL_SCALE:
        args.append(f"potential_scale={config['potential_scale']!r}")
    if "mass_units" in config:
        args.append(f"mass_units={config['mass_units']!r}")
    return ", ".join(args)


def save(config, state, path):
    """Write a model's config() and state to `path` (".npz" added if missing); returns the file name.  Written
    to a temporary file of its own, then renamed: an interrupted save leaves any earlier file whole.

    >>> import tempfile
    >>> from lesson_lib import DeLaN
    >>> model = DeLaN()
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     os.path.basename(save(model.config(), model._state(), os.path.join(folder, "m")))
    'm.npz'"""
    path = npz_path(path)
    state = dict(state)
    arrays = {"format": np.array(FORMAT_VERSION), "config": np.array(json.dumps(config)),
              "batch_rng": np.array(json.dumps(state.pop("batch_rng")))}
    for group in NESTED:
        arrays.update({f"{group}.{k}": np.asarray(v) for k, v in state.pop(group).items()})
    resume = state.pop("resume")
    if resume is not None:
        arrays["resume.params"] = resume["params"]
        arrays.update({f"resume.optimizer.{k}": np.asarray(v) for k, v in resume["optimizer"].items()})
    arrays.update({k: np.asarray(v) for k, v in state.items()})      # the loss history: a list of floats
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"cannot save to {path!r}: the folder {folder!r} does not exist")
    tmp = f"{path}.{os.getpid()}-{secrets.token_hex(4)}.tmp"  # pragma: no mutate (one name a saver; any tag length)
    try:
        with open(tmp, "xb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return path


def _cannot_load(path, text):
    """load's refusal of a file: a ValueError naming the file, what is wrong with it, and that nothing changed."""
    return ValueError(f"cannot load {path!r}: {text}. The model was not changed.")


def _open(path):
    """All arrays of the archive at `path`, read into memory, or a clear error."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"cannot load {path!r}: no such file (model.save(path) writes one). "
                                f"The model was not changed.")
    try:
        archive = np.load(path, allow_pickle=False)  # pragma: no mutate (numpy's default, in sight: never unpickle)
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise ValueError(f"it holds a single {type(archive).__name__}, not a saved model's archive")
        with archive:
            return {k: archive[k] for k in archive.files}
    except Exception as err:                  # a zip, pickle or format error from numpy: say it in our terms
        raise _cannot_load(path, f"it is not a model file written by model.save, or it is truncated or corrupt "
                                 f"({type(err).__name__}: {err})") from None


def _differences(mine, theirs):
    """[(field, file's value, model's value)] for the fields that must match."""
    fields = ["class", *(f for f in mine if f not in ("class", "optimizer", "seed", "batch_size")), "optimizer"]
    diffs = []
    for f in fields:
        a, b = theirs.get(f), mine[f]
        if f == "hidden" and isinstance(a, list):
            a = tuple(a)
        if a != b:
            diffs.append((f, a, b))
    return diffs


def read(config, template, path):
    """The state in `path`, read against the model's config() and its current state `template`; FileNotFoundError
    or ValueError saying why it cannot be loaded: no file, not a model file or a truncated one, another format
    (another lesson_lib), another model (each differing field, and the model to build), or entries laid out
    otherwise (another version's).  The values themselves are not checked: a file is save's, or edited by hand.

    >>> import tempfile
    >>> from lesson_lib import DeLaN
    >>> model = DeLaN(hidden=(32, 32))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = model.save(os.path.join(folder, "m"))
    ...     read(DeLaN(hidden=(8,)).config(), DeLaN(hidden=(8,))._state(), path)
    Traceback (most recent call last):
    ValueError: cannot load '...m.npz': it holds a different model (hidden: the file has (32, 32), this model has
    (8,); mass_units: the file has 4, this model has 1); build the matching model and load into it: DeLaN(n_dof=2,
    hidden=(32, 32), activation='isru', mass_units=4).load(...). The model was not changed."""
    path = npz_path(path)
    data = _open(path)
    if "format" not in data or "config" not in data:
        old = "params" in data and "m" in data
        raise _cannot_load(path, "it was written by an older lesson_lib without a format version; train the model "
                                 "again and save it" if old else
                           f"it is not a model file written by model.save (its arrays are {sorted(data)})")
    if data["format"].shape != () or int(data["format"]) != FORMAT_VERSION:
        raise _cannot_load(path, f"it has file format {data['format']!r}; this lesson_lib reads format "
                                 f"{FORMAT_VERSION}")
    theirs = json.loads(str(data["config"]))
    if "mass_units" in config:
        theirs.setdefault("mass_units", 0)          # written before L and V had units of their own: both read all
    diffs = _differences(config, theirs)
    if diffs:
        listed = "; ".join(f"{f}: the file has {a!r}, this model has {b!r}" for f, a, b in diffs)
        try:
            advice = (f"; build the matching model and load into it: "
                      f"{theirs['class']}({arguments(theirs)}).load({path!r})")
        except (KeyError, TypeError, AttributeError):           # a config this lesson_lib cannot read back
            advice = ""
        raise _cannot_load(path, f"it holds a different model ({listed}){advice}")
    state = {}
    for key, like in template.items():
        if key == "resume":
            state[key] = None if "resume.params" not in data else {
                "params": _entry(path, data, "resume.params", template["params"]),
                "optimizer": {k: _entry(path, data, f"resume.optimizer.{k}", v)
                              for k, v in template["optimizer"].items()}}
        elif key in NESTED:
            state[key] = {k: _entry(path, data, f"{key}.{k}", v) for k, v in like.items()}
        elif key == "batch_rng":
            state[key] = _rng_state(path, data)
        else:
            state[key] = _entry(path, data, key, like)
    return state


def _entry(path, data, key, like):
    """data[key] with the shape of `like` (any length for the histories), as a number or an array."""
    if key not in data:
        raise _cannot_load(path, f"its entry {key!r} is missing")
    value = data[key]
    want = np.shape(like)
    if key in ("loss_history", "validation_history") and value.ndim == len(want):
        want = (len(value), *want[1:])                         # a history of any length
    numbers = np.issubdtype(value.dtype, np.integer) or np.issubdtype(value.dtype, np.floating)
    if value.shape != want or not numbers:
        raise _cannot_load(path, f"its entry {key!r} has shape {value.shape} and type {value.dtype}, expected "
                                 f"numbers of shape {np.shape(like)}")
    if isinstance(like, (int, np.integer)):
        return int(value)
    return float(value) if isinstance(like, float) else np.array(value, dtype=float)


def _rng_state(path, data):
    """The minibatch generator's saved state, read by setting it on a scratch generator (another numpy's may
    differ)."""
    try:
        state = json.loads(str(data["batch_rng"]))
        np.random.default_rng(0).bit_generator.state = state  # pragma: no mutate (a scratch generator: any seed)
    except (KeyError, ValueError, TypeError):
        raise _cannot_load(path, "its batch_rng entry is missing or not a valid generator state") from None
    return state
