"""The grader's parts, without running notebooks: finding and matching submissions, naming students, planning the
cells, the tamper scan, the verified course files, the judge process, and the gradebook file.

The end-to-end runs (a synthetic class through the CLI, parallel and Dask equal to sequential) are in
tests/test_grading_class.py; pytest/nbval on learner notebooks in tests/test_grading_notebooks.py.
"""
import json
import os
import subprocess
import sys
import time

import nbformat
import pytest

from lesson_course import checks
from lesson_tools.build import NOTEBOOKS, SOLUTIONS
from lesson_tools.grading import course_notebooks, gradebook, verified
from lesson_tools.grading.intake import File, UsageError, find, person
from lesson_tools.grading.judge import Judge
from lesson_tools.grading.plan import plan
from lesson_tools.grading.rlimits import Limits
from lesson_tools.grading.scan import protected_names, scan
from lesson_tools.grading.submissions import identify, match


@pytest.fixture(scope="module")
def course():
    return course_notebooks.load()


def read(path):
    return nbformat.read(str(path), as_version=4)


# ---------------------------------------------------------------------- the course's notebooks
def test_catalog_knows_every_check_cell_of_the_teachers_sources(course):
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        marked = [c for c in read(path).cells if course_notebooks.carries_check_marker(c)]
        assert [c.source for c in marked] == [c.source for c in course[path.stem].checks], path.name
    for notebook in course:                     # each notebook's checks are the ones registered for it
        registered = {name for name, spec in checks.REGISTRY.items() if spec.notebook == notebook}
        assert {c.name for c in course[notebook].checks} == registered, notebook
    assert "bench_app" in course and not course["bench_app"].checks


def test_capture_replaces_only_the_check_call(course):
    check = course["03_guided_practice"].checks[0]
    assert check.answer == "errors_at" and check.answer_name == "errors_at"
    assert check.capture.splitlines() == ["# NBVAL_CHECK_OUTPUT", "from lesson_course import checks", "",
                                          "_lesson_capture_(0, lambda: (errors_at))"]


# ---------------------------------------------------------------------- finding and matching submissions
def at(rel, folder="class"):
    """A File as `find` gives it for `rel` under the folder `folder` given (nothing on disk)."""
    return File(f"{folder}/{rel}", tuple(rel.split("/")), 0, 0.0, None, outer=(folder,))


@pytest.mark.parametrize("rel, stem, student", [
    ("alice/02_model.ipynb", "02_model", "alice"),                       # folder per student
    ("alice/sub/02_model (1).ipynb", "02_model", "alice"),
    ("s1042_02_model.ipynb", "02_model", "s1042"),                      # LMS prefix
    ("s1042_02_model (2).ipynb", "02_model", "s1042"),                  # and a browser's download suffix
    ("Smith, Jo - 05_retrieve_and_space.ipynb", "05_retrieve_and_space", "Smith, Jo"),
    ("02_MODEL_bob.ipynb", "02_model", "bob"),
    ("homework.ipynb", "02_model", "homework"),                         # renamed: the name is all there is
    ("02_model (1).ipynb", "02_model", "class"),                        # nothing left: the folder given
])
def test_student_is_named_from_the_path(rel, stem, student):
    assert person(at(rel), stem).name == student


def test_student_of_a_file_given_directly_is_its_folder(tmp_path):
    (tmp_path / "carol").mkdir()
    (tmp_path / "carol" / "02_model.ipynb").write_text("{}")
    file, = find([tmp_path / "carol" / "02_model.ipynb"])
    assert file.label == "carol/02_model.ipynb" and person(file, "02_model").name == "carol"


