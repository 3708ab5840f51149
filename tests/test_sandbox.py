"""The kernel's sandbox (lesson_tools/grading/sandbox.py): nothing a submission starts outlives it, and from inside
it sees no other submission, no solutions, no grader, no network, a read-only course and a small disk of its own.

Where the machine cannot sandbox (no bubblewrap, no user namespaces) these tests skip with the reason, except in CI
(REQUIRE_SANDBOX=1), where .ci/run installs bubblewrap and a missing sandbox is a failure.
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest

from lesson_tools.build import SOLUTIONS
from lesson_tools.grading import kernel, sandbox, verified
from lesson_tools.grading.grader import grade
from lesson_tools.grading.plan import Step
from lesson_tools.grading.rlimits import Limits
from lesson_tools.grading.verified import package_root


def required(reason):
    """Skip with `reason` (why the machine cannot sandbox or cap), or fail in CI (REQUIRE_SANDBOX=1)."""
    if reason and os.environ.get("REQUIRE_SANDBOX"):
        pytest.fail(f"REQUIRE_SANDBOX is set but {reason}")
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="module", autouse=True)
def can_sandbox():
    required(sandbox.problem())


def _alive(marker):
    """Host processes whose command line contains `marker`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline and int(pid) != os.getpid():
            found.append(int(pid))
    return found


DETACH = """\
import subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)  # {marker}"], start_new_session=True,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
import os
if os.fork() == 0:                    # a second way out: a forked child that leaves the session
    os.setsid()
    os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)  # {marker}-fork"])
"""


def _detaching_submission(tmp_path, marker):
    nb = nbformat.read(str(SOLUTIONS / "04_feedback.ipynb"), as_version=4)
    nb.cells.insert(1, nbformat.v4.new_code_cell(DETACH.format(marker=marker)))
    path = tmp_path / "ann" / "04_feedback.ipynb"
    path.parent.mkdir(exist_ok=True)
    nbformat.write(nb, str(path))
    return path.parent


@pytest.mark.parametrize("boxed", [True, False], ids=["sandbox", "without (the control)"])
def test_nothing_a_submission_starts_outlives_it(tmp_path, boxed):
    marker = f"lesson-detach-{os.getpid()}-{boxed}"
    folder = _detaching_submission(tmp_path, marker)
    try:
        rows = grade([folder], Limits(cell_s=60, notebook_s=300, sandbox=boxed))
        assert {r["verdict"] for r in rows} <= {"PASS", "TAMPERED"}, rows       # the scan sees subprocess
        time.sleep(1)
        left = _alive(marker)
        if boxed:
            assert left == [], f"processes the submission started are still running: {left}"
        else:                                       # the control: without the sandbox both escape
            assert len(left) == 2, left
    finally:
        for pid in _alive(marker):
            os.kill(pid, 9)


INSIDE = [   # each cell asserts one thing about the world inside the sandbox
    "import os\nassert sorted(os.listdir('/tmp')) == {tmp_top!r}, os.listdir('/tmp')   # its own folder, Python",
    "import os\nassert not os.path.exists({solutions!r})",
    "import os\nassert not os.path.exists({grader!r})",
    "import os\nassert not os.path.exists({home!r}) or set(os.listdir({home!r})) <= {python_in_home!r}",
    "import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=5)\nexcept OSError:\n    pass\n"
    "else:\n    raise AssertionError('reached the host network')",
    "import os\ntry:\n    open({course_file!r}, 'a')\nexcept OSError as e:\n    assert e.errno == 30, e\n"
    "else:\n    raise AssertionError('the course copy is writable')",
    "import os\nassert sorted(int(p) for p in os.listdir('/proc') if p.isdigit())[0] == 1   # its own process table",
    "import errno\ntry:\n    with open('big', 'wb') as f:\n"
    "        for _ in range(40):\n            f.write(b'x' * 2**20)\n"
    "except OSError as e:\n    assert e.errno == errno.ENOSPC, e\n"
    "else:\n    raise AssertionError('wrote 40 MB on a 16 MB disk')",
    "import os\nassert os.environ['HOME'] == os.getcwd()",
    "raise ValueError('the control: a failed assertion is seen')",
]


def test_inside_the_sandbox_there_is_nothing_else_to_reach(tmp_path):
    folder = tmp_path / "sub"
    course, work = folder / "course", folder / "work"
    for d in (course, work):
        d.mkdir(parents=True)
    (course / "x.py").write_text("")
    host = socket.socket()
    host.bind(("127.0.0.1", 0))
    host.listen(1)
    home = os.path.expanduser("~")

    def shown_again(parent):                      # what the sandbox binds again under a hidden folder: the Python
        return {os.path.relpath(d, parent).split(os.sep)[0] for d in sandbox._python_dirs()   # that runs the kernel
                if d.startswith(parent + os.sep)}
    python_in_home = shown_again(home)
    tmp_top = sorted({os.path.relpath(folder, "/tmp").split(os.sep)[0]} | shown_again("/tmp"))
    cells = [c.format(solutions=str(SOLUTIONS), grader=str(package_root() / "lesson_tools"), port=host.getsockname()[1],
                      course_file=str(course / "x.py"), home=home, python_in_home=python_in_home, tmp_top=tmp_top)
             for c in INSIDE]
    run = kernel.run([Step(c, "learner", i + 1) for i, c in enumerate(cells)], work, course,
                     Limits(cell_s=60, notebook_s=300, file_mb=100, disk_mb=16))
    host.close()
    assert run.stop is None and run.completed == len(cells), run
    assert list(run.errors) == [len(cells) - 1] and "the control" in run.errors[len(cells) - 1], run.errors


