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

A markdown cell tagged AFTER_LOCK_TAG holds text that interprets a prediction's evidence (or states its outcome):
markdown renders as soon as a notebook opens, so in the learner version it becomes a code cell calling
`lesson_course.reveal.note("NN:k")`, which shows the text (notes.json, written by the build from `notes_text`) once
every prediction asked above it in the notebook is locked.  Such a cell comes after the first evidence cell (the
one that locks it) of the prediction nearest above it.
"""
import copy
import json
import re
from pathlib import Path

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUB = ("# YOUR CODE HERE", 'raise NotImplementedError("Your turn: see the instructions above")')
SOLUTION_TAG = "solution"
CHECK_MARKER = "# NBVAL_CHECK_OUTPUT"
CHECK_CALL = re.compile(r"\bchecks\.(\w+)\s*\(\s*([\w.]*)")
AFTER_LOCK_TAG = "after-lock"
PREDICT_CALL = re.compile(r"\bpredict\(\s*[\"'](\w+)[\"']\s*\)")
NOTE_CELL = ("# Text that waits for your prediction above: shown here once your choice is locked\n"
             "from lesson_course.reveal import note\n"
             "note({key!r})")
_COMMENT = re.compile(r"<!--.*?-->", re.S)


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


def _notebook_id(nb, name):
    """The two-digit id a notebook's notes are keyed by: its stamp's (metadata["lesson"]), else its file name's."""
    return str((nb.metadata.get("lesson") or {}).get("notebook") or Path(name).stem)[:2]


def after_lock_notes(nb, name="notebook"):
    """{cell index: (note id "NN:k", [the predictions asked above it], its markdown without comments)} for every
    markdown cell of a teachers' source tagged AFTER_LOCK_TAG.  Raises CourseError for one that is not markdown,
    has no prediction above it, or comes before the first evidence cell of the prediction nearest above it."""
    notes, asked, lock_cell = {}, [], None
    for i, cell in enumerate(nb.cells):
        tagged = AFTER_LOCK_TAG in cell.get("metadata", {}).get("tags", [])
        if tagged:
            where = f"{name}, cell {i} (tagged {AFTER_LOCK_TAG})"
            if cell.cell_type != "markdown":
                raise CourseError(f"{where}: only markdown cells can wait for a prediction's lock")
            if not asked:
                raise CourseError(f"{where}: no prediction is asked above it (predict(\"...\") in a code cell)")
            if lock_cell is None:
                raise CourseError(f"{where}: it comes before the first evidence cell of {asked[-1]!r}, the cell "
                                  f"that locks it: move it below that cell")
            notes[i] = (f"{_notebook_id(nb, name)}:{len(notes) + 1}", list(asked),
                        _COMMENT.sub("", cell.source).strip())
        elif cell.cell_type == "code":
            found = PREDICT_CALL.findall(cell.source)
            if found:
                asked += [p for p in found if p not in asked]
                lock_cell = None
            elif asked and lock_cell is None:
                lock_cell = i
    return notes


def notes_text(teachers):
    """The text of lesson_course/notes.json for {notebook id: teachers' source with current markers}."""
    notes = {}
    for notebook_id, nb in teachers.items():
        for key, after, text in after_lock_notes(nb, notebook_id).values():
            notes[key] = {"after": after, "text": text}
    return json.dumps(notes, indent=1, ensure_ascii=False) + "\n"


def learner_version(nb, name="notebook"):
    """The learner notebook made from a teachers' source (a nbformat NotebookNode): every solution block replaced
    by the stub, cells tagged `solution` dropped, cells tagged `after-lock` turned into the code cell that shows
    their text once the prediction above is locked, no outputs, execution counts or stored widget state (which
    would show a result before the learner's prediction)."""
    learner = copy.deepcopy(nb)
    learner.metadata.pop("widgets", None)
    notes = after_lock_notes(learner, name)
    cells = []
    for i, cell in enumerate(learner.cells):
        if SOLUTION_TAG in cell.get("metadata", {}).get("tags", []):
            continue
        if i in notes:
            code = _new_code_cell(NOTE_CELL.format(key=notes[i][0]), cell)
            cells.append(code)
            continue
        if cell.cell_type == "code":
            cell.source, _ = strip_solutions(cell.source, where=f"{name}, cell {i}")
            cell.outputs, cell.execution_count = [], None
            cell.metadata.pop("execution", None)
        cells.append(cell)
    learner.cells = cells
    return learner


def _new_code_cell(source, like):
    """A code cell with `source`, the id and metadata of the cell `like`, no outputs."""
    import nbformat
    code = nbformat.v4.new_code_cell(source, metadata=copy.deepcopy(like.get("metadata", {})))
    if "id" in like:
        code["id"] = like["id"]
    return code


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
