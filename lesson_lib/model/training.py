"""fit's loop: minibatches, the loss and its gradient, the divergence guard, Adam's step, validation and the best
weights.  One step:

    rows    = a minibatch of the training samples          (batch_rng, uniform over the training rows)
    loss, g = model.batch_loss_and_grad(theta, batch)      (DeLaN: lesson_lib.model.fast.loss_and_grad)
    theta   = model.optimizer.step(theta, g * mask)        (Adam on the weights the model trains, trainable_mask;
                                                            a loss that explodes or is not finite raises)

and every `validation_interval` steps the loss of the average of the iterates (Adam's `average`) on the held-out
samples goes to the schedule (lesson_lib.model.schedule), which says whether these are the call's best weights,
whether to go back to the best, and the rate from now on.  A call ends with whichever does best on the validation
samples of: the best average it saw, refined where the model can (model.refined: DeLaN solves V's readout on the
training samples, lesson_lib.model.potential_readout); the weights it started from, when they are not Adam's average;
and parts of the two joined (model.recombined: DeLaN's L from this call with the V it started from).
The average itself stays in Adam's state: every comparison is the averages', and a spike goes back to Adam's
average, never to refined weights.  The validation history records the averages, and a call's last entry the
weights it ends with.  Its last iterate, with Adam's state, is the resume point of the next call.  A spike
before the call's first new best goes back to the weights the call started from, the average, with the moments kept
beside it.
callback(model) sees the iterate.  `train` changes the model it is given: Trainable.fit calls it inside a
transaction, which puts everything back if it raises (TrainingDiverged, a callback's error, KeyboardInterrupt).
"""
import functools
import math

import numpy as np
from threadpoolctl import ThreadpoolController

from ..facts import LR
from . import training_data

VALIDATE_EVERY = 100     # steps between validation evaluations (more for large validation sets, see below)


@functools.cache
def _blas():
    """threadpoolctl's view of the BLAS libraries loaded with numpy, found once, at the first training call."""
    return ThreadpoolController()


def single_blas_thread():
    """A context manager: the body runs with BLAS limited to one thread (a step's products are small, and on 2
    cores OpenBLAS's threads cost more in hand-over than they save); the previous count is put back after.

    >>> with single_blas_thread():
    ...     pass"""
    return _blas().limit(limits=1, user_api="blas")


def validation_interval(n_validation, batch_size):
    """Steps between validation evaluations: VALIDATE_EVERY, or more for a large validation set,
    so that evaluating it costs at most about 3 % of the training time.

    >>> validation_interval(200, 128), validation_interval(5000, 128)
    (100, 400)"""
    return max(VALIDATE_EVERY, 10 * math.ceil(n_validation / batch_size))


class TrainingDiverged(RuntimeError):
    """A training step gave a non-finite or exploding loss; the model is as it was before the call.

    >>> issubclass(TrainingDiverged, RuntimeError)
    True"""


def _scales(model):
    """The model's scales for a message, e.g. "eps=0.001, potential_scale=20"."""
    return ", ".join(f"{k}={getattr(model, k):g}" for k in ("eps", "potential_scale") if hasattr(model, k)) or \
        "the torque scale comes from the data"


