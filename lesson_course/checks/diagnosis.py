"""Naming a wrong answer by the mistake that explains it: the learner's results against systematic variations of the
right answer, computed on the same inputs.

A check lists its exercise's variations, each a wrong answer with the learner's signature, written from the
reference with one thing changed (a term dropped or its sign flipped, arguments swapped, degrees for radians, one
joint for all, the wrong axis, ...):

    Variation("no g", "the gravity torque g(q) is missing: ...", lambda model, q, qd, ...: M @ a + c)

`judge(fn, cases, ...)` runs the learner's function on every case (`call`, `read`), and when a result is wrong
names the first variation that gives the learner's results on every case (and differs from the truth on one of
them): its hint is the FAIL line's.  Then the patterns any numeric result can show (`pattern`: a sign, one factor
or one offset in every case, entries left at 0, the transpose, the reverse order); a result of another shape is
named by what would make it right (`reshaped`: summed, unwrapped, transposed, a pair in the other order; with the
inputs, `product_missing`: the product with one of them still to take).  A pair whose parts are each explained by a
different variation is named part by part (`explained_parts`).  Then the properties every right answer has, tried
on the learner's function itself (`Property`: how the result scales with an input, which inputs it must ignore,
which term of the law is wrong when each is tried alone): what they find is true of the learner's code whatever
else is wrong with it.  When nothing explains it, the line says what differs (`differs`: which entry, by how much,
in which direction) and the hint names no mistake (a key of GENERIC): never a guess.

A variation runs the course's own reference code, never the learner's; a property calls the learner's function
again on inputs made from a case; both only once an answer has failed, but for a property marked `always`: one a wrong
function can break while its results on the cases agree (a number taken from a slice of the batch that holds the
worst rows), tried on a right result too, at the cost of its own calls."""
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .framework import (
    Fail,
    LearnerError,
    Tolerance,
    as_array,
    as_numbers,
    as_pair,
    call,
    num,
    parameter_names,
    probed,
    quiet,
    shape_of,
)

GENERIC = {"differs", "raised", "broken", "unread", "shape", "not numbers", "not finite"}   # hints naming no mistake

# The general hints that claim what the function computes (a pattern of its results, a shape that one step would
# make right, an input returned): claims about behaviour, which hold on any inputs (the benchmark tries them)
BEHAVIOURAL = {"sign", "factor", "offset", "zeros", "stopped early", "wiped", "transposed", "reversed", "whole array",
               "not summed", "wrapped", "reshaped", "pair order", "summed away", "power", "rounded", "per joint",
               "running", "product missing", "input returned"}

class Variation(NamedTuple):
    """A mistake, as the wrong answer it gives: `answer` has the learner's signature and runs the reference with one
    thing changed; `hint` names the mistake (and the fix) for the FAIL line."""
    key: str
    hint: str
    answer: Callable


class Raised(NamedTuple):
    """A check's own hint for an exception of kind `kind` (raised.raised_key) whose message and the learner's line
    satisfy `when(message, line)`: only then is it more telling than the general hint.  `key` is its own, never a
    general hint's (framework.register refuses one): an error its condition does not fit gets the general hint."""
    kind: str
    key: str
    hint: str
    when: Callable


class Case(NamedTuple):
    """One input of a check: `label` for the FAIL line ("for 2 joints at q = ..."), `args()` fresh arguments for
    the learner's function (each call gets its own copies), `truth` the right result, `n` its number of joints (or
    links), when it has one."""
    label: str
    args: Callable
    truth: object
    n: int | None = None


class Property(NamedTuple):
    """A property every right answer has, tried on the learner's function once it has failed (or `always`):
    `probe(ask, case)` calls the learner's function through `ask(*args)` on inputs made from `case` (ask returns its
    result as plain numbers, a pair of them or a bool, or None when it raised or returned something else) and returns
    what breaks the property, as text for the FAIL line, or None.  `hint` names what that means; `locates`: it says
    which part of the computation is wrong rather than what the mistake is; `always`: tried on a result that agrees
    with every case too (a property a right answer keeps exactly, which a wrong function can break on inputs whose
    results agree by chance), so that breaking it fails the answer."""
    key: str
    hint: str
    probe: Callable
    locates: bool = False
    always: bool = False


