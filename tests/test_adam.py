"""Adam (lesson_lib.model.adam): its textbook update from the first step, and its state exported and imported
exactly."""
import numpy as np
import pytest
from model_states import moving_average

from lesson_lib import DeLaN, double_pendulum, sample_uniform
from lesson_lib.model.adam import Adam


@pytest.fixture(scope="module")
def args():
    d = sample_uniform(double_pendulum(), 512, seed=0)
    return d["q"], d["qd"], d["qdd"], d["tau"]


def test_exported_state_continues_exactly(args):
    a = DeLaN(seed=1, lr=0.01)
    a.fit(*args, steps=20)
    exported = a.resume_point["optimizer"]                          # the next call goes on from the last iterate
    theta, rng_state = a.resume_point["params"], a.batch_rng.bit_generator.state
    a.fit(*args, steps=15)
    b = DeLaN(seed=1, lr=0.5)                                      # another lr: the state carries lr too
    b.fit(*args, steps=0)                                          # sets the torque scale from the same data
    b.set_params(theta)
    b.optimizer.set_state(exported)
    b.batch_rng.bit_generator.state = rng_state
    b.step = 20
    b.fit(*args, steps=15)
    assert b.lr == 0.01
    np.testing.assert_array_equal(a.get_params(), b.get_params())
    for key, value in a.optimizer.state().items():
        np.testing.assert_array_equal(b.optimizer.state()[key], value)


def test_state_export_is_a_copy():
    opt = Adam(0.1, 3)
    exported = opt.state()
    opt.step(np.zeros(3), np.ones(3))
    assert exported["t"] == 0 and not exported["m"].any() and opt.t == 1 and opt.m.any()


# ---------------------------------------------------------------------- Adam: its textbook update
def _adam(theta, gradients, lr, b1=Adam.b1, b2=Adam.b2, eps=1e-8):
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
        opt = Adam(0.01, 50)
        theta = theta0
        for g in gradients[:steps]:
            theta = opt.step(theta, g)
        np.testing.assert_allclose(theta, _adam(theta0, gradients[:steps], 0.01), rtol=1e-12, atol=1e-15,
                                   err_msg=f"Adam after {steps} step(s)")


def test_the_average_of_the_iterates_is_tensorflows_moving_average_and_lands_nearer_a_noisy_minimum():
    """3,000 steps on a quadratic whose gradients carry noise (a minibatch's): the average is the moving average of
    the iterates as TensorFlow defines it, and it lies nearer the minimum than the last iterate does."""
    rng = np.random.default_rng(1)
    opt, theta, iterates = Adam(0.05, 20), rng.normal(size=20), []
    for _ in range(3000):
        theta = opt.step(theta, theta + rng.normal(size=20))            # the minimum is 0
        iterates.append(theta)
    np.testing.assert_allclose(opt.average, moving_average(iterates, Adam.decay), rtol=1e-9, atol=1e-12)
    assert np.linalg.norm(opt.average) < np.linalg.norm(theta) / 3


def test_adams_first_step_moves_each_weight_by_about_lr():
    # t = 1: m = (1 - b1) g, v = (1 - b2) g^2, so mhat = g and vhat = g^2: the step is lr g / (|g| + eps)
    adam = Adam(0.1, 3)                                    # what a model has before its first step
    theta = adam.step(np.array([1.0, -2.0, 0.5]), np.array([2.0, -4.0, 0.0]))
    np.testing.assert_allclose(theta, [0.9, -1.9, 0.5], atol=1e-9)
