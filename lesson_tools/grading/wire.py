"""Answers as plain data: how the grader's judge calls a learner's function without running any of its code.

The grader's side of the course's checks, kept out of the learners' library: the judge imports it from
lesson_tools, and the grader puts a verified copy into each sandbox, beside the kernel's lesson_lib, as the module
`lesson_grading_wire` (`KERNEL_MODULE`), for the kernel's side (`serve_answer`, `watching`).  The checks themselves
know only `framework.RemoteAnswer` (what `Remote` is) and `framework.Offered`.

The grader runs the learner's notebook in a kernel and the checks in a separate judge process; the two talk over a
Unix socket in messages of plain data (JSON, arrays as base64 bytes), so nothing a submission wrote is ever
executed, unpickled or called where its verdict is made.  At a check cell the kernel connects and says what the
answer is; the judge runs the course's check as in a notebook, except that `framework.call(fn, ...)` on a
`Remote` answer sends the arguments to the kernel, which calls the learner's function and sends back its result:

    judge                                              kernel (the learner's function `fn`)
    <- {"token", "index", "answer": {"callable", "type", "source"}}     (or {"missing": why})
    -> {"call": {"args": [...], "kwargs": {...}}}
                                     <- {"callback": ref, "method": "rnea", "args": [...]}   (fn uses an argument)
    -> {"returned": ...}                                                (the judge's object answered)
    <- {"returned": ..., "changed": [...]}   or   {"raised": {"type", "message"}}
    -> {"done": true}

`changed` lists the arguments the learner's function changed in place ({"kind": "args" or "kwargs", "key", "value"}:
the argument as it is after the call), found in the kernel by the same rule as in a notebook (framework.kept and
framework.changed); the judge compares them with the copies it kept, so the check fails such a function as in a
notebook.  The report comes from the learner's kernel: code that tampers with the kernel's copy of this module could
leave it out, which only hides a mistake of its own (the values the check judges are computed in the judge).

What crosses, both ways (`encode` / `decode`): None, bool, int, float, str, lists, tuples, dicts with str keys,
numeric numpy arrays, a PlanarChain (its m, l, lc, I, g) and a DeLaN (its model file), each rebuilt on the other
side from the trusted library.  Anything else the learner returns arrives as an `Opaque` placeholder named after
its type, so a check says "returned X, not numbers".  An argument the check offers by reference (`Offered`: the
02 chain that has only `rnea`, 07's model of three parts, 05's dynamics f, 02's activation) stays in the judge:
the kernel gets a proxy whose methods call back, so the truth behind it never reaches the learner's process.
"""
import base64
import contextlib
import json
import socket
import struct

import numpy as np

from lesson_course.checks.framework import Offered, RemoteAnswer, changed, kept, quiet

KERNEL_MODULE = "lesson_grading_wire"     # this file's name in the sandbox, beside the kernel's lesson_lib

MAX_MESSAGE = 64 * 2**20         # bytes in one message
MAX_DEPTH = 16                   # nesting of lists, tuples and dicts
_HEADER = struct.Struct(">I")
_DTYPES = {"f8": np.float64, "f4": np.float32, "i8": np.int64, "i4": np.int32, "b1": np.bool_, "c16": np.complex128}


class WireError(Exception):
    """A message that is not plain data of the vocabulary above, or a broken connection."""


class Opaque:
    """What a learner's value that cannot cross as data becomes on the judge's side (its type's name only)."""
    type_name = "object"

    def __repr__(self):
        return f"<{self.type_name}>"


def _opaque(name):
    name = " ".join("".join(ch for ch in str(name) if ch.isprintable()).split())[:200] or "object"
    return type(name, (Opaque,), {"type_name": name})()