class DivergenceGuard:
    """Watches one fit call's losses against its first one: a non-finite loss or gradient, or a loss above
    1000 x max(first, 1e-3), raises TrainingDiverged naming the step, the losses and a smaller rate.

    >>> from lesson_lib import DeLaN
    >>> guard = DivergenceGuard(DeLaN())
    >>> guard.check(0.5)
    >>> guard.check(600.0)
    Traceback (most recent call last):
    lesson_lib.model.training.TrainingDiverged: training diverged at step 1: the loss went from 0.5 to 600 ..."""

    def __init__(self, model):
        self.model, self.start, self.ref = model, model.step, None

    def check(self, loss, g=None, final=False):
        """Return if the loss (and the gradient g) look sane; else raise TrainingDiverged (final: the loss after the
        call's last update).

        >>> from lesson_lib import DeLaN
        >>> guard = DivergenceGuard(DeLaN())
        >>> guard.check(0.5), guard.check(1.0, g=np.ones(3))                     # the first loss is the reference
        (None, None)"""
        finite = math.isfinite(loss) and (g is None or math.isfinite(g @ g))
        if self.ref is None and finite:
            self.ref = loss
        if finite and loss <= 1e3 * max(self.ref, 1e-3):
            return
        model = self.model
        if self.ref is None:
            raise TrainingDiverged(
                f"training cannot start: at the model's current weights the float32 loss or its gradient is not "
                f"finite (loss {loss:.3g}) before any update, so the learning rate is not the cause. The weights "
                f"(e.g. from set_params) are too large for these data, or the model's scales are ({_scales(model)}); "
                f"model.reset() starts again from the seed, the default scales are in lesson_lib.facts. "
                f"The model was not changed (step {self.start}).")
        where = f"after its last update (step {model.step})" if final else f"at step {model.step + 1}"
        suggestion = min(model.lr / 10, LR)
        advice = (f"Use a smaller learning rate, e.g. model.lr = {suggestion:g}, and train again." if suggestion > 0
                  else "The learning rate is already as small as a float allows: check the data and the weights.")
        raise TrainingDiverged(
            f"training diverged {where}: the loss went from {self.ref:.3g} to {loss:.3g} with learning rate "
            f"lr={model.lr:g}. The model was put back to its last good state (step {self.start}, before this "
            f"call). {advice}")


def weights_and_moments(model):
    """Copies of the model's weights and optimiser state: a point training can go back to, or on from.

    >>> from lesson_lib import DeLaN
    >>> sorted(weights_and_moments(DeLaN()))
    ['optimizer', 'params']"""
    return {"params": model.theta.copy(), "optimizer": model.optimizer.state()}


def go_to(model, point):
    """Give the model the weights and the optimiser state of `point` (weights_and_moments), at its current rate.

    >>> from lesson_lib import DeLaN
    >>> model = DeLaN()
    >>> go_to(model, weights_and_moments(DeLaN(seed=1)))
    >>> bool(np.array_equal(model.theta, DeLaN(seed=1).theta))
    True"""
    lr = model.lr
    model.optimizer.set_state({**point["optimizer"], "lr": lr})
    model.theta = np.array(point["params"], dtype=float)


class BestWeights:
    """The best weights of one fit call and their optimiser state.  The first candidate is the weights the call
    started from, or none (loss inf) for an untrained model.

    >>> from lesson_lib import DeLaN
    >>> BestWeights(DeLaN(), math.inf).loss
    inf"""

    def __init__(self, model, loss):
        self.model = model
        self.keep(loss)

    def keep(self, loss):
        """The model's current weights and moments are the call's best, with validation loss `loss`.

        >>> from lesson_lib import DeLaN
        >>> best = BestWeights(DeLaN(), math.inf)
        >>> best.keep(0.25)
        >>> best.loss
        0.25"""
        self.loss, self.point = loss, weights_and_moments(self.model)

    def restore(self):
        """Put the best weights and their optimiser state back, at the current learning rate.

        >>> from lesson_lib import DeLaN
        >>> model = DeLaN()
        >>> best = BestWeights(model, 1.0)
        >>> model.theta = model.theta + 1.0
        >>> best.restore()
        >>> bool(np.array_equal(model.theta, DeLaN().theta))
        True"""
        go_to(self.model, self.point)


def minibatch_rows(rng, N, B, steps, chunk=256):
    """The rows (B,) of each of `steps` minibatches, uniform over N, drawn `chunk` steps per call
    (the same numbers as one draw per step).

    >>> [rows.tolist() for rows in minibatch_rows(np.random.default_rng(0), 10, 3, 2)]
    [[8, 6, 5], [2, 3, 0]]"""
    for start in range(0, steps, chunk):
        yield from rng.integers(0, N, (min(chunk, steps - start), B))


def validation_loss(model, validation_set, theta=None):
    """The loss of the weights theta (the model's if None) on the held-out samples (no sample weights), a float.

    >>> from lesson_lib import DeLaN, double_pendulum, sample_uniform
    >>> model = DeLaN()
    >>> validation_loss(model, model.training_batch(sample_uniform(double_pendulum(), 8))) > 0
    True"""
    return float(model.batch_loss(model.theta if theta is None else theta, validation_set))


