"""A model's whole state and fit's minibatches, written out independently of lesson_lib.model: what the tests of
training compare a model with (tests/test_trainable.py, test_training.py, test_adam.py, test_model_file.py)."""
import copy
import sys

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from lesson_lib.facts import VALIDATION
from lesson_lib.model import training
from lesson_lib.model.schedule import SPIKE
from lesson_lib.model.training_data import sample_weights, split


def full_snapshot(model):
    """Every attribute of the model and of what it holds (optimiser, generator), deep-copied: independent of the
    model's own _state(), so a forgotten piece of state shows up."""
    return copy.deepcopy(model.__dict__)


def assert_same(a, b, where="model"):
    """Recursive equality: arrays by value and dtype, generators by state, objects by their attributes."""
    if isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype, where
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, np.random.Generator):
        assert a.bit_generator.state == b.bit_generator.state, where
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            assert_same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}[{i}]")
    elif hasattr(a, "__dict__") and not callable(a):
        assert type(a) is type(b), where
        assert_same(vars(a), vars(b), where)
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


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


def scripted(monkeypatch, model, losses):
    """Make the model's validation loss at step s be losses[s] (the training itself runs as usual; other models'
    validation losses are their own)."""
    original = training.validation_loss
    monkeypatch.setattr(training, "validation_loss", lambda m, validation_set, theta=None: losses[m.step] if m is model
                        else original(m, validation_set, theta))


def recorder():
    """A callback recording, at every call, the step, the iterate and the optimiser state (with lr and the average of
    the iterates, what a call that stops there keeps)."""
    seen = {}

    def callback(model):
        seen[model.step] = (model.get_params(), model.optimizer.state())
    return seen, callback


def lowered(model, uniform, monkeypatch):
    """The model after a call in which a spike lowered the rate, with a plateau count running and a resume point
    (the last weights were not the best)."""
    scripted(monkeypatch, model, {100: 1.0, 200: SPIKE + 0.5, 300: 1.2, 320: 1.1})
    model.fit(uniform, steps=320)
    monkeypatch.undo()
    assert model.lr == model.schedule.base_lr / 2 and model.schedule.since == 1 and model.resumes
    return model


def blas_threads():
    """The thread count of every BLAS library loaded in this process (threadpoolctl's view)."""
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def require_blas():
    """Skip where threadpoolctl sees no BLAS library; on Linux numpy's wheels bundle OpenBLAS, so it must be found."""
    if not blas_threads():
        if sys.platform.startswith("linux"):
            pytest.fail("numpy's bundled OpenBLAS was not found: training would run with BLAS threads")
        pytest.skip(f"no BLAS library threadpoolctl knows is loaded on {sys.platform}; nothing to limit")


def arrays(data):
    """A data dict's four arrays, in fit's order."""
    return data["q"], data["qd"], data["qdd"], data["tau"]


def trained(cls, args, steps=30, **kw):
    """A model of class `cls` (seed 0) after `steps` of fit on `args`."""
    model = cls(seed=0, **kw)
    model.fit(*args, steps=steps)
    return model


def adam_and_average(batches, theta0, steps, lr, model):
    """autograd's Adam (misc.optimizers.adam, at Adam's b1 and b2) on the loss of these batches: the last iterate,
    and the moving average of the iterates as TensorFlow's ExponentialMovingAverage keeps it (num_updates t - 1,
    the shadow starting at the first iterate); the gradient of the weights the model trains only
    (model.trainable_mask)."""
    from autograd import grad
    from autograd.misc.optimizers import adam

    from lesson_lib.model.adam import Adam
    iterates, kept = [], model.trainable_mask
    last = adam(lambda theta, i: grad(model.loss)(theta, batches[i]) * kept, theta0, num_iters=steps, step_size=lr,
                b1=Adam.b1, b2=Adam.b2, callback=lambda x, i, g: iterates.append(x) if i else None)
    return last, moving_average([*iterates, last], Adam.decay)


def moving_average(iterates, decay):
    """TensorFlow's ExponentialMovingAverage of the iterates with num_updates t - 1, its shadow starting at the
    first iterate: d_t = min(decay, t / (t + 9)) from the second on."""
    average = iterates[0]
    for t, theta in enumerate(iterates[1:], 1):
        d = min(decay, t / (t + 9))
        average = d * average + (1 - d) * theta
    return average
