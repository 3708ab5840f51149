"""DeLaN training speed and accuracy on the double pendulum, as the learner feels it.

Prints: the median wall time of 2000 training steps (the "Train x2000" button) for the default network,
max |M_hat - M| over the 41x41 whole-torus grid and the learned M's smallest eigenvalue after 2000, 4000 and
6000 steps from the default seed, the time of one step at the reference size (2x64, batch 256), and the
number of operations autograd records per step (steps compute in float32, as PyTorch does by default).  Run
three times: with the machine's BLAS threads, with 1, and with glibc keeping freed memory (its MALLOC_*_ tunables).

    python benchmarks/bench_delan.py            # both thread settings (re-runs itself with 1 thread)
"""
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # the course of this repository, not an installed one


def autograd_operations_per_step(model, data):
    """The operations autograd records while differentiating one training loss, model.loss (bench_definition's
    counter); fit's own step (DeLaN.batch_loss_and_grad) calls the loss's passes directly and records none."""
    from autograd import value_and_grad
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_definition import recorded_operations
    batch = model.training_batch({k: data[k][:model.batch_size] for k in ("q", "qd", "qdd", "tau")})
    return recorded_operations(value_and_grad(model.batch_loss), model.theta, batch)


def run(label):
    from lesson_lib import DeLaN, double_pendulum, lesson_check, sample_uniform
    chain = double_pendulum()
    d = sample_uniform(chain, 4096, seed=0)
    args = (d["q"], d["qd"], d["qdd"], d["tau"])
    print(f"--- {label}")
    model = DeLaN(seed=0)
    print(f"default model: {model!r}, {model.get_params().size} weights")
    press_times = []
    for _ in range(3):
        t0 = time.perf_counter()
        model.fit(*args, steps=2000)
        press_times.append(time.perf_counter() - t0)
        check = lesson_check(model, chain)
        print(f"after {model.step:5d} steps: max|M_hat - M| = {check['max_error']:.4f}, "
              f"min eig = {check['min_eig']:.4f}, PASS = {check['passed']}, press took {press_times[-1]:.2f} s")
    print(f"operations autograd records per training step: {autograd_operations_per_step(model, d)}")
    times = []
    for _ in range(3):                            # fresh models: the time of the first press
        m = DeLaN(seed=0)
        t0 = time.perf_counter()
        m.fit(*args, steps=2000)
        times.append(time.perf_counter() - t0)
    all_times = press_times + times
    print(f"2000 steps, default network: median {np.median(all_times):.2f} s, best {min(all_times):.2f} s "
          f"over {len(all_times)} presses ({np.median(all_times) / 2:.2f} ms per step)")
    big = DeLaN(hidden=(64, 64), batch_size=256, seed=0)
    big.fit(*args, steps=50)
    per_step = []
    for _ in range(6):
        t0 = time.perf_counter()
        big.fit(*args, steps=250)
        per_step.append((time.perf_counter() - t0) / 250 * 1e3)
    big.fit(*args, steps=2000 - big.step)
    print(f"reference size 2x64, batch 256: median {np.median(per_step):.2f} ms per step, best {min(per_step):.2f} "
          f"(6 runs of 250 steps); max|M_hat - M| after 2000 steps = {lesson_check(big, chain)['max_error']:.4f}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        run(sys.argv[2])
    else:
        env = dict(os.environ)
        run("BLAS threads: machine default; glibc's allocator as it is (the library's default)")
        sys.stdout.flush()
        env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        subprocess.run([sys.executable, __file__, "--child", "BLAS threads: 1"], env=env, check=True)
        keep = {"MALLOC_TRIM_THRESHOLD_": 256 << 20, "MALLOC_TOP_PAD_": 64 << 20, "MALLOC_MMAP_THRESHOLD_": 256 << 20}
        subprocess.run([sys.executable, __file__, "--child", "BLAS threads: machine default; glibc keeps up to 256 MB "
                        "of freed memory (its MALLOC_*_ tunables)"], env={**os.environ, **{k: str(v) for k, v in
                                                                          keep.items()}}, check=True)
