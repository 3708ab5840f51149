"""The course's notebook format: what `build` reads in a teachers' source and what it writes for learners.

A teachers' source marks each exercise's answer between two lines inside a function,

    def kinetic_energy(M, qd):
        Mqd = M @ qd                       # given
        ### BEGIN SOLUTION
        T = 0.5 * qd @ Mqd
        ### END SOLUTION
        return T

and the learner version has the STUB lines in its place; a check cell starts with CHECK_MARKER and calls
`checks.NAME(answer)`.  build, release and the grader all read notebooks through this module (it imports nothing
from the rest of lesson_tools).
"""
import copy
import re

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUB = ("# YOUR CODE HERE", 'raise NotImplementedError("Your turn: see the instructions above")')
SOLUTION_TAG = "solution"
CHECK_MARKER = "# NBVAL_CHECK_OUTPUT"
CHECK_CALL = re.compile(r"\bchecks\.(\w+)\s*\(\s*([\w.]*)")


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
    """The learner notebook made from a teachers' source (a nbformat NotebookNode): every solution block replaced
    by the stub, cells tagged `solution` dropped, no outputs, execution counts or stored widget state (which
    would show a result before the learner's prediction)."""
    learner = copy.deepcopy(nb)
    learner.metadata.pop("widgets", None)
    cells = []
    for i, cell in enumerate(learner.cells):
        if SOLUTION_TAG in cell.get("metadata", {}).get("tags", []):
            continue
        if cell.cell_type == "code":
            cell.source, _ = strip_solutions(cell.source, where=f"{name}, cell {i}")
            cell.outputs, cell.execution_count = [], None
            cell.metadata.pop("execution", None)
        cells.append(cell)
    learner.cells = cells
    return learner


def is_check_cell(cell):
    """A code cell whose first line is the marker `# NBVAL_CHECK_OUTPUT`."""
    return cell.cell_type == "code" and cell.source.lstrip("\n").split("\n", 1)[0].strip() == CHECK_MARKER


def solution_lines(source):
    """The lines inside the BEGIN/END SOLUTION blocks of a code cell's source (stripped, blank lines left out)."""
    lines, inside = [], False
    for line in source.splitlines():
        text = line.strip()
        if text in (BEGIN, END):
            inside = text == BEGIN
        elif inside and text:
            lines.append(text)
    return lines
