"""Every registered check fails closed: given hostile answers it never says PASS and never shows a traceback.

The answers are generic, made for every check from its right answer (tests/check_cases.py RIGHT), so a new check
meets them without editing a list: NaN and inf where its numbers go, the text 'nan', None, the right numbers with
an axis that would broadcast, objects that pretend to be the right numbers through __eq__, __float__, __bool__ or
__array__ (once, or every time), a numpy subclass holding wrong numbers that claims to equal anything, a tuple
that shows other items than it holds, and a chain subclass whose rnea lies.  Each must get FAIL with a line that
says what was wrong (a hint the check or the framework gives on purpose, not "the check could not run").
A check that forgets to read the learner's result cannot pass a right answer either (the framework's rule).
"""
import numpy as np
import pytest
from check_cases import RIGHT

from lesson_course import checks
from lesson_course.checks import framework
from lesson_lib import PlanarChain

NAMES = sorted(checks.REGISTRY)


class Pretends:
    """Not numbers, but answers every protocol as the right value `value` would."""

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = object.__hash__

    def __float__(self):
        return float(np.asarray(self.value, dtype=float).ravel()[0])

    def __bool__(self):
        return bool(np.all(self.value))

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.value, dtype=dtype)

    def __len__(self):
        return len(self.value)

    def __getitem__(self, k):
        return self.value[k]

    def __iter__(self):
        return iter(self.value)

    def __sub__(self, other):
        return np.zeros_like(np.asarray(other, dtype=float))

    __rsub__ = __sub__


class Once(Pretends):
    """Converts to the right numbers the first time only, to zeros after."""

    def __init__(self, value):
        super().__init__(value)
        self.asked = 0

    def __array__(self, dtype=None, copy=None):
        self.asked += 1
        a = np.asarray(self.value, dtype=dtype)
        return a if self.asked == 1 else np.zeros_like(a)


