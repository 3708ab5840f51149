"""The judge: the course's checks, run away from the learner's kernel, on the answers' results as plain data.

Started by lesson_tools.grading.verified (so every lesson_lib module here was compiled from hash-checked files),
with {"token", "address", "cell_s", "cpu_file", "pids_file", "wall_factor"} on the first line of stdin (cpu_file,
pids_file: the CPU time and the processes of the kernel's sandbox, lesson_tools.grading.caps; None when it has
none).  It listens on the Unix socket
`address`, says {"token", "event": "ready"} on stdout, then reads one request per line from stdin:

    {"check": index, "name": "kinetic_energy"}   a check cell is running in the kernel: judge its answer
    {"ended": index}                              that cell has ended (if no answer came, there is nothing to judge)

and, for every check request, writes one verdict line {"token", "index", "status", "line", "handed"} with status
pass, fail, not attempted, error or timeout, and `handed` the library's own implementations of the exercise
(its check's computed_by) that the kernel saw the answer call while it was checked (wire.watching).

The answer is judged through lesson_tools.grading.wire: the kernel connects, says what the answer is, and
calls the learner's function on the arguments the check sends; its results come back as plain data, rebuilt from
the trusted library.  Nothing a submission wrote is executed, unpickled or called in this process, and the
truths the checks compare with never leave it, nor does the salt the checks draw their inputs with.
"""
import json
import os
import selectors
import socket
import time


def one_line(kind, text):
    """'Kind: text' on one line, the text cut at 300 characters ('Kind' alone when there is no text)."""
    text = " ".join(str(text).split())[:300]
    return f"{kind}: {text}" if text else kind


def messages(buffer):
    """(the JSON objects on the complete lines of `buffer`, the bytes after its last newline): how both sides of
    the judge's pipes read each other."""
    *lines, rest = buffer.split(b"\n")
    found = []
    for line in lines:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            found.append(message)
    return found, rest


class Requests:
    """The JSON lines the grader sends on a file descriptor, read without blocking past what `select` saw."""

    def __init__(self, fd):
        self.fd, self.buffer, self.closed = fd, b"", False

    def take(self):
        """Every complete line that has arrived (reads once; the caller selects on `fd` first)."""
        chunk = os.read(self.fd, 65536)
        if not chunk:
            self.closed = True
        found, self.buffer = messages(self.buffer + chunk)
        return found


def _answer(listener, requests, pending, token, index):
    """(channel, hello) from the kernel's connection for check `index`, or None when the grader says the cell
    ended first.  Connections without the token (another process) are refused."""
    from lesson_tools.grading.wire import Channel, WireError
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ, "kernel")
    sel.register(requests.fd, selectors.EVENT_READ, "grader")
    try:
        while True:
            if any(m.get("ended") == index for m in pending) or requests.closed:
                return None
            for key, _ in sel.select():
                if key.data == "grader":
                    pending += requests.take()
                    continue
                conn, _ = listener.accept()
                conn.settimeout(10)
                channel = Channel(conn)
                try:
                    hello = channel.recv()
                except (WireError, OSError):
                    conn.close()
                    continue
                if hello.get("token") != token or hello.get("index") != index:
                    conn.close()
                    continue
                return channel, hello
    finally:
        sel.close()


