"""Build the learner notebooks from the teachers' sources, and check the course is consistent.

    notebooks/solutions/NN_name.ipynb    teachers' source: full solutions, real outputs stored (edit this one)
    notebooks/NN_name.ipynb              learner version: GENERATED from it (never edit by hand)
    notebooks/bench_app.ipynb            an app without exercises (catalog: app=True) is its own source

The course's notebooks are the ones in lesson_tools/catalog.py.  Commands, from the repository root:

    lesson-tools build [NN_name ...] [--no-execute]   generate and execute (default: all)
    lesson-tools check                                is the course consistent? (run by the tests)

`build` writes the current facts and catalog into the markers of every notebook's markdown and of README.md
(lesson_tools.markers), stamps every notebook it writes with metadata["lesson"] = {"notebook": "<id>"}
(the grader matches submissions by it), executes the teachers' source, writes the learner version with the
solutions stripped and no outputs, and writes the exercises' stubs into lesson_course/checks/stubs.json.
`check` lists every problem: a learner version out of sync with its source or carrying outputs, a stale or
unknown marker, a fact written bare in prose or code, a missing catalog marker or stamp, stale stubs, a default
that differs from its fact, and the exercise rules below.

The exercise pattern (every "Your turn" in the course)
------------------------------------------------------
1. Worked example: a runnable cell that does a similar task in full, with printed, rounded numbers.
2. "Your turn" markdown: the task, the function to complete, what the check compares with and its tolerance.
   Fade the guidance: early exercises give most lines, later ones blank most of them.
3. The exercise cell defines a FUNCTION; the learner's part sits between two marker lines, e.g.

       def kinetic_energy(M, qd):
           Mqd = M @ qd                       # given
           ### BEGIN SOLUTION
           T = 0.5 * qd @ Mqd
           ### END SOLUTION
           return T

   `build` replaces each block (markers included), at the BEGIN line's indentation, with

           # YOUR CODE HERE
           raise NotImplementedError("Your turn: see the instructions above")

   A block must be indented (inside a def): defining the stub then succeeds, so the learner notebook runs top
   to bottom and the check reports NOT ATTEMPTED.  `build` refuses a block at the top level of a cell.
4. The check cell comes after it, before the next exercise, in this form: the marker line first (it makes the
   grader compare the cell), then a call of a registered check (lesson_course.checks.REGISTRY) of this
   notebook, passed the learner's function the check expects (its spec.function):

       # NBVAL_CHECK_OUTPUT
       checks.kinetic_energy(kinetic_energy)

   It prints one line, `PASS: ...`, `FAIL: ...: ... Hint: ...` or `NOT ATTEMPTED: ...`.  `check` fails when a
   stub has no such cell after it, when another cell calls a registered check without the marker, when a marked
   cell calls a name that is not registered, and when a registered check is used by no notebook.
5. Cells after the check never use the learner's function: they use the library's (e.g.
   lesson_lib.evaluation.audit.is_valid_inertia), so a stub or a wrong answer cannot break the rest of the notebook.

Cells tagged `solution` are for teachers only and are dropped from the learner version.  Markdown cells tagged
`after-lock` interpret a prediction's evidence: in the learner version each becomes a code cell that shows its text
(lesson_course/notes.json, written by the build) once the prediction above it is locked, since markdown is on the
page before any choice (notebook_format.after_lock_notes).  The teachers' source is
executed in place (cwd = the notebook's folder, as Jupyter does), so its stored outputs are real and show PASS
lines; the learner version stores none (nothing shows before a prediction) and is run, saying NOT ATTEMPTED, by
tests/test_edition.py.  Grade learners' saved notebooks with `lesson-tools grade`.
"""
import argparse
import ast
import json
import os
import re
import sys
from pathlib import Path

from . import cards, catalog, markers
from .notebook_format import (  # noqa: F401
    BEGIN,
    CHECK_CALL,
    CHECK_MARKER,
    END,
    SOLUTION_TAG,
    STUB,
    CourseError,
    is_check_cell,
    learner_version,
    notes_text,
    strip_solutions,
)

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = NOTEBOOKS / "solutions"
README = ROOT / "README.md"
STUBS = ROOT / "lesson_course" / "checks" / "stubs.json"
NOTES = ROOT / "lesson_course" / "notes.json"

