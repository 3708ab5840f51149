"""Caps on a sandbox as a whole (lesson_tools/grading/caps.py) and limits that count CPU time, not the clock.

Each cap is shown holding for a group of processes, beside a control run of the same processes without it, where
the machine lets the grader make control groups; elsewhere these tests skip with the reason, except in CI
(REQUIRE_SANDBOX=1), where a missing cap is a failure.
"""
import json
import os
import re
import subprocess
import sys
import time

import pytest

from lesson_tools.grading import caps, kernel, sandbox
from lesson_tools.grading.plan import Step
from lesson_tools.grading.rlimits import Limits, wrap
from lesson_tools.grading.verified import copy_verified, manifest, package_root


@pytest.fixture(scope="module", autouse=True)
def can_cap():
    from test_sandbox import required
    required(caps.problem())


def _run(source, group=None, timeout=120):
    """`python -c source` started the way the grader starts a kernel (rlimits.py, joining `group`)."""
    cmd = wrap([sys.executable, "-c", source], 4096, 120, 10, group.procs if group else ())
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


HOLDERS = """\
import subprocess, sys
child = "b = b'x' * (200 << 20); import time; time.sleep(3)"          # 200 MB written, so resident
kids = [subprocess.Popen([sys.executable, "-c", child]) for _ in range(4)]
print(sorted(k.wait() for k in kids))
"""


@pytest.mark.parametrize("capped", [True, False], ids=["capped", "without (the control)"])
def test_forking_does_not_multiply_the_memory_cap(capped):
    with caps.Group(512, 64) as group:
        out = _run(HOLDERS, group if capped else None)
        codes = eval(out.stdout)                       # the children's exit codes, sorted
        if capped:                                     # 4 x 200 MB do not fit in 512 MB for the group
            assert codes[0] == -9 and codes.count(0) <= 2, out
            assert group.oom_kills() >= 1
        else:
            assert codes == [0, 0, 0, 0], out


SPAWNER = """\
import subprocess
started = []
for _ in range(40):
    try:
        started.append(subprocess.Popen(["sleep", "5"]))
    except OSError:
        pass
print(len(started))
for p in started:
    p.kill()
"""


@pytest.mark.parametrize("capped", [True, False], ids=["capped", "without (the control)"])
def test_the_number_of_processes_is_capped(capped):
    with caps.Group(1024, 16) as group:
        out = _run(SPAWNER, group if capped else None)
        started = int(out.stdout)
        assert started < 16 if capped else started == 40, out


def fork_spinners(seconds):
    """Source that forks two children, each spinning `seconds` of its own CPU time, and waits for them."""
    return f"""\
import os, time
kids = []
for _ in range(2):
    pid = os.fork()
    if pid == 0:
        start = time.process_time()
        while time.process_time() - start < {seconds}:
            pass
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
"""


SPINNERS = fork_spinners(1.0) + """\
import resource
own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime)
"""


def test_cpu_time_counts_every_process_in_the_group():
    with caps.Group(1024, 64) as group:
        out = _run(SPINNERS, group)
        own, children = map(float, out.stdout.split())
        counted = group.cpu_seconds()
    assert children >= 2.0 and own < 1.0, out          # the time is the two children's
    assert abs(counted - (own + children)) < 0.1 + 0.05 * counted, (counted, own, children)


def test_closing_the_group_ends_what_was_detached_in_it(tmp_path):
    marker = tmp_path / "alive"
    child = f"import pathlib, time; pathlib.Path({str(marker)!r}).touch(); time.sleep(600)"
    detach = (f"import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', {child!r}], start_new_session=True, "
              f"stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)")
    with caps.Group(1024, 64) as group:
        _run(detach, group)
        for _ in range(100):
            if marker.exists():
                break
            time.sleep(0.05)
        assert marker.exists() and len(group.pids()) == 1     # it outlived the process that started it
        pid = group.pids()[0]
    assert not _running(pid)
    assert not os.path.exists(group.cpu_file)                 # and the group is gone


