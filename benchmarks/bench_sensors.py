"""Learning from what the arm records: encoder noise, q̇ and q̈ estimated from positions, and what the DeLaN learns.

Issue 20's table: the arm writes the 15 training letters at 500 Hz (42,201 samples); the encoders add noise of
std sigma; q̇, q̈ come from central differences or a Savitzky-Golay filter (lesson_lib.data.sensors); the default
DeLaN trains 6,000 steps; measured against the truth kept aside: the rms q̈ error, max |M_hat - M| on the visited
states, the held-out torque MSE on the 11 other letters (noise-free), and whether
lesson_lib.evaluation.audit.inertia_collapse flags the model.  Then training without q̈: the Savitzky-Golay model
trained on through Störmer-Verlet (lesson_lib.model.verlet.fit_verlet, --verlet-steps more steps on the recorded
positions), against the same model trained as many more steps on the filter's q̈ (is it the integrator, or just
more training?).  Then the filter's trade-off: rms q̈ error by window length at sigma = 0, 1e-4 and 1e-3 rad
(bias alone, then bias and noise).

Run:  python benchmarks/bench_sensors.py [--seeds 0 1 2] [--steps 6000] [--verlet-steps 10000] [--rows 7 8]

(about 15 minutes on 2 cores, idle: most of it the two Störmer-Verlet rows, 10,000 steps of 8-9 ms for each seed)
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # the course of this repository, not an installed one
from lesson_lib import DeLaN, double_pendulum
from lesson_lib.data import estimate, record
from lesson_lib.data.letters import TEST_LETTERS, TRAIN_LETTERS, write_letters
from lesson_lib.data.sensors import estimation_errors
from lesson_lib.evaluation.audit import inertia_collapse
from lesson_lib.model.verlet import fit_verlet

RATE = 500


def main(seeds=(0, 1, 2), steps=6000, verlet_steps=10000, only=None, windows_table=True):
    chain = double_pendulum()
    train = write_letters(TRAIN_LETTERS, chain).sample(dt=1 / RATE)
    test = write_letters(TEST_LETTERS, chain, seed=1).sample(dt=0.01)
    visited = train["q"][::20]
    M_true = chain.mass_matrix(visited)
    print(f"training data: {len(train['q'])} samples of {TRAIN_LETTERS!r} at {RATE} Hz; held out: {TEST_LETTERS!r}")
    more = f"+{verlet_steps} steps"
    rows = [("exact", None, 0.0, None), ("differences", "differences", 1e-4, None),
            ("differences", "differences", 1e-3, None), ("Savitzky-Golay 0.1 s, cubic", "savgol", 1e-4, None),
            ("Savitzky-Golay 0.1 s, cubic", "savgol", 1e-3, None),
            (f"S-G, {more} on S-G q̈", "savgol", 1e-4, "more"), (f"S-G, {more} on S-G q̈", "savgol", 1e-3, "more"),
            (f"S-G, {more} Störmer-Verlet", "savgol", 1e-4, "verlet"),
            (f"S-G, {more} Störmer-Verlet", "savgol", 1e-3, "verlet")]
    print(f"{'q̇, q̈ from':<30}{'sigma':>8}{'rms q̈ err':>12}{'max|M̂-M|':>22}{'held-out MSE':>26}{'collapse':>10}  s/fit")
    for label, method, sigma, then in (rows if only is None else [rows[k] for k in only]):
        recording = record(train, sigma=sigma, seed=0)
        data = train if method is None else estimate(recording, method=method)
        qdd_err = 0.0 if method is None else estimation_errors(data)["qdd"]
        errs, mses, flags, secs = [], [], [], []
        for seed in seeds:
            model = DeLaN(seed=seed)
            t0 = time.perf_counter()
            model.fit(data, steps=steps)
            if then == "more":
                model.fit(data, steps=verlet_steps)
            elif then == "verlet":
                fit_verlet(model, recording, steps=verlet_steps, seed=seed)
            secs.append(time.perf_counter() - t0)
            errs.append(float(np.abs(model.mass_matrix(visited) - M_true).max()))
            tau_hat = model.inverse_dynamics(test["q"], test["qd"], test["qdd"])
            mses.append(float(np.mean((tau_hat - test["tau"]) ** 2)))
            flags.append(inertia_collapse(model, train)["collapsed"])
        print(f"{label:<30}{sigma:>8g}{qdd_err:>12.3g}   {' / '.join(f'{e:.3f}' for e in errs):>19}"
              f"   {' / '.join(f'{m:.2g}' for m in mses):>23}{sum(flags):>7}/{len(flags)}  {np.median(secs):.1f}")
    if not windows_table:
        return
    print("\nSavitzky-Golay (cubic) rms q̈ error by window, rad/s^2: the bias grows with the window, the noise falls")
    windows = (0.03, 0.05, 0.1, 0.2)
    print(f"{'sigma':>8}" + "".join(f"{w:>10g} s" for w in windows))
    for sigma in (0.0, 1e-4, 1e-3):
        rec = record(train, sigma=sigma, seed=0)
        print(f"{sigma:>8g}" + "".join(f"{estimation_errors(estimate(rec, window=w))['qdd']:>12.3g}" for w in windows))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=6000)
    parser.add_argument("--verlet-steps", type=int, default=10000)
    parser.add_argument("--rows", type=int, nargs="+", help="only these rows of the table (0 = exact, ...)")
    args = parser.parse_args()
    main(tuple(args.seeds), args.steps, args.verlet_steps, args.rows, windows_table=args.rows is None)
