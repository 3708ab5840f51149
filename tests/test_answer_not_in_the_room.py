"""The answer is not in the room (lesson_tools.grading.withheld): the library a grading kernel gets holds no
implementation of the notebook's exercises' answers, and nothing else in it computes them.

- Every name a check lists as computing its answer exists, and the kernel's copy has it hollow: importable, same
  signature, and raising when called; the checks themselves are hollow there; everything else is byte for byte.
- The search: a real kernel-side process on the kernel's copy, reached through the grader's wire as the judge
  reaches a learner's function, calls every function, class and method of its lesson_lib (private ones too) on
  each check's own arguments (offered chains and models as the judge's proxies), and the judge's side compares
  every result, and every item inside it, with the right answer at every one of the check's calls.  Nothing may
  match.  The control: the same search on the whole library finds each exercise's own implementation.
"""
import ast
import json
import os
import socket
import subprocess
import sys
import textwrap

import numpy as np
import psutil
import pytest
from check_cases import RIGHT

from lesson_course import checks
from lesson_course.checks import framework
from lesson_tools.grading import verified, wire, withheld
from lesson_tools.grading.clean import Budget
from lesson_tools.grading.course_notebooks import load

ROOT = verified.package_root()
NOTEBOOKS = sorted({spec.notebook for spec in checks.REGISTRY.values()})


def kernel_library(tmp_path, names):
    """The kernel's copy for `names` (withheld) in tmp_path, with the wire's kernel side beside it."""
    expected = verified.manifest(ROOT)
    kept = withheld.kernel_copy(ROOT, expected, tmp_path, names)
    verified.copy_kernel_side(ROOT, expected, tmp_path)
    return kept


# ---------------------------------------------------------------------- the registry and the copy
def test_every_name_a_check_lists_is_defined_where_it_says():
    files = set(verified.manifest(ROOT))
    for name, spec in checks.REGISTRY.items():
        for dotted in spec.computed_by:
            rel, qual = withheld.locate(dotted, files)
            assert withheld.targets(rel, (ROOT / rel).read_text(), {qual}), f"{name}: {dotted} hollows nothing"


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_the_kernels_copy_is_hollow_where_it_must_be_and_the_same_elsewhere(tmp_path, stem):
    names = withheld.for_notebook(load()[stem])
    kept = kernel_library(tmp_path, names)
    hollowed = withheld.plan(set(kept), names)
    for rel, digest in kept.items():
        same = digest == verified.sha256((ROOT / rel).read_bytes())
        assert same == (rel not in hollowed), rel
    script = textwrap.dedent(f"""
        import importlib, inspect, json, pkgutil
        import lesson_lib
        from lesson_course import checks
        for info in pkgutil.walk_packages(lesson_lib.__path__, "lesson_lib."):
            importlib.import_module(info.name)                 # every module still imports
        out = {{}}
        for dotted in {names!r}:
            rel, qual = dotted.split("."), None
            for cut in range(len(rel) - 1, 0, -1):
                try:
                    obj = importlib.import_module(".".join(rel[:cut]))
                except ImportError:
                    continue
                for part in rel[cut:]:
                    obj = getattr(obj, part)
                break
            fns = [v for v in vars(obj).values() if inspect.isfunction(v)] if inspect.isclass(obj) else [obj]
            said = []
            for fn in fns:
                try:
                    fn(*[None] * (fn.__code__.co_argcount))
                    said.append("ran")
                except RuntimeError as exc:
                    said.append(str(exc))
            out[dotted] = said
        try:
            checks.REGISTRY["{sorted(n for n, s in checks.REGISTRY.items() if s.notebook == stem)[0]}"].test(print)
            out["check"] = "ran"
        except RuntimeError as exc:
            out["check"] = str(exc)
        print(json.dumps(out))
    """)
    proc = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r}); " + script],
                          capture_output=True, text=True, timeout=HANG, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    said = json.loads(proc.stdout.splitlines()[-1])
    for dotted in names:
        assert said[dotted] and all(s.startswith(f"{dotted.rsplit('.', 1)[0]}") and "is withheld from this kernel"
                                    in s for s in said[dotted]), (dotted, said[dotted])
    assert "is withheld from this kernel while the notebook is graded: the checks run in the grader" in said["check"]


