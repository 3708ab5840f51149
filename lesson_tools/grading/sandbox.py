"""The sandbox a submission's kernel runs in: Debian's bubblewrap (`bwrap`), where the machine allows it.

    reason = sandbox.problem()                         # None when kernels can be sandboxed, else why not
    cmd = sandbox.wrap(cmd, folder, course, work, disk_mb)

Inside, the kernel and everything it starts have

- no powers: a user namespace of their own in which they are the unprivileged user NOBODY, with every capability
  dropped, so they can mount nothing (no cgroup file system to rewrite the caps through) and change no file the
  system owns, even when the grader runs as root;

- their own process table (a new PID namespace): they see no other process, and when the kernel ends the
  namespace ends with it, so nothing they started, detached or not, outlives the submission;
- no network (a new network namespace: not even the host's loopback, so no Dask scheduler);
- a read-only view of the system with the places that hold people's files hidden (/home, /root, /tmp, /var,
  /mnt, /media, /srv, /opt and the course's repository, with the solutions and the grader); only Python itself is
  shown again, read-only, without any copy of the course's packages installed in it (a non-editable install of
  lesson_lib holds the answers the kernel's copy lacks: lesson_tools.grading.withheld);
- the submission's own folder read-only (its connection file, the judge's socket); the verified copy of lesson_lib
  read-only; writable only three fresh tmpfs of the sandbox's own: `ipc/`, where the kernel makes its sockets
  (IPC_MB; the grader reaches them from outside through /proc/PID/root, `outside`), a working folder of `disk_mb`
  MB and a /tmp of TMP_MB MB (a full disk is the submission's own, and nothing it writes lands on the host's disk).

The per-process limits (lesson_tools.grading.rlimits) still apply to every process inside.  The judge is not
sandboxed: it runs no learner code.
"""
import functools
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

HIDDEN = ("/home", "/root", "/tmp", "/var", "/mnt", "/media", "/srv", "/opt", "/run")
NOBODY = 65534          # the uid and gid inside: the traditional unprivileged "nobody"
TMP_MB = 64             # the sandbox's own /tmp
IPC_MB = 1              # the sandbox's own socket folder: sockets take no room, files there have none
IPC = "ipc"             # the one folder of the submission's folder the kernel may write in: its sockets


def _python_dirs():
    """The folders this Python needs to start and import its packages (shown again inside, read-only)."""
    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
            os.path.dirname(os.path.realpath(sys.executable)), *site.getsitepackages()}
    return sorted(d for d in dirs if d and os.path.isdir(d))


def _under(path, folders):
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def installed_copies():
    """The course's packages installed in this Python's site-packages (a non-editable install): hidden inside."""
    from .verified import PACKAGES
    return sorted(os.path.join(d, p) for d in _python_dirs() for p in PACKAGES if os.path.isdir(os.path.join(d, p)))


def arguments(folder, course, work, disk_mb, hide=()):
    """bwrap's arguments for a kernel whose submission folder is `folder` (see the module's docstring)."""
    from .verified import package_root
    hidden = [d for d in (*HIDDEN, str(package_root()), *map(str, hide)) if os.path.isdir(d)]
    # A folder inside another hidden one is hidden with it; only where Python, shown again, holds it does it need a
    # tmpfs of its own, after Python's (an empty one before would show its name, e.g. /tmp/course, inside).
    tops = [d for d in hidden if not _under(d, [h for h in hidden if h != d])]
    python = [d for d in _python_dirs() if _under(d, tops)]
    inner = [d for d in hidden if d not in tops and _under(d, python)]
    args = ["--unshare-all", "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY), "--cap-drop", "ALL",
            "--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for d in tops:                                     # empty (read-only at the end); /tmp writable, small
        args += (["--size", str(TMP_MB * 2**20)] if d == "/tmp" else []) + ["--tmpfs", d]
    for d in python:
        args += ["--ro-bind", d, d]
    installed = [d for d in installed_copies() if d not in hidden]
    for d in inner + installed:
        args += ["--tmpfs", d]
    hidden = tops + inner + installed
    ipc = Path(folder) / IPC
    args += ["--ro-bind", str(folder), str(folder), "--size", str(IPC_MB * 2**20), "--tmpfs", str(ipc),
             "--ro-bind", str(course), str(course),
             "--size", str(int(disk_mb) * 2**20), "--tmpfs", str(work), "--chdir", str(work),
             *[arg for d in hidden if d != "/tmp" for arg in ("--remount-ro", d)],
             "--setenv", "HOME", str(work),
             "--setenv", "JPY_PARENT_PID", "1"]  # inside, the kernel's parent is the namespace's init (pid 1):
    #                                              ipykernel polls no parent for pid 1 (it would take pid 1 for
    #                                              "parent gone"); the sandbox ends with its parent instead
    return args


def inside(pid, timeout=60.0):
    """The pid of the sandbox's first process (bubblewrap's child, in the sandbox's namespaces) when `pid` is
    bubblewrap's; None if bubblewrap ends first, or makes none within `timeout` seconds (as long as a kernel gets to
    start: a busy machine delays this fork, it never fails a submission by it)."""
    import time
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                children = f.read().split()
        except OSError:
            return None
        if children:
            return int(children[0])
        time.sleep(0.01)
    return None


def outside(pid, path):
    """How the grader reaches `path` as the sandbox whose first process is `pid` sees it (its sockets in ipc/)."""
    return f"/proc/{pid}/root{path}"


def wrap(cmd, folder, course, work, disk_mb, hide=()):
    """`cmd` run inside the sandbox."""
    return [shutil.which("bwrap"), *arguments(folder, course, work, disk_mb, hide), "--", *cmd]


@functools.cache
def problem():
    """None when this machine can sandbox kernels, else a sentence saying why not and what to do."""
    if sys.platform != "linux":
        return "sandboxing needs Linux (bubblewrap)"
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install -y bubblewrap)"
    import tempfile
    with tempfile.TemporaryDirectory(prefix="lesson-sandbox-") as tmp:
        folder = Path(tmp)
        for d in ("course", "work", IPC):
            (folder / d).mkdir()
        cmd = wrap([sys.executable, "-c", "import numpy, os; print(os.getpid())"], folder, folder / "course",
                   folder / "work", 16)
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"bubblewrap could not start a sandbox ({type(exc).__name__}: {exc})"
    if out.returncode != 0:
        why = " ".join((out.stderr or "no message").split())[:200]
        return (f"bubblewrap could not start a sandbox here ({why}); it needs user namespaces (on Debian/Ubuntu: "
                f"sysctl kernel.unprivileged_userns_clone=1) or root")
    return None
