"""Grade a learner's saved notebook: run it under nbval against the teachers' PASS lines.

    python -m lesson_lib.grade notebooks/01_challenge.ipynb [more.ipynb ...]

For each notebook: find the teachers' source with the same file name in notebooks/solutions/, copy the source
and stored output of its check cells (code cells with the line `# NBVAL_CHECK_OUTPUT`, matched in order) into a
temporary copy of the learner's notebook placed in notebooks/ (so relative paths work), and run

    python -m pytest --nbval-lax --nbval-current-env -p no:cacheprovider -o addopts="" <copy>

In lax mode nbval compares only the check cells, whose output must equal the teachers' `PASS: ...` line, and
fails on any cell that raises.  Prints a summary per notebook (every check's line) and exits 0 only if every
check of every notebook passes and no cell raised.
"""
import copy
import json
import os
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

from ..course.build import CHECK_MARKER, NOTEBOOKS, ROOT, SOLUTIONS


def is_check_cell(cell):
    """A code cell containing the line `# NBVAL_CHECK_OUTPUT`."""
    return cell.cell_type == "code" and any(l.strip() == CHECK_MARKER for l in cell.source.splitlines())


def _stream_text(cell):
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")


def prepare(learner_path):
    """The learner's notebook with the teachers' check cells (source and outputs) put in, plus the expected
    line of each check cell: (notebook, [(code cell number, expected line)], notes).  Code cells are numbered
    from 0 counting code cells only, as nbval does."""
    import nbformat
    learner_path = Path(learner_path)
    teacher_path = SOLUTIONS / learner_path.name
    if not teacher_path.exists():
        raise FileNotFoundError(f"no teachers' source {teacher_path.relative_to(ROOT)} for {learner_path.name}: "
                                f"grade a notebook of the course under its original file name")
    nb = nbformat.read(str(learner_path), as_version=4)
    teacher = nbformat.read(str(teacher_path), as_version=4)
    theirs = [c for c in teacher.cells if is_check_cell(c)]
    mine = [i for i, c in enumerate(nb.cells) if is_check_cell(c)]
    code_number = {i: k for k, i in enumerate(i for i, c in enumerate(nb.cells) if c.cell_type == "code")}
    if len(mine) != len(theirs):
        raise ValueError(f"{learner_path.name} has {len(mine)} check cells but the course has {len(theirs)}: "
                         f"was a check cell deleted or duplicated? Start again from a fresh copy of the notebook "
                         f"and paste your answers in")
    expected, notes = [], []
    for i, t in zip(mine, theirs):
        if nb.cells[i].source != t.source:
            notes.append(f"code cell {code_number[i]} (a check cell) was edited; graded with the course's original")
        nb.cells[i].source = t.source
        nb.cells[i].outputs = copy.deepcopy(t.outputs)
        expected.append((code_number[i], _stream_text(t).strip()))
    return nb, expected, notes


def grade(learner_path, log=print):
    """Grade one notebook; print its summary; return True when every check passed and no cell raised."""
    import nbformat
    learner_path = Path(learner_path)
    try:
        nb, expected, notes = prepare(learner_path)
    except (FileNotFoundError, ValueError) as exc:
        log(f"{learner_path}: cannot grade: {exc}")
        return False
    tag = f"_grading_{learner_path.stem}_{uuid.uuid4().hex[:8]}"
    tmp = NOTEBOOKS / f"{tag}.ipynb"
    fd, cell_log = tempfile.mkstemp(prefix="lesson_grade_", suffix=".jsonl")
    os.close(fd)
    try:
        nbformat.write(nb, str(tmp))
        cmd = [sys.executable, "-m", "pytest", "--nbval-lax", "--nbval-current-env", "-p", "no:cacheprovider",
               "-o", "addopts=", "-p", "lesson_lib.grading._plugin", "-q", str(tmp)]
        env = {**os.environ, "LESSON_GRADE_LOG": cell_log}
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        with open(cell_log, encoding="utf-8") as f:
            cells = {r["cell"]: r for r in map(json.loads, f)}
    finally:
        tmp.unlink(missing_ok=True)
        os.unlink(cell_log)
    lines, passed = [], 0
    for i, want in expected:
        r = cells.get(i)
        got = (r["output"].strip() if r else "") or "(no output: the check cell did not run)"
        ok = r is not None and r["outcome"] == "passed" and got == want
        passed += ok
        lines.append(f"  {got}" if got.startswith(("PASS", "FAIL", "NOT ATTEMPTED")) else
                     f"  FAIL: check in code cell {i}: {got}")
    errors = [f"  ERROR in code cell {i}: {r['output'].strip().splitlines()[-1] if r['output'].strip() else 'failed'}"
              for i, r in sorted(cells.items()) if r["outcome"] != "passed" and i not in dict(expected)]
    ok = proc.returncode == 0 and passed == len(expected) and not errors
    log(f"{learner_path}: {passed} of {len(expected)} checks passed" + ("" if ok else " (not yet complete)"))
    for line in lines + errors + [f"  note: {n}" for n in notes]:
        log(line)
    if not cells and proc.returncode != 0:
        log("  pytest could not run the notebook:\n" + "\n".join((proc.stdout + proc.stderr).splitlines()[-15:]))
    return ok


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    results = [grade(p) for p in argv]
    return 0 if all(results) else 1

