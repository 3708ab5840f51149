"""The sandbox a submission's kernel runs in: Debian's bubblewrap (`bwrap`), where the machine allows it.

    reason = sandbox.problem()                              # None when kernels can be sandboxed, else why not
    cmd = sandbox.wrap(cmd, folder, course, work, disk_mb, env)
    sandbox.allowlist()                                     # [Entry(inside, source, why)]: all a kernel can see

The room starts empty: no bind of the host's root, only what `allowlist()` declares, each read-only unless said,
at a path that names nothing of the host's:

- PYTHON: this interpreter and its packages, at /python (a virtualenv at /python/venv over its base at
  /python/base): the executable, its standard library (without the base's own site-packages), the shared
  libpython it links, and each entry of its site-packages except the course's own (lesson_lib, lesson_course,
  lesson_tools, the course's distribution, and any editable install's finder or .pth pointing at a checkout, which
  name the repository); a pyvenv.cfg the grader writes;
- the system's shared libraries the interpreter and its extension modules link (the folders `ldd` resolves them
  in, outside Python's own trees, and the loader at its path), /etc/ld.so.cache, /etc/localtime, /etc/nsswitch.conf,
  and /etc/passwd and /etc/group the grader writes (one user, LEARNER);
- GRADING (/grading): the kernel's copy of the course (`course`, the one without the answers: withheld), its
  connection file, the judge's socket folder; and three tmpfs of its own: ipc/ where the kernel makes its sockets
  (IPC_MB; the grader reaches them from outside through /proc/PID/root, `outside`), work/ (`disk_mb` MB, its working
  folder and HOME) and /tmp (TMP_MB); a full disk is the submission's own, and nothing it writes lands on the host;
- a minimal /dev, and no /proc: nothing there a kernel needs, and its files would name the host (mountinfo the
  host paths of the binds' sources, environ and cmdline what started the processes, cpuinfo and meminfo the machine).

Nothing else of the host exists inside: not the class folder, other checkouts, the teacher's home, /usr or /etc
beyond the above, /sys.  The kernel's environment is the grader's (`--clearenv`, then `env`), never the teacher's.
Inside, the kernel and everything it starts have

- no powers: a user namespace of their own in which they are the unprivileged user NOBODY, with every capability
  dropped, so they can mount nothing (no cgroup file system to rewrite the caps through);
- their own process table (a new PID namespace): when the kernel ends the namespace ends with it, so nothing they
  started, detached or not, outlives the submission;
- no network (a new network namespace: not even the host's loopback, so no Dask scheduler), and a host name of
  their own.

No file in the room lists the binds' sources, but a compiled module (.pyc) of the packages still holds the path it
was compiled at: the grader takes the host's paths of Python's folders and of the submission's out of every text it
keeps (`host_paths`, job.py).
The per-process limits (lesson_tools.grading.rlimits) still apply to every process inside.  The judge is not
sandboxed: it runs no learner code.
"""
import functools
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import NamedTuple

NOBODY = 65534          # the uid and gid inside: the traditional unprivileged "nobody", named LEARNER there
LEARNER = "learner"
TMP_MB = 64             # the sandbox's own /tmp
IPC_MB = 1              # the sandbox's own socket folder: sockets take no room, files there have none
IPC = "ipc"             # the one folder of the submission's folder the kernel may write in: its sockets
JUDGE = "judge"         # the folder of the judge's socket (lesson_tools.grading.judge), shown read-only
GRADING = "/grading"    # the submission's folder as the kernel sees it
PYTHON = "/python"      # this interpreter as the kernel sees it
ETC = ("/etc/ld.so.cache", "/etc/localtime", "/etc/nsswitch.conf")    # the system's files Python and numpy read


class Entry(NamedTuple):
    """One thing a kernel can see: `inside` (its path there), `kind` ("bind": the host's `source`, read-only; "empty":
    a read-only empty folder; "written": a file the grader writes per submission, `source` its name there; "link": a
    symbolic link to `source`; "own": a file system of the sandbox's own), `why`."""
    inside: str
    kind: str
    source: str
    why: str


def _excluded(entry, root):
    """Whether a site-packages entry is the course's own, or names a checkout: the course's packages and its
    distribution's metadata, an editable install's finder, a .pth file that points at a folder."""
    from .verified import PACKAGES
    name = entry.name
    if name in PACKAGES or name.startswith("__editable__"):
        return True
    if name.endswith(".dist-info") or name.endswith(".egg-info") or name.endswith(".egg-link"):
        try:
            text = "".join(p.read_text(errors="replace") for p in (entry / "RECORD", entry / "top_level.txt",
                                                                    entry / "direct_url.json") if p.is_file())
        except OSError:
            return True
        return (str(root) in text or "file://" in text or "__editable__" in text
                or any(f"{p}/" in text or f"{p}\n" in text for p in PACKAGES))
    if name.endswith(".pth"):
        try:
            lines = entry.read_text(errors="replace").splitlines()
        except OSError:
            return True
        return any(line.strip() and not line.startswith(("#", "import ", "import\t")) for line in lines) or \
            str(root) in "".join(lines)
    return False


