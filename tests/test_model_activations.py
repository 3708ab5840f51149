"""The activation table: every entry's fast function (lesson_lib.model.fast.FAST) agrees with autograd's derivatives
of its reference s(z) (definition.ACTIVATIONS), the two tables name the same activations, and the network's gradient
is right with each one; a wrong reverse-pass term is caught."""
import numpy as np
import pytest
from autograd import elementwise_grad
from autograd.test_util import check_grads

from lesson_lib import BlackBox, DeLaN
from lesson_lib.model import fast
from lesson_lib.model.definition import ACTIVATIONS, n_weights, tril_order

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


@pytest.mark.parametrize("cls", [DeLaN, BlackBox])
def test_unknown_activation_refused_at_construction_listing_the_registered_names(cls):
    with pytest.raises(ValueError, match="activation") as err:
        cls(activation="bogus")
    for name in ACTIVATIONS:
        assert repr(name) in str(err.value)
    with pytest.raises(TypeError, match="activation"):
        cls(activation=None)
