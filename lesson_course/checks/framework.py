"""The framework every exercise check uses: the registry, running the learner's code, and the one line.

A check is a function of what the learner wrote, registered with its notebook:

    @register("02_model", hints={"half": "your value is exactly twice the truth: the factor 1/2 is missing"})
    def kinetic_energy(fn):
        '''Tolerance: ... (state it).'''
        got = as_array(call(fn, M, qd), (), "kinetic_energy")      # run the learner's code through `call`
        if abs(got - 2 * truth) < tol:
            raise Fail(f"it returned {num(got)}, expected {num(truth)}", "half")

`checks.kinetic_energy(fn)` prints exactly one line and returns None:

    PASS: <check>
    FAIL: <check>: <what is wrong, numbers rounded>. Hint: <the mistake, named>
    NOT ATTEMPTED: <check>: fill in the cell above, then run this cell again.

`evaluate(name, answer)` gives (status, line) without printing (the grader).  A check never raises: the
learner's exceptions become FAILs, their prints and warnings are swallowed.  NOT ATTEMPTED means the function is
still `course build`'s stub.  `Fail(what, key)` looks the hint up in the check's hints, then GENERAL_HINTS; a hint
names the mistake, never the solution, and may use facts ("{PASS_MAX_ERROR}").

Checks fail closed.  A check reads what the learner's function returned only through the readers below
(`as_array`, `as_number`, `as_bool`, `as_pair`): plain numbers or a numeric numpy array (a subclass is read as its
data), of the expected shape, every entry finite; anything else (None, text such as 'nan', NaN or inf, an object
that merely converts to numbers, a shape that would broadcast) is a FAIL that names it.  Values compare with
`close`, which is False unless every entry is within the tolerance.  And a check says PASS only when every value
the learner's function returned went through a reader: a check that forgets to read one cannot pass anyone."""
import ast
import contextlib
import functools
import inspect
import io
import json
import textwrap
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from lesson_lib import facts

from .raised import raised_key, raised_where

REGISTRY = {}    # check name -> Check
DETAILS = {}     # extra numbers a check measured (e.g. training time), for a later cell to show

NOT_ATTEMPTED = "fill in the cell above, then run this cell again."

GENERAL_HINTS = {
    "raised": "the line of yours named above raised that error: read its message, fix that line in the cell "
              "above, run the cell, then this one",
    "uncalled": "a function or method used without parentheses is the function itself, not its result: `.min` "
                "names the method, `.min()` calls it (and f names a function, f(x) calls it)",
    "attribute": "that object has no attribute of that name: the instructions say what it offers, and dir(obj) "
                 "lists every name it has",
    "arguments": "a function was called with arguments it does not take: read its signature with help(name) and "
                 "pass what it asks for",
    "sequence": "arithmetic on a Python list or tuple repeats or joins it instead of computing with numbers: make "
                "it a numpy array first, np.array(...)",
    "unbound": "a variable is used before the line that gives it a value: a function's lines run from top to "
               "bottom, so compute it first",
    "undefined": "a name your function uses is not defined: check its spelling, or run the cell that defines it",
    "shapes": "two arrays whose shapes do not fit were combined: print their .shape, and give the smaller one "
              "the axis it lacks (None) or use @ for a matrix product",
    "index": "an index went past the end of an array: count from 0 to n - 1, with n = len(...)",
    "division": "your code divided by zero: nothing in this exercise needs a division by a value that can be 0",
    "broken": "make sure the cell above defines the function the instructions ask for, with the same arguments",
    "not a function": "pass the function itself, without calling it: check(my_function), not check(my_function())",
    "stub left": "you wrote code, but the stub's line `raise NotImplementedError(...)` still runs: delete that "
                 "line, run the cell, then this one",
    "none": "end your function with `return ...`",
    "not numbers": "return a number or a numpy array",
    "not a bool": "return True or False, e.g. bool(...) around the condition",
    "pair": "return the two results as a pair, (first, second)",
    "shape": "check which axis you sum over and that you return the final result",
    "not finite": "your result holds NaN (not a number) or inf: look for a division by zero, 0 * inf, the square "
                  "root or log of a negative number, or an array made with np.empty whose entries were never set",
    "unread": "this check did not read your result (a fault of the check, not yours): tell your teacher",
}