def stamp(nb, notebook_id):
    """Mark nb as the course's notebook `notebook_id` (metadata["lesson"]), for the grader."""
    nb.metadata["lesson"] = {"notebook": notebook_id}
    return nb


def refresh(nb, notebook_id, where="notebook"):
    """Write the current facts and catalog into the markers of nb's markdown cells (in place)."""
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            try:
                cell.source = markers.refresh(cell.source, notebook_id)
            except KeyError as exc:
                raise CourseError(f"{where}, cell {i}: {exc.args[0]}") from None
    return nb


def execute(nb, cwd, name="notebook"):
    """Run every cell in a fresh kernel (cwd = the notebook's folder); outputs and widget state are stored in nb,
    each cell's consecutive stream outputs joined into one (as they would be however the kernel chunked them, so
    an unchanged notebook rebuilds to the same bytes).  The kernel logs errors only (not its warning about
    unencrypted local TCP, which says nothing about the course)."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    from nbconvert.preprocessors import CoalesceStreamsPreprocessor
    client = NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=False, store_widget_state=True,
                            resources={"metadata": {"path": str(cwd)}}, extra_arguments=["--log-level=ERROR"])
    try:
        client.execute(env={**os.environ, "LESSON_PREDICTIONS": ""})   # no learner's locks in stored outputs
    except CellExecutionError as exc:
        raise CourseError(f"{name} failed while executing:\n{exc}") from None
    CoalesceStreamsPreprocessor().preprocess(nb, {})
    return nb


IGNORED = "# NBVAL_IGNORE_OUTPUT"     # a cell whose output depends on the machine (timings): nbval does not compare it


def _digits_masked(outputs):
    return re.sub(r"\d", "0", json.dumps(outputs, sort_keys=True))


def keep_machine_dependent(old, new):
    """Give each cell of `new` marked NBVAL_IGNORE_OUTPUT whose source is unchanged the outputs it had in `old`
    when they differ only in digits (a timing measured again): a rebuild of an unchanged notebook changes no byte,
    and every stored output is one a build of this very code printed."""
    before = {(c.cell_type, c.source): c for c in old.cells if c.cell_type == "code" and IGNORED in c.source}
    for cell in new.cells:
        earlier = before.get((cell.cell_type, cell.source))
        if earlier is not None and _digits_masked(earlier.outputs) == _digits_masked(cell.outputs):
            cell.outputs = earlier.outputs
    if [c.source for c in old.cells] == [c.source for c in new.cells]:        # widgets: the seconds they show
        states = [nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {}) for nb in (old, new)]
        for model, state in states[1].items():
            earlier = states[0].get(model)
            if earlier is not None and earlier != state and _seconds_masked(earlier) == _seconds_masked(state):
                states[1][model] = earlier
    return new


def forget_histories(nb):
    """Empty the log and the pending events of every browser store (lesson_course.ui.browser_store) in nb's stored
    widget state: a notebook opened with its stored widgets must not hand the build kernel's history (a notebook
    opened at build time) to the reader's own, kept in their browser."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    for model in state.values():
        if model.get("state", {}).get("_anywidget_id", "").endswith(".BrowserStore"):
            model["state"]["log"] = "[]"
            if "pending" in model["state"]:
                model["state"]["pending"] = "[]"
    return nb


SECONDS = re.compile(r"(class=\\?['\"][\w-]*seconds\\?['\"]>)[^<]*")     # a widget's "in 2.4 s" on this machine


def _seconds_masked(state):
    return SECONDS.sub(r"\1", json.dumps(state, sort_keys=True))


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def stable_widget_ids(nb, seed):
    """Rename the widget models stored in `nb` (random ids, new at every run) by the order they are reached from
    the cells' outputs, so that the same widgets store the same ids: a rebuild of an unchanged notebook changes no
    byte.  `seed` (the notebook's id) keeps two notebooks' ids apart."""
    import hashlib
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    if not state:
        return nb
    order = []

    def visit(model):
        if model in state and model not in order:
            order.append(model)
            for ref in re.findall(r"IPY_MODEL_([0-9a-f]{32})", json.dumps(state[model]["state"], sort_keys=True)):
                visit(ref)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            view = out.get("data", {}).get(WIDGET_VIEW)
            if view:
                visit(view["model_id"])
    masked = {m: re.sub(r"IPY_MODEL_[0-9a-f]{32}", "", json.dumps(state[m], sort_keys=True)) for m in state}
    order += sorted((m for m in state if m not in order), key=lambda m: masked[m])
    new = {old: hashlib.sha1(f"{seed}:{k}".encode()).hexdigest()[:32] for k, old in enumerate(order)}
    text = re.sub(r"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])", lambda m: new.get(m.group(0), m.group(0)), json.dumps(nb))
    import nbformat
    renamed = nbformat.from_dict(json.loads(text))
    nb.cells, nb.metadata = renamed.cells, renamed.metadata
    return nb