# ---------------------------------------------------------------------- values <-> plain data
def encode(value, refs=None, depth=0):
    """`value` as JSON-able plain data.  `refs` (a dict, judge side): where Offered objects and functions are
    kept when they are sent by reference; without it (kernel side) a function or other object becomes opaque."""
    from lesson_lib.model.delan import DeLaN
    from lesson_lib.physics.chain import PlanarChain
    if depth > MAX_DEPTH:
        raise WireError(f"the value is nested more than {MAX_DEPTH} levels deep")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, (bool, np.generic)):   # np.float64 is a float
        return {"int": str(int(value))} if isinstance(value, int) else {"float": repr(float(value))}
    if isinstance(value, (np.ndarray, np.generic)):
        a = np.asarray(value)
        kind = next((k for k, t in _DTYPES.items() if a.dtype == t), None)
        if kind is None:
            return {"opaque": f"array of {a.dtype}"}
        return {"array": kind, "shape": list(a.shape),
                "data": base64.b64encode(np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes()).decode(),
                "scalar": isinstance(value, np.generic)}
    if isinstance(value, (list, tuple)):
        return {"list" if isinstance(value, list) else "tuple": [encode(v, refs, depth + 1) for v in value]}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return {"opaque": "dict with keys that are not strings"}
        return {"dict": {k: encode(v, refs, depth + 1) for k, v in value.items()}}
    if isinstance(value, PlanarChain):
        return {"chain": {k: encode(np.asarray(getattr(value, k), dtype=float)) for k in ("m", "l", "lc", "I")}
                | {"g": encode(float(value.g))}}
    if isinstance(value, DeLaN):
        return {"delan": _model_file(value)}
    if refs is not None and (isinstance(value, Offered) or callable(value)):
        refs[len(refs)] = value
        offered = isinstance(value, Offered)
        return {"ref": len(refs) - 1, "callable": callable(value),
                "attributes": ({k: encode(getattr(value, k), refs, depth + 1) for k in value.attributes}
                               if offered else {}),
                "methods": list(value.methods) if offered else [], "refusal": value.refusal if offered else ""}
    return {"opaque": type(value).__name__}


def _model_file(model):
    """The model's file (model.save), as a DeLaN's: a subclass crosses as its weights and state, not its code."""
    import io
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.npz")
        model.save(path)
        with np.load(path, allow_pickle=False) as archive:
            arrays = {k: archive[k] for k in archive.files}
    config = json.loads(str(arrays["config"]))
    arrays["config"] = np.array(json.dumps({**config, "class": "DeLaN"}))
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return base64.b64encode(buffer.getvalue()).decode()


def _model_from_file(text):
    """The DeLaN a model file describes, built by the library; refused (WireError) when its step count is not its
    loss history's length: training records one loss per step, so only an edited or forged state disagrees."""
    import os
    import tempfile

    from lesson_lib.model.delan import DeLaN
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.npz")
        with open(path, "wb") as f:
            f.write(base64.b64decode(text, validate=True))
        with np.load(path, allow_pickle=False) as archive:
            config = json.loads(str(archive["config"]))
        if not isinstance(config, dict) or config.get("class") != "DeLaN":
            raise WireError("the model file is not a DeLaN's")
        fields = ("n_dof", "hidden", "activation", "eps", "potential_scale", "seed", "batch_size")
        model = DeLaN(**{k: (tuple(config[k]) if k == "hidden" else config[k]) for k in fields if k in config})
        model.load(path)
    if model.step != len(model.loss_history):        # the library reads values as written; the grader does not
        raise WireError(f"its step count {model.step} disagrees with its loss history of "
                        f"{len(model.loss_history)} entries: a model that claims training it did not do")
    return model


def decode(data, proxy=None, depth=0):
    """The value `encode` described, built from the trusted library only.  `proxy(description)` (kernel side)
    makes the stand-in for an object the judge kept; without it a reference is refused."""
    from lesson_lib.physics.chain import PlanarChain
    if depth > MAX_DEPTH:
        raise WireError(f"the value is nested more than {MAX_DEPTH} levels deep")
    if data is None or isinstance(data, (bool, str)):
        return data
    if not isinstance(data, dict) or len(data) == 0:
        raise WireError(f"not a value of the wire's vocabulary: {type(data).__name__}")
    try:
        if "int" in data:
            return int(data["int"])
        if "float" in data:
            return float(data["float"])
        if "array" in data:
            dtype = _DTYPES[data["array"]]
            shape = tuple(int(n) for n in data["shape"])
            raw = base64.b64decode(data["data"], validate=True)
            a = np.frombuffer(raw, dtype=np.dtype(dtype).newbyteorder("<")).astype(dtype).reshape(shape)
            return a[()] if data.get("scalar") is True else a.copy()
        if "list" in data or "tuple" in data:
            items = [decode(v, proxy, depth + 1) for v in data.get("list", data.get("tuple"))]
            return items if "list" in data else tuple(items)
        if "dict" in data:
            return {str(k): decode(v, proxy, depth + 1) for k, v in dict(data["dict"]).items()}
        if "chain" in data:
            parts = {k: decode(v, None, depth + 1) for k, v in dict(data["chain"]).items()}
            return PlanarChain(parts["m"], parts["l"], parts["lc"], parts["I"], g=parts["g"])
        if "delan" in data:
            return _model_from_file(data["delan"])
        if "opaque" in data:
            return _opaque(data["opaque"])
        if "ref" in data and proxy is not None:
            return proxy(data)
    except WireError:
        raise
    except Exception as exc:                      # noqa: BLE001 -- bad data of any kind: one clear error
        raise WireError(f"a value could not be rebuilt ({type(exc).__name__}: {str(exc)[:200]})") from None
    raise WireError(f"not a value of the wire's vocabulary (keys {sorted(map(str, data))[:5]})")


