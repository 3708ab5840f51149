"""The DeLaN's training gradient two ways: plain autograd (lesson_lib.model.definition) and the library's fast path
(one hand-written autograd primitive, DeLaN.batch_loss), as notebook 02 section 7 compares them, and the same fast path
as fit runs it (DeLaN.batch_loss_and_grad: the primitive's passes called directly, nothing traced).

Prints, for the default network and batches of 32, 128 (the training batch) and 1024 states: the best time of
one loss-and-gradient each way in float64, the library's in float32 (as training runs), the ratio, and the
number of operations autograd records for each.  Times on a shared machine vary: run it alone to quote them.

    python benchmarks/bench_definition.py
"""
import sys
import timeit
from pathlib import Path

import autograd.tracer as tracer
import numpy as np
from autograd import value_and_grad

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # the course of this repository, not an installed one
from lesson_lib import DeLaN, double_pendulum, sample_uniform
from lesson_lib.model import definition


def recorded_operations(f, *args):
    """How many operations autograd records (boxes it makes, the input's own box excluded) while f(*args) runs."""
    count, original = [0], tracer.new_box

    def counting(*a, **k):
        count[0] += 1
        return original(*a, **k)
    tracer.new_box = counting
    try:
        f(*args)
    finally:
        tracer.new_box = original
    return count[0] - 1


def best_ms(f, *args, number=5, repeat=5):
    return 1e3 * min(timeit.repeat(lambda: f(*args), number=number, repeat=repeat)) / number


def main():
    chain, model = double_pendulum(), DeLaN(seed=0)
    theta = model.get_params()
    plain_grad, library_grad = value_and_grad(definition.loss), value_and_grad(model.batch_loss)
    fits = model.batch_loss_and_grad                       # what fit runs: the same numbers, no tracing
    print(f"default DeLaN: hidden {model.hidden}, {theta.size} weights")
    for B in (32, model.batch_size, 1024):
        d = sample_uniform(chain, B, seed=0)
        batch = model.training_batch(d)               # (q, qd, qdd, target, inv_scale), as fit builds it
        batch32 = tuple(x.astype(np.float32) for x in batch)
        args = (theta, model.architecture, batch)
        t_plain, t_lib = best_ms(plain_grad, *args), best_ms(library_grad, theta, batch)
        t_lib32, t_fit32 = best_ms(library_grad, theta, batch32), best_ms(fits, theta, batch32)
        print(f"batch {B:5d}: plain autograd {t_plain:7.2f} ms, library {t_lib:6.2f} ms (float32 {t_lib32:6.2f} ms,"
              f" as fit runs it {t_fit32:6.2f} ms) -> library {t_plain / t_lib:5.1f} x faster")
        if B == model.batch_size:
            n_plain, n_lib = recorded_operations(plain_grad, *args), recorded_operations(library_grad, theta, batch)
    print(f"operations autograd records per loss: plain {n_plain}, library {n_lib}")


if __name__ == "__main__":
    main()
