"""Run a submission's cells in a fresh kernel under limits, and say where and why it stopped.

The kernel is ipykernel in this Python, started through lesson_tools/grading/rlimits.py (address space, CPU time,
file size) inside the sandbox (lesson_tools/grading/sandbox.py, where the machine allows it and limits.sandbox is
set: its own process table, no network, nothing of the host but what a kernel needs) and its group
(lesson_tools/grading/caps.py: memory, processes and CPU time of the sandbox as a whole), in the submission's own
working folder, importing the
copy of lesson_lib given in `course`, with matplotlib's non-interactive backend and one BLAS thread.  nbclient
sends the cells one by one; the run stops at the first limit it meets:

    a cell past `cell_s`, or the notebook past `notebook_s`          -> TIMEOUT
    the kernel dies (memory, CPU time, os._exit), a MemoryError,
    or more than `output_mb` of output                                -> ERROR

Output counts what the cells send and what the kernel's processes write to their own stdout and stderr (file
descriptors 1 and 2, however reached), which go to a file of the submission's (capped by the file-size limit),
never to the grader's terminal.

With a group, the seconds are the sandbox's own (lesson_tools.grading.meter): a cell gets `cell_s` CPU seconds of
all its processes and `wall_factor` times as long idle (neither computing nor waiting for a CPU: asleep, waiting for
input); the notebook gets `notebook_s` CPU seconds, and `notebook_s` seconds computing and idle together, all its
cells, whatever they wait for (no submission holds a worker longer).  A busy machine makes none of these grow
faster, so a looping cell is a TIMEOUT for its CPU time and a sleeping one for its waiting, with the same message,
idle machine or busy.  The clock is only a backstop `wall_factor` times the notebook's limit behind: when it fires,
the run was kept waiting for a CPU (it had used less than its limits), so it is an ERROR that says the machine was
too busy, never a TIMEOUT, and the run says so (`busy`: the grader grades it again, alone).  Without a group the
seconds are the clock's, and a TIMEOUT in a run that waited for a CPU much of its time (Linux's schedstat) is
`busy` too.
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
from .meter import Meter, Used, waited_seconds

CHECK_GRACE_S = 5          # a check cell's time beyond the judge's limit, before it is interrupted
POLL_S = 0.1               # how often a cell's CPU time is read
KILL_AFTER_S = 5           # an interrupted cell still running this long (its own time) after: its sandbox is killed
TERMINAL = "terminal.log"  # in the submission's folder: what the kernel's processes write to fd 1 and 2
STARTUP_S = 600            # the clock's backstop for a kernel to start (a busy machine slows it; it never fails by it)
STARVED = 0.2              # a run that waited for a CPU longer than this share of its time was starved of it
SIGNALS = (signal.SIGINT, signal.SIGTERM)


def environment(course, work=None, inside=False):
    """The environment of a process that runs learner code, written by the grader (sandbox.environment): the
    kernel's (`inside` the sandbox: its paths there), or the judge's and an unsandboxed kernel's."""
    return sandbox.environment(course, work if work is not None else course, inside)


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
    busy: bool = False        # the machine, not the submission, ended the run: the clock's backstop fired while it
    #                           waited for a CPU (without a group: a limit on the clock, in a starved run)

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
            if self.box is not None:                  # the interpreter and the connection file as seen inside
                folder, course, work, disk_mb = self.box
                cmd = [sandbox.python_inside()] + [sandbox.seen_inside(a, folder) if a == self.connection_file
                                                   else a for a in cmd[1:]]
                cmd = sandbox.wrap(cmd, folder, course, work, disk_mb, environment(course, work, inside=True))
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


