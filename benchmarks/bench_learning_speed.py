"""Learning speed on notebook 07's letters: what a DeLaN has learned after 1,000 to 6,000 steps (issue 60).

Data: the 2-link arm of notebooks 07 and 08 writes letters (lesson_lib.data.write_letters, 100 samples a second).
The model trains on some letters and is judged on others it never saw, whole letters (trajectories), in two
splits of the 26 lowercase letters:

    07   notebook 07's own: trains on TRAIN_LETTERS (15), held out TEST_LETTERS (11)
    B    a seeded reshuffle: 15 others to train, 11 others held out

each with and without encoder noise as notebook 08 records it (positions + N(0, sigma^2), sigma = --sigma rad;
q-dot and q-double-dot by differences of the noisy positions, lesson_lib.data.estimate(method="differences")).  The
held-out letters are always the truth: the question is what the model learned, not how well it fits noise.

Errors: the root-mean-square error in N m on the held-out letters of the torque tau and of each part of
M q-dd + c + g against the RNEA's (lesson_lib.part_errors, the measure notebook 07 prints), after 1k, 2k, 4k and
6k steps.  A model trains as a learner's presses of Train do: fit calls of STEPS_PER_PRESS (2,000) steps, each
resuming from the last and ending with the weights it chooses (lesson_lib.model.training), so the figures after
2,000, 4,000 and 6,000 steps are those after one, two and three presses; the figure after 1,000 steps is that of a
model of its own trained by one call of 1,000.

Settings: "default" is the library's, read from DeLaN() and Adam (lesson_lib.facts, lesson_lib.model.adam); "before"
is BEFORE below, the default until issue 60 (two hidden layers of 32, batch 128, lr 3e-3, Adam's paper's b1 = 0.9 and
b2 = 0.999, no average of the iterates: the model kept the last; V's readout trained by Adam, not solved at the end of
each call, lesson_lib.model.potential_readout).  Each runs for several model seeds (--seeds); the
figures are the geometric mean over seeds (and the worst seed with --verbose).  The goal lines compare, per split and
noise and for each of the four errors: default after 2k <= before after 6k, and default after 6k <= before after
6k / 3.  Time per step: the two settings' steps are timed in the same run, interleaved (CPU time: fit runs one
thread), and their ratio printed with the load average.

--longer trains the default on to 10,000 and 20,000 steps on the clean letters: how far it is from the second goal,
and its errors on the training letters beside the held-out ones.  --ablation prints what each choice is worth on the
clean letters: rows that add one change at a time to the setting before, up to the default, and alternatives beside
them (benchmarks/RESULTS.md holds the table).  --lesson
checks that the lesson stays true with both settings: the Bench's presses from the lesson's data (PASS, and the
validation loss never worse than the press before), notebook 08's recording (fit warns that M collapsed on
differenced q-double-dot; Störmer-Verlet training improves the Savitzky-Golay model).

What a setting or the ablation changes, it changes only inside its block and puts back after: Adam's b1 and b2
(class attributes of lesson_lib.model.adam.Adam, read at every step), the plateau schedule's patience
(lesson_lib.model.schedule.PATIENCE, which Schedule.validated reads at every evaluation), Adam's step
(lesson_lib.model.adam.Adam.step, what fit's loop calls through model.optimizer; the rate is its attribute lr),
and the network's input jet (lesson_lib.model.fast.input_jet, which the training loss and every evaluation call).

Encoder noise: notebook 08's own recording (1e-3 rad at 500 Hz) gives q-double-dot by differences an error of
about 600 rad/s^2, and M collapses to eps I for any setting (08's lesson: --lesson shows it); the default here,
1e-5 rad at 100 Hz (a fine encoder's), leaves an error of about 0.25 rad/s^2 against the letters'
2 rad/s^2: the model still learns, and the noise sets a floor.

    python benchmarks/bench_learning_speed.py                  # about 2 minutes of CPU (one core)
    python benchmarks/bench_learning_speed.py --ablation       # about 7 minutes
    python benchmarks/bench_learning_speed.py --lesson         # about 2 minutes
    python benchmarks/bench_learning_speed.py --longer         # about 3 minutes: the default to 20,000 steps
    python benchmarks/bench_learning_speed.py --quick          # one seed, one split, a few steps: that it runs
"""
import argparse
import contextlib
import functools
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # the course of this repository, not an installed one
from lesson_lib import DeLaN, double_pendulum, part_errors
from lesson_lib.data import estimate, record, write_letters
from lesson_lib.data.letters import TEST_LETTERS, TRAIN_LETTERS
from lesson_lib.facts import STEPS_PER_PRESS
from lesson_lib.model import adam, fast, schedule
from lesson_lib.model.trainable import Trainable

