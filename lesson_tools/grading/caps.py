"""Caps on a submission's sandbox as a whole: the memory, the number of processes and the CPU time of everything it
runs, through a Linux control group (cgroup v1: the memory, pids and cpuacct controllers).

    reason = caps.problem()                      # None when this machine lets the grader make groups, else why not
    with caps.Group(memory_mb, processes) as group:
        cmd = rlimits.wrap(cmd, ..., join=group.procs)     # the kernel joins the group before it starts
        group.cpu_seconds()                      # CPU time of all its processes so far, the ended ones included
        group.oom_kills()                        # processes the memory cap has ended
    # on leaving: every process still in the group is killed and the group removed

A process cannot leave its group (that takes writing to the control files, which the sandbox shows read-only), and
everything it starts is born in it: forking does not multiply the memory cap, a fork bomb stops at `processes`
(threads count), and the CPU time counts every process, detached or not.  Each controller's group is made under the
grader's own group in that hierarchy (/proc/self/cgroup), so a grader that is itself capped (a container, a batch
job) caps its submissions inside its own caps.
"""
import functools
import itertools
import os
import signal
import sys
import time

CONTROLLERS = ("memory", "pids", "cpuacct")
_names = itertools.count()


def _mounts():
    """{controller: (mount point, root of the mount)} for the cgroup v1 hierarchies (/proc/self/mountinfo)."""
    found = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, (fstype, _source, options) = left.split(), right.split()[:3]
            if fstype != "cgroup":
                continue
            for name in set(options.split(",")) & set(CONTROLLERS):
                found[name] = (fields[4], fields[3])
    return found


def _own():
    """{controller: this process's group path} from /proc/self/cgroup."""
    own = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, names, path = line.rstrip("\n").split(":", 2)
            for name in names.split(","):
                own[name] = path
    return own


def _parents():
    """{controller: the folder of this process's own group}; OSError when a controller is missing."""
    mounts, own = _mounts(), _own()
    missing = [c for c in CONTROLLERS if c not in mounts or c not in own]
    if missing:
        raise OSError(f"no cgroup v1 {', '.join(missing)} controller is mounted")
    parents = {}
    for name in CONTROLLERS:
        point, root = mounts[name]
        rel = os.path.relpath(own[name], root)
        if rel.startswith(".."):
            raise OSError(f"this process's {name} group {own[name]} is outside the mounted hierarchy")
        parents[name] = os.path.normpath(os.path.join(point, rel))
    return parents


def _write(path, value):
    with open(path, "w") as f:
        f.write(str(value))


def _read(path):
    with open(path) as f:
        return f.read()


def cpu_seconds(cpu_file):
    """The CPU seconds a group's `cpu_file` (Group.cpu_file, cpuacct.usage: nanoseconds) holds."""
    return int(_read(cpu_file)) / 1e9


class Group:
    """One group in each of the three hierarchies: `memory_mb` MB of memory (RAM, tmpfs pages written inside
    included; no swap beyond it), at most `processes` processes and threads.  `procs`: the files a process writes
    its pid into to join; `cpu_file`: cpuacct.usage, the group's CPU time in nanoseconds."""

    def __init__(self, memory_mb, processes):
        name = f"lesson-grade-{os.getpid()}-{next(_names)}"
        self.dirs = {}
        try:
            for controller, parent in _parents().items():
                path = os.path.join(parent, name)
                os.mkdir(path)
                self.dirs[controller] = path
            memory = self.dirs["memory"]
            _write(os.path.join(memory, "memory.limit_in_bytes"), int(memory_mb) * 2**20)
            if os.path.exists(os.path.join(memory, "memory.memsw.limit_in_bytes")):
                _write(os.path.join(memory, "memory.memsw.limit_in_bytes"), int(memory_mb) * 2**20)
            _write(os.path.join(self.dirs["pids"], "pids.max"), int(processes))
        except OSError:
            self.close()
            raise
        self.procs = tuple(os.path.join(d, "cgroup.procs") for d in self.dirs.values())
        self.cpu_file = os.path.join(self.dirs["cpuacct"], "cpuacct.usage")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def cpu_seconds(self):
        """CPU time (user and system) of every process that has run in the group."""
        return cpu_seconds(self.cpu_file)

    def oom_kills(self):
        """How many processes in the group the memory cap has ended."""
        for line in _read(os.path.join(self.dirs["memory"], "memory.oom_control")).splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return int(_read(os.path.join(self.dirs["memory"], "memory.failcnt")) != "0\n")   # older kernels

    def pids(self):
        """The processes in the group now."""
        if "pids" not in self.dirs:
            return []
        try:
            return [int(p) for p in _read(os.path.join(self.dirs["pids"], "cgroup.procs")).split()]
        except OSError:
            return []

    def kill(self):
        """SIGKILL every process in the group, until none is left (a process forking meanwhile is born in it)."""
        for _ in range(200):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.01)

    def close(self):
        """Kill what is left and remove the groups (a killed process leaves its group once its parent reaps it)."""
        self.kill()
        for path in self.dirs.values():
            for _ in range(100):
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)
        self.dirs = {}


@functools.lru_cache(maxsize=None)
def problem():
    """None when this machine lets the grader cap a sandbox as a whole, else a sentence saying why not."""
    if sys.platform != "linux":
        return "caps on a sandbox as a whole need Linux control groups"
    try:
        Group(64, 8).close()
    except OSError as exc:
        return (f"the grader cannot make control groups here ({exc}); they need the cgroup v1 memory, pids and "
                f"cpuacct controllers, writable by the grader (as root, or a group delegated to it); cgroup v2 "
                f"is not supported yet")
    return None
