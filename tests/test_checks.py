"""Every registered check, enumerated from checks.REGISTRY: a new check gets these tests without editing a list.

For each check: the stub `course build` makes is NOT ATTEMPTED; the answer written with the stub's raise line left
in is told so; a right answer passes; each of its hints is reached by a wrong answer (tests/check_cases.py) and
the FAIL line carries exactly that hint; an exception in the learner's code is reported as such; the learner's
code runs through `call` (so prints are swallowed and errors explained); no hint prints the solution's line.
"""
import ast
import inspect
import linecache
import sys

import nbformat
import numpy as np
import pytest
from check_cases import RIGHT, WRONG

import lesson_lib
from lesson_course import checks
from lesson_course.checks import framework
from lesson_lib import facts
from lesson_tools.build import BEGIN, END, SOLUTIONS, STUB

NAMES = sorted(checks.REGISTRY)


def answers(name, key):
    """The wrong answers of check `name` that must get hint `key` (one, or a list of them)."""
    drilled = WRONG[name][key]
    return drilled if isinstance(drilled, list) else [drilled]


HINTS = [(name, key, i) for name in NAMES for key in sorted(WRONG.get(name, {}))
         for i in range(len(answers(name, key)))]


def one_line(name, answer, capsys):
    """Run the printing check; return its only line (and fail if it printed anything else)."""
    getattr(checks, name)(answer)
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert len(lines) == 1 and not out.err, f"{name} printed {out.out!r} {out.err!r}"
    return lines[0]


def define(source, name):
    """Define function `name` from `source` as a notebook cell would: its source stays readable (linecache)."""
    filename = f"/tmp/ipykernel_0/{name}_{len(linecache.cache)}.py"          # as IPython names a cell
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace = {"np": np, **{n: getattr(lesson_lib, n) for n in lesson_lib.__all__},
                 "PASS_MAX_ERROR": facts.PASS_MAX_ERROR}
    exec(compile(source, filename, "exec"), namespace)          # noqa: S102 -- the course's own source
    return namespace[name]


