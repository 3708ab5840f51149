"""Where a submission's time on the clock went: computing, waiting for a CPU, or neither (asleep, waiting for input).

    meter = Meter(group.cpu_seconds, group.pids)
    used = meter.read()        # Used(cpu, waited, idle, wall), seconds since the meter was made

A busy machine makes a submission wait for a CPU: `waited` grows, and so does the time on the clock, but neither
`cpu` (what its processes computed) nor `idle` (what they spent neither computing nor waiting for a CPU: a sleep, a
socket that never answers) does.  So limits on `cpu` and `idle` end a submission for the same reason, with the
same message, on an idle machine and on a busy one (lesson_tools.grading.kernel, and the judge's own budget in
lesson_tools.grading.clean); the clock alone is only a backstop far behind them, and when it fires the run's
`waited` says whether the machine, not the submission, held it.

`waited` is Linux's per-thread run-queue delay (the second field of /proc/PID/task/TID/schedstat), summed over the
threads of the processes measured, each read as it grows (a thread that ended between two readings keeps what was
read of it).  Between two readings dt apart, `idle` grows by dt less the CPU time and the run-queue wait of that
interval (never below 0), unless a thread is runnable at the reading (Linux adds a wait to the delay only once
the thread runs, so a thread starved for long shows none yet): a process that computes on one thread, or waits
for a CPU, adds nothing; one that sleeps adds all of dt; several threads computing add nothing either.
"""
import os
import threading
import time
from typing import NamedTuple


class Used(NamedTuple):
    """Seconds since the meter was made: `cpu` computed (all processes), `waited` runnable but waiting for a CPU
    (summed over threads), `idle` on the clock while neither, `wall` on the clock."""
    cpu: float
    waited: float
    idle: float
    wall: float

    def held(self):
        """The seconds the submission itself held: computing or idle, not waiting for a busy machine's CPU."""
        return self.cpu + self.idle


def _schedstat(pid, states=None):
    """{tid: run-queue delay in ns} of a process's threads (empty when it has ended or the system does not say);
    adds to `states` each thread's state now ("R": running or runnable)."""
    found = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                found[(pid, tid)] = int(f.read().split()[1])
            if states is not None and (pid, int(tid)) != (os.getpid(), threading.get_native_id()):   # not the
                with open(f"/proc/{pid}/task/{tid}/stat") as f:                                   # reader's own
                    states.append(f.read().rsplit(")", 1)[1].split()[0])
        except (OSError, IndexError, ValueError):
            continue
    return found


def waited_seconds(pids):
    """Seconds the threads of the processes `pids` spent runnable but waiting on a run queue, summed (now: threads
    that ended are not counted); 0 where the system does not say."""
    return sum(v for pid in pids for v in _schedstat(pid).values()) / 1e9


class Meter:
    """Reads `cpu()` (CPU seconds of everything measured, a counter that only grows) and the run-queue delays of the
    threads of `pids()` (the processes measured now); see the module's docstring."""

    def __init__(self, cpu, pids):
        self.cpu, self.pids = cpu, pids
        self.delays = {}
        for pid in pids():
            self.delays.update(_schedstat(pid))            # what they waited before is not this meter's
        self.start = self.last = time.monotonic()
        self.cpu_start = self.cpu_last = cpu()
        self.waited = self.idle = 0.0

    def read(self):
        """Used since the meter was made (each reading adds the interval since the one before)."""
        now, cpu = time.monotonic(), self.cpu()
        waited, states = 0, []
        for pid in self.pids():
            for tid, delay in _schedstat(pid, states).items():
                waited += max(0, delay - self.delays.get(tid, 0))      # a thread born since: all of its delay
                self.delays[tid] = max(delay, self.delays.get(tid, 0))
        waited /= 1e9
        dt, computed = now - self.last, max(0.0, cpu - self.cpu_last)
        if "R" not in states:         # a thread runnable now is computing or waiting for a CPU, whose delay Linux
            self.idle += max(0.0, dt - computed - waited)    # adds only once it runs: a starved one is not idle
        self.waited += waited
        self.last, self.cpu_last = now, max(cpu, self.cpu_last)
        return Used(self.cpu_last - self.cpu_start, self.waited, self.idle, now - self.start)
