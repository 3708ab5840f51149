"""The fast path (lesson_lib.model.fast) piece by piece: a fused node hands its forward pass to its reverse pass
through a closure (one forward per call, nothing kept by any module), its activations against autograd's
derivatives of the definition's, the network's reverse pass, and which torque (quadratic form or definition) and
precision the loss takes.  tests/test_definition.py holds the whole loss and its gradient to the definition's;
tests/test_quadratic.py the quadratic form."""
import sys
import types

import numpy as np
import pytest
from autograd import elementwise_grad, grad, value_and_grad
from autograd.test_util import check_grads

from lesson_lib import BlackBox, DeLaN, double_pendulum, sample_uniform
from lesson_lib.model import definition, fast, quadratic
from lesson_lib.model.definition import ACTIVATIONS, n_weights, tril_order

rng = np.random.default_rng(11)


# ---------------------------------------------------------------------- one node, its reverse pass a closure
def square_sum(record):
    """f(x, a) = a sum(x^2) as a fused node, differentiable in x: its forward pass returns the value and its VJP, a
    closure over 2x (and over a and x for d/da, which wrt does not offer)."""
    def forward(x, a):
        record.append("forward")
        twice = 2 * x

        def vjp(g, argnums):
            record.append(("vjp", argnums))
            return tuple({0: g * a * twice, 1: g * np.sum(x * x)}[i] for i in argnums)
        return a * np.sum(x * x), vjp
    return forward


def test_an_untraced_call_returns_the_value_alone():
    record = []
    f = fast.fused_primitive(square_sum(record), wrt=(0,))
    assert f(np.array([1.0, -2.0]), 3.0) == 15.0
    assert record == ["forward"]


def test_a_traced_call_runs_its_forward_pass_once_and_its_own_reverse_pass():
    record = []
    f = fast.fused_primitive(square_sum(record), wrt=(0,))
    g = grad(f)(np.array([1.0, -2.0]), 3.0)
    np.testing.assert_array_equal(g, [6.0, -12.0])                          # 2 a x
    assert record == ["forward", ("vjp", (0,))]


def test_two_calls_traced_together_each_reverse_through_their_own_forward_pass():
    """Both forward passes run before either reverse pass: each VJP still has its own call's intermediates (a
    hand-over through anything shared would give the second call's to the first)."""
    record = []
    f = fast.fused_primitive(square_sum(record), wrt=(0,))
    x = np.array([1.0, -2.0])
    np.testing.assert_array_equal(grad(lambda x: f(x, 3.0) + f(2 * x, 1.0))(x), 6 * x + 8 * x)
    assert record == ["forward", "forward", ("vjp", (0,)), ("vjp", (0,))]


def test_only_the_arguments_named_in_wrt_can_be_differentiated():
    f = fast.fused_primitive(square_sum([]), wrt=(0,))
    with pytest.raises(NotImplementedError, match=r"^forward is differentiable only in arguments \(0,\), asked "
                                                  r"for \(1,\)$"):
        grad(f, 1)(np.array([1.0, -2.0]), 3.0)
    both = fast.fused_primitive(square_sum([]), wrt=(0, 1))
    assert grad(both, 1)(np.array([1.0, -2.0]), 3.0) == 5.0                  # d/da = sum x^2


def test_differentiating_the_loss_in_anything_but_theta_is_refused():
    model = DeLaN(seed=0)
    q, qd, qdd, target, inv_scale = (rng.uniform(0.1, 2, (8, 2)) for _ in range(5))
    with pytest.raises(NotImplementedError, match="differentiable only in arguments"):
        grad(lambda v: fast._loss(model.theta, model.architecture, fast.input_jet(q), v, qdd, target,
                                  inv_scale))(qd)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_loss_and_grad_gives_autograds_numbers_to_the_bit(dtype):
    """fit's step (fast.loss_and_grad, no tape) and autograd through the node (model.loss) run the same passes."""
    model = DeLaN(seed=1)
    model.set_params(2.0 * model.get_params())
    batch = tuple(x.astype(dtype) for x in model.training_batch(sample_uniform(double_pendulum(), 64, seed=2)))
    value, g = fast.loss_and_grad(model.theta, model.architecture, batch)
    want_value, want_g = value_and_grad(fast.loss)(model.theta, model.architecture, batch)
    assert value == want_value and g.dtype == want_g.dtype == np.float64
    np.testing.assert_array_equal(g, want_g)