def test_find_walks_folders_skips_hidden_and_refuses_missing_paths(tmp_path):
    for rel in ("a/x.ipynb", "a/.ipynb_checkpoints/x-checkpoint.ipynb", "b/notes.txt", ".hidden.ipynb",
                "__MACOSX/a/x.ipynb"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("{}")
    found = find([tmp_path, tmp_path / "a" / "x.ipynb"])
    assert ["/".join(f.rel) for f in found] == ["a/x.ipynb", "b/notes.txt"]
    with pytest.raises(UsageError, match="does not exist"):
        find([tmp_path / "nope"])


def one(path):
    """The File `find` gives for one file on disk."""
    file, = find([path])
    return file


def unstamped(nb):
    """The notebook without the stamp `course build` writes (as a learner's copy may have lost it)."""
    nb.metadata.pop("lesson", None)
    return nb


def test_submissions_are_matched_by_content_not_by_name(course, tmp_path):
    cases = {
        "renamed_learner.ipynb": (unstamped(read(NOTEBOOKS / "02_model.ipynb")), "02_model", "check cells"),
        "renamed_teacher.ipynb": (unstamped(read(SOLUTIONS / "05_retrieve_and_space.ipynb")),
                                  "05_retrieve_and_space", "check cells"),
        "no_checks.ipynb": (unstamped(read(NOTEBOOKS / "bench_app.ipynb")), "bench_app", "cells"),
    }
    stamped = nbformat.v4.new_notebook(metadata={"lesson": {"notebook": "04_feedback"}})
    cases["02_model.ipynb"] = (stamped, "04_feedback", "metadata")          # the stamp beats the name
    for name, (nb, stem, how) in cases.items():
        nbformat.write(nb, str(tmp_path / name))
        sub = identify(one(tmp_path / name), course)
        assert (sub.notebook, sub.matched_by) == (stem, how), name
    assert identify(one(tmp_path / "no_checks.ipynb"), course).problem == "bench_app has no graded checks"


def test_a_deleted_check_cell_is_still_matched_by_the_others(course):
    nb = unstamped(read(NOTEBOOKS / "02_model.ipynb"))
    nb.cells = [c for c in nb.cells if "checks.kinetic_energy" not in c.source]
    assert match(nb, course) == ("02_model", "check cells")


@pytest.mark.parametrize("content, reason", [
    (b"\x89PNG\r\n\x1a\n\x00\x00\xff", "not a notebook: a binary file"),
    (b'{"cells": [', "not a notebook: not valid JSON"),
    (b'{"title": "not a notebook"}', "not a notebook: JSON without a list of cells"),
    (json.dumps(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])).encode(),
     "not a notebook of this course"),
])
def test_files_that_cannot_be_graded_say_why(course, tmp_path, content, reason):
    path = tmp_path / "x.ipynb"
    path.write_bytes(content)
    sub = identify(one(path), course)
    assert sub.notebook is None and sub.problem.startswith(reason), sub.problem


# ---------------------------------------------------------------------- planning the cells
def test_plan_replaces_check_cells_puts_back_missing_ones_and_skips_copies(course, tmp_path):
    nb = read(SOLUTIONS / "02_model.ipynb")
    code = [c for c in nb.cells if c.cell_type == "code"]
    names = [c.name for c in course["02_model"].checks]          # in the notebook's order
    assert names[-1] == "coriolis_from_dM" and {"kinetic_energy", "mass_matrix_from_rnea"} <= set(names)
    at = {n: next(i for i, c in enumerate(code) if f"checks.{n}(" in c.source) for n in names}
    ke, mm, co = at["kinetic_energy"], at["mass_matrix_from_rnea"], at["coriolis_from_dM"]
    code[mm].source = "# NBVAL_CHECK_OUTPUT\nprint('PASS: mass_matrix_from_rnea')"      # edited
    nb.cells.append(nbformat.v4.new_code_cell(code[ke].source))                          # a copy
    nb.cells.remove(code[co])                                                            # missing
    steps, notes, learner = plan(nb, course["02_model"], str(tmp_path / "judge.sock"), "tok")
    checks = [(s.check, s.number) for s in steps if s.kind == "check"]
    assert [s.name for s in steps if s.kind == "check"] == names
    defining = next(i for i, c in enumerate(code) if "def coriolis_from_dM" in c.source)
    last = len(names) - 1
    assert checks == [(k, at[n] + 1) for k, n in enumerate(names[:-1])] + [(last, None)]
    assert [s.kind for s in steps].index("check") == ke + 1                              # setup + ke cells
    assert steps[[s.check for s in steps].index(last) - 1].number == defining + 1        # right after its def
    k_mm = names.index("mass_matrix_from_rnea")
    assert "was edited" in notes[k_mm] and "missing" in notes[last] and 0 not in notes
    assert sum("checks.kinetic_energy(" in s.source for s in steps) == 0                # the copy is not run
    assert (mm + 1, code[mm].source) in learner                                          # the edit is scanned


# ---------------------------------------------------------------------- the tamper scan
PROTECTED = protected_names(["import numpy as np\nimport matplotlib.pyplot as plt\nfrom lesson_course import "
                             "checks\nfrom lesson_lib import DeLaN, double_pendulum"])


