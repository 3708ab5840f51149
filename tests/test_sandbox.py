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
    "import os\nassert os.listdir('/tmp') == [], os.listdir('/tmp')   # a /tmp of its own",
    "import os\nassert not os.path.exists({solutions!r})",
    "import os\nassert not os.path.exists({grader!r})",
    "import os\nassert not os.path.exists({home!r})",
    "import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=5)\nexcept OSError:\n    pass\n"
    "else:\n    raise AssertionError('reached the host network')",
    "import os\ntry:\n    open({course_file!r}, 'a')\nexcept OSError as e:\n    assert e.errno == 30, e\n"
    "else:\n    raise AssertionError('the course copy is writable')",
    "import os\nassert not os.path.exists('/proc/self/mountinfo')   # no /proc: no list of the binds' sources",
    "import os, sys\nseen = [p for v in [*os.environ.values(), *sys.path, sys.prefix, sys.executable, os.getcwd()]\n"
    "        for p in v.replace(os.pathsep, ' ').split()]\n"
    "found = [p for p in seen for h in {hosts!r} if p == h or p.startswith(h + '/')]\n"
    "assert not found, found   # Python's own paths are the sandbox's",
    "import os\ntry:\n    os.kill({pid}, 0)\nexcept ProcessLookupError:\n    pass\n"
    "else:\n    raise AssertionError('the host process {pid} is there')   # a process table of its own",
    "import errno\ntry:\n    with open('big', 'wb') as f:\n"
    "        for _ in range(40):\n            f.write(b'x' * 2**20)\n"
    "except OSError as e:\n    assert e.errno == errno.ENOSPC, e\n"
    "else:\n    raise AssertionError('wrote 40 MB on a 16 MB disk')",
    "import os\nassert os.environ['HOME'] == os.getcwd() == {work!r}",
    "raise ValueError('the control: a failed assertion is seen')",
]


def host_folders(folder):
    """The host's paths a kernel must not learn (a system Python's /usr aside)."""
    return [p for p in (sys.prefix, os.path.realpath(sys.base_prefix), str(folder), str(package_root()))
            if p not in ("/", "/usr", "/usr/local")]


def test_inside_the_sandbox_there_is_nothing_else_to_reach(tmp_path):
    folder = tmp_path / "sub"
    course, work = folder / "course", folder / "work"
    for d in (course, work):
        d.mkdir(parents=True)
    (course / "x.py").write_text("")
    host = socket.socket()
    host.bind(("127.0.0.1", 0))
    host.listen(1)
    cells = [c.format(solutions=str(SOLUTIONS), grader=str(package_root() / "lesson_tools"), port=host.getsockname()[1],
                      course_file=f"{sandbox.GRADING}/course/x.py", home=os.path.expanduser("~"),
                      work=f"{sandbox.GRADING}/work", hosts=host_folders(folder), pid=os.getpid())
             for c in INSIDE]
    run = kernel.run([Step(c, "learner", i + 1) for i, c in enumerate(cells)], work, course,
                     Limits(cell_s=60, notebook_s=300, file_mb=100, disk_mb=16))
    host.close()
    assert run.stop is None and run.completed == len(cells), run
    assert list(run.errors) == [len(cells) - 1] and "the control" in run.errors[len(cells) - 1], run.errors


# ---------------------------------------------------------------------- an allowlist, not a denylist
WALK = r"""
import json, os
OWN = set({own!r})                              # the declared entries: not walked into (their contents are the
seen, todo = [], ['/']                          # host's, as declared, or the kernel's own)
while todo and len(seen) < 10_000:              # the room outside them: names only, bounded
    path = todo.pop()
    seen.append(path)
    if path not in OWN and not os.path.islink(path) and os.path.isdir(path):
        todo += [e.path for e in os.scandir(path)]
names, count, todo = set(), 0, ['/']            # and every name the kernel can reach, for the decoys'
while todo and count < 300_000:
    path = todo.pop()
    try:
        entries = list(os.scandir(path))
    except OSError:
        continue
    for e in entries:
        count += 1
        names.add(e.name)
        if e.is_dir(follow_symlinks=False) and e.path not in ('/proc', '/dev'):
            todo.append(e.path)
print(json.dumps({{"seen": sorted(seen), "decoys": sorted(names & set({decoys!r})), "count": count}}))
"""


