"""Run a submission's cells in a fresh kernel under limits, and say where and why it stopped.

The kernel is ipykernel in this Python, started through lesson_tools/grading/rlimits.py (address space, CPU time,
file size) inside the sandbox (lesson_tools/grading/sandbox.py, where the machine allows it and limits.sandbox is
set: its own process table, no network, people's files hidden) and its group (lesson_tools/grading/caps.py:
memory, processes and CPU time of the sandbox as a whole), in the submission's own working folder, importing the
copy of lesson_lib given in `course`, with matplotlib's non-interactive backend and one BLAS thread.  nbclient
sends the cells one by one; the run stops at the first limit it meets:

    a cell past `cell_s`, or the notebook past `notebook_s`          -> TIMEOUT
    the kernel dies (memory, CPU time, os._exit), a MemoryError,
    or more than `output_mb` of output                                -> ERROR

Output counts what the cells send and what the kernel's processes write to their own stdout and stderr (file
descriptors 1 and 2, however reached), which go to a file of the submission's (capped by the file-size limit),
never to the grader's terminal.

With a group, the seconds are the CPU seconds of everything in the sandbox (a loaded machine slows a cell without
making it use more), with a wall-clock backstop `wall_factor` times as long for one cell; without one, wall-clock
seconds.  Either way the notebook as a whole gets `notebook_s` seconds on the clock, all its cells together: no
submission holds a worker longer, whatever it waits for.  The run also says how long its processes were runnable
but waited for a CPU (Linux's schedstat): a submission starved by a busy machine waited much of its time, one that
slept did not (the grader gives only the first a second try).
Errors raised by cells do not stop the run (a later exercise can still be graded); they are recorded.
"""
import asyncio
import functools
import json
import math
import os
import signal
import sys
import time
from dataclasses import dataclass, field

from . import rlimits as _limits
from . import sandbox
from .caps import descendants
from .clean import one_line

CHECK_GRACE_S = 5          # a check cell's time beyond the judge's limit, before it is interrupted
POLL_S = 0.1               # how often a cell's CPU time is read
KILL_AFTER_S = 5           # an interrupted cell still running this long after its CPU limit: its sandbox is killed
TERMINAL = "terminal.log"  # in the submission's folder: what the kernel's processes write to fd 1 and 2
THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")
STARVED = 0.2              # a run that waited for a CPU longer than this share of its time was starved of it
SIGNALS = (signal.SIGINT, signal.SIGTERM)


def waited_seconds(pids):
    """Seconds the threads of the processes `pids` spent runnable but waiting on a run queue (the second field of
    Linux's /proc/PID/task/TID/schedstat), summed; 0 where the system does not say."""
    total = 0
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    total += int(f.read().split()[1])
            except (OSError, IndexError, ValueError):
                continue
    return total / 1e9