class Agreeable(np.ndarray):
    """A numpy subclass that holds wrong numbers and says it equals, and differs by nothing from, anything."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        shape = np.broadcast_shapes(*(np.shape(x) for x in inputs))
        if ufunc in (np.equal, np.less_equal, np.greater_equal, np.isfinite, np.isclose):
            return np.ones(shape, dtype=bool)
        if ufunc in (np.not_equal, np.less, np.greater, np.isnan, np.isinf):
            return np.zeros(shape, dtype=bool)
        return np.zeros(shape)


def agreeable(value):
    return (np.asarray(value, dtype=float) + 1.0).view(Agreeable)


class TwoFaced(tuple):
    """A pair that holds wrong items but shows the right ones when iterated or indexed."""

    def __new__(cls, held, shown):
        self = super().__new__(cls, held)
        self.shown = shown
        return self

    def __iter__(self):
        return iter(self.shown)

    def __getitem__(self, k):
        return self.shown[k]


def numeric(value):
    return not isinstance(value, (bool, np.bool_, PlanarChain, tuple, list)) and np.asarray(value).dtype.kind in "iuf"


def hostile(right):
    """{label: value} of hostile stand-ins for the right result `right`."""
    out = {"NaN": float("nan"), "inf": float("inf"), "-inf": -float("inf"), "text 'nan'": "nan",
           "text 'NaN'": "NaN", "None": None, "an object": object(), "pretends to be right": Pretends(right),
           "right the first time it is converted": Once(right)}
    if isinstance(right, (bool, np.bool_)):
        out.update({"text 'True'": str(right), "the number 1 or 0": int(right), "an array of the bool":
                    np.array([right]), "NaN for a bool": float("nan")})
    elif isinstance(right, (tuple, list)) and len(right) == 2:
        first, second = right
        for k, (name, part) in enumerate((("first", first), ("second", second))):
            for label, value in hostile(part).items():
                pair = [first, second]
                pair[k] = value
                out[f"{name} item: {label}"] = tuple(pair)
        out["a pair that shows other items than it holds"] = TwoFaced(
            [np.asarray(first, dtype=float) + 1.0, np.asarray(second, dtype=float) + 1.0], right)
    elif isinstance(right, PlanarChain):
        class LyingChain(PlanarChain):                     # wrong lengths, and an rnea that gives the right chain's
            def rnea(self, *args, **kwargs):
                return right.rnea(*args, **kwargs)
        out["a chain whose rnea lies"] = LyingChain(right.m, 2 * right.l, right.lc, right.I, g=right.g)
    elif numeric(right):
        a = np.asarray(right, dtype=float)
        out.update({"NaN where the numbers go": np.full_like(a, np.nan), "inf where the numbers go":
                    np.full_like(a, np.inf), "the numbers as text": repr(a.tolist()),
                    "an extra axis that broadcasts": a[None], "a trailing axis that broadcasts": a[..., None],
                    "a numpy subclass that agrees with anything": agreeable(a)})
        if a.size > 1:
            wrong = a.copy()
            wrong.flat[0] = np.nan
            out["one NaN among right numbers"] = wrong
    return out


def recorder(name, seen):
    """The right answer of check `name`, appending each result it returns to `seen`."""
    def record(*args, **kwargs):
        value = RIGHT[name](*args, **kwargs)
        seen.append(value)
        return value
    return record


def returning(value):
    """An answer that returns `value` whatever it is given."""
    return lambda *args, **kwargs: value


def cases():
    """(check name, label, index of the call whose result is replaced) for every check and every hostile kind of its
    right result (sampled once with the check's own inputs)."""
    out = []
    for name in NAMES:
        seen = []
        assert checks.evaluate(name, recorder(name, seen))[0] == "pass", f"{name}: its right answer must pass"
        out += [(name, label) for label in hostile(seen[0])]
    return out


@pytest.mark.parametrize("name, label", cases())
def test_a_hostile_answer_never_passes_and_is_named(name, label):
    def answer(*args, **kwargs):
        return hostile(RIGHT[name](*args, **kwargs))[label]
    result = framework.outcome(checks.REGISTRY[name], answer)
    assert result.status == "fail", (label, result.line)
    assert result.hint not in ("broken", "unread", "raised"), \
        f"{label}: the check did not read it on purpose: {result.line}"
    assert "Traceback" not in result.line and result.line.startswith(f"FAIL: {name}: ")


@pytest.mark.parametrize("name", NAMES)
def test_nan_text_and_none_are_named_in_the_line(name):
    for value, words in ((float("nan"), ("NaN", "True or False", "expected a")), ("nan", ("str 'nan'",)),
                         (None, ("None",))):
        line = framework.outcome(checks.REGISTRY[name], returning(value)).line
        assert any(w in line for w in words), (value, line)


@pytest.mark.parametrize("name", NAMES)
def test_a_non_finite_answer_gets_a_hint_that_says_so(name):
    """NaN where numbers belong: the line says NaN, and its hint speaks of NaN (the check's own words, or the
    general ones); a check whose answer is True or False says what it expected instead."""
    line = checks.evaluate(name, lambda *a, **k: float("nan"))[1]
    assert "NaN" in line.split(". Hint: ")[1] or "True or False" in line or "expected a" in line, line


def test_a_check_that_does_not_read_the_learners_result_cannot_pass():
    """The framework's own rule: without a reader, the same answer that passes the real check fails."""
    def lazy(fn):                                     # calls the answer, never looks at what it returned
        framework.call(fn, np.eye(2), np.ones(2))

    def reads(fn):
        framework.as_number(framework.call(fn, np.eye(2), np.ones(2)), "kinetic_energy")

    spec = framework.Check("lazy_demo", "02_model", "kinetic_energy", test=lazy)
    assert framework.outcome(spec, RIGHT["kinetic_energy"]).status == "fail"
    assert "without reading what your function returned" in framework.outcome(spec, RIGHT["kinetic_energy"]).line
    reading = framework.Check("reads_demo", "02_model", "kinetic_energy", test=reads)
    assert framework.outcome(reading, RIGHT["kinetic_energy"]).status == "pass"


@pytest.mark.parametrize("value, shape, ok", [
    (1.0, (), True), (np.float32(2), (), True), (3, (), True), ([1.0, 2.0], (2,), True), ((1, 2), (2,), True),
    (np.arange(4.0).reshape(2, 2), (2, 2), True), ("1.0", (), False), (b"1", (), False), (1 + 2j, (), False),
    (np.array([1 + 0j]), (1,), False), (np.array(["1"]), (1,), False), (np.array([1.0], dtype=object), (1,), False),
    ([1.0, "2"], (2,), False), ([[1.0], [2.0, 3.0]], (2,), False), ({"a": 1.0}, (), False),
])
def test_only_plain_numbers_are_read_as_numbers(value, shape, ok):
    if ok:
        assert framework.as_array(value, shape, "f").shape == shape
    else:
        with pytest.raises(framework.Fail, match="not numbers"):
            framework.as_array(value, shape, "f")


def test_a_float_subclass_is_read_as_its_value_not_its_float():
    class Liar(float):
        def __float__(self):
            return 0.0
    assert framework.as_number(Liar(5.0), "f") == 5.0


def test_close_is_false_for_anything_not_shown_to_agree():
    assert framework.close(1.0, 1.0 + 1e-12, 1e-9)
    assert not framework.close(np.nan, 1.0, 1e-9) and not framework.close(1.0, np.nan, 1e-9)
    assert not framework.close(np.inf, np.inf, 1e-9) and not framework.close([1.0], 1.0, 1e-9)
    assert not framework.close([1.0, np.nan], [1.0, 2.0], 1e9)