def hints(variations, **more):
    """{key: hint} of `variations` (and `more`), for register(hints=...)."""
    return {**{v.key: v.hint for v in variations}, **more}


# ---------------------------------------------------------------------- a family of mistakes any check can use
PRODUCTS = (     # M @ x written otherwise: (what it is, the product); each differs from M @ x for a general M
    ("M's diagonal alone", lambda M, x: np.diagonal(M, axis1=-2, axis2=-1) * x),
    ("M * x entry by entry, then summed down the columns", lambda M, x: np.sum(M * x[..., None, :], axis=-2)),
    ("M * x entry by entry, then summed along the rows of the transpose", lambda M, x: np.sum(M, axis=-1) * x),
    ("M's inverse", lambda M, x: np.linalg.solve(M, x)),
)


# ---------------------------------------------------------------------- comparing results
def _as_float(x):
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        return None
    return a


def agrees(got, want, tol):
    """True when got and want have one structure (numbers, arrays, pairs of them, booleans) and every entry agrees
    within `tol` (a Tolerance, or a number: an absolute one)."""
    tol = tol if isinstance(tol, Tolerance) else Tolerance(float(tol))
    if isinstance(want, (tuple, list)):
        return (isinstance(got, (tuple, list)) and len(got) == len(want)
                and all(agrees(g, w, tol) for g, w in zip(got, want, strict=True)))
    if isinstance(want, (bool, np.bool_)):
        return isinstance(got, (bool, np.bool_)) and bool(got) == bool(want)
    a, b = _as_float(got), _as_float(want)
    if a is None or b is None or a.shape != b.shape or not np.all(np.isfinite(a)) or not np.all(np.isfinite(b)):
        return False
    return bool(np.all(np.abs(a - b) <= tol.allowed(b)))


def _matching(tol):
    """The tolerance a variation is matched with: the check's, and at least 1e-9 relative (a mistake computed in
    another order rounds differently)."""
    return Tolerance(tol.atol, max(tol.rtol, 1e-9))


def run(answer, args):
    """What the reference `answer` gives on `args` (quietly), or None when it cannot run there."""
    try:
        with quiet():
            return answer(*args)
    except Exception:                             # noqa: BLE001 -- a variation that does not apply here
        return None


# ---------------------------------------------------------------------- which mistake explains it
def explained(variations, cases, results, tol, first=0):
    """The first variation whose answer gives `results` on every case and differs from the truth on one, or None.
    Each variation is tried on case `first` (a failing one) before the others, so most stop after one run."""
    tol = _matching(tol if isinstance(tol, Tolerance) else Tolerance(float(tol)))
    order = [first] + [i for i in range(len(cases)) if i != first]
    for variation in variations:
        differs_somewhere = False
        for i in order:
            value = run(variation.answer, cases[i].args())
            if value is None or not agrees(results[i], value, tol):
                break
            differs_somewhere = differs_somewhere or not agrees(cases[i].truth, value, tol)
        else:
            if differs_somewhere:
                return variation
    return None


def explained_parts(variations, cases, results, tol, first=0):
    """[(part, variation)] when the results are pairs and every wrong part is explained by a variation of its own
    (the first whose same part gives the learner's on every case and differs from the truth on one), else None:
    two mistakes at once, one in each part."""
    if not isinstance(cases[first].truth, (tuple, list)):
        return None
    tol = _matching(tol if isinstance(tol, Tolerance) else Tolerance(float(tol)))
    values = [None] * len(variations)

    def value(v, i):                   # variation v's result on case i, computed once
        if values[v] is None:
            values[v] = {}
        if i not in values[v]:
            values[v][i] = run(variations[v].answer, cases[i].args())
        return values[v][i]

    found = []
    for part in range(len(cases[first].truth)):
        if all(agrees(r[part], c.truth[part], tol) for r, c in zip(results, cases, strict=True)):
            continue
        for v in range(len(variations)):
            mine = [value(v, i) for i in range(len(cases))]
            if all(m is not None and isinstance(m, (tuple, list)) and len(m) > part
                   and agrees(results[i][part], m[part], tol) for i, m in enumerate(mine)):
                found.append((part, variations[v]))
                break
        else:
            return None
    return found or None