def _decoy_places(tmp_path):
    """Folders on the host to put a decoy checkout and a decoy class in: beside the class folder, in the teacher's
    home, and, where the tests may write there (as root, as CI runs them), at the top of the file system, in /srv,
    /opt, /work, /usr/local/share and /var/tmp."""
    places = [tmp_path, Path(os.path.expanduser("~"))]
    places += [Path(p) for p in ("/", "/srv", "/opt", "/work", "/usr/local/share", "/var/tmp")
               if os.path.isdir(p) and os.access(p, os.W_OK)]
    return places


def _plant_decoys(places, tag):
    """A decoy checkout (solutions and an answer-holding lesson_lib) and a decoy class in each place; their names."""
    made, names = [], []
    for n, place in enumerate(places):
        checkout = Path(tempfile.mkdtemp(dir=place, prefix=f"lesson-decoy-{tag}-{n}-"))
        made.append(checkout)
        (checkout / "notebooks" / "solutions").mkdir(parents=True)
        shutil.copy(SOLUTIONS / "05_retrieve_and_space.ipynb", checkout / "notebooks" / "solutions" /
                    f"decoy-solutions-{tag}-{n}.ipynb")
        (checkout / "lesson_lib" / "physics").mkdir(parents=True)
        (checkout / "lesson_lib" / "physics" / f"decoy_integrators_{tag}_{n}.py").write_text(
            "def symplectic_euler_step(f, q, qd, dt):\n    qd = qd + dt * f(q, qd)\n    return q + dt * qd, qd\n")
        (checkout / f"decoy-class-{tag}-{n}" / "ann").mkdir(parents=True)
        shutil.copy(SOLUTIONS / "05_retrieve_and_space.ipynb", checkout / f"decoy-class-{tag}-{n}" / "ann" /
                    f"decoy-finished-{tag}-{n}.ipynb")
        names += [checkout.name, f"decoy-solutions-{tag}-{n}.ipynb", f"decoy_integrators_{tag}_{n}.py",
                  f"decoy-class-{tag}-{n}", f"decoy-finished-{tag}-{n}.ipynb"]
    return made, names


def _printed(run, index):
    import json
    cell = run.executed.cells[index]
    text = "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")
    return json.loads(text.strip().splitlines()[-1])


def test_a_kernel_sees_what_the_allowlist_declares_and_no_decoy_wherever_it_lies(tmp_path):
    """Walked from inside a real sandboxed kernel, the file system outside the entries the sandbox declares
    (sandbox.allowlist()) holds only the folders that lead to them: nothing of the host is there that was not
    declared.  Decoy checkouts (solutions, a lesson_lib with the answer) and decoy classes, beside the class folder,
    in the teacher's home and in the host's other folders, appear nowhere among the names the kernel can reach."""
    import uuid
    tag = uuid.uuid4().hex[:10]
    made, decoys = _plant_decoys(_decoy_places(tmp_path), tag)
    try:
        folder = tmp_path / "sub"
        course, work = folder / "course", folder / "work"
        for d in (course, work):
            d.mkdir(parents=True)
        declared = sandbox.allowlist()
        own = sorted({e.inside for e in declared if e.kind != "empty"})      # an empty folder's entries: walked
        run = kernel.run([Step(WALK.format(own=own, decoys=decoys), "learner", 1)], work, course,
                         Limits(cell_s=120, notebook_s=300, file_mb=100, disk_mb=16))
    finally:
        for path in made:
            shutil.rmtree(path, ignore_errors=True)
    assert run.stop is None and run.errors == {}, run
    found = _printed(run, 0)
    leading = {str(parent) for e in declared for parent in Path(e.inside).parents}
    every = {path for path in {e.inside for e in declared} | leading       # those the walk reaches: not inside
             if not any(path.startswith(o + "/") for o in own)}              # another entry it stops at
    assert set(found["seen"]) == every, set(found["seen"]) ^ every
    assert found["decoys"] == [] and found["count"] > 1000, found
    from lesson_tools.grading.verified import PACKAGES
    names = {Path(e.inside).name for e in declared}
    assert not names & set(PACKAGES) and not any(n.startswith("__editable__") for n in names), names
    assert not any(str(package_root()) in Path(e.source).read_text(errors="replace") for e in declared
                   if e.kind == "bind" and Path(e.source).suffix == ".pth")


