"""Throughput of the RNEA truth: states per second for a batch of 100,000 double-pendulum states.

Run:  python benchmarks/bench_rnea.py
"""
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # the course of this repository, not an installed one
from lesson_lib import double_pendulum


def best_time(fn, repeats=7):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), float(np.median(times))


def main(B=100_000):
    chain = double_pendulum()
    rng = np.random.default_rng(0)
    q, qd, qdd = (rng.uniform(-3, 3, (B, 2)) for _ in range(3))
    for name, fn in [("rnea(q, qd, qdd)", lambda: chain.rnea(q, qd, qdd)),
                     ("mass_matrix(q)", lambda: chain.mass_matrix(q)),
                     ("forward_dynamics", lambda: chain.forward_dynamics(q, qd, qdd))]:
        best, med = best_time(fn)
        print(f"{name:18s} batch {B}: best {best * 1e3:6.1f} ms, median {med * 1e3:6.1f} ms"
              f" -> {B / best / 1e6:5.2f} M states/s (best), {B / med / 1e6:5.2f} M states/s (median)")


if __name__ == "__main__":
    main()
