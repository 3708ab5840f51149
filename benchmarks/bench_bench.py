"""Time of one Bench slider update inside the kernel (goal <= 50 ms) and of one Train x2000 press.

    python benchmarks/bench_bench.py
"""
import time

import numpy as np

from lesson_lib.ui.bench import Bench


def main():
    t0 = time.perf_counter()
    bench = Bench()
    print(f"Bench() built and drawn in {time.perf_counter() - t0:.2f} s")
    times = []
    for k, v in enumerate(np.linspace(-3.0, 3.0, 41)):
        slider = bench.q0 if k % 2 else bench.q1
        t0 = time.perf_counter()
        slider.value = v
        times.append(time.perf_counter() - t0)
    print(f"slider update: median {np.median(times) * 1e3:.1f} ms, max {max(times) * 1e3:.1f} ms over {len(times)} moves")
    t0 = time.perf_counter()
    bench.train_button.click()
    print(f"Train x2000 press (with 8 live updates and the final redraw): {time.perf_counter() - t0:.2f} s, "
          f"max error {bench.last_check['max_error']:.3f}, badge {'PASS' if bench.last_check['passed'] else 'FAIL'}")


if __name__ == "__main__":
    main()
