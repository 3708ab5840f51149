"""Grade one submission: the task that runs on a local worker process or on a Dask worker.

    graded = grade_task(task)      # task: see make_task; graded.rows: its gradebook rows; graded.starved

In a temporary folder of its own (removed afterwards): a verified copy of lesson_lib for the kernel, without the
answers of the notebook's exercises (lesson_tools.grading.withheld), and a working folder.  Then

1. make the sandbox's control group (lesson_tools.grading.caps) and start the judge (lesson_tools.grading.judge,
   clean), the process where verdicts are made;
2. scan the cells the learner wrote (lesson_tools.grading.scan);
3. run the cells in a limited kernel, each check cell replaced by one that answers the judge's calls with plain
   data (plan, kernel, wire): the judge runs the check and keeps its truths;
4. check that neither the kernel's copy nor the course's own lesson_lib changed (verified, withheld);
5. one row per check: the judge's verdict, or TIMEOUT/ERROR where a limit or an error came first, and
   TAMPERED for every check when step 2 or 4 found tampering (the verdict it would have had is kept in the
   detail).

Everything a task needs travels in it (the notebook's text, the course notebook's checks and cells, the
course's hashes), so a worker on another machine needs only the same lesson_lib installed, which the hashes
verify.
"""
import shutil
import tempfile
from pathlib import Path
from typing import NamedTuple

from . import gradebook as gb
from . import withheld
from .verified import CourseFilesChanged, changed, copy_kernel_side, package_root, restore_command


class Graded(NamedTuple):
    """One submission's gradebook rows, and whether the machine's load, not the submission, ended its kernel's run
    (kernel.KernelRun.busy): only such a run is graded a second time, alone.  `kept`, when the task asks for it
    (--keep): {"ipynb": the notebook as its kernel ran it, "log": what its processes wrote to stdout and stderr}."""
    rows: list
    starved: bool = False
    kept: dict = None


def make_task(submission, course_nb, all_check_names, expected, limits, keep=False):
    """The picklable description of one submission's grading (`keep`: return the executed notebook and its log)."""
    return {"student": submission.student, "who": gb.identity(submission.person), "notebook": course_nb.stem,
            "submission": submission.label,
            "text": submission.text, "course_nb": course_nb, "check_names": sorted(all_check_names),
            "manifest": expected, "limits": limits, "note": submission.note, "keep": keep}


def _kept(run, steps, text, folder, limits):
    """What --keep gives the teacher: the learner's notebook with the outputs each code cell gave when the grader ran
    it (none for a cell not reached), and what the kernel's processes wrote to stdout and stderr (at most
    output_mb)."""
    import nbformat

    from .kernel import TERMINAL
    try:
        with open(folder / TERMINAL, "rb") as f:
            log = f.read(int(limits.output_mb * 2**20)).decode("utf-8", "replace")
    except OSError:
        log = ""
    nb = nbformat.reads(text, as_version=4)
    ran = {}
    if run.executed is not None:                     # the notebook kernel.run made: one cell per step
        for step, cell in zip(steps, run.executed.cells, strict=True):
            if step.number is not None:
                ran[step.number] = cell.get("outputs", [])
    for number, cell in enumerate((c for c in nb.cells if c.get("cell_type") == "code"), 1):
        cell.outputs, cell.execution_count = ran.get(number, []), None
    unseen = _unseen(folder)
    return {"ipynb": unseen(nbformat.writes(nb)), "log": unseen(log)}


def _rows(task, verdicts, folder):
    unseen = _unseen(folder)
    return [gb.row(task["who"], task["notebook"], task["submission"], name, verdict, unseen(detail), task.get("note"))
            for name, verdict, detail in verdicts]


def _unseen(folder):
    """A function that takes the host's paths out of a text the sandbox's code could write (an exception's message,
    a type's name, printed output): each path whose contents the sandbox shows becomes the path it has inside
    (lesson_tools.grading.sandbox.host_paths: a compiled module the sandbox shows still holds the path it was
    compiled at, and a kernel run without the sandbox sees them all), and the grader's working folder and its
    user's home folder become `.` and `~`.  No teacher's path reaches a page, a report, a gradebook or an export."""
    import os
    import re

    from .sandbox import host_paths
    paths = {**host_paths(folder), os.getcwd(): ".", os.path.expanduser("~"): "~"}
    paths = sorted(((k, v) for k, v in paths.items() if len(k) > 1), key=lambda kv: -len(kv[0]))

    def cut(match):                                   # a message cut short ("...") in the middle of a path
        start = match.group(1)
        return "..." if any(path.startswith(start) for path, _ in paths) else match.group(0)

    def unseen(text):
        for path, shown in paths:
            text = text.replace(path, shown)
        return re.sub(r"(/[^\s]*)\.\.\.", cut, text)
    return unseen


def _first_line(source):
    return next((line.strip() for line in source.splitlines() if line.strip()), "")[:60]


