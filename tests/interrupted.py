"""Ctrl-C at random moments while local workers grade: `python tests/interrupted.py RUNS SEED`.

Each run grades a list of slow fake submissions on two workers (lesson_tools.grading.grader.run_local) whose work
spends most of its time where a handler that raises would do harm: in finalisers (a zmq socket's __del__, and a slow
one of its own).  A thread sends SIGINT to the whole process group, as a terminal does, at a random moment (while
the workers start, while they work, between two results).  The run must end with KeyboardInterrupt raised by the
grading loop itself, and no worker left; what the workers and the loop print goes to this process's stderr, which
the test reads for tracebacks.  Prints one line per run, then "runs: N".
"""
import multiprocessing
import os
import random
import signal
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TASK_S = 0.15            # each fake submission's time: an interrupt costs the workers at most this to wind down


class SlowFinaliser:
    def __del__(self):
        time.sleep(0.01)                              # a signal's handler runs here, if it runs at all


def fake_task(task):
    """A fake submission's grading: sockets and objects made and dropped, so that most of the time is spent in
    their finalisers."""
    import zmq
    context = zmq.Context.instance()
    end = time.monotonic() + TASK_S
    while time.monotonic() < end:
        context.socket(zmq.PUSH)                      # dropped at once: Socket.__del__ closes it
        SlowFinaliser()
    return task


def one_run(rng):
    # imported here: the workers import this file, and need none of the grader's modules
    from lesson_tools.grading import grader
    delay = rng.uniform(0.0, 0.6)
    timer = threading.Timer(delay, os.killpg, (os.getpgid(0), signal.SIGINT))
    timer.start()
    graded, stopped = 0, False
    try:
        for _task, result in grader.run_local(list(range(200)), 2, work=fake_task):
            assert not isinstance(result, BaseException), result
            graded += 1
    except KeyboardInterrupt:
        stopped = True
    timer.join()
    left = multiprocessing.active_children()
    print(f"interrupted after {delay:.2f} s: {graded} graded, stopped {stopped}, workers left {len(left)}",
          flush=True)
    return stopped and not left


def main():
    runs, seed = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    clean = sum(one_run(rng) for _ in range(runs))
    print(f"runs: {runs}, clean: {clean}", flush=True)


if __name__ == "__main__":
    main()