def _site_dirs():
    """This interpreter's site-packages folders (the virtualenv's, or the installation's own)."""
    import site
    return [d for d in dict.fromkeys(site.getsitepackages()) if os.path.isdir(d)]


def _libraries(files):
    """{path the loader opens: its real path} for the shared libraries `files` link (ldd)."""
    found = {}
    for start in range(0, len(files), 200):
        try:
            out = subprocess.run(["ldd", *files[start:start + 200]], capture_output=True, text=True,
                                 timeout=300).stdout
        except (OSError, subprocess.TimeoutExpired):
            continue
        for line in out.splitlines():
            parts = line.split()
            path = parts[2] if len(parts) > 2 and parts[1] == "=>" else parts[0] if parts and \
                parts[0].startswith("/") else None
            if path and path.startswith("/") and os.path.exists(path):
                found[os.path.normpath(path)] = os.path.realpath(path)
    return found


def _under(path, folders):
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def _so_files(folder, skip=()):
    return [str(p) for p in Path(folder).rglob("*.so*") if p.is_file() and not _under(str(p), skip)]


def _stamp():
    """What _interpreter's answer depends on: the interpreter, its folders (a folder's time changes when an entry
    is added or removed: a package installed, upgraded, removed), the loader's cache, the course's checkout, this
    module."""
    import hashlib
    import json

    from .verified import package_root
    stdlib = sysconfig.get_paths()["stdlib"]
    folders = [stdlib, *_site_dirs(), "/etc/ld.so.cache", __file__]
    return hashlib.sha256(json.dumps([sys.executable, sys.prefix, sys.base_prefix, str(package_root()),
                                      [(f, os.stat(f).st_mtime_ns) for f in folders if os.path.exists(f)]]
                                     ).encode()).hexdigest()[:24]


@functools.cache
def _interpreter():
    """[Entry] of this interpreter, its packages and the system's libraries they link (see the module's
    docstring): the same for every submission.  Finding the libraries takes ldd a second or two, so the answer is
    kept in the grader's cache folder (lesson_tools.grading.results), under a name that changes with what it
    depends on (_stamp), and read there by every worker."""
    import json

    from .results import default_folder
    kept = default_folder() / "sandbox" / f"room-{_stamp()}.json"
    try:
        return [Entry(*e) for e in json.loads(kept.read_text())]
    except (OSError, ValueError, TypeError):
        pass
    entries = _found()
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        partial = kept.with_suffix(f".{os.getpid()}.part")
        partial.write_text(json.dumps(entries))
        os.replace(partial, kept)
    except OSError:
        pass                                          # a cache that cannot be written: found again next time
    return entries


def _found():
    """_interpreter's answer, found."""
    from .verified import package_root
    root, base, venv = package_root(), sys.base_prefix, sys.prefix != sys.base_prefix
    executable = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    stdlib = sysconfig.get_paths()["stdlib"]
    home, version = f"{PYTHON}/base", f"python{sys.version_info[0]}.{sys.version_info[1]}"

    def mapped(path):                                  # a path of the base installation, as seen inside
        return f"{home}/{os.path.relpath(path, base)}" if _under(path, [base]) else None

    inside_stdlib = mapped(stdlib) or f"{home}/lib/{version}"
    entries = [Entry(f"{home}/bin/{version}", "bind", executable, "the interpreter"),
               Entry(inside_stdlib, "bind", stdlib, "its standard library")]
    if venv and os.path.isdir(os.path.join(stdlib, "site-packages")):
        entries.append(Entry(f"{inside_stdlib}/site-packages", "empty", "", "the base's own packages, unused"))
    sites = []
    for d in _site_dirs():
        where = f"{PYTHON}/venv/lib/{version}/site-packages" if venv and _under(d, [sys.prefix]) else mapped(d)
        if where is None:
            continue                                   # a folder outside the installation: not on its path inside
        sites.append(d)
        entries.append(Entry(where, "empty", "", "its packages: each entry but the course's own, bound below"))
        entries += [Entry(f"{where}/{e.name}", "bind", str(e), "a package of the interpreter's")
                    for e in sorted(Path(d).iterdir()) if not _excluded(e, root)]
    if venv:
        entries.append(Entry(f"{PYTHON}/venv/pyvenv.cfg", "written", "pyvenv.cfg", "the virtualenv's settings"))
    # shared libraries: libpython where the installation holds it; the system's folders of what the rest link
    files = [executable, *_so_files(stdlib, [os.path.join(stdlib, "site-packages")])]
    for d in sites:
        files += _so_files(d)
    trees, system, loaders = [base, sys.prefix, *sites], set(), {}
    for opened, real in _libraries(files).items():
        if _under(real, trees) or _under(opened, trees):
            inside = mapped(opened) or mapped(real)
            if inside and not any(_under(inside, [e.inside]) for e in entries):
                entries.append(Entry(inside, "bind", real, "the interpreter's own shared library"))
            continue
        system.add(os.path.dirname(real))
        if os.path.realpath(os.path.dirname(opened)) != os.path.dirname(real):
            loaders[opened] = real                     # e.g. the loader, named by /lib64/... through a link
    entries += [Entry(d, "bind", d, "a folder of the system's shared libraries the interpreter links")
                for d in sorted(system)]
    entries += [Entry(os.path.join(os.path.realpath(os.path.dirname(opened)), os.path.basename(opened)), "bind", real,
                      "a shared library at the path programs name it by (through the links of a merged /usr)")
                for opened, real in sorted(loaders.items())
                if os.path.realpath(os.path.dirname(opened)) not in system]
    entries += [Entry(path, "bind", path, "read by Python's and numpy's C libraries") for path in ETC
                if os.path.exists(path)]
    for name in ("bin", "lib", "lib64", "sbin"):           # a merged /usr's links, so the loader's paths resolve
        link, target = f"/{name}", os.path.realpath(f"/{name}")
        if os.path.islink(link) and any(_under(e.inside, [target]) for e in entries):
            entries.append(Entry(link, "link", os.readlink(link), "a link of the system's, to a folder above"))
    if venv:
        entries.append(Entry(python_inside(), "link", f"{home}/bin/{version}", "the virtualenv's interpreter"))
    return entries