def test_the_courses_own_installed_copy_and_a_checkouts_paths_are_left_out_of_site_packages(tmp_path):
    """A non-editable install puts lesson_lib, answers and all, into site-packages, with its distribution's
    metadata; an editable one, a finder and a .pth that name the checkout: none is shown, the rest is."""
    site = tmp_path / "site-packages"
    for package in verified.PACKAGES:
        (site / package / "physics").mkdir(parents=True)
    course_dist = site / "learn_the_structure-0.1.0.dist-info"
    course_dist.mkdir()
    (course_dist / "RECORD").write_text("lesson_lib/__init__.py,sha256=x,1\n")
    other = site / "numpy_like-1.0.dist-info"
    other.mkdir()
    (other / "RECORD").write_text("numpy_like/__init__.py,sha256=x,1\n")
    (site / "numpy_like").mkdir()
    (site / "__editable__.learn_the_structure-0.1.0.pth").write_text("import __editable___finder\n")
    (site / "__editable___learn_the_structure_0_1_0_finder.py").write_text(f"MAPPING = {{'lesson_lib': "
                                                                             f"{str(package_root())!r}}}\n")
    (site / "checkout.pth").write_text("/home/teacher/course\n")
    (site / "distutils-precedence.pth").write_text("import os; var = 'SETUPTOOLS_USE_DISTUTILS'\n")
    shown = sorted(e.name for e in site.iterdir() if not sandbox._excluded(e, package_root()))
    assert shown == ["distutils-precedence.pth", "numpy_like", "numpy_like-1.0.dist-info"], shown


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
import ctypes
libc = ctypes.CDLL(None, use_errno=True)          # capget(2) and mount(2) themselves (no /proc, no mount program)
header = (ctypes.c_uint32 * 2)(0x20080522, 0)     # capget's version 3, this process
data = (ctypes.c_uint32 * 6)()                    # (effective, permitted, inheritable) for capabilities 0-31, 32-63
assert libc.capget(header, data) == 0
print('CapEff', f'{data[3]:08x}{data[0]:08x}', 'uid', os.getuid(), 'gid', os.getgid())
for fs, options in (('cgroup', 'pids'), ('cgroup', 'memory'), ('cgroup', 'cpuacct'), ('tmpfs', 'size=1m')):
    os.makedirs(f'/tmp/{options}', exist_ok=True)
    r = libc.mount(b'none', f'/tmp/{options}'.encode(), fs.encode(), 0, options.encode())
    print('mount', fs, options, 'ok' if r == 0 else 'refused')
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
    cmd = [arguments[0], *arguments[1], "--", sandbox.python_inside(), "-c", LIFTS]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _arguments(tmp_path):
    for d in ("course", "work", sandbox.IPC):
        (tmp_path / d).mkdir(exist_ok=True)
    env = sandbox.environment(tmp_path / "course", tmp_path / "work", inside=True)
    return sandbox.arguments(tmp_path, tmp_path / "course", tmp_path / "work", 16, env)


def test_no_code_inside_can_mount_or_rewrite_the_caps_even_when_the_grader_is_root(tmp_path):
    args = _arguments(tmp_path)
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
    ipc = f"{sandbox.GRADING}/{sandbox.IPC}"
    write = f"""
import os
try:
    open({ipc + '/big'!r}, 'wb').write(b'x' * ({sandbox.IPC_MB} + 2) * 2**20)
    print('written')
except OSError as e:
    print('refused', e.errno)
"""
    args = _arguments(tmp_path)
    bwrap = sandbox.wrap([], tmp_path, tmp_path / "course", tmp_path / "work", 16)[0]

    def run(arguments):
        out = subprocess.run([bwrap, *arguments, "--", sandbox.python_inside(), "-c", write], capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()
    assert run(args) == "refused 28" and os.listdir(tmp_path / sandbox.IPC) == []     # ENOSPC, nothing on the host
    k = args.index(ipc) - 1
    assert args[k] == "--tmpfs" and args[k - 2] == "--size"
    control = args[:k - 2] + ["--bind", str(tmp_path / sandbox.IPC), ipc] + args[k + 2:]
    assert run(control) == "written" and os.listdir(tmp_path / sandbox.IPC) == ["big"]
