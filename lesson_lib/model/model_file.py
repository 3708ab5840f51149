"""The saved model file: an .npz archive with a format version, the architecture and the training state.

    format        FORMAT_VERSION
    config        JSON: Trainable.config() (class, architecture, optimizer, seed, batch_size)
    params, step, loss_history, tau_scale (input_scale for the black box)
    validation_history  (K, 3): step, validation loss, learning rate
    optimizer.*, schedule.*             the optimiser's and the schedule's state
    resume.params, resume.optimizer.*   where the next fit goes on, if not from params (Trainable.resumes)
    batch_rng     JSON: the minibatch generator's state

`read` checks everything before the model changes."""
import json
import os
import secrets

import numpy as np

from ..facts import EPS, POTENTIAL_SCALE
from ..validate import described

FORMAT_VERSION = 2
NESTED = ("optimizer", "schedule")     # states stored as one entry per key, e.g. optimizer.m


def npz_path(path):
    """`path` as a string ending in ".npz" (np.savez appends it, so save('model') and load('model') agree)."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name (str or pathlib.Path), got {described(path)}")
    path = os.fspath(path)
    return path if path.endswith(".npz") else path + ".npz"


def arguments(config):
    """The architecture as constructor arguments: "n_dof=2, hidden=(32, 32), activation='isru'" (eps and
    potential_scale only when not the defaults)."""
    args = [f"n_dof={config['n_dof']}", f"hidden={tuple(config['hidden'])}", f"activation={config['activation']!r}"]
    if "eps" in config and config["eps"] != EPS:
        args.append(f"eps={config['eps']!r}")
    if "potential_scale" in config and config["potential_scale"] != POTENTIAL_SCALE:
        args.append(f"potential_scale={config['potential_scale']!r}")
    return ", ".join(args)


def save(config, state, path):
    """Write a model's config() and state to `path` (".npz" added if missing); returns the file name.  Written
    to a temporary file of its own, then renamed: an interrupted save leaves any earlier file whole."""
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


def _refuse(path, text):
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
        raise _refuse(path, f"it is not a model file written by model.save, or it is truncated or corrupt "
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
    """The state in `path`, checked against the model's config() and its current state `template`
    (architecture, shapes, finite values); FileNotFoundError or ValueError naming what is wrong otherwise."""
    path = npz_path(path)
    data = _open(path)
    if "format" not in data or "config" not in data:
        old = "params" in data and "m" in data
        raise _refuse(path, "it was written by an older lesson_lib without a format version; train the model "
                            "again and save it" if old else
                      f"it is not a model file written by model.save (its arrays are {sorted(data)})")
    if data["format"].shape != () or int(data["format"]) != FORMAT_VERSION:
        raise _refuse(path, f"it has file format {data['format']!r}; this lesson_lib reads format {FORMAT_VERSION}")
    try:
        theirs = json.loads(str(data["config"]))
        theirs = dict(theirs)
    except (ValueError, TypeError):
        raise _refuse(path, "its config entry is not valid JSON") from None
    diffs = _differences(config, theirs)
    if diffs:
        listed = "; ".join(f"{f}: the file has {a!r}, this model has {b!r}" for f, a, b in diffs)
        try:
            advice = (f"; build the matching model and load into it: "
                      f"{theirs['class']}({arguments(theirs)}).load({path!r})")
        except (KeyError, TypeError, AttributeError):           # a config this lesson_lib cannot read back
            advice = ""
        raise _refuse(path, f"it holds a different model ({listed}){advice}")
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
    if np.any(state["tau_scale"] <= 0):
        raise _refuse(path, "its tau_scale has entries <= 0")
    if state["step"] < 0:
        raise _refuse(path, "its step count is negative")
    if state["schedule"]["base_lr"] <= 0:
        raise _refuse(path, f"its schedule's learning rate is {state['schedule']['base_lr']}, expected > 0")
    if state["schedule"]["since"] < 0:
        raise _refuse(path, "its schedule's count of evaluations without a new best is negative")
    if len(state["loss_history"]) != state["step"]:
        raise _refuse(path, f"its step count {state['step']} disagrees with its loss history of "
                            f"{len(state['loss_history'])} steps (one loss per step)")
    for where, opt in [("optimizer", state["optimizer"])] + (
            [("resume.optimizer", state["resume"]["optimizer"])] if state["resume"] is not None else []):
        _check_optimizer_state(path, where, opt, state["step"])
    return state


def _check_optimizer_state(path, where, opt, step):
    """Refuse an optimiser state no training could have left: a step count outside 0..step,
    negative second moments, a learning rate not > 0."""
    if "t" in opt and not 0 <= opt["t"] <= step:
        raise _refuse(path, f"its {where} step count is {opt['t']}, expected a whole number from 0 to the "
                            f"model's {step} steps")
    if "v" in opt and np.any(np.asarray(opt["v"]) < 0):
        raise _refuse(path, f"its {where} second moments v have negative entries (a mean of squares is >= 0)")
    if "lr" in opt and not opt["lr"] > 0:
        raise _refuse(path, f"its {where} learning rate is {opt['lr']}, expected > 0")


def _entry(path, data, key, like):
    """data[key] with the shape of `like` (any length for the loss history), finite, as a number or an array."""
    if key not in data:
        raise _refuse(path, f"its entry {key!r} is missing")
    value = data[key]
    want = np.shape(like)
    if key in ("loss_history", "validation_history") and value.ndim == len(want):
        want = (len(value), *want[1:])                         # a history of any length
    numbers = np.issubdtype(value.dtype, np.integer) or np.issubdtype(value.dtype, np.floating)
    if value.shape != want or not numbers:
        raise _refuse(path, f"its entry {key!r} has shape {value.shape} and type {value.dtype}, expected numbers "
                            f"of shape {np.shape(like)}")
    if not np.all(np.isfinite(value)):
        raise _refuse(path, f"its entry {key!r} contains NaN or inf")
    if isinstance(like, (int, np.integer)):
        if value != int(value):
            raise _refuse(path, f"its entry {key!r} should be a whole number, got {value}")
        return int(value)
    return float(value) if isinstance(like, float) else np.array(value, dtype=float)


def _rng_state(path, data):
    """The minibatch generator's saved state, checked by setting it on a scratch generator."""
    try:
        state = json.loads(str(data["batch_rng"]))
        np.random.default_rng(0).bit_generator.state = state  # pragma: no mutate (a scratch generator: any seed)
    except (KeyError, ValueError, TypeError):
        raise _refuse(path, "its batch_rng entry is missing or not a valid generator state") from None
    return state
