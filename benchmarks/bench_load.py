"""What a learner waits for on a busy machine: notebook 08's Störmer–Verlet training idle and beside N processes
that keep a core busy each (load N), and each teachers' notebook run top to bottom (Restart and Run All).

A fair share of 2 cores beside 8 busy processes is 2/9 of them: a single-threaded computation then takes about
4.5 times as long as idle.  Issue 50's goal: the Verlet training at most 6 times slower at load 8 than idle.

Run:  python benchmarks/bench_load.py [--load 8] [--steps 200] [--notebooks 00 01 ... | --notebooks none]
(about 1 min for the Verlet figure; each notebook adds its own time twice, idle and at the load)
"""
import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))      # the course of this repository, not an installed one


def _spin(stop, own_session):
    if own_session:
        os.setsid()          # another session: with Linux's autogroup, the load of other users, not of this one
    while not stop.is_set():
        sum(i * i for i in range(10000))


class Load:
    """Within the block, `n` processes that each keep a core busy (pure Python: no BLAS threads of their own), in
    this process's session (its autogroup shares the CPU with them) or each in a session of its own."""

    def __init__(self, n, own_session=False):
        self.n, self.own_session, self.stop, self.procs = n, own_session, multiprocessing.Event(), []

    def __enter__(self):
        self.procs = [multiprocessing.Process(target=_spin, args=(self.stop, self.own_session), daemon=True)
                      for _ in range(self.n)]
        for p in self.procs:
            p.start()
        time.sleep(1.0)
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for p in self.procs:
            p.join(5)
            if p.is_alive():
                p.terminate()


def verlet_seconds(steps):
    """(wall, CPU) seconds for fit_verlet(model, recording, steps), notebook 08's recording and a briefly
    warm-started DeLaN; CPU counts every thread of this process (BLAS threads that spin count too)."""
    import numpy as np

    from lesson_lib import DeLaN, double_pendulum
    from lesson_lib.data import estimate, record, write_letters
    from lesson_lib.data.letters import TRAIN_LETTERS
    from lesson_lib.model.verlet import fit_verlet
    chain = double_pendulum()
    recording = record(write_letters(TRAIN_LETTERS, chain, seed=0).sample(dt=0.002), sigma=1e-3, seed=0)
    model = DeLaN(seed=0)
    model.fit(estimate(recording, method="savgol", window=0.1), steps=200)
    start, cpu = time.perf_counter(), time.process_time()
    fit_verlet(model, recording, steps=steps)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert np.all(np.isfinite(model.get_params()))
    return seconds, cpu


def notebook_seconds(name):
    """Seconds to run the teachers' notebook `name` top to bottom in a fresh kernel (as Restart and Run All)."""
    import nbformat
    from nbclient import NotebookClient
    path = next((ROOT / "notebooks" / "solutions").glob(f"{name}*.ipynb"))
    nb = nbformat.read(str(path), as_version=4)
    start = time.perf_counter()
    client = NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute(env={**os.environ, "LESSON_PREDICTIONS": ""})      # no learner: the evidence runs unchosen
    return path.stem, time.perf_counter() - start


def main(load=8, steps=200, notebooks=("00", "01", "02", "03", "04", "05", "06", "07", "08")):
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    (idle, idle_cpu) = verlet_seconds(steps)
    print(f"Störmer–Verlet, {steps} steps idle: {idle:.1f} s ({idle_cpu:.1f} s of CPU)")
    for own_session in (False, True):
        with Load(load, own_session):
            busy, busy_cpu = verlet_seconds(steps)
        print(f"  at load {load} ({'other sessions' if own_session else 'this session'}): {busy:.1f} s, "
              f"{busy / idle:.1f}x idle (fair share {(load + 1) / 2:.1f}x, goal <= 6x); {busy_cpu:.1f} s of CPU, "
              f"{busy_cpu / idle_cpu:.1f}x idle's (threads that wait for a core waste none)")
    for name in notebooks:
        stem, idle = notebook_seconds(name)
        with Load(load):
            _, busy = notebook_seconds(name)
        print(f"{stem}: {idle:.0f} s idle, {busy:.0f} s at load {load}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", type=int, default=8)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--notebooks", nargs="*", default=["00", "01", "02", "03", "04", "05", "06", "07", "08"])
    args = parser.parse_args()
    main(args.load, args.steps, [n for n in args.notebooks if n != "none"])