def test_hollowing_keeps_every_other_byte_and_each_signature():
    source = ('"""A module."""\nimport math\n\n\ndef kept(x):\n    return x + 1   # stays\n\n\n@staticmethod\n'
              'def answer(a,\n           b):\n    """The answer is a + b."""\n    c = a + b\n    return c\n\n\n'
              'def one_line(x): return 2 * x\n\n\nclass K:\n    def method(self, y):\n        def inner():\n'
              '            return y\n        return inner()\n\n    def other(self):\n        return 3\n\n\n'
              'TABLE = {"a": lambda m: m > 0}\n')
    out = withheld.hollow("m.py", source, {"answer", "one_line", "K.method"}, "pkg.m")
    assert "def kept(x):\n    return x + 1   # stays" in out and "def other(self):\n        return 3" in out
    assert "@staticmethod\ndef answer(a,\n           b):\n    raise RuntimeError('pkg.m.answer is withheld" in out
    assert "The answer is" not in out and "c = a + b" not in out and "inner" not in out
    assert "def one_line(x): raise RuntimeError('pkg.m.one_line is withheld" in out
    assert out.endswith('TABLE = {"a": lambda m: m > 0}\n')
    everything = withheld.hollow("m.py", source, {withheld.EVERYTHING}, "pkg.m", withheld.CHECK_WITHHELD)
    space = {}
    exec(compile(everything, "m.py", "exec"), space)                   # noqa: S102 -- the test's own module
    for call in (lambda: space["kept"](1), lambda: space["TABLE"]["a"](1), lambda: space["K"]().other()):
        with pytest.raises(RuntimeError, match="the checks run in the grader"):
            call()
    with pytest.raises(KeyError, match="defines no nope"):
        withheld.hollow("m.py", source, {"nope"}, "pkg.m")


def test_a_module_hollowed_whole_still_imports_when_its_import_calls_a_factory_of_its_own():
    """A check module builds hints with factories at import (a property's probe); hollowed whole, it must import
    (else the kernel's checks package cannot, and no submission is graded), while what the factory builds, and
    every other function and lambda, raises."""
    source = ('def power_of(k, law):\n    """A probe for argument k."""\n    def probe(x):\n        return x ** k\n'
              '    return probe\n\n\nclass Spec:\n    hint = power_of(3, "cube")\n\n\n'
              'PROBES = (power_of(2, "square"), lambda x: x + 1)\n\n\ndef truth(x):\n    return 2 * x\n')
    space = {}
    exec(compile(withheld.hollow("m.py", source, {withheld.EVERYTHING}, "pkg.m", withheld.CHECK_WITHHELD), "m.py",
                 "exec"), space)                                     # noqa: S102 -- the test's own module
    for call in (lambda: space["PROBES"][0](2), lambda: space["PROBES"][1](2), lambda: space["Spec"].hint(2),
                 lambda: space["truth"](2)):
        with pytest.raises(RuntimeError, match="the checks run in the grader"):
            call()
    assert withheld.called_at_import(ast.parse(source)) == {"power_of"}


