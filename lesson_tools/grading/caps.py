"""Caps on a submission's sandbox as a whole: the memory, the number of processes and the CPU time of everything it
runs, through a Linux control group: cgroup v1 (the memory, pids and cpuacct hierarchies) or cgroup v2 (one
unified hierarchy, its memory, pids and cpu controllers), whichever this machine lets the grader use, chosen once.

    reason = caps.problem()                      # None when this machine lets the grader make groups, else why not
    caps.kind()                                  # "cgroup v1" or "cgroup v2", and where
    with caps.Group(memory_mb, processes) as group:
        cmd = rlimits.wrap(cmd, ..., join=group.procs)     # the kernel joins the group before it starts
        group.cpu_seconds()                      # CPU time of all its processes so far, the ended ones included
        group.oom_kills()                        # processes the memory cap has ended
    # on leaving: every process still in the group is killed and the group removed

A process cannot leave its group (that takes writing to the control files, which the sandbox shows read-only), and
everything it starts is born in it: forking does not multiply the memory cap, a fork bomb stops at `processes`
(threads count), and the CPU time counts every process, detached or not.  Each group is made under the grader's own
group in that hierarchy (/proc/self/cgroup), so a grader that is itself capped (a container, a batch job) caps its
submissions inside its own caps.

cgroup v2 lets a group hold processes or groups with controllers, not both: at the root of the hierarchy (the
grader as root on the machine, or a container's own root) the groups are made there; in a group of its own (a
delegated one: `systemd-run --scope -p Delegate=yes lesson-tools grade ...`, or a container's) the grader first
moves itself into a leaf, `grader`, and gives the controllers to the groups beside it.  It never moves a process
that is not its own: in a group it shares (a login session's), it says so and grades without these caps.
"""
import functools
import itertools
import os
import signal
import sys
import time

CONTROLLERS = ("memory", "pids", "cpuacct")
UNIFIED = ("memory", "pids", "cpu")            # cgroup v2's controllers for the same three caps
MOUNTINFO, OWN = "/proc/self/mountinfo", "/proc/self/cgroup"      # read here (tests give other files)
_names = itertools.count()


def _mounts():
    """{controller: (mount point, root of the mount)} for the cgroup v1 hierarchies, and "" for the cgroup v2 one
    (/proc/self/mountinfo)."""
    found = {}
    with open(MOUNTINFO) as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, (fstype, _source, options) = left.split(), right.split()[:3]
            if fstype == "cgroup2":
                found[""] = (fields[4], fields[3])
            if fstype != "cgroup":
                continue
            for name in set(options.split(",")) & set(CONTROLLERS):
                found[name] = (fields[4], fields[3])
    return found


def _own():
    """{controller: this process's group path} from /proc/self/cgroup ("" for cgroup v2's)."""
    own = {}
    with open(OWN) as f:
        for line in f:
            _, names, path = line.rstrip("\n").split(":", 2)
            for name in names.split(","):
                own[name] = path
    return own


def _inside(mount, path):
    """The folder of group `path` under a hierarchy's (mount point, root); OSError when it is outside it."""
    point, root = mount
    rel = os.path.relpath(path, root)
    if rel.startswith(".."):
        raise OSError(f"this process's group {path} is outside the mounted hierarchy")
    return os.path.normpath(os.path.join(point, rel))


def _parents():
    """{controller: the folder of this process's own group}; OSError when a controller is missing."""
    mounts, own = _mounts(), _own()
    missing = [c for c in CONTROLLERS if c not in mounts or c not in own]
    if missing:
        raise OSError(f"no cgroup v1 {', '.join(missing)} controller is mounted")
    return {name: _inside(mounts[name], own[name]) for name in CONTROLLERS}


def _write(path, value):
    with open(path, "w") as f:
        f.write(str(value))


def _read(path):
    with open(path) as f:
        return f.read()


def cpu_seconds(cpu_file):
    """The CPU seconds a group's `cpu_file` (Group.cpu_file) holds: cgroup v1's cpuacct.usage (nanoseconds), or
    v2's cpu.stat (its usage_usec line)."""
    text = _read(cpu_file)
    if os.path.basename(cpu_file) == "cpu.stat":
        return next(int(v) for k, v in (line.split() for line in text.splitlines()) if k == "usage_usec") / 1e6
    return int(text) / 1e9


def pids_in(procs_file):
    """The processes a group's `procs_file` (Group.pids_file) lists now; none when it is gone."""
    try:
        return [int(p) for p in _read(procs_file).split()]
    except OSError:
        return []


