"""Bad and edge inputs to the Bench, one row each: a clear message naming the argument (or, for a valid edge
input, the right result), and nothing half-changed.

Three tables: arguments to Bench(...), values given to its sliders, and step counts given to Bench.train.
"""
import html

import numpy as np
import pytest

from lesson_course.ui.bench import Bench
from lesson_lib import BlackBox, DeLaN, PlanarChain, double_pendulum, sample_uniform

CHAIN = double_pendulum()
DATA = sample_uniform(CHAIN, 64, seed=0)
THREE = PlanarChain(m=[1, 1, 1], l=[1, 1, 1], lc=[.5, .5, .5], I=[.1, .1, .1])
ONE = PlanarChain(m=[1], l=[1], lc=[.5], I=[.1])


def _data(**changes):
    """DATA with some entries replaced (None removes the key)."""
    d = {k: v.copy() for k, v in DATA.items()}
    for k, v in changes.items():
        if v is None:
            del d[k]
        else:
            d[k] = v
    return d


def _with_nan():
    q = DATA["q"].copy()
    q[3, 1] = np.nan
    return _data(q=q)


# (id, Bench keyword arguments, exception type, words the message must contain)
CONSTRUCTION = [
    ("chain with 3 joints", dict(chain=THREE), ValueError, ["chain", "2 joints", "3 joints", "double_pendulum()"]),
    ("chain with 1 joint", dict(chain=ONE), ValueError, ["chain", "2 joints", "1 joints"]),
    ("chain as a string", dict(chain="double pendulum"), TypeError, ["chain", "PlanarChain", "str"]),
    ("chain is a DeLaN", dict(chain=DeLaN()), TypeError, ["chain", "PlanarChain", "DeLaN"]),
    ("chain is a dict", dict(chain={"m": [1, 1]}), TypeError, ["chain", "PlanarChain", "dict"]),
    ("model is a BlackBox", dict(model=BlackBox(seed=0)), TypeError, ["model", "DeLaN", "black box", "mass matrix"]),
    ("model with 3 joints", dict(model=DeLaN(n_dof=3)), ValueError, ["model", "2 joints", "n_dof=3"]),
    ("model with 1 joint", dict(model=DeLaN(n_dof=1)), ValueError, ["model", "2 joints", "n_dof=1"]),
    ("model as a string", dict(model="delan"), TypeError, ["model", "DeLaN", "str"]),
    ("model is a chain", dict(model=CHAIN), TypeError, ["model", "DeLaN", "PlanarChain"]),
    ("model and hidden", dict(model=DeLaN(), hidden=(8,)), ValueError, ["either a model or hidden/lr"]),
    ("model and lr", dict(model=DeLaN(), lr=0.01), ValueError, ["either a model or hidden/lr"]),
    ("data as a list", dict(data=[1, 2]), TypeError, ["data", "dict", "list", "sample_uniform"]),
    ("data as an array", dict(data=np.zeros((4, 2))), TypeError, ["data", "dict", "ndarray"]),
    ("data empty dict", dict(data={}), ValueError, ["data", "lacks", "'q'", "'tau'"]),
    ("data without tau", dict(data=_data(tau=None)), ValueError, ["data", "lacks", "'tau'"]),
    ("data q with 3 columns", dict(data=_data(q=np.zeros((64, 3)))), ValueError, ["q", "shape", "(64, 3)"]),
    ("data one state each", dict(data={k: v[0] for k, v in DATA.items()}), ValueError,
     ["(N, 2)", "one row per sample"]),
    ("data batch sizes disagree", dict(data=_data(tau=DATA["tau"][:10])), ValueError, ["different numbers of samples"]),
    ("data with no samples", dict(data={k: v[:0] for k, v in DATA.items()}), ValueError, ["holds 0 sample",
                                                                                           "at least 2 needed"]),
    ("data with one sample", dict(data={k: v[:1] for k, v in DATA.items()}), ValueError, ["holds 1 sample",
                                                                                           "at least 2 needed"]),
    ("data with NaN", dict(data=_with_nan()), ValueError, ["q", "NaN"]),
    ("data with inf torque", dict(data=_data(tau=np.full((64, 2), np.inf))), ValueError, ["tau", "inf"]),
    ("data as strings", dict(data=_data(qd=np.full((64, 2), "1"))), TypeError, ["qd", "numeric"]),
    ("data as booleans", dict(data=_data(qdd=np.ones((64, 2), bool))), TypeError, ["qdd", "booleans"]),
    ("data as complex", dict(data=_data(qdd=np.ones((64, 2), complex))), TypeError, ["qdd", "complex"]),
    ("data None entry", dict(data=dict(DATA, q=None)), TypeError, ["q", "numeric", "None"]),
    ("data constant torque", dict(data=_data(tau=np.ones((64, 2)))), ValueError, ["tau", "constant", "joint 0"]),
    ("data constant torque joint 1", dict(data=_data(tau=np.c_[DATA["tau"][:, 0], np.zeros(64)])), ValueError,
     ["tau", "constant", "joint 1"]),
    ("seed negative", dict(seed=-1), ValueError, ["seed", ">= 0", "-1"]),
    ("seed fractional", dict(seed=1.5), TypeError, ["seed", "whole number", "1.5"]),
    ("seed string", dict(seed="0"), TypeError, ["seed", "whole number", "'0'"]),
    ("seed None", dict(seed=None), TypeError, ["seed", "whole number", "None"]),
    ("seed bool", dict(seed=True), TypeError, ["seed", "whole number", "bool"]),
    ("hidden int", dict(hidden=32), TypeError, ["hidden", "tuple of layer widths", "e.g. hidden=(32, 32)"]),
    ("hidden string", dict(hidden="32"), TypeError, ["hidden", "tuple of layer widths", "'32'"]),
    ("hidden zero width", dict(hidden=(0,)), ValueError, ["width", ">= 1", "0"]),
    ("hidden empty", dict(hidden=()), ValueError, ["hidden", "at least one layer"]),
    ("hidden fractional", dict(hidden=(8.5,)), TypeError, ["hidden", "tuple of layer widths"]),
    ("lr zero", dict(lr=0), ValueError, ["lr", "> 0", "0"]),
    ("lr negative", dict(lr=-0.01), ValueError, ["lr", "> 0", "-0.01"]),
    ("lr NaN", dict(lr=float("nan")), ValueError, ["lr", "finite"]),
    ("lr string", dict(lr="fast"), TypeError, ["lr", "number", "'fast'"]),
    ("steps_per_press zero", dict(steps_per_press=0), ValueError, ["steps_per_press", ">= 1", "0"]),
    ("steps_per_press negative", dict(steps_per_press=-5), ValueError, ["steps_per_press", ">= 1", "-5"]),
    ("steps_per_press fractional", dict(steps_per_press=1.5), TypeError, ["steps_per_press", "whole number"]),
    ("steps_per_press string", dict(steps_per_press="2000"), TypeError, ["steps_per_press", "whole number"]),
    ("steps_per_press None", dict(steps_per_press=None), TypeError, ["steps_per_press", "whole number"]),
    ("steps_per_press huge", dict(steps_per_press=10**9), ValueError, ["steps_per_press", "1,000,000,000",
                                                                      "100,000", "press Train several times"]),
    ("update_every zero", dict(update_every=0), ValueError, ["update_every", ">= 1"]),
    ("update_every negative", dict(update_every=-250), ValueError, ["update_every", ">= 1", "-250"]),
    ("update_every fractional", dict(update_every=2.5), TypeError, ["update_every", "whole number"]),
    ("grid_points one", dict(grid_points=1), ValueError, ["grid_points", ">= 2", "1"]),
    ("grid_points zero", dict(grid_points=0), ValueError, ["grid_points", ">= 2", "0"]),
    ("grid_points huge", dict(grid_points=1000), ValueError, ["grid_points", "1,000", "201"]),
    ("grid_points fractional", dict(grid_points=41.5), TypeError, ["grid_points", "whole number"]),
]


