"""The saved model file: round trip of everything training changes, the same file name for save and load, a
mismatch refused with the fields that differ and the model to build, bad files refused with the model unchanged."""
import json
import zipfile

import numpy as np
import pytest
from model_states import assert_same, full_snapshot, lowered

from lesson_lib import BlackBox, DeLaN, double_pendulum, facts, sample_uniform
from lesson_lib.model.adam import Adam
from lesson_lib.model.model_file import FORMAT_VERSION


@pytest.fixture(scope="module")
def args():
    d = sample_uniform(double_pendulum(), 512, seed=0)
    return d["q"], d["qd"], d["qdd"], d["tau"]


@pytest.mark.parametrize("make", [lambda: DeLaN(seed=1), lambda: DeLaN(seed=1, lr=0.01),
                                  lambda: BlackBox(seed=1, activation="tanh")])
def test_round_trip_restores_everything_and_training_continues_identically(make, args, tmp_path):
    a = make()
    a.fit(*args, steps=40)
    a.lr = a.lr / 2
    path = a.save(tmp_path / "model")
    assert path == str(tmp_path / "model.npz")
    b = make().load(tmp_path / "model")                        # the same name works for save and load
    assert_same(full_snapshot(b), full_snapshot(a))
    a.fit(*args, steps=15)
    b.fit(*args, steps=15)
    assert_same(full_snapshot(b), full_snapshot(a))


def test_file_records_the_architecture_and_settings(tmp_path):
    model = DeLaN(hidden=(8, 4), activation="tanh", eps=1e-2, lr=0.1)
    model.save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz") as f:
        config = json.loads(str(f["config"]))
        assert int(f["format"]) == FORMAT_VERSION
    assert config == {"class": "DeLaN", "n_dof": 2, "hidden": [8, 4], "activation": "tanh", "eps": 1e-2,
                      "potential_scale": facts.POTENTIAL_SCALE, "mass_units": model.mass_units,
                      "optimizer": {"name": "adam", "b1": Adam.b1, "b2": Adam.b2, "eps": Adam.eps,
                                    "decay": Adam.decay},
                      "seed": 0, "batch_size": facts.BATCH_SIZE}


def test_a_different_architecture_is_refused_naming_each_field_and_the_model_to_build(tmp_path):
    path = str(tmp_path / "m.npz")
    DeLaN(hidden=(16, 16), activation="tanh", eps=1e-2).save(path)
    model = DeLaN()
    before = full_snapshot(model)
    with pytest.raises(ValueError) as err:
        model.load(path)
    text = str(err.value)
    assert f"hidden: the file has (16, 16), this model has {facts.HIDDEN}" in text
    assert "activation: the file has 'tanh', this model has 'isru'" in text
    assert "eps: the file has 0.01, this model has 0.001" in text
    assert f"this model has {facts.HIDDEN}; activation: the file has" in text                 # one field after another
    assert "n_dof" not in text.split("build")[0]
    build = text.split("load into it: ")[1].split(".load(")[0]
    assert build == (f"DeLaN(n_dof=2, hidden=(16, 16), activation='tanh', eps=0.01, "
                     f"mass_units={DeLaN(hidden=(16, 16)).mass_units})")
    assert_same(full_snapshot(model), before)
    rebuilt = eval(build, {"DeLaN": DeLaN}).load(path)          # the advice works
    assert rebuilt.hidden == (16, 16)


def test_a_bare_file_name_is_saved_in_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert DeLaN(seed=3).save("bare") == "bare.npz"
    assert [p.name for p in tmp_path.iterdir()] == ["bare.npz"]                # no temporary file left
    assert DeLaN(seed=3).load("bare").step == 0


def test_a_config_this_library_cannot_build_from_is_refused_without_advice(tmp_path):
    path = DeLaN().save(tmp_path / "m")
    with np.load(path) as f:
        d = {k: f[k] for k in f.files}
    config = json.loads(str(d["config"]))
    del config["hidden"]                                             # written by some other program
    d["config"] = np.array(json.dumps(config))
    np.savez(tmp_path / "other.npz", **d)
    with pytest.raises(ValueError) as err:
        DeLaN().load(tmp_path / "other.npz")
    assert str(err.value) == (f"cannot load {str(tmp_path / 'other.npz')!r}: it holds a different model (hidden: the "
                              f"file has None, this model has {facts.HIDDEN}). The model was not changed.")