def _running(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_machine_without_control_groups_is_told_why(monkeypatch):
    monkeypatch.setattr(caps, "_mounts", lambda: {})
    caps._chosen.cache_clear()
    try:
        reason = caps.problem()
    finally:
        monkeypatch.undo()
        caps._chosen.cache_clear()
    assert reason.startswith("the grader cannot make control groups here (cgroup v1: no cgroup v1 memory, pids, "
                             "cpuacct controller is mounted; cgroup v2: no cgroup v2 hierarchy is mounted)"), reason


# ---------------------------------------------------------------------- the kernel's limits count CPU time
FORK_SPIN = fork_spinners(1.5)                # 2 x 1.5 s of CPU, in processes other than the kernel


@pytest.fixture
def course(tmp_path):
    (tmp_path / "work").mkdir()
    copy_verified(package_root(), manifest(), tmp_path / "course")
    return tmp_path


def _kernel(folder, sources, **limits):
    steps = [Step(source, "learner", n) for n, source in enumerate(sources, 1)]
    limits = Limits(**limits)
    with caps.Group(limits.memory_mb, limits.processes) as group:
        return kernel.run(steps, folder / "work", folder / "course", limits, None, group)


def test_a_cell_that_waits_is_not_charged_for_the_clock_and_one_whose_children_compute_is(course):
    run = _kernel(course, ["import time\ntime.sleep(3)", FORK_SPIN, "print('never')"], cell_s=2, wall_factor=10)
    assert run.completed == 1, run                  # 3 s asleep is no CPU time; 3 s of its children's CPU is
    assert run.stop == ("TIMEOUT", "code cell 2 used more than 2 s of CPU time (per-cell limit, all its processes)")


WAITED_CELL = "code cell 1 waited more than 3 s without computing (the per-cell limit on waiting"


def test_a_cell_that_waits_forever_meets_the_limit_on_waiting(course):
    run = _kernel(course, ["import time\ntime.sleep(60)", "print('never')"], cell_s=1, wall_factor=3)
    assert run.completed == 0 and run.stop[0] == "TIMEOUT", run
    assert run.stop[1].startswith(WAITED_CELL), run.stop
    assert not run.busy, run


def test_the_whole_notebook_limit_counts_what_it_waits_for_too(course):
    """Cells that sleep use no CPU time, yet a notebook gets its limit for waiting too, all its cells together: four
    cells of 2 s of sleep meet a 5 s limit in the third (each under its per-cell limit on waiting, 30 s)."""
    run = _kernel(course, ["import time\ntime.sleep(2)"] * 4 + ["print('never')"], cell_s=3, notebook_s=5,
                  wall_factor=10)
    assert run.completed == 2, run
    assert run.stop == ("TIMEOUT", "code cell 3 was running when the notebook had waited 5 s without computing (the "
                                   "whole-notebook limit on waiting: all its cells, whatever they wait for; time spent "
                                   "waiting for a busy machine's CPU is not counted)"), run.stop
    assert not run.starved() and not run.busy, (run.wall, run.waited)


def test_the_whole_notebook_limit_counts_cpu_time_of_every_process_too(course):
    """Two cells whose children compute 3 s of CPU time each, in about half that on the clock: a 4 s limit ends
    the second by its CPU time, however busy the machine."""
    run = _kernel(course, [FORK_SPIN, FORK_SPIN, "print('never')"], cell_s=10, notebook_s=4, wall_factor=10)
    assert run.completed == 1, run
    assert run.stop == ("TIMEOUT", "code cell 2 was running when the notebook reached 4 s of CPU time (whole-notebook "
                                   "limit)"), run.stop


STARVED_CELL = """\
import os
os.sched_setaffinity(0, {{{cpu}}})                # the core a hog outside holds, at a priority below any
os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
while True:
    pass
"""


def _lowest_for_the_kernels_session(stop):
    """The scheduler shares a core between sessions first: once the cell has put the kernel at SCHED_IDLE, its
    session (its autogroup) is given the lowest weight, from outside (the sandbox has no /proc to do it from
    inside).  Until then the kernel starts at the weight of any other session."""
    import errno

    import psutil
    while not stop.wait(0.05):
        for child in psutil.Process().children(recursive=True):
            try:
                if child.name().startswith("python") and "ipykernel_launcher" in child.cmdline() and \
                        os.sched_getscheduler(child.pid) == os.SCHED_IDLE:
                    with open(f"/proc/{child.pid}/autogroup", "w") as f:
                        f.write("19")
                    return
            except OSError as e:
                if e.errno not in (errno.ESRCH, errno.EAGAIN):        # gone, or changed too recently: try again
                    return
            except psutil.Error:
                continue


def test_a_run_a_busy_machine_starves_is_no_timeout_and_says_the_machine_was_too_busy(course):
    """A cell that computes on a core that other work holds (its own thread at SCHED_IDLE beside a hog pinned to the
    same core, a starvation an idle machine makes as surely as a busy one) uses almost no CPU and waits for it all the
    time: the clock's backstop ends it as an ERROR that blames the machine, and the run is `busy` (graded again,
    alone), never a TIMEOUT."""
    import threading
    cpu = sorted(os.sched_getaffinity(0))[0]
    hog = subprocess.Popen([sys.executable, "-c", f"import os\nos.sched_setaffinity(0, {{{cpu}}})\n{HOG}"])
    stop = threading.Event()
    lowering = threading.Thread(target=_lowest_for_the_kernels_session, args=(stop,), daemon=True)
    lowering.start()
    try:
        # (3 s of CPU time: far more than a kernel's first cell costs before its thread is starved, 0.5 s or so)
        run = _kernel(course, [STARVED_CELL.format(cpu=cpu), "print('never')"], cell_s=30, notebook_s=3,
                      wall_factor=1)
    finally:
        stop.set()
        hog.kill()
        hog.wait()
    assert run.completed == 0 and run.busy, run
    assert run.stop[0] == "ERROR" and run.stop[1].startswith("not graded: the grader's machine was too busy. code "
                                                             "cell 1 was running when the notebook had been"), run.stop


def test_a_kernel_cannot_leave_its_group(course):
    from test_sandbox import required
    required(sandbox.problem())                  # the caps go with the sandbox, which shows /sys read-only
    escape = ("import os\nfor c in ('pids', 'memory', 'cpuacct'):\n    try:\n"
              "        open(f'/sys/fs/cgroup/{c}/cgroup.procs', 'w').write(str(os.getpid()))\n"
              "    except OSError as e:\n        assert e.errno in (2, 13, 30), e   # not there, EACCES or EROFS\n"
              "    else:\n        raise AssertionError('left its ' + c + ' group')")
    run = _kernel(course, [escape], cell_s=30)
    assert run.stop is None and run.errors == {}, run


# ---------------------------------------------------------------------- the judge's limit counts CPU time too
def test_the_judge_counts_the_sandboxes_cpu_time_and_its_waiting(tmp_path):
    from test_grading import _judged

    from lesson_tools.grading.judge import Judge
    spin = "import time\nstart = time.process_time()\nwhile time.process_time() - start < 3:\n    pass"
    with caps.Group(1024, 64) as group:
        limits = Limits(cell_s=1, wall_factor=20)
        with Judge(package_root(), manifest(), limits, tmp_path, None, group.cpu_file, group.pids_file) as judge:
            # an answer whose work runs in a process of the sandbox: 3 s of CPU there, against the check's 1 s
            computes, _ = _judged(judge, 0, "lesson_passes", lambda e, lam: _run(spin, group))
            assert computes == {"status": "timeout", "line": "the check used more than 1 s of CPU time on the "
                                "answer (the kernel's and the judge's together)"}, computes
        with Judge(package_root(), manifest(), Limits(cell_s=1, wall_factor=3), tmp_path, None,
                   group.cpu_file, group.pids_file) as judge:
            waits, _ = _judged(judge, 0, "lesson_passes", lambda e, lam: time.sleep(6))
            assert waits["status"] == "timeout" and waits["line"].startswith(
                "the check waited more than 3 s on the answer without it computing (the limit on waiting"), waits


# ---------------------------------------------------------------------- correct work is not mislabelled by load
HOG = "while True:\n    pass"
TEACHERS_01 = "01_challenge"                # its training cell (code cell 3) trains both models: 1-4 CPU s by machine
BUSY_CELL_S = 6                               # CPU seconds per cell: room above that cell
HEADROOM = 1.5                                # the control's wall clock: this times the cells' own CPU time


def _runnable(pids):
    """Seconds the processes' threads computed or waited for a CPU (Linux's schedstat): runnable, whoever ran."""
    total = 0
    for pid in pids:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += sum(map(int, f.read().split()[:2]))
    return total / 1e9


@pytest.fixture
def busy_machine():
    """Two spinning processes per core, each in a session of its own (as other people's work would be; the
    scheduler shares the cores between sessions first), for the whole test; yields a function that says whether
    they were runnable all along since it was made (computing, or waiting for a CPU when other work, theirs or
    anyone's, held the cores): then every core had more work than it could run."""
    cores = len(os.sched_getaffinity(0))
    hogs = [subprocess.Popen([sys.executable, "-c", HOG], start_new_session=True) for _ in range(2 * cores)]
    started, before = time.monotonic(), _runnable(p.pid for p in hogs)
    yield lambda: _runnable(p.pid for p in hogs) - before > 0.9 * len(hogs) * (time.monotonic() - started)
    for p in hogs:
        p.kill()
        p.wait()


def test_the_teachers_answers_pass_while_cpu_hogs_keep_every_core_busy(tmp_path, busy_machine):
    import nbformat

    from lesson_tools.build import SOLUTIONS
    from lesson_tools.grading.grader import grade
    (tmp_path / "ann").mkdir()
    nbformat.write(nbformat.read(str(SOLUTIONS / f"{TEACHERS_01}.ipynb"), as_version=4),
                   str(tmp_path / "ann" / f"{TEACHERS_01}.ipynb"))
    rows = grade([tmp_path], Limits(cell_s=BUSY_CELL_S, notebook_s=300, memory_mb=2500), workers=1)
    assert busy_machine()
    assert rows and {r["verdict"] for r in rows} == {"PASS"}, rows
    assert not any("second time" in r["detail"] for r in rows), rows        # the first time, not on a retry


def _first_cells():
    import nbformat

    from lesson_tools.build import SOLUTIONS
    nb = nbformat.read(str(SOLUTIONS / f"{TEACHERS_01}.ipynb"), as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code"][:3]     # imports, a prediction, the training


@pytest.fixture
def cells_cpu(course):
    """The CPU seconds of each of those cells, run in a fresh Python before any hog starts (their own work)."""
    code = ("import json, sys, time\nimport matplotlib\nmatplotlib.use('Agg')\nspace, took = {}, []\n"
            "for source in json.loads(sys.stdin.read()):\n"
            "    start = time.process_time()\n    exec(compile(source, 'cell', 'exec'), space)\n"
            "    took.append(time.process_time() - start)\nprint(json.dumps(took))")
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps(_first_cells()), capture_output=True,
                          text=True, cwd=course / "work", env=dict(os.environ, PYTHONPATH=str(course / "course")),
                          check=True, timeout=300)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_control_a_wall_clock_limit_turns_the_same_cells_into_a_timeout(course, cells_cpu, busy_machine):
    """The same cells with a wall-clock limit of HEADROOM times the longest cell's own CPU time (a limit they meet
    on an idle machine): with the hogs running, a cell runs out of it.  That limit falls below BUSY_CELL_S or above
    it with the machine and its load (the cell's own CPU time is 1-4 s, more when other work shares the cores while
    it is measured); either way the hogs stretch the cell past it, where the CPU-time limit passes (the test above)."""
    limit = round(HEADROOM * max(cells_cpu), 2)
    steps = [Step(source, "learner", n) for n, source in enumerate(_first_cells(), 1)]
    run = kernel.run(steps, course / "work", course / "course", Limits(cell_s=limit, sandbox=False))
    assert busy_machine()
    assert run.stop is not None and run.stop[0] == "TIMEOUT", (cells_cpu, run)
    assert re.fullmatch(rf"code cell [123] ran longer than {limit:g} s \(per-cell limit\)", run.stop[1]), run
