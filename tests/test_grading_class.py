"""The grader end to end, as a teacher runs it on a class's downloads: `lesson-tools grade FOLDER --out`.

A synthetic class (built from the course's own notebooks) holds a folder per student and loose renamed files,
duplicate downloads, a corrupt notebook, foreign files, an infinite loop in a cell and in an answer, a memory
hog, and seven kinds of cheating.  The gradebook is checked row by row.  A smaller class is graded one
submission at a time, on two local processes and on a Dask LocalCluster: the gradebooks are equal.
"""
import copy
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import nbformat
import numpy as np
import pytest
from check_cases import RIGHT

from lesson_course import checks
from lesson_tools.build import NOTEBOOKS, ROOT, SOLUTIONS
from lesson_tools.grading import caps, gradebook, sandbox
from lesson_tools.grading.grader import grade
from lesson_tools.grading.rlimits import Limits

LIMITS = dict(timeout=10, memory_mb=2500)          # the hog asks for 3.2 GB; every course cell takes < 3 s
M05, STEP = "05_retrieve_and_space", "symplectic_euler_step"
SANDBOXED = sandbox.problem() is None              # kernels run in bubblewrap (tests/test_sandbox.py)
CAPPED = SANDBOXED and caps.problem() is None      # ... in a control group: limits count CPU time (test_caps.py)
OVER_CELL = ("used more than 10 s of CPU time (per-cell limit, all its processes)" if CAPPED else
             "ran longer than 10 s (per-cell limit)")
OVER_CHECK = ("the check used more than 10 s of CPU time on the answer" if CAPPED else
              "the check ran longer than 10 s on the answer")
CHECKS_02 = [name for name, spec in checks.REGISTRY.items() if spec.notebook == "02_model"]
CHECKS_05 = [name for name, spec in checks.REGISTRY.items() if spec.notebook == M05]   # STEP among them


def teacher(stem):
    return nbformat.read(str(SOLUTIONS / f"{stem}.ipynb"), as_version=4)


def learner(stem):
    return nbformat.read(str(NOTEBOOKS / f"{stem}.ipynb"), as_version=4)


def index(nb, text):
    return next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and text in c.source)


def with_cell(nb, before, source):
    nb = copy.deepcopy(nb)
    nb.cells.insert(index(nb, before), nbformat.v4.new_code_cell(source))
    return nb


def edited(nb, text, old, new):
    nb = copy.deepcopy(nb)
    cell = nb.cells[index(nb, text)]
    assert old in cell.source, (old, cell.source)
    cell.source = cell.source.replace(old, new)
    return nb


CHECK_05 = f"checks.{STEP}("
NOT_ATTEMPTED_05 = f"NOT ATTEMPTED: {STEP}: {checks.NOT_ATTEMPTED}"
STUB_05 = ("    # YOUR CODE HERE\n    raise NotImplementedError(\"Your turn: see the instructions above\")\n"
           "    return q_new, qd_new")


def answer_05(body):
    """The learner's 05 notebook with the exercise's body (stub lines) replaced by `body`."""
    return edited(learner(M05), f"def {STEP}", STUB_05, body)


def table_of_the_editions_inputs():
    """A 05 answer that is a table: the check's inputs in a learner's notebook (seeded, as the edition ships them)
    and the right results, pasted as numbers.  It passes the notebook's own check."""
    from lesson_course.checks import independent
    assert independent.SALT is None
    table, f = {}, None

    def record(f_, q, qd, dt):
        nonlocal f
        f = f_
        q_new, qd_new = (np.asarray(v, dtype=float) for v in RIGHT[STEP](f_, q, qd, dt))
        table[(tuple(map(float, np.round(q, 9))), tuple(map(float, np.round(qd, 9))))] = (
            [float(v) for v in q_new], [float(v) for v in qd_new])
        return q_new, qd_new
    assert checks.evaluate(STEP, record)[0] == "pass"
    body = (f"    table = {table!r}\n"
            "    import numpy as np\n"
            "    q_new, qd_new = table[(tuple(map(float, np.round(q, 9))), tuple(map(float, np.round(qd, 9))))]\n"
            "    return np.array(q_new), np.array(qd_new)")
    return answer_05(body)