def source_path(entry):
    """Where a catalog entry's source lives: its teachers' version, or the notebook itself for an app."""
    return (NOTEBOOKS if entry.app else SOLUTIONS) / f"{entry.id}.ipynb"


def sources():
    """The teachers' sources (and apps) of the course's notebooks, in catalog order."""
    return [source_path(entry) for entry in catalog.CATALOG]


def _read(path):
    import nbformat
    return nbformat.read(str(path), as_version=4)


def _write(nb, path):
    import nbformat
    nbformat.validate(nb)
    _replace(path, nbformat.writes(nb) + "\n")


def _replace(path, text):
    """Write `text` to `path` whole or not at all (a temporary file renamed over it): a build stopped by Ctrl-C
    leaves every file either as it was or as it is now."""
    import os
    tmp = Path(f"{path}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def refresh_readme(path=README):
    """Write the current facts and the course table into README.md's markers."""
    text = path.read_text(encoding="utf-8")
    new = markers.refresh(text, "README")
    if new != text:
        _replace(path, new)


def exercise_stubs(teacher):
    """{function name: source of its stub} for every exercise (a function with a solution block) of a teachers'
    source: what the learner's function is before they write anything (the checks tell NOT ATTEMPTED by it)."""
    stubs = {}
    for i, cell in enumerate(teacher.cells):
        if cell.cell_type != "code" or BEGIN not in cell.source:
            continue
        tree = ast.parse(strip_solutions(cell.source, where=f"cell {i}")[0])
        stubs.update({node.name: ast.unparse(node) for node in tree.body if isinstance(node, ast.FunctionDef)})
    return stubs


def stubs_text(teachers):
    """The text of lesson_course/checks/stubs.json for {notebook id: teachers' source}."""
    table = {notebook_id: exercise_stubs(nb) for notebook_id, nb in teachers.items()}
    return json.dumps({k: v for k, v in table.items() if v}, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def refresh_stubs(path=STUBS):
    """Write the exercises' stubs (from the teachers' sources) into lesson_lib, where the checks read them."""
    text = stubs_text({e.id: _read(source_path(e)) for e in catalog.CATALOG if not e.app})
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        _replace(path, text)


def refresh_cards(path=cards.CARDS):
    """Write the review cards (from every notebook's questions, facts filled in) into lesson_lib."""
    text = cards.cards_text({e.id: refresh(_read(source_path(e)), e.id) for e in catalog.CATALOG if not e.app})
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        _replace(path, text)


def refresh_notes(path=NOTES):
    """Write the texts that wait for a prediction's lock (the teachers' cells tagged after-lock, facts filled in)
    into lesson_course, where reveal.note reads them."""
    text = notes_text({e.id: refresh(_read(source_path(e)), e.id) for e in catalog.CATALOG if not e.app})
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        _replace(path, text)


def build(names=None, run=True, log=print):
    """Refresh the markers, stamp and (by default) execute the teachers' source of each course notebook named in
    `names` (file names or ids; all when None), and write its learner version beside it, without outputs.  An
    app is executed once, in place.  The exercises' stubs are written into lesson_lib (refresh_stubs)."""
    import time
    wanted = None if not names else {Path(n).stem for n in names}
    entries = [e for e in catalog.CATALOG if wanted is None or e.id in wanted]
    if wanted is not None and len(entries) != len(wanted):
        raise CourseError(f"not in lesson_tools/catalog.py: {sorted(wanted - {e.id for e in entries})}")
    refresh_readme()
    for entry in entries:
        t0, path, target = time.perf_counter(), source_path(entry), NOTEBOOKS / f"{entry.id}.ipynb"
        teacher = stamp(refresh(_read(path), entry.id, path.name), entry.id)
        learner_version(teacher, path.name)                    # validate the markers before running anything
        if run:
            execute(teacher, path.parent, str(path.relative_to(NOTEBOOKS)))
            stable_widget_ids(forget_histories(teacher), entry.id)
            keep_machine_dependent(_read(path), teacher)
        _write(teacher, path)
        if not entry.app:
            _write(learner_version(teacher, path.name), target)
        log(f"built {entry.id} ({time.perf_counter() - t0:.1f} s)")
    refresh_stubs()
    refresh_cards()
    refresh_notes()


# ---------------------------------------------------------------------- check
def _cell_key(cell):
    return cell.cell_type, cell.source, tuple(cell.get("metadata", {}).get("tags", []))


def exercise_problems(nb, notebook_id, registry):
    """The exercise rules on one learner notebook: (problems, names of the registered checks its check cells
    use).  Every stub has a marked check cell after it, before the next exercise; only marked cells call
    registered checks; marked cells call only registered checks of this notebook, passed spec.function."""
    problems, used, waiting = [], set(), None
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        calls = CHECK_CALL.findall(cell.source)
        if is_check_cell(cell):
            if not calls:
                problems.append(f"cell {i} is marked {CHECK_MARKER!r} but calls no check")
            for name, arg in calls:
                spec = registry.get(name)
                if spec is None:
                    problems.append(f"cell {i} calls checks.{name}, which is not a registered check "
                                    f"(lesson_course.checks.REGISTRY)")
                    continue
                used.add(name)
                waiting = None
                if spec.notebook != notebook_id:
                    problems.append(f"cell {i} calls checks.{name}, which is registered for {spec.notebook}")
                if arg != spec.function:
                    problems.append(f"cell {i} passes {arg or 'nothing'!s} to checks.{name}, which checks the "
                                    f"learner's function `{spec.function}`")
        else:
            problems += [f"cell {i} calls checks.{name}(...) without the marker line {CHECK_MARKER!r} first"
                         for name, _ in calls if name in registry]
        if STUB[1] in cell.source:
            if waiting is not None:
                problems.append(f"the exercise in cell {waiting} has no marked check cell after it before the "
                                f"next exercise (cell {i})")
            waiting = i
    if waiting is not None:
        problems.append(f"the exercise in cell {waiting} has no marked check cell after it")
    return problems, used


def course_problems(learners, registry):
    """The exercise rules over the whole course: learners maps notebook id -> learner notebook."""
    problems, used = [], set()
    for notebook_id, nb in learners.items():
        found, names = exercise_problems(nb, notebook_id, registry)
        problems += [f"{notebook_id}: {p}" for p in found]
        used |= names
    problems += [f"checks.{name} (registered for {registry[name].notebook}) is used by no notebook's check cell"
                 for name in sorted(set(registry) - used)]
    return problems


def text_problems(text, where):
    """Stale, unknown or misplaced markers and facts written bare, in one markdown text of the document `where`."""
    return markers.stale(text, where) + markers.misplaced(text) + [
        f"{name} written bare, without <!--fact:{name}--> markers: '...{words}...'"
        for name, words in markers.bare(text)]


def missing_markers(text, keys):
    """One message per catalog marker in `keys` that `text` lacks."""
    return [f"no <!--catalog:{key}--> marker" for key in keys if f"<!--catalog:{key}-->" not in text]


def stamp_problem(nb, notebook_id):
    """A message when nb lacks the stamp `course build` writes, else None."""
    if nb.metadata.get("lesson") != {"notebook": notebook_id}:
        return (f"metadata['lesson'] is {nb.metadata.get('lesson')!r}, expected {{'notebook': {notebook_id!r}}} "
                f"(course build stamps it)")
    return None


def _notebook_text_problems(nb, entry):
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            problems += [f"cell {i}: {p}" for p in text_problems(cell.source, entry.id)]
        elif cell.cell_type == "code":
            problems += [f"cell {i}: {name} written bare in code: '...{words}...' (use lesson_lib.facts.{name})"
                         for name, words in markers.bare(cell.source)]
    required = (["minutes"] if entry.minutes is not None else []) + (["sequence"] if entry is catalog.CATALOG[0]
                                                                     else [])
    problems += missing_markers("\n".join(c.source for c in nb.cells if c.cell_type == "markdown"), required)
    return problems + [p for p in [stamp_problem(nb, entry.id)] if p]


def stored_results(nb):
    """Messages for what a learner notebook must not carry: stored outputs or widget state (a prediction's
    answer shown before the learner makes it)."""
    problems = [f"cell {i} has stored outputs (learner notebooks are written without them)"
                for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
    if "widgets" in nb.metadata:
        problems.append("stores widget state (learner notebooks are written without it)")
    return problems


# The library's defaults that are lesson facts: {object path: {parameter: fact}}.  A default changed in the code
# instead of in lesson_lib/facts.py would leave the notebooks' and README's text (written from the facts) wrong.
FACT_DEFAULTS = {
    "lesson_lib.model.delan:DeLaN": {"hidden": "HIDDEN", "lr": "LR", "batch_size": "BATCH_SIZE", "eps": "EPS",
                                     "activation": "ACTIVATION", "potential_scale": "POTENTIAL_SCALE"},
    "lesson_lib.model.blackbox:BlackBox": {"hidden": "HIDDEN", "lr": "LR", "batch_size": "BATCH_SIZE",
                                           "activation": "ACTIVATION"},
    "lesson_course.ui.bench:Bench": {"seed": "SEED", "steps_per_press": "STEPS_PER_PRESS",
                                     "grid_points": "GRID_POINTS"},
    "lesson_lib.data.sampling:sample_uniform": {"n_samples": "N_SAMPLES", "qd_max": "QD_MAX", "qdd_max": "QDD_MAX"},
}


def default_problems(table=FACT_DEFAULTS):
    """One message per default in `table` that differs from its fact in lesson_lib.facts."""
    import importlib
    import inspect

    from lesson_lib import facts
    problems = []
    for path, params in table.items():
        module, _, name = path.partition(":")
        signature = inspect.signature(getattr(importlib.import_module(module), name))
        for param, fact in params.items():
            if param not in signature.parameters:
                problems.append(f"{path} has no parameter {param} (FACT_DEFAULTS in lesson_tools/build.py)")
                continue
            got, want = signature.parameters[param].default, getattr(facts, fact)
            if got != want:
                problems.append(f"{path}'s default {param}={got!r} differs from lesson_lib.facts.{fact} = {want!r}: "
                                f"change the fact (the prose follows it), not the default")
    return problems


def _sync_problem(expected, actual):
    want, got = [_cell_key(c) for c in expected.cells], [_cell_key(c) for c in actual.cells]
    if want == got:
        return None
    if len(want) != len(got):
        return f"has {len(got)} cells, its teachers' source makes {len(want)}"
    i = next(i for i, (a, b) in enumerate(zip(want, got, strict=True)) if a != b)
    first = (got[i][1].splitlines() or [""])[0][:60]
    return f"cell {i} ('{first}') differs from its teachers' source"


# The design card's top level (plus the benchmarks/ and .ci/ folders, the course's machinery and the tools'
# packages, the packaging files and pre-commit's hooks).
TOP_LEVEL = {"README.md", "requirements.txt", "notebooks", "lesson_lib", "tests", "binder", "benchmarks", ".ci",
             "lesson_course", "lesson_tools", "pyproject.toml", ".gitignore", ".pre-commit-config.yaml"}


def layout_problems(root=ROOT):
    """One message per file tracked by git at the top level of `root` that the design card does not list
    (none when `root` is not a git work tree, e.g. an unpacked archive)."""
    import subprocess
    try:
        tracked = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True,
                                 text=True).stdout.split("\0")
    except (OSError, subprocess.CalledProcessError):
        return []
    extra = sorted({path.split("/")[0] for path in tracked if path} - TOP_LEVEL)
    return [f"{name!r} is tracked at the top level, which holds only {', '.join(sorted(TOP_LEVEL))}: "
            f"move it or run git rm --cached -- {name!r}" for name in extra]


def _show(path):
    """A path as problems name it: relative to the repository when inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def check(log=print):
    """Every problem (list of strings) in the course's notebooks and README.md (sources only, not outputs)."""
    from lesson_course.checks import REGISTRY
    problems, learners, teachers = [], {}, {}
    for entry in catalog.CATALOG:
        path, target = source_path(entry), NOTEBOOKS / f"{entry.id}.ipynb"
        if not path.exists():
            problems.append(f"{_show(path)} is missing (listed in lesson_tools/catalog.py)")
            continue
        teacher = _read(path)
        problems += [f"{_show(path)}, {p}" for p in _notebook_text_problems(teacher, entry)]
        if entry.app:
            learners[entry.id] = teacher
            continue
        teachers[entry.id] = teacher
        if not target.exists():
            problems.append(f"{_show(target)} is missing")
            continue
        actual = _read(target)
        learners[entry.id] = learner_version(teacher, path.name)
        sync = _sync_problem(learners[entry.id], actual)
        if sync:
            problems.append(f"{_show(target)} {sync}")
        problems += [f"{_show(target)}, {p}" for p in markers.stale(
            "\n".join(c.source for c in actual.cells if c.cell_type == "markdown"), entry.id)]
        problems += [f"{_show(target)}, {p}" for p in [stamp_problem(actual, entry.id)] if p]
        problems += [f"{_show(target)}, {p}" for p in stored_results(actual)]
    problems += course_problems(learners, REGISTRY)
    try:
        if STUBS.read_text(encoding="utf-8") != stubs_text(teachers):
            problems.append(f"{_show(STUBS)} differs from the teachers' sources' stubs (course build writes it)")
    except OSError:
        problems.append(f"{_show(STUBS)} is missing (course build writes it)")
    try:
        if cards.CARDS.read_text(encoding="utf-8") != cards.cards_text(teachers):
            problems.append(f"{_show(cards.CARDS)} differs from the notebooks' questions (course build writes it)")
    except OSError:
        problems.append(f"{_show(cards.CARDS)} is missing (course build writes it)")
    try:
        if NOTES.read_text(encoding="utf-8") != notes_text(teachers):
            problems.append(f"{_show(NOTES)} differs from the notebooks' after-lock cells (course build writes it)")
    except OSError:
        problems.append(f"{_show(NOTES)} is missing (course build writes it)")
    known = {f"{e.id}.ipynb" for e in catalog.CATALOG}
    for folder in (NOTEBOOKS, SOLUTIONS):
        problems += [f"{_show(p)} is not in lesson_tools/catalog.py" for p in sorted(
            folder.glob("*.ipynb")) if p.name not in known and not p.name.startswith("_grading_")]
    problems += default_problems() + layout_problems()
    if not README.is_file():
        return problems + [f"{_show(README)} is missing: run this from the teachers' repository"]
    readme = README.read_text(encoding="utf-8")
    problems += [f"README.md: {p}" for p in text_problems(readme, "README") + missing_markers(readme, ["course"])]
    return problems


def main_build(argv=None, prog="lesson-tools build"):
    """`lesson-tools build [NN_name ...] [--no-execute]`; its exit code."""
    from .cli import exit_codes
    parser = argparse.ArgumentParser(
        prog=prog, description="Refresh the facts and catalog in every notebook's prose and README.md, execute the "
        "teachers' sources (their stored outputs are real), write the learner notebooks (no outputs) and the "
        "exercises' stubs.", epilog=exit_codes({1: "a course problem stopped the build (the message names it)"}))
    parser.add_argument("names", nargs="*", metavar="NN_name", help="notebook ids, e.g. 01_challenge (default: all)")
    parser.add_argument("--no-execute", action="store_true", help="only generate the sources, do not run them")
    args = parser.parse_args(argv)
    try:
        build(args.names, run=not args.no_execute)
    except CourseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def main_check(argv=None, prog="lesson-tools check"):
    """`lesson-tools check`: every course problem listed; its exit code."""
    from .cli import exit_codes
    parser = argparse.ArgumentParser(
        prog=prog, description="Fail on any course problem: a learner notebook out of sync with its source or "
        "carrying outputs, a stale or unknown marker, a fact written bare, a missing stamp, stale stubs, a broken "
        "exercise rule. Writes nothing.", epilog=exit_codes({0: "the course is consistent",
                                                             1: "problems found (each printed, and what to run)"}))
    parser.parse_args(argv)
    try:
        problems = check()
    except CourseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for p in problems:
        print(f"problem: {p}", file=sys.stderr)
    if problems:
        ids = [e.id for e in catalog.CATALOG if any(f"{e.id}.ipynb" in p for p in problems)]
        print(f"{len(problems)} problem(s). Stale markers, stamps and learner versions: lesson-tools build "
              f"{' '.join(ids) if ids else '(all: no notebook named above)'}", file=sys.stderr)
        return 1
    print(f"ok: {len(catalog.CATALOG)} course notebooks and README.md are consistent")
    return 0