class _Time:
    """What the limits count.  With the sandbox's group: CPU seconds of all its processes, and seconds on the clock
    in which they neither computed nor waited for a CPU (idle; lesson_tools.grading.meter: a busy machine changes
    neither), per cell (`cell_s` of CPU, `wall_factor` times as long idle) and per notebook (`notebook_s` of each);
    the clock itself is only a backstop far behind (`backstop`), whose firing means the run waited for a CPU most of
    its time (the machine was too busy: not a verdict on the code).  Without a group: seconds on the clock."""

    def __init__(self, group, limits, judge=None):
        self.group, self.limits, self.judge = group, limits, judge
        self.factor = limits.wall_factor if group is not None else 1.0
        self.meter = None

    def start(self, process):
        """The kernel is ready: the run's time starts now."""
        if self.group is not None:
            judge = self.judge

            def cpu():                  # the judge's CPU time too: while it computes, the kernel's check cell waits
                return self.group.cpu_seconds() + (judge.cpu_seconds() if judge is not None else 0.0)

            def pids():
                return self.group.pids() + (judge.pids() if judge is not None else [])
            self.meter = Meter(cpu, pids)
            self.cpu_start = self.group.cpu_seconds()
        else:
            self.clock_start, self.process = time.monotonic(), process
            self.waited_start = waited_seconds(descendants(process.pid))
        return self.now()

    def now(self):
        """(CPU seconds of the group, Used) so far (the clock's seconds, twice, without a group)."""
        if self.meter is not None:
            used = self.meter.read()
            return self.group.cpu_seconds() - self.cpu_start, used
        wall = time.monotonic() - self.clock_start
        waited = waited_seconds(descendants(self.process.pid)) - self.waited_start
        return wall, Used(wall, waited, 0.0, wall)

    def over_cell(self, where, kind):
        if self.group is None:
            return f"{where} ran longer than {self.limits.cell_s:g} s (per-cell limit)"
        if kind == "cpu":
            return f"{where} used more than {self.limits.cell_s:g} s of CPU time (per-cell limit, all its processes)"
        return (f"{where} waited more than {self.limits.cell_s * self.factor:g} s without computing (the per-cell "
                f"limit on waiting, {self.factor:g} times its {self.limits.cell_s:g} s of CPU time: a sleep, or a wait "
                f"for something that never came; time spent waiting for a busy machine's CPU is not counted)")

    def over_notebook(self, where, kind, before=False):
        n = self.limits.notebook_s
        if self.group is None:
            reached = f"reached {n:g} s (whole-notebook limit)"
        elif kind == "cpu":
            reached = f"reached {n:g} s of CPU time (whole-notebook limit)"
        else:
            reached = (f"had waited {n:g} s without computing (the whole-notebook limit on waiting: all its cells, "
                       f"whatever they wait for; time spent waiting for a busy machine's CPU is not counted)")
        if before:
            return f"the notebook {reached} before {where}"
        return f"{where} was running when the notebook {reached}"

    def too_busy(self, where, used):
        return (f"not graded: the grader's machine was too busy. {where} was running when the notebook had been "
                f"{used.wall:.0f} s on the clock ({2 + self.factor:g} times its limit of {self.limits.notebook_s:g} "
                f"s), "
                f"{used.waited:.0f} s of it spent waiting for a CPU; this says nothing about the code. Grade it "
                f"again when the machine is quieter")

    def reason(self, where, kind, before=False):
        """The stop's (verdict, reason) for the limit `kind` ("cell cpu", "cell idle", "notebook cpu", "notebook idle",
        "busy"; "notebook" without a group) met in `where`."""
        scope, _, what = kind.partition(" ")
        if kind == "busy":
            return "ERROR", self.too_busy(where, self.now()[1])
        if scope == "cell":
            return "TIMEOUT", self.over_cell(where, what)
        return "TIMEOUT", self.over_notebook(where, what, before)

    def limit_met(self, cell, start, cell_cpu_s):
        """Which limit the run has met (see `reason`), or None;
        `cell` and `start`: now() when the cell and the run began."""
        cpu, used = self.now()
        n = self.limits.notebook_s
        if self.group is None:                                   # the clock's seconds
            if cpu - start[0] >= n:
                return "notebook"
            return "cell cpu" if cell is not None and cpu - cell[0] >= cell_cpu_s else None
        if cell is not None and cpu - cell[0] >= cell_cpu_s:
            return "cell cpu"
        if cell is not None and used.idle - cell[1].idle >= cell_cpu_s * self.factor:
            return "cell idle"
        if cpu - start[0] >= n:
            return "notebook cpu"
        if used.idle - start[1].idle >= n:
            return "notebook idle"
        if used.wall - start[1].wall >= self.backstop():
            return "busy"
        return None

    def backstop(self):
        """The clock's seconds for a whole notebook: its CPU time and its waiting are each limited to `notebook_s`,
        so past (2 + wall_factor) times that the run waited for a CPU at least wall_factor times its limit."""
        return self.limits.notebook_s * (2 + self.factor)

    def clock_left(self, start):
        """Seconds on the clock until the backstop (nbclient's own timeout, behind the watcher)."""
        used = self.now()[1]
        return max(1.0, self.backstop() - (used.wall - start[1].wall))


async def _watch(km, clock, cell, start, cell_cpu_s, group, over):
    """Interrupt the kernel once the run meets a limit (clock.limit_met); kill the sandbox (its group, or the
    kernel) if that does not stop the cell within KILL_AFTER_S of its own time (computing or idle, not waiting for
    a CPU: a busy machine delays the interrupt as it delays the code)."""
    while True:
        kind = clock.limit_met(cell, start, cell_cpu_s)
        if kind is not None:
            break
        await asyncio.sleep(POLL_S)
    over.append(kind)
    await km.interrupt_kernel()
    interrupted = clock.now()[1]
    while kind != "busy" and clock.now()[1].held() - interrupted.held() < KILL_AFTER_S:   # a starved run: at once
        await asyncio.sleep(POLL_S)
    if group is not None:
        group.kill()
    else:
        try:
            os.killpg(km.provisioner.process.pid, signal.SIGKILL)
        except (AttributeError, ProcessLookupError, PermissionError):
            pass