def error(exc):
    """An exception as plain data, with the learner's line that raised it (checks.raised.learner_line) and the shapes
    of that line's arrays (checks.raised.operands) when found."""
    from lesson_course.checks.raised import learner_line, operands
    data = {"type": type(exc).__name__, "message": " ".join(str(exc).split())[:1000]}
    line = learner_line(exc)
    if line:
        data["line"] = [int(line[0]), str(line[1])[:100], str(line[2])[:200], str(line[3])[:100]]
        data["operands"] = operands(exc)[:300]
    return data


def rebuilt_error(data):
    """The exception `error` described: a built-in exception of that name, else one of a class so named."""
    import builtins
    name = str(data.get("type", "Exception")) if isinstance(data, dict) else "Exception"
    message = str(data.get("message", "")) if isinstance(data, dict) else ""
    base = getattr(builtins, name, None)
    if not (isinstance(base, type) and issubclass(base, Exception)):
        base = Exception
    name = "".join(ch for ch in name if ch.isalnum() or ch == "_")[:40] or "Exception"
    rebuilt = type(name, (base,), {"__str__": lambda self: message})(message)      # str() as the learner saw it
    line = data.get("line") if isinstance(data, dict) else None
    if isinstance(line, list) and len(line) == 4 and isinstance(line[0], int) and all(
            isinstance(part, str) for part in line[1:]):
        rebuilt.learner_line = (line[0], line[1][:100], line[2][:200], line[3][:100])
        shapes = data.get("operands")
        rebuilt.learner_operands = " ".join(shapes.split())[:300] if isinstance(shapes, str) else ""
    return rebuilt


# ---------------------------------------------------------------------- messages
class Channel:
    """Length-prefixed JSON messages over a connected socket, each at most MAX_MESSAGE bytes."""

    def __init__(self, sock):
        self.sock = sock

    def send(self, message):
        data = json.dumps(message).encode()
        if len(data) > MAX_MESSAGE:
            raise WireError(f"a message of {len(data) >> 20} MB is over the limit of {MAX_MESSAGE >> 20} MB")
        self.sock.sendall(_HEADER.pack(len(data)) + data)

    def _exactly(self, n):
        chunks, left = [], n
        while left:
            chunk = self.sock.recv(min(left, 2**20))
            if not chunk:
                raise WireError("the other side closed the connection")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def recv(self):
        (n,) = _HEADER.unpack(self._exactly(_HEADER.size))
        if n > MAX_MESSAGE:
            raise WireError(f"a message of {n >> 20} MB is over the limit of {MAX_MESSAGE >> 20} MB")
        try:
            message = json.loads(self._exactly(n))
        except (ValueError, RecursionError):
            raise WireError("a message that is not JSON") from None
        if not isinstance(message, dict):
            raise WireError("a message that is not a JSON object")
        return message


# ---------------------------------------------------------------------- the kernel's side
def _source(fn):
    import inspect
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return None