STEPS = (1000, 2000, 4000, 6000)          # when the errors are read
PARTS = ("tau", "M_qdd", "c", "g")
BEFORE = dict(model=dict(hidden=(32, 32), batch_size=128, lr=3e-3, mass_units=0), adam=(0.9, 0.999, 0.0),
              readout=False)   # the default until issue 60: Adam's (b1, b2, decay of the average), decay 0 keeping the
#             last iterate; L and V reading every unit, as every default did before L and V had units of their own;
#             V's readout trained by Adam, not solved (DeLaN.solves_readout); the rest the default's
RATE = 100.0                               # samples a second, as notebook 07 samples its letters
SIGMA = 1e-5                               # encoder noise (rad); see --sigma


def splits():
    """{name: (training letters, held-out letters)}: notebook 07's, and a seeded reshuffle of the same 26."""
    letters = sorted(TRAIN_LETTERS + TEST_LETTERS)
    shuffled = "".join(np.random.default_rng(7).permutation(letters))
    return {"07": (TRAIN_LETTERS, TEST_LETTERS), "B": (shuffled[:15], shuffled[15:])}


def letters_data(train_letters, test_letters, sigma, chain):
    """(training data, held-out truth): the training letters sampled at RATE, with encoder noise sigma (rad) and
    rates by differences when sigma > 0; the held-out letters exact."""
    motion = write_letters(train_letters, chain, seed=0).sample(dt=1 / RATE)
    held_out = write_letters(test_letters, chain, seed=1).sample(dt=1 / RATE)
    if sigma > 0:
        motion = estimate(record(motion, sigma=sigma, seed=0), method="differences")
    return motion, held_out


def errors(model, chain, held_out):
    """RMS errors (N m) on the held-out letters: tau and the three parts (notebook 07's part_errors)."""
    found = part_errors(model, chain, held_out)
    tau = model.inverse_dynamics(held_out["q"], held_out["qd"], held_out["qdd"])
    return {"tau": float(np.sqrt(np.mean((tau - held_out["tau"]) ** 2))), **found}


@contextlib.contextmanager
def plateau(patience):
    """The schedule's patience for the body (None: as it is; inf: the rate never lowered on plateaus)."""
    saved = schedule.PATIENCE
    if patience is not None:
        schedule.PATIENCE = patience
    try:
        yield
    finally:
        schedule.PATIENCE = saved


@contextlib.contextmanager
def moments(b1=None, b2=None, decay=None):
    """Adam's decay rates b1 (of the mean gradient), b2 (of its square) and decay (of the average of the iterates;
    0 keeps the last iterate) for the body (None: as they are)."""
    saved = adam.Adam.b1, adam.Adam.b2, adam.Adam.decay
    adam.Adam.b1, adam.Adam.b2, adam.Adam.decay = (old if new is None else new
                                                   for old, new in zip(saved, (b1, b2, decay), strict=True))
    try:
        yield
    finally:
        adam.Adam.b1, adam.Adam.b2, adam.Adam.decay = saved


@contextlib.contextmanager
def step_decay(warmup, half_life):
    """Adam's rate times min(1, t / warmup) x 0.5^((t - warmup) / half_life) at its t-th step (t from 1; the decay
    starts after the warm-up): a warm-up, then the rate halved every half_life steps, whatever the calls."""
    original = adam.Adam.step

    def step(self, theta, g):
        t = self.t + 1
        factor = min(1.0, t / warmup) * 0.5 ** (max(t - warmup, 0) / half_life)
        rate, self.lr = self.lr, self.lr * factor       # the schedule's rate, put back after the step
        try:
            return original(self, theta, g)
        finally:
            self.lr = rate
    adam.Adam.step = step
    try:
        yield
    finally:
        adam.Adam.step = original


