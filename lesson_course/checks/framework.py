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

from .raised import learner_line, raised_key, raised_where

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
    "undefined": "a name your function uses is not defined where it runs (the error above names it): check its "
                 "spelling; a module or a constant (np, PASS_MAX_ERROR) needs the cell that imports or defines it to "
                 "have run (a restarted kernel forgets it); a value your function works on comes in through its "
                 "arguments, not from another cell's variable",
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
    "several": "return one True or False, not a tuple, a list or an array: join conditions with `and` (a tuple or a "
               "list is always true in an `if`, whatever it holds), and reduce an array of comparisons with .all() "
               "or .any()",
    "pair": "return the two results as a pair, (first, second)",
    "shape": "your result has another shape than the one expected (both are given above): print its .shape and "
             "compare it with the instructions",
    "not finite": "your result holds NaN (not a number) or inf: look for a division by zero, 0 * inf, the square "
                  "root or log of a negative number, or an array made with np.empty whose entries were never set",
    "unread": "this check did not read your result (a fault of the check, not yours): tell your teacher",
    "changed input": "a function must leave the arrays it is given as they were: its caller still needs them. "
                     "`x += ...` or `x[...] = ...` writes into the caller's array; `x_new = x + ...` makes a new "
                     "one (or start from a copy, x.copy())",
    "ambiguous": "a comparison of an array gives one True or False per entry, and `and`, `or`, `if` or bool() "
                 "need a single one: reduce the array to one number first (e.g. its .min()), or use .all() or "
                 ".any()",
    "matmul number": "@ was given a single number (it has 0 dimensions): @ multiplies arrays with at least one "
                     "axis, and a number is multiplied with *",
    "argument shape": "a library function was given an argument of another shape than it takes (its message above "
                      "says which, and the shape it expects): a plain 0 is one number, np.zeros(n) is n of them",
    "differs": "your result differs from the right one where the line above says: compare how you compute those "
               "entries with the instructions",
    "sign": "every value has the right size and the opposite sign: a sign is flipped for the whole result (a "
            "minus too many, or a difference taken the other way round)",
    "factor": "your result is the right one times the same factor in every case (the ratio is above): something "
              "is counted that many times, or a constant is off in your formula (a 1/2, a 2, a division too many or "
              "missing)",
    "offset": "your result is off by the same amount in every case (above): a constant is added or left out",
    "zeros": "your result is all zeros: the array your function made was returned without being filled",
    "stopped early": "the first entries of your result are right and the rest are still 0: the loop that fills "
                     "them ended early (a `return` inside the loop, or a range that stops short)",
    "wiped": "only the last entries of your result are right and those before are 0: each pass of your loop wiped "
             "what the passes before it filled (an array made again, e.g. np.zeros, inside the loop): make it "
             "once, before the loop",
    "transposed": "your result is the transpose of the right one: its rows are the right one's columns",
    "reversed": "your result holds the right values in reverse order (along its first axis, or the one given "
                "above)",
    "not summed": "the entries of your result add up to the right value: add them (over the axis given above), "
                  "or return the terms added together rather than side by side",
    "wrapped": "your result holds the right numbers inside an extra list or axis: return them as they are (the "
               "shape expected is given above)",
    "reshaped": "your result holds the right numbers in another shape (given above): return them in the shape "
                "expected",
    "pair order": "both results are right but in the other order: return the pair in the order the instructions "
                  "give",
    "summed away": "your result is the right one added up along one of its axes (given above): keep that axis, "
                   "one entry for each of its indices",
    "whole array": "every entry of your result holds the sum of all the right entries: each term was added to the "
                   "whole array (`c += ...`, `c = c + ...`) instead of to its own entry (`c[i] += ...`)",
    "power": "your result is a power of the right one (which, above): a square or a square root too many or too few "
             "(a norm where its square belongs, a product of a thing with itself, ** where * was meant)",
    "rounded": "your result is the right one rounded (to the decimals above): return the value itself and round "
               "only where you print it",
    "per joint": "your result is the right one divided (or multiplied) by the number of joints, as above: a mean "
                 "where a sum belongs, or a division or a count too many",
    "running": "your result holds every step of the computation and its last entry is the right value: return the "
               "final value alone (a running total such as np.cumsum, or a list filled along the way, is not it)",
    "product missing": "your result still needs a product with one of the inputs (named above): one more @ with it "
                       "turns your result into the right one",
    "input returned": "your result is one of the function's own inputs, unchanged (named above): the value you "
                      "computed is not the one returned (a stale variable, or a new value given a name that is then "
                      "not used)",
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
    in another process): `callable`, `type_name`, `source`, and `invoke(args, kwargs)` -> the result as data,
    after which `changed` holds the arguments the call changed in place ({("args", k) or ("kwargs", name): the
    argument as it is now})."""
    callable, type_name, source, changed = False, "object", "", None

    def invoke(self, args, kwargs):
        raise NotImplementedError


class Offered:
    """Base of what a check hands the learner's function by reference (a proxy when grading):
    `attributes` the plain values it carries, `methods` the names it calls back, `refusal` for any other name."""
    attributes = ()
    methods = ()
    refusal = "'{name}' is not available in this exercise"


class Tolerance(NamedTuple):
    """An entry agrees with the expected value w when |got - w| <= atol + rtol |w| (a check declares its own)."""
    atol: float
    rtol: float = 0.0

    def allowed(self, want):
        return self.atol + self.rtol * np.abs(want)


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
    passes), `written` (its hints written by hand: key -> text), `test` (the body that raises Fail), `computed_by`
    (library functions that compute the answer, for the grader's scan), `points` (what a PASS is worth), `mistakes`
    (the exercise's mistakes as wrong answers, diagnosis.Variation: a tuple, or a function that makes it, called
    when first needed, so that importing a check runs nothing that the grader's kernel copy has hollowed),
    `raised` (its own hints for some exceptions, diagnosis.Raised), `properties` (diagnosis.Property: what every
    right answer does, tried on a failing answer itself; a tuple or a function that makes it) and `tolerance` (how
    far from the truth an answer may be and still pass: a Tolerance, or for a check of True/False answers how near
    its cases come to each boundary).  `variations`, `probes` and `hints` (every key the check can give, the
    variations', properties' and raised hints' included) are made from these."""
    name: str
    notebook: str
    function: str
    test: Callable = field(repr=False)
    written: dict = field(default_factory=dict, repr=False)
    computed_by: tuple = ()
    points: float = 1
    mistakes: object = field(default=(), repr=False)
    raised: tuple = field(default=(), repr=False)
    tolerance: object = None
    properties: object = field(default=(), repr=False)

    @functools.cached_property
    def variations(self):
        """The exercise's mistakes (diagnosis.Variation), in the order the check tries them."""
        return tuple(self.mistakes() if callable(self.mistakes) else self.mistakes)

    @functools.cached_property
    def probes(self):
        """The properties every right answer has (diagnosis.Property), in the order the check tries them."""
        return tuple(self.properties() if callable(self.properties) else self.properties)

    @functools.cached_property
    def hints(self):
        """key -> text of every hint the check gives of its own."""
        return {**{v.key: v.hint for v in self.variations}, **{p.key: p.hint for p in self.probes},
                **{r.key: r.hint for r in self.raised}, **self.written}

    def hint(self, key):
        """The text of hint `key`, with the lesson's facts filled in."""
        template = self.hints[key] if key in self.hints else GENERAL_HINTS[key]
        return template.format(**{name: facts.text(name) for name in facts.FORMATS})


