"""Notebook 07's writing desk in the kernel: its two models trained, the desk's first word, a new word, its frames.

    python benchmarks/bench_writing.py                               this checkout, 3 rounds
    python benchmarks/bench_writing.py --against OTHER_CHECKOUT      interleaved with another checkout (e.g. a git
                                                                     worktree of an older commit)

The work notebook 07 does up to its desk, without a browser: the letters as data, the DeLaN and the black box
trained on them (4000 steps each, as the notebook), the four controllers, the desk made (it tracks "hello" on
the true arm with the DeLaN's computed torque), a second word written with the DeLaN ("delan"), and every
animation frame of that word drawn (what each step of Play sends: the blitted PNG and the readout).  Each
measurement runs in a fresh process with its checkout's lesson_lib first on the path; rounds alternate between
the checkouts.  Printed per checkout: the median of each part over the rounds and the pen's RMS error on both
words (the same in both checkouts if they compute the same thing); with --against, each part's ratio.

Issue 23 asks that nothing outside the Bench got slower; the browser's side of the desk is in
tests/test_browser.py.  Not a test: it asserts nothing.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))          # bench_browser_press's first_on_path
PARTS = ("train both models", "desk, first word", "a new word", "its frames")


def measure():
    """One round in this process: {part: seconds} plus the pen's RMS error on both words (mm)."""
    from lesson_course.ui import writing
    from lesson_lib import BlackBox, DeLaN, double_pendulum
    from lesson_lib.control import PD, ComputedTorque
    from lesson_lib.data import write_letters
    from lesson_lib.data.letters import TRAIN_LETTERS

    chain = double_pendulum()
    train = write_letters(TRAIN_LETTERS, chain, seed=0).sample(dt=0.01)
    times, t = {}, time.perf_counter()
    delan, black_box = DeLaN(seed=0), BlackBox(seed=0)
    for model in (delan, black_box):
        model.fit(train, steps=4000)
    times[PARTS[0]], t = time.perf_counter() - t, time.perf_counter()
    controllers = {"true model": ComputedTorque(chain), "DeLaN": ComputedTorque(delan),
                   "black box": ComputedTorque(black_box), "PD alone": PD()}
    desk = writing.WritingDesk(controllers, word="hello", controller="DeLaN")
    first = desk.shown.rms
    times[PARTS[1]], t = time.perf_counter() - t, time.perf_counter()
    if not desk.write("delan", "DeLaN"):
        raise RuntimeError(f"the desk refused the word: {desk.message.value}")
    times[PARTS[2]], t = time.perf_counter() - t, time.perf_counter()
    frames = len(desk.shown.frames)
    for frame in range(frames):
        desk.show(frame)
    times[PARTS[3]] = time.perf_counter() - t
    return {"times": times, "frames": frames, "rms_mm": [1e3 * first, 1e3 * desk.shown.rms]}


def run(checkout):
    """measure() in a fresh process with `checkout`'s lesson_lib first on the path."""
    # Imported here, not at the top: bench_browser_press brings the browser tests' helpers (Playwright), which the
    # measuring process, started afresh each round, does not need.
    from bench_browser_press import first_on_path
    env = dict(first_on_path(checkout, os.environ), MPLBACKEND="Agg")
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--measure"], cwd=checkout, env=env,
                         capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{checkout}: the measurement failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, default=None, help="another checkout to race, interleaved")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per checkout (default 3)")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)    # one round, as JSON
    args = parser.parse_args(argv)
    if args.measure:
        print(json.dumps(measure()))
        return
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    checkouts = [ROOT] + ([args.against.resolve()] if args.against else [])
    for checkout in checkouts:
        if not (checkout / "lesson_lib" / "ui" / "writing.py").is_file():
            parser.error(f"{checkout} has no lesson_course/ui/writing.py")
    results = {c: [] for c in checkouts}
    for _ in range(args.rounds):
        for checkout in checkouts:
            results[checkout].append(run(checkout))
    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} "
          f"cores; {args.rounds} rounds each, interleaved, a fresh process per round")
    medians = {}
    for checkout, rows in results.items():
        medians[checkout] = {p: statistics.median(r["times"][p] for r in rows) for p in PARTS}
        frames = rows[0]["frames"]
        print(f"{checkout}: " + "; ".join(f"{p} {medians[checkout][p]:.2f} s" for p in PARTS) +
              f" ({1e3 * medians[checkout][PARTS[3]] / frames:.1f} ms a frame, {frames} frames); pen RMS error "
              f"{', '.join(f'{x:.3f}' for x in rows[0]['rms_mm'])} mm")
    if len(checkouts) == 2:
        a, b = medians.values()
        print("this checkout / the other, medians: " + "; ".join(f"{p} {a[p] / b[p]:.2f}" for p in PARTS))


if __name__ == "__main__":
    main()
