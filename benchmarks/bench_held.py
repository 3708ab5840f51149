"""No student can hold the class: a notebook that sleeps beside an honest one, graded with a short notebook limit.

    python benchmarks/bench_held.py                   # --notebook-timeout 20, 2 workers
    python benchmarks/bench_held.py --limit 30

The sleeper is the learners' 04 with twelve cells of `time.sleep(14)` (each under the per-cell clock); the control
is the teachers' 02.  Prints the seconds the control takes graded alone and the two together, against the goal
(issue 47): together within the control's time plus the limit, that is, the sleeper costs at most its limit on
the clock and is not graded a second time.
"""
import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lesson_tools.build import NOTEBOOKS, SOLUTIONS  # noqa: E402
from lesson_tools.grading.grader import grade  # noqa: E402
from lesson_tools.grading.rlimits import Limits  # noqa: E402


def sleeper():
    nb = nbformat.read(str(NOTEBOOKS / "04_feedback.ipynb"), as_version=4)
    nb.cells[1:1] = [nbformat.v4.new_code_cell("import time\ntime.sleep(14)") for _ in range(12)]
    return nb


def timed(paths, limits, workers):
    start = time.perf_counter()
    rows = grade(paths, limits, workers=workers)
    return time.perf_counter() - start, rows


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--limit", type=float, default=20.0, help="--notebook-timeout, seconds (default 20)")
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-held-"))
    try:
        (folder / "control").mkdir()
        shutil.copy(SOLUTIONS / "02_model.ipynb", folder / "control" / "02_model.ipynb")
        (folder / "sleeper").mkdir()
        nbformat.write(sleeper(), str(folder / "sleeper" / "04_feedback.ipynb"))
        limits = Limits(notebook_s=args.limit, salt=1)
        print(f"{os.cpu_count()} cores; load average before: {os.getloadavg()[0]:.1f}; "
              f"--notebook-timeout {args.limit:g}")
        alone, _ = timed([folder / "control"], limits, args.workers)
        both, rows = timed([folder / "control", folder / "sleeper"], limits, args.workers)
        sleeper_rows = [r for r in rows if r["student"] == "sleeper"]
        again = any("second time" in r["detail"] for r in sleeper_rows)
        print(f"  the control alone: {alone:.1f} s")
        print(f"  the control beside the sleeper: {both:.1f} s (goal <= {alone + args.limit:.1f} s, the control's time "
              f"plus the limit): {'met' if both <= alone + args.limit else 'NOT met'}")
        print(f"  the sleeper: {', '.join(sorted({r['verdict'] for r in sleeper_rows}))}; graded a second time: "
              f"{'yes' if again else 'no'} (load now {os.getloadavg()[0]:.1f})")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