@contextlib.contextmanager
def quiet():
    """Swallow prints and warnings from the learner's code so the check's line stays alone."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
            warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


class RemoteAnswer:
    """An answer reached only through calls (the grader's judge: wire.Remote, the learner's function
    in another process): `callable`, `type_name`, `source`, and `invoke(args, kwargs)` -> the result as data."""
    callable, type_name, source = False, "object", ""

    def invoke(self, args, kwargs):
        raise NotImplementedError


class Offered:
    """Base of what a check hands the learner's function by reference (a proxy when grading):
    `attributes` the plain values it carries, `methods` the names it calls back, `refusal` for any other name."""
    attributes = ()
    methods = ()
    refusal = "'{name}' is not available in this exercise"


class Fail(Exception):
    """Raised inside a check: what is wrong (numbers rounded) and the key of the hint that names the mistake."""

    def __init__(self, what, hint):
        super().__init__(what)
        self.what, self.hint = what, hint


class LearnerError(Exception):
    """An exception raised by the learner's code (kept apart from a bug in the check itself)."""

    def __init__(self, exc):
        super().__init__(str(exc))
        self.exc = exc


@dataclass(frozen=True)
class Check:
    """A registered check: `name`, `notebook` (e.g. "02_model"), `function` (the learner's function the cell
    passes), `hints` (key -> text), `test` (the body that raises Fail), `computed_by` (library functions that
    compute the answer, for the grader's scan) and `points` (what a PASS is worth)."""
    name: str
    notebook: str
    function: str
    test: Callable = field(repr=False)
    hints: dict = field(default_factory=dict, repr=False)
    computed_by: tuple = ()
    points: float = 1

    def hint(self, key):
        """The text of hint `key`, with the lesson's facts filled in."""
        template = self.hints[key] if key in self.hints else GENERAL_HINTS[key]
        return template.format(**{name: facts.text(name) for name in facts.FORMATS})


class Outcome(NamedTuple):
    status: str             # "pass", "fail" or "not attempted"
    line: str
    hint: str | None        # the key of the hint on a FAIL line


def register(notebook, function=None, hints=None, computed_by=(), points=1):
    """Decorator: register a check for `notebook`; the decorated name becomes the printing check.
    function: the learner's function (default: the check's name); hints: key -> text ("{FACT}" filled from facts);
    computed_by: dotted names of library functions computing the answer; points: a PASS's worth (default 1)."""
    if isinstance(points, bool) or not isinstance(points, (int, float)) or not points > 0:
        raise ValueError(f"register({notebook!r}, points={points!r}): points must be a positive number, e.g. 2")

    def decorate(test):
        spec = Check(test.__name__, notebook, function or test.__name__, test, dict(hints or {}), tuple(computed_by),
                     points)
        if spec.name in REGISTRY:
            raise ValueError(f"a check named {spec.name!r} is already registered")
        REGISTRY[spec.name] = spec

        @functools.wraps(test)
        def check(answer):
            print(outcome(spec, answer).line)

        check.spec = spec
        return check
    return decorate


def evaluate(name, answer):
    """Run the registered check `name` on `answer` without printing: (status, line), status one of "pass",
    "fail", "not attempted"."""
    if name not in REGISTRY:
        raise KeyError(f"no check named {name!r}; registered: {', '.join(sorted(REGISTRY))}")
    result = outcome(REGISTRY[name], answer)
    return result.status, result.line


class _Reading:
    """What one run of a check received from the learner's function (`returned`) and read through a reader
    (`read`, by id): PASS needs every returned value read."""

    def __init__(self):
        self.returned, self.read = [], set()

    def unread(self):
        return [value for value in self.returned if value is not None and id(value) not in self.read]


_READINGS = []          # the runs in progress (innermost last)


def _returned(value):
    if _READINGS:
        _READINGS[-1].returned.append(value)
    return value


def _read(value):
    if _READINGS:
        _READINGS[-1].read.add(id(value))


def outcome(spec, answer):
    """Run spec.test(answer) and turn what happened into an Outcome (never raises).  PASS only when the test
    ended without a Fail and read every value the learner's function returned (fail closed)."""
    reading = _Reading()
    _READINGS.append(reading)
    try:
        return _outcome(spec, answer, reading)
    finally:
        _READINGS.remove(reading)