@pytest.mark.parametrize("inside_python", [False, True], ids=["beside Python", "inside a folder Python is shown from"])
def test_the_repository_is_hidden_wherever_it_lies(tmp_path, monkeypatch, inside_python):
    """The course's repository (solutions, grader) under /tmp: beside a Python that is shown again there, neither
    it nor its name is seen inside; inside a folder Python is shown again from, it is not seen either."""
    python = Path(tempfile.mkdtemp(dir="/tmp", prefix="lesson-python-"))
    repo = python / "course" if inside_python else Path(tempfile.mkdtemp(dir="/tmp", prefix="lesson-course-"))
    try:
        (repo / "notebooks").mkdir(parents=True)
        secret = repo / "notebooks" / "solutions.txt"
        secret.write_text("the answers")
        shown = sandbox._python_dirs() + [str(python)]
        monkeypatch.setattr(sandbox, "_python_dirs", lambda: shown)
        monkeypatch.setattr(verified, "package_root", lambda: repo)
        course, work = tmp_path / "course", tmp_path / "work"
        for d in (course, work):
            d.mkdir()
        cells = ["import os\nassert os.path.isdir({python!r})   # Python's folder is shown",
                 "import os\nassert not os.path.exists({secret!r})",
                 "import os\nassert {name!r} not in os.listdir('/tmp'), os.listdir('/tmp')",
                 "raise ValueError('the control: a failed assertion is seen')"]
        cells = [c.format(python=str(python), secret=str(secret), name=repo.name) for c in cells]
        run = kernel.run([Step(c, "learner", i + 1) for i, c in enumerate(cells)], work, course,
                         Limits(cell_s=60, notebook_s=300, file_mb=100, disk_mb=16))
    finally:
        shutil.rmtree(python)
        shutil.rmtree(repo, ignore_errors=True)
    assert run.stop is None and run.completed == len(cells), run
    assert list(run.errors) == [len(cells) - 1] and "the control" in run.errors[len(cells) - 1], run.errors


@pytest.mark.parametrize("under_hidden", [False, True], ids=["a Python outside /tmp", "a Python under /tmp"])
def test_a_copy_of_the_library_installed_in_pythons_site_packages_is_not_seen(tmp_path, monkeypatch, under_hidden):
    """A non-editable install puts lesson_lib, answers and all, into site-packages, which the sandbox shows again:
    inside, that folder is empty (the kernel imports only its own copy, without the answers), wherever Python is."""
    site = Path(tempfile.mkdtemp(dir="/tmp" if under_hidden else str(package_root().parent),
                                 prefix="lesson-site-"))
    try:
        for package in verified.PACKAGES:
            (site / package / "physics").mkdir(parents=True)
            (site / package / "physics" / "integrators.py").write_text("def symplectic_euler_step(): ...\n")
        (site / "numpy_like").mkdir()
        shown = sandbox._python_dirs() + [str(site)]
        monkeypatch.setattr(sandbox, "_python_dirs", lambda: shown)
        course, work = tmp_path / "course", tmp_path / "work"
        for d in (course, work):
            d.mkdir()
        cells = ["import os\nassert os.path.isdir({site!r} + '/numpy_like')   # the rest of site-packages is shown",
                 *[f"import os\nassert os.listdir({str(site / p)!r}) == []" for p in verified.PACKAGES],
                 "raise ValueError('the control: a failed assertion is seen')"]
        cells = [c.format(site=str(site)) for c in cells]
        run = kernel.run([Step(c, "learner", i + 1) for i, c in enumerate(cells)], work, course,
                         Limits(cell_s=60, notebook_s=300, file_mb=100, disk_mb=16))
    finally:
        shutil.rmtree(site)
    assert run.stop is None and run.completed == len(cells), run
    assert list(run.errors) == [len(cells) - 1] and "the control" in run.errors[len(cells) - 1], run.errors


