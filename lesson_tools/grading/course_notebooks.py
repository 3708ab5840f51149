"""The course's notebooks as the grader knows them: their names, their check cells, the cells the course wrote.

Read from the teachers' sources in notebooks/solutions/ (and the learner version `course build` makes of each),
plus any other course notebook in notebooks/ (bench_app: no checks).  A check cell is a code cell with the line
`# NBVAL_CHECK_OUTPUT` whose code calls `checks.NAME(answer)`, for instance

    # NBVAL_CHECK_OUTPUT
    checks.kinetic_energy(kinetic_energy)

The grader never runs that call in the learner's kernel.  It runs the cell's `capture` instead, which takes
the check's calls from the judge (lesson_tools.grading.clean) and answers them with plain data:

    # NBVAL_CHECK_OUTPUT
    _lesson_capture_(0, lambda: (kinetic_energy))
"""
import ast
import re
from dataclasses import dataclass, field

from ..build import NOTEBOOKS, SOLUTIONS
from ..notebook_format import BEGIN, CHECK_CALL, CHECK_MARKER, END, learner_version, solution_lines

CAPTURE = "_lesson_capture_"


def normalise(source):
    """A cell's source without trailing blanks on each line or at the end: how the grader compares cells."""
    return "\n".join(line.rstrip() for line in source.strip("\n").splitlines()).rstrip()


def has_marker(source):
    return any(line.strip() == CHECK_MARKER for line in source.splitlines())


def carries_check_marker(cell):
    """A code cell containing the line `# NBVAL_CHECK_OUTPUT` anywhere: how the grader spots check cells in a
    learner's copy, which may have been edited (the course's own rule, the marker as the first line, is
    lesson_tools.build.is_check_cell)."""
    return cell.get("cell_type") == "code" and has_marker(cell.get("source", ""))


def check_calls(source):
    """[(statement, check name, answer expression)] for every top-level `checks.NAME(expr)` statement."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    calls = []
    for stmt in tree.body:
        call = getattr(stmt, "value", None) if isinstance(stmt, ast.Expr) else None
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and isinstance(call.func.value, ast.Name) and call.func.value.id == "checks"
                and len(call.args) == 1 and not call.keywords):
            calls.append((stmt, call.func.attr, ast.get_source_segment(source, call.args[0])))
    return calls


def called_checks(source):
    """Names of the checks a piece of code seems to call (`checks.NAME(`), even if it does not parse."""
    return [name for name, _ in CHECK_CALL.findall(source)]


@dataclass(frozen=True)
class CheckCell:
    """One check cell of a course notebook: `name` of the check, the cell's `source`, the `answer` expression
    it passes, and the `capture` cell the grader runs in its place."""
    index: int
    name: str
    source: str
    answer: str
    capture: str

    @property
    def answer_name(self):
        """The learner's name the answer is read from (the expression's first name), e.g. 'kinetic_energy'."""
        match = re.match(r"\s*([A-Za-z_]\w*)", self.answer)
        return match.group(1) if match else None


DEFINED = re.compile(r"^(?:def|class)\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)", re.MULTILINE)


def defined_names(source):
    """The names a cell's top-level lines define (`def NAME`, `class NAME`, `NAME = ...`), read from its text, so a
    cell that does not parse still says which exercise it answers."""
    return frozenset(a or b for a, b in DEFINED.findall(source))


@dataclass(frozen=True)
class Exercise:
    """An exercise cell of a teachers' source: the `names` it defines (a check's answer is one of them) and the
    course's own `solution` (its BEGIN/END SOLUTION lines)."""
    names: frozenset
    solution: str


@dataclass(frozen=True)
class CourseNotebook:
    """A notebook of the course: its `stem` (e.g. '02_model'), its check cells in order, the normalised
    sources of every cell the course wrote (learner and teachers' versions), the stripped lines of the learner
    version's code cells (`stock`: what a learner did not write), its exercises, and the learner version's code
    cells (`given`: the sources a learner starts from, stubs included)."""
    stem: str
    checks: tuple = ()
    cells: frozenset = field(default_factory=frozenset)
    stock: frozenset = field(default_factory=frozenset)
    exercises: tuple = ()
    given: tuple = ()


def _check_cell(index, source):
    (stmt, name, answer), = check_calls(source)
    lines = source.splitlines()
    capture = f"{CAPTURE}({index}, lambda: ({answer}))"
    lines[stmt.lineno - 1:stmt.end_lineno] = [capture]
    return CheckCell(index, name, source, answer, "\n".join(lines))


def course_notebook(stem, teacher=None, learner=None):
    """The CourseNotebook of a teachers' source (nbformat node) and/or a learner notebook."""
    learner = learner if learner is not None else (learner_version(teacher, stem) if teacher is not None else None)
    versions = [nb for nb in (teacher, learner) if nb is not None]
    source_nb = teacher if teacher is not None else learner
    sources = [c.source for c in source_nb.cells if carries_check_marker(c) and len(check_calls(c.source)) == 1]
    cells = frozenset(normalise(c.source) for nb in versions for c in nb.cells if c.source.strip())
    stock = frozenset(line.strip() for c in (learner.cells if learner is not None else ()) if c.cell_type == "code"
                      for line in c.source.splitlines()) | {BEGIN, END}
    exercises = tuple(Exercise(defined_names(c.source), "\n".join(solution_lines(c.source)))
                      for c in (teacher.cells if teacher is not None else ()) if solution_lines(c.source))
    given = tuple(c.source for c in (learner.cells if learner is not None else ()) if c.cell_type == "code")
    return CourseNotebook(stem, tuple(_check_cell(i, s) for i, s in enumerate(sources)), cells, stock, exercises,
                          given)


def load(solutions=SOLUTIONS, notebooks=NOTEBOOKS):
    """{stem: CourseNotebook} for every teachers' source and every other notebook in the learners' folder."""
    import nbformat
    course = {}
    for path in sorted(solutions.glob("*.ipynb")):
        course[path.stem] = course_notebook(path.stem, teacher=nbformat.read(str(path), as_version=4))
    for path in sorted(notebooks.glob("*.ipynb")):
        if path.stem not in course and not path.name.startswith("_"):
            course[path.stem] = course_notebook(path.stem, learner=nbformat.read(str(path), as_version=4))
    return course


def check_names(course):
    """Every check the course's notebooks call, in check cells or elsewhere (e.g. 00's demo of total_mass)."""
    return {c.name for nb in course.values() for c in nb.checks} | {
        name for nb in course.values() for source in nb.cells for name in called_checks(source)}