def serve_answer(address, token, index, answer):
    """In the learner's kernel, at a check cell: connect to the judge, say what `answer()` is, and call it on
    the judge's arguments until it is done.  Whatever the answer raises goes back as data."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(address)
    channel = Channel(sock)
    try:
        try:
            fn = answer()
        except Exception as exc:
            channel.send({"token": token, "index": index, "missing": error(exc)})
            raise
        channel.send({"token": token, "index": index, "answer": {
            "callable": callable(fn), "type": type(fn).__name__, "source": _source(fn)}})

        def proxy(description):
            return _proxy(channel, description)

        while True:
            message = channel.recv()
            if "call" not in message:
                return
            handed = set()
            try:
                args = decode(message["call"]["args"], proxy)
                kwargs = decode(message["call"]["kwargs"], proxy)
                before = kept((args, kwargs))
                with quiet(), watching(message.get("watch") or (), handed):
                    result = fn(*args, **kwargs)
                reply = {"returned": encode(result), "changed": [
                    {"kind": kind, "key": k, "value": encode(values[k])}
                    for kind, values, copies in (("args", args, before[0]), ("kwargs", kwargs, before[1]))
                    for k in (range(len(values)) if kind == "args" else values)
                    if changed(copies[k], values[k])]}
            except Exception as exc:                  # noqa: BLE001 -- the learner's error, as data
                reply = {"raised": error(exc)}
            if handed:
                reply["handed"] = sorted(handed)
            channel.send(reply)
    finally:
        sock.close()


def _code_objects(names):
    """{code object: dotted name} of the functions the dotted `names` give (a class: the methods of it and of its
    lesson_lib bases), resolved in this process's lesson_lib; names it does not have are left out."""
    import importlib
    found = {}
    for dotted in names:
        parts, obj = str(dotted).split("."), None
        for cut in range(len(parts) - 1, 0, -1):            # the longest importable module prefix
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for attr in parts[cut:]:
                obj = getattr(obj, attr, None)
            break
        owners = [k for k in getattr(obj, "__mro__", ())
                  if str(k.__module__).startswith(("lesson_lib", "lesson_course"))]
        for f in [v for k in owners for v in vars(k).values()] if owners else [obj]:
            code = getattr(getattr(f, "__func__", f), "__code__", None)
            if code is not None:
                found[code] = str(dotted)
    return found


WATCHER_OFF = "the grader's watcher"     # what `seen` gets when the answer switched the watching off or emptied it


def _library_folders():
    """The folders of the lesson_lib and lesson_course this process imported (the kernel's verified copy): callers
    whose code was compiled from a file under them are the library's."""
    import os

    import lesson_course
    import lesson_lib
    return tuple(os.path.dirname(os.path.abspath(p.__file__)) + os.sep for p in (lesson_lib, lesson_course))


@contextlib.contextmanager
def watching(names, seen):
    """Within the block, add to `seen` each of the dotted `names` (functions, methods, or classes: any of their
    methods) that code outside lesson_lib calls, in this thread or any thread started meanwhile: the learner's answer
    handing its exercise to the library's own implementation, directly or through helpers of its own.  A caller is
    the library's when its code was compiled from a file of the library (its code object's co_filename), whatever
    its module calls itself (`__name__`).  A library function calling another is not counted.  When the answer
    turns the watching off or empties what it watches for, `seen` gets WATCHER_OFF."""
    import sys
    import threading
    codes = _code_objects(names)
    if not codes:
        yield
        return
    library, expected = _library_folders(), dict(codes)

    def profile(frame, event, arg):
        if event == "call" and frame.f_code in codes:
            caller = frame.f_back
            if caller is not None and not caller.f_code.co_filename.startswith(library):
                seen.add(codes[frame.f_code])

    before, before_threads = sys.getprofile(), threading.getprofile()
    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        yield
    finally:
        intact = sys.getprofile() is profile and threading.getprofile() is profile and codes == expected
        sys.setprofile(before)
        threading.setprofile(before_threads)
        if not intact:
            seen.add(WATCHER_OFF)


def _proxy(channel, description):
    """The kernel's stand-in for an object the judge kept: its plain attributes, and methods that call back."""
    ref, refusal = description["ref"], str(description.get("refusal") or "'{name}' is not available")
    attributes = {k: decode(v) for k, v in dict(description.get("attributes") or {}).items()}
    methods = set(description.get("methods") or ())

    def remote(method):
        def invoke(*args, **kwargs):
            channel.send({"callback": ref, "method": method, "args": encode(list(args)), "kwargs": encode(kwargs)})
            reply = channel.recv()
            if "raised" in reply:
                raise rebuilt_error(reply["raised"])
            return decode(reply.get("returned"))
        return invoke

    class Proxy:
        __slots__ = ()

        def __getattr__(self, name):
            if name in attributes:
                return attributes[name]
            if name in methods:
                return remote(name)
            raise AttributeError(refusal.format(name=name))

        def __call__(self, *args, **kwargs):
            if not description.get("callable"):
                raise TypeError("this object is not callable")
            return remote(None)(*args, **kwargs)

    if description.get("callable") and not attributes and not methods:
        Proxy.__name__ = Proxy.__qualname__ = "function"       # its errors read as a function's, as in a notebook
    return Proxy()


