"""Grading a class: seconds for N students x notebooks 01-06 with 1 and with 2 local workers.

    python benchmarks/bench_grading.py                       # 30 students x 01-06 (180 submissions), 1 and 2 workers
    python benchmarks/bench_grading.py --students 4          # a smaller class; the figures are scaled to 30 x 6
    python benchmarks/bench_grading.py --dask                # also on a local Dask cluster of 2 worker processes

The class is made from the course's notebooks: two students in three hand in the teachers' versions (every
check passes, every exercise runs, including the project's training), one in three the untouched learner
versions; half of them in a folder per student, half as loose `sNNN_NN_name.ipynb` files.  Goals (issue 11):
30 x 6 in at most 25 minutes on a 2-core machine, and 2 workers at least 1.7x faster than 1.  The load
average and the CPU seconds used per submission are printed: wall-clock figures taken while other work loads
the machine are not final.
"""
import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lesson_tools.build import NOTEBOOKS, SOLUTIONS  # noqa: E402
from lesson_tools.grading.grader import grade  # noqa: E402
from lesson_tools.grading.rlimits import Limits  # noqa: E402

GOAL_S, GOAL_SPEEDUP, FULL = 25 * 60, 1.7, 30 * 6


def cpu_seconds():
    """CPU time of this process and of every process it started and waited for (workers, kernels, checks)."""
    return sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for f in ("ru_utime", "ru_stime"))


def make_class(folder, students, stems):
    for s in range(students):
        for stem in stems:
            source = (NOTEBOOKS if s % 3 == 2 else SOLUTIONS) / f"{stem}.ipynb"
            target = folder / f"s{s:03d}" / f"{stem}.ipynb" if s % 2 else folder / f"s{s:03d}_{stem}.ipynb"
            target.parent.mkdir(exist_ok=True)
            shutil.copy(source, target)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--students", type=int, default=30)
    p.add_argument("--notebooks", nargs="+", default=["01", "02", "03", "04", "05", "06"], help="e.g. 02 05")
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--dask", action="store_true", help="also grade on a local Dask cluster (2 processes, 1 thread)")
    args = p.parse_args()
    stems = [next(SOLUTIONS.glob(f"{n}_*.ipynb")).stem for n in args.notebooks]
    folder = Path(tempfile.mkdtemp(prefix="bench-grading-"))
    try:
        make_class(folder, args.students, stems)
        n = args.students * len(stems)
        print(f"{args.students} students x {len(stems)} notebooks = {n} submissions; {os.cpu_count()} cores; "
              f"load average before: {os.getloadavg()[0]:.1f}")
        seconds, books = {}, {}
        for w in args.workers:
            cpu0, start = cpu_seconds(), time.perf_counter()
            books[w] = grade([folder], Limits(), workers=w)
            seconds[w], cpu = time.perf_counter() - start, cpu_seconds() - cpu0
            counts = Counter(r["verdict"] for r in books[w])
            print(f"  {w} worker{'s' if w > 1 else ' '}: {seconds[w]:6.1f} s, {seconds[w] / n:5.2f} s per submission, "
                  f"scaled to 30 x 6: {seconds[w] * FULL / n / 60:5.1f} min; CPU {cpu / n:4.2f} s per submission  "
                  f"({', '.join(f'{c} {v}' for v, c in counts.most_common())}; load now {os.getloadavg()[0]:.1f})")
        if args.dask:
            from dask.distributed import LocalCluster
            with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
                start = time.perf_counter()
                books["dask"] = grade([folder], Limits(), scheduler=cluster.scheduler_address)
                took = time.perf_counter() - start
            print(f"  Dask, 2 worker processes: {took:6.1f} s, {took / n:5.2f} s per submission, scaled to 30 x 6: "
                  f"{took * FULL / n / 60:5.1f} min (load now {os.getloadavg()[0]:.1f})")
        if len(books) > 1:
            first, *rest = books
            print(f"  same gradebook with {', '.join(f'{w} workers' if w != 'dask' else 'Dask' for w in books)}: "
                  f"{all(books[w] == books[first] for w in rest)}")
        if 1 in seconds and 2 in seconds:
            print(f"  2 workers vs 1: {seconds[1] / seconds[2]:.2f}x (goal >= {GOAL_SPEEDUP}x)")
        best = min(seconds.values()) * FULL / n
        print(f"  30 x 6 on this machine: {best / 60:.1f} min (goal <= {GOAL_S / 60:.0f} min)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
