"""lesson_course.checks.raised: an exception the learner's code raised, named by kind (a general hint's key) and by
the learner's own line.  The exceptions are raised by real code, as a learner's would be."""
import importlib.abc
import linecache
import uuid

import numpy as np
import pytest

from lesson_course.checks.framework import GENERAL_HINTS
from lesson_course.checks.raised import learner_line, operands, raised_key, raised_where
from lesson_lib import double_pendulum


def _raised(source, name="f", filename="<learner>", module_globals=None):
    """The exception that calling `name` (defined in `source`, compiled as `filename`) raises."""
    namespace = dict(module_globals or {"__name__": "learner"})
    if filename.startswith("<"):                                # as IPython keeps a cell's source
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
    with pytest.raises(Exception) as info:
        namespace[name]()
    return info.value


MISTAKES = [
    ("def f():\n    return 1 / 0\n", "division", ZeroDivisionError),
    ("def f():\n    return np.ones((2, 3)) @ np.ones((2, 3))\n", "shapes", ValueError),
    ("def f():\n    return np.dot(np.ones((2, 3)), np.ones((2, 3)))\n", "shapes", ValueError),
    ("def f():\n    return np.ones(3) + np.ones(4)\n", "shapes", ValueError),
    ("def f():\n    return [1, 2][5]\n", "index", IndexError),
    ("def f():\n    return np.ones(3).nope\n", "attribute", AttributeError),
    ("def f():\n    return undefined_name\n", "undefined", NameError),
    ("def f():\n    total += 1\n    return total\n", "unbound", UnboundLocalError),
    ("def f():\n    return np.ones(3).min < 1\n", "uncalled", TypeError),
    ("def f():\n    return np.linalg.eigvalsh(np.eye(2), nope=1)\n", "arguments", TypeError),
    ("def f():\n    return [1, 2] * 2.0\n", "sequence", TypeError),
    ("def f():\n    return [1, 2] - [0, 1]\n", "sequence", TypeError),          # lists do not subtract
    ("def f():\n    return [1, 2] + 3\n", "sequence", TypeError),                # can only concatenate list
    ("def f():\n    return double_pendulum().mass_matrix * 2.0\n", "uncalled", TypeError),    # a 'method'
    ("def f():\n    return (1, 2) - (0, 1)\n", "sequence", TypeError),
    ("def f():\n    return bool(np.ones(2) > 0)\n", "ambiguous", ValueError),   # one True/False per entry
    ("def f():\n    return np.ones(2) @ np.ones(2) @ np.ones(2)\n", "matmul number", ValueError),   # a number, @
    ("def f():\n    return double_pendulum().rnea([0.1, 0.2], 0, [0.0, 0.0])\n", "argument shape", ValueError),
    ("def f():\n    return 1 + 'a'\n", "raised", TypeError),                    # not about sequences
    ("def f():\n    return float('x')\n", "raised", ValueError),    # a ValueError, not of shapes
    ("def f():\n    raise RuntimeError('mine')\n", "raised", RuntimeError),
]


@pytest.mark.parametrize("source, key, kind", MISTAKES, ids=[m[1] + "-" + m[2].__name__ for m in MISTAKES])
def test_each_kind_of_mistake_gets_its_own_general_hint(source, key, kind):
    exc = _raised(source, module_globals={"__name__": "learner", "np": np, "double_pendulum": double_pendulum})
    assert isinstance(exc, kind), exc
    assert raised_key(exc) == key, (str(exc), raised_key(exc))
    assert key in GENERAL_HINTS, f"{key} names no general hint"


def test_the_keys_name_distinct_hints():
    hints = [GENERAL_HINTS[key] for key in {key for _, key, _ in MISTAKES}]
    assert len(set(hints)) == len(hints)


def test_an_exception_rebuilt_by_the_wire_is_named_by_its_class_name():
    """The grader's wire rebuilds a learner's exception as a class of the same name, not the builtin itself."""
    rebuilt = type("NameError", (Exception,), {})("name 'q_dot' is not defined")
    assert not isinstance(rebuilt, NameError) and raised_key(rebuilt) == "undefined"
    assert raised_key(type("Other", (Exception,), {})("name 'q_dot' is not defined")) == "raised"
    unbound = type("UnboundLocalError", (Exception,), {})(
        "cannot access local variable 'total' where it is not associated with a value")
    assert raised_key(unbound) == "unbound"


def test_an_exception_never_raised_names_no_line():
    assert raised_where(ValueError("made, not raised")) == ""


def test_a_lambda_is_named_by_its_line_alone():
    source = "f = lambda: 1 / 0\n"
    exc = _raised(source, filename="<ipython-input-3-lam>")
    assert raised_where(exc) == " (line 1 of the cell: `f = lambda: 1 / 0`)"


