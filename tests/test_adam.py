"""The optimiser, Adam: its textbook update from the first step, state exports and imports exactly, the learning
rate forwards from the model and can change mid-call."""
import numpy as np
import pytest

from lesson_lib import DeLaN, double_pendulum, sample_uniform
from lesson_lib.facts import VALIDATION
from lesson_lib.model.training import Adam, sample_weights, split


@pytest.fixture(scope="module")
def args():
    d = sample_uniform(double_pendulum(), 512, seed=0)
    return d["q"], d["qd"], d["qdd"], d["tau"]


def sample_rows(model, args, rows, weighted=True):
    """The batch of the given rows, in their order, as fit builds it: float32 (q, qd, qdd, target, inv_scale) with
    inv_scale = sqrt(the sample's weight, or 1 if not weighted) / tau_scale and target = tau * inv_scale."""
    q, qd, qdd, tau = args
    n = model.n_dof
    weight = sample_weights(qd, qdd) if weighted else np.ones(len(q))
    inv_scale = np.sqrt(weight)[:, None] / model.tau_scale
    table = np.concatenate([q, qd, qdd, tau * inv_scale, inv_scale], axis=1)
    b = table[rows].astype(np.float32)
    return tuple(b[:, i * n:(i + 1) * n] for i in range(5))


def minibatches(model, args, steps, seed, traj=None, rows=None):
    """The minibatches fit draws: the model's batch generator over the training rows (all but the validation
    split's, in their order, or `rows`)."""
    rng = np.random.default_rng([seed, 1])
    train = split(len(args[0]), traj, VALIDATION, seed)[0] if rows is None else rows
    return [sample_rows(model, args, train[rng.integers(0, len(train), model.batch_size)]) for _ in range(steps)]


def test_exported_state_continues_exactly(args):
    a = DeLaN(seed=1, lr=0.01)
    a.fit(*args, steps=20)
    exported = a.optimizer.state()
    theta, rng_state = a.get_params(), a._batch_rng.bit_generator.state
    a.fit(*args, steps=15)
    b = DeLaN(seed=1, lr=0.5)                                      # another lr: the state carries lr too
    b.fit(*args, steps=0)                                          # sets the torque scale from the same data
    b.set_params(theta)
    b.optimizer.set_state(exported)
    b._batch_rng.bit_generator.state = rng_state
    b.step = 20
    b.fit(*args, steps=15)
    assert b.lr == 0.01
    np.testing.assert_array_equal(a.get_params(), b.get_params())
    for key, value in a.optimizer.state().items():
        np.testing.assert_array_equal(b.optimizer.state()[key], value)


def test_state_export_is_a_copy():
    opt = Adam(0.1)
    opt.set_state(opt.initial_state(3))
    exported = opt.state()
    opt.step(np.zeros(3), np.ones(3))
    assert exported["t"] == 0 and not exported["m"].any() and opt.t == 1 and opt.m.any()


def test_lr_forwards_to_the_optimizer_and_can_change_during_a_call(args):
    model = DeLaN(seed=0)
    model.lr = 1e-3
    assert model.optimizer.lr == 1e-3
    for bad, error in ((-1e-3, ValueError), (0.0, ValueError), (np.nan, ValueError), (True, TypeError),
                       ("1", TypeError)):
        with pytest.raises(error, match="lr"):
            model.lr = bad
        assert model.lr == 1e-3
    # a schedule set from the callback: the same as two calls with the two rates
    a, b = DeLaN(seed=4), DeLaN(seed=4)

    def halve(model):
        model.lr = model.lr / 2
    a.fit(*args, steps=20, callback=halve, every=10)
    b.fit(*args, steps=10)
    b.lr = b.lr / 2
    b.fit(*args, steps=10)
    np.testing.assert_array_equal(a.get_params(), b.get_params())


# ---------------------------------------------------------------------- Adam: its textbook update
def _adam(theta, gradients, lr, b1=0.9, b2=0.999, eps=1e-8):
    """Kingma & Ba (2015), Algorithm 1, as printed: bias-corrected moments."""
    m = v = np.zeros_like(theta)
    for t, g in enumerate(gradients, 1):
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g ** 2
        theta = theta - lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
    return theta


def test_adam_steps_as_its_textbook_says_from_the_first_step_on():
    """Ten steps on gradients of changing size and sign (from the first: a missing bias correction, or one without
    its square root, makes the first steps many times too small)."""
    rng = np.random.default_rng(0)
    theta0, gradients = rng.normal(size=50), rng.normal(size=(10, 50)) * np.logspace(-3, 1, 10)[:, None]
    for steps in (1, 10):
        opt = Adam(0.01)
        opt.set_state(opt.initial_state(50))
        theta = theta0
        for g in gradients[:steps]:
            theta = opt.step(theta, g)
        np.testing.assert_allclose(theta, _adam(theta0, gradients[:steps], 0.01), rtol=1e-12, atol=1e-15,
                                   err_msg=f"Adam after {steps} step(s)")


def test_adams_first_step_moves_each_weight_by_about_lr():
    # t = 1: m = (1 - b1) g, v = (1 - b2) g^2, so mhat = g and vhat = g^2: the step is lr g / (|g| + eps)
    adam = Adam(0.1)
    adam.set_state(adam.initial_state(3))                  # what a model does before its first step
    theta = adam.step(np.array([1.0, -2.0, 0.5]), np.array([2.0, -4.0, 0.0]))
    np.testing.assert_allclose(theta, [0.9, -1.9, 0.5], atol=1e-9)
