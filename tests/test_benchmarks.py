"""The benchmark scripts keep up with the library: each one imports, and the two quick ones run to the end.

Speed is measured by running the scripts (their current figures: benchmarks/RESULTS.md); these tests assert no
time.  They exist because a benchmark that calls the library by an old signature breaks silently: nothing else
runs it.
"""
import importlib.util
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("*.py"))


def load(path):
    spec = importlib.util.spec_from_file_location(f"benchmark_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_there_are_benchmarks():
    assert {"bench_rnea", "bench_delan", "bench_definition", "bench_grading"} <= {p.stem for p in SCRIPTS}


def test_each_benchmark_has_one_line_of_current_figures_and_the_readme_stays_a_front_door():
    results = (BENCHMARKS / "RESULTS.md").read_text(encoding="utf-8")
    for path in SCRIPTS:
        lines = [line for line in results.splitlines() if line.startswith(f"- `{path.name}`:")]
        assert len(lines) == 1, f"benchmarks/RESULTS.md has {len(lines)} lines for {path.name}; one, its current figure"
    readme = (BENCHMARKS.parent / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200, "README.md is a front door (at most 200 lines): details go elsewhere"


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.stem)
def test_each_benchmark_imports_and_has_a_docstring_and_main(path):
    module = load(path)
    assert module.__doc__ and module.__doc__.strip(), f"{path.name}: say what it measures in its docstring"
    assert "__main__" in path.read_text(), f"{path.name}: runs only under `if __name__ == \"__main__\"`"


def test_bench_rnea_runs_and_prints_each_quantity(capsys):
    load(BENCHMARKS / "bench_rnea.py").main(B=500)
    out = capsys.readouterr().out
    for name in ("rnea(q, qd, qdd)", "mass_matrix(q)", "forward_dynamics"):
        assert name in out and "M states/s" in out


def test_bench_plain_runs_and_finds_the_library_records_fewer_operations(capsys):
    load(BENCHMARKS / "bench_definition.py").main()
    out = capsys.readouterr().out
    line = next(row for row in out.splitlines() if row.startswith("operations autograd records"))
    n_plain, n_lib = (int(x.split()[-1].rstrip(",")) for x in line.split(":")[1].split(","))
    assert n_lib < n_plain


def test_bench_jax_peer_without_jax_says_so_and_stops(capsys, monkeypatch):
    """JAX is never a dependency: without it the peer benchmark prints one line saying how to run it."""
    monkeypatch.setitem(__import__("sys").modules, "jax", None)        # import jax now raises ImportError
    load(BENCHMARKS / "bench_jax_peer.py").main(rounds=1, steps=1)
    out = capsys.readouterr().out.strip()
    assert out.count("\n") == 0 and out.startswith("JAX is not installed: skipped") and "pip install jax" in out


def test_bench_torch_peer_without_pytorch_says_so_and_stops(capsys, monkeypatch):
    """PyTorch is never a dependency either."""
    monkeypatch.setitem(__import__("sys").modules, "torch", None)
    load(BENCHMARKS / "bench_torch_peer.py").main(rounds=1, steps=1)
    out = capsys.readouterr().out.strip()
    assert out.count("\n") == 0 and out.startswith("PyTorch is not installed: skipped") and "pip install torch" in out


def test_bench_learning_speed_longer_prints_the_default_past_befores_steps_on_held_out_and_training_letters(capsys):
    """--longer, shortened: before after its steps, then the default at each of its steps with its training letters'
    errors and the worst ratio against before's."""
    load(BENCHMARKS / "bench_learning_speed.py").longer(seeds=(0,), split_names=("07",), steps=(10, 20), before_at=10)
    out = capsys.readouterr().out
    assert "before, held out,    10" in out and out.count("training letters") == 2
    assert out.count("worst against before's 10: ") == 2


def test_bench_learning_speed_runs_both_settings_on_exact_and_noisy_letters_and_restores_the_library(capsys):
    """Its quick run: the library's default (read from DeLaN() and Adam, not restated) against the setting before
    issue 60, the goal lines for exact and noisy data; its settings' and ablation's changes (Adam's b1, b2 and the
    average's decay, the plateau patience, a warm-up and decay of Adam's rate, standardised inputs) change what fit
    uses, and only inside their block."""
    import numpy as np

    from lesson_lib import DeLaN
    from lesson_lib.model import adam, fast, schedule
    bench = load(BENCHMARKS / "bench_learning_speed.py")
    results = bench.main(seeds=(0,), split_names=("07",), steps=(10, 20))
    out = capsys.readouterr().out
    assert set(results) == {("07", 0.0), ("07", bench.SIGMA)}
    for tables in results.values():
        assert set(tables) == {"before", "default"}
        assert all(set(table[s]) == set(bench.PARTS) for table in tables.values() for s in (10, 20))
    assert out.count("GOAL split 07") == 2 and "default after 10 steps / before after 20" in out
    assert "CPU time per step, default / before" in out
    model = DeLaN()
    readout = "solved" if DeLaN.solves_readout else "trained"
    assert (f"default: lr {model.lr:g}, batch {model.batch_size}, {'x'.join(map(str, model.hidden))}, isru, eps "
            f"{model.eps:g}, L on {model.mass_units} units, V's readout {readout}, Adam b1 {adam.Adam.b1:g} b2 "
            f"{adam.Adam.b2:g}, average decay {adam.Adam.decay:g}") in out
    assert "L and V on every unit, V's readout trained" in out                  # before: Adam trained it
    old = bench.BEFORE["model"]
    assert f"before: lr {old['lr']:g}, batch {old['batch_size']}, {'x'.join(map(str, old['hidden']))}" in out
    rates = adam.Adam.b1, adam.Adam.b2, adam.Adam.decay
    with bench.moments(0.5, None, 0.0):
        assert (adam.Adam.b1, adam.Adam.b2, adam.Adam.decay) == (0.5, rates[1], 0.0)
        kept = adam.Adam(1.0, n=1)
        kept.step(np.zeros(1), np.ones(1))
        last = kept.step(np.zeros(1), np.ones(1))
        assert kept.average == last                                   # decay 0: the average is the last iterate
    assert (adam.Adam.b1, adam.Adam.b2, adam.Adam.decay) == rates
    adam_step, input_jet, patience = adam.Adam.step, fast.input_jet, schedule.PATIENCE
    optimizer = adam.Adam(1.0, n=1)
    q = np.random.default_rng(0).normal(size=(50, 2))
    before = model.mass_matrix(q[:3])
    with bench.plateau(2), bench.step_decay(4, 100), bench.standardised_inputs({"q": q}):
        first = optimizer.step(np.zeros(1), np.ones(1))             # Adam's first step is lr: here lr x 1/4
        assert first == pytest.approx([-0.25]) and optimizer.lr == 1.0
        assert DeLaN().optimizer.step.__func__ is not adam_step      # what fit's loop calls: model.optimizer.step
        assert not np.allclose(model.mass_matrix(q[:3]), before)    # the input jet the model evaluates through
        plateaued = schedule.Schedule(1.0)
        assert [plateaued.validated(1.0, best=1.0, lr=1.0)[2] for _ in range(2)] == [1.0, 0.5]   # patience 2
    assert adam.Adam.step is adam_step and fast.input_jet is input_jet and schedule.PATIENCE == patience
    assert np.array_equal(model.mass_matrix(q[:3]), before)
    apart, together = bench.delan({"recombined": False}, 0), bench.delan({}, 0)   # a press's L with its start's V
    assert apart.recombined(apart.theta, apart.theta + 1) == () and len(together.recombined(apart.theta, apart.theta))


def test_the_mutation_sample_is_uniform_over_the_not_run_mutants_and_repeats_with_its_seed():
    ms = load(BENCHMARKS / "mutation_score.py")
    statuses = {f"lesson_lib.model.training.x_fit__mutmut_{i}": "not checked" if i % 3 else "killed"
                for i in range(1, 301)}
    statuses |= {f"lesson_lib.physics.chain.x_mass__mutmut_{i}": "skipped" for i in range(1, 6)}
    statuses |= {f"lesson_tools.build.x_build__mutmut_{i}": "not checked" for i in range(1, 4)}    # in no group
    sample = ms.draw_sample(statuses, 50, seed=7)
    assert len(sample["model"]) == 50 and len(set(sample["model"])) == 50
    assert all(statuses[n] == "not checked" for n in sample["model"])            # only mutants not run
    assert len(sample["physics"]) == 5                                          # all of them, when fewer
    assert ms.draw_sample(statuses, 50, seed=7) == sample != ms.draw_sample(statuses, 50, seed=8)
    assert ms.draw_sample(statuses, 50, seed=7, groups=("model",)) == {"model": sample["model"]}   # one group


def test_a_group_with_mutants_not_run_and_none_sampled_is_not_estimated(capsys):
    from collections import Counter
    ms = load(BENCHMARKS / "mutation_score.py")
    per_module = {"lesson_lib.model.training": Counter(killed=95, survived=5, missing=100),
                  "lesson_lib.physics.chain": Counter(killed=50, survived=0, missing=30)}
    category = {f"s{i}": "killed" for i in range(200)}
    met = ms.print_estimate(per_module, category, {"seed": 0, "names": {"model": list(category)}})
    lines = capsys.readouterr().out.splitlines()
    physics = next(line for line in lines if line.startswith("physics"))
    assert "30 mutants not run and none of them sampled: not estimated" in physics and not met
    assert "meets" in next(line for line in lines if line.startswith("model"))
    with pytest.raises(SystemExit):
        ms.main(["--no-run", "--groups", "modle"])
    assert "--groups takes names from physics, model, checks, course, got 'modle'" in capsys.readouterr().err


def test_wilsons_interval_has_its_textbook_values():
    ms = load(BENCHMARKS / "mutation_score.py")
    assert ms.wilson(9, 10) == pytest.approx((0.5958, 0.9821), abs=1e-4)       # Newcombe (1998), 95 %
    assert ms.wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)