@pytest.mark.parametrize("source, words", [
    ('setattr(checks, "kinetic_energy", lambda fn: None)', "setattr"),
    ('checks.DETAILS["kinetic_energy"] = "pass"', "reaches into the checks"),
    ("checks.kinetic_energy = print", "checks.kinetic_energy"),
    ('print("PASS: kinetic_energy")', "looks like a check's verdict"),
    ('print(f"PASS: {name}")', "looks like a check's verdict"),
    ("def print(*args):\n    pass", "redefines print"),
    ("print = lambda *a: None", "redefines print"),
    ("import builtins\nbuiltins.print = len", "builtins"),
    ("import sys\nsys.modules['numpy'] = None", "sys.modules"),
    ("open(checks.__file__, 'w').write('')", "__file__"),
    ("open('/x/lesson_course/checks.py', 'w')", "installed files"),
    ("np.max = lambda *a, **k: 0.0", "np.max"),
    ("DeLaN.mass_matrix = lambda self, q: q", "DeLaN.mass_matrix"),
    ("from lesson_course.checks import _quiet", "internals"),
    ("from lesson_tools.grading import job", "grader"),
    ("!rm -rf lesson_lib", "shell command"),
    ("%%writefile ../lesson_course/checks.py\nx = 1", "%writefile"),
    ("%timeit setattr(checks, 'x', 1)", "setattr"),
    ("exec('checks.x = 1')", "exec"),
    ("getattr(checks, 'RES' + 'ULTS')['x'] = 'pass'", "computed name"),
    ("getattr(checks, 'DETAILS')", "checks.DETAILS with getattr"),
    ("import gc\ngc.get_referrers(checks)", "garbage collector"),
    ("import inspect, sys\ninspect.getclosurevars(sys.getprofile())", "sys.getprofile"),
    # every kind of target, not only assignment statements
    ("del np.max", "deletes np.max"),
    ("np.linalg.eigvalsh += 0", "np.linalg.eigvalsh"),
    ("for np.pi in [3]:\n    pass", "assigns to np.pi"),
    ("[0 for np.pi in [3]]", "assigns to np.pi"),
    ("with open('x') as np.e:\n    pass", "assigns to np.e"),
    ("(print := len)", "redefines print"),
    ("import numpy as checks", "redefines checks"),
])
def test_scan_flags_reaching_into_the_checks_and_their_world(source, words):
    found = scan(source, PROTECTED, ["kinetic_energy"])
    assert any(words in reason for _, reason in found), found


@pytest.mark.parametrize("source", [
    "def kinetic_energy(M, qd):\n    Mqd = M @ qd\n    return 0.5 * qd @ Mqd",
    'plt.rcParams["figure.figsize"] = (6, 4)\nmodel = DeLaN(seed=0)\nmodel.lr = 1e-2',
    "checks.kinetic_energy(kinetic_energy)\n%timeit kinetic_energy(M, qd)",
    "getattr(model, name)(q)\ngetattr(checks, 'kinetic_energy')(kinetic_energy)",
    'print(f"T = {T:.3f} J")\nfor i, q in enumerate(qs):\n    print(i, q)',
    "this is not python (",
    "M[0, 1] = np.max(q)\nfor T in [np.pi]:\n    x = [np.e for _ in range(2)]",
])
def test_scan_leaves_honest_code_alone(source):
    assert scan(source, PROTECTED, ["kinetic_energy"]) == []


def test_scan_finds_nothing_in_the_teachers_solutions(course):
    """Every cell a teacher wrote that the learner version does not have (the worked answers) is honest."""
    names = course_notebooks.check_names(course)
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        nb = read(path)
        protected = protected_names(c.source for c in nb.cells if c.cell_type == "code")
        learner = {course_notebooks.normalise(c.source) for c in read(NOTEBOOKS / path.name).cells}
        for cell in nb.cells:
            if cell.cell_type == "code" and course_notebooks.normalise(cell.source) not in learner:
                assert scan(cell.source, protected, names) == [], (path.name, cell.source)


def test_no_teachers_answer_hands_its_exercise_to_the_library():
    from lesson_tools.grading.scan import handovers
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        sources = [c.source for c in read(path).cells if c.cell_type == "code"]
        for spec in checks.REGISTRY.values():
            if spec.notebook == path.stem:
                assert handovers(sources, spec.function, spec.computed_by) == [], (path.name, spec.name)