# the room (issue 56): decoy checkouts with the solutions and the library's answer, and a decoy class, beside the
# class folder and beside the repository (`graded`); this cell searches the file system for any implementation of the
# exercise, in a .py file or a notebook's cell, and keeps one that runs (the interpreter's own trees, which hold no
# course, are not read: it keeps the test short)
FINDER = f"""\
import importlib.util, json, os


def found_step(f, q, qd, dt):
    return q, qd


def works(fn):
    try:
        fn(lambda q, qd: -q, 1.0, 0.0, 0.1)
        return True
    except Exception:
        return False


todo, n = ['/'], 0
while todo and n < 100_000:
    top = todo.pop()
    try:
        entries = list(os.scandir(top))
    except OSError:
        continue
    for e in entries:
        n += 1
        if e.is_dir(follow_symlinks=False):
            if e.path not in ('/proc', '/sys', '/dev', '/python', '/usr'):
                todo.append(e.path)
            continue
        if not e.name.endswith(('.py', '.ipynb')) or e.stat().st_size > 2**20:
            continue
        try:
            text = open(e.path, errors='replace').read()
            cells = [text] if e.name.endswith('.py') else [''.join(c['source']) for c in json.loads(text)['cells']
                                                           if c['cell_type'] == 'code']
        except (OSError, ValueError, KeyError, TypeError):
            continue
        for k, source in enumerate(c for c in cells if '{STEP}' in c or '_symplectic_euler' in c):
            path = f'/tmp/found_{{n}}_{{k}}.py'
            open(path, 'w').write(source)
            try:
                spec = importlib.util.spec_from_file_location(f'found_{{n}}_{{k}}', path)
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
            except BaseException:
                continue
            for name in ('{STEP}', '_symplectic_euler'):
                fn = getattr(module, name, None)
                if callable(fn) and works(fn):
                    found_step = fn
print('searched', n)
"""
# the environment (issue 56): what the kernel can read of the host (the teacher's environment, its paths, its
# users) raised as the answer's error, so that it would land in the gradebook, the feedback and the report
SNOOP = """\
    import os, sys
    seen = list(os.environ.values())
    for name in ('/proc/self/environ', '/proc/1/environ', '/etc/passwd', '/proc/self/mountinfo'):
        try:
            seen += open(name, errors='replace').read().replace('\\0', ' ').split()
        except OSError:
            pass
    seen += [sys.prefix, sys.base_prefix, sys.executable, os.getcwd(), *sys.path]
    plain = ('/python', '/grading', '/proc', '/dev', '/tmp', '/etc', '/usr', '/lib', '/newroot')
    odd = [v for v in seen if len(v) >= 16 and v.isalnum()]                      # a token
    odd += [v for v in seen if v.startswith('/') and not v.startswith(plain) and v != '/']     # a path
    odd += [v.split(':')[0] for v in seen if v.count(':') >= 6 and not v.startswith('learner')]   # a user
    raise ValueError(' '.join(dict.fromkeys(odd)) or 'nothing')"""