def environment(course):
    """Environment for processes that run learner code: lesson_lib from `course`, no GUI, one BLAS thread, no file
    of predictions (lesson_course.reveal.history_file)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JPY_", "JUPYTER_", "PYTHON"))}
    env.update({k: "1" for k in THREADS}, MPLBACKEND="Agg", PYTHONPATH=str(course), PYTHONDONTWRITEBYTECODE="1",
               PYTHONHASHSEED="0", LESSON_PREDICTIONS="")
    return env


@dataclass
class KernelRun:
    """`errors`: {step index: "Type: message"} for cells that raised; `completed`: how many steps ran to
    their end; `stop`: (verdict, reason) when a limit ended the run, else None; `verdicts`: the judge's verdict
    on every check cell that ran to its end."""
    errors: dict = field(default_factory=dict)
    completed: int = 0
    stop: tuple = None
    verdicts: dict = field(default_factory=dict)      # check index -> {"status", "line"} from the judge
    wall: float = 0.0         # seconds on the clock from the kernel's start to the end of the run
    waited: float = 0.0       # of those, seconds its processes' threads were runnable but waited for a CPU (summed)
    executed: object = None   # the notebook as the kernel ran it (the steps, with their outputs)

    def starved(self):
        """True when the run waited for a CPU for more than STARVED of its time on the clock: a busy machine, not
        the submission, used its time."""
        return self.waited > STARVED * self.wall


def _error_text(outputs):
    for out in outputs:
        if out.get("output_type") == "error":
            return one_line(out.get("ename", "Error"), out.get("evalue", ""))
    return None


def _client_classes():
    from jupyter_client.manager import AsyncKernelManager
    from nbclient import NotebookClient

    class LimitedKernelManager(AsyncKernelManager):
        """The kernel command, in the sandbox when `box` is set (sandbox.wrap's arguments after cmd), wrapped by
        rlimits.py (limit_args: the three limits and the control groups to join); both set by _run."""
        limit_args, box = None, None

        def format_kernel_cmd(self, extra_arguments=None):
            cmd = super().format_kernel_cmd(extra_arguments)
            if self.box is not None:
                cmd = sandbox.wrap(cmd, *self.box)
            return _limits.wrap(cmd, *self.limit_args)

        async def _async_post_start_kernel(self, **kw):
            """In the sandbox the kernel's sockets are in a folder of its own (a tmpfs the host cannot see by its
            path): connect to them through /proc/PID/root of the sandbox's first process."""
            if self.box is not None:
                first = await asyncio.get_running_loop().run_in_executor(None, sandbox.inside,
                                                                         self.provisioner.process.pid)
                if first is None:
                    raise RuntimeError("the sandbox did not start its first process")
                self.ip = sandbox.outside(first, self.ip)
            await super()._async_post_start_kernel(**kw)

    class CappedClient(NotebookClient):
        """nbclient keeping at most `cap` bytes of output (set by _run from the Limits); past it, the running cell
        is interrupted."""
        cap, kept, over = None, 0, False

        def output(self, outs, msg, display_id, cell_index):
            self.kept += len(json.dumps(msg.get("content", {})))
            if self.kept > self.cap:
                if not self.over:
                    self.over = True
                    asyncio.ensure_future(self.km.interrupt_kernel())
                return None
            return super().output(outs, msg, display_id, cell_index)

    return LimitedKernelManager, CappedClient


def _where(step):
    return f"code cell {step.number}" if step.number else "the check put back"


class _Meter:
    """What the limits count: the CPU seconds of the sandbox's group (`wall_factor` times as long allowed on the
    clock), or, without a group, the clock's seconds."""

    def __init__(self, group, limits):
        self.group, self.limits = group, limits
        self.factor = limits.wall_factor if group is not None else 1.0

    def now(self):
        return self.group.cpu_seconds() if self.group is not None else time.monotonic()

    def waited(self, process):
        """Seconds the submission's processes have waited for a CPU so far (the group's, or the kernel's tree)."""
        if process is None:
            return 0.0
        return waited_seconds(self.group.pids() if self.group is not None else descendants(process.pid))

    def over_cell(self, where):
        if self.group is None:
            return f"{where} ran longer than {self.limits.cell_s:g} s (per-cell limit)"
        return f"{where} used more than {self.limits.cell_s:g} s of CPU time (per-cell limit, all its processes)"

    def over_notebook(self, where, before=False):
        unit = " of CPU time" if self.group is not None else ""
        if before:
            return (f"the notebook ran longer than {self.limits.notebook_s:g} s{unit} (whole-notebook limit) "
                    f"before {where}")
        return (f"{where} was running when the notebook reached {self.limits.notebook_s:g} s{unit} "
                f"(whole-notebook limit)")

    def over(self, where, by_cell):
        """The per-cell limit's line when `by_cell`, else the whole notebook's."""
        return self.over_cell(where) if by_cell else self.over_notebook(where)

    def over_clock(self, where, by_cell):
        if self.group is None:
            return self.over(where, by_cell)
        if not by_cell:
            return (f"{where} was running when the notebook reached {self.limits.notebook_s:g} s on the clock (the "
                    f"whole-notebook limit: all its cells together, whatever they wait for)")
        return (f"{where} ran longer than {self.limits.cell_s * self.factor:g} s on the clock (the wall-clock "
                f"backstop of the per-cell limit of {self.limits.cell_s:g} s of CPU time; the code waited rather than "
                f"computed)")