class Outcome(NamedTuple):
    status: str             # "pass", "fail" or "not attempted"
    line: str
    hint: str | None        # the key of the hint on a FAIL line


def register(notebook, function=None, hints=None, computed_by=(), points=1, variations=(), raised=(),
             tolerance=None, properties=()):
    """Decorator: register a check for `notebook`; the decorated name becomes the printing check.
    function: the learner's function (default: the check's name); hints: key -> text ("{FACT}" filled from facts);
    computed_by: dotted names of library functions computing the answer; points: a PASS's worth (default 1);
    variations and properties (tuples, or functions that make them), raised, tolerance: see Check (the variations',
    properties' and raised hints join `hints`)."""
    if isinstance(points, bool) or not isinstance(points, (int, float)) or not points > 0:
        raise ValueError(f"register({notebook!r}, points={points!r}): points must be a positive number, e.g. 2")

    raised = tuple(raised)
    shared = [r.key for r in raised if r.key in GENERAL_HINTS]
    if shared:
        raise ValueError(f"register({notebook!r}, raised=...): a check's own hint for an error needs a key of its "
                         f"own, not the general {shared[0]!r} (under that key it would replace the general hint "
                         f"even when its condition does not hold): name its condition, e.g. 'loop variable'")

    def decorate(test):
        spec = Check(test.__name__, notebook, function or test.__name__, test, dict(hints or {}), tuple(computed_by),
                     points, variations if callable(variations) else tuple(variations), raised, tolerance,
                     properties if callable(properties) else tuple(properties))
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


