"""The clean process: the teachers' checks called on the learner's answers, away from the learner's kernel.

Started by lesson_tools.grading.verified (so every lesson_lib module here was compiled from hash-checked files),
it loads each answer (the learner's function or object, pickled by value in the kernel), calls the course's
check on it without printing, and writes one JSON line per answer to the grader:

    {"token": ..., "index": i, "event": "start"}                       before calling the check
    {"token": ..., "index": i, "status": "pass" | "fail" | "not attempted" | "error", "line": ...,
     "changes": [what the answer changed in the checks' world, e.g. "numpy.abs"]}

Nothing the learner's cells did to their kernel (a replaced check, a monkeypatched numpy, a redefined print)
exists here.  What the answer itself does while it is being checked runs here, so `Watch` compares, before and
after, every function, class and module the checks can reach (lesson_lib, numpy, autograd, builtins); any
difference is reported and makes the submission TAMPERED.  The token (sent on stdin) marks the grader's lines.
"""
import json
import pickle
import sys
import types

STRICT = ("lesson_lib", "builtins")                     # any added, removed or replaced name counts
WATCHED = STRICT + ("numpy", "autograd", "math", "contextlib", "io", "warnings", "pickle", "cloudpickle")
_MISSING = object()


def _roots(name):
    return name.split(".")[0]


def _watchable(value):
    return callable(value) or isinstance(value, types.ModuleType)


SCALARS = (str, bytes, int, float, complex, bool, type(None))


def _held(value):
    """The entries of a dict or of a plain object's __dict__ (a registry, a spec), else None."""
    if isinstance(value, dict):
        return value
    if isinstance(value, (type, types.ModuleType, types.FunctionType, SCALARS)) or callable(value):
        return None
    return getattr(value, "__dict__", None)


class Watch:
    """Identity snapshot of the checks' world: module attributes, lesson_lib classes' attributes, the entries
    of dicts and plain objects that lesson_lib modules hold (e.g. a registry of checks), and the code and
    defaults of every Python function found there.  `changes()` lists what differs now (added entries of those
    dicts and objects, and new numbers or strings in them, are the checks' own records and are not counted)."""

    def __init__(self):
        self.modules = {n: m for n, m in list(sys.modules.items())
                        if m is not None and _roots(n) in WATCHED}
        self.spaces, self.held = {}, {}
        for name, module in self.modules.items():
            strict = _roots(name) in STRICT
            space = {k: v for k, v in vars(module).items() if strict or _watchable(v)}
            self.spaces[name] = (strict, space)
            if _roots(name) == "lesson_lib":
                for key, value in list(space.items()):
                    if isinstance(value, type) and value.__module__ == name:
                        self.spaces[f"{name}.{key}"] = (True, dict(vars(value)))
                    entries = _held(value)
                    if entries is not None:
                        self.held[f"{name}.{key}"] = (entries, dict(entries))
                        for k, v in list(entries.items()):
                            inner = _held(v)
                            if inner is not None:
                                self.held[f"{name}.{key}[{k!r}]"] = (inner, dict(inner))
        self.functions = {}
        for strict, space in self.spaces.values():
            for value in space.values():
                if isinstance(value, types.FunctionType):
                    self.functions[id(value)] = (value, value.__code__, value.__defaults__, value.__kwdefaults__)
        self.streams = (sys.stdout, sys.stderr)

    def _namespace(self, name):
        if name in self.modules:
            return vars(self.modules[name])
        module, _, cls = name.rpartition(".")
        return vars(getattr(self.modules[module], cls, None) or type("Gone", (), {}))

    def changes(self):
        found = [f"sys.modules[{n!r}]" for n, m in self.modules.items() if sys.modules.get(n) is not m]
        for name, (strict, before) in self.spaces.items():
            now = self._namespace(name)
            found += [f"{name}.{k}" for k, v in before.items() if now.get(k, _MISSING) is not v]
            if strict:
                found += [f"{name}.{k} (added)" for k in now.keys() - before.keys()
                          if not (k.startswith("__") and k.endswith("__"))]
        for name, (entries, before) in self.held.items():
            found += [f"{name}[{k!r}]" for k, v in before.items()
                      if entries.get(k, _MISSING) is not v and not isinstance(v, SCALARS)]
        for fn, code, defaults, kwdefaults in self.functions.values():
            if fn.__code__ is not code or fn.__defaults__ is not defaults or fn.__kwdefaults__ is not kwdefaults:
                found.append(f"{fn.__module__}.{fn.__qualname__} (its code)")
        if (sys.stdout, sys.stderr) != self.streams:
            found.append("sys.stdout or sys.stderr")
        return sorted(set(found))


def checker(checks, name):
    """A function answer -> (status, line) for the registered check `name`, without printing; None if there is
    none (course check refuses a check cell that calls an unregistered check)."""
    return (lambda answer: checks.evaluate(name, answer)) if name in checks.REGISTRY else None


def one_line(kind, text):
    """'Kind: text' on one line, the text cut at 300 characters ('Kind' alone when there is no text)."""
    text = " ".join(str(text).split())[:300]
    return f"{kind}: {text}" if text else kind


def _describe(exc):
    return one_line(type(exc).__name__, exc)


def _with_source(value, pickle_path):
    """The answer with the source of the cell that defined it (saved beside its pickle) where inspect finds it,
    so a check can tell the learner's code from the stub.  cloudpickle does not keep a function's file name:
    it is put back on the code object and the text into linecache.  The text is only parsed, never run."""
    import linecache
    try:
        with open(str(pickle_path)[:-len(".pkl")] + ".src.json", encoding="utf-8") as f:
            saved = json.load(f)
        filename, text = saved["filename"], saved["source"]
    except (OSError, ValueError, KeyError, TypeError):
        return value
    code = getattr(value, "__code__", None)
    if isinstance(filename, str) and isinstance(text, str) and isinstance(code, types.CodeType):
        linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
        value.__code__ = code.replace(co_filename=filename)
    return value


def serve(request, out):
    """Check every answer of the request in order; write the JSON lines described above to `out`."""
    import cloudpickle  # noqa: F401 -- loaded before the snapshot: answers are cloudpickle payloads
    import numpy  # noqa: F401
    import lesson_lib  # noqa: F401 -- the public API (physics, data, model, evaluation)
    from lesson_lib.course import checks

    token = request["token"]

    def send(**fields):
        out.write(json.dumps({"token": token, **fields}) + "\n")
        out.flush()

    runners = {a["name"]: checker(checks, a["name"]) for a in request["answers"]}
    watch = Watch()
    for answer in request["answers"]:
        index, name = answer["index"], answer["name"]
        send(index=index, event="start")
        run = runners[name]
        if run is None:
            status, line = "error", f"the course has no check named {name!r}"
        else:
            try:
                with open(answer["path"], "rb") as f:
                    value = _with_source(pickle.loads(f.read()), answer["path"])
            except BaseException as exc:              # noqa: BLE001 -- whatever the payload raises
                status, line = "error", f"the answer could not be loaded outside the kernel ({_describe(exc)})"
            else:
                try:
                    status, line = run(value)
                except BaseException as exc:          # noqa: BLE001 -- e.g. SystemExit from the answer
                    status, line = "error", f"the check was stopped by the answer ({_describe(exc)})"
        send(index=index, status=status, line=line, changes=watch.changes())
    sys.stdout.flush()
