"""Grading that survives: Ctrl-C in the middle of a class ends every process cleanly and keeps each result known so
far; the same command then grades only what is missing and writes the very bytes an uninterrupted run writes;
`--only` grades one person again and leaves everyone else's rows untouched; `--keep` keeps each executed notebook
and its output, and an ERROR row points to them.  (Settings, preview and help: tests/test_tools_cli.py.)"""
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from lms_downloads import canvas_name, write_tree

from lesson_tools.build import NOTEBOOKS, ROOT, SOLUTIONS
from lesson_tools.grading import gradebook

M04 = "04_feedback"
HOG = "hog = bytearray(1 << 40)"                  # a terabyte: over any memory limit, an ERROR that stops the run
OUTPUTS = ("gradebook.csv", "scores.csv", "canvas.csv", "feedback")


def notebook(stem, folder=SOLUTIONS, first=None):
    nb = nbformat.read(str(folder / f"{stem}.ipynb"), as_version=4)
    if first is not None:
        nb.cells.insert(0, nbformat.v4.new_code_cell(first))
    return nb


@pytest.fixture(scope="module")
def download(tmp_path_factory):
    """A Canvas download of four people's 04: right, not attempted, one over the memory limit, right again."""
    base = tmp_path_factory.mktemp("resume")
    write_tree(base / "dl", {
        canvas_name("adaann", 101, 1, f"{M04}.ipynb"): notebook(M04),
        canvas_name("bobbo", 102, 2, f"{M04}.ipynb"): notebook(M04, NOTEBOOKS),
        canvas_name("cycy", 103, 3, f"{M04}.ipynb"): notebook(M04, first=HOG),
        canvas_name("deedee", 104, 4, f"{M04}.ipynb"): notebook(M04)})
    return base


def grade(base, out, *extra, cache="cache", wait=True, **popen):
    """`lesson-tools grade` on the download, every output in `out`, results kept in base/cache, temporary folders in
    base/tmp (so that what a run leaves behind can be seen)."""
    (base / out).mkdir(exist_ok=True)
    (base / "tmp").mkdir(exist_ok=True)
    env = {**os.environ, "XDG_CACHE_HOME": str(base / cache), "TMPDIR": str(base / "tmp")}
    args = [str(Path(sys.executable).parent / "lesson-tools"), "grade", str(base / "dl"), "--workers", "1",
            "--out", str(base / out / "gradebook.csv"), "--scores", str(base / out / "scores.csv"),
            "--canvas", str(base / out / "canvas.csv"), "--canvas-assignment", "Feedback (4567)",
            "--feedback", str(base / out / "feedback"), "--keep", str(base / "kept"), "--timeout", "20", *extra]
    if not wait:
        return subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                **popen)
    return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)


def files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def outputs(base, out):
    found = {}
    for name in OUTPUTS:
        path = base / out / name
        found.update({f"{name}/{k}": v for k, v in files(path).items()} if path.is_dir() else {name: path.read_bytes()})
    return found


def graded_now(stderr):
    """How many submissions a run graded (its progress lines), and how many it took from the kept results."""
    taken = re.search(r"^(\d+) submissions? taken from the results kept", stderr, re.M)
    return len(re.findall(r"^\[\d+/\d+\] ", stderr, re.M)), int(taken.group(1)) if taken else 0


