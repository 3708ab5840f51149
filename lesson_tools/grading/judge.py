"""The grader's side of the judge (lesson_tools.grading.clean): start it, tell it when a check cell runs, read
its verdict when the cell has ended.

    with Judge(root, expected, limits, folder, env, cpu_file, pids_file) as judge:
        judge.begin(index, name)           # just before the kernel runs the check cell
        ...                                # the cell connects to judge.address and answers the check's calls
        result = judge.finish(index)       # {"status", "line"} once the cell has ended (and "handed", if any)

The judge starts from lesson_tools.grading.verified's own verified source (`python -I -S -c`), which then imports
lesson_tools.grading.clean; clean imports neither this module nor verified, so the two sides of the protocol do
not import each other.  A judge that dies costs the check it was judging; the next check starts a new one.
"""
import json
import os
import secrets
import selectors
import signal
import site
import subprocess
import sys
import time

from .clean import messages
from .sandbox import JUDGE

STARTUP_S = 600          # the clock's backstop for a judge to start: it imports numpy and the course (a few CPU
#                          seconds, far longer on a busy machine), and is ended by its own CPU limit if it loops


def _cpu_of(pid):
    """CPU seconds (user and system) of a running process, 0 when it has ended."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _tail(path, limit=400):
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - limit))
            text = f.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return " ".join(text.splitlines()[-1:])


class Judge:
    """One judge process for one submission; `address` is the socket the kernel's check cells connect to and
    `token` what they must say first (lesson_tools.grading.plan writes both into the setup cell)."""

    def __init__(self, root, expected, limits, folder, env, cpu_file=None, pids_file=None):
        self.root, self.expected, self.limits, self.folder, self.env = root, expected, limits, folder, env
        self.cpu_file = cpu_file                       # the kernel's sandbox's CPU time (caps.Group), if it has one
        self.pids_file = pids_file                     # ... and its processes (caps.Group.pids_file)
        (folder / JUDGE).mkdir(exist_ok=True)         # the folder the sandbox shows the kernel (sandbox.JUDGE)
        self.address, self.token = str(folder / JUDGE / "judge.sock"), secrets.token_hex(16)
        self.proc, self.buffer, self.pending, self.failure = None, b"", [], None
        self.spent = 0.0                               # CPU seconds of the judges that have ended

    def __enter__(self):
        return self                                    # started by the first begin(): no checks, no judge

    def __exit__(self, *exc):
        self.close()

    def _start(self):
        from .rlimits import wrap
        from .verified import bootstrap_source
        self.failure = None
        if os.path.exists(self.address):
            os.unlink(self.address)
        cmd = wrap([sys.executable, "-I", "-S", "-c", bootstrap_source(self.root, self.expected)],
                   self.limits.memory_mb, self.limits.notebook_s + 120, self.limits.file_mb)
        with open(self.folder / "judge.err", "ab") as err:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                         cwd=str(self.folder), env=self.env, start_new_session=True)
        self.buffer, self.pending = b"", []
        self._send({"root": str(self.root), "manifest": self.expected, "token": self.token, "address": self.address,
                    "cell_s": self.limits.cell_s, "cpu_file": self.cpu_file, "pids_file": self.pids_file,
                    "wall_factor": self.limits.wall_factor,
                    "salt": self.limits.salt,
                    "site": site.getsitepackages()})
        if self._read(lambda m: m.get("event") == "ready", STARTUP_S) is None:
            why = _tail(self.folder / "judge.err") or "no message"
            self.close()
            self.failure = f"the judge could not start ({why})"

    def _send(self, message):
        if self.proc is None:
            return
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass

    def _read(self, wanted, seconds):
        """The first message with the token for which wanted(message) holds, or None (timeout or the judge
        ended)."""
        if self.proc is None:
            return None
        deadline = time.monotonic() + seconds
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        try:
            while True:
                while self.pending:
                    msg = self.pending.pop(0)
                    if msg.get("token") == self.token and wanted(msg):
                        return msg
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(timeout=left):
                    return None
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    return None
                self.pending, self.buffer = messages(self.buffer + chunk)
        finally:
            sel.close()

    def begin(self, index, name):
        """A check cell for check `index` (named `name`) is about to run."""
        if self.proc is None:
            self._start()
        self._send({"check": index, "name": name})

    def finish(self, index):
        """The cell has ended: the verdict {"status", "line"} of check `index`, with "handed" when the kernel saw
        the answer call the library's own implementation of the exercise (see clean)."""
        self._send({"ended": index})
        # the judge's own budget ends every check (clean.Budget); the clock here is a backstop far behind it, for a
        # judge that hangs (a busy machine slows the judge: it must not turn a verdict into an ERROR)
        wait = STARTUP_S + self.limits.cell_s * max(1.0, self.limits.wall_factor) * 4
        msg = self._read(lambda m: m.get("index") == index and "status" in m, wait)
        if msg is not None:
            verdict = {"status": str(msg["status"]), "line": str(msg.get("line") or "")}
            if isinstance(msg.get("handed"), list) and msg["handed"]:
                verdict["handed"] = [str(n) for n in msg["handed"]]
            return verdict
        why = self.failure or (f"the judge ended while checking the answer "
                                                 f"({_tail(self.folder / 'judge.err') or 'no message'})")
        self.close()
        return {"status": "error", "line": why}

    def pids(self):
        """The judge's process, while it runs (its waits for a CPU are a busy machine's, not the submission's)."""
        return [self.proc.pid] if self.proc is not None else []

    def cpu_seconds(self):
        """CPU seconds of every judge this Judge has started (a counter that only grows)."""
        return self.spent + (_cpu_of(self.proc.pid) if self.proc is not None else 0.0)

    def close(self):
        if self.proc is None:
            return
        self.spent += _cpu_of(self.proc.pid)
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self.proc = None