def test_the_estimate_counts_the_not_run_mutants_in_the_samples_proportions(capsys):
    """100 mutants run (90 killed), 100 not run, a sample of 10 (8 killed, 1 survivor, 1 message only): the
    estimate is (90 + 100 x 8/10) killed of (100 + 100 x 9/10) counted = 170 / 190 = 89.5 %."""
    from collections import Counter
    ms = load(BENCHMARKS / "mutation_score.py")
    per_module = {"lesson_lib.model.training": Counter(killed=90, survived=10, missing=100)}
    kinds = ["killed"] * 8 + ["survived", "message"]
    category = {f"s{i}": kind for i, kind in enumerate(kinds)}
    met = ms.print_estimate(per_module, category, {"seed": 0, "names": {"model": list(category)}})
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("model"))
    assert "89.5%" in row and not met and "likely" not in row                  # 89.5 % < 90 %: below
    lo, hi = ms.wilson(8, 9)
    assert f"{(90 + 90 * lo) / 190:.1%} - {(90 + 90 * hi) / 190:.1%}" in row


def test_the_median_interval_has_the_sign_tests_textbook_ranks():
    """The distribution-free 95 % interval of a median is (x_(2), x_(9)) for 10 values, (x_(6), x_(15)) for 20
    and (x_(1), x_(6)) for 6 (tables of the sign test); 5 values are too few for any."""
    median_interval = load(BENCHMARKS / "bench_browser_press.py").median_interval
    for n, (low, high) in ((10, (2, 9)), (20, (6, 15)), (6, (1, 6))):
        values = [10.0 * i for i in range(n, 0, -1)]                     # unsorted; x_(k) = 10 k
        median, interval = median_interval(values)
        assert interval == (10.0 * low, 10.0 * high) and median == 5.0 * (n + 1)
    assert median_interval([3.0, 1.0, 2.0, 5.0, 4.0]) == (3.0, None)
    with pytest.raises(ValueError, match="at least one value"):
        median_interval([])