def probed(value):
    """value, what a property's probe got from the learner's function, marked read: the property compares it."""
    _read(value)
    return value


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
        return _fail(spec, f"your code raised {exception_line(e.exc)}{raised_where(e.exc)}", _raised_key(spec, e.exc))
    except Exception as exc:                      # noqa: BLE001 -- a check never raises
        return _fail(spec, f"the check could not run ({exception_line(exc)})", "broken")
    if reading.unread() or not reading.returned:
        return _fail(spec, "the check ended without reading what your function returned", "unread")
    return Outcome("pass", f"PASS: {spec.name}", None)


def _raised_key(spec, exc):
    """The key of the hint for the learner's exception: the check's own (spec.raised) when its condition holds
    for the message and the learner's line, else the general one of its kind."""
    key = raised_key(exc)
    line = getattr(exc, "learner_line", None) or learner_line(exc)
    text = line[2] if line else ""
    for own in spec.raised:
        try:
            if own.kind == key and own.when(str(exc), text):
                return own.key
        except Exception:                         # noqa: BLE001 -- a condition that cannot tell: not this hint
            continue
    return key


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
    check calls the learner's code through here; a RemoteAnswer's call goes to the learner's kernel as data.

    What fn does to its arguments is seen: copies of them are kept (kept()), and an argument fn changed in place
    is a Fail ("changed input") that names it.  A RemoteAnswer reports the arguments its call changed
    (`invoke`'s `changed`, from the kernel: wire.serve_answer), which are compared with the copies here."""
    remote = isinstance(fn, RemoteAnswer)
    if not (fn.callable if remote else callable(fn)):
        raise Fail(f"expected a function, got {fn.type_name if remote else type(fn).__name__}", "not a function")
    before = kept((args, kwargs))
    try:
        if remote:                                # the grader's judge: the function runs in the learner's kernel
            result = fn.invoke(args, kwargs)
            after = _with_changes((args, kwargs), fn.changed)
        else:
            with quiet():
                result = fn(*args, **kwargs)
            after = (args, kwargs)
    except NotImplementedError:
        raise
    except Exception as exc:                      # noqa: BLE001 -- every learner error becomes a FAIL line
        raise LearnerError(exc) from exc
    changes = [found for kind in (0, 1) for k in (range(len(args)) if kind == 0 else kwargs)
               for found in [changed(before[kind][k], after[kind][k], (kind, k))] if found]
    if changes:
        names = [_argument_name(fn, path) for path, _ in changes]
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        raise Fail(f"your function changed {'its argument' if len(names) == 1 else 'its arguments'} {listed} in "
                   f"place ({names[0]}: {changes[0][1]}), where its caller's values must stay as they were",
                   "changed input")
    return _returned(result)


# ---------------------------------------------------------------------- what a function does to its arguments
class _Attributes(dict):
    """A chain's parameters or a model's weights, kept (compared attribute by attribute)."""


def kept(value):
    """What can be changed in place in `value`, copied: arrays, the lists, tuples and dicts holding them, a chain's
    parameters, a model's weights and step; None for the rest (numbers, text, functions: nothing to change)."""
    from lesson_lib.model.delan import DeLaN
    from lesson_lib.physics.chain import PlanarChain
    if isinstance(value, np.ndarray):
        return np.ndarray.copy(value)
    if isinstance(value, (list, tuple)):
        return [kept(v) for v in (list if isinstance(value, list) else tuple).__iter__(value)]
    if isinstance(value, dict):
        return {k: kept(v) for k, v in dict.items(value)}
    if isinstance(value, PlanarChain):
        return _Attributes({k: np.array(getattr(value, k), dtype=float) for k in ("m", "l", "lc", "I", "g")})
    if isinstance(value, DeLaN):
        return _Attributes(weights=np.array(value.get_params(), dtype=float), step=np.array(float(value.step)))
    return None


def changed(before, after, where=()):
    """(path, what changed) for the first place where `after` differs from its copies `before` (kept), or None.
    The path's first two entries name the argument: (0, k) the positional argument k, (1, name) a keyword one;
    then indices, keys, and ".name" for a chain's or a model's attribute."""
    if before is None:
        return None
    if isinstance(before, np.ndarray):
        now = after if isinstance(after, np.ndarray) else None
        if now is None:
            return where, "it is no longer an array"
        if now.shape != before.shape:
            return where, f"its shape went from {before.shape} to {now.shape}"
        same = now == before
        if now.dtype.kind in "fc" and before.dtype.kind in "fc":
            same = same | (np.isnan(now) & np.isnan(before))
        if not np.all(same):
            entry = tuple(int(i) for i in np.argwhere(~np.asarray(same))[0]) if before.ndim else ()
            at = f"entry [{', '.join(map(str, entry))}] " if before.ndim else ""
            return where, f"{at}went from {num(before[entry])} to {num(np.asarray(now)[entry])}"
        return None
    if isinstance(before, _Attributes):
        now = kept(after)
        if not isinstance(now, _Attributes) or set(now) != set(before):
            return where, "it is no longer what it was"
        for k in before:
            found = changed(before[k], now[k], (*where, f".{k}"))
            if found:
                return found[0], "the model's weights changed" if k == "weights" else found[1]
        return None
    if isinstance(before, list):
        if not isinstance(after, (list, tuple)) or len(after) != len(before):
            return where, "its length changed"
        for k, (b, a) in enumerate(zip(before, after, strict=True)):
            found = changed(b, a, (*where, k))
            if found:
                return found
        return None
    if isinstance(before, dict):
        if not isinstance(after, dict) or set(after) != set(before):
            return where, "its keys changed"
        for k in before:
            found = changed(before[k], after[k], (*where, k))
            if found:
                return found
    return None


def _with_changes(arguments, changes):
    """(args, kwargs) with the arguments a RemoteAnswer's call changed ({("args", k) or ("kwargs", name): new
    value}) put in place of the ones the judge sent."""
    args, kwargs = list(arguments[0]), dict(arguments[1])
    for (kind, k), value in (changes or {}).items():
        if kind == "args" and isinstance(k, int) and 0 <= k < len(args):
            args[k] = value
        elif kind == "kwargs" and k in kwargs:
            kwargs[k] = value
    return tuple(args), kwargs


def _argument_name(fn, path):
    """The learner's name for what `path` (from changed) points to, e.g. `qd`, `data['q']`, `chain.m`."""
    kind, k, *rest = path
    names = parameter_names(fn) if kind == 0 else []
    name = str(k) if kind == 1 else names[k] if k < len(names) else f"number {k + 1}"
    for part in rest:
        name += part if isinstance(part, str) and part.startswith(".") else f"[{part!r}]"
    return f"`{name}`"


def parameter_names(fn):
    """The names of fn's positional parameters, from its signature or (a RemoteAnswer) its source; [] when
    unknown."""
    if not isinstance(fn, RemoteAnswer):
        try:
            return [p.name for p in inspect.signature(fn).parameters.values()
                    if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            return []
    try:
        tree = ast.parse(textwrap.dedent(fn.source or ""))
    except (SyntaxError, ValueError):
        return []
    node = next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))),
                None)
    return [a.arg for a in (node.args.posonlyargs + node.args.args)] if node else []


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