def test_a_machine_that_cannot_sandbox_is_told_why_and_the_grader_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    sandbox.problem.cache_clear()
    try:
        assert "apt-get install -y bubblewrap" in sandbox.problem()
    finally:
        monkeypatch.undo()
        sandbox.problem.cache_clear()
    (tmp_path / "notes.txt").write_text("not a notebook")
    out = subprocess.run([sys.executable, "-m", "lesson_tools", "grade", str(tmp_path), "--no-sandbox", "-q"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stderr.startswith("warning: grading WITHOUT a sandbox: --no-sandbox was given."), out.stderr
    out = subprocess.run([sys.executable, "-m", "lesson_tools", "grade", str(tmp_path), "-q"],
                         capture_output=True, text=True, timeout=300)
    assert "WITHOUT a sandbox" not in out.stderr, out.stderr
    assert out.returncode == 0


LIFTS = r"""
import glob, os, subprocess
status = open('/proc/self/status').read()
print('CapEff', status.split('CapEff:')[1].split()[0], 'uid', os.getuid(), 'gid', os.getgid())
for fs, options in (('cgroup', 'pids'), ('cgroup', 'memory'), ('cgroup', 'cpuacct'), ('tmpfs', 'size=1m')):
    os.makedirs(f'/tmp/{options}', exist_ok=True)
    r = subprocess.run(['mount', '-t', fs, '-o', options, 'none', f'/tmp/{options}'], capture_output=True)
    print('mount', fs, options, 'ok' if r.returncode == 0 else 'refused')
written = 0
for pattern, value in (('pids.max', 'max'), ('memory.limit_in_bytes', '-1'), ('cpuacct.usage', '0')):
    for path in glob.glob(f'/sys/fs/cgroup/*/{pattern}') + glob.glob(f'/sys/fs/cgroup/*/*/{pattern}'):
        try:
            open(path, 'w').write(value)
            written += 1
        except OSError:
            pass
print('cgroup files written', written)
"""
POWERS = ("--unshare-user", "--uid", str(sandbox.NOBODY), "--gid", str(sandbox.NOBODY), "--cap-drop", "ALL")


def _inside(tmp_path, arguments):
    for d in ("course", "work", sandbox.IPC):
        (tmp_path / d).mkdir(exist_ok=True)
    cmd = [arguments[0], *arguments[1], "--", sys.executable, "-c", LIFTS]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_no_code_inside_can_mount_or_rewrite_the_caps_even_when_the_grader_is_root(tmp_path):
    args = sandbox.arguments(tmp_path, tmp_path / "course", tmp_path / "work", 16)
    seen = _inside(tmp_path, (sandbox.wrap([], tmp_path, tmp_path / "course", tmp_path / "work", 16)[0], args))
    assert f"CapEff 0000000000000000 uid {sandbox.NOBODY} gid {sandbox.NOBODY}" in seen, seen
    assert seen.count("refused") == 4 and " ok" not in seen and "cgroup files written 0" in seen, seen
    if os.geteuid() != 0:
        return                                          # the control needs root's powers to show anything
    # the control: the same sandbox without its user namespace and dropped capabilities, as before, lets root in
    # it mount a cgroup hierarchy (through which the process cap was lifted) and a file system of its own
    start = args.index("--unshare-user")
    assert tuple(args[start:start + len(POWERS)]) == POWERS
    old = args[:start] + args[start + len(POWERS):]
    control = _inside(tmp_path, (sandbox.wrap([], tmp_path, tmp_path / "course", tmp_path / "work", 16)[0], old))
    assert "CapEff 0000000000000000" not in control and "mount cgroup pids ok" in control, control


def test_the_socket_folder_is_a_small_disk_of_the_sandboxs_own_and_nothing_lands_on_the_host(tmp_path):
    """The kernel's socket folder (ipc/) was a bind of a host folder: a cell wrote gigabytes past the sandbox's disk
    cap there.  Now it is a tmpfs of IPC_MB: the write fails and the host's folder stays empty.  The control: the
    same write through a bind of the host folder lands on the host."""
    write = f"""
import os
try:
    open({str(tmp_path / sandbox.IPC / 'big')!r}, 'wb').write(b'x' * ({sandbox.IPC_MB} + 2) * 2**20)
    print('written')
except OSError as e:
    print('refused', e.errno)
"""
    for d in ("course", "work", sandbox.IPC):
        (tmp_path / d).mkdir(exist_ok=True)
    args = sandbox.arguments(tmp_path, tmp_path / "course", tmp_path / "work", 16)
    bwrap = sandbox.wrap([], tmp_path, tmp_path / "course", tmp_path / "work", 16)[0]

    def run(arguments):
        out = subprocess.run([bwrap, *arguments, "--", sys.executable, "-c", write], capture_output=True, text=True,
                             timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()
    assert run(args) == "refused 28" and os.listdir(tmp_path / sandbox.IPC) == []     # ENOSPC, nothing on the host
    k = args.index("--tmpfs", args.index(str(tmp_path)))
    assert args[k + 1] == str(tmp_path / sandbox.IPC) and args[k - 2] == "--size"
    control = args[:k - 2] + ["--bind", str(tmp_path / sandbox.IPC), str(tmp_path / sandbox.IPC)] + args[k + 2:]
    assert run(control) == "written" and os.listdir(tmp_path / sandbox.IPC) == ["big"]
