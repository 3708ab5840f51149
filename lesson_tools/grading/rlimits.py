"""OS limits for the processes that run learner code (the kernel, and the judge that runs the checks).

    python -S -E rlimits.py --memory-mb 4096 --cpu-seconds 660 --file-mb 100 -- COMMAND ...

sets RLIMIT_AS (address space), RLIMIT_CPU (CPU seconds) and RLIMIT_FSIZE (largest file it may write) on
itself, then replaces itself with COMMAND, which inherits them, as do its children.  Run as a script (not with
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
    """Per submission: `cell_s` wall seconds per cell (and per check), `notebook_s` wall seconds for the whole
    notebook, `memory_mb` address space of the kernel and of the judge, `output_mb` outputs kept
    from the kernel, `file_mb` largest file a learner cell may write, `sandbox` whether the kernel runs in
    lesson_tools.grading.sandbox where the machine allows it, `disk_mb` the size of its working folder there."""
    cell_s: float = 60.0
    notebook_s: float = 600.0
    memory_mb: int = 4096
    output_mb: float = 10.0
    file_mb: int = 100
    sandbox: bool = True
    disk_mb: int = 512


def wrap(cmd, memory_mb, cpu_s, file_mb):
    """The command line that runs `cmd` under the three limits."""
    return [sys.executable, "-S", "-E", os.path.abspath(__file__), "--memory-mb", str(int(memory_mb)),
            "--cpu-seconds", str(int(cpu_s)), "--file-mb", str(int(file_mb)), "--", *cmd]


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
    values = dict(zip(opts[0::2], opts[1::2]))
    _apply(int(values["--memory-mb"]), int(values["--cpu-seconds"]), int(values["--file-mb"]))
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main(sys.argv[1:])
