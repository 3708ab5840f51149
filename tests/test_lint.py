"""The code keeps no dead weight and no lint: ruff (pinned in requirements.txt; its rules in pyproject.toml:
Pyflakes with unused imports and variables, pycodestyle's errors and warnings at 120 columns, isort, bugbear and
pyupgrade) finds nothing in the packages, the tests or the benchmarks; and each learners' package keeps its limits in
one home, its limits.py."""
import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is not installed: pip install -r requirements.txt"
    found = subprocess.run([ruff, "check", "--no-cache", "lesson_lib", "lesson_course", "lesson_tools", "tests",
                            "benchmarks"],
                           cwd=ROOT, capture_output=True, text=True)
    assert found.returncode == 0, found.stdout + found.stderr


def limits_in(path):
    """The module-level names with MAX in them (MAX_STEPS, EPS_MAX) that `path` assigns, as 'path:line NAME'."""
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
            if isinstance(node, ast.AnnAssign) else []
        found += [f"{path.relative_to(ROOT)}:{node.lineno} {t.id}" for t in targets
                  if isinstance(t, ast.Name) and re.search(r"(^|_)MAX(_|$)", t.id)]
    return found


def test_every_limit_lives_in_its_packages_limits_py():
    """A module-level name with MAX in it (MAX_STEPS, EPS_MAX) is a limit: lesson_lib.limits is its one home, or
    lesson_course.limits for the course's machinery (lesson_lib.facts holds the lesson's numbers, QD_MAX and
    PASS_MAX_ERROR among them)."""
    elsewhere = []
    for path in sorted(p for package in ("lesson_lib", "lesson_course") for p in (ROOT / package).rglob("*.py")):
        if path.name in ("limits.py", "facts.py") and path.parent.name in ("lesson_lib", "lesson_course"):
            continue
        elsewhere += limits_in(path)
    assert not elsewhere, f"limits outside lesson_lib/limits.py (move them there): {elsewhere}"


def test_the_graders_intake_limits_live_in_one_home():
    """The grader's limits on what it reads (MAX names) live in lesson_tools/grading/limits.py; the one other home is
    lesson_tools/grading/wire.py, which runs alone in the kernel (copied into the sandbox, it imports nothing of the
    package), and whose limits are on what crosses the wire."""
    homes = {ROOT / "lesson_tools" / "grading" / "limits.py", ROOT / "lesson_tools" / "grading" / "wire.py"}
    elsewhere = []
    for path in sorted((ROOT / "lesson_tools").rglob("*.py")):
        if path in homes:
            continue
        elsewhere += limits_in(path)
    assert not elsewhere, f"limits outside lesson_tools/grading/limits.py (move them there): {elsewhere}"