@pytest.mark.parametrize("press_ratio, verdict", [
    (0.5, "shrank at least as much as the steps"),
    (0.7, "shrank less than the steps"),
    (None, "cannot tell"),
])
def test_the_paired_verdict_compares_each_rounds_press_ratio_with_its_steps_ratio(press_ratio, verdict):
    """Rows are (press, kernel, live updates, steps alone); the other checkout presses in 2 s and fits in 1 s,
    this one fits in 0.6 s in every round, so the steps' ratio is 0.6 and the press's decides the verdict."""
    paired_verdict = load(BENCHMARKS / "bench_browser_press.py").paired_verdict
    ratios = [press_ratio] * 8 if press_ratio else [0.5, 0.7] * 4
    lines = paired_verdict([(2 * r, 0, 7, 0.6) for r in ratios], [(2.0, 0, 7, 1.0)] * 8)
    assert verdict in lines[-1] and "the steps alone 0.60" in lines[0]
    assert paired_verdict([(1.0, 0, 7, 0.6)] * 3, [(2.0, 0, 7, 1.0)] * 3)[-1].endswith("too few rounds to tell")


def test_bench_zip_bomb_runs_quickly_and_the_bomb_is_one_row_naming_its_limit(capsys):
    """A small bomb (8 entries of 16 MB, past what a learner's zip may expand to): one NOT GRADED row; the time it
    costs is the script's to print, not this test's to judge."""
    spent, control, row = load(BENCHMARKS / "bench_zip_bomb.py").main(entries=8)
    assert row.problem.startswith("not read: the zip expands to more than") and row.text is None
    assert "intake, CPU seconds: bomb " in capsys.readouterr().out