class Budget:
    """A check's time.  With the kernel's sandbox's group (`cpu_file`, `pids_file`: lesson_tools.grading.caps):
    `cell_s` CPU seconds of this process and the sandbox together, and `wall_factor` times as long idle, neither
    computing nor waiting for a CPU (lesson_tools.grading.meter: a busy machine grows neither, so a looping answer
    runs out of CPU time and a sleeping one of waiting, whatever the load); without them, `cell_s` seconds on the
    clock."""

    def __init__(self, cell_s, cpu_file=None, wall_factor=1.0, pids_file=None):
        self.cell_s, self.cpu_file = cell_s, cpu_file
        self.idle_s = cell_s * wall_factor if cpu_file else cell_s
        self.start, self.meter = time.monotonic(), None
        if cpu_file:
            from .caps import cpu_seconds, pids_in
            from .meter import Meter
            self.meter = Meter(lambda: time.process_time() + cpu_seconds(cpu_file),
                               lambda: [os.getpid(), *(pids_in(pids_file) if pids_file else ())])

    def used(self):
        """CPU seconds the check and the answer have used (0 without a cpu_file)."""
        return self.meter.read().cpu if self.meter else 0.0

    def left(self):
        if not self.meter:
            return self.cell_s - (time.monotonic() - self.start)
        used = self.meter.read()
        return min(self.idle_s - used.idle, self.cell_s - used.cpu)

    def spent(self):
        """What ran out, for the verdict's line."""
        if not self.meter:
            return f"the check ran longer than {self.cell_s:g} s on the answer"
        if self.used() >= self.cell_s:
            return (f"the check used more than {self.cell_s:g} s of CPU time on the answer (the kernel's and the "
                    f"judge's together)")
        return (f"the check waited more than {self.idle_s:g} s on the answer without it computing (the limit on "
                f"waiting, {self.idle_s / self.cell_s:g} times its {self.cell_s:g} s of CPU time: the answer slept or "
                f"waited for something that never came; time spent waiting for a busy machine's CPU is not counted)")


def judge(checks, channel, hello, name, budget, handed=None):
    """(status, line) of the check `name` on the answer the kernel described in `hello`, within `budget`; adds to
    `handed` the library functions computing the exercise (the check's computed_by) the kernel saw the answer
    call."""
    from lesson_tools.grading.wire import AnswerLost, AnswerTimeout, Remote
    remote = None
    try:
        if checks is None or "answer" not in hello or not isinstance(hello["answer"], dict):
            return "error", "the check cell could not give its answer to the check"
        remote = Remote(channel, hello["answer"], budget, checks.REGISTRY[name].computed_by)
        return checks.evaluate(name, remote)
    except AnswerTimeout:
        return "timeout", budget.spent()
    except AnswerLost as exc:
        return "error", one_line("the kernel stopped answering the check", exc)
    finally:
        if remote is not None and handed is not None:
            handed.update(remote.handed)
        try:
            channel.send({"done": True})
        except OSError:
            pass
        channel.sock.close()


def salt_the_inputs(salt=None):
    """Set the salt every check of this judge draws its inputs with (lesson_course.checks.independent.SALT):
    the grading run's (`salt`, random for each run unless the teacher gives --salt), or a random one of its own.  It
    is never sent to the kernel, so no table of the edition's inputs and no memorised order of calls can stand in
    for an answer."""
    import secrets

    from lesson_course.checks import independent
    independent.SALT = int(salt) if salt is not None else secrets.randbits(62)


def serve(request, out):
    """Judge check after check as the grader asks (see the module's docstring)."""
    import numpy  # noqa: F401

    import lesson_lib  # noqa: F401 -- the public API (physics, data, model, evaluation)
    from lesson_course import checks
    salt_the_inputs(request.get("salt"))

    token, cell_s = request["token"], float(request["cell_s"])
    cpu_file, wall_factor = request.get("cpu_file"), float(request.get("wall_factor", 1.0))
    pids_file = request.get("pids_file")

    def send(**fields):
        out.write(json.dumps({"token": token, **fields}) + "\n")
        out.flush()

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(request["address"])
    listener.listen(8)
    requests, pending = Requests(0), []
    send(event="ready")
    while True:
        while not pending and not requests.closed:
            pending += requests.take()
        if not pending:
            return
        message = pending.pop(0)
        if "check" not in message:
            continue                                   # an "ended" after its verdict
        index, name = message["check"], str(message.get("name"))
        found = _answer(listener, requests, pending, token, index)
        if found is None:
            send(index=index, status="error", line="the check cell ended before giving its answer")
        elif name not in checks.REGISTRY:
            judge(None, *found, name, Budget(cell_s))  # tells the cell it is done
            send(index=index, status="error", line=f"the course has no check named {name!r}")
        else:
            handed = set()
            status, line = judge(checks, *found, name, Budget(cell_s, cpu_file, wall_factor, pids_file), handed)
            send(index=index, status=status, line=line, handed=sorted(handed))
