"""The benchmark scripts keep up with the library: each one imports, and the two quick ones run to the end.

Speed is measured by running the scripts (README, "Tests and benchmarks"); these tests assert no time.  They exist
because a benchmark that calls the library by an old signature breaks silently: nothing else runs it.
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
    line = next(l for l in out.splitlines() if l.startswith("operations autograd records"))
    n_plain, n_lib = (int(x.split()[-1].rstrip(",")) for x in line.split(":")[1].split(","))
    assert n_lib < n_plain


def test_bench_jax_peer_without_jax_says_so_and_stops(capsys, monkeypatch):
    """JAX is never a dependency: without it the peer benchmark prints one line saying how to run it."""
    monkeypatch.setitem(__import__("sys").modules, "jax", None)        # import jax now raises ImportError
    load(BENCHMARKS / "bench_jax_peer.py").main(rounds=1, steps=1)
    out = capsys.readouterr().out.strip()
    assert out.count("\n") == 0 and out.startswith("JAX is not installed: skipped") and "pip install jax" in out