def _tampering(learner, protected, check_names, course_nb):
    """What the scan finds in the learner's cells, and every exercise answer that hands its work to the library's
    own implementation of it (each check's `computed_by`)."""
    from lesson_course.checks import REGISTRY

    from .scan import handovers, scan
    found = []
    for number, source in learner:
        found += [f"code cell {number} line {line}: {reason}" for line, reason in scan(source, protected, check_names)]
    for check in course_nb.checks:
        spec = REGISTRY.get(check.name)
        if spec is not None and spec.computed_by:
            found += [f"code cell {learner[k][0]} line {line}: {spec.function} {reason}"
                      for k, line, reason in handovers([s for _, s in learner], spec.function, spec.computed_by)]
    return found


def caps_for(limits):
    """The control group capping the sandbox as a whole (lesson_tools.grading.caps) when the kernel is sandboxed
    and the machine allows it, else a context holding None."""
    import contextlib

    from . import caps, sandbox
    if limits.sandbox and sandbox.problem() is None and caps.problem() is None:
        return caps.Group(limits.memory_mb, limits.processes)
    return contextlib.nullcontext(None)


def grade_task(task):
    """Graded(rows, starved) for one submission (see the module's docstring).  Raises CourseFilesChanged when this
    worker's lesson_lib differs from the grader's hashes: grading itself cannot go on there."""
    import nbformat

    from . import kernel, sandbox
    from .judge import Judge
    from .plan import plan
    from .scan import protected_names
    course_nb, limits, expected = task["course_nb"], task["limits"], task["manifest"]
    root = package_root()
    mismatch = changed(root, expected)
    if mismatch:
        raise CourseFilesChanged(f"the course's files at {root} differ from the hashes taken when grading started "
                                 f"({', '.join(mismatch[:5])}): restore them ({restore_command(root)}) and grade "
                                 f"again; on a Dask cluster, install the same course commit on every worker")
    folder = Path(tempfile.mkdtemp(prefix="lesson-grade-"))
    try:
        course, work = folder / "course", folder / "work"
        work.mkdir()
        kept = withheld.kernel_copy(root, expected, course, withheld.for_notebook(course_nb))
        copy_kernel_side(root, expected, course)
        nb = nbformat.reads(task["text"], as_version=4)
        boxed = limits.sandbox and sandbox.problem() is None
        with caps_for(limits) as group, Judge(root, expected, limits, folder, kernel.environment(root, folder),
                                               group and group.cpu_file, group and group.pids_file) as judge:
            address = sandbox.seen_inside(judge.address, folder) if boxed else judge.address
            steps, notes, learner = plan(nb, course_nb, address, judge.token)
            protected = protected_names(c.get("source", "") for c in nb.cells if c.get("cell_type") == "code")
            tampered = _tampering(learner, protected, task["check_names"], course_nb)
            run = kernel.run(steps, work, course, limits, judge, group)
        tampered += [f"a cell changed the course file {rel} (its copy)" for rel in changed(course, kept)]
        original = changed(root, expected)
        if original:
            tampered.append(f"the course's own files changed while this notebook ran: {original[:5]}")
        results = run.verdicts
        from .wire import WATCHER_OFF
        tampered += [f"the check cell of {c.name}: while it was checked, the answer switched off or emptied the "
                     f"grader's watching of its calls" if dotted == WATCHER_OFF else
                     f"the check cell of {c.name}: while it was checked, the answer called the library's own "
                     f"{dotted} (what the check compares with)"
                     for c in course_nb.checks for dotted in results.get(c.index, {}).get("handed", ())]
        verdicts = _verdicts(course_nb, steps, run, results, notes)
        if tampered:
            reasons = "; ".join(dict.fromkeys(tampered))
            verdicts = [(name, gb.TAMPERED, f"{reasons}. Verdict without the tampering: "
                                            f"{detail if detail.startswith(verdict) else verdict + ': ' + detail}")
                        for name, verdict, detail in verdicts]
        kept = _kept(run, steps, task["text"], folder, limits) if task.get("keep") else None
        return Graded(_rows(task, verdicts, folder), run.busy, kept)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _verdicts(course_nb, steps, run, results, notes):
    """[(check name, verdict, detail)] in course order."""
    position = {s.check: i for i, s in enumerate(steps) if s.kind == "check"}
    out = []
    for check in course_nb.checks:
        i = position[check.index]
        earlier = [f"{'code cell ' + str(steps[j].number) if steps[j].number else 'a cell'} "
                   f"(`{_first_line(steps[j].source)}`) raised {err}"
                   for j, err in sorted(run.errors.items()) if j < i and steps[j].kind == "learner"]
        context = [notes[check.index]] if check.index in notes else []
        if i >= run.completed:
            verdict, reason = run.stop or (gb.ERROR, "the check was not reached")
            detail = f"not reached: {reason}"
        elif results.get(check.index, {}).get("status") == "timeout":     # the judge's limit came first
            verdict, detail = gb.TIMEOUT, results[check.index]["line"]
        elif i in run.errors:
            verdict, detail = gb.ERROR, f"the check cell raised {run.errors[i]}"
            context += earlier[-2:]
        elif check.index not in results:
            verdict, detail = gb.ERROR, "the check cell gave the judge no answer"
        else:
            r = results[check.index]
            verdict = gb.FROM_STATUS.get(r["status"], gb.ERROR)          # (a timeout was taken above)
            detail = r["line"] or ""
            if verdict == gb.ERROR:
                context += earlier[-2:]
        out.append((check.name, verdict, "; ".join([detail] + context)))
    return out