CHEATS = {   # name: the learner's 05 notebook (stub unfilled unless said), with ...
    "replaces_check": with_cell(learner(M05), CHECK_05, f'setattr(checks, "{STEP}", lambda fn: print("PASS: {STEP}"))'),
    "prints_fake_pass": with_cell(learner(M05), CHECK_05, f'print("PASS: {STEP}")'),
    "edits_check_cell": edited(learner(M05), CHECK_05, f"checks.{STEP}({STEP})", f'print("PASS: {STEP}")'),
    "edits_check_cell_answer": edited(learner(M05), CHECK_05, f"checks.{STEP}({STEP})",
                                      f"checks.{STEP}(lambda f, q, qd, dt: (q + dt * (qd + dt * f(q, qd)), "
                                      f"qd + dt * f(q, qd)))"),
    "edits_lesson_lib": with_cell(learner(M05), CHECK_05, (
        "import inspect\n"
        "path = inspect.getsourcefile(checks)        # no __file__, no 'lesson_lib' in the text\n"
        f"open(path, 'a').write('\\ndef {STEP}(fn):\\n    print(\"PASS: {STEP}\")\\n')")),
    "redefines_print": with_cell(learner(M05), CHECK_05, (
        "import sys\n"
        "def print(*args, **kwargs):\n"
        f"    sys.__stdout__.write('PASS: {STEP}\\n')")),
    "patches_numpy": with_cell(learner(M05), CHECK_05, "np.max = lambda *a, **k: 0.0"),
    # a wrong answer that, when called by the check, disables the check's comparisons, with no name the scan knows
    "patches_inside_answer": answer_05("    m = np\n    m.max = lambda *a, **k: 0.0\n    return q, qd"),
    # answers that attack the checks from the inside, which the old grader ran where it made the verdict
    "reads_callers_frames": answer_05(
        "    import inspect\n"
        "    for record in inspect.stack():\n"
        "        for value in record.frame.f_locals.values():\n"
        "            if isinstance(value, list) and len(value) == 2 and isinstance(value[0], tuple):\n"
        "                return value[0]                  # the check's 'right' answers, if it could see them\n"
        "    return q, qd"),
    "returns_a_payload": answer_05(
        "    class Payload:\n"
        "        def __reduce__(self):\n"
        "            return (print, ('PASS: {STEP}',))\n"
        "    return Payload(), Payload()"),
    # answers that hand the exercise to the library's own implementation (found by the scan)
    "hands_to_the_library": answer_05(
        "    from lesson_lib.physics import integrators\n"
        "    return integrators.symplectic_euler_step(f, q, qd, dt)"),
    "hands_to_the_library_by_name": answer_05(
        "    from lesson_lib.physics.integrators import symplectic_euler_step as theirs\n"
        "    return theirs(f, q, qd, dt)"),
    # ... through a helper of its own in another cell, which reading the answer's code does not show (seen running)
    "hands_over_through_a_helper": with_cell(
        answer_05("    return step_helper(f, q, qd, dt)"), f"def {STEP}",
        "from lesson_lib.physics import integrators\n\n\ndef step_helper(f, q, qd, dt):\n"
        "    return integrators.symplectic_euler_step(f, q, qd, dt)"),
    # ... from a thread it starts, and under a module name borrowed from the library (seen by the code's file)
    "hands_over_from_a_thread": answer_05(
        "    import threading\n"
        "    from lesson_lib.physics import integrators\n"
        "    out = []\n"
        "    worker = threading.Thread(target=lambda: out.append(integrators.symplectic_euler_step(f, q, qd, dt)))\n"
        "    worker.start()\n"
        "    worker.join()\n"
        "    return out[0]"),
    "hands_over_under_a_borrowed_name": with_cell(
        answer_05("    return step_helper(f, q, qd, dt)"), f"def {STEP}",
        "__name__ = 'lesson' + '_lib.mine'\n\n\ndef step_helper(f, q, qd, dt):\n"
        "    from lesson_lib.physics import integrators\n"
        "    return integrators.symplectic_euler_step(f, q, qd, dt)"),
    # a table of the inputs the edition's seeds give, which the judge's own salt changes
    "looks_up_the_editions_inputs": table_of_the_editions_inputs(),
    "writes_pass_and_exits": answer_05(
        "    import os\n"
        "    os.write(1, b'PASS: {STEP}\\n')\n"
        "    os._exit(0)"),
    # ... and five more that a watcher in the kernel missed: the library's code is not in the kernel's files at all
    # (lesson_tools.grading.withheld), so each reaches only a function that raises
    "turns_off_the_watcher": with_cell(
        answer_05("    from lesson_lib.physics import integrators\n"
                  "    return integrators.symplectic_euler_step(f, q, qd, dt)"), f"def {STEP}",
        "import contextlib\nimport lesson_grading_wire\n"
        "lesson_grading_wire.watching = lambda names, seen: contextlib.nullcontext()"),
    "copies_the_code_object": with_cell(
        answer_05("    return my_step(f, q, qd, dt)"), f"def {STEP}",
        "import types\nfrom lesson_lib.physics import integrators\n"
        "my_step = types.FunctionType(integrators._symplectic_euler.__code__, {})"),
    "borrows_a_library_file_name": with_cell(
        answer_05("    return helper(f, q, qd, dt)"), f"def {STEP}",
        "from lesson_lib.physics import integrators\n"
        "exec(compile('def helper(f, q, qd, dt):\\n    return integrators.symplectic_euler_step(f, q, qd, dt)\\n',"
        " integrators.__file__, 'exec'))"),
    "uses_a_pool_started_earlier": with_cell(
        answer_05("    from lesson_lib.physics import integrators\n"
                  "    return pool.submit(integrators.symplectic_euler_step, f, q, qd, dt).result()"), f"def {STEP}",
        "from concurrent.futures import ThreadPoolExecutor\npool = ThreadPoolExecutor(1)\n"
        "pool.submit(print, 'started').result()"),
    "forks_a_child": answer_05(
        "    import json, posix\n"
        "    from lesson_lib.physics import integrators\n"
        "    r, w = posix.pipe()\n"
        "    if posix.fork() == 0:\n"
        "        try:\n"
        "            out = [v.tolist() for v in integrators.symplectic_euler_step(f, q, qd, dt)]\n"
        "        except Exception as exc:\n"
        "            out = str(exc)\n"
        "        posix.write(w, json.dumps(out).encode())\n"
        "        posix._exit(0)\n"
        "    posix.close(w)\n"
        "    out = json.loads(posix.read(r, 1 << 16))\n"
        "    if isinstance(out, str):\n"
        "        raise RuntimeError(out)\n"
        "    return tuple(np.array(v) for v in out)"),
    # the room (issue 56): a decoy checkout with the solutions and the library's answer, and a decoy class, beside the
    # class folder and beside the repository; the cell searches the file system for any implementation and uses it
    "finds_the_answer_on_the_host": with_cell(answer_05("    return found_step(f, q, qd, dt)"), f"def {STEP}",
                                              FINDER),
    "snoops_the_host": answer_05(SNOOP),
}