def teachers_function(spec):
    """The teachers' source of spec.function, solution markers included."""
    nb = nbformat.read(str(SOLUTIONS / f"{spec.notebook}.ipynb"), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and BEGIN in cell.source:
            lines = cell.source.splitlines()
            for node in ast.parse(cell.source).body:
                if isinstance(node, ast.FunctionDef) and node.name == spec.function:
                    end = node.end_lineno
                    while end < len(lines) and lines[end].strip() == END:      # a block closing the function
                        end += 1
                    return "\n".join(lines[node.lineno - 1:end]) + "\n"
    raise AssertionError(f"no exercise cell defines {spec.function} in solutions/{spec.notebook}.ipynb")


def solution_lines(spec):
    """The code lines between the solution markers of spec.function."""
    lines, inside = [], False
    for line in teachers_function(spec).splitlines():
        if line.strip() in (BEGIN, END):
            inside = line.strip() == BEGIN
        elif inside and line.strip():
            lines.append(line.strip())
    return lines


# ---------------------------------------------------------------------- the registry and its cases
def test_every_registered_check_has_right_and_wrong_answers_for_each_hint():
    """Every hint written by hand has a wrong answer here; a variation's hint is reached by the variation itself
    (tests/test_checks_diagnosis.py)."""
    assert set(RIGHT) == set(checks.REGISTRY), "tests/check_cases.py RIGHT must cover exactly the registry"
    assert set(WRONG) == set(checks.REGISTRY), "tests/check_cases.py WRONG must cover exactly the registry"
    for name, spec in checks.REGISTRY.items():
        by_hand = set(spec.hints) - {v.key for v in spec.variations}
        assert by_hand <= set(WRONG[name]), f"{name}: a wrong answer for every hint: {by_hand - set(WRONG[name])}"
        unknown = set(WRONG[name]) - set(spec.hints) - set(checks.GENERAL_HINTS)
        assert not unknown, f"{name}: wrong answers for hints it does not have: {unknown}"
        assert getattr(checks, name).spec is spec        # checks.<name> is the registered check


def test_every_exercise_drills_at_least_six_wrong_answers_one_of_them_raising():
    """The drill of wrong answers: each exercise has at least six, and one of them raises in the learner's code
    (its FAIL line must then name the line that raised, test_wrong_answer_gets_the_hint_that_names_its_mistake)."""
    for name in checks.REGISTRY:
        drilled = sum(len(answers(name, key)) for key in WRONG[name])
        kinds = {"raised", "uncalled", "unbound", "undefined", "shapes", "index", "division", "attribute",
                 "arguments", "sequence"} | {r.key for r in checks.REGISTRY[name].raised}
        raising = [key for key in WRONG[name] if key in kinds]
        assert drilled >= 6 and raising, f"{name}: {drilled} wrong answers drilled, raising: {raising}"


def test_registry_specs_name_their_notebook_and_learner_function():
    for name, spec in checks.REGISTRY.items():
        assert spec.name == name and (SOLUTIONS / f"{spec.notebook}.ipynb").exists(), spec
        assert framework.stub_source(spec) is not None, f"{spec.notebook} has no exercise `{spec.function}`"


def test_register_refuses_a_second_check_of_the_same_name():
    def kinetic_energy(fn):
        pass
    with pytest.raises(ValueError, match="already registered"):
        framework.register("02_model")(kinetic_energy)


# ---------------------------------------------------------------------- every check's outcomes
@pytest.mark.parametrize("name", NAMES)
def test_right_answer_passes(name, capsys):
    assert checks.evaluate(name, RIGHT[name]) == ("pass", f"PASS: {name}")
    assert capsys.readouterr().out == ""                   # evaluate never prints
    assert one_line(name, RIGHT[name], capsys) == f"PASS: {name}"


@pytest.mark.parametrize("name, key, i", HINTS)
def test_wrong_answer_gets_the_hint_that_names_its_mistake(name, key, i, capsys):
    spec, answer = checks.REGISTRY[name], answers(name, key)[i]
    result = framework.outcome(spec, answer)
    assert result.status == "fail" and result.hint == key, result.line
    assert result.line.startswith(f"FAIL: {name}: ") and result.line.endswith(f". Hint: {spec.hint(key)}")
    assert one_line(name, answer, capsys) == result.line
    if "your code raised" in result.line:             # an error of theirs: the line of theirs that raised it
        quoted = result.line.split("(line ")[-1].split("`")
        source = inspect.getsource(sys.modules[answer.__module__])
        assert len(quoted) >= 3 and quoted[1].removesuffix("...") in source, result.line


@pytest.mark.parametrize("name", NAMES)
def test_the_stub_course_build_makes_is_not_attempted(name, capsys):
    spec = checks.REGISTRY[name]
    stub = define(framework.stub_source(spec), spec.function)
    line = one_line(name, stub, capsys)
    assert line == f"NOT ATTEMPTED: {name}: {checks.NOT_ATTEMPTED}"


@pytest.mark.parametrize("name", NAMES)
def test_an_answer_with_the_stub_line_left_in_is_told_so(name):
    spec = checks.REGISTRY[name]
    source = teachers_function(spec)
    indent = next(line[:len(line) - len(line.lstrip())] for line in source.splitlines() if line.strip() == BEGIN)
    source = source.replace(f"{indent}{BEGIN}\n", f"{indent}{STUB[1]}\n").replace(f"{indent}{END}\n", "")
    status, line = checks.evaluate(name, define(source, spec.function))
    assert status == "fail" and line.endswith(f"Hint: {spec.hint('stub left')}"), line
    assert "fill in the cell" not in line


@pytest.mark.parametrize("name", NAMES)
def test_an_error_in_the_learners_code_is_reported_as_theirs_with_the_line_that_raised_it(name):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")
    status, line = checks.evaluate(name, broken)
    assert status == "fail" and "your code raised RuntimeError: boom (line " in line, line
    assert "in broken: `raise RuntimeError(\"boom\")`)" in line, line
    assert line.endswith(f"Hint: {checks.GENERAL_HINTS['raised']}")


def test_the_line_named_is_the_learners_even_when_a_library_function_raised():
    """np.linalg.eigvalsh raises inside numpy: the line named is the learner's call of it, in a notebook cell."""
    source = ("def is_valid_inertia(M, tol=1e-9):\n"
              "    smallest = np.linalg.eigvalsh(M[0]).min()\n"
              "    return bool(smallest > 0)\n")
    fn = define(source, "is_valid_inertia")
    status, line = checks.evaluate("is_valid_inertia", fn)
    assert status == "fail" and "LinAlgError" in line, line
    assert "(line 2 of the cell, in is_valid_inertia: `smallest = np.linalg.eigvalsh(M[0]).min()`)" in line, line


@pytest.mark.parametrize("name", NAMES)
def test_the_learners_code_runs_only_through_call_and_its_prints_are_swallowed(name, capsys):
    direct = []

    def chatty(*args, **kwargs):
        frames, frame = set(), sys._getframe(1)
        while frame is not None:
            frames.add(frame.f_code)
            frame = frame.f_back
        if framework.call.__code__ not in frames:
            direct.append(True)
        print("debug output from the learner")
        print("and on stderr", file=sys.stderr)
        return RIGHT[name](*args, **kwargs)

    assert one_line(name, chatty, capsys) == f"PASS: {name}"
    assert not direct, f"checks.{name} calls the learner's function directly instead of through `call`"


@pytest.mark.parametrize("name", NAMES)
def test_no_hint_prints_the_solution_line(name):
    spec = checks.REGISTRY[name]
    hints = [spec.hint(key) for key in spec.hints] + [spec.hint(key) for key in checks.GENERAL_HINTS]
    for line in solution_lines(spec):
        pieces = [line] + [line.split(sep, 1)[1].strip() for sep in ("=", "return ") if sep in line]
        for piece in (p for p in pieces if len(p) >= 12):
            assert not any(piece in hint for hint in hints), f"a hint of {name} prints the solution's {piece!r}"


# ---------------------------------------------------------------------- the framework's own hints
@pytest.mark.parametrize("answer, key", [
    (42, "not a function"),
    (lambda M, qd: None, "none"),
    (lambda M, qd: "a lot", "not numbers"),
    (lambda M, qd: np.nan, "not finite"),
])
def test_general_hints(answer, key):
    status, line = checks.evaluate("kinetic_energy", answer)
    spec = checks.REGISTRY["kinetic_energy"]                   # the check may say it in its own words
    assert status == "fail" and line.endswith(f"Hint: {spec.hint(key)}"), line


def test_a_broken_check_fails_with_a_line_instead_of_raising():
    def index_error(fn):
        return [][1]

    def unknown_hint(fn):
        raise checks.Fail("wrong", "no such hint")

    broken = framework.Check("broken_demo", "02_model", "kinetic_energy", test=index_error)
    assert framework.outcome(broken, RIGHT["kinetic_energy"]).line.startswith(
        "FAIL: broken_demo: the check could not run (IndexError")
    hintless = framework.Check("hintless_demo", "02_model", "kinetic_energy", test=unknown_hint)
    assert "no hint 'no such hint'" in framework.outcome(hintless, RIGHT["kinetic_energy"]).line


def test_evaluate_refuses_an_unknown_check():
    with pytest.raises(KeyError, match="no check named 'nope'"):
        checks.evaluate("nope", RIGHT["kinetic_energy"])


def _library_without_it():
    raise NotImplementedError("from a library")


def test_a_function_that_differs_from_the_stub_but_raises_elsewhere_is_an_error_not_a_stub():
    def kinetic_energy(M, qd):
        return _library_without_it()
    status, line = checks.evaluate("kinetic_energy", kinetic_energy)
    assert status == "fail" and "your code raised NotImplementedError: from a library" in line, line


# ---------------------------------------------------------------------- the threshold lives in facts
def test_lesson_passes_follows_the_threshold_in_facts(monkeypatch):
    T = facts.PASS_MAX_ERROR
    old_threshold = lambda e, lam: e < T and lam > 0                 # noqa: E731 -- written before the change
    assert checks.evaluate("lesson_passes", old_threshold)[0] == "pass"
    monkeypatch.setattr(facts, "PASS_MAX_ERROR", 0.75 * T)
    status, line = checks.evaluate("lesson_passes", old_threshold)
    assert status == "fail", line
    assert checks.evaluate("lesson_passes", RIGHT["lesson_passes"])[0] == "pass"
    at_most = next(v.answer for v in checks.REGISTRY["lesson_passes"].variations if v.key == "at most")
    _, line = checks.evaluate("lesson_passes", at_most)
    assert f"'below {facts.text('PASS_MAX_ERROR')}'" in line and f"{0.75 * T:g}" in line, line


# ---------------------------------------------------------------------- when the grader's judge runs the checks
SALTS = (1, 2**40 + 7, 987654321)          # three judges' salts: each draws other inputs


@pytest.mark.parametrize("salt", SALTS)
@pytest.mark.parametrize("name", NAMES)
def test_under_the_judges_salt_a_right_answer_still_passes(name, salt, monkeypatch):
    from lesson_course.checks import independent
    monkeypatch.setattr(independent, "SALT", salt)
    assert checks.evaluate(name, RIGHT[name]) == ("pass", f"PASS: {name}")


@pytest.mark.parametrize("salt", SALTS)
@pytest.mark.parametrize("name, key, i", HINTS)
def test_under_the_judges_salt_each_mistake_still_gets_its_hint(name, key, i, salt, monkeypatch):
    from lesson_course.checks import independent
    monkeypatch.setattr(independent, "SALT", salt)
    result = framework.outcome(checks.REGISTRY[name], answers(name, key)[i])
    assert result.status == "fail" and result.hint == key, result.line


def test_under_the_judges_salt_the_inputs_are_new_and_in_a_new_order(monkeypatch):
    """What a notebook's check calls the answer with is not what the judge calls it with: another table of
    inputs for each salt, and fixed cases in another order."""
    from lesson_course.checks import independent

    def inputs(name, salt):
        monkeypatch.setattr(independent, "SALT", salt)
        seen = []

        def record(*args):
            seen.append(tuple(getattr(a, "__qualname__", None) or (
                np.round(np.asarray(a, dtype=float), 12).tobytes() if np.ndim(a) or isinstance(a, float)
                else repr(a)) for a in args))           # a function by its name: its repr holds an address
            return RIGHT[name](*args)
        checks.evaluate(name, record)
        return seen
    for name in ("symplectic_euler_step", "lesson_passes", "is_valid_inertia", "kinetic_energy"):
        notebook, judged, again = inputs(name, None), inputs(name, 11), inputs(name, 12)
        assert notebook == inputs(name, None), f"{name}: a notebook's inputs must repeat (hints reproduce)"
        assert len(judged) == len(notebook) and not set(judged) & set(notebook), name
        assert judged != again, name