def pattern(results, truths, tol, sizes=None):
    """(key, detail) of a pattern every result shows against its truth (numbers or arrays), or None.  sizes: each
    case's number of joints (Case.n), for a result the right one divided or multiplied by it."""
    tol = _matching(tol if isinstance(tol, Tolerance) else Tolerance(float(tol)))
    got, want = [_as_float(r) for r in results], [_as_float(t) for t in truths]
    if any(g is None or w is None or g.shape != w.shape for g, w in zip(got, want, strict=True)):
        return None
    if not any(not agrees(g, w, tol) for g, w in zip(got, want, strict=True)):
        return None

    def every(transform):
        try:
            return all(agrees(g, transform(w), tol) for g, w in zip(got, want, strict=True))
        except (ValueError, IndexError):          # a transform that does not fit these shapes
            return False
    nonzero = [w for w in want if np.any(np.abs(w) > tol.allowed(w))]
    if nonzero and every(np.negative):
        return "sign", ""
    if every(np.zeros_like):
        return "zeros", ""
    flat_w = np.concatenate([w.ravel() for w in want])
    flat_g = np.concatenate([g.ravel() for g in got])
    big = np.abs(flat_w) > 1e-6 * max(1.0, float(np.abs(flat_w).max(initial=0.0)))
    if np.count_nonzero(big) >= 2:
        k = float(np.median(flat_g[big] / flat_w[big]))
        if k != 0 and every(lambda w, k=k: k * w):
            return "factor", f" ({_ratio(k)} the right value, in every case)"
    if sizes and all(n for n in sizes) and len(set(sizes)) > 1:
        for power, text in ((-1, "divided by"), (1, "times")):
            if all(agrees(g, w * float(n) ** power, tol) for g, w, n in zip(got, want, sizes, strict=True)):
                return "per joint", f" (the right value {text} the number of joints, in every case)"
    for digits in range(7):
        if every(lambda w, d=digits: np.round(w, d)):
            return "rounded", f" (the right value rounded to {digits} decimals)"
    spread = np.abs(flat_w[big])
    if np.count_nonzero(big) >= 2 and spread.max() > 1.5 * spread.min():
        for power, text in ((2.0, "the square"), (0.5, "the square root")):
            like = np.sign(flat_w[big]) * spread**power
            k = float(np.median(flat_g[big] / like))
            if k != 0 and every(lambda w, k=k, p=power: k * np.sign(w) * np.abs(w) ** p):
                return "power", f" (it goes as {text} of the right value, {num(k)} times it, in every case)"
    if len(got) >= 2:
        d = got[0] - want[0]
        if np.any(np.abs(d) > tol.allowed(want[0])) and every(lambda w, d=d: w + d):
            return "offset", f" (off by {num(d)} in every case)"
    if all(w.ndim == 1 and w.size > 1 for w in want) and every(lambda w: np.full_like(w, w.sum())):
        return "whole array", ""
    for key in ("stopped early", "wiped"):
        if all(_partly_zero(g, w, tol, key) for g, w in zip(got, want, strict=True)) and any(
                not agrees(g, w, tol) for g, w in zip(got, want, strict=True)):
            return key, ""
    if all(w.ndim == 2 and w.shape[0] == w.shape[1] for w in want) and every(np.transpose):
        return "transposed", ""
    for axis in range(min(w.ndim for w in want)):
        if every(lambda w, axis=axis: np.flip(w, axis=axis)):
            return "reversed", f" (in reverse order along its axis {axis})" if axis else ""
    return None


UNITS = ((100.0, "100 times: centimetres where metres belong?"), (1000.0, "1000 times: grams or millimetres where "
         "kilograms or metres belong?"), (0.01, "a hundredth of: metres read as centimetres?"), (0.001, "a thousandth "
         "of: a unit a thousand times too large?"), (180 / np.pi, "180/pi times: degrees where radians belong?"),
         (np.pi / 180, "pi/180 times: radians read as degrees?"))


