"""Build the learner notebooks from the teachers' sources, and check they are in sync.

    notebooks/solutions/NN_name.ipynb    teachers' source: full solutions, real outputs stored (edit this one)
    notebooks/NN_name.ipynb              learner version: GENERATED from it (never edit by hand)

Commands, from the repository root:

    python -m lesson_lib.course build [NN_name ...] [--no-execute]   generate and execute (default: all)
    python -m lesson_lib.course check                                learner sources == what build makes?

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
4. The check cell comes right after, exactly in this form (the marker line makes the grader compare it):

       # NBVAL_CHECK_OUTPUT
       checks.kinetic_energy(kinetic_energy)

   It prints one line, `PASS: ...`, `FAIL: ...: ... Hint: ...` or `NOT ATTEMPTED: ...` (lesson_lib.course.checks).
5. Cells after the check never use the learner's function: they use the library's (e.g.
   lesson_lib.evaluation.audit.is_valid_inertia), so a stub or a wrong answer cannot break the rest of the notebook.

Markdown cells tagged `solution` are for teachers only and are dropped from the learner version.  Both versions
are executed in place (cwd = the notebook's folder, as Jupyter does), so their stored outputs are real: the
teachers' source shows PASS lines, the learner version NOT ATTEMPTED.  Grade a learner's saved notebook with
`python -m lesson_lib.grade notebooks/NN_name.ipynb`.
"""
import argparse
import copy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = NOTEBOOKS / "solutions"

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUB = ("# YOUR CODE HERE", 'raise NotImplementedError("Your turn: see the instructions above")')
SOLUTION_TAG = "solution"
CHECK_MARKER = "# NBVAL_CHECK_OUTPUT"


class CourseError(Exception):
    """A teachers' source that cannot be turned into a learner notebook, or notebooks out of sync."""


def strip_solutions(source, where="cell"):
    """Replace every BEGIN/END SOLUTION block of a code cell's source by the stub; return (source, n_blocks)."""
    out, n, inside, indent = [], 0, False, ""
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        text = line.strip()
        if text == BEGIN:
            if inside:
                raise CourseError(f"{where}, line {number}: '{BEGIN}' inside another solution block")
            indent = line[:len(line) - len(line.lstrip())]
            if not indent:
                raise CourseError(f"{where}, line {number}: a solution block at the top level of a cell would "
                                  f"make the learner notebook stop there; put the exercise inside a function")
            inside, n = True, n + 1
            out += [f"{indent}{s}\n" for s in STUB]
        elif text == END:
            if not inside:
                raise CourseError(f"{where}, line {number}: '{END}' without a matching '{BEGIN}'")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise CourseError(f"{where}: '{BEGIN}' without a matching '{END}'")
    result = "".join(out)
    if not source.endswith("\n") and result.endswith("\n"):
        result = result[:-1]
    return result, n


def learner_version(nb, name="notebook"):
    """The learner notebook made from a teachers' source (a nbformat NotebookNode), outputs cleared."""
    learner = copy.deepcopy(nb)
    cells = []
    for i, cell in enumerate(learner.cells):
        if cell.cell_type == "markdown" and SOLUTION_TAG in cell.get("metadata", {}).get("tags", []):
            continue
        if cell.cell_type == "code":
            cell.source, _ = strip_solutions(cell.source, where=f"{name}, cell {i}")
            cell.outputs, cell.execution_count = [], None
            cell.metadata.pop("execution", None)
        cells.append(cell)
    learner.cells = cells
    return learner


def execute(nb, cwd, name="notebook"):
    """Run every cell in a fresh kernel (cwd = the notebook's folder); outputs are stored in nb."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    client = NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(cwd)}})
    try:
        client.execute()
    except CellExecutionError as exc:
        raise CourseError(f"{name} failed while executing:\n{exc}") from None
    return nb


def sources():
    """The teachers' sources, sorted by name."""
    return sorted(SOLUTIONS.glob("*.ipynb"))


def _read(path):
    import nbformat
    return nbformat.read(str(path), as_version=4)


def _write(nb, path):
    import nbformat
    nbformat.validate(nb)
    nbformat.write(nb, str(path))


def build(names=None, run=True, log=print):
    """Generate (and by default execute) the learner version of each teachers' source named in `names`
    (file names or stems; all when None).  The teachers' source is executed in place first."""
    import time
    wanted = None if not names else {Path(n).stem for n in names}
    paths = [p for p in sources() if wanted is None or p.stem in wanted]
    if wanted is not None and len(paths) != len(wanted):
        raise CourseError(f"no teachers' source for: {sorted(wanted - {p.stem for p in paths})} in {SOLUTIONS}")
    for path in paths:
        t0 = time.perf_counter()
        teacher = _read(path)
        learner_version(teacher, path.name)                    # validate the markers before running anything
        if run:
            execute(teacher, path.parent, f"solutions/{path.name}")
            _write(teacher, path)
        learner = learner_version(teacher, path.name)
        if run:
            execute(learner, NOTEBOOKS, path.name)
        _write(learner, NOTEBOOKS / path.name)
        log(f"built {path.name} ({time.perf_counter() - t0:.1f} s)")


def _cell_key(cell):
    return cell.cell_type, cell.source, tuple(cell.get("metadata", {}).get("tags", []))


def check(log=print):
    """Problems (list of strings) where a learner notebook differs from what build would make (sources only)."""
    problems = []
    for path in sources():
        target = NOTEBOOKS / path.name
        expected = learner_version(_read(path), path.name)
        if not target.exists():
            problems.append(f"{target.relative_to(ROOT)} is missing")
            continue
        actual = _read(target)
        want, got = [_cell_key(c) for c in expected.cells], [_cell_key(c) for c in actual.cells]
        if want == got:
            continue
        if len(want) != len(got):
            problems.append(f"{target.relative_to(ROOT)} has {len(got)} cells, its teachers' source makes {len(want)}")
            continue
        i = next(i for i, (a, b) in enumerate(zip(want, got)) if a != b)
        first = (got[i][1].splitlines() or [""])[0][:60]
        problems.append(f"{target.relative_to(ROOT)}, cell {i} ('{first}') differs from its teachers' source")
    taught = {p.name for p in sources()}
    for extra in sorted(NOTEBOOKS.glob("*.ipynb")):
        if extra.name not in taught and not extra.name.startswith("_grading_"):
            log(f"note: {extra.relative_to(ROOT)} has no teachers' source in notebooks/solutions/ (left alone)")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m lesson_lib.course", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="generate the learner notebooks from notebooks/solutions/ and execute both")
    b.add_argument("names", nargs="*", help="notebook names, e.g. 01_challenge (default: all)")
    b.add_argument("--no-execute", action="store_true", help="only generate the sources, do not run")
    sub.add_parser("check", help="fail if a learner notebook differs from its teachers' source (ignoring outputs)")
    args = parser.parse_args(argv)
    try:
        if args.command == "build":
            build(args.names, run=not args.no_execute)
            return 0
        problems = check()
    except CourseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for p in problems:
        print(f"out of sync: {p}", file=sys.stderr)
    if problems:
        print("Regenerate with: python -m lesson_lib.course build <names>", file=sys.stderr)
        return 1
    print(f"ok: {len(sources())} learner notebooks match their teachers' sources")
    return 0