@pytest.mark.parametrize("kwargs, error, words", [row[1:] for row in CONSTRUCTION],
                         ids=[row[0] for row in CONSTRUCTION])
def test_bad_construction_fails_at_once_with_a_clear_message(kwargs, error, words):
    with pytest.raises(error) as caught:
        Bench(**kwargs)
    message = str(caught.value)
    for word in words:
        assert word in message, f"{word!r} not in: {message}"
    assert "Traceback" not in message and "numpy" not in message


# (id, Bench keyword arguments, check of the built Bench): valid edge inputs are accepted as they should be
VALID = [
    ("data as nested lists", dict(data={k: v.tolist() for k, v in DATA.items()}),
     lambda b: b.data["q"].shape == (64, 2) and "over all 64 samples" in b.status.value),
    ("data with two samples", dict(data={k: v[:2] for k, v in DATA.items()}), lambda b: len(b.data["tau"]) == 2),
    ("data with integer arrays", dict(data={k: np.round(v).astype(int) + np.arange(64)[:, None] % 3
                                            for k, v in DATA.items()}), lambda b: b.data["q"].dtype == float),
    ("data with extra keys", dict(data=dict(DATA, note="mine")), lambda b: set(b.data) == {"q", "qd", "qdd", "tau"}),
    ("seed as numpy int", dict(seed=np.int64(3)), lambda b: b.model.seed == 3),
    ("seed as whole float", dict(seed=2.0), lambda b: b.model.seed == 2),
    ("hidden as list", dict(hidden=[8, 8]), lambda b: b.model.hidden == (8, 8)),
    ("lr as numpy float", dict(lr=np.float32(0.01)), lambda b: b.model.lr == pytest.approx(0.01)),
    ("a given 2-joint DeLaN", dict(model=DeLaN(seed=5, hidden=(8,))), lambda b: b.model.seed == 5),
    ("steps_per_press as whole float", dict(steps_per_press=100.0), lambda b: "Train ×100" in
     b.train_button.description),
    ("smallest grid", dict(grid_points=2), lambda b: b.grid.shape == (4, 2) and "2×2 torus grid" in b.status.value),
]


