"""The code keeps no dead weight: ruff (pinned in requirements.txt; its rules, Pyflakes with unused imports and
variables, in pyproject.toml) finds nothing in the library, the tools, the tests or the benchmarks."""
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is not installed: pip install -r requirements.txt"
    found = subprocess.run([ruff, "check", "--no-cache", "lesson_lib", "lesson_tools", "tests", "benchmarks"],
                           cwd=ROOT, capture_output=True, text=True)
    assert found.returncode == 0, found.stdout + found.stderr