def as_numbers(got):
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
        items = [as_numbers(item) for item in (list if isinstance(got, list) else tuple).__iter__(got)]
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
    a = as_numbers(got)
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
    a = as_numbers(got)
    return None if a is None else a.shape


def as_number(got, what):
    """The learner's result as one finite float (as_array with shape ())."""
    return float(as_array(got, (), what))


def as_bool(got, what, key="not a bool"):
    """The learner's result as True or False: a bool or numpy bool only (not 1, 'yes' or NaN), else a Fail whose
    hint is "none" for None, "several" for a tuple, a list or an array of more than one entry, else `key`."""
    if not isinstance(got, (bool, np.bool_)):
        several = isinstance(got, (tuple, list)) or (isinstance(got, np.ndarray) and got.size > 1)
        raise Fail(f"{what} returned {_kind(got)}, expected True or False",
                   "none" if got is None else "several" if several else key)
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
    """True only when a and b are plain numbers (see as_numbers) of one shape, finite and agreeing to `tol` in every
    entry (a number: absolute; a Tolerance: relative to b's entries too; NaN, text, None and anything else unproven
    give False)."""
    a, b = as_numbers(a), as_numbers(b)
    allowed = tol.allowed(b) if isinstance(tol, Tolerance) and b is not None else tol
    return (a is not None and b is not None and a.shape == b.shape and bool(np.all(np.isfinite(a)))
            and bool(np.all(np.isfinite(b))) and bool(np.all(np.abs(a - b) <= allowed)))


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