def train(model, samples, validation_set, steps, callback=None, every=250, restore_best=True):
    """`steps` more optimiser steps on minibatches of `samples` (rows (5n, N), training_data.samples) and the
    validation batch (or None); callback(model) every `every` steps.  Returns this call's losses.

    >>> from lesson_lib import DeLaN, double_pendulum, sample_uniform
    >>> model = DeLaN()
    >>> batch = model.training_batch(sample_uniform(double_pendulum(), 8))
    >>> rows = np.concatenate([x.T for x in batch]).astype(np.float32)
    >>> len(train(model, rows, None, steps=3)), model.step
    (3, 3)"""
    guard, losses = DivergenceGuard(model), []
    N = samples.shape[1]
    B = min(model.batch_size, N)
    batch, best, start = None, None, None
    if validation_set is not None and steps:
        average = model.optimizer.average
        if restore_best and model.step and not np.array_equal(model.theta, average):   # e.g. refined by the last
            start = model.theta.copy(), validation_loss(model, validation_set)      # call: a candidate at the end,
        best = BestWeights(model, validation_loss(model, validation_set, average) if model.step else math.inf)
        best.point["params"] = average.copy()           # while a spike sends Adam back to nothing but its average
        interval = validation_interval(len(validation_set[0]), B)
    if model.resume_point is not None and steps:                # training goes on where it stopped
        go_to(model, model.resume_point)
        model.resume_point = None
    for rows in minibatch_rows(model.batch_rng, N, B, steps):
        batch = training_data.batch(samples[:, rows], model.n_dof)
        loss, g = model.batch_loss_and_grad(model.theta, batch)
        loss = float(loss)
        guard.check(loss, g)
        model.theta = model.optimizer.step(model.theta, g * model.trainable_mask)
        model.step += 1
        model.loss_history.append(loss)
        losses.append(loss)
        if best is not None and model.step % interval == 0:
            _validate(model, best, validation_set)
        if callback is not None and model.step % every == 0:
            callback(model)
    if batch is not None:
        guard.check(float(model.batch_loss(model.theta, batch)), final=True)
        model.resume_point = weights_and_moments(model)              # the next call goes on from the last iterate
        if best is not None:
            _finish(model, best, validation_set, restore_best)
        model.theta = model.optimizer.average.copy()                 # the model's weights: the (best) average
        if best is not None:
            _end_weights(model, samples, validation_set, start)
    return losses


def _end_weights(model, samples, validation_set, start):
    """The model's weights, its best average, refined where the model can (model.refined, on the training samples);
    instead the weights the call started from (start: (weights, loss), e.g. the last call's refinement, or None:
    nothing to compare, or restore_best False) or the two joined (model.recombined), whichever has the lowest
    validation loss.  The validation history's last entry becomes the loss of the weights kept."""
    refined = model.refined(model.theta, samples, validation_set)
    if refined is model.theta and start is None:
        return                                                       # nothing refined: the average as it is
    step, v, lr = model.validation_history[-1]                       # v: the average's loss (_finish)
    if refined is not model.theta:
        v = validation_loss(model, validation_set, refined)
    candidates = [(v, refined)]
    if start is not None:
        weights, loss = start
        candidates.append((loss, weights))
        candidates += [(validation_loss(model, validation_set, theta), theta)
                       for theta in model.recombined(refined, weights)]
    v, model.theta = min(candidates, key=lambda candidate: candidate[0])  # the first of equals: refined, start, joined
    model.validation_history[-1] = (step, v, lr)


def _validate(model, best, validation_set):
    """One validation evaluation of the average: the schedule's verdict and what follows from it."""
    v = validation_loss(model, validation_set, model.optimizer.average)
    keep, restore, lr = model.schedule.validated(v, best.loss, model.lr)
    if keep:
        best.keep(v)
    elif restore:
        best.restore()
    model.optimizer.lr = lr
    model.validation_history.append((model.step, v, model.lr))


def _finish(model, best, validation_set, restore_best):
    """End of a call: the last average is a candidate too; go back to the best point unless told otherwise (train then
    makes its average the model's weights); record the validation loss of the weights kept."""
    v = validation_loss(model, validation_set, model.optimizer.average)
    if v < best.loss:
        best.keep(v)
    if restore_best and best.loss < v:
        best.restore()
        v = best.loss
    entry = (model.step, v, model.lr)
    if model.validation_history and model.validation_history[-1][0] == model.step:
        model.validation_history[-1] = entry                       # evaluated at this very step: replaced
    else:
        model.validation_history.append(entry)