def _resolve(dotted):
    import importlib
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


@pytest.mark.parametrize("name", sorted(n for n, s in checks.REGISTRY.items() if s.computed_by))
def test_an_answer_that_hands_its_work_to_the_library_is_found_three_ways(name):
    """Each name a check declares exists in the library, and calling it from the learner's function by attribute,
    by an imported name or by getattr's string is found; the same function computing by itself is not."""
    from lesson_tools.grading.scan import handovers
    spec = checks.REGISTRY[name]
    for dotted in spec.computed_by:
        assert callable(_resolve(dotted)), dotted
        module, last = dotted.rsplit(".", 1)
        ways = [f"import {module.split('.')[0]}\ndef {spec.function}(*args):\n    return lib.{last}(*args)\n",
                f"from {module} import {last} as theirs\n\n\ndef {spec.function}(*args):\n    return theirs(*args)\n",
                f"def {spec.function}(*args):\n    return getattr(lib, {last!r})(*args)\n"]
        for source in ways:
            found = handovers(["x = 1", source], spec.function, spec.computed_by)
            assert found and found[0][0] == 1 and dotted in found[0][2], (dotted, source, found)
    honest = f"def {spec.function}(*args):\n    return sum(args)\n"
    assert handovers([honest], spec.function, spec.computed_by) == []


# ---------------------------------------------------------------------- verified course files
def test_manifest_reports_an_edited_added_or_removed_file(tmp_path):
    expected = verified.manifest()
    assert "lesson_course/checks.py" in expected or "lesson_course/checks/__init__.py" in expected
    verified.copy_verified(verified.package_root(), expected, tmp_path)
    assert verified.changed(tmp_path, expected) == []
    (tmp_path / "lesson_lib/facts.py").write_text("PASS_MAX_ERROR = 99\n")
    (tmp_path / "lesson_lib/extra.py").write_text("")
    (tmp_path / "lesson_lib/physics/chain.py").unlink()
    assert verified.changed(tmp_path, expected) == ["lesson_lib/extra.py", "lesson_lib/facts.py",
                                                   "lesson_lib/physics/chain.py"]
    with pytest.raises(verified.CourseFilesChanged, match="facts.py"):
        verified.copy_verified(tmp_path, expected, tmp_path / "again")


def _judged(judge, index, name, fn):
    """The judge's verdict on `fn`, given from a thread standing in for the kernel's check cell."""
    import threading

    from lesson_tools.grading import wire
    judge.begin(index, name)
    errors = []

    def cell():
        try:
            wire.serve_answer(judge.address, judge.token, index, lambda: fn)
        except Exception as exc:                      # noqa: BLE001 -- e.g. no judge to connect to
            errors.append(exc)
    thread = threading.Thread(target=cell, daemon=True)
    thread.start()
    thread.join(120)
    return judge.finish(index), errors


def test_the_judge_checks_answers_from_the_verified_files_and_refuses_other_connections(tmp_path):
    import socket

    from lesson_tools.grading import wire
    root, expected = verified.package_root(), verified.manifest()
    with Judge(root, expected, Limits(cell_s=60), tmp_path, None) as judge:
        assert _judged(judge, 0, "lesson_passes", lambda e, lam: e < 0.2 and lam > 0) == (
            {"status": "pass", "line": "PASS: lesson_passes"}, [])
        judge.begin(1, "lesson_passes")                # another process, without the token, connects first
        intruder = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        intruder.connect(judge.address)
        wire.Channel(intruder).send({"token": "guess", "index": 1, "answer": {"callable": True}})
        judge._send({"ended": 1})
        assert judge._read(lambda m: m.get("index") == 1, 60) is not None
        assert _judged(judge, 2, "lesson_passes", lambda e, lam: True)[0]["status"] == "fail"
        assert _judged(judge, 3, "no_such_check", len)[0] == {
            "status": "error", "line": "the course has no check named 'no_such_check'"}


def test_a_check_cell_that_ends_without_answering_gets_an_error_not_a_wait(tmp_path):
    with Judge(verified.package_root(), verified.manifest(), Limits(cell_s=600), tmp_path, None) as judge:
        judge.begin(0, "lesson_passes")
        assert judge.finish(0) == {"status": "error", "line": "the check cell ended before giving its answer"}