async def _run(steps, workdir, course, limits, run, judge, group, signals):
    import nbformat
    from nbclient.exceptions import CellTimeoutError, DeadKernelError
    Manager, Client = _client_classes()
    folder = workdir.parent
    (folder / sandbox.IPC).mkdir(exist_ok=True)
    boxed = limits.sandbox and sandbox.problem() is None
    km = Manager(kernel_name="python3", transport="ipc", ip=sandbox.seen_inside(folder / sandbox.IPC / "kernel", folder)
                 if boxed else str(folder / sandbox.IPC / "kernel"))
    km.connection_file = str(folder / "kernel.json")
    km.limit_args = (limits.memory_mb, limits.notebook_s + 60, limits.file_mb, group.procs if group else ())
    if boxed:
        km.box = (folder, course, workdir, limits.disk_mb)
        # interrupts as a message the kernel turns into SIGINT to itself: a signal to the process group would
        # reach bubblewrap first and end the sandbox
        km.kernel_spec.interrupt_mode = "message"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s.source) for s in steps])
    client = Client(nb, km=km, timeout=int(limits.cell_s), allow_errors=True, interrupt_on_timeout=False,
                    shutdown_kernel="immediate", record_timing=False, startup_timeout=STARTUP_S)
    client.cap = int(limits.output_mb * 2**20)
    run.executed = nb
    clock, process, begun = _Time(group, limits, judge), None, None
    terminal = open(workdir.parent / TERMINAL, "wb")                   # the kernel's fd 1 and 2
    loop = asyncio.get_running_loop()
    _take_signals(signals)
    try:
        async with client.async_setup_kernel(env=environment(course, workdir), cwd=str(workdir), stdout=terminal,
                                             stderr=terminal):
            process = km.provisioner.process
            begun = clock.start(process)                                # the kernel is ready
            for i, (step, cell) in enumerate(zip(steps, nb.cells, strict=True)):
                kind = clock.limit_met(None, begun, 0)
                if kind is not None:
                    run.stop = clock.reason(_where(step), kind, before=True)
                    run.busy = kind == "busy"
                    break
                checking = step.kind == "check" and judge is not None
                # a check cell runs the learner's function for the judge, whose own limit (cell_s) ends the check
                # first: the cell gets a few seconds more, then is interrupted and the notebook goes on
                cell_cpu_s = limits.cell_s + (CHECK_GRACE_S if checking else 0)
                client.timeout = max(1, math.ceil(clock.clock_left(begun) + 2 * KILL_AFTER_S))    # the backstop's
                over = []
                watcher = asyncio.ensure_future(_watch(km, clock, clock.now(), begun, cell_cpu_s, group, over))
                if checking:
                    judge.begin(step.check, step.name)
                try:
                    await client.async_execute_cell(cell, i)
                except (CellTimeoutError, DeadKernelError) as exc:
                    kind = over[0] if over else "busy" if isinstance(exc, CellTimeoutError) else None
                    run.stop = clock.reason(_where(step), kind) if kind else ("ERROR", _died(step, limits, group))
                    run.busy = kind == "busy"
                    break
                finally:
                    watcher.cancel()
                if over and not (checking and over[0].startswith("cell ")):
                    run.stop = clock.reason(_where(step), over[0])
                    run.busy = over[0] == "busy"
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
        if begun is not None:
            used = clock.now()[1]
            run.wall, run.waited = used.wall, used.waited
            if group is None and run.stop is not None and run.stop[0] == "TIMEOUT" and run.starved():
                run.busy = True                       # the clock's seconds: a busy machine's, not the code's
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
    if STOPPING:                                  # the grader is stopping (request_stop): no kernel is started
        raise KeyboardInterrupt
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


STOPPING = []      # the signals request_stop has recorded in this process


def request_stop(sig, frame=None):
    """A signal handler that only records the request to stop (a grading worker's SIGTERM, lesson_tools.grading.
    grader): a kernel running then ends through its clean-ups (run, _take_signals), and no other is started.  It
    raises nothing, so it cannot land inside a finaliser."""
    STOPPING.append(sig)


def worker_start():
    """The initializer of each local grading worker (lesson_tools.grading.grader.run_local, which starts them with
    both signals blocked): Ctrl-C is the grader's to handle (the terminal sends it to every process of its group);
    SIGTERM, which the grader sends on Ctrl-C, is only recorded (request_stop).  No handler raises, so none can land
    inside a finaliser (a socket's __del__) and print a traceback.  (Here, not in grader: a worker imports this
    module's few dependencies, not the grader's.)"""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, request_stop)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)     # blocked from birth: what came, comes now


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
    if STOPPING and saved:                           # recorded just before the loop's own handlers were in place
        cancel(STOPPING[0])
