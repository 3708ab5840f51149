"""The model room's inner functions on small cases: when the jet's reverse pass returns the input
gradient, the handover slot's own contract, an unknown activation named in its error, and
Adam's first step and hyperparameter ranges worked out by hand."""
import numpy as np
import pytest

from lesson_lib.model import definition, fast
from lesson_lib.model.training import Adam

rng = np.random.default_rng(3)
SIZES = (4, 5, 3)
THETA = rng.normal(size=definition.n_weights(SIZES))
X = rng.normal(size=(3, 6, 4))                          # a jet: 1 + n = 3 rows, batch 6, 4 features


def _backward(input_grad=None):
    layers = definition.unflatten(THETA, SIZES)
    J, records = fast.jet_forward(X, layers, "isru", 0)
    grads = definition.unflatten(np.empty_like(THETA), SIZES)
    G = rng.normal(size=J.shape)
    if input_grad is None:
        return fast.jet_backward(layers, records, G, grads)
    return fast.jet_backward(layers, records, G, grads, input_grad=input_grad)


def test_the_reverse_pass_returns_the_input_gradient_only_when_asked():
    assert _backward().shape == X.shape                  # by default: d loss / d input jet
    assert _backward(True).shape == X.shape
    assert _backward(False) is None


def test_one_hidden_layer_returns_its_input_gradient_by_default():
    W, b = rng.normal(size=(5, 4)), rng.normal(size=5)
    A, record = fast.hidden_forward(X.copy(), W, b, "tanh")
    dW, db = np.empty_like(W), np.empty_like(b)
    G = rng.normal(size=A.shape)
    assert fast.hidden_backward(G.copy(), W, record, dW, db).shape == X.shape
    assert fast.hidden_backward(G.copy(), W, record, dW, db, input_grad=False) is None


def test_the_slot_hands_pieces_only_to_the_call_that_made_them():
    mine, other = np.ones(2), np.ones(2)
    fast._slot[:] = [other, "pieces of another call"]
    assert fast._take(mine) is None and tuple(fast._slot) == (None, None)
    fast._slot[:] = [mine, "my pieces"]
    assert fast._take(mine) == "my pieces" and tuple(fast._slot) == (None, None)


def test_an_unknown_activation_is_named_in_the_error():
    from lesson_lib.model.definition import check_activation
    with pytest.raises(ValueError, match=r"^unknown activation 'bogus'; choose one of 'isru', 'tanh', 'softplus'"):
        check_activation("bogus")


def test_adams_first_step_moves_each_weight_by_about_lr():
    # t = 1: m = (1 - b1) g, v = (1 - b2) g^2, so mhat = g and vhat = g^2: the step is lr g / (|g| + eps)
    adam = Adam(0.1)
    adam.set_state(adam.initial_state(3))                  # what a model does before its first step
    theta = adam.step(np.array([1.0, -2.0, 0.5]), np.array([2.0, -4.0, 0.0]))
    np.testing.assert_allclose(theta, [0.9, -1.9, 0.5], atol=1e-9)