def fingerprint(value):
    """What a module-level value holds: containers and arrays by their contents, anything else by its identity (a
    function, a class, a cache of read-only constant tables such as quadratic.coefficients)."""
    if isinstance(value, (list, tuple)):
        return type(value), tuple(fingerprint(v) for v in value)
    if isinstance(value, dict):
        return dict, tuple((k, fingerprint(v)) for k, v in value.items())
    if isinstance(value, (set, frozenset)):
        return type(value), frozenset(map(id, value))
    if isinstance(value, np.ndarray):
        return np.ndarray, value.shape, value.dtype.str, value.tobytes()
    return id(value), getattr(value, "__dict__", {}).keys() if callable(value) else ()


def library_globals(names=None):
    """{module: {name: fingerprint}} of the lesson_lib modules `names` (default: every one loaded), their functions'
    attributes included."""
    names = names or sorted(name for name in sys.modules if name.startswith("lesson_lib"))
    return {name: {k: fingerprint(v) for k, v in vars(sys.modules[name]).items() if not isinstance(v, types.ModuleType)}
            for name in names}


@pytest.mark.parametrize("cls", [DeLaN, BlackBox])
def test_no_module_keeps_anything_between_a_forward_pass_and_its_reverse_pass(cls):
    """Every module's globals are the same before a traced loss, between its forward and its reverse pass, after
    it, and after training and inference: intermediates travel in closures, not in a module."""
    model = cls(seed=0)
    data = sample_uniform(double_pendulum(), 64, seed=0)
    batch = model.training_batch(data)
    q = data["q"][:5]
    model.inverse_dynamics(q, q, q)                 # caches of constant tables filled first
    before, during = library_globals(), []

    def loss(theta):
        value = model.loss(theta, batch)
        during.append(library_globals(before))
        return value
    value_and_grad(loss)(model.theta)
    model.fit(data, steps=3)
    model.inverse_dynamics(q, q, q)
    assert during == [before]
    assert library_globals(before) == before


# ---------------------------------------------------------------------- activations: s, s', s''/s'
# moderate and large |z| (the jet meets both: weights grow during training, and at weight scale 100 in the tests)
Z = np.concatenate([np.linspace(-8.0, 8.0, 321), [-1e3, -200.0, -50.0, -20.0, 20.0, 50.0, 200.0, 1e3]])