def _ratio(k):
    for text, value in (("half", 0.5), ("twice", 2.0), ("a quarter of", 0.25), ("four times", 4.0), *(
            (text, value) for value, text in UNITS)):
        if np.isclose(k, value, rtol=1e-9):
            return text
    return f"{num(k)} times"


def _partly_zero(g, w, tol, key):
    """True when, along some axis, g agrees with w on a leading ('stopped early') or trailing ('wiped') block of
    indices and is exactly 0 on the rest (with at least one zeroed index where w is not 0)."""
    for axis in range(w.ndim):
        n = w.shape[axis]
        for k in range(1, n):
            right = slice(0, k) if key == "stopped early" else slice(n - k, n)
            zero = slice(k, n) if key == "stopped early" else slice(0, n - k)
            gr, wr = np.take(g, range(n)[right], axis=axis), np.take(w, range(n)[right], axis=axis)
            gz, wz = np.take(g, range(n)[zero], axis=axis), np.take(w, range(n)[zero], axis=axis)
            if np.all(gz == 0) and np.any(np.abs(wz) > tol.allowed(wz)) and agrees(gr, wr, tol):
                return True
    return False


# ---------------------------------------------------------------------- a result of another shape
def reshaped(raw, truth, tol, axes=None):
    """(key, detail) naming what would turn the learner's `raw` result (plain numbers of another shape than the
    truth's) into the right one, or None.  axes: what the truth's axes hold, for the detail ("joints")."""
    a = _numbers_of(raw)
    want = _as_float(truth)
    if a is None or want is None or a.shape == want.shape or not np.all(np.isfinite(a)):
        return None
    tol = _matching(tol if isinstance(tol, Tolerance) else Tolerance(float(tol)))
    if a.size == want.size and agrees(np.squeeze(a), np.squeeze(want), tol) and a.squeeze().shape == want.squeeze(
            ).shape:
        return "wrapped", ""
    if a.ndim == 2 and a.T.shape == want.shape and agrees(a.T, want, tol):
        return "transposed", ""
    if a.size and agrees(np.sum(a), want, tol) and want.ndim == 0:
        return "not summed", " (the sum of all its entries is right)"
    if want.ndim == 0 and a.size > 1 and agrees(a.ravel()[-1], want, tol):
        return "running", " (its last entry is the right value)"
    for axis in range(a.ndim):
        if np.sum(a, axis=axis).shape == want.shape and agrees(np.sum(a, axis=axis), want, tol):
            return "not summed", f" (its sum over axis {axis} is right)"
    if a.size == want.size and agrees(a.reshape(want.shape), want, tol):
        return "reshaped", ""
    for axis in range(want.ndim):
        for keep in (True, False):
            if agrees(a, np.sum(want, axis=axis, keepdims=keep), tol):
                named = f", the {axes[axis]}" if axes and axis < len(axes) else ""
                return "summed away", f" (the right result added up along its axis {axis}{named})"
    return None


def _numbers_of(raw):
    return as_numbers(raw)


def product_missing(raw, truth, tol, args, names):
    """(key, detail) when the learner's `raw` result (of another shape than the truth's) is one product with an
    input away from it: x @ raw or raw @ x is right for an input vector x (one of `args`, named by `names`)."""
    a, want = _numbers_of(raw), _as_float(truth)
    if a is None or want is None or a.shape == want.shape or not np.all(np.isfinite(a)):
        return None
    tol = _matching(tol if isinstance(tol, Tolerance) else Tolerance(float(tol)))
    for k, x in enumerate(args):
        x = _numbers_of(x) if isinstance(x, (np.ndarray, list, tuple)) else None
        if x is None or x.ndim != 1 or a.ndim == 0 or a.shape[-1] != len(x) and a.shape[0] != len(x):
            continue
        name = names[k] if k < len(names) else f"argument {k + 1}"
        for left, right in ((a, x), (x, a)):
            try:
                value = left @ right
            except ValueError:
                continue
            if value.shape == want.shape and agrees(value, want, tol):
                return "product missing", f" (its product with `{name}` is the right value)"
    return None


