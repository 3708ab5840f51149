"""A class of N downloaded from Canvas as one zip, graded and exported with the README's command, 2 workers.

    python benchmarks/bench_canvas_class.py                    # 30 learners, notebook 02_model
    python benchmarks/bench_canvas_class.py --learners 6 --notebook 05

The zip is named as Canvas names its files (`lastnamefirstname[_LATE]_USERID_SUBMISSIONID_ORIGINAL[-N].ipynb`):
two learners in three hand in the teachers' version, one in three the untouched learner version, every fifth late,
every seventh twice (a resubmission `-1`).  The command writes the gradebook, Canvas's import file, the scores and
the feedback pages.  Then the same class, unzipped into a folder, is graded again: the two gradebooks must be the
same but for the submissions' paths.  Goal (issue 36): the zip graded and exported in under 5 minutes on the 2-core
machine.  Then the zip's command once more: every result is taken from those kept (lesson_tools.grading.results), as
after Ctrl-C or for new exports.  Prints the seconds, the load average before, and whether the gradebooks agree.
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL_S = 5 * 60
CACHE = tempfile.mkdtemp(prefix="bench-canvas-cache-")       # results kept by this run only (not the user's)


def canvas_files(learners, stem):
    """{file name in the zip: source notebook path}."""
    files = {}
    for k in range(learners):
        source = ROOT / ("notebooks" if k % 3 == 2 else "notebooks/solutions") / f"{stem}.ipynb"
        late = "_LATE" if k % 5 == 4 else ""
        name = f"learner{k:03d}{late}_{10000 + k}_{50000 + 2 * k}_{stem}"
        files[f"{name}.ipynb"] = source
        if k % 7 == 6:
            files[f"{name}-1.ipynb"] = ROOT / "notebooks" / "solutions" / f"{stem}.ipynb"
    return files


def cli(*args):
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "lesson_tools", "grade", *map(str, args), "--workers", "2", "-q",
                           "--salt", "2026"],                       # both runs draw the checks' inputs alike
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, "XDG_CACHE_HOME": CACHE})
    if proc.returncode:
        sys.exit(f"grading failed:\n{proc.stdout}\n{proc.stderr}")
    return time.monotonic() - start, proc


def rows_without_paths(path):
    with open(path, newline="", encoding="utf-8") as f:
        return sorted(tuple((k, v) for k, v in r.items() if k != "submission") for r in csv.DictReader(f))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--learners", type=int, default=30)
    p.add_argument("--notebook", default="02", help="the course notebook handed in, e.g. 02 or 05_retrieve_and_space")
    args = p.parse_args()
    stem = next((ROOT / "notebooks" / "solutions").glob(f"{args.notebook}*.ipynb")).stem
    work = Path(tempfile.mkdtemp(prefix="bench-canvas-"))
    try:
        files = canvas_files(args.learners, stem)
        with zipfile.ZipFile(work / "submissions.zip", "w", zipfile.ZIP_DEFLATED) as zf:
            for name, source in files.items():
                zf.write(source, name)
        (work / "unzipped").mkdir()
        for name, source in files.items():
            shutil.copy(source, work / "unzipped" / name)
        load = os.getloadavg()[0]
        zipped_s, proc = cli(work / "submissions.zip", "--out", work / "zip.csv", "--canvas", work / "canvas.csv",
                             "--scores", work / "scores.csv", "--feedback", work / "feedback")
        folder_s, _ = cli(work / "unzipped", "--out", work / "folder.csv")
        again_s, _ = cli(work / "submissions.zip", "--out", work / "again.csv", "--canvas", work / "canvas.csv",
                         "--scores", work / "scores.csv", "--feedback", work / "feedback")
        kept = (work / "again.csv").read_bytes() == (work / "zip.csv").read_bytes()
        same = rows_without_paths(work / "zip.csv") == rows_without_paths(work / "folder.csv")
        pages = len(list((work / "feedback").rglob("*.html")))
        print(f"{args.learners} learners, {len(files)} submissions of {stem} from a Canvas zip, 2 workers, "
              f"load average before {load:.1f}")
        print(f"zip: graded and exported (gradebook, Canvas import, scores, {pages} feedback pages) "
              f"in {zipped_s:.0f} s ({zipped_s / len(files):.1f} s per submission); goal <= {GOAL_S} s: "
              f"{'met' if zipped_s <= GOAL_S else 'NOT met'}")
        print(f"folder: the same class unzipped, graded in {folder_s:.0f} s; the same gradebook but for paths: "
              f"{'yes' if same else 'NO'}")
        print(f"again: the zip's command once more, every result taken as kept, in {again_s:.1f} s "
              f"({zipped_s / again_s:.0f} times faster); the same gradebook, byte for byte: {'yes' if kept else 'NO'}")
        print(next(line for line in proc.stdout.splitlines() if line.startswith("gradebook:")))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(CACHE, ignore_errors=True)


if __name__ == "__main__":
    main()
