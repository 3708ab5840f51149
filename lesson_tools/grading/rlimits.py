"""OS limits for the processes that run learner code (the kernel, and the judge that runs the checks).

    python -S -E rlimits.py --memory-mb 4096 --cpu-seconds 660 --file-mb 100 [--join FILE ...] -- COMMAND ...

sets RLIMIT_AS (address space), RLIMIT_CPU (CPU seconds) and RLIMIT_FSIZE (largest file it may write) on
itself, joins the control groups whose `cgroup.procs` files are given (lesson_tools.grading.caps), then replaces
itself with COMMAND, which inherits all of it, as do its children.  Run as a script (not with
-m) so that it starts in a few milliseconds without importing lesson_lib; `wrap(cmd, limits)` builds that
command line.  An exec wrapper instead of Popen's preexec_fn, because grading also runs in threads (Dask
workers), where preexec_fn is unsafe.
"""
import os
import sys
from dataclasses import dataclass

MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Per submission: `cell_s` seconds per cell (and per check), `notebook_s` seconds for the whole notebook,
    `memory_mb` address space of the kernel and of the judge, `output_mb` outputs kept from the kernel, `file_mb`
    largest file a learner cell may write, `sandbox` whether the kernel runs in lesson_tools.grading.sandbox where
    the machine allows it, `disk_mb` the size of its working folder there.

    In the sandbox with its caps (lesson_tools.grading.caps), the seconds are CPU seconds of all the
    submission's processes (a busy machine slows a cell, it does not make it use more), and a cell may also wait
    without computing `wall_factor` times as long (lesson_tools.grading.meter; the notebook: `notebook_s` of each);
    the clock is only a backstop far behind (lesson_tools.grading.kernel); the sandbox as a whole has `memory_mb` of
    memory and at most `processes` processes and threads.  Without the caps, the seconds are wall-clock seconds."""
    cell_s: float = 60.0
    notebook_s: float = 600.0
    memory_mb: int = 4096
    output_mb: float = 10.0
    file_mb: int = 100
    sandbox: bool = True
    disk_mb: int = 512
    processes: int = 256
    wall_factor: float = 3.0
    salt: int = None         # what the judge draws the checks' inputs with (lesson_tools.grading.clean); one per run


def wrap(cmd, memory_mb, cpu_s, file_mb, join=()):
    """The command line that runs `cmd` under the three limits, in the control groups of the files in `join`."""
    return [sys.executable, "-S", "-E", os.path.abspath(__file__), "--memory-mb", str(int(memory_mb)),
            "--cpu-seconds", str(int(cpu_s)), "--file-mb", str(int(file_mb)),
            *[arg for procs in join for arg in ("--join", str(procs))], "--", *cmd]


def _apply(memory_mb, cpu_s, file_mb):
    import resource
    for limit, value in ((resource.RLIMIT_AS, memory_mb * MB), (resource.RLIMIT_CPU, cpu_s),
                         (resource.RLIMIT_FSIZE, file_mb * MB)):
        soft, hard = resource.getrlimit(limit)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        # the soft CPU limit sends SIGXCPU (the process ends); the hard one, a little later, SIGKILL
        resource.setrlimit(limit, (value, value + 5 if limit == resource.RLIMIT_CPU and
                                   hard == resource.RLIM_INFINITY else value))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))        # no core files when a limit ends the process


def main(argv):
    split = argv.index("--")
    opts, cmd = argv[:split], argv[split + 1:]
    pairs = list(zip(opts[0::2], opts[1::2], strict=True))
    values = dict(pairs)
    for key, procs in pairs:
        if key == "--join":
            with open(procs, "w") as f:               # this process, and so COMMAND and its children, in the group
                f.write(str(os.getpid()))
    _apply(int(values["--memory-mb"]), int(values["--cpu-seconds"]), int(values["--file-mb"]))
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main(sys.argv[1:])