def input_returned(cases, results, names, tol):
    """(key, detail) when every result (or one part of every pair) is one of its case's inputs, unchanged."""
    tol = _matching(tol if isinstance(tol, Tolerance) else Tolerance(float(tol)))
    pairs = isinstance(cases[0].truth, (tuple, list))
    for part in (range(len(cases[0].truth)) if pairs else [None]):
        got = [r if part is None else r[part] for r in results]
        want = [c.truth if part is None else c.truth[part] for c in cases]
        if all(agrees(g, w, tol) for g, w in zip(got, want, strict=True)):
            continue
        args = [c.args() for c in cases]
        for k in range(len(args[0])):
            if not isinstance(args[0][k], np.ndarray):
                continue
            if all(agrees(g, a[k], tol) and not agrees(a[k], w, tol) or agrees(g, w, tol)
                   for g, a, w in zip(got, args, want, strict=True)):
                name = names[k] if k < len(names) else f"argument {k + 1}"
                where = "" if part is None else f" as part {part + 1} of the pair"
                return "input returned", f" (it returned `{name}` as it was given{where})"
    return None


def read_like(raw, truth, what, tol, axes=None):
    """The learner's result read (framework.as_array) with the truth's shape; a result of another shape fails with
    the key `reshaped` finds (axes: what the truth's axes hold), else the reader's own ("shape")."""
    want = np.asarray(truth)
    shape = shape_of(raw)
    if shape is not None and shape != want.shape:
        found = reshaped(raw, truth, tol, axes)
        if found is not None:
            key, detail = found
            raise Fail(f"{what} returned shape {shape}, expected {want.shape}{detail}", key)
    return as_array(raw, want.shape, what)


def read_pair_like(raw, truth, what, tol, names=("the first", "the second"), axes=(None, None), say_part=True):
    """A pair of results read like `truth`'s two parts; both parts right but swapped is named ("pair order").
    say_part: a part's reader names it ("layer_jet, as its value a, returned ..."), else the function alone."""
    first, second = as_pair(raw, what)
    if agrees(_numbers_of(first), truth[1], tol) and agrees(_numbers_of(second), truth[0], tol) and not agrees(
            truth[0], truth[1], tol):
        raise Fail(f"{what} returned its two results in the other order ({names[1]} first)", "pair order")
    shapes = (shape_of(first), shape_of(second))
    if shapes == (np.shape(truth[1]), np.shape(truth[0])) and shapes[0] != shapes[1]:
        raise Fail(f"{what} returned {names[1]}'s shape {shapes[0]} first and {names[0]}'s {shapes[1]} second",
                   "pair order")
    return tuple(read_like(part, want, f"{what}, as {name}," if say_part else what, tol, axis)
                 for part, want, name, axis in zip((first, second), truth, names, axes, strict=True))


# ---------------------------------------------------------------------- what differs
def differs(got, want, tol, names=None):
    """Which entries of `got` differ from `want` (beyond `tol`), by how much and in which direction, as text."""
    tol = tol if isinstance(tol, Tolerance) else Tolerance(float(tol))
    if isinstance(want, (tuple, list)):
        names = names or [f"part {i}" for i in range(len(want))]
        parts = [f"{n} {differs(g, w, tol)}" if not agrees(g, w, tol) else f"{n} is right"
                 for n, g, w in zip(names, got, want, strict=True)]
        return "; ".join(parts)
    g, w = _as_float(got), _as_float(want)
    if g.ndim == 0:
        return _off(float(g), float(w))
    bad = np.argwhere(np.abs(g - w) > tol.allowed(w))
    if len(bad) == 0:
        return "agrees"
    worst = tuple(bad[np.argmax([abs(g[tuple(i)] - w[tuple(i)]) for i in bad])])
    where = f"[{', '.join(str(int(i)) for i in worst)}]"
    text = f"entry {where} {_off(float(g[worst]), float(w[worst]))}"
    if len(bad) > 1:
        text = f"{len(bad)} of its {g.size} entries differ, the most {where}: {text.removeprefix(f'entry {where} ')}"
    elif g.size > 1:
        text += f"; the other {g.size - 1} agree"
    return text