# ---------------------------------------------------------------------- the search
SEARCH = r'''
import importlib, inspect, pkgutil, signal, sys, warnings
import numpy as np
sys.path.insert(0, FOLDER)
warnings.simplefilter("ignore")
import matplotlib
matplotlib.use("Agg")
import lesson_lib
from lesson_grading_wire import serve_answer


class Late(BaseException):
    pass


def _late(*_):
    raise Late()


signal.signal(signal.SIGPROF, _late)


def candidates():
    found = []
    for info in pkgutil.walk_packages(lesson_lib.__path__, "lesson_lib."):
        try:
            module = importlib.import_module(info.name)
        except Exception:
            continue
        for name, obj in sorted(vars(module).items()):
            if getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj):
                found.append((f"{module.__name__}.{name}", obj, False))
            elif inspect.isclass(obj):
                found.append((f"{module.__name__}.{name}", obj, True))
                for attr, value in vars(obj).items():
                    fn = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
                    if inspect.isfunction(fn):
                        found.append((f"{module.__name__}.{name}.{attr}", getattr(obj, attr), False))
    return found


CANDIDATES = candidates()


def attempt(fn, args, kwargs):
    signal.setitimer(signal.ITIMER_PROF, 2.0)                # 2 s of CPU, whatever the load
    try:
        return fn(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)


def variants(args):
    """The arguments as given; with a batch axis of one added to each array (the result's first item then); and
    with the number 1 inserted at each place (a span, a step, a count the library takes that the exercise has not)."""
    yield "", args, lambda v: v
    if any(isinstance(a, np.ndarray) for a in args):
        yield " (a batch of one)", tuple(a[None] if isinstance(a, np.ndarray) else a for a in args), lambda v: v[0]
    for k in range(len(args) + 1):
        yield f" (1 inserted at {k})", args[:k] + (1,) + args[k:], lambda v: v


def search(*args, **kwargs):
    """{label: plain result} of every candidate on the arguments; with the narrowing keyword (a list of the labels that
    matched the calls before), of the candidates those labels start with alone: a match must hold at every call."""
    only = kwargs.pop(NARROWED_TO, None)
    results = {}
    for label, fn, is_class in CANDIDATES:
        if only is not None and not any(m.startswith(label) for m in only):
            continue
        for how, given, taken in variants(args):
            try:
                results[label + how] = taken(attempt(fn, given, kwargs))
            except (Exception, Late):
                pass
        if not is_class:
            continue
        for k in range(1, len(args) + 1):              # an object made from the first k arguments, then its methods
            try:
                obj = attempt(fn, args[:k], {})
            except (Exception, Late):
                continue
            for attr in dir(fn):
                if attr.startswith("__") and attr != "__call__":
                    continue
                try:
                    method = getattr(obj, attr)
                    if callable(method):
                        results[f"{label}({k} arguments).{attr}"] = attempt(method, args[k:], kwargs)
                except (Exception, Late):
                    pass
    kept = {label: plain(value) for label, value in results.items()}
    return {label: value for label, value in kept.items() if value is not None}


def plain(value, depth=0):
    """Numbers, arrays and bools, and tuples, lists and dicts of them: what can be an answer (else None)."""
    if isinstance(value, (bool, int, float, np.bool_, np.number)) and not isinstance(value, np.complexfloating):
        return value
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf" and value.size < 10**6:
        return np.ndarray.view(value, np.ndarray)
    if depth < 3 and isinstance(value, (tuple, list)) and len(value) <= 16:
        return (list if isinstance(value, list) else tuple)(plain(v, depth + 1) for v in value)
    if depth < 3 and isinstance(value, dict) and len(value) <= 16:
        return {str(k): plain(v, depth + 1) for k, v in value.items()}
    return None


serve_answer(ADDRESS, "tok", 0, lambda: search)
'''


def items(value, path="", depth=0):
    """{path: value} of a result and of the items inside it (dict values, tuple and list items), two levels deep."""
    out = {path: value}
    if depth < 2 and isinstance(value, dict):
        for k, v in value.items():
            out.update(items(v, f"{path}[{k!r}]", depth + 1))
    elif depth < 2 and isinstance(value, (tuple, list)) and len(value) <= 8:
        for k, v in enumerate(value):
            out.update(items(v, f"{path}[{k}]", depth + 1))
    return out


def same(got, want):
    if isinstance(want, (tuple, list)):
        return isinstance(got, (tuple, list)) and len(got) == len(want) and all(map(same, got, want))
    if isinstance(want, (bool, np.bool_)):
        return isinstance(got, (bool, np.bool_)) and bool(got) == bool(want)
    try:
        g, w = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    except (TypeError, ValueError):
        return False
    return g.shape == w.shape and g.size > 0 and bool(np.all(np.isfinite(g))) and \
        bool(np.allclose(g, w, rtol=1e-6, atol=1e-9))


# Checks whose answer is a pair of two separate results, each half the exercise (errors_at: the largest error, the
# smallest eigenvalue): a function giving either one computes part of the answer.  Other pairs are one result in two
# parts (05's new position and velocity, 02's value and derivative rows), where a part alone can be another
# method's too (explicit Euler's new velocity is symplectic Euler's): the whole pair must match.
SEPARATE = {"errors_at"}