@pytest.mark.parametrize("length", (90, 91))
def test_a_long_line_is_shown_whole_up_to_90_characters_then_cut(length):
    line = "return 1 / 0 + " + "x" * (length - len("return 1 / 0 + "))
    assert len(line) == length
    exc = _raised(f"def f():\n    {line}\n", filename=f"<ipython-input-4-long{length}>")
    shown = line if length <= 90 else line[:87] + "..."
    assert raised_where(exc) == f" (line 2 of the cell, in f: `{shown}`)"


def test_the_learners_line_is_named_with_its_function_and_text():
    exc = _raised("def helper(x):\n    y = x + 1\n    return y / 0\n\ndef f():\n    return helper(2)\n",
                  filename="<ipython-input-7-abc>")
    assert learner_line(exc) == (3, "helper", "return y / 0", "the cell")
    assert raised_where(exc) == " (line 3 of the cell, in helper: `return y / 0`)"


def test_a_line_whose_text_is_unknown_is_named_without_an_empty_quote():
    filename = f"/nonexistent/{uuid.uuid4().hex}/gone.py"       # its file deleted, its source kept nowhere
    exc = _raised("def f():\n    return 1 / 0\n", filename=filename)
    assert learner_line(exc) == (2, "f", "", "gone.py")
    assert raised_where(exc) == " (line 2 of gone.py, in f)"


def test_a_file_of_the_learners_is_named_by_its_file_name():
    exc = _raised("def f():\n    return 1 / 0\n", filename="/tmp/nowhere/my_answers.py")
    assert learner_line(exc)[3] == "my_answers.py"


def test_a_line_at_the_top_level_of_a_cell_names_no_function():
    namespace, source = {"__name__": "learner"}, "x = 1\ny = x / 0\n"
    linecache.cache["<ipython-input-1-def>"] = (len(source), None, source.splitlines(True), "<ipython-input-1-def>")
    with pytest.raises(ZeroDivisionError) as info:
        exec(compile(source, "<ipython-input-1-def>", "exec"), namespace)
    assert raised_where(info.value).startswith(" (line 2 of the cell") and ", in" not in raised_where(info.value)


def test_a_line_whose_source_only_its_modules_loader_knows_is_still_shown():
    """Code whose file is not on disk (a notebook's cell, a zipped module): linecache asks the module's loader."""
    source = "def f():\n    return 1 / 0\n"

    class Loader(importlib.abc.InspectLoader):
        def get_source(self, fullname):
            return source

    filename = f"/nonexistent/{uuid.uuid4().hex}/learner_module.py"    # in no cache of this process yet
    exc = _raised(source, filename=filename,
                  module_globals={"__name__": "learner_module", "__loader__": Loader()})
    assert learner_line(exc) == (2, "f", "return 1 / 0", "learner_module.py")


def test_a_cell_is_the_learners_wherever_the_kernel_runs(monkeypatch):
    """A cell's code has no file ("<ipython-input-...>"): it is the learner's even when the kernel's working folder
    lies among the installed packages, where a relative path would resolve."""
    import sysconfig
    monkeypatch.chdir(sysconfig.get_paths()["purelib"])
    exc = _raised("def f():\n    return 1 / 0\n", filename="<ipython-input-9-cell>")
    assert learner_line(exc) == (2, "f", "return 1 / 0", "the cell")


def test_an_error_about_shapes_shows_the_shapes_of_the_arrays_its_line_names_in_reading_order():
    """z = W @ h + b with h's samples in rows: the line is named with what it combined (issue 57's example)."""
    source = "def f():\n    W, h, b = np.ones((4, 4)), np.ones((5, 4)), np.ones(4)\n    z = W @ h + b\n    return z\n"
    exc = _raised(source, filename="<ipython-input-11-shapes>", module_globals={"__name__": "learner", "np": np})
    assert raised_key(exc) == "shapes" and operands(exc) == "W is (4, 4), h (5, 4) and b (4,)"
    assert raised_where(exc) == " (line 3 of the cell, in f: `z = W @ h + b`, where W is (4, 4), h (5, 4) and b (4,))"


def test_an_error_of_another_kind_names_its_line_alone():
    exc = _raised("def f():\n    x = np.ones(3)\n    return x + undefined\n", filename="<ipython-input-12-n>",
                  module_globals={"__name__": "learner", "np": np})
    assert raised_key(exc) == "undefined" and operands(exc) == ""
    assert raised_where(exc) == " (line 3 of the cell, in f: `return x + undefined`)"


def test_the_wire_carries_the_shapes_from_the_learners_kernel():
    """Rebuilt in the judge, an exception keeps the shapes found in the kernel, and finds none of its own."""
    from lesson_tools.grading import wire
    source = "def f():\n    a, b = np.ones((2, 3)), np.ones((2, 3))\n    return a @ b\n"
    exc = _raised(source, filename="<ipython-input-13-w>", module_globals={"__name__": "learner", "np": np})
    rebuilt = wire.rebuilt_error(wire.error(exc))
    assert operands(rebuilt) == "a is (2, 3) and b (2, 3)"
    assert raised_where(rebuilt) == raised_where(exc)