def test_the_judge_refuses_course_files_that_changed(tmp_path):
    """A copy of lesson_lib whose check module was edited to pass everything: the judge will not load it."""
    expected = verified.manifest()
    copy = tmp_path / "copy"
    verified.copy_verified(verified.package_root(), expected, copy)
    rel = "lesson_course/checks/__init__.py"
    with open(copy / rel, "a") as f:
        f.write("\ndef lesson_passes(fn):\n    print('PASS: lesson_passes')\n")
    with Judge(copy, expected, Limits(cell_s=60), tmp_path, None) as judge:
        result, errors = _judged(judge, 0, "lesson_passes", lambda e, lam: None)
    assert result["status"] == "error" and "differs from the course's hash" in result["line"], result
    assert errors                                      # the cell found no judge to give its answer to


def test_limits_wrapper_sets_the_limits_on_the_command(tmp_path):
    from lesson_tools.grading.rlimits import wrap
    code = ("import resource; print(resource.getrlimit(resource.RLIMIT_AS)[0] >> 20, "
            "resource.getrlimit(resource.RLIMIT_CPU)[0], resource.getrlimit(resource.RLIMIT_FSIZE)[0] >> 20)")
    out = subprocess.run(wrap([sys.executable, "-c", code], 1500, 42, 7), capture_output=True, text=True)
    assert out.stdout.split() == ["1500", "42", "7"], out.stderr


# ---------------------------------------------------------------------- the gradebook file
def who(name, sid=None, platform="folder", late=False):
    return {"student": name, "student_id": sid or name, "platform": platform, "late": "late" if late else ""}


def test_gradebook_round_trips_as_csv_and_json(tmp_path):
    rows = [gradebook.row(who("ann"), "02_model", "ann/02_model.ipynb", "kinetic_energy", "PASS",
                          "PASS: kinetic_energy"),
            gradebook.row(who("bo, jr"), "", "x.txt", "", "NOT GRADED", 'not a notebook: "quoted", 2 lines\nhere')]
    rows = gradebook.score(rows, {"kinetic_energy": 2}, order={"ann/02_model.ipynb": 0, "x.txt": 0})
    shown = [{k: gradebook.shown(v) for k, v in r.items()} for r in rows]      # the line break written as \\n
    assert shown[1]["detail"] == 'not a notebook: "quoted", 2 lines\\nhere'
    for name in ("g.csv", "g.json"):
        gradebook.write(rows, tmp_path / name)
        assert gradebook.read(tmp_path / name) == shown
    header = (tmp_path / "g.csv").read_text().splitlines()[0]
    assert header == ",".join(gradebook.COLUMNS)
    assert (rows[0]["points"], rows[0]["max_points"], rows[0]["counted"], rows[0]["attempt"]) == ("2", "2", "yes", "1")
    assert (rows[1]["points"], rows[1]["max_points"], rows[1]["counted"]) == ("", "", "")


def test_files_no_person_could_be_found_for_stay_apart_in_the_summary():
    from lesson_tools.grading.intake import File
    from lesson_tools.grading.submissions import _unmatched
    labels = ("a/x.ipynb", "b/y.ipynb")
    rows = [gradebook.row(gradebook.identity(_unmatched(File(label, (label,), 0, 0.0, None))), "", label, "",
                          "NOT GRADED", "its path does not match --pattern") for label in labels]
    lines = gradebook.summary(gradebook.score(rows, {}, order=dict.fromkeys(labels, 0)))
    assert lines[:2] == [f"{label}: 0 of 0 points; nothing of theirs could be graded ({label[2:]}: its path does "
                         f"not match --pattern); look at: 1 NOT GRADED" for label in labels], lines