def recorded_calls(name):
    """[(args, kwargs, right result)] of every call check `name` makes, with its right answer (the notebook's
    inputs: no salt)."""
    calls = []

    def record(*args, **kwargs):
        value = RIGHT[name](*args, **kwargs)
        calls.append((args, kwargs, value))
        return value
    assert framework.outcome(checks.REGISTRY[name], record).status == "pass"
    return calls


HANG = 1800          # s of wall clock: a backstop against a hang only, far behind any load (CPU time bounds the work)


def accepted(listener, proc, cpu_limit=120):
    """The search's connection, waited for while it runs: it fails when the search exits first or spends
    `cpu_limit` s of CPU without connecting (CPU time, not the clock: a busy machine only makes it wait longer)."""
    listener.settimeout(1.0)
    for _second in range(HANG):
        try:
            return listener.accept()[0]
        except TimeoutError:
            if proc.poll() is not None:
                raise AssertionError(f"the search exited ({proc.returncode}) before connecting: "
                                     f"{proc.stderr.read().decode(errors='replace')[-2000:]}") from None
            times = psutil.Process(proc.pid).cpu_times()
            assert times.user + times.system < cpu_limit, f"the search spent {cpu_limit} s of CPU without connecting"
    raise AssertionError(f"the search did not connect within {HANG} s")


ONLY = "_search_only_"      # the keyword that narrows a call's search to the candidates that matched every call before


def search_library(tmp_path, stem, names):
    """{check name: sorted 'candidate[item]' that give the right answer (or one item of it) at every call}."""
    kernel_library(tmp_path, names)
    address = str(tmp_path / "search.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(1)
    source = SEARCH.replace("FOLDER", repr(str(tmp_path))).replace("ADDRESS", repr(address)) \
        .replace("NARROWED_TO", repr(ONLY))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")} | {"MPLBACKEND": "Agg"}
    proc = subprocess.Popen([sys.executable, "-I", "-c", source], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    found = {}
    try:
        conn = accepted(listener, proc)
        channel = wire.Channel(conn)
        hello = channel.recv()
        remote = wire.Remote(channel, hello["answer"], Budget(1200))
        for name in sorted(n for n, s in checks.REGISTRY.items() if s.notebook == stem):
            matches = None
            for args, kwargs, right in recorded_calls(name):
                if matches is not None and not matches:           # nothing matched every call so far
                    break
                wanted = {"": right} | ({f"[{k}]": v for k, v in enumerate(right)} if name in SEPARATE else {})
                got = remote.invoke(args, kwargs if matches is None else {**kwargs, ONLY: sorted(matches)})
                here = {f"{label}{path}" for label, value in got.items() for path, item in items(value).items()
                        if any(same(item, want) for want in wanted.values())}
                matches = here if matches is None else matches & here
            found[name] = sorted(matches or ())
        channel.send({"done": True})
    finally:
        listener.close()
        proc.kill()
        proc.wait()
    return found


@pytest.mark.parametrize("stem", NOTEBOOKS)
def test_nothing_in_the_kernels_library_computes_an_answer_of_its_notebook(tmp_path, stem):
    found = search_library(tmp_path, stem, withheld.for_notebook(load()[stem]))
    assert found and not any(found.values()), found


@pytest.mark.parametrize("stem, name, own", [
    ("01_challenge", "is_valid_inertia", "lesson_lib.evaluation.audit.is_valid_inertia"),
    ("02_model", "layer_jet", "lesson_lib.model.definition.layer_jet"),
    ("02_model", "coriolis_from_dM", "lesson_lib.model.definition.coriolis"),
    ("03_guided_practice", "errors_at", "lesson_lib.evaluation.metrics.mass_matrix_error"),
    ("05_retrieve_and_space", "symplectic_euler_step", "lesson_lib.physics.integrators.symplectic_euler_step"),
    ("08_learn_from_what_the_robot_records", "second_difference",
     "lesson_lib.model.verlet.position_second_differences"),
])
def test_the_control_the_same_search_finds_the_answer_in_the_whole_library(tmp_path, stem, name, own):
    found = search_library(tmp_path, stem, [])
    assert found[name], found
    if own:
        assert any(label.startswith(own) for label in found[name]), found[name]