# ---------------------------------------------------------------------- the judge's side
def _changes(reported):
    """{("args", k) or ("kwargs", name): value} from a reply's "changed" list; a value that cannot be rebuilt (e.g.
    a chain given a negative mass in place) stands as an Opaque, which differs from any copy."""
    out = {}
    for item in reported if isinstance(reported, list) else []:
        if not isinstance(item, dict) or item.get("kind") not in ("args", "kwargs"):
            continue
        key = item.get("key")
        if not (isinstance(key, int) if item["kind"] == "args" else isinstance(key, str)):
            continue
        try:
            out[(item["kind"], key)] = decode(item.get("value"))
        except WireError as exc:
            out[(item["kind"], key)] = _opaque(f"unreadable value ({exc})")
    return out


class AnswerLost(BaseException):
    """The kernel stopped answering (it ended, closed the connection or sent what is not data): no verdict."""


class AnswerTimeout(BaseException):
    """The learner's function did not reply before the check's time ran out."""


class Remote(RemoteAnswer):
    """The judge's handle on the learner's answer in the kernel: `callable`, `type_name`, `source` (text, only
    ever parsed) and `invoke(args, kwargs)`, which returns the learner's result rebuilt as plain data.  `budget`
    says how long the check may still wait for the kernel: `budget.left()` in seconds (lesson_tools.grading.clean
    counts CPU time there).  `handed`: which of the dotted names in `watch` (the exercise's `computed_by`) the
    kernel saw the answer call while it ran (wire.watching)."""

    def __init__(self, channel, hello, budget, watch=()):
        self.channel, self.budget, self.watch, self.handed = channel, budget, list(watch), set()
        self.changed = {}                 # after invoke: {("args", k) or ("kwargs", name): the argument after it}
        self.callable = bool(hello.get("callable"))
        self.type_name = str(hello.get("type") or "object")[:40]
        source = hello.get("source")
        self.source = source if isinstance(source, str) else None

    def _recv(self):
        import select
        while True:                                   # a reply's first byte, or the budget spent
            left = self.budget.left()
            if left <= 0:
                raise AnswerTimeout()
            if select.select([self.channel.sock], [], [], min(left, 0.25))[0]:
                break
        self.channel.sock.settimeout(left)            # the rest of the message
        try:
            return self.channel.recv()
        except TimeoutError:
            raise AnswerTimeout() from None
        except (WireError, OSError, struct.error) as exc:
            raise AnswerLost(str(exc)) from None

    def invoke(self, args, kwargs):
        """fn(*args, **kwargs) in the kernel; the learner's exception is re-raised here, rebuilt from data."""
        refs, self.changed = {}, {}
        try:
            self.channel.send({"call": {"args": encode(list(args), refs), "kwargs": encode(dict(kwargs), refs)},
                               "watch": self.watch})
        except OSError as exc:
            raise AnswerLost(str(exc)) from None
        while True:
            reply = self._recv()
            if "callback" in reply:
                self._answer_callback(reply, refs)
                continue
            handed = reply.get("handed")
            if isinstance(handed, list):
                self.handed.update(str(n) for n in handed if str(n) in self.watch or str(n) == WATCHER_OFF)
            if "raised" in reply:
                raise rebuilt_error(reply["raised"])
            if "returned" not in reply:
                raise AnswerLost("the kernel sent a message that is not a result")
            self.changed = _changes(reply.get("changed"))
            try:
                return decode(reply["returned"])
            except WireError as exc:              # e.g. a model whose file the library refuses: not an answer
                data = reply["returned"]
                kind = next(iter(data), "value") if isinstance(data, dict) and data else "value"
                return _opaque(f"unreadable {kind} ({exc})")

    def _answer_callback(self, message, refs):
        target, method = refs.get(message.get("callback")), message.get("method")
        try:
            if isinstance(target, Offered) and method in target.methods:
                fn = getattr(target, method)
            elif method is None and callable(target) and not isinstance(target, Offered):
                fn = target
            else:
                raise AttributeError(f"'{method}' is not available in this exercise")
            args, kwargs = decode(message.get("args")), decode(message.get("kwargs"))
            if not isinstance(args, list) or not isinstance(kwargs, dict):
                raise TypeError("the arguments of a call back were not a list and a dict")
            reply = {"returned": encode(fn(*args, **kwargs))}
        except Exception as exc:                      # noqa: BLE001 -- e.g. a wrong shape passed to chain.rnea
            reply = {"raised": error(exc)}
        try:
            self.channel.send(reply)
        except OSError as exc:
            raise AnswerLost(str(exc)) from None