def left_behind(base, pid):
    """Processes of the interrupted run's session, or with a working folder under its temporary folder, still
    alive; and what is left in that temporary folder."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            session = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[3])
            cwd = os.readlink(entry / "cwd")
        except (OSError, IndexError, ValueError):
            continue
        if session == pid or cwd.startswith(str(base / "tmp")):
            alive.append((entry.name, cwd))
    return alive, sorted(p.name for p in (base / "tmp").iterdir())


@pytest.fixture(scope="module")
def resumed(download):
    """Ctrl-C (to the whole process group, as a terminal sends it) once the first result is kept; then the same
    command again.  (interrupted process, its stderr, the rerun, what was left behind)."""
    base = download
    proc = grade(base, "resumed", wait=False, start_new_session=True)
    results = base / "cache" / "lesson-tools" / "results"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not (results.is_dir() and any(results.glob("*.json"))):
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    time.sleep(1)
    behind = left_behind(base, proc.pid)
    again = grade(base, "resumed")
    return proc, err, again, behind


def test_ctrl_c_stops_cleanly_and_says_what_was_kept(resumed):
    proc, err, _, (alive, leftovers) = resumed
    assert proc.returncode == 130, err
    kept = re.search(r"interrupted: (\d+) of 4 submissions graded, their results kept in .*; the same command grades "
                     r"the other (\d+), with the same salt", err)
    assert kept and 1 <= int(kept.group(1)) < 4 and int(kept.group(1)) + int(kept.group(2)) == 4, err
    assert not any(word in err for word in NEVER_SHOWN), err
    assert alive == [] and leftovers == [], (alive, leftovers)      # kernels, judges, sandboxes, folders: gone


NEVER_SHOWN = ("Traceback", "Exception ignored", "SystemExit", "KeyboardInterrupt")


def test_ctrl_c_at_twenty_random_moments_never_shows_a_traceback():
    """tests/interrupted.py: twenty runs of the local workers on slow fake submissions whose time goes to finalisers
    (a zmq socket's __del__, where a handler that raised once printed a traceback), each interrupted by a Ctrl-C to
    the whole process group at a random moment (while the workers start, while they work, between results): each
    ends with the grading loop's own KeyboardInterrupt, no worker left, nothing on the terminal."""
    import random
    seed = random.randrange(10**6)
    proc = subprocess.run([sys.executable, str(Path(__file__).with_name("interrupted.py")), "20", str(seed)],
                          capture_output=True, text=True, timeout=600, start_new_session=True)
    assert proc.returncode == 0 and "runs: 20, clean: 20" in proc.stdout, (seed, proc.stdout, proc.stderr)
    assert proc.stderr == "", (seed, proc.stderr)


def test_the_same_command_grades_only_what_is_missing(resumed):
    _, err, again, _ = resumed
    assert again.returncode == 0, again.stderr
    assert "resuming this class's interrupted run: the same salt" in again.stderr
    kept = int(re.search(r"interrupted: (\d+) of 4", err).group(1))
    assert graded_now(again.stderr) == (4 - kept, kept)


def test_a_resumed_run_writes_the_bytes_of_an_uninterrupted_one(download, resumed):
    base = download
    salt = re.search(r"drawn with --salt (\d+)", resumed[2].stdout).group(1)
    whole = grade(base, "whole", "--salt", salt, cache="cache-whole")
    assert whole.returncode == 0 and graded_now(whole.stderr) == (4, 0), whole.stderr
    assert outputs(base, "resumed") == outputs(base, "whole")


def test_keep_holds_each_notebook_as_it_ran_and_error_rows_point_there(download, resumed):
    base = download
    rows = gradebook.read(base / "resumed" / "gradebook.csv")
    died = [r for r in rows if r["student"] == "cycy"]
    assert died and all(r["verdict"] == gradebook.ERROR for r in died)
    where = re.search(r"the notebook as it ran: (\S+\.ipynb) \(its output: (\S+\.log)\)", died[0]["detail"])
    assert where, died[0]["detail"]
    ran = nbformat.read(where.group(1), as_version=4)
    assert ran.cells[0].source == HOG and "MemoryError" in str(ran.cells[0].outputs)
    assert Path(where.group(2)).is_file()
    assert len(list((base / "kept").rglob("*.ipynb"))) == 4                # everyone's, graded in either run
    assert all("the notebook as it ran" not in r["detail"] for r in rows if r["verdict"] != gradebook.ERROR)


def test_only_grades_one_person_again_and_leaves_everyone_else_untouched(download, resumed):
    base = download
    before = outputs(base, "resumed")
    path = base / "dl" / canvas_name("bobbo", 102, 2, f"{M04}.ipynb")
    original = path.read_bytes()
    nbformat.write(notebook(M04), str(path))                                # bobbo's work, fixed and handed in again
    try:
        only = grade(base, "resumed", "--only", "102")
    finally:
        path.write_bytes(original)
    assert only.returncode == 0 and "--only: the salt of this class's last run" in only.stderr, only.stderr
    assert graded_now(only.stderr) == (1, 3)
    after = outputs(base, "resumed")
    lines = {name: (before[name].decode().splitlines(), after[name].decode().splitlines())
             for name in ("gradebook.csv", "scores.csv", "canvas.csv")}
    for name, (old, new) in lines.items():               # every line but bobbo's the same, bobbo's changed
        assert [x for x in old if "102" not in x and "bobbo" not in x] == [x for x in new if "102" not in x
                                                                           and "bobbo" not in x], name
        assert [x for x in old if "bobbo" in x] != [x for x in new if "bobbo" in x], name
    changed = {k for k in before if before[k] != after.get(k)}
    assert changed and all("bobbo" in k or k in lines or k.endswith(".zip") for k in changed), changed