def _off(g, w):
    d = g - w
    how = f"{num(abs(d))} too {'large' if d > 0 else 'small'}"
    ratio = f", {num(g / w)} times it" if w != 0 and g != 0 and abs(g / w - 1) > 1e-3 else ""
    return f"is {num(g)} where {num(w)} is right ({how}{ratio})"


# ---------------------------------------------------------------------- the check, case by case
def judge(fn, cases, read, tol, variations=(), describe=None, names=None, deduce=None, properties=()):
    """Run the learner's fn on every case; when a result is wrong, raise the Fail that names its mistake.

    read(raw, case): the learner's result read (it may raise Fail, e.g. for a shape); tol: a Tolerance;
    variations: the exercise's mistakes, in the order they are tried; describe(case, got) the FAIL line's 'what'
    (default: "for <label> it returned <got>, expected <truth>"); names: the parts of a pair's result;
    deduce(wrong): a key (or (key, detail for the line)) the cases answered wrongly (their indices) prove, when no
    variation explains them; properties: the exercise's Property list, tried on fn itself when nothing else
    explains its results."""
    tol = tol if isinstance(tol, Tolerance) else Tolerance(float(tol))
    params = parameter_names(fn)
    results = []
    for case in cases:
        args = case.args()
        try:
            raw = call(fn, *args)
            results.append(read(raw, case))
        except (Fail, LearnerError) as failed:  # a later case raised: an earlier wrong result is named first, if any
            if any(not agrees(r, c.truth, tol) for r, c in zip(results, cases, strict=False)):
                break
            if isinstance(failed, Fail) and failed.hint == "shape":
                found = product_missing(raw, case.truth, tol, args, params)
                if found is not None:
                    raise Fail(failed.what + found[1], found[0]) from None
            raise

    def ask(*args):
        """fn's result on args as plain numbers (a pair of them, a bool), or None: for a property's probe."""
        try:
            raw = call(fn, *args)
            plain = _plain(raw)
            if plain is not None:
                probed(raw)                     # compared by the property: read
            return plain
        except Exception:                       # noqa: BLE001 -- whatever fn does on a probe, it is no verdict
            return None

    diagnose(cases[:len(results)], results, tol, variations, describe, names, deduce, ask, properties, params)


def _plain(raw):
    if isinstance(raw, (bool, np.bool_)):
        return bool(raw)
    if isinstance(raw, (tuple, list)) and len(raw) == 2:
        parts = [as_numbers(part) for part in raw]
        if all(part is not None for part in parts):
            return tuple(parts)
    return as_numbers(raw)