def allowlist():
    """[Entry] of everything a kernel can see (the module's docstring): the interpreter's part, then the
    submission's; the paths a merged /usr links (/lib -> usr/lib) are links, not entries."""
    return [*_interpreter(),
            Entry("/etc/passwd", "written", "etc/passwd", f"one user, {LEARNER}"),
            Entry("/etc/group", "written", "etc/group", f"one group, {LEARNER}"),
            Entry(f"{GRADING}/course", "bind", "course", "the kernel's copy of the course, without the answers"),
            Entry(f"{GRADING}/{JUDGE}", "bind", JUDGE, "the folder of the judge's socket"),
            Entry(f"{GRADING}/kernel.json", "bind", "kernel.json", "the kernel's connection file"),
            Entry(f"{GRADING}/{IPC}", "own", f"tmpfs of {IPC_MB} MB", "the kernel's sockets"),
            Entry(f"{GRADING}/work", "own", "tmpfs of disk_mb", "the working folder, HOME"),
            Entry("/tmp", "own", f"tmpfs of {TMP_MB} MB", "a private /tmp"),
            Entry("/dev", "own", "dev", "null, zero, random, urandom, tty, pts, shm")]


def python_inside():
    """The interpreter's path inside the sandbox."""
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    return f"{PYTHON}/venv/bin/python" if sys.prefix != sys.base_prefix else f"{PYTHON}/base/bin/{version}"


def library_path():
    """LD_LIBRARY_PATH inside: the folder of libpython, where the interpreter links one of the installation's (its
    RUNPATH names the host's folder)."""
    return ":".join(sorted({os.path.dirname(e.inside) for e in _interpreter()
                            if e.why == "the interpreter's own shared library"}))


def seen_inside(path, folder):
    """`path`, under the submission's `folder` on the host, as the kernel sees it."""
    return f"{GRADING}/{os.path.relpath(path, folder)}"


def host_paths(folder=None):
    """The host's paths the sandbox shows the kernel the contents of (its bind sources), longest first, and what
    each becomes in a text the grader keeps."""
    paths = {}
    for e in _interpreter():
        if e.kind == "bind" and not _under(e.source, ["/usr", "/lib", "/lib64", "/etc"]):
            paths[e.source] = e.inside
    for d in (sys.prefix, sys.base_prefix, os.path.dirname(sys.executable)):
        paths.setdefault(d, PYTHON)
    if folder is not None:
        paths[str(folder)] = GRADING
    return dict(sorted(paths.items(), key=lambda kv: -len(kv[0])))


def _write_files(folder):
    """The files the grader writes for the sandbox: /etc/passwd and /etc/group (one user), pyvenv.cfg."""
    etc = Path(folder) / "etc"
    etc.mkdir(exist_ok=True)
    (etc / "passwd").write_text(f"{LEARNER}:x:{NOBODY}:{NOBODY}:{LEARNER}:{GRADING}/work:/nonexistent\n")
    (etc / "group").write_text(f"{LEARNER}:x:{NOBODY}:\n")
    (Path(folder) / "pyvenv.cfg").write_text(f"home = {PYTHON}/base/bin\ninclude-system-site-packages = false\n"
                                    f"version = {'.'.join(map(str, sys.version_info[:3]))}\n")
    (Path(folder) / JUDGE).mkdir(exist_ok=True)
    return etc