def test_summary_counts_the_best_submission_per_notebook_or_the_latest():
    row = gradebook.row
    ann = who("ann")
    rows = [row(ann, "02_model", "a", "x", "FAIL", ""), row(ann, "02_model", "a", "y", "PASS", ""),
            row(ann, "02_model", "b", "x", "PASS", ""), row(ann, "02_model", "b", "y", "PASS", ""),
            row(ann, "02_model", "c", "x", "FAIL", ""), row(ann, "02_model", "c", "y", "FAIL", ""),
            row(ann, "05_retrieve_and_space", "d", "z", "TAMPERED", "")]
    order = {"a": 1, "b": 2, "c": 3, "d": 1}                  # c is the latest attempt
    points = {"x": 1, "y": 2, "z": 3}
    best = gradebook.score(rows, points, "best", order)
    lines = gradebook.summary(best)
    assert lines[0] == ("ann: 3 of 6 points (02_model 3/3, best of 3: b; 05_retrieve_and_space 0/3); "
                        "look at: 1 TAMPERED")
    assert lines[-1] == "rows: 3 PASS, 3 FAIL, 1 TAMPERED"
    assert {r["submission"] for r in best if r["counted"] == "yes"} == {"b", "d"}
    latest = gradebook.score(rows, points, "latest", order)
    assert {r["submission"] for r in latest if r["counted"] == "yes"} == {"c", "d"}
    assert gradebook.summary(latest, "latest")[0].startswith("ann: 0 of 6 points (02_model 0/3, latest of 3: c;")
    assert [r["attempt"] for r in latest] == ["1", "1", "2", "2", "3", "3", "1"]


# ---------------------------------------------------------------------- the kernel's limits
def _kernel(tmp_path, sources, **limits):
    from lesson_tools.grading import kernel
    from lesson_tools.grading.plan import Step
    (tmp_path / "work").mkdir(parents=True)
    verified.copy_verified(verified.package_root(), verified.manifest(), tmp_path / "course")
    steps = [Step(source, "learner", n) for n, source in enumerate(sources, 1)]
    return kernel.run(steps, tmp_path / "work", tmp_path / "course", Limits(**limits))


def test_kernel_caps_file_size_and_output_and_runs_from_its_own_folder(tmp_path):
    run = _kernel(tmp_path, [
        "import lesson_lib, os\nassert lesson_lib.__file__.startswith(os.path.dirname(os.getcwd()))",
        "open('big.bin', 'wb').write(b'0' * 2_000_000)",
        "for i in range(300):\n    print('x' * 10_000)",
        "print('never')"], cell_s=30, output_mb=1, file_mb=1)
    assert 0 not in run.errors, run.errors                    # it imported its own copy of lesson_lib
    assert run.errors[1].startswith("OSError: [Errno 27] File too large"), run.errors
    assert run.completed == 2 and run.stop == ("ERROR", "code cell 3 printed more than 1 MB of output")


def test_what_the_kernel_writes_to_its_own_stdout_and_stderr_counts_as_output_and_stays_off_the_terminal(
        tmp_path, capfd):
    forged = "carol: 9 of 9 checks PASS"
    run = _kernel(tmp_path, [
        f"import os\nos.write(2, b'{forged}\\n'); os.write(1, b'{forged}\\n')",
        "import subprocess, sys\nsubprocess.run([sys.executable, '-c', \"import os; os.write(2, b'y' * (3 << 20))\"])",
        "print('never')"], cell_s=30, output_mb=2)
    # (ipykernel sends what reaches its own fd 1 and 2 as the cell's output, except under pytest: the kernel's
    # environment is the grader's, without pytest's variables, so here as in a teacher's run; what it does not
    # catch is counted in terminal.log)
    assert run.completed == 1 and run.stop[0] == "ERROR", run
    assert run.stop[1].startswith("code cell 2 printed more than 2 MB of output"), run.stop
    seen = capfd.readouterr()
    assert forged not in seen.out + seen.err and "yyyy" not in seen.err         # nothing reached the terminal
    assert forged in (tmp_path / kernel_module().TERMINAL).read_text(errors="replace")
    control = _kernel(tmp_path / "control", ["import os\nos.write(2, b'z' * 1000)", "print('reached')"], cell_s=30,
                      output_mb=2)
    assert control.stop is None and control.completed == 2, control      # a little is fine


def kernel_module():
    from lesson_tools.grading import kernel
    return kernel


def test_kernel_stops_at_the_whole_notebook_limit(tmp_path):
    run = _kernel(tmp_path, ["import time\ntime.sleep(2)", "time.sleep(2)", "time.sleep(10)", "print(1)"],
                  cell_s=30, notebook_s=5)
    assert run.completed == 2 and run.stop[0] == "TIMEOUT", run
    assert run.stop[1] == "code cell 3 was running when the notebook reached 5 s (whole-notebook limit)"