def _outcome(spec, answer, reading):
    try:
        spec.test(answer)
    except NotImplementedError as exc:
        if _still_the_stub(spec, answer):
            return Outcome("not attempted", f"NOT ATTEMPTED: {spec.name}: {NOT_ATTEMPTED}", None)
        if _raises_not_implemented(answer):
            return _fail(spec, "your function still raises NotImplementedError from the stub", "stub left")
        return _fail(spec, f"your code raised {exception_line(exc)}{raised_where(exc)}", "raised")
    except Fail as f:
        return _fail(spec, f.what, f.hint)
    except LearnerError as e:
        return _fail(spec, f"your code raised {exception_line(e.exc)}{raised_where(e.exc)}", raised_key(e.exc))
    except Exception as exc:                      # noqa: BLE001 -- a check never raises
        return _fail(spec, f"the check could not run ({exception_line(exc)})", "broken")
    if reading.unread() or not reading.returned:
        return _fail(spec, "the check ended without reading what your function returned", "unread")
    return Outcome("pass", f"PASS: {spec.name}", None)


def _fail(spec, what, key):
    try:
        hint = spec.hint(key)
    except KeyError:                              # a check's own bug: say so rather than raise
        return Outcome("fail", f"FAIL: {spec.name}: the check could not run (no hint {key!r}). "
                               f"Hint: {spec.hint('broken')}", "broken")
    return Outcome("fail", f"FAIL: {spec.name}: {what}. Hint: {hint}", key)


def exception_line(exc, limit=150):
    """'Type: message' on one line, cut to `limit` characters."""
    msg = " ".join(str(exc).split())
    if len(msg) > limit:
        msg = msg[:limit - 3] + "..."
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


def call(fn, *args, **kwargs):
    """Call the learner's fn quietly; NotImplementedError passes through, any other error is wrapped.  Every
    check calls the learner's code through here; a RemoteAnswer's call goes to the learner's kernel as data."""
    remote = isinstance(fn, RemoteAnswer)
    if not (fn.callable if remote else callable(fn)):
        raise Fail(f"expected a function, got {fn.type_name if remote else type(fn).__name__}", "not a function")
    try:
        if remote:                                # the grader's judge: the function runs in the learner's kernel
            return _returned(fn.invoke(args, kwargs))
        with quiet():
            return _returned(fn(*args, **kwargs))
    except NotImplementedError:
        raise
    except Exception as exc:                      # noqa: BLE001 -- every learner error becomes a FAIL line
        raise LearnerError(exc) from exc


def num(x, digits=3):
    """A number or array as short rounded text: 3.142, 2.1e-05, [0.300, -1.200]."""
    a = np.asarray(x)
    if a.dtype.kind not in "iufbc":
        return repr(x)
    a = np.real(a).astype(float)
    if a.ndim == 0:
        v = float(a)
        if v != 0 and abs(v) < 10.0 ** -digits:
            return f"{v:.2g}"
        return f"{round(v, digits) + 0.0:.{digits}f}"          # + 0.0 turns -0.0 into 0.0
    return "[" + ", ".join(num(row, digits) for row in a) + "]"


def _numbers(got):
    """`got` as a float array when it is plain numbers (Python or numpy numbers, a real numeric numpy array, whose
    subclass is read as its data, or lists and tuples of these), else None: text, None, complex numbers and objects
    that merely convert to numbers are not."""
    if isinstance(got, np.ndarray):
        data = np.ndarray.view(got, np.ndarray)            # the data, not a subclass's behaviour
        return data.astype(float) if data.dtype.kind in "iufb" else None
    if isinstance(got, (bool, np.bool_)):
        return np.array(float(bool(got)))
    if isinstance(got, int):
        return np.array(float(int.__index__(got)))
    if isinstance(got, float):
        return np.array(float.__float__(got))             # a subclass's own __float__ is not asked
    if isinstance(got, np.generic):
        return np.asarray(got).astype(float) if np.asarray(got).dtype.kind in "iufb" else None
    if isinstance(got, (list, tuple)):
        items = [_numbers(item) for item in (list if isinstance(got, list) else tuple).__iter__(got)]
        if any(item is None for item in items):
            return None
        try:
            return np.array(items, dtype=float) if items else np.zeros(0)
        except ValueError:                                 # ragged: no array
            return None
    return None


def as_array(got, shape, what):
    """The learner's result as a float array of the expected shape, every entry finite, or a Fail saying why not
    (hints "none", "not numbers", "shape", "not finite", each replaceable by the check)."""
    if got is None:
        raise Fail(f"{what} returned None", "none")
    if _is_function(got):
        raise Fail(f"{what} returned a {type(got).__name__}: the function itself, not its result", "uncalled")
    a = _numbers(got)
    if a is None:
        raise Fail(f"{what} returned {_kind(got)}, not numbers", "not numbers")
    if not np.all(np.isfinite(a)):
        raise Fail(f"{what} returned {'NaN' if np.any(np.isnan(a)) else 'inf'} (not a finite number)"
                   + ("" if a.ndim == 0 else f" in {int(np.sum(~np.isfinite(a)))} of its {a.size} entries"),
                   "not finite")
    if a.shape != tuple(shape):
        raise Fail(f"{what} returned shape {a.shape}, expected {tuple(shape)}", "shape")
    _read(got)
    return a


