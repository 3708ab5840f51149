"""Bad and edge inputs across the model API, one row each.

A row is (target, call, expected, check): `call(model)` on a copy of a trained DeLaN or BlackBox (target "delan"
or "box", or None for a constructor call); `expected` an exception type and `check` a regex its message must
match (naming the argument), after which the model must be exactly as before; or `expected` None and `check` a
function that asserts the result is right (valid edge inputs: empty batches, lists).
"""
import copy

import numpy as np
import pytest
from model_states import assert_same, full_snapshot

from lesson_lib import BlackBox, DeLaN, double_pendulum, sample_uniform
from lesson_lib.validate import LimitExceeded

CHAIN = double_pendulum()
D = sample_uniform(CHAIN, 256, seed=0)
ARGS = (D["q"], D["qd"], D["qdd"], D["tau"])
E = np.zeros((0, 2))                                               # an empty batch
Q3 = np.random.default_rng(3).uniform(-2, 2, (3, 2))


def fit(m, *args, **kw):
    return m.fit(*(args or ARGS), **kw)


def shape(*want):
    def check(result):
        assert np.shape(result) == want, f"got shape {np.shape(result)}, expected {want}"
    return check


def equals(reference):
    def check(result):
        np.testing.assert_array_equal(result, reference(), strict=True)
    return check


def setattr_(m, name, value):
    setattr(m, name, value)


def batch(m):
    """The loss's batch of D, as fit builds it (model.training_batch)."""
    return m.training_batch(D)


def with_column(x, j, value):
    x = x.copy()
    x[:, j] = value
    return x