class _Group:
    """What both versions' groups share: a context that closes the group, and its CPU time."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def cpu_seconds(self):
        """CPU time (user and system) of every process that has run in the group."""
        return cpu_seconds(self.cpu_file)


class GroupV1(_Group):
    """One group in each of the three cgroup v1 hierarchies: `memory_mb` MB of memory (RAM, tmpfs pages written inside
    included; no swap beyond it), at most `processes` processes and threads.  `procs`: the files a process writes
    its pid into to join; `cpu_file`: cpuacct.usage, the group's CPU time in nanoseconds; `pids_file`: the one that
    lists its processes."""

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
        self.pids_file = os.path.join(self.dirs["pids"], "cgroup.procs")

    def oom_kills(self):
        """How many processes in the group the memory cap has ended."""
        for line in _read(os.path.join(self.dirs["memory"], "memory.oom_control")).splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return int(_read(os.path.join(self.dirs["memory"], "memory.failcnt")) != "0\n")   # older kernels

    def pids(self):
        """The processes in the group now."""
        return pids_in(os.path.join(self.dirs["pids"], "cgroup.procs")) if "pids" in self.dirs else []

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


def _unified_parent():
    """The folder in the cgroup v2 hierarchy whose new groups may have the memory, pids and cpu controllers, made so
    if need be (the grader moved into its leaf `grader`, the controllers given to the groups beside it); OSError
    saying why there is none."""
    mounts, own = _mounts(), _own()
    if "" not in mounts or "" not in own:
        raise OSError("no cgroup v2 hierarchy is mounted")
    parent = _inside(mounts[""], own[""])
    if os.path.basename(parent) == "grader" and set(UNIFIED) <= _enabled(os.path.dirname(parent)):
        return os.path.dirname(parent)                 # the grader's leaf, made by its first process: a worker
    offered = set(_read(os.path.join(parent, "cgroup.controllers")).split())
    if not set(UNIFIED) <= offered:
        raise OSError(f"the cgroup v2 group {own['']} is not given the {', '.join(sorted(set(UNIFIED) - offered))} "
                      f"controller(s)")
    if own[""] != "/":                                 # a group of processes: move ours to a leaf first
        procs = [int(p) for p in _read(os.path.join(parent, "cgroup.procs")).split()]
        mine = set(_family())
        strangers = [p for p in procs if p not in mine]
        if strangers:
            raise OSError(f"the grader shares its cgroup v2 group {own['']} with {len(strangers)} other process(es); "
                          f"run it in a group of its own: systemd-run --scope -p Delegate=yes lesson-tools grade ...")
        leaf = os.path.join(parent, "grader")
        os.makedirs(leaf, exist_ok=True)
        for pid in procs:
            _write(os.path.join(leaf, "cgroup.procs"), pid)
    if not set(UNIFIED) <= _enabled(parent):
        _write(os.path.join(parent, "cgroup.subtree_control"), " ".join(f"+{c}" for c in UNIFIED))
    return parent


def descendants(pid):
    """pid and every process below it (read from /proc: each thread's children)."""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            for tid in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{tid}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            continue
    return found


def _enabled(folder):
    """The controllers a cgroup v2 group gives its children (cgroup.subtree_control)."""
    return {c.lstrip("+") for c in _read(os.path.join(folder, "cgroup.subtree_control")).split()}


def _family():
    """This process, its ancestors up to the first and its descendants: the processes the grader may move."""
    pids, pid = set(descendants(os.getpid())), os.getpid()
    while pid > 1:
        pids.add(pid)
        try:
            pid = int(_read(f"/proc/{pid}/stat").rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            break
    return pids


class GroupV2(_Group):
    """One group in the cgroup v2 hierarchy (see the module's docstring): `memory_mb` MB of memory (memory.max; no
    swap: memory.swap.max 0), at most `processes` processes and threads (pids.max).  `procs`: (cgroup.procs,);
    `cpu_file`: cpu.stat, whose usage_usec is the group's CPU time; `pids_file`: cgroup.procs."""

    def __init__(self, memory_mb, processes, parent=None):
        self.path = None
        path = os.path.join(parent or _unified_parent(), f"lesson-grade-{os.getpid()}-{next(_names)}")
        os.mkdir(path)
        self.path = path
        try:
            _write(os.path.join(path, "memory.max"), int(memory_mb) * 2**20)
            if os.path.exists(os.path.join(path, "memory.swap.max")):
                _write(os.path.join(path, "memory.swap.max"), 0)
            _write(os.path.join(path, "pids.max"), int(processes))
        except OSError:
            self.close()
            raise
        self.dirs = {"": path}
        self.procs = (os.path.join(path, "cgroup.procs"),)
        self.cpu_file = os.path.join(path, "cpu.stat")
        self.pids_file = self.procs[0]

    def oom_kills(self):
        for line in _read(os.path.join(self.path, "memory.events")).splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def pids(self):
        return pids_in(os.path.join(self.path, "cgroup.procs")) if self.path else []

    def kill(self):
        """Every process in the group ended: cgroup.kill where the kernel has it (5.14), else SIGKILL each."""
        if self.path and os.path.exists(os.path.join(self.path, "cgroup.kill")):
            _write(os.path.join(self.path, "cgroup.kill"), 1)
        GroupV1.kill(self)

    def close(self):
        if self.path is None:
            return
        self.kill()
        for _ in range(100):
            try:
                os.rmdir(self.path)
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.02)
        self.path = None


@functools.cache
def _chosen():
    """(the Group class this machine allows, where, or None and why not): cgroup v1 first, then v2."""
    if sys.platform != "linux":
        return None, "caps on a sandbox as a whole need Linux control groups"
    reasons = []
    for cls, name in ((GroupV1, "cgroup v1"), (GroupV2, "cgroup v2")):
        try:
            cls(64, 8).close()
        except OSError as exc:
            reasons.append(f"{name}: {exc}")
            continue
        return cls, (f"{name} (the memory, pids and cpuacct hierarchies)" if cls is GroupV1 else
                     f"{name}, under {_unified_parent()}")
    return None, "; ".join(reasons)


def Group(memory_mb, processes):
    """A group capping one sandbox, of the kind this machine allows (kind())."""
    cls, _ = _chosen()
    if cls is None:
        raise OSError(problem())
    return cls(memory_mb, processes)


def kind():
    """"cgroup v1, under ..." or "cgroup v2, under ...": which caps the grader uses, or None when it cannot."""
    cls, where = _chosen()
    return where if cls is not None else None


def problem():
    """None when this machine lets the grader cap a sandbox as a whole, else a sentence saying why not."""
    cls, why = _chosen()
    if cls is not None:
        return None
    if sys.platform != "linux":
        return why
    return (f"the grader cannot make control groups here ({why}); they need cgroup v1's memory, pids and cpuacct "
            f"hierarchies or cgroup v2's memory, pids and cpu controllers, writable by the grader (as root, or a "
            f"group delegated to it)")