def arguments(folder, course, work, disk_mb, env=None):
    """bwrap's arguments for a kernel whose submission folder is `folder` (see the module's docstring); `env`: the
    kernel's whole environment."""
    _write_files(folder)
    args = ["--unshare-all", "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY), "--cap-drop", "ALL",
            "--die-with-parent", "--hostname", "grading", "--clearenv"]
    sources = {"course": str(course), "kernel.json": str(Path(folder) / "kernel.json")}
    empty = []
    for e in allowlist():
        if e.kind == "bind":
            source = sources.get(e.source, str(Path(folder) / e.source) if not e.source.startswith("/")
                                 else e.source)
            if os.path.exists(source):
                args += ["--ro-bind", source, e.inside]
        elif e.kind == "written":
            args += ["--ro-bind", str(Path(folder) / e.source), e.inside]
        elif e.kind == "empty":
            args += ["--tmpfs", e.inside]
            empty.append(e.inside)
        elif e.kind == "link":
            args += ["--symlink", e.source, e.inside]
    args += ["--dev", "/dev", "--size", str(TMP_MB * 2**20), "--tmpfs", "/tmp",
             "--size", str(IPC_MB * 2**20), "--tmpfs", f"{GRADING}/{IPC}",
             "--size", str(int(disk_mb) * 2**20), "--tmpfs", f"{GRADING}/work"]
    args += [arg for d in empty for arg in ("--remount-ro", d)] + ["--remount-ro", "/", "--chdir", f"{GRADING}/work"]
    for key, value in (env or {}).items():
        args += ["--setenv", key, value]
    return args


def inside(pid, timeout=600.0):
    """The pid of the sandbox's first process (bubblewrap's child, in the sandbox's namespaces) when `pid` is
    bubblewrap's; None if bubblewrap ends first, or makes none within `timeout` seconds (a backstop far behind a
    kernel's start: a busy machine delays this fork, it never fails a submission by it)."""
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


def wrap(cmd, folder, course, work, disk_mb, env=None):
    """`cmd` (with paths as the kernel sees them) run inside the sandbox, in the environment `env`."""
    return [shutil.which("bwrap"), *arguments(folder, course, work, disk_mb, env), "--", *cmd]


def environment(course, work, inside):
    """The whole environment of a process that runs learner code (the kernel), written by the grader, never the
    teacher's: a fixed PATH, HOME and the locale, matplotlib's and IPython's folders in the working folder, the
    course's copy on the path, one BLAS thread, no file of predictions (lesson_course.reveal.history_file).
    `inside`: the paths as the sandbox shows them; else the host's (a kernel without a sandbox, or the judge)."""
    python = os.path.dirname(python_inside()) if inside else os.path.dirname(sys.executable)
    course, work = (f"{GRADING}/course", f"{GRADING}/work") if inside else (str(course), str(work))
    env = {"PATH": f"{python}:/usr/bin:/bin", "HOME": work, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
           "TMPDIR": "/tmp" if inside else os.environ.get("TMPDIR", "/tmp"), "USER": LEARNER, "LOGNAME": LEARNER,
           "MPLBACKEND": "Agg", "MPLCONFIGDIR": f"{work}/.config/matplotlib", "IPYTHONDIR": f"{work}/.ipython",
           "PYTHONPATH": course, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0", "PYTHONNOUSERSITE": "1",
           "LESSON_PREDICTIONS": "", **{k: "1" for k in THREADS}}
    if inside:
        env["JPY_PARENT_PID"] = "1"    # inside, the kernel's parent is the namespace's init (pid 1): ipykernel
        #                                polls no parent for pid 1 (it would take pid 1 for "parent gone"); the
        #                                sandbox ends with its parent instead
        if library_path():
            env["LD_LIBRARY_PATH"] = library_path()
    return env


THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


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
        # the kernel's native libraries, from its packages and the system's: numpy's BLAS, pyzmq's libzmq, matplotlib's
        cmd = wrap([python_inside(), "-c", "import numpy.linalg, zmq, matplotlib.ft2font, os; print(os.getpid())"],
                   folder, folder / "course", folder / "work", 16, environment(folder / "course", folder / "work",
                                                                                 True))
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"bubblewrap could not start a sandbox ({type(exc).__name__}: {exc})"
    if out.returncode != 0:
        why = " ".join((out.stderr or "no message").split())[:300]
        return (f"bubblewrap could not start a sandbox here ({why}); it needs user namespaces (on Debian/Ubuntu: "
                f"sysctl kernel.unprivileged_userns_clone=1) or root")
    return None