@contextlib.contextmanager
def standardised_inputs(data):
    """The network's inputs [cos q, sin q] shifted and scaled to mean 0 and standard deviation 1 over the training
    data's q (their q-derivatives scaled alike): the same functions, another parametrisation."""
    features = np.concatenate([np.cos(data["q"]), np.sin(data["q"])], axis=1)
    mean, std = features.mean(axis=0), features.std(axis=0)
    original = fast.input_jet

    def input_jet(q):
        X = original(q)
        X[0] -= mean.astype(X.dtype)
        X /= std.astype(X.dtype)
        return X
    fast.input_jet = input_jet
    try:
        yield
    finally:
        fast.input_jet = original


def delan(setting, seed):
    """A fresh DeLaN(seed, **model) of the setting, its readout solved or trained as the setting says (the library's
    DeLaN.solves_readout where it says nothing); with "recombined": False its fit calls weigh no call's L joined to
    the V it started from (DeLaN.recombined), only the refined average and the weights the call started from."""
    model = DeLaN(seed=seed, **setting.get("model", {}))
    model.solves_readout = setting.get("readout", DeLaN.solves_readout)
    if not setting.get("recombined", True):
        model.recombined = functools.partial(Trainable.recombined, model)
    return model


def train(setting, seed, data, chain, held_out, steps=STEPS, press=STEPS_PER_PRESS, also=None):
    """{step: errors} at each of `steps`, and the CPU seconds per step spent in fit, for a fresh DeLaN of the setting
    (delan) trained by fit calls of `press` steps (a step count below `press`: a fresh model of its own, trained by one
    call of that many); with `also` (another truth, e.g. the training letters), {step: (errors, errors on also)}."""
    patience = setting.get("patience")
    found, seconds = {}, 0.0
    with contextlib.ExitStack() as changes:
        changes.enter_context(plateau(patience))
        changes.enter_context(moments(*setting.get("adam", ())))
        if "decay" in setting:
            changes.enter_context(step_decay(*setting["decay"]))
        if setting.get("standardised"):
            changes.enter_context(standardised_inputs(data))
        runs = [[s] for s in steps if s < press]                   # each step count below a press: a model of its own
        if steps[-1] >= press:
            runs.append([s for s in steps if s >= press])            # the others: one model, press after press
        trained = 0
        for reads in runs:
            model = delan(setting, seed)
            while model.step < reads[-1]:
                goal = min(model.step + press, min(s for s in reads if s > model.step))
                t0 = time.process_time()                # CPU time: fit runs one thread, and a busy machine
                model.fit(data, steps=goal - model.step)  # stretches its wall time, not its CPU time
                seconds += time.process_time() - t0
                if model.step in reads:
                    found[model.step] = errors(model, chain, held_out)
                    if also is not None:
                        found[model.step] = found[model.step], errors(model, chain, also)
            trained += model.step
    return found, seconds / trained


def mean_over_seeds(runs):
    """{step: {part: geometric mean over the seeds' errors}}."""
    return {s: {p: float(np.exp(np.mean([np.log(r[s][p]) for r in runs]))) for p in PARTS} for s in runs[0]}


def row(label, table, steps):
    """One printed row: at each step, its label (2k) and the four errors."""
    cells = " | ".join((f"{s // 1000}k " if s % 1000 == 0 else f"{s} ") +
                       " ".join(f"{table[s][p]:.4f}" for p in PARTS) for s in steps)
    return f"  {label:<24} {cells}"


def compare(settings, seeds, split_names, sigmas, steps, chain, verbose=False):
    """Train every setting on every split, noise and seed, interleaved; print the tables; return
    {(split, sigma): {setting: mean table}} and {setting: seconds per step}."""
    all_splits = splits()
    results, per_step = {}, {name: [] for name in settings}
    for sigma in sigmas:
        for split in split_names:
            train_letters, test_letters = all_splits[split]
            data, held_out = letters_data(train_letters, test_letters, sigma, chain)
            runs = {name: [] for name in settings}
            for seed in seeds:
                for name, setting in settings.items():      # interleaved: the same load for every setting
                    found, seconds = train(setting, seed, data, chain, held_out, steps)
                    runs[name].append(found)
                    per_step[name].append(seconds)
            noise = f"encoder noise {sigma:g} rad, rates by differences" if sigma else "exact positions and rates"
            print(f"\nsplit {split}: train on {''.join(sorted(train_letters))} ({len(data['q'])} samples), held out "
                  f"{''.join(sorted(test_letters))}; {noise}; RMS errors in N m (tau M_qdd c g), geometric mean of "
                  f"{len(seeds)} seeds")
            results[(split, sigma)] = {}
            for name in settings:
                table = mean_over_seeds(runs[name])
                results[(split, sigma)][name] = table
                print(row(name, table, steps))
                if verbose:
                    worst = {s: {p: max(r[s][p] for r in runs[name]) for p in PARTS} for s in steps}
                    print(row("  (worst seed)", worst, steps))
    return results, {name: float(np.median(v)) for name, v in per_step.items()}