# the answers reached only by handing the exercise to the library: in the grader, each finds no code to hand it to
NOT_IN_THE_ROOM = ("turns_off_the_watcher", "copies_the_code_object", "borrows_a_library_file_name",
                   "uses_a_pool_started_earlier", "forks_a_child")


ANSWERS_05 = ("finds_the_answer_on_the_host", "snoops_the_host",
              "patches_inside_answer", "reads_callers_frames", "returns_a_payload", "writes_pass_and_exits",
              "looks_up_the_editions_inputs", "hands_over_from_a_thread", "hands_over_under_a_borrowed_name",
              "hands_to_the_library", "hands_to_the_library_by_name", "hands_over_through_a_helper",
              *NOT_IN_THE_ROOM)


# the answer written above the stub's line, which still runs: the grader must say so, as the check cell does
STUB_LEFT = edited(learner(M05), f"def {STEP}", "    # YOUR CODE HERE\n",
                   "    qd_new = qd + dt * f(q, qd)\n    q_new = q + dt * qd_new\n")


def make_class(folder):
    """The synthetic class: {relative path: notebook node or bytes}; returns the expected rows as tuples."""
    wrong_02 = edited(teacher("02_model"), "def kinetic_energy", "T = 0.5 * qd @ Mqd", "T = qd @ Mqd")
    looping = with_cell(teacher("02_model"), "def mass_matrix_from_rnea", "while True:\n    pass")
    hog = with_cell(teacher(M05), CHECK_05, "import numpy as np\nhog = np.ones((20_000, 20_000))   # 3.2 GB")
    answer_loops = edited(teacher("02_model"), "def kinetic_energy", "    T = 0.5 * qd @ Mqd\n",
                          "    while True:\n        pass\n")
    files = {
        "alice/02_model.ipynb": teacher("02_model"),
        "bob_02_model.ipynb": wrong_02,
        f"carol/{M05}.ipynb": learner(M05),
        f"carol/{M05} (1).ipynb": teacher(M05),
        "dave/02_model.ipynb": looping,
        f"erin/{M05}.ipynb": hog,
        "frank/homework.ipynb": answer_loops,
        **{f"hana/{stem}.ipynb": teacher(stem) for stem in ("00_start_here", "01_challenge", "03_guided_practice",
                                                            "04_feedback", "06_mastery_and_project",
                                                            "07_write_with_the_model",
                                                            "08_learn_from_what_the_robot_records")},
        "gina/00_start_here.ipynb": learner("00_start_here"),
        f"ivan/{M05}.ipynb": STUB_LEFT,
        "gina/bench_app.ipynb": nbformat.read(str(NOTEBOOKS / "bench_app.ipynb"), as_version=4),
        "gina/corrupt.ipynb": b'{"cells": [{"cell_type": "code", "sou',
        "gina/notes.txt": b"see attached\n",
        "gina/other_course.ipynb": nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('hi')")]),
        **{f"{name}/{M05}.ipynb": nb for name, nb in CHEATS.items()},
    }
    for rel, content in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content) if isinstance(content, bytes) else nbformat.write(content, str(path))


