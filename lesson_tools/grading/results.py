"""Results that survive: each submission's verdicts kept as soon as they are known, under what was handed in, so that
a run stopped by Ctrl-C or a crash is finished by the same command, and a new download of the class grades only
what is new.

    store = Store(folder)                      # default folder: default_folder(), the user's cache
    salt = store.salt()                        # the salt every run draws its checks' inputs from, kept here
    key = store.key(task, course_hashes, sandboxed, capped)   # sha256 of everything the verdicts depend on
    rows = store.get(key)                      # [row] (without the teacher's note) or None
    store.put(key, rows, when)                 # written whole (a temporary file renamed), never half
    store.graded(key)                          # when the kept result was graded (seconds since the epoch)

A result's key covers what was handed in and nothing of where it lies: the notebook's text, the person (the platform
and its id, not the file's name or the download's), the notebook it was matched to, the course's files (their
hashes), the checks, the limits with the submission's salt, and whether the sandbox and its caps were in use.  So
the same Canvas zip downloaded again under another name, plus two new files, grades the two; a person's name
changed on the platform keeps their result.  What depends on the rest of the class (the teacher's note: identical
work, look-alike names), on the teacher's overrides or on the late policy is not kept: it is found again on each run.

The salt.  Each submission's checks draw their inputs from `submission_salt(salt, text)`: the store's salt (drawn once,
kept in this folder, never sent to a kernel; --fresh draws a new one, --salt N gives one for a run) and the
submission's own bytes.  The same file always meets the same inputs, so its kept result is what grading it again
gives; a file changed by one byte, a resubmission after feedback, meets new ones, so the inputs a learner saw on a
page do not come back.  A run of a class is recorded by its paths (`class_key`), to say on the next run that an
interrupted one is being finished.
"""
import dataclasses
import hashlib
import json
import os
import secrets
import tempfile
import time
from pathlib import Path

FORMAT = 2                 # a result file's layout; a new one makes every older result a miss


def default_folder():
    """$XDG_CACHE_HOME/lesson-tools (~/.cache/lesson-tools): the results are keyed by everything they depend on,
    so one folder serves every class and course."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lesson-tools"


def _digest(value):
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def submission_salt(salt, text):
    """The salt one submission's checks draw their inputs with: from the run's `salt` and the submission's `text`
    (62 bits, as the run's)."""
    data = f"{salt}\0".encode() + text.encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big") >> 2


def _write(path, value):
    """`value` as JSON at `path`, whole or not at all."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(value, f, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None                   # missing, or cut short by a crash before the rename: graded again


class Store:
    """A folder of results (`results/KEY.json`), of runs (`runs/CLASS.json`) and of the salt (`salt.json`)."""

    def __init__(self, folder):
        self.folder = Path(folder)
        for sub in ("results", "runs"):
            (self.folder / sub).mkdir(parents=True, exist_ok=True)

    def key(self, task, course_hashes, sandboxed, capped):
        """The key of a task's result (lesson_tools.grading.job.make_task): see the module's docstring."""
        who = task["who"]
        return _digest({"format": FORMAT,
                        "text": hashlib.sha256(task["text"].encode("utf-8", "surrogatepass")).hexdigest(),
                        "person": [who["platform"], who["student_id"]], "notebook": task["notebook"],
                        "course": _digest(course_hashes),
                        "checks": task["check_names"], "limits": dataclasses.asdict(task["limits"]),
                        "sandboxed": sandboxed, "capped": capped})

    def _result(self, key):
        found = _read(self.folder / "results" / f"{key}.json")
        return found if isinstance(found, dict) and found.get("format") == FORMAT else None

    def get(self, key):
        """The kept rows of a result, or None."""
        found = self._result(key)
        return found["rows"] if found else None

    def graded(self, key):
        """When the kept result was graded (seconds since the epoch), or None."""
        found = self._result(key)
        return found.get("graded") if found else None

    def put(self, key, rows, when=None):
        """Keep a result's rows (the teacher's note left out: it is found again on each run) and when it was graded."""
        _write(self.folder / "results" / f"{key}.json",
               {"format": FORMAT, "rows": [{**r, "note": ""} for r in rows],
                "graded": time.time() if when is None else when})

    def salt(self, fresh=False):
        """The salt kept in this folder (a new one drawn and kept when there is none, or with `fresh`)."""
        path = self.folder / "salt.json"
        found = None if fresh else _read(path)
        if isinstance(found, dict) and isinstance(found.get("salt"), int):
            return found["salt"]
        salt = secrets.randbits(62)
        _write(path, {"salt": salt, "drawn": time.time()})          # mkstemp's file: the owner's alone
        return salt

    @staticmethod
    def class_key(paths, notebooks):
        """The run of a class: the paths given (resolved) and the notebooks asked for."""
        return _digest({"paths": sorted(str(Path(p).resolve()) for p in paths), "notebooks": sorted(notebooks or ())})

    def run(self, class_key):
        """The recorded run of a class ({"salt", "started", "finished"}) or None."""
        found = _read(self.folder / "runs" / f"{class_key}.json")
        return found if isinstance(found, dict) and isinstance(found.get("salt"), int) else None

    def begin(self, class_key, salt):
        """Record a run of the class starting now (`first`: when its first run started, kept)."""
        now, before = time.time(), self.run(class_key)
        _write(self.folder / "runs" / f"{class_key}.json", {"salt": salt, "started": now, "finished": None,
                                                            "first": (before or {}).get("first", now)})

    def finish(self, class_key):
        record = self.run(class_key)
        if record is not None:
            _write(self.folder / "runs" / f"{class_key}.json", {**record, "finished": time.time()})