async def _watch(km, group, until, over):
    """Interrupt the kernel once the group has used `until` CPU seconds; kill the sandbox if that does not stop
    the cell."""
    while group.cpu_seconds() < until:
        await asyncio.sleep(POLL_S)
    over.append(True)
    await km.interrupt_kernel()
    await asyncio.sleep(KILL_AFTER_S)
    group.kill()


async def _run(steps, workdir, course, limits, run, judge, group, signals):
    import nbformat
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    Manager, Client = _client_classes()
    (workdir.parent / sandbox.IPC).mkdir(exist_ok=True)
    km = Manager(kernel_name="python3", transport="ipc", ip=str(workdir.parent / sandbox.IPC / "kernel"))
    km.connection_file = str(workdir.parent / "kernel.json")
    km.limit_args = (limits.memory_mb, limits.notebook_s + 60, limits.file_mb, group.procs if group else ())
    if limits.sandbox and sandbox.problem() is None:
        km.box = (workdir.parent, course, workdir, limits.disk_mb)
        # interrupts as a message the kernel turns into SIGINT to itself: a signal to the process group would
        # reach bubblewrap first and end the sandbox
        km.kernel_spec.interrupt_mode = "message"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s.source) for s in steps])
    client = Client(nb, km=km, timeout=int(limits.cell_s), allow_errors=True, interrupt_on_timeout=False,
                    shutdown_kernel="immediate", record_timing=False)
    client.cap = int(limits.output_mb * 2**20)
    run.executed = nb
    meter, process, clock_start = _Meter(group, limits), None, None
    terminal = open(workdir.parent / TERMINAL, "wb")                   # the kernel's fd 1 and 2
    loop = asyncio.get_running_loop()
    _take_signals(signals)
    try:
        async with client.async_setup_kernel(env=environment(course), cwd=str(workdir), stdout=terminal,
                                             stderr=terminal):
            process = km.provisioner.process
            start, clock_start = meter.now(), time.monotonic()           # the kernel is ready
            clock_end, waited_before = clock_start + limits.notebook_s, meter.waited(process)
            for i, (step, cell) in enumerate(zip(steps, nb.cells, strict=True)):
                left, clock_left = limits.notebook_s - (meter.now() - start), clock_end - time.monotonic()
                if left <= 0 or clock_left <= 0:
                    run.stop = ("TIMEOUT", meter.over_notebook(_where(step), before=True) if left <= 0 else
                                meter.over_clock(_where(step), by_cell=False))
                    break
                checking = step.kind == "check" and judge is not None
                # a check cell runs the learner's function for the judge, whose own limit (cell_s) ends the check
                # first: the cell gets a few seconds more, then is interrupted and the notebook goes on
                cell_limit = limits.cell_s + (CHECK_GRACE_S if checking else 0)
                cpu_by_cell = cell_limit <= left                      # the cell's CPU limit, not the notebook's
                by_cell = cpu_by_cell and cell_limit * meter.factor <= clock_left     # ... and its clock's
                client.timeout = max(1, math.ceil(min(cell_limit * meter.factor, clock_left)))
                client.interrupt_on_timeout = checking and by_cell
                client.error_on_timeout = {"ename": "CheckCellTimeout", "evalue": "interrupted after the judge's "
                                           "limit"} if client.interrupt_on_timeout else None
                over, watcher = [], None
                if group is not None:
                    watcher = asyncio.ensure_future(_watch(km, group, meter.now() + min(cell_limit, left), over))
                if checking:
                    judge.begin(step.check, step.name)
                try:
                    await client.async_execute_cell(cell, i)
                except CellTimeoutError:
                    run.stop = ("TIMEOUT", meter.over_clock(_where(step), by_cell))
                    break
                except DeadKernelError:
                    run.stop = (("TIMEOUT", meter.over(_where(step), cpu_by_cell)) if over else
                                ("ERROR", _died(step, limits, group)))
                    break
                finally:
                    if watcher is not None:
                        watcher.cancel()
                if over and not (checking and cpu_by_cell):
                    run.stop = ("TIMEOUT", meter.over(_where(step), cpu_by_cell))
                    break
                error = _error_text(cell.outputs)
                if error:
                    run.errors[i] = error
                if checking:
                    run.verdicts[step.check] = judge.finish(step.check)
                if client.over or client.kept + os.fstat(terminal.fileno()).st_size > client.cap:
                    run.stop = ("ERROR", f"{_where(step)} printed more than {limits.output_mb:g} MB of output"
                                         + ("" if client.over else " (to its processes' stdout or stderr)"))
                    break
                if error and error.startswith("MemoryError"):
                    run.stop = ("ERROR", f"{_where(step)} went over the memory limit of {limits.memory_mb} MB")
                    break
                run.completed = i + 1
    except (RuntimeError, TimeoutError, OSError) as exc:
        run.stop = run.stop or ("ERROR", f"the kernel could not run the notebook ({type(exc).__name__}: {exc})")
    finally:
        del loop.add_signal_handler, loop.remove_signal_handler           # the loop's own again (_take_signals)
        provisioner = getattr(km, "provisioner", None)
        process = process or (provisioner.process if provisioner is not None else None)   # cancelled while starting
        if clock_start is not None:
            run.wall, run.waited = time.monotonic() - clock_start, meter.waited(process) - waited_before
        if process is not None:
            try:
                os.killpg(process.pid, signal.SIGKILL)      # the kernel's group: anything its code left running
            except (ProcessLookupError, PermissionError):
                pass
            process.wait()                                   # reaped here: no zombie, and its CPU time counted
        terminal.close()
    return run


