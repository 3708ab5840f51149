"""Time of one Bench slider update inside the kernel (goal <= 50 ms) and of Train x2000 presses (goal: a press,
click to final redraw, <= 2.5 s in a real browser on a 2-core machine with every panel live).

    python benchmarks/bench_bench.py

In the kernel, a press is `train_button.click()` with its live updates (every panel, every 250 steps) and the
final redraw.  The browser adds the websocket and the page's rendering: tests/test_browser.py measures the
press in JupyterLab, Notebook 7 and Voila (click to final redraw, in the page) and writes it to
artifacts/browser/<front end>-timings.json; this script prints those figures too when they are there.
benchmarks/bench_browser_press.py times presses in Voilà on their own, against another checkout if asked.
The machine's load average is printed with the figures: on a shared machine, say it when you quote them.
"""
import io
import json
import os
import sys
import time
import timeit
from pathlib import Path

import numpy as np
import PIL.Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # the course of this repository, not an installed one
from lesson_course.ui.bench import Bench  # noqa: E402
from lesson_course.ui.blit import png_bytes  # noqa: E402

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "browser"
PRESSES = 3


def encode_times(figure, repeat=20):
    """The figure's PNG from the course's writer (lesson_course.ui.blit.png_bytes) and from Pillow's (as the Bench
    encoded before, compress_level 1): best time of `repeat` and size of each."""
    rgb = np.asarray(figure.canvas.buffer_rgba())[..., :3]
    image = PIL.Image.fromarray(np.ascontiguousarray(rgb))

    def pillow():
        buf = io.BytesIO()
        image.save(buf, format="png", compress_level=1)
        return buf.getvalue()
    out = []
    for label, encode in (("png_bytes", lambda: png_bytes(rgb)), ("Pillow", pillow)):
        best = min(timeit.repeat(encode, number=1, repeat=repeat))
        out.append(f"{label} {best * 1e3:.1f} ms, {len(encode()) / 1e3:.0f} kB")
    return "; ".join(out)


def main():
    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    t0 = time.perf_counter()
    bench = Bench()
    print(f"Bench() built and drawn in {time.perf_counter() - t0:.2f} s")
    times = []
    for k, v in enumerate(np.linspace(-3.0, 3.0, 41)):
        slider = bench.q0 if k % 2 else bench.q1
        t0 = time.perf_counter()
        slider.value = v
        times.append(time.perf_counter() - t0)
    print(f"slider update: median {np.median(times) * 1e3:.1f} ms, max {max(times) * 1e3:.1f} ms "
          f"over {len(times)} moves")

    updates = []
    bench.aria.widget.observe(lambda change: updates.append(time.perf_counter()), names="value")
    presses = []
    for _ in range(PRESSES):
        updates.clear()
        t0 = time.perf_counter()
        bench.train_button.click()
        presses.append(time.perf_counter() - t0)
        gaps = np.diff([t0] + updates)
    print(f"Train x{bench.steps_per_press} press in the kernel ({len(updates)} updates of every panel, the last the "
          f"final redraw): {', '.join(f'{t:.2f}' for t in presses)} s; longest gap between updates "
          f"{gaps.max():.2f} s; badge {'PASS' if bench.last_check['passed'] else 'FAIL'}, max error "
          f"{bench.last_check['max_error']:.3f}")
    for name, figure in (("plot", bench._plot_fig), ("eigenvalue map", bench._eig_fig)):
        print(f"PNG of the {name}: {encode_times(figure)}")
    d, steps = bench.data, bench.steps_per_press                  # the same steps without the Bench's updates
    t0 = time.perf_counter()
    bench.model.fit(d["q"], d["qd"], d["qdd"], d["tau"], steps=steps)
    alone = time.perf_counter() - t0
    print(f"the same {steps} steps alone (fit, no callback): {alone:.2f} s, so the {len(updates)} updates cost about "
          f"{(np.median(presses) - alone) / len(updates) * 1e3:.0f} ms each")

    for path in sorted(ARTIFACTS.glob("*-timings.json")):
        timings = json.loads(path.read_text())
        press = timings.get("press: click to final redraw (s)")
        if press is not None:
            print(f"browser ({path.name.split('-')[0]}, from the last browser test run, "
                  f"{time.ctime(path.stat().st_mtime)}): press, click to final redraw {press:.2f} s")


if __name__ == "__main__":
    main()