ROWS = {
    # ---- constructors
    "hidden str": (None, lambda m: DeLaN(hidden="32"), TypeError, r"hidden must be a tuple .*'32'"),
    "hidden int": (None, lambda m: DeLaN(hidden=32), TypeError, r"hidden must be a tuple .*32 \(int\)"),
    "hidden empty": (None, lambda m: DeLaN(hidden=()), ValueError, r"hidden must have at least one layer"),
    "hidden zero width": (None, lambda m: DeLaN(hidden=(0,)), ValueError, r"each width in hidden must be >= 1"),
    "hidden float width": (None, lambda m: DeLaN(hidden=(32.5,)), TypeError, r"hidden must be a tuple"),
    "hidden None": (None, lambda m: DeLaN(hidden=None), TypeError, r"hidden must be a tuple"),
    "hidden too many weights": (None, lambda m: DeLaN(hidden=(10**5, 10**5)), LimitExceeded,
                                r"number of weights asks for 10,00.*above the limit of 5,000,000"),
    "n_dof float": (None, lambda m: DeLaN(n_dof=2.7), TypeError, r"n_dof must be a whole number, got 2\.7"),
    "n_dof str": (None, lambda m: DeLaN(n_dof="two"), TypeError, r"n_dof must be a whole number, got 'two'"),
    "n_dof zero": (None, lambda m: DeLaN(n_dof=0), ValueError, r"n_dof must be >= 1, got 0"),
    "n_dof bool": (None, lambda m: DeLaN(n_dof=True), TypeError, r"n_dof must be a whole number, got True"),
    "n_dof huge": (None, lambda m: DeLaN(n_dof=1000), LimitExceeded, r"n_dof asks for 1,000, above the limit of 12"),
    "seed negative": (None, lambda m: DeLaN(seed=-1), ValueError, r"seed must be >= 0, got -1"),
    "seed float": (None, lambda m: DeLaN(seed=1.5), TypeError, r"seed must be a whole number"),
    "lr zero": (None, lambda m: DeLaN(lr=0), ValueError, r"lr must be > 0, got 0"),
    "lr negative": (None, lambda m: DeLaN(lr=-1e-3), ValueError, r"lr must be > 0, got -0\.001"),
    "lr nan": (None, lambda m: DeLaN(lr=np.nan), ValueError, r"lr must be a finite number, got nan"),
    "lr bool": (None, lambda m: DeLaN(lr=True), TypeError, r"lr must be a number, got True"),
    "lr str": (None, lambda m: DeLaN(lr="1e-3"), TypeError, r"lr must be a number, got '1e-3'"),
    "batch_size zero": (None, lambda m: DeLaN(batch_size=0), ValueError, r"batch_size must be >= 1, got 0"),
    "batch_size float": (None, lambda m: DeLaN(batch_size=12.5), TypeError, r"batch_size must be a whole number"),
    "batch_size huge": (None, lambda m: DeLaN(batch_size=10**7), LimitExceeded,
                        r"batch_size asks for 10,000,000, above the limit of 131,072"),
    "eps zero": (None, lambda m: DeLaN(eps=0), ValueError, r"eps must be > 0 and <= 1, got 0; .*positive-definite"),
    "eps negative": (None, lambda m: DeLaN(eps=-1e-3), ValueError, r"eps must be > 0"),
    "eps nan": (None, lambda m: DeLaN(eps=np.nan), ValueError, r"eps must be a finite number"),
    "eps None": (None, lambda m: DeLaN(eps=None), TypeError, r"eps must be a number, got None"),
    "activation unknown": (None, lambda m: DeLaN(activation="bogus"), ValueError,
                           r"unknown activation 'bogus'; choose one of 'isru', 'tanh', 'softplus'"),
    "activation not str": (None, lambda m: DeLaN(activation=np.tanh), TypeError, r"activation must be one of"),
    "box n_dof zero": (None, lambda m: BlackBox(n_dof=0), ValueError, r"n_dof must be >= 1, got 0"),
    "box hidden zero width": (None, lambda m: BlackBox(hidden=(0,)), ValueError, r"each width in hidden must be >= 1"),
    "box hidden str": (None, lambda m: BlackBox(hidden="32"), TypeError, r"hidden must be a tuple"),
    "box n_dof float": (None, lambda m: BlackBox(n_dof=2.7), TypeError, r"n_dof must be a whole number"),
    "box lr negative": (None, lambda m: BlackBox(lr=-1), ValueError, r"lr must be > 0"),
    "box batch_size zero": (None, lambda m: BlackBox(batch_size=0), ValueError, r"batch_size must be >= 1"),
    "box activation unknown": (None, lambda m: BlackBox(activation="relu"), ValueError, r"unknown activation 'relu'"),
    "hidden list ok": (None, lambda m: DeLaN(hidden=[8, 8]).hidden, None, lambda r: r == (8, 8) or pytest.fail(r)),
    "n_dof 3.0 ok": (None, lambda m: DeLaN(n_dof=3.0, hidden=(4,)).mass_matrix(Q3[:, :1].repeat(3, 1)), None,
                     shape(3, 3, 3)),
    # ---- states for inference
    "q wrong length": ("delan", lambda m: m.mass_matrix([1.0, 2.0, 3.0]), ValueError, r"q has shape \(3,\)"),
    "q str": ("delan", lambda m: m.mass_matrix("ab"), TypeError, r"q must be numeric"),
    "q nan": ("delan", lambda m: m.mass_matrix([0.0, np.nan]), ValueError, r"q contains NaN"),
    "q inf": ("delan", lambda m: m.gravity([[0.0, np.inf]]), ValueError, r"q contains NaN or inf"),
    "q bool": ("delan", lambda m: m.potential([True, False]), TypeError, r"q must be numeric .*booleans"),
    "q complex": ("delan", lambda m: m.cholesky_factor([1j, 0]), TypeError, r"q must be numeric .*complex"),
    "q 3-d": ("delan", lambda m: m.mass_matrix(np.zeros((2, 2, 2))), ValueError, r"q has shape \(2, 2, 2\)"),
    "qd None": ("delan", lambda m: m.inverse_dynamics([0, 0], None, [0, 0]), TypeError, r"qd must be numeric"),
    "batches disagree": ("delan", lambda m: m.inverse_dynamics(Q3, Q3[:2], Q3), ValueError,
                         r"batch sizes disagree: \{'q': 3, 'qd': 2, 'qdd': 3\}"),
    "tau wrong shape": ("delan", lambda m: m.forward_dynamics([0, 0], [0, 0], [0, 0, 0]), ValueError,
                        r"tau has shape \(3,\)"),
    "coriolis qd nan": ("delan", lambda m: m.coriolis([0, 0], [np.nan, 0]), ValueError, r"qd contains NaN"),
    "too many states": ("delan", lambda m: m.mass_matrix(np.zeros((m.max_states + 1, 2))), LimitExceeded,
                        r"number of states in one call asks for .*above the limit of .*smaller chunks"),
    "box qdd str": ("box", lambda m: m.implied_mass_matrix([0, 0], [0, 0], "x"), TypeError, r"qdd must be numeric"),
    "box q wrong joints": ("box", lambda m: m.inverse_dynamics(np.zeros((4, 3)), np.zeros((4, 2)), np.zeros((4, 2))),
                           ValueError, r"q has shape \(4, 3\)"),
    "box too many states": ("box", lambda m: m.inverse_dynamics(*[np.zeros((m.max_states + 1, 2))] * 3),
                            LimitExceeded, r"number of states in one call"),
    # ---- valid edge inputs: empty batches and lists
    "empty mass_matrix": ("delan", lambda m: m.mass_matrix(E), None, shape(0, 2, 2)),
    "empty mass_matrix_derivative": ("delan", lambda m: m.mass_matrix_derivative(E), None, shape(0, 2, 2, 2)),
    "empty cholesky_factor": ("delan", lambda m: m.cholesky_factor(E), None, shape(0, 2, 2)),
    "empty potential": ("delan", lambda m: m.potential(E), None, shape(0,)),
    "empty gravity": ("delan", lambda m: m.gravity(E), None, shape(0, 2)),
    "empty parts": ("delan", lambda m: m.parts(E, E, E)["c"], None, shape(0, 2)),
    "empty coriolis": ("delan", lambda m: m.coriolis(E, E), None, shape(0, 2)),
    "empty inverse_dynamics": ("delan", lambda m: m.inverse_dynamics(E, E, E), None, shape(0, 2)),
    "empty forward_dynamics": ("delan", lambda m: m.forward_dynamics(E, E, E), None, shape(0, 2)),
    "box empty inverse_dynamics": ("box", lambda m: m.inverse_dynamics(E, E, E), None, shape(0, 2)),
    "box empty implied_mass_matrix": ("box", lambda m: m.implied_mass_matrix(E, E, E), None, shape(0, 2, 2)),
    "list mass_matrix": ("delan", lambda m: m.mass_matrix(Q3.tolist()), None,
                         equals(lambda: MODELS["delan"].mass_matrix(Q3))),
    "list single gravity": ("delan", lambda m: m.gravity([0.3, -1.2]), None,
                            equals(lambda: MODELS["delan"].gravity(np.array([[0.3, -1.2]]))[0])),
    "int list forward_dynamics": ("delan", lambda m: m.forward_dynamics([0, 1], [0, 0], [1, 2]), None,
                                  equals(lambda: MODELS["delan"].forward_dynamics([0.0, 1.0], [0.0, 0.0], [1.0, 2.0]))),
    "box list implied_mass_matrix": ("box", lambda m: m.implied_mass_matrix(*[Q3.tolist()] * 3), None,
                                     equals(lambda: MODELS["box"].implied_mass_matrix(Q3, Q3, Q3))),
    "single state broadcast": ("delan", lambda m: m.inverse_dynamics(Q3, [0.0, 0.0], Q3), None,
                               equals(lambda: MODELS["delan"].inverse_dynamics(Q3, np.zeros((3, 2)), Q3))),
    # ---- fit
    "steps float": ("delan", lambda m: fit(m, steps=1.5), TypeError, r"steps must be a whole number, got 1\.5"),
    "steps None": ("delan", lambda m: fit(m, steps=None), TypeError, r"steps must be a whole number, got None"),
    "steps negative": ("delan", lambda m: fit(m, steps=-5), ValueError, r"steps must be >= 0, got -5"),
    "steps bool": ("delan", lambda m: fit(m, steps=True), TypeError, r"steps must be a whole number"),
    "steps huge": ("delan", lambda m: fit(m, steps=10**9), LimitExceeded,
                   r"steps asks for 1,000,000,000, above the limit of 200,000; call fit several times"),
    "every zero": ("delan", lambda m: fit(m, steps=3, every=0), ValueError, r"every must be >= 1, got 0"),
    "every float": ("delan", lambda m: fit(m, steps=3, every=2.5), TypeError, r"every must be a whole number"),
    "callback not callable": ("delan", lambda m: fit(m, steps=3, callback="print"), TypeError,
                              r"callback must be a function"),
    "one sample": ("delan", lambda m: fit(m, *(x[:1] for x in ARGS), steps=3), ValueError, r"at least 2 samples"),
    "no samples": ("box", lambda m: fit(m, E, E, E, E, steps=3), ValueError, r"at least 2 samples .*got 0"),
    "qdd wrong joints": ("delan", lambda m: fit(m, ARGS[0], ARGS[1], np.zeros((256, 3)), ARGS[3]), ValueError,
                         r"qdd has shape \(256, 3\)"),
    "tau nan": ("box", lambda m: fit(m, *ARGS[:3], with_column(ARGS[3], 0, np.nan)), ValueError, r"tau contains NaN"),
    "tau constant joint": ("delan", lambda m: fit(m, *ARGS[:3], with_column(ARGS[3], 1, 0.0)), ValueError,
                           r"torques of joint 1 do not vary .*cannot teach"),
    "box tau constant joint": ("box", lambda m: fit(m, *ARGS[:3], with_column(ARGS[3], 0, 4.0)), ValueError,
                               r"torques of joint 0 do not vary"),
    "qd far beyond a robot's": ("delan", lambda m: fit(m, ARGS[0], ARGS[1] * 1e10, *ARGS[2:]), ValueError,
                                r"qd reaches .* rad/s \(joint \d\), far beyond any robot's data "
                                r".*check the units of qd"),
    "qd beyond float32": ("box", lambda m: fit(m, ARGS[0], ARGS[1] * 1e40, *ARGS[2:]), ValueError,
                          r"qd reaches .*far beyond any robot's data"),
    "q far out": ("box", lambda m: fit(m, ARGS[0] * 1e7, *ARGS[1:]), ValueError, r"q reaches .* rad \(joint"),
    "fit lists": ("delan", lambda m: fit(m, *(x[:64].tolist() for x in ARGS), steps=3), None,
                  lambda r: len(r) == 3 or pytest.fail(r)),
    "fit zero steps": ("box", lambda m: fit(m, steps=0), None, lambda r: r == [] or pytest.fail(r)),
    # ---- parameters and learning rate
    "params wrong length": ("delan", lambda m: m.set_params(np.zeros(3)), ValueError,
                            rf"params must be a flat vector of {DeLaN().theta.size} numbers .*got shape \(3,\)"),
    "params nan": ("delan", lambda m: m.set_params(np.full(m.theta.size, np.nan)), ValueError, r"params contains NaN"),
    "params str": ("box", lambda m: m.set_params("abc"), TypeError, r"params must be numeric .*'abc'"),
    "params bool": ("box", lambda m: m.set_params(np.ones(m.theta.size, bool)), TypeError,
                    r"params must be numeric .*booleans"),
    "params matrix": ("delan", lambda m: m.set_params(np.zeros((2, 674))), ValueError, r"params .*shape \(2, 674\)"),
    "lr set negative": ("delan", lambda m: setattr_(m, "lr", -1e-3), ValueError, r"lr must be > 0.*model\.lr = 0\.003"),
    "lr set zero": ("box", lambda m: setattr_(m, "lr", 0), ValueError, r"lr must be > 0"),
    "lr set str": ("delan", lambda m: setattr_(m, "lr", "fast"), TypeError, r"lr must be a number, got 'fast'"),
    "lr set inf": ("delan", lambda m: setattr_(m, "lr", np.inf), ValueError, r"lr must be a finite number"),
    # ---- the public loss, model.loss(theta, batch)
    "loss theta short": ("delan", lambda m: m.loss(np.zeros(3), batch(m)), ValueError,
                         r"theta must be a flat vector of \d+ numbers \(the flat weights, like get_params\(\)\), "
                         r"got shape \(3,\)"),
    "loss theta NaN": ("box", lambda m: m.loss(np.full(m.theta.size, np.nan), batch(m)), ValueError,
                       r"theta contains NaN or inf"),
    "loss batch a dict": ("delan", lambda m: m.loss(m.theta, D), TypeError,
                          r"batch must be the 5 arrays \(q, qd, qdd, target, inv_scale\) that "
                          r"model.training_batch\(data\) returns, got \{"),
    "loss batch of four": ("box", lambda m: m.loss(m.theta, batch(m)[:4]), TypeError, r"batch must be the 5 arrays"),
    "loss batch 3 joints": ("delan", lambda m: m.loss(m.theta, (np.zeros((256, 3)),) + batch(m)[1:]), ValueError,
                            r"batch\['q'\] has shape \(256, 3\), expected"),
    "loss batch one state": ("delan", lambda m: m.loss(m.theta, batch(m)[:2] + (np.zeros(2),) + batch(m)[3:]),
                             ValueError, r"batch\['qdd'\] has shape \(2,\), expected \(N, 2\): one row per "
                                         r"sample"),
    "loss batch empty": ("box", lambda m: m.loss(m.theta, tuple(x[:0] for x in batch(m))), ValueError,
                         r"batch holds 0 sample\(s\), at least 1 needed"),
    "loss batch rows disagree": ("delan", lambda m: m.loss(m.theta, batch(m)[:3] + (batch(m)[3][:10], batch(m)[4])),
                                 ValueError, r"the arrays of batch have different numbers of samples \{'q': 256, "
                                             r"'qd': 256, 'qdd': 256, 'target': 10, 'inv_scale': 256\}"),
    "loss batch NaN": ("delan", lambda m: m.loss(m.theta, batch(m)[:4] + (with_column(batch(m)[4], 1, np.nan),)),
                       ValueError, r"batch\['inv_scale'\] contains NaN or inf"),
    "loss batch a string": ("box", lambda m: m.loss(m.theta, ("q",) + batch(m)[1:]), TypeError,
                            r"batch\['q'\] must be numeric"),
    # ---- save and load
    "save path int": ("delan", lambda m: m.save(3), TypeError, r"path must be a file name .*3 \(int\)"),
    "save missing folder": ("box", lambda m: m.save("/nonexistent/dir/model"), FileNotFoundError,
                            r"cannot save to '/nonexistent/dir/model\.npz': "
                            r"the folder '/nonexistent/dir' does not exist"),
    "load path None": ("delan", lambda m: m.load(None), TypeError, r"path must be a file name .*None"),
    "load missing": ("box", lambda m: m.load("/nonexistent/dir/model"), FileNotFoundError,
                     r"cannot load '/nonexistent/dir/model\.npz': no such file"),
}

MODELS = {}


@pytest.fixture(scope="module", autouse=True)
def models():
    for name, cls in (("delan", DeLaN), ("box", BlackBox)):
        MODELS[name] = cls(seed=0)
        MODELS[name].fit(*ARGS, steps=20)
    return MODELS


def test_the_table_is_large_enough():
    assert len(ROWS) >= 50


@pytest.mark.parametrize("target, call, expected, check", ROWS.values(), ids=ROWS.keys())
def test_bad_or_edge_input(target, call, expected, check):
    model = copy.deepcopy(MODELS[target]) if target else None
    before = full_snapshot(model) if model is not None else None
    if expected is None:
        check(call(model))
        return
    with pytest.raises(expected, match=check):
        call(model)
    if model is not None:
        assert_same(full_snapshot(model), before)