@pytest.mark.parametrize("saved, loading, name, field", [
    (lambda: BlackBox(), lambda: DeLaN(), "class", "class: the file has 'BlackBox', this model has 'DeLaN'"),
    (lambda: DeLaN(n_dof=3), lambda: DeLaN(), "n_dof", "n_dof: the file has 3, this model has 2"),
])
def test_other_mismatches_refused(saved, loading, name, field, tmp_path):
    saved().save(tmp_path / "m")
    model = loading()
    before = full_snapshot(model)
    with pytest.raises(ValueError, match="holds a different model") as err:
        model.load(tmp_path / "m")
    assert field in str(err.value)
    assert str(err.value).count(f"{name}: the file has") == 1                         # each field named once
    assert_same(full_snapshot(model), before)


def corrupt_files(tmp_path, good):
    """(description, path, what the refusal must say after "cannot load '<path>': ") of files that are not whole
    model files of this lesson_lib: truncated or not a model's at all, of another format, or laid out otherwise
    (an entry missing, of another shape or type).  Values a person edited by hand are not looked for."""
    raw = open(good, "rb").read()
    not_ours = "it is not a model file written by model.save"
    files = {"truncated": raw[: len(raw) // 2], "garbage": b"not a model at all" * 50, "empty": b""}
    paths = []
    for name, content in files.items():
        path = tmp_path / f"{name}.npz"
        path.write_bytes(content)
        paths.append((name, path, not_ours))
    np.save(tmp_path / "array.npy", np.zeros(3))
    (tmp_path / "array.npy").rename(tmp_path / "array.npz")
    paths.append(("an .npy array", tmp_path / "array.npz", not_ours + ", or it is truncated or corrupt (ValueError: "
                                                                    "it holds a single ndarray, not a saved model's "
                                                                    "archive)"))
    np.savez(tmp_path / "foreign.npz", x=np.zeros(3))
    paths.append(("foreign", tmp_path / "foreign.npz", not_ours + " (its arrays are ['x'])"))
    np.savez(tmp_path / "weights_only.npz", params=np.zeros(3))
    paths.append(("weights only", tmp_path / "weights_only.npz", not_ours + " (its arrays are ['params'])"))
    np.savez(tmp_path / "old.npz", params=np.zeros(3), m=np.zeros(3), v=np.zeros(3), step=0)
    paths.append(("older lesson_lib", tmp_path / "old.npz", "it was written by an older lesson_lib"))
    with zipfile.ZipFile(good) as z:                             # a bad entry in a real model file
        entries = {n: z.read(n) for n in z.namelist()}
    with np.load(good) as f:
        n = f["params"].size
    for name, edit, says in (
            ("short weights", lambda d: d.update(params=d["params"][:-1]),
             f"its entry 'params' has shape ({n - 1},) and type float64, expected numbers of shape ({n},)"),
            ("text weights", lambda d: d.update(params=np.array(["1.0"] * n)),
             f"its entry 'params' has shape ({n},) and type <U3, expected numbers of shape ({n},)"),
            ("no optimiser moments", lambda d: d.pop("optimizer.m"), "its entry 'optimizer.m' is missing"),
            ("no format", lambda d: d.pop("format"), not_ours + " (its arrays are ['batch_rng', 'config', "),
            ("bad rng", lambda d: d.update(batch_rng=np.array("{}")),
             "its batch_rng entry is missing or not a valid generator state"),
            ("future format", lambda d: d.update(format=np.array(FORMAT_VERSION + 1)),
             f"it has file format array({FORMAT_VERSION + 1})")):
        with np.load(good) as f:
            d = {k: f[k] for k in f.files}
        edit(d)
        path = tmp_path / f"edited_{len(paths)}.npz"
        np.savez(path, **d)
        paths.append((name, path, says))
    assert entries
    return paths


CALLED = []


class Unpickled:
    """Unpickling this calls CALLED.append: a file's pickle run by load would show in CALLED."""

    def __reduce__(self):
        return CALLED.append, ("unpickled",)


def test_a_model_file_is_never_unpickled(tmp_path):
    good = DeLaN(seed=0).save(tmp_path / "good")
    with np.load(good) as f:
        d = {k: f[k] for k in f.files}
    d["config"] = np.array([Unpickled()], dtype=object)                      # a pickle where JSON belongs
    np.savez(tmp_path / "pickled.npz", **d)
    with pytest.raises(ValueError, match=r"truncated or corrupt \(ValueError: .*allow_pickle=False"):
        DeLaN().load(tmp_path / "pickled.npz")
    assert CALLED == []


def test_weights_stored_in_float32_load(tmp_path):
    saved = DeLaN(seed=4)
    with np.load(saved.save(tmp_path / "m")) as f:
        d = {k: f[k] for k in f.files}
    d["params"] = d["params"].astype(np.float32)
    np.savez(tmp_path / "single.npz", **d)
    loaded = DeLaN(seed=4).load(tmp_path / "single.npz")
    assert loaded.get_params().dtype == np.float64
    np.testing.assert_array_equal(loaded.get_params(), saved.get_params().astype(np.float32))


def test_the_seed_and_the_batch_size_are_not_the_architecture(args, tmp_path):
    saved = DeLaN(seed=1, batch_size=64)
    saved.fit(*args, steps=3)
    loaded = DeLaN(seed=2, batch_size=32).load(saved.save(tmp_path / "m"))
    np.testing.assert_array_equal(loaded.get_params(), saved.get_params())


def saved_then_trained(cls, args, path):
    """A model saved to `path` after 10 steps, then trained 5 more (so loading would change it)."""
    model = cls(seed=0)
    model.fit(*args, steps=10)
    path = model.save(path)
    model.fit(*args, steps=5)
    return model, path


@pytest.mark.parametrize("cls", [DeLaN, BlackBox])
def test_corrupt_truncated_or_foreign_files_are_refused_and_change_nothing(cls, args, tmp_path):
    model, good = saved_then_trained(cls, args, tmp_path / "good")
    before = full_snapshot(model)
    for name, path, says in corrupt_files(tmp_path, good):
        with pytest.raises(ValueError, match=r"\. The model was not changed\.$") as err:
            model.load(path)
        assert str(err.value).startswith(f"cannot load {str(path)!r}: {says}"), (name, str(err.value))
        assert "Traceback" not in str(err.value), name
        assert_same(full_snapshot(model), before, name)
    with pytest.raises(FileNotFoundError, match=r"cannot load '.*missing\.npz': no such file"):
        model.load(tmp_path / "missing")
    with pytest.raises(TypeError, match="path must be a file name"):
        model.load(3)
    assert_same(full_snapshot(model), before)


def test_load_interrupted_while_applying_changes_nothing(args, tmp_path, monkeypatch):
    model, path = saved_then_trained(DeLaN, args, tmp_path / "m")
    before = full_snapshot(model)
    calls = []
    original = model.optimizer.set_state

    def interrupted(state):                                      # the weights are set already, then Ctrl-C
        calls.append(1)
        if len(calls) == 1:
            raise KeyboardInterrupt
        original(state)
    monkeypatch.setattr(model.optimizer, "set_state", interrupted)
    with pytest.raises(KeyboardInterrupt):
        model.load(path)
    monkeypatch.undo()
    assert len(calls) == 2                                       # interrupted, then the state put back
    assert_same(full_snapshot(model), before)


def test_repr_shows_the_activation_l_and_vs_units_and_a_non_default_eps():
    assert repr(DeLaN()) == (f"DeLaN(n_dof=2, hidden={tuple(facts.HIDDEN)}, activation={facts.ACTIVATION!r}, "
                             f"mass_units={facts.MASS_UNITS}, seed=0, lr={facts.LR:g}, batch_size={facts.BATCH_SIZE}, "
                             f"step=0)")
    assert "activation='tanh'" in repr(BlackBox(activation="tanh"))
    assert "eps=0.01" in repr(DeLaN(eps=0.01)) and "eps=" not in repr(DeLaN())


def test_an_interrupted_save_leaves_the_earlier_file_whole(args, tmp_path, monkeypatch):
    model, path = saved_then_trained(DeLaN, args, tmp_path / "m")
    saved = open(path, "rb").read()

    def interrupted(f, **arrays):
        f.write(b"half a file")
        raise KeyboardInterrupt
    monkeypatch.setattr(np, "savez", interrupted)
    with pytest.raises(KeyboardInterrupt):
        model.save(path)
    monkeypatch.undo()
    assert open(path, "rb").read() == saved and sorted(p.name for p in tmp_path.iterdir()) == ["m.npz"]
    assert DeLaN(seed=0).load(path).step == 10


@pytest.fixture(scope="module")
def uniform():
    return sample_uniform(double_pendulum(), 600, seed=0)


@pytest.mark.parametrize("cls", [DeLaN, BlackBox])
def test_save_and_load_keep_the_schedule_and_the_validation_history(cls, uniform, monkeypatch, tmp_path):
    a = lowered(cls(seed=0), uniform, monkeypatch)
    b = cls(seed=0).load(a.save(tmp_path / "m"))
    assert_same(full_snapshot(b), full_snapshot(a))
    assert b.schedule.since == 1 and len(b.validation_history) == 4
    a.fit(uniform, steps=250)
    b.fit(uniform, steps=250)
    assert_same(full_snapshot(b), full_snapshot(a))
    with np.load(tmp_path / "m.npz") as f:
        d = {k: f[k] for k in f.files}
    d["validation_history"] = np.zeros((2, 2))                       # laid out otherwise: refused
    np.savez(tmp_path / "bad.npz", **d)
    with pytest.raises(ValueError) as err:
        b.load(tmp_path / "bad.npz")
    assert str(err.value).startswith(f"cannot load {str(tmp_path / 'bad.npz')!r}: its entry 'validation_history' "
                                     f"has shape (2, 2)"), str(err.value)
    assert_same(full_snapshot(b), full_snapshot(a))


def test_a_file_of_another_format_is_refused_naming_the_one_it_reads(tmp_path):
    with np.load(DeLaN(seed=0).save(tmp_path / "new")) as f:
        d = {k: f[k] for k in f.files}
    d["format"] = np.array(FORMAT_VERSION - 1)                        # an older lesson_lib's format
    np.savez(tmp_path / "old.npz", **d)
    model = DeLaN(seed=0)
    before = full_snapshot(model)
    with pytest.raises(ValueError) as err:
        model.load(tmp_path / "old.npz")
    assert str(err.value) == (f"cannot load {str(tmp_path / 'old.npz')!r}: it has file format "
                              f"array({FORMAT_VERSION - 1}); this lesson_lib reads format {FORMAT_VERSION}. The model "
                              f"was not changed.")
    assert_same(full_snapshot(model), before)


def test_a_file_written_before_l_and_v_had_units_of_their_own_loads_into_a_model_that_shares_them(tmp_path):
    """A DeLaN file whose config has no mass_units (written when L and V read every unit): a model with
    mass_units=0 loads it; the default model refuses it, naming mass_units and the model to build."""
    path = tmp_path / "old.npz"
    DeLaN(seed=2, mass_units=0).save(path)
    with np.load(path) as f:
        arrays = dict(f)
    config = json.loads(str(arrays["config"]))
    del config["mass_units"]
    arrays["config"] = np.array(json.dumps(config))
    np.savez(path, **arrays)
    assert np.array_equal(DeLaN(mass_units=0).load(path).theta, DeLaN(seed=2, mass_units=0).theta)
    with pytest.raises(ValueError) as err:
        DeLaN().load(path)
    assert f"mass_units: the file has 0, this model has {facts.MASS_UNITS}" in str(err.value)
    build = str(err.value).split("load into it: ")[1].split(".load(")[0]
    assert eval(build, {"DeLaN": DeLaN}).load(path).mass_units == 0
