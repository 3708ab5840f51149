"""What the grader runs for one submission: the learner's cells in order, each check cell replaced by its capture.

The course's check cells are found in the submission in course order: the untouched cell if it is there,
else a cell that still calls the check (edited: the course's version is used), else the check is put back
right after the cell that defines its answer (missing).  Copies of a course check cell are not run (they only
print a verdict).  A setup step first defines the capture function: at a check cell it connects to the judge and
calls the learner's function on the arguments the judge sends, returning results as plain data
(lesson_tools.grading.wire.serve_answer, which the grader copies into the sandbox); the verdict is made in the
judge, never in the kernel.
"""
import ast
from dataclasses import dataclass

from .course_notebooks import CAPTURE, called_checks, has_marker, normalise

SETUP = """\
def {capture}(index, answer, _address={address!r}, _token={token!r}):
    from lesson_grading_wire import serve_answer
    serve_answer(_address, _token, index, answer)
"""


@dataclass(frozen=True)
class Step:
    """One cell to run: `kind` is "setup", "learner" or "check"; `number` is the submission's code cell
    (counting from 1) it comes from, None for a check put back; `check` the check's index."""
    source: str
    kind: str
    number: int = None
    check: int = None
    name: str = None


def defines(source, name):
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id == name:
            return True
    return False


def _find(code, check, others, after, used):
    """(position in `code`, how) of the submission's cell for `check` (`others`: the notebook's other checks)."""
    untouched = normalise(check.source)
    tests = [("untouched", lambda s: normalise(s) == untouched),
             ("edited", lambda s: has_marker(s) and check.name in called_checks(s)),
             ("edited", lambda s: check.name in called_checks(s)),
             ("edited", lambda s: has_marker(s) and not others & set(called_checks(s)))]
    for how, test in tests:
        hits = [k for k, (_, s) in enumerate(code) if k not in used and test(s)]
        if hits:
            return next((k for k in hits if k > after), hits[0]), how
    return None, "missing"


def plan(nb, course_nb, address, token):
    """(steps, notes per check index, learner-written cells [(number, source)]) for notebook node `nb`; the check
    cells give their answers to the judge listening on `address` (lesson_tools.grading.judge), saying `token`."""
    code = [(n, c.get("source", "")) for n, c in enumerate((c for c in nb.cells if c.get("cell_type") == "code"), 1)]
    replace, put_back, notes, after = {}, {}, {}, -1
    for check in course_nb.checks:
        others = {c.name for c in course_nb.checks} - {check.name}
        k, how = _find(code, check, others, after, replace)
        if k is not None:
            replace[k] = check
            if how == "edited":
                notes[check.index] = f"code cell {code[k][0]} (a check cell) was edited; the course's check was run"
        else:
            defining = [j for j, (_, s) in enumerate(code) if check.answer_name and defines(s, check.answer_name)]
            k = defining[-1] if defining else len(code) - 1
            put_back.setdefault(k, []).append(check)
            notes[check.index] = (f"the check cell is missing; the course's check was run after code cell "
                                  f"{code[k][0]}" if code else "the check cell is missing")
        after = max(after, k)
    copies = {normalise(c.source) for c in course_nb.checks}
    steps = [Step(SETUP.format(capture=CAPTURE, address=address, token=token), "setup")]
    steps += [Step(c.capture, "check", None, c.index, c.name) for c in put_back.get(-1, [])]
    for k, (number, source) in enumerate(code):
        if k in replace:
            steps.append(Step(replace[k].capture, "check", number, replace[k].index, replace[k].name))
        elif normalise(source) not in copies:
            steps.append(Step(source, "learner", number))
        steps += [Step(c.capture, "check", None, c.index, c.name) for c in put_back.get(k, [])]
    learner = [(n, s) for n, s in code if normalise(s) not in course_nb.cells]
    return steps, notes, learner