# ---------------------------------------------------------------------- one bad file never stops a class
def _write(path, text):
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def test_legitimate_older_and_bom_files_are_graded_and_hostile_ones_get_their_own_row(course, tmp_path):
    teacher = nbformat.writes(read(SOLUTIONS / "04_feedback.ipynb"))
    v3 = nbformat.writes(nbformat.convert(read(SOLUTIONS / "04_feedback.ipynb"), 3))
    stamped_list = json.loads(teacher)
    stamped_list["metadata"]["lesson"] = ["04_feedback"]
    stamped_dict = json.loads(teacher)
    stamped_dict["metadata"]["lesson"] = {"notebook": {"id": "04_feedback"}}
    files = {
        "bom.ipynb": b"\xef\xbb\xbf" + teacher.encode("utf-8"),
        "old_v3.ipynb": v3,
        "stamp_list.ipynb": json.dumps(stamped_list),
        "stamp_dict.ipynb": json.dumps(stamped_dict),
        "nested.ipynb": "[" * 100_000 + "]" * 100_000,
        "meta_list.ipynb": json.dumps({**json.loads(teacher), "metadata": []}),
    }
    subs = {name: identify(one(_write(tmp_path / name, text)), course) for name, text in files.items()}
    for name in ("bom.ipynb", "old_v3.ipynb", "stamp_list.ipynb", "stamp_dict.ipynb"):
        assert subs[name].problem is None and subs[name].notebook == "04_feedback", (name, subs[name])
        nbformat.reads(subs[name].text, as_version=4)          # the text the grader runs is a v4 notebook
    assert subs["old_v3.ipynb"].text.count('"nbformat": 4') == 1
    assert "nested too deeply" in subs["nested.ipynb"].problem
    assert subs["meta_list.ipynb"].problem and "not a notebook" in subs["meta_list.ipynb"].problem


def test_a_stamp_that_claims_another_notebook_is_noted_and_the_check_cells_decide(course, tmp_path):
    nb = read(SOLUTIONS / "02_model.ipynb")
    nb.metadata["lesson"] = {"notebook": "05_retrieve_and_space"}
    sub = identify(one(_write(tmp_path / "s.ipynb", nbformat.writes(nb))), course)
    assert sub.notebook == "02_model" and sub.problem is None
    assert "its stamp says 05_retrieve_and_space" in sub.note


def test_names_are_normalised_and_look_alikes_flagged(tmp_path):
    from lesson_tools.grading.flags import mixed_scripts
    assert person(at("ａｌｉｃｅ/02_model.ipynb"), "02_model").name == "alice"               # full-width, NFKC
    assert mixed_scripts("\u0430lice") == ["CYRILLIC", "LATIN"] and mixed_scripts("alice") is None
    assert mixed_scripts("Zoë-Ann O'Brien") is None and mixed_scripts("Дмитрий") is None


def test_a_gradebook_cell_that_would_be_a_formula_is_written_as_text(tmp_path):
    rows = [gradebook.row(who("=1+2"), "04_feedback", "=HYPERLINK(\"x\")_04.ipynb", "lesson_passes", "PASS",
                          "-1 point"),
            gradebook.row(who(" =1+2", "@x"), "04_feedback", " +x.ipynb", "lesson_passes", "PASS", "PASS"),
            gradebook.row(who("bob"), "04_feedback", "bob.ipynb", "lesson_passes", "PASS", "PASS: lesson_passes")]
    gradebook.write(rows, tmp_path / "g.csv")
    import csv
    with open(tmp_path / "g.csv", newline="") as f:
        cells = [c for row in list(csv.reader(f))[1:] for c in row]
    assert {"'=1+2", "'=HYPERLINK(\"x\")_04.ipynb", "'-1 point", "' =1+2", "'@x", "' +x.ipynb", "bob"} <= set(cells)


# ---------------------------------------------------------------------- time no student can hold
def test_waiting_for_a_cpu_is_told_apart_from_sleeping():
    """Linux's schedstat, read for a process's threads: one that computes beside more hogs than cores waits for a
    CPU much of its time; one that sleeps does not while it sleeps, however busy the machine."""
    from lesson_tools.grading.kernel import STARVED, waited_seconds
    hog = [sys.executable, "-c", "import time\nend = time.time() + 2\nwhile time.time() < end: pass"]
    others = [subprocess.Popen(hog) for _ in range(2 * (os.cpu_count() or 1))]
    try:
        measured = subprocess.Popen(hog)
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; print('asleep', flush=True); time.sleep(2)"],
                                   stdout=subprocess.PIPE, text=True)
        sleeper.stdout.readline()                     # its start-up (which computes, and waits like any) is over
        asleep = waited_seconds([sleeper.pid])
        time.sleep(1.5)
        hog_waited, slept_waited = waited_seconds([measured.pid]), waited_seconds([sleeper.pid]) - asleep
        measured.wait(), sleeper.wait()
    finally:
        for p in others:
            p.kill()
            p.wait()
    assert hog_waited > STARVED * 1.5, hog_waited
    assert slept_waited < 0.1, slept_waited


