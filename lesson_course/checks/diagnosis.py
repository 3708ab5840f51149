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
named by what would make it right (`reshaped`: summed, unwrapped, transposed, a pair in the other order).  When
nothing explains it, the line says what differs (`differs`: which entry, by how much, in which direction) and the
hint names no mistake (a key of GENERIC): never a guess.

A variation runs the course's own reference code, never the learner's, and only once an answer has failed: a
right answer costs no more than before."""
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .framework import Fail, LearnerError, Tolerance, as_array, as_numbers, as_pair, call, num, quiet, shape_of

GENERIC = {"differs", "raised", "broken", "unread", "shape", "not numbers", "not finite"}   # hints naming no mistake

class Variation(NamedTuple):
    """A mistake, as the wrong answer it gives: `answer` has the learner's signature and runs the reference with one
    thing changed; `hint` names the mistake (and the fix) for the FAIL line."""
    key: str
    hint: str
    answer: Callable


class Raised(NamedTuple):
    """A check's own hint for an exception of kind `kind` (raised.raised_key) whose message and the learner's line
    satisfy `when(message, line)`: only then is it more telling than the general hint."""
    kind: str
    key: str
    hint: str
    when: Callable


class Case(NamedTuple):
    """One input of a check: `label` for the FAIL line ("for 2 joints at q = ..."), `args()` fresh arguments for
    the learner's function (each call gets its own copies), `truth` the right result."""
    label: str
    args: Callable
    truth: object


def hints(variations, **more):
    """{key: hint} of `variations` (and `more`), for register(hints=...)."""
    return {**{v.key: v.hint for v in variations}, **more}


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


def pattern(results, truths, tol):
    """(key, detail) of a pattern every result shows against its truth (numbers or arrays), or None."""
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


def _ratio(k):
    for text, value in (("half", 0.5), ("twice", 2.0), ("a quarter of", 0.25), ("four times", 4.0)):
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
def judge(fn, cases, read, tol, variations=(), describe=None, names=None, deduce=None):
    """Run the learner's fn on every case; when a result is wrong, raise the Fail that names its mistake.

    read(raw, case): the learner's result read (it may raise Fail, e.g. for a shape); tol: a Tolerance;
    variations: the exercise's mistakes, in the order they are tried; describe(case, got) the FAIL line's 'what'
    (default: "for <label> it returned <got>, expected <truth>"); names: the parts of a pair's result;
    deduce(wrong): a key (or (key, detail for the line)) the cases answered wrongly (their indices) prove, when no
    variation explains them."""
    tol = tol if isinstance(tol, Tolerance) else Tolerance(float(tol))
    results = []
    for case in cases:
        try:
            results.append(read(call(fn, *case.args()), case))
        except (Fail, LearnerError):      # a later case raised: an earlier wrong result is named first, if any
            if any(not agrees(r, c.truth, tol) for r, c in zip(results, cases, strict=False)):
                break
            raise
    diagnose(cases[:len(results)], results, tol, variations, describe, names, deduce)


def diagnose(cases, results, tol, variations=(), describe=None, names=None, deduce=None):
    """Nothing when every result agrees with its case's truth; else the Fail that names the mistake: the first
    variation that explains the results, else what `deduce` proves, else a pattern of the results, else what
    differs (see judge)."""
    tol = tol if isinstance(tol, Tolerance) else Tolerance(float(tol))
    wrong = [i for i, (r, c) in enumerate(zip(results, cases, strict=True)) if not agrees(r, c.truth, tol)]
    if not wrong:
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
    truths = [c.truth for c in cases]
    if isinstance(cases[f].truth, (bool, np.bool_)):
        raise Fail(what, "differs")                # True where False belongs: the line has said it all
    parts = range(len(cases[f].truth)) if isinstance(cases[f].truth, (tuple, list)) else [None]
    for part in parts:
        got = results if part is None else [r[part] for r in results]
        want = truths if part is None else [t[part] for t in truths]
        if part is not None and all(agrees(g, w, tol) for g, w in zip(got, want, strict=True)):
            continue
        named = pattern(got, want, tol)
        if named is not None:
            key, detail = named
            label = "" if part is None else f" (in {(names or ['the first', 'the second'])[part]})"
            raise Fail(what + label + detail, key)
    raise Fail(f"{what}: {differs(results[f], cases[f].truth, tol, names)}", "differs")


def _shown(x):
    if isinstance(x, (tuple, list)):
        return "(" + ", ".join(_shown(v) for v in x) + ")"
    return num(x)