def diagnose(cases, results, tol, variations=(), describe=None, names=None, deduce=None, ask=None, properties=(),
             params=()):
    """Nothing when every result agrees with its case's truth; else the Fail that names the mistake: the first
    variation that explains the results, else what `deduce` proves, else a variation for each wrong part of a pair,
    else an input returned as it was, else a pattern of the results, else the first property (tried through `ask`)
    the learner's function breaks, else what differs (see judge); results that all agree fail only on a property
    marked `always` that the function breaks.  params: the learner's parameter names."""
    tol = tol if isinstance(tol, Tolerance) else Tolerance(float(tol))
    wrong = [i for i, (r, c) in enumerate(zip(results, cases, strict=True)) if not agrees(r, c.truth, tol)]
    if not wrong:
        always = [p for p in properties if p.always] if ask else []
        for case in cases if always else ():
            broken = _broken(always, ask, case)
            if broken is not None:
                raise Fail(f"for {case.label} it returned the right result, but {broken[1]}", broken[0])
        return
    f = wrong[0]
    what = describe(cases[f], results[f]) if describe else (
        f"for {cases[f].label} it returned {_shown(results[f])}, expected {_shown(cases[f].truth)}")
    found = explained(variations, cases, results, tol, first=f)
    if found is not None:
        raise Fail(what, found.key)
    deduced = deduce(wrong) if deduce else None
    if deduced is not None:
        key, detail = deduced if isinstance(deduced, tuple) else (deduced, "")
        raise Fail(what + detail, key)
    parts = explained_parts(variations, cases, results, tol, first=f)
    if parts:
        label = lambda part: (names or ["the first", "the second"])[part]          # noqa: E731
        others = "".join(f"; and in {label(part)}: {v.hint}" for part, v in parts[1:])
        raise Fail(f"{what} (in {label(parts[0][0])}){others}", parts[0][1].key)
    returned = input_returned(cases, results, params, tol) if not isinstance(cases[f].truth, (bool, np.bool_)) \
        else None
    if returned is not None:
        raise Fail(what + returned[1], returned[0])
    truths = [c.truth for c in cases]
    if not isinstance(cases[f].truth, (bool, np.bool_)):
        pair = isinstance(cases[f].truth, (tuple, list))
        for part in (range(len(cases[f].truth)) if pair else [None]):
            got = results if part is None else [r[part] for r in results]
            want = truths if part is None else [t[part] for t in truths]
            if part is not None and all(agrees(g, w, tol) for g, w in zip(got, want, strict=True)):
                continue
            named = pattern(got, want, tol, [c.n for c in cases])
            if named is not None:
                key, detail = named
                label = "" if part is None else f" (in {(names or ['the first', 'the second'])[part]})"
                raise Fail(what + label + detail, key)
    broken = _broken(properties, ask, cases[f]) if ask else None
    if broken is not None:
        raise Fail(f"{what}: {broken[1]}", broken[0])
    if isinstance(cases[f].truth, (bool, np.bool_)):
        raise Fail(what, "differs")                # True where False belongs: the line has said it all
    raise Fail(f"{what}: {differs(results[f], cases[f].truth, tol, names)}", "differs")


def _broken(properties, ask, case):
    """(key, text) of the first property the learner's function breaks on inputs made from `case`, or None."""
    for prop in properties:
        try:
            with quiet():
                text = prop.probe(ask, case)
        except Exception:                        # noqa: BLE001 -- a probe that cannot run here proves nothing
            text = None
        if text:
            return prop.key, text
    return None


# ---------------------------------------------------------------------- helpers for properties
def same(a, b, tol):
    """True when a and b (plain numbers, pairs of them or bools, as `ask` returns them) agree within tol (at least
    1e-9 relative: a property compares the learner's function with itself, computed in another order)."""
    if a is None or b is None:
        return False
    return agrees(a, b, _matching(tol if isinstance(tol, Tolerance) else Tolerance(float(tol))))


def scaling(ask, args, k, factor, power, tol):
    """(ratio, right) when the result on `args` with argument k multiplied by `factor` is not `factor**power` times
    the result on `args` (the learner's function against itself), else None; ratio is None when it cannot be told
    (a zero result, an error): then nothing is claimed."""
    before = ask(*args)
    scaled = list(args)
    scaled[k] = factor * np.asarray(args[k], dtype=float)
    after = ask(*scaled)
    if before is None or after is None or np.shape(before) != np.shape(after):
        return None
    before, after = np.asarray(before, dtype=float), np.asarray(after, dtype=float)
    if not np.any(np.abs(before) > 1e-9 * max(1.0, float(np.abs(before).max()))):
        return None
    if same(after, factor**power * before, tol):
        return None
    big = np.abs(before) > 1e-6 * float(np.abs(before).max())
    ratios = after[big] / before[big]
    ratio = float(np.median(ratios)) if np.allclose(ratios, np.median(ratios), rtol=1e-6) else None
    return ratio, factor**power


def grew(ratio, factor, what):
    """'doubling qd multiplied your result by 2.000' (or 'changed it, not by one factor' when it has no ratio)."""
    verb = {2.0: "doubling", 0.5: "halving", 3.0: "tripling"}.get(factor, f"multiplying by {num(factor)}")
    if ratio is None:
        return f"{verb} {what} changed your result, and not by one factor for every entry"
    return f"{verb} {what} multiplied your result by {num(ratio)}"


def _shown(x):
    if isinstance(x, (tuple, list)):
        return "(" + ", ".join(_shown(v) for v in x) + ")"
    return num(x)