def test_a_notebook_that_sleeps_meets_its_whole_limit_and_was_not_starved(tmp_path):
    """Four cells of 3 s of sleep with a notebook limit of 5 s end in a TIMEOUT in the second cell, and the run says
    it was not starved (its time went to sleep, not to waiting for a CPU)."""
    run = _kernel(tmp_path, ["import time\ntime.sleep(3)"] * 4, cell_s=4, notebook_s=5)
    assert run.stop == ("TIMEOUT", "code cell 2 was running when the notebook reached 5 s (whole-notebook limit)"), run
    assert run.wall >= 5 and not run.starved(), (run.wall, run.waited)


def test_only_a_starved_submission_is_graded_a_second_time(tmp_path, monkeypatch):
    """The grader's rule, with what a worker reports faked: a TIMEOUT from a run that waited for a CPU is graded
    again alone; one from a run that slept is final."""
    from lesson_tools.grading import grader
    from lesson_tools.grading.job import Graded
    nb = nbformat.read(str(SOLUTIONS / "04_feedback.ipynb"), as_version=4)
    (tmp_path / "ann").mkdir()
    nbformat.write(nb, str(tmp_path / "ann" / "04_feedback.ipynb"))
    for starved, tries in ((True, 2), (False, 1)):
        calls = []

        def fake(tasks, workers, starved=starved, calls=calls):
            for task in tasks:
                calls.append(task["student"])
                yield task, Graded([gradebook.row(task["who"], task["notebook"], task["submission"], c.name,
                                                  gradebook.TIMEOUT, "over") for c in task["course_nb"].checks],
                                   starved)
        monkeypatch.setattr(grader, "run_local", fake)
        rows = grader.grade([tmp_path], Limits(salt=1), workers=1)
        assert calls == ["ann"] * tries and {r["verdict"] for r in rows} == {"TIMEOUT"}
        assert all(("graded a second time alone" in r["detail"]) == starved for r in rows)


# ---------------------------------------------------------------------- nothing forged
FORGED = "ann\nrows: 99 PASS\r\x1b[2K\u202eevil"


def test_every_name_path_and_message_shows_its_control_characters_escaped(tmp_path):
    shown = gradebook.shown(FORGED)
    assert shown == "ann\\nrows: 99 PASS\\r\\x1b[2K\\u202eevil"
    assert "\n" not in shown and "\x1b" not in shown and "\u202e" not in shown
    assert gradebook.shown("a\\nb") != gradebook.shown("a\nb")               # two texts stay two
    assert gradebook.shown("def f():\n\treturn 1\u202e", keep="\n\t") == "def f():\n\treturn 1\\u202e"
    row = gradebook.row({"student": FORGED, "student_id": FORGED, "platform": "folder", "late": ""}, "04_feedback",
                        f"class/{FORGED}.ipynb", "lesson_passes", gradebook.PASS, f"note: {FORGED}")
    rows = gradebook.score([row], {"lesson_passes": 1})
    for line in gradebook.summary(rows):
        assert "\n" not in line and "\r" not in line and "\x1b" not in line and "\u202e" not in line
    for suffix in (".csv", ".json"):
        gradebook.write(rows, tmp_path / f"g{suffix}")
        text = (tmp_path / f"g{suffix}").read_text(encoding="utf-8")
        assert "\x1b" not in text and "\u202e" not in text and "\r" not in text
        assert gradebook.read(tmp_path / f"g{suffix}")[0]["detail"] == "note: " + gradebook.shown(FORGED)
    assert len(table_rows(tmp_path / "g.csv")) == 1 and gradebook.read(tmp_path / "g.json")[0]["student"] == \
        gradebook.shown(FORGED)
    from lesson_tools.grading import export
    export.scores(rows, tmp_path / "scores.csv")
    assert "\x1b" not in (tmp_path / "scores.csv").read_text() and len(table_rows(tmp_path / "scores.csv")) == 1


def table_rows(path):
    import csv
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))
