"""The hand-over of a fused primitive's forward pass to its reverse pass: used while autograd traces, cleared
after use, never kept by inference; and the reverse pass gives the same gradient when it must recompute."""
import numpy as np
import pytest
from autograd import value_and_grad

from lesson_lib import BlackBox, DeLaN
from lesson_lib.model import fast

rng = np.random.default_rng(11)
batch = tuple(rng.uniform(-2, 2, (32, 2)) for _ in range(4)) + (rng.uniform(0.1, 2.0, (32, 2)),)   # ..., inv_scale


@pytest.mark.parametrize("cls", [DeLaN, BlackBox])
def test_inference_keeps_nothing(cls):
    model = cls(seed=0)
    q = rng.uniform(-3, 3, (50, 2))
    if cls is DeLaN:
        model.mass_matrix(q)
        model.inverse_dynamics(q, q, q)
        model.forward_dynamics(q, q, q)
    else:
        model.inverse_dynamics(q, q, q)
    model.loss(model.theta, batch)                         # a loss evaluated without differentiating
    assert tuple(fast._slot) == (None, None)


@pytest.mark.parametrize("cls", [DeLaN, BlackBox])
def test_a_traced_call_hands_its_pieces_over_and_the_slot_is_cleared(cls, monkeypatch):
    model = cls(seed=0)
    taken = []
    original = fast._take

    def spy(ans):
        pieces = original(ans)
        taken.append(pieces is not None)
        return pieces
    monkeypatch.setattr(fast, "_take", spy)
    value_and_grad(model.loss)(model.theta, batch)
    assert taken and all(taken)                             # every reverse pass found its own forward pass
    assert tuple(fast._slot) == (None, None)


@pytest.mark.parametrize("cls", [DeLaN, BlackBox])
def test_recomputed_pieces_give_the_same_gradient(cls, monkeypatch):
    model = cls(seed=0)
    model.set_params(model.get_params() * 3.0)
    loss, g = value_and_grad(model.loss)(model.theta, batch)
    take = fast._take
    monkeypatch.setattr(fast, "_take", lambda ans: take(ans) and None)   # as if the slot held another call's
    loss2, g2 = value_and_grad(model.loss)(model.theta, batch)
    assert loss2 == loss
    np.testing.assert_array_equal(g2, g)


def test_differentiating_an_argument_without_a_reverse_pass_is_refused():
    from autograd import grad
    model = DeLaN(seed=0)
    q, qd, qdd, target, inv_scale = batch
    with pytest.raises(NotImplementedError, match="differentiable only in arguments"):
        grad(lambda v: fast._loss(model.theta, model.architecture, fast.input_jet(q), v, qdd, target,
                                   inv_scale))(qd)
    assert tuple(map(type, fast._slot)) == (type(None), type(None))   # and nothing is kept for it