def _died(step, limits, group):
    if group is not None and group.oom_kills():
        return (f"the kernel was ended in {_where(step)}: the sandbox went over its memory of {limits.memory_mb} MB "
                f"(all its processes together)")
    return (f"the kernel died in {_where(step)} (over the memory limit of {limits.memory_mb} MB, out of CPU time, "
            f"or ended by the code)")


def run(steps, workdir, course, limits, judge=None, group=None):
    """Run the steps (lesson_tools.grading.plan) in a limited kernel with cwd `workdir`; return a KernelRun.
    Around every check cell, `judge` (lesson_tools.grading.judge.Judge) is told it begins and asked its verdict
    when it has ended.  With `group` (lesson_tools.grading.caps.Group) the kernel runs in it and the limits count
    its CPU time."""
    result = KernelRun()
    if sys.platform == "win32":                             # pragma: no cover
        raise RuntimeError("grading needs POSIX resource limits (Linux or macOS)")
    import threading
    main = threading.current_thread() is threading.main_thread()    # a Dask worker's thread has no signals
    saved = {sig: signal.getsignal(sig) for sig in SIGNALS} if main else {}
    received = []
    try:
        asyncio.run(_run(steps, workdir, course, limits, result, judge, group, (saved, received)))
    except asyncio.CancelledError:
        if received:                  # the grader's Ctrl-C or SIGTERM, after the kernel's clean-up: theirs to handle
            handler = saved[received[0]]
            if callable(handler):
                handler(received[0], None)
            raise KeyboardInterrupt from None
        raise
    finally:
        for sig, handler in saved.items():      # nbclient leaves the defaults behind: the caller's come back
            if handler is not None:
                signal.signal(sig, handler)
    return result


def _take_signals(signals):
    """nbclient would catch SIGINT and SIGTERM while the kernel runs, only to shut the kernel down, and run on (or
    fail, when one comes while the kernel starts): here a signal the caller handles (Ctrl-C, a worker's SIGTERM)
    cancels the run instead, whose clean-ups end the kernel, and is then passed to the caller's handler (`run`);
    a signal the caller ignores stays ignored.  nbclient's own handlers are not installed (`_run` gives the loop
    its own methods back at the end)."""
    saved, received = signals
    loop, task = asyncio.get_running_loop(), asyncio.current_task()

    def cancel(sig):
        received.append(sig)
        task.cancel()
    for sig, handler in saved.items():
        try:
            loop.add_signal_handler(sig, (lambda: None) if handler == signal.SIG_IGN
                                    else functools.partial(cancel, sig))
        except (RuntimeError, ValueError):           # not the main thread (a Dask worker's): signals are not ours
            pass
    loop.add_signal_handler = loop.remove_signal_handler = lambda *args, **kwargs: None