def worst(table, before, step, last):
    """The worst over the four errors of table's after `step` steps against before's after `last`."""
    return max(table[step][p] / before[last][p] for p in PARTS)


def first_press(steps):
    """The step count read as one press: STEPS_PER_PRESS, or the first of `steps` without it (a quick run)."""
    return STEPS_PER_PRESS if STEPS_PER_PRESS in steps else steps[0]


def goals(results, steps):
    """The goal lines: per split and noise, the default's worst ratio over the four errors against before's."""
    last, press = steps[-1], first_press(steps)
    print()
    for (split, sigma), tables in results.items():
        before, default = tables["before"], tables["default"]
        early, late = worst(default, before, press, last), worst(default, before, last, last)
        where = f"split {split}, {'noise ' + format(sigma, 'g') if sigma else 'exact'}"
        print(f"GOAL {where}: default after {press} steps / before after {last}: worst of the four {early:.2f} "
              f"(<= 1: {'MET' if early <= 1 else 'MISSED'}); default after {last} / before after {last}: worst "
              f"{late:.2f} (<= 0.33: {'MET' if late <= 1 / 3 else 'MISSED'})")


def describe(setting):
    """A setting as printed: the DeLaN's rate, batch, widths, activation and eps, and Adam's b1, b2 and the decay of
    its average, the library's where the setting does not say."""
    with moments(*setting.get("adam", ())):
        probe = DeLaN(**setting.get("model", {}))
        b1, b2, decay = adam.Adam.b1, adam.Adam.b2, adam.Adam.decay
    units = f"L on {probe.mass_units} units" if probe.mass_units else "L and V on every unit"
    readout = "solved" if setting.get("readout", DeLaN.solves_readout) else "trained"
    return (f"lr {probe.lr:g}, batch {probe.batch_size}, {'x'.join(map(str, probe.hidden))}, {probe.activation}, "
            f"eps {probe.eps:g}, {units}, V's readout {readout}, Adam b1 {b1:g} b2 {b2:g}, average decay {decay:g}")


def before_and_default():
    """The two settings compared: BEFORE and the library's default (DeLaN()'s and Adam's, not restated here)."""
    return {"before": BEFORE, "default": {"model": {}}}


def ablation_settings():
    """Rows adding one change at a time to the setting before, up to the library's default; then alternatives beside
    them: the first two from "+ lr 1e-2" (stop 63's candidate and a warm-up with a decay), the rest the default with
    what they name changed."""
    old, old_adam = BEFORE["model"], BEFORE["adam"]
    new, new_adam = DeLaN(), (adam.Adam.b1, adam.Adam.b2, adam.Adam.decay)
    no_average, shared = (*new_adam[:2], 0.0), {"mass_units": 0}
    return {                                   # the labels read the default's values (the setting each row adds)
        "before": BEFORE,
        f"+ lr {new.lr:g}": {"model": {**old, "lr": new.lr}, "adam": old_adam, "readout": False},
        f"+ Adam b1 {new_adam[0]:g}, b2 {new_adam[1]:g}": {"model": {**old, "lr": new.lr}, "adam": no_average,
                                                           "readout": False},
        f"+ hidden {'x'.join(map(str, new.hidden))}": {"model": {**old, "lr": new.lr, "hidden": new.hidden},
                                                        "adam": no_average, "readout": False},
        f"+ batch {new.batch_size}": {"model": shared, "adam": no_average, "readout": False},
        f"+ average {new_adam[2]:g}": {"model": shared, "readout": False},
        f"+ L on {new.mass_units} of the {new.hidden[-1]} units, V on the rest": {"model": {}, "readout": False},
        "+ V's readout solved": {"model": {}, "recombined": False},
        "+ a call's L joined to the V it started from: the default": {"model": {}},
        "  lr 1e-2, batch 192": {"model": {**old, "lr": 1e-2, "batch_size": 192}, "adam": old_adam,
                                 "readout": False},
        "  2e-2, warm-up, decay": {"model": {**old, "lr": 2e-2}, "adam": old_adam, "decay": (100, 1000),
                                   "patience": math.inf, "readout": False},
        "  Adam b1 0.9, b2 0.999": {"model": {}, "adam": old_adam[:2]},
        "  lr 5e-3": {"model": {"lr": 5e-3}},
        "  lr 2e-2": {"model": {"lr": 2e-2}},
        "  1x64, batch 256": {"model": {"hidden": (64,), "batch_size": 256}},
        "  1x32, batch 512": {"model": {"hidden": (32,), "batch_size": 512}},
        "  2x32, batch 128": {"model": {"hidden": (32, 32), "batch_size": 128}},
        "  tanh": {"model": {"activation": "tanh"}},
        "  eps 1e-2": {"model": {"eps": 1e-2}},
        "  standardised inputs": {"model": {}, "standardised": True},
        "  the rate halved every 3,000 steps": {"model": {}, "decay": (1, 3000), "patience": math.inf},
        f"  L on {2 * new.mass_units} units": {"model": {"mass_units": 2 * new.mass_units}},
    }