def course_files():
    """{path: (size, mtime)} of the course's own files (Python's bytecode caches aside)."""
    return {p: (p.stat().st_size, p.stat().st_mtime_ns) for d in ("lesson_lib", "notebooks")
            for p in (ROOT / d).rglob("*") if p.is_file() and "__pycache__" not in p.parts}


SECRET = "LessonTeachersToken" + uuid.uuid4().hex          # in the grader's environment: reaches no file


def plant_decoys(places):
    """A decoy checkout (the solutions, and a lesson_lib whose integrators hold the answer) and a decoy class (a
    classmate's finished notebook) in each place; the folders made."""
    made = []
    for place in places:
        checkout = Path(tempfile.mkdtemp(dir=place, prefix="lesson-decoy-"))
        (checkout / "notebooks" / "solutions").mkdir(parents=True)
        shutil.copy(SOLUTIONS / f"{M05}.ipynb", checkout / "notebooks" / "solutions")
        shutil.copytree(ROOT / "lesson_lib", checkout / "lesson_lib", ignore=shutil.ignore_patterns("__pycache__"))
        (checkout / "last-year" / "ann").mkdir(parents=True)
        shutil.copy(SOLUTIONS / f"{M05}.ipynb", checkout / "last-year" / "ann")
        made.append(checkout)
    return made


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The CLI on the class with two workers, a secret in its environment, decoys beside the class folder and beside
    the repository: (rows by (student, submission file name, check), process, folder)."""
    folder = tmp_path_factory.mktemp("class")
    make_class(folder)
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    course_before = course_files()
    out = folder.parent / "gradebook.csv"
    decoys = plant_decoys([folder.parent] + ([ROOT.parent] if os.access(ROOT.parent, os.W_OK) else []))
    try:
        proc = subprocess.run([sys.executable, "-m", "lesson_tools", "grade", str(folder), "--out", str(out),
                               "--workers", "2", "--timeout", str(LIMITS["timeout"]), "--memory-mb",
                               str(LIMITS["memory_mb"]), "--scores", str(folder.parent / "scores.csv"),
                               "--feedback", str(folder.parent / "feedback"), "--report",
                               str(folder.parent / "report")],
                              cwd=ROOT, capture_output=True, text=True, timeout=900,
                              env={**os.environ, "LESSON_TEACHERS_SECRET": SECRET})
    finally:
        for decoy in decoys:
            shutil.rmtree(decoy, ignore_errors=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before, "the grader wrote beside submissions"
    assert course_files() == course_before, "the grader wrote into the course's folder"
    rows = gradebook.read(out)
    by_key = {}
    for r in rows:
        key = (r["student"], Path(r["submission"]).name, r["check"])
        assert key not in by_key, f"two rows for {key}"
        by_key[key] = r
    return by_key, proc, folder


def points_of(names):
    """What PASSes of these checks earn, as the checks declare it, as the gradebook prints it."""
    return gradebook.number(sum(checks.REGISTRY[name].points for name in names))


def verdicts(graded, student, file):
    rows, _, _ = graded
    return {check: (r["verdict"], r["detail"]) for (s, f, check), r in rows.items() if (s, f) == (student, file)}


def test_every_file_has_rows_and_the_course_folder_is_left_alone(graded):
    rows, proc, folder = graded
    files = {f"{folder.name}/{p.relative_to(folder).as_posix()}" for p in folder.rglob("*") if p.is_file()}
    assert {r["submission"] for r in rows.values()} == files          # labelled from the folder given
    assert all(r["verdict"] in gradebook.VERDICTS for r in rows.values())
    n = points_of(CHECKS_02)
    assert f"alice: {n} of {n} points (02_model {n}/{n})" in proc.stdout


def test_right_wrong_and_unfilled_answers(graded):
    assert {c: v for c, (v, _) in verdicts(graded, "alice", "02_model.ipynb").items()} == {
        name: "PASS" for name in CHECKS_02}
    bob = verdicts(graded, "bob", "bob_02_model.ipynb")               # a renamed file: student from its name
    assert bob["kinetic_energy"][0] == "FAIL" and "1/2 is missing" in bob["kinetic_energy"][1]
    assert {bob[name][0] for name in CHECKS_02 if name != "kinetic_energy"} == {"PASS"}


def test_every_exercise_of_the_course_passes_through_the_grader(graded):
    """The teachers' answers to every exercise survive the trip out of the kernel and pass the clean checks, in a
    kernel whose library lacks every answer of the notebook (their other cells that use one raise; grading goes on)."""
    rows, _, _ = graded
    graded_here = {(f, c): r["verdict"] for (s, f, c), r in rows.items() if s in ("hana", "alice")}
    assert set(graded_here.values()) == {"PASS"}
    assert {c for _, c in graded_here} | set(CHECKS_05) == set(checks.REGISTRY)    # 05's: carol, below


def test_duplicate_downloads_are_both_graded_and_summarised_by_the_best(graded):
    n = points_of(CHECKS_05)
    assert verdicts(graded, "carol", f"{M05}.ipynb") == {
        c: ("NOT ATTEMPTED", f"NOT ATTEMPTED: {c}: {checks.NOT_ATTEMPTED}") for c in CHECKS_05}
    assert verdicts(graded, "carol", f"{M05} (1).ipynb") == {c: ("PASS", f"PASS: {c}") for c in CHECKS_05}
    unit = "point" if n == "1" else "points"
    assert (f"carol: {n} of {n} {unit} ({M05} {n}/{n}, best of 2: {graded[2].name}/carol/{M05} (1).ipynb)"
            in graded[1].stdout), graded[1].stdout


def test_an_answer_above_the_stub_line_gets_the_same_fail_as_in_the_notebook(graded):
    verdict, detail = verdicts(graded, "ivan", f"{M05}.ipynb")[STEP]
    assert verdict == "FAIL" and "still raises NotImplementedError from the stub" in detail, detail
    assert "raise NotImplementedError(...)` still runs" in detail, detail


def test_an_infinite_loop_in_a_cell_times_out_the_checks_after_it(graded):
    dave = verdicts(graded, "dave", "02_model.ipynb")
    assert dave["kinetic_energy"] == ("PASS", "PASS: kinetic_energy")
    assert CHECKS_02.index("kinetic_energy") < CHECKS_02.index("mass_matrix_from_rnea")    # the loop is between
    for check in CHECKS_02[CHECKS_02.index("mass_matrix_from_rnea"):]:
        verdict, detail = dave[check]
        assert verdict == "TIMEOUT" and OVER_CELL in detail, detail        # (a second try only if it was starved)


def test_an_infinite_loop_in_an_answer_times_out_that_check_only(graded):
    frank = verdicts(graded, "frank", "homework.ipynb")              # renamed: matched by its check cells
    verdict, detail = frank["kinetic_energy"]
    assert verdict == "TIMEOUT" and detail.startswith(OVER_CHECK), detail
    assert {frank[name][0] for name in CHECKS_02 if name != "kinetic_energy"} == {"PASS"}


def test_a_memory_hog_gets_error_for_the_checks_it_did_not_reach_and_is_graded_once(graded):
    verdict, detail = verdicts(graded, "erin", f"{M05}.ipynb")[STEP]
    assert verdict == "ERROR" and "went over the memory limit of 2500 MB" in detail, detail
    assert "second time" not in detail and "[again, alone] erin" not in graded[1].stderr, detail   # one limit, once


def test_no_decoy_on_the_host_gives_an_answer(graded):
    """The cell searched the whole file system the kernel sees for an implementation of the exercise: the decoy
    checkouts and the decoy class beside the class folder and the repository were not there to find."""
    verdict, detail = verdicts(graded, "finds_the_answer_on_the_host", f"{M05}.ipynb")[STEP]
    assert verdict == "TAMPERED" and f"Verdict without the tampering: FAIL: {STEP}: from q = " in detail, detail


def output_texts(folder):
    """{name: text} of every file the grader wrote for the class (gradebook, scores, feedback pages and the zips'
    members, the report)."""
    import zipfile
    texts = {}
    for path in [folder / "gradebook.csv", folder / "scores.csv", *(folder / "feedback").rglob("*"),
                 *(folder / "report").rglob("*")]:
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as z:
                texts.update({f"{path.name}:{n}": z.read(n).decode("utf-8", "replace") for n in z.namelist()})
        elif path.is_file():
            texts[str(path)] = path.read_bytes().decode("utf-8", "replace")
    return texts


def test_no_teachers_secret_or_path_reaches_any_file(graded):
    """A learner's answer raised all it could read of the host: the environment (its own and pid 1's), the users,
    the mount points and their sources, Python's paths.  The grader's environment held a secret: it is in no file,
    and neither is the grader's virtualenv, its Python, its working folder or its user's home."""
    _, _, folder = graded
    verdict, detail = verdicts(graded, "snoops_the_host", f"{M05}.ipynb")[STEP]        # (it reads sys.path)
    assert verdict == "TAMPERED" and f"without the tampering: FAIL: {STEP}: your code raised ValueError" in detail
    home = os.path.expanduser("~")
    never = {"the secret": SECRET, "the virtualenv": sys.prefix, "the working folder": str(ROOT),
             "Python's folder": os.path.realpath(sys.base_prefix), "the home folder": home.rstrip("/") + "/"}
    texts = output_texts(folder.parent)
    assert len(texts) > 10, sorted(texts)
    leaks = {(what, name) for name, text in texts.items() for what, value in never.items() if value in text}
    assert not leaks, leaks


def test_files_that_are_not_course_notebooks_get_a_row_saying_so(graded):
    rows = graded[0]
    expected = {"corrupt.ipynb": "not a notebook: not valid JSON", "notes.txt": "not a notebook: not valid JSON",
                "other_course.ipynb": "not a notebook of this course",
                "bench_app.ipynb": "bench_app has no graded checks"}
    assert {f for (s, f, _) in rows if s == "gina"} == set(expected) | {"00_start_here.ipynb"}
    for file, reason in expected.items():
        row = rows[("gina", file, "")]
        assert row["verdict"] == "NOT GRADED" and row["detail"].startswith(reason), row
    assert rows[("gina", "bench_app.ipynb", "")]["notebook"] == "bench_app"
    assert verdicts(graded, "gina", "00_start_here.ipynb") == {     # the warm-up, untouched
        "total_mass": ("NOT ATTEMPTED", "NOT ATTEMPTED: total_mass: fill in the cell above, then run this cell again.")}


@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_no_cheat_ends_in_pass(graded, cheat):
    found = verdicts(graded, cheat, f"{M05}.ipynb")
    assert set(found) == set(CHECKS_05) and not any(v == "PASS" for v, _ in found.values()), found
    verdict, detail = found[STEP]
    expected = {"edits_check_cell_answer": "NOT ATTEMPTED", "writes_pass_and_exits": "TAMPERED",
                "looks_up_the_editions_inputs": "FAIL",
                "edits_lesson_lib": "NOT ATTEMPTED" if SANDBOXED else "TAMPERED",   # read-only in the sandbox
                "patches_inside_answer": "FAIL", "reads_callers_frames": "FAIL"}
    assert verdict == expected.get(cheat, "TAMPERED"), detail


def test_cheats_are_reported_with_what_gave_them_away(graded):
    detail = {name: verdicts(graded, name, f"{M05}.ipynb")[STEP][1] for name in CHEATS}
    assert "calls setattr on a module" in detail["replaces_check"]
    assert "looks like a check's verdict" in detail["prints_fake_pass"]
    assert "looks like a check's verdict" in detail["edits_check_cell"]
    assert "redefines print" in detail["redefines_print"]
    assert "assigns to np.max" in detail["patches_numpy"]
    if not SANDBOXED:                            # in the sandbox the write fails: nothing changed, nothing to see
        assert "a cell changed the course file lesson_course/checks" in detail["edits_lesson_lib"]
    # the answer's numpy patch, its look through the stack and its payload stay in the kernel: the judge's own
    # comparison sees what the function returned
    assert detail["patches_inside_answer"].startswith(f"FAIL: {STEP}: from q = "), detail
    assert detail["reads_callers_frames"].startswith(f"FAIL: {STEP}: "), detail
    assert detail["looks_up_the_editions_inputs"].startswith(f"FAIL: {STEP}: your code raised KeyError"), detail
    assert ("defines __reduce__" in detail["returns_a_payload"] and
            f"Verdict without the tampering: FAIL: {STEP}: {STEP} returned Payload, not numbers" in
            detail["returns_a_payload"]), detail
    # every hand-over to the library reaches a function that only raises: the kernel's copy has no answer in it,
    # so even the verdict without the tampering is a FAIL that says so
    withheld = (f"Verdict without the tampering: FAIL: {STEP}: your code raised RuntimeError: "
                f"lesson_lib.physics.integrators.")
    for name in ("hands_to_the_library", "hands_to_the_library_by_name"):
        assert (f"{STEP} hands the exercise to the library's own lesson_lib.physics.integrators.{STEP}" in detail[name]
                and withheld in detail[name]), detail[name]
    seen = f"while it was checked, the answer called the library's own lesson_lib.physics.integrators.{STEP}"
    for name in ("hands_to_the_library", "hands_to_the_library_by_name", "hands_over_through_a_helper",
                 "hands_over_under_a_borrowed_name"):
        assert seen in detail[name] and withheld in detail[name], detail[name]
    thread = detail["hands_over_from_a_thread"]          # the thread met the raise; the answer got nothing
    assert seen in thread and f"Verdict without the tampering: FAIL: {STEP}: your code raised IndexError" in thread
    for name in NOT_IN_THE_ROOM:
        assert withheld in detail[name] and "is withheld from this kernel" in detail[name], (name, detail[name])
    assert "uses os._exit" in detail["writes_pass_and_exits"] and "the kernel died" in detail["writes_pass_and_exits"]
    for name in ("edits_check_cell", "edits_check_cell_answer"):
        assert "(a check cell) was edited; the course's check was run" in detail[name]
    for name, text in detail.items():            # the course's check saw the unfilled stub
        if name not in ANSWERS_05:
            assert text.endswith(NOT_ATTEMPTED_05) or NOT_ATTEMPTED_05 + ";" in text, (name, text)


# ---------------------------------------------------------------------- parallel and Dask equal sequential
@pytest.fixture(scope="module")
def small_class(tmp_path_factory):
    folder = tmp_path_factory.mktemp("small")
    for rel, nb in {"ann/02_model.ipynb": edited(teacher("02_model"), "def kinetic_energy", "T = 0.5 * qd @ Mqd",
                                                  "T = qd @ Mqd"),
                    f"ben/{M05}.ipynb": teacher(M05), f"cy_{M05}.ipynb": learner(M05),
                    f"dee/{M05}.ipynb": CHEATS["replaces_check"]}.items():
        (folder / rel).parent.mkdir(exist_ok=True)
        nbformat.write(nb, str(folder / rel))
    limits = Limits(cell_s=LIMITS["timeout"], memory_mb=LIMITS["memory_mb"], salt=20261204)   # the same inputs
    return folder, limits, grade([folder], limits, workers=1)


def test_sequential_run_grades_the_small_class(small_class):
    _, _, rows = small_class
    assert [(r["student"], r["check"], r["verdict"]) for r in rows] == [
        *(("ann", name, "FAIL" if name == "kinetic_energy" else "PASS") for name in CHECKS_02),
        ("ben", STEP, "PASS"), ("cy", STEP, "NOT ATTEMPTED"), ("dee", STEP, "TAMPERED")]


def test_two_local_workers_give_the_same_gradebook(small_class):
    folder, limits, sequential = small_class
    assert grade([folder], limits, workers=2) == sequential


def test_a_dask_cluster_gives_the_same_gradebook(small_class):
    distributed = pytest.importorskip("dask.distributed")
    folder, limits, sequential = small_class
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        assert grade([folder], limits, scheduler=cluster.scheduler_address) == sequential


def test_cli_exit_codes_when_grading_cannot_run(tmp_path):
    def cli(*args):
        return subprocess.run([sys.executable, "-m", "lesson_tools", "grade", *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=120)
    missing = cli(str(tmp_path / "nope"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    bad = cli(str(tmp_path), "--workers", "0")
    assert bad.returncode == 2 and "expected a positive number" in bad.stderr
    empty = cli(str(tmp_path))                       # nothing to grade is a usage error, not an empty gradebook
    assert empty.returncode == 2 and "no files found under" in empty.stderr and "rows:" not in empty.stdout
    (tmp_path / f"{M05}.ipynb").write_text(nbformat.writes(learner(M05)))
    nowhere = cli(str(tmp_path), "--scheduler", "tcp://127.0.0.1:9")
    assert nowhere.returncode == 1 and "grading could not run" in nowhere.stderr, nowhere.stderr