FUNCTION_TYPES = ("function", "method", "builtin_function_or_method", "method-wrapper")


def _is_function(got):
    """True for a function or method (or the grader's stand-in for one, which keeps its type's name)."""
    return type(got).__name__ in FUNCTION_TYPES or (callable(got) and not isinstance(got, (np.ndarray, np.generic)))


def shape_of(got):
    """The shape of the learner's result when it is plain numbers (see as_array), else None: for a hint that
    names a wrong shape, before the result is read."""
    a = _numbers(got)
    return None if a is None else a.shape


def as_number(got, what):
    """The learner's result as one finite float (as_array with shape ())."""
    return float(as_array(got, (), what))


def as_bool(got, what, key="not a bool"):
    """The learner's result as True or False: a bool or numpy bool only (not 1, 'yes' or NaN), else a Fail."""
    if not isinstance(got, (bool, np.bool_)):
        raise Fail(f"{what} returned {_kind(got)}, expected True or False", "none" if got is None else key)
    _read(got)
    return bool(got)


def as_pair(got, what, key="pair"):
    """The learner's result as the two values of a pair (a tuple or a list of two), else a Fail."""
    if got is None:
        raise Fail(f"{what} returned None", "none")
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise Fail(f"{what} returned {_kind(got)}, expected a pair of two values", key)
    _read(got)
    first, second = (list if isinstance(got, list) else tuple).__iter__(got)
    return first, second


def read_as(got, kind, what, key):
    """The learner's result when it is an instance of `kind` (a PlanarChain, a DeLaN), else a Fail."""
    if not isinstance(got, kind):
        raise Fail(f"{what} returned {_kind(got)}, expected a {kind.__name__}", key)
    _read(got)
    return got


def _kind(got):
    """What a value is, for a message: 'None', "str 'nan'", 'float nan', 'list of 3', 'MyObject'."""
    if got is None:
        return "None"
    if isinstance(got, (str, bytes)):
        return f"{type(got).__name__} {got[:20]!r}"
    if isinstance(got, (float, np.floating)) and not np.isfinite(got):
        return f"{type(got).__name__} {float(got)}"
    if isinstance(got, (list, tuple)):
        return f"a {type(got).__name__} of {len(got)}"
    return type(got).__name__


def close(a, b, tol):
    """True only when a and b are plain numbers (see _numbers) of one shape, finite and agreeing to `tol` in every
    entry (NaN, text, None and anything else unproven give False)."""
    a, b = _numbers(a), _numbers(b)
    return (a is not None and b is not None and a.shape == b.shape and bool(np.all(np.isfinite(a)))
            and bool(np.all(np.abs(a - b) <= tol)))


# ---------------------------------------------------------------------- is the learner's function the stub?
def stub_source(spec):
    """The source of the learner's stub for spec.function (stubs.json, written by lesson_tools build),
    or None."""
    return _stub_sources().get(spec.notebook, {}).get(spec.function)


@functools.cache
def _stub_sources():
    try:
        return json.loads((Path(__file__).with_name("stubs.json")).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _function_def(fn):
    """The learner's function as an ast.FunctionDef (from its source), or None when the source is unavailable."""
    try:
        source = fn.source if isinstance(fn, RemoteAnswer) else inspect.getsource(fn)
        tree = ast.parse(textwrap.dedent(source))
    except (OSError, TypeError, SyntaxError, ValueError):
        return None
    return next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)


def _still_the_stub(spec, answer):
    """True unless the learner's function is known to differ from the stub (names and comments aside)."""
    stub, mine = stub_source(spec), _function_def(answer)
    if stub is None or mine is None:
        return True
    theirs = ast.parse(stub).body[0]
    mine.name = theirs.name
    return ast.dump(mine) == ast.dump(theirs)


def _raises_not_implemented(answer):
    mine = _function_def(answer)
    return mine is not None and any(
        isinstance(node, ast.Raise) and node.exc is not None and "NotImplementedError" in ast.unparse(node.exc)
        for node in ast.walk(mine))