def longer(seeds=(0, 1, 2), split_names=("07", "B"), steps=(6000, 10000, 20000), before_at=6000):
    """The second goal seen further on: the default trained on to `steps` against before after `before_at` steps, on
    the clean letters, with its errors on the training letters beside the held-out ones (what still falls with more
    steps is optimisation, what stays is generalisation); prints the worst of the four ratios at each step."""
    chain = double_pendulum()
    print(f"{os.cpu_count()} cores, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for split in split_names:
        train_letters, test_letters = splits()[split]
        data, held_out = letters_data(train_letters, test_letters, 0.0, chain)
        before = mean_over_seeds([train(BEFORE, seed, data, chain, held_out, (before_at,))[0]
                                  for seed in seeds])[before_at]
        runs = [train({}, seed, data, chain, held_out, steps, also=data)[0] for seed in seeds]
        held, trained = (mean_over_seeds([{s: run[s][i] for s in run} for run in runs]) for i in (0, 1))
        print(f"\nsplit {split}: exact letters; RMS errors in N m (tau M_qdd c g), geometric mean of {len(seeds)} "
              f"seeds\n  before, held out, {before_at:>5}    " + " ".join(f"{before[p]:.4f}" for p in PARTS))
        for s in steps:
            worst = max(held[s][p] / before[p] for p in PARTS)
            print(f"  default, held out, {s:>5}   " + " ".join(f"{held[s][p]:.4f}" for p in PARTS) +
                  "   (training letters " + " ".join(f"{trained[s][p]:.4f}" for p in PARTS) +
                  f");  worst against before's {before_at}: {worst:.2f} (a third: "
                  f"{'MET' if worst <= 1 / 3 else 'not yet'})")


def lesson(settings, seeds=(0, 1, 2, 3, 4), presses=4):
    """Item 4 of issue 60, for each setting: the Bench's presses from the lesson's data, notebook 08's collapse
    warning and its Störmer-Verlet training; prints the figures."""
    from lesson_lib import sample_uniform
    from lesson_lib.facts import N_SAMPLES, SEED
    chain = double_pendulum()
    uniform = sample_uniform(chain, N_SAMPLES, seed=SEED)
    motion = write_letters(TRAIN_LETTERS, chain, seed=0).sample(dt=1 / 500)        # notebook 08's recording
    recording = record(motion, sigma=1e-3, seed=0)
    visited = motion["q"][::20]
    M_true = chain.mass_matrix(visited)
    for name, setting in settings.items():
        with moments(*setting.get("adam", ())):                     # Adam's for this setting only
            _lesson_of(name, setting, seeds, presses, chain, uniform, recording, visited, M_true)


def _lesson_of(name, setting, seeds, presses, chain, uniform, recording, visited, M_true):
    """lesson's figures for one setting (Adam's settings already set)."""
    import warnings

    from lesson_lib import lesson_check
    from lesson_lib.evaluation.audit import InertiaCollapsed
    from lesson_lib.facts import SEED, STEPS_PER_PRESS
    from lesson_lib.model.verlet import fit_verlet
    print(f"\n{name}: the Bench's presses of {STEPS_PER_PRESS} steps on the lesson's data (max |M_hat - M| over "
          f"the grid, smallest eigenvalue, PASS; the validation loss each press ends with)")
    for seed in seeds:
        model, cells, ends = delan(setting, seed), [], []
        for _ in range(presses):
            model.fit(uniform, steps=STEPS_PER_PRESS)
            found = lesson_check(model, chain)
            ends.append(model.validation_history[-1][1])
            cells.append(f"{found['max_error']:.4f} {found['min_eig']:.4f} {'PASS' if found['passed'] else 'FAIL'}")
        never_worse = all(b <= a for a, b in zip(ends, ends[1:], strict=False))
        print(f"  seed {seed}{' (the Bench)' if seed == SEED else ''}: " + " | ".join(cells) +
              f"; validation {' '.join(f'{v:.2e}' for v in ends)}: never worse than before: {never_worse}")
    print(f"{name}: notebook 08 (15 letters at 500 Hz, encoder noise 1e-3 rad), 3000 steps on each estimate, then "
          f"1000 Störmer-Verlet steps from the Savitzky-Golay model; max |M_hat - M| on the visited states")
    for method in ("differences", "savgol"):
        data = estimate(recording, method=method)
        model = delan(setting, 0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.fit(data, steps=3000)
        warned = any(issubclass(w.category, InertiaCollapsed) for w in caught)
        error = np.abs(model.mass_matrix(visited) - M_true).max()
        print(f"  {method:>11}: max |M_hat - M| {error:.3f}, fit warned that M collapsed: {warned}")
    fit_verlet(model, recording, steps=1000)
    print(f"  {'then Verlet':>11}: max |M_hat - M| {np.abs(model.mass_matrix(visited) - M_true).max():.3f}")


def main(seeds=(0, 1, 2), split_names=("07", "B"), sigma=SIGMA, steps=STEPS, ablation=False, verbose=False):
    chain = double_pendulum()
    print(f"{os.cpu_count()} cores, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if ablation:
        settings = ablation_settings()
        print(f"before: {describe(BEFORE)}; default: {describe({})} (the library's)")
        results, per_step = compare(settings, seeds, split_names, (0.0,), steps, chain, verbose)
        last, press = steps[-1], first_press(steps)
        print(f"\nThe worst of the four errors against before's after {last} steps, after {press} / {last} steps:")
        for name in settings:
            print(f"  {name:<24} " + "   ".join(
                f"{split} {worst(tables[name], tables['before'], press, last):.2f} / "
                f"{worst(tables[name], tables['before'], last, last):.2f}" for (split, _), tables in results.items()))
        base = per_step["before"]
        print("\nCPU time per step against before's (interleaved in this run): " +
              ", ".join(f"{name.strip()} {t / base:.2f}x" for name, t in per_step.items()))
        return results
    settings = before_and_default()
    print(f"before: {describe(BEFORE)} (the default until issue 60); default: {describe({})} (the library's, read "
          f"from DeLaN() and Adam)")
    results, per_step = compare(settings, seeds, split_names, (0.0, sigma), steps, chain, verbose)
    goals(results, steps)
    print(f"CPU time per step, default / before: {per_step['default'] / per_step['before']:.2f} (median of "
          f"{len(seeds) * len(split_names) * 2} interleaved trainings each; goal <= 1.2); load average "
          f"{os.getloadavg()[0]:.1f}")
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="model seeds (default 0 1 2)")
    parser.add_argument("--splits", nargs="+", default=["07", "B"], choices=["07", "B"])
    parser.add_argument("--sigma", type=float, default=SIGMA, help=f"encoder noise in rad (default {SIGMA:g})")
    parser.add_argument("--ablation", action="store_true", help="the table of what each choice is worth")
    parser.add_argument("--lesson", action="store_true", help="the lesson's checks for before and the default")
    parser.add_argument("--longer", action="store_true", help="the default past 6,000 steps against before's 6,000")
    parser.add_argument("--quick", action="store_true", help="seed 0, split 07, 20 and 40 steps: that it runs")
    parser.add_argument("--verbose", action="store_true", help="also the worst seed's errors")
    a = parser.parse_args()
    if a.longer:
        longer(tuple(a.seeds), tuple(a.splits))
    elif a.lesson:
        lesson(before_and_default(), tuple(a.seeds) if a.seeds != [0, 1, 2] else (0, 1, 2, 3, 4))
    elif a.quick:
        main(seeds=(0,), split_names=("07",), sigma=a.sigma, steps=(20, 40), ablation=a.ablation)
    else:
        main(tuple(a.seeds), tuple(a.splits), a.sigma, STEPS, a.ablation, a.verbose)