@pytest.mark.parametrize("kwargs, ok", [row[1:] for row in VALID], ids=[row[0] for row in VALID])
def test_valid_edge_construction_is_accepted(kwargs, ok):
    assert ok(Bench(**kwargs))


@pytest.fixture(scope="module")
def bench():
    return Bench(seed=0, steps_per_press=20)


# (id, value given to a slider, words the Bench's message must contain)
BAD_ANGLES = [
    ("NaN", float("nan"), ["finite", "nan"]),
    ("numpy NaN", np.float64("nan"), ["finite", "nan"]),
    ("inf", float("inf"), ["finite", "inf"]),
    ("minus inf", -np.inf, ["finite", "-inf"]),
    ("string", "abc", ["a number", "'abc'"]),
    ("numeric string", "0.5", ["a number", "'0.5'"]),
    ("None", None, ["a number", "None"]),
    ("True", True, ["a number", "bool"]),
    ("numpy bool", np.bool_(False), ["a number", "bool"]),
    ("complex", 1 + 2j, ["a number", "complex"]),
    ("list", [0.1, 0.2], ["a number", "list"]),
    ("array of one", np.array([0.3]), ["a number", "ndarray"]),
    ("dict", {"q0": 0.1}, ["a number", "dict"]),
]


@pytest.mark.parametrize("slider", ["q0", "q1"])
@pytest.mark.parametrize("value, words", [row[1:] for row in BAD_ANGLES], ids=[row[0] for row in BAD_ANGLES])
def test_a_bad_angle_is_refused_and_the_last_good_value_kept(bench, slider, value, words):
    widget = getattr(bench, slider)
    widget.value = 0.25
    panels = (bench.readout.value, bench.matrices.value, bench.plot.value)
    widget.value = value
    assert widget.value == 0.25
    assert (bench.readout.value, bench.matrices.value, bench.plot.value) == panels
    message = html.unescape(bench.message.value)                 # the text the learner reads
    for word in [f"{slider} must be", f"Kept {slider} = 0.25 rad", *words]:
        assert word in message, f"{word!r} not in: {message}"


# (id, value given to a slider, the value it must take)
EDGE_ANGLES = [
    ("numpy float", np.float64(0.3), 0.3),
    ("integer", 1, 1.0),
    ("numpy integer", np.int64(-2), -2.0),
    ("0-d array", np.array(0.7), 0.7),
    ("above the range", 10.0, np.pi),
    ("below the range", -1e300, -np.pi),
    ("exactly pi", np.pi, np.pi),
]


@pytest.mark.parametrize("value, expected", [row[1:] for row in EDGE_ANGLES], ids=[row[0] for row in EDGE_ANGLES])
def test_a_valid_edge_angle_is_taken(bench, value, expected):
    bench.q1.value = value
    assert bench.q1.value == pytest.approx(expected) and isinstance(bench.q1.value, float)
    assert f", {expected:.2f}) rad" in bench.readout.value


# (id, steps given to Bench.train, exception type, words)
BAD_STEPS = [
    ("zero", 0, ValueError, ["steps", ">= 1", "0"]),
    ("negative", -5, ValueError, ["steps", ">= 1", "-5"]),
    ("fractional", 1.5, TypeError, ["steps", "whole number", "1.5"]),
    ("string", "10", TypeError, ["steps", "whole number", "'10'"]),
    ("None", None, TypeError, ["steps", "whole number", "None"]),
    ("bool", True, TypeError, ["steps", "whole number", "bool"]),
    ("NaN", float("nan"), TypeError, ["steps", "whole number"]),
    ("huge", 10**9, ValueError, ["steps", "1,000,000,000", "100,000"]),
]


@pytest.mark.parametrize("steps, error, words", [row[1:] for row in BAD_STEPS], ids=[row[0] for row in BAD_STEPS])
def test_bad_steps_to_train_are_refused_and_nothing_changes(bench, steps, error, words):
    before = (bench.model.step, bench.model.get_params().copy(), bench.status.value, bench.badge.value)
    with pytest.raises(error) as caught:
        bench.train(steps)
    for word in words:
        assert word in str(caught.value), f"{word!r} not in: {caught.value}"
    after = (bench.model.step, bench.model.get_params(), bench.status.value, bench.badge.value)
    assert before[0] == after[0] and np.array_equal(before[1], after[1]) and before[2:] == after[2:]
    assert not bench._busy


def test_a_whole_float_number_of_steps_trains(bench):
    start = bench.model.step
    bench.train(10.0)
    assert bench.model.step == start + 10 and "Trained 10 steps" in bench.message.value
