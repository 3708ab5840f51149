"""The grader's side of the clean process (lesson_tools.grading.clean): start it, send it the answers, read its
verdict lines, and end it, a check at a time within the limits.

    results = check_answers(answers, root, expected, limits, folder, env)

The clean process starts from lesson_tools.grading.verified's own verified source (`python -I -c`), which then
imports lesson_tools.grading.clean; clean imports neither this module nor verified, so the two sides of the
protocol do not import each other.
"""
import json
import sys


def _tail(path, limit=400):
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - limit))
            text = f.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return " ".join(text.splitlines()[-1:])


def _start(request, root, expected, limits, folder, env):
    import subprocess
    from .rlimits import wrap
    from .verified import bootstrap_source
    cmd = wrap([sys.executable, "-I", "-c", bootstrap_source(root, expected)], limits.memory_mb,
               limits.cell_s * len(request["answers"]) + 60, limits.file_mb)
    err = open(folder / "clean.err", "ab")
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, cwd=str(folder),
                            env=env, start_new_session=True)
    err.close()
    proc.stdin.write((json.dumps(request) + "\n").encode())
    proc.stdin.close()
    return proc


def _lines(proc, wait):
    """Yield the process's stdout lines; `wait()` gives the seconds left before a timeout (None on timeout)."""
    import os
    import selectors
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    buffer = b""
    while True:
        left = wait()
        if left <= 0 or not sel.select(timeout=left):
            yield None
            return
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield line


def check_answers(answers, root, expected, limits, folder, env):
    """Check every answer ({"index", "name", "path"}) in clean processes, each check within limits.cell_s.

    Returns {index: {"status", "line", "changes"}}, status one of pass, fail, not attempted, error, timeout.
    A check that runs out of time, or a process that dies, costs only that check: a new clean process checks
    the answers after it."""
    import os
    import secrets
    import signal
    import time
    results, pending = {}, list(answers)
    while pending:
        token = secrets.token_hex(16)
        proc = _start({"root": str(root), "manifest": expected, "token": token, "answers": pending},
                      root, expected, limits, folder, env)
        current, deadline = None, time.monotonic() + 60 + limits.cell_s      # imports first
        for raw in _lines(proc, lambda: deadline - time.monotonic()):
            if raw is None:
                break
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(msg, dict) or msg.get("token") != token:
                continue                                 # not the grader's line
            if msg.get("event") == "start":
                current, deadline = msg["index"], time.monotonic() + limits.cell_s
            elif msg.get("index") == current:
                results[current] = {k: msg.get(k) for k in ("status", "line", "changes")}
                current, deadline = None, time.monotonic() + limits.cell_s + 30
        timed_out = proc.poll() is None
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        proc.stdout.close()
        if current is not None:
            results[current] = ({"status": "timeout", "line": f"the check ran longer than {limits.cell_s:g} s "
                                                              f"on the answer"} if timed_out else
                                {"status": "error", "line": "the checking process ended while checking the answer "
                                                            f"({_tail(folder / 'clean.err') or 'no message'})"})
        left = [a for a in pending if a["index"] not in results]
        if current is None and left:                     # it never got to them: no use starting again
            why = _tail(folder / "clean.err") or "no message"
            for a in left:
                results[a["index"]] = {"status": "error", "line": f"the clean process could not check the answer "
                                                                  f"({why})"}
            left = []
        pending = left
    return results
