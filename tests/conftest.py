"""Shared pytest set-up.

Under mutmut (`python benchmarks/mutation_score.py`), each mutant runs only the tests that reach the mutated
function and stops at the first failure: order them fastest first, by the durations mutmut recorded in its own
stats run (mutants/mutmut-stats.json), so a mutant costs the fastest test that kills it.  Outside mutmut this
changes nothing.
"""
import json
import os
from pathlib import Path


def pytest_collection_modifyitems(config, items):
    if "__mutmut_" not in os.environ.get("MUTANT_UNDER_TEST", ""):
        return
    try:
        durations = json.loads(Path("mutmut-stats.json").read_text(encoding="utf-8"))["duration_by_test"]
    except (OSError, ValueError, KeyError):
        return
    items.sort(key=lambda item: durations.get(item.nodeid, 0.0))
