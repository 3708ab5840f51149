"""Results that survive: each submission's verdicts kept as soon as they are known, so that a run stopped by Ctrl-C
or a crash is finished by the same command, grading only what is missing.

    store = Store(folder)                      # default folder: default_folder(), the user's cache
    key = store.key(task, course_hashes)       # sha256 of everything the verdicts depend on
    rows = store.get(key)                      # [row] (without the teacher's note) or None
    store.put(key, rows)                       # written whole (a temporary file renamed), never half

A result's key covers the notebook's text, whose and which file it is, the notebook it was matched to, the
course's files (their hashes), the salt the checks' inputs are drawn with, the limits and whether the sandbox and
its caps were in use: a result is taken again only where grading again would give it.  What depends on the rest
of the class (the teacher's note: identical work, look-alike names) is not kept; it is found again on each run.

A run of a class is recorded by its inputs (the paths given, the notebooks asked for): `Store.run_salt` gives an
unfinished run's salt back, so the rerun draws the same inputs and its outputs are byte for byte those of a run
never stopped; a finished run's salt is given back for `--only` (one person graded again, everyone else taken
as they were).
"""
import dataclasses
import hashlib
import json
import os
import tempfile
import time
from pathlib import Path

FORMAT = 1                 # a result file's layout; a new one makes every older result a miss


def default_folder():
    """$XDG_CACHE_HOME/lesson-tools (~/.cache/lesson-tools): the results are keyed by everything they depend on,
    so one folder serves every class and course."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lesson-tools"


def _digest(value):
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


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
    """A folder of results (`results/KEY.json`) and of runs (`runs/CLASS.json`)."""

    def __init__(self, folder):
        self.folder = Path(folder)
        for sub in ("results", "runs"):
            (self.folder / sub).mkdir(parents=True, exist_ok=True)

    def key(self, task, course_hashes, sandboxed, capped):
        """The key of a task's result (lesson_tools.grading.job.make_task)."""
        return _digest({"format": FORMAT, "text": hashlib.sha256(task["text"].encode()).hexdigest(),
                        "who": task["who"], "submission": task["submission"], "notebook": task["notebook"],
                        "course": _digest(course_hashes),
                        "checks": task["check_names"], "limits": dataclasses.asdict(task["limits"]),
                        "sandboxed": sandboxed, "capped": capped})

    def get(self, key):
        """The kept rows of a result, or None."""
        found = _read(self.folder / "results" / f"{key}.json")
        return found["rows"] if isinstance(found, dict) and found.get("format") == FORMAT else None

    def put(self, key, rows):
        """Keep a result's rows (the teacher's note left out: it is found again on each run)."""
        _write(self.folder / "results" / f"{key}.json",
               {"format": FORMAT, "rows": [{**r, "note": ""} for r in rows]})

    @staticmethod
    def class_key(paths, notebooks):
        """The run of a class: the paths given (resolved) and the notebooks asked for."""
        return _digest({"paths": sorted(str(Path(p).resolve()) for p in paths), "notebooks": sorted(notebooks or ())})

    def run(self, class_key):
        """The recorded run of a class ({"salt", "started", "finished"}) or None."""
        found = _read(self.folder / "runs" / f"{class_key}.json")
        return found if isinstance(found, dict) and isinstance(found.get("salt"), int) else None

    def begin(self, class_key, salt):
        _write(self.folder / "runs" / f"{class_key}.json", {"salt": salt, "started": time.time(), "finished": None})

    def finish(self, class_key):
        record = self.run(class_key)
        if record is not None:
            _write(self.folder / "runs" / f"{class_key}.json", {**record, "finished": time.time()})