def assert_fast_matches_reference(reference, fast_s):
    """fast_s(z) returns s, s' and s''/s' equal to autograd's s, ds/dz and d2s/dz2 / ds/dz of the reference."""
    with np.errstate(over="ignore", invalid="ignore"):      # autograd's tanh' overflows cosh far out
        s_ref = reference(Z)
        d1 = elementwise_grad(reference)(Z)
        d2 = elementwise_grad(elementwise_grad(reference))(Z)
    s, s1, curv = fast_s(Z.copy())
    np.testing.assert_allclose(s, s_ref, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(s1, d1, rtol=1e-9, atol=1e-15)
    # the ratio where autograd's s' and s'' have not underflowed (far in a flat tail they round to 0 or NaN)
    ok = (np.abs(d1) > 1e-250) & ((np.abs(d2) > 1e-250) | (np.abs(Z) < 1))
    assert ok[np.abs(Z) <= 8].all(), "the reference's derivatives underflowed at moderate z"
    np.testing.assert_allclose(curv[ok], d2[ok] / d1[ok], rtol=1e-7, atol=1e-12)


def assert_network_gradients_right(act):
    """check_grads (reverse mode against finite differences) through jet_mlp with `act` as hidden activation."""
    n = 2
    tril = tril_order(n)
    sizes = (2 * n, 5, 4, len(tril[0]) + 1)
    theta = 0.8 * np.random.default_rng(5).standard_normal(n_weights(sizes))
    X = fast.input_jet(np.random.default_rng(6).uniform(-3, 3, (4, n)))
    check_grads(lambda t: fast.mlp(X, t, sizes, act, n), modes=["rev"], order=1)(theta)
    check_grads(lambda x: fast.mlp(x, theta, sizes, act, n), modes=["rev"], order=1)(X)


def test_the_fast_table_has_every_activation_of_the_definition():
    assert set(fast.FAST) == set(ACTIVATIONS)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_fast_activation_equals_autograd_derivatives_of_its_reference(name):
    assert_fast_matches_reference(ACTIVATIONS[name], fast.FAST[name])


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_network_gradient_with_each_hidden_activation(name):
    assert_network_gradients_right(name)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_every_registered_activation_builds_and_trains_both_models(name):
    rng = np.random.default_rng(0)
    q, qd, qdd = (rng.uniform(-2, 2, (64, 2)) for _ in range(3))
    tau = rng.normal(size=(64, 2))
    for model in (DeLaN(hidden=(8,), activation=name), BlackBox(hidden=(8,), activation=name)):
        assert f"activation={name!r}" in repr(model)
        losses = model.fit(q, qd, qdd, tau, steps=3)
        assert len(losses) == 3 and np.all(np.isfinite(losses))


def broken_isru(z):
    """isru with the reverse pass given s'' instead of s''/s' (a plausible slip)."""
    s, s1, curv = fast.FAST["isru"](z)
    return s, s1, curv * s1


def test_a_wrong_reverse_pass_term_is_caught(monkeypatch):
    with pytest.raises(AssertionError):
        assert_fast_matches_reference(ACTIVATIONS["isru"], broken_isru)
    monkeypatch.setitem(fast.FAST, "broken", broken_isru)
    with pytest.raises(AssertionError):
        assert_network_gradients_right("broken")


# ---------------------------------------------------------------------- the network's reverse pass
def network_vjp(argnums):
    sizes = (4, 5, 3)
    theta = rng.normal(size=definition.n_weights(sizes))
    X = rng.normal(size=(3, 6, 4))                          # a jet: 1 + n = 3 rows, batch 6, 4 features
    J, vjp = fast.network_and_vjp(X, theta, sizes, "isru", 0)
    return X, theta, vjp(rng.normal(size=J.shape), argnums)


def test_the_networks_reverse_pass_gives_the_gradients_asked_for_in_their_order():
    X, theta, (gX, gtheta) = network_vjp((0, 1))
    assert gX.shape == X.shape and gtheta.shape == theta.shape
    X, theta, (gtheta, gX) = network_vjp((1, 0))
    assert gX.shape == X.shape and gtheta.shape == theta.shape
    assert [g.shape for g in network_vjp((1,))[2]] == [theta.shape]


def test_one_hidden_layer_returns_its_input_gradient_only_when_asked():
    X = rng.normal(size=(3, 6, 4))
    W, b = rng.normal(size=(5, 4)), rng.normal(size=5)
    A, record = fast.hidden_forward(X.copy(), W, b, "tanh")
    dW, db = np.empty_like(W), np.empty_like(b)
    G = rng.normal(size=A.shape)
    assert fast.hidden_backward(G.copy(), W, record, dW, db).shape == X.shape
    assert fast.hidden_backward(G.copy(), W, record, dW, db, input_grad=False) is None


# ---------------------------------------------------------------------- the loss: which torque, which precision
def test_the_loss_takes_the_quadratic_form_up_to_max_quadratic_joints_and_the_definition_above(monkeypatch):
    assert quadratic.fits(quadratic.MAX_QUADRATIC_JOINTS) and not quadratic.fits(quadratic.MAX_QUADRATIC_JOINTS + 1)
    model = DeLaN(hidden=(4,))
    batch = tuple(rng.normal(size=(5, 2)) for _ in range(5))
    used, plain = [], definition.loss
    monkeypatch.setattr(quadratic, "quadratic_torque", lambda *a: used.append("quadratic") or (np.zeros((2, 5)), None))
    monkeypatch.setattr(definition, "loss", lambda *a, **k: used.append("definition") or plain(*a, **k))
    fast.loss(model.theta, model.architecture, batch)
    monkeypatch.setattr(quadratic, "MAX_QUADRATIC_JOINTS", 1)
    fast.loss(model.theta, model.architecture, batch)
    assert used == ["quadratic", "definition"]


@pytest.mark.parametrize("n", [2, 4])
def test_the_loss_computes_in_the_features_precision_and_returns_the_weights(n):
    """fit passes a float32 batch (as PyTorch trains) and float64 weights: the loss is float32, its gradient float64
    and close to the float64 one; both forms of the torque (quadratic for n = 2, the definition's for n = 4)."""
    model = DeLaN(n_dof=n, hidden=(8, 8), seed=2)
    q, qd, qdd, tau = (rng.normal(size=(16, n)) for _ in range(4))
    inv_scale = rng.uniform(0.5, 2.0, (16, n))

    def loss(theta, dtype):
        batch = tuple(x.astype(dtype) for x in (q, qd, qdd, tau * inv_scale, inv_scale))
        return fast.loss(theta, model.architecture, batch)
    (v32, g32), (v64, g64) = (value_and_grad(loss)(model.theta, dtype) for dtype in (np.float32, np.float64))
    assert np.asarray(v32).dtype == np.float32 and np.asarray(v64).dtype == np.float64
    assert g32.dtype == g64.dtype == np.float64
    assert v32 == pytest.approx(v64, rel=1e-4)
    assert np.linalg.norm(g32 - g64) <= 1e-3 * np.linalg.norm(g64)
