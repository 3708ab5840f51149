"""The course machinery: learner notebooks in sync, stored check outputs, the exercise rules, the stamp, the
catalog and predict-first reveals (the grader: tests/test_grading*.py).

The teachers' notebooks are executed by nbval (testpaths include notebooks/solutions/ and bench_app), the learner
versions by tests/test_grading_notebooks.py; these tests cover what nbval cannot see: that the learner versions are
what `course build` makes, that the teachers' sources store PASS lines and the learner versions NOT ATTEMPTED, and
that `course check` catches each broken exercise rule.  Every check's own outcomes: tests/test_checks.py; the facts
and their markers: tests/test_facts.py.
"""
import copy
import dataclasses
import json
import re
import subprocess
import sys

import nbformat
import pytest
from giveaways import gives_away, outcome

from lesson_course import checks
from lesson_course.reveal import PREDICTIONS
from lesson_tools import build, catalog
from lesson_tools.build import (
    CHECK_MARKER,
    NOTEBOOKS,
    ROOT,
    SOLUTIONS,
    STUB,
    CourseError,
    check,
    course_problems,
    is_check_cell,
    learner_version,
    strip_solutions,
)

SOURCES = sorted(SOLUTIONS.glob("*.ipynb"))


def check_cells(path):
    return [c for c in nbformat.read(str(path), as_version=4).cells if is_check_cell(c)]


def stream(cell):
    return "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")


# ---------------------------------------------------------------------- (a) learner notebooks in sync
def test_learner_notebooks_match_their_teachers_sources():
    problems = check(log=lambda *_: None)
    assert not problems, "\n".join(problems) + "\nrun: lesson-tools build <names>"


def test_course_check_command_exits_zero():
    proc = subprocess.run([sys.executable, "-m", "lesson_tools", "check"], cwd=ROOT, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ---------------------------------------------------------------------- (b) stored check outputs
@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_check_cells_store_pass_for_teachers_and_nothing_for_learners(source):
    """The teachers' stored check lines are PASS; the learner versions store no outputs at all (they are run,
    and say NOT ATTEMPTED, in tests/test_edition.py)."""
    teacher, learner = check_cells(source), check_cells(NOTEBOOKS / source.name)
    assert len(teacher) == len(learner)
    for cell in teacher:
        lines = stream(cell).splitlines()
        assert len(lines) == 1 and lines[0].startswith("PASS: "), f"{source.name}: {cell.source!r} stored {lines}"
    for cell in nbformat.read(str(NOTEBOOKS / source.name), as_version=4).cells:
        assert cell.cell_type != "code" or (cell.outputs == [] and cell.execution_count is None), (
            f"{source.name}: the learner version stores outputs: {cell.source[:60]!r}")


@pytest.mark.parametrize("name", sorted({spec.notebook for spec in checks.REGISTRY.values()}))
def test_exercise_notebooks_have_a_stub_and_a_check(name):
    learner = nbformat.read(str(NOTEBOOKS / f"{name}.ipynb"), as_version=4)
    assert any("raise NotImplementedError" in c.source for c in learner.cells if c.cell_type == "code")
    assert check_cells(NOTEBOOKS / f"{name}.ipynb")


def test_every_built_notebook_is_stamped_with_its_id():
    for entry in catalog.CATALOG:
        paths = [build.source_path(entry)] + ([] if entry.app else [NOTEBOOKS / f"{entry.id}.ipynb"])
        for path in paths:
            assert nbformat.read(str(path), as_version=4).metadata["lesson"] == {"notebook": entry.id}, path


def test_check_reports_a_missing_stamp(tmp_path, monkeypatch):
    path = build.source_path(catalog.BY_ID["04_feedback"])
    nb = nbformat.read(str(path), as_version=4)
    del nb.metadata["lesson"]
    copy = tmp_path / "solutions" / path.name
    copy.parent.mkdir()
    nbformat.write(nb, str(copy))
    monkeypatch.setattr(build, "SOLUTIONS", copy.parent)
    assert any("04_feedback.ipynb, metadata['lesson'] is None" in p for p in check(log=lambda *_: None))


# ---------------------------------------------------------------------- the exercise rules, on small notebooks
def _spec(name, notebook="99_demo", function=None):
    return checks.Check(name, notebook, function or name, test=lambda fn: None)


REGISTRY = {"double_it": _spec("double_it"), "halve_it": _spec("halve_it", function="halve")}
EXERCISE = f"def double_it(x):\n    {STUB[0]}\n    {STUB[1]}\n"
CHECK = f"{CHECK_MARKER}\nchecks.double_it(double_it)"
EXERCISE_2 = f"def halve(x):\n    {STUB[0]}\n    {STUB[1]}\n"
CHECK_2 = f"{CHECK_MARKER}\nchecks.halve_it(halve)"


def _problems(*sources):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("Your turn") if s is None else
                                         nbformat.v4.new_code_cell(s) for s in sources])
    return course_problems({"99_demo": nb}, REGISTRY)


def test_a_well_formed_notebook_breaks_no_exercise_rule():
    assert _problems(None, EXERCISE, CHECK, None, EXERCISE_2, "x = 1", CHECK_2) == []


@pytest.mark.parametrize("sources, words", [
    ((EXERCISE, EXERCISE_2, CHECK_2), "the exercise in cell 0 has no marked check cell after it before the next"),
    ((EXERCISE, CHECK, EXERCISE_2), "the exercise in cell 2 has no marked check cell after it"),
    ((EXERCISE, "checks.double_it(double_it)", EXERCISE_2, CHECK_2), "calls checks.double_it(...) without the marker"),
    ((EXERCISE, f"x = 1\n{CHECK}", EXERCISE_2, CHECK_2), "calls checks.double_it(...) without the marker"),
    ((EXERCISE, CHECK, EXERCISE_2, CHECK_2, f"{CHECK_MARKER}\nchecks.tripple_it(f)"),
     "calls checks.tripple_it, which is not a registered check"),
    ((EXERCISE, CHECK), "checks.halve_it (registered for 99_demo) is used by no notebook's check cell"),
    ((EXERCISE, f"{CHECK_MARKER}\nchecks.double_it(halve)", EXERCISE_2, CHECK_2),
     "passes halve to checks.double_it, which checks the learner's function `double_it`"),
    ((EXERCISE, CHECK, EXERCISE_2, CHECK_2, f"{CHECK_MARKER}\nprint(1)"),
     "is marked '# NBVAL_CHECK_OUTPUT' but calls no check"),
])
def test_course_check_catches_each_broken_exercise_rule(sources, words):
    problems = _problems(*sources)
    assert any(words in p for p in problems), problems


def test_a_check_registered_for_another_notebook_is_reported():
    registry = {**REGISTRY, "double_it": _spec("double_it", notebook="02_model")}
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in (EXERCISE, CHECK, EXERCISE_2, CHECK_2)])
    assert any("registered for 02_model" in p for p in course_problems({"99_demo": nb}, registry))


def test_course_check_fails_on_a_real_notebook_whose_check_cell_lost_its_marker(tmp_path, monkeypatch):
    path = SOLUTIONS / "02_model.ipynb"
    nb = nbformat.read(str(path), as_version=4)
    cell = next(c for c in nb.cells if is_check_cell(c) and "kinetic_energy" in c.source)
    cell.source = cell.source.replace(CHECK_MARKER + "\n", "")
    (tmp_path / "solutions").mkdir()
    nbformat.write(nb, str(tmp_path / "solutions" / path.name))
    monkeypatch.setattr(build, "SOLUTIONS", tmp_path / "solutions")
    problems = check(log=lambda *_: None)
    assert any("02_model: cell" in p and "calls checks.kinetic_energy(...) without the marker" in p for p in problems)
    assert any("02_model: the exercise in cell" in p for p in problems)


# ---------------------------------------------------------------------- the catalog
def test_notebook_times_leave_time_to_read_and_to_do_the_exercises():
    """A floor, not a measurement: the markdown at 150 words a minute plus 5 minutes per exercise."""
    for entry in catalog.CATALOG:
        if entry.minutes is None:
            continue
        nb = nbformat.read(str(NOTEBOOKS / f"{entry.id}.ipynb"), as_version=4)
        words = sum(len(c.source.split()) for c in nb.cells if c.cell_type == "markdown")
        exercises = sum(STUB[1] in c.source for c in nb.cells if c.cell_type == "code")
        assert entry.minutes >= words / 150 + 5 * exercises, (entry.id, words, exercises)


def test_the_tables_and_time_lines_come_from_the_catalog(monkeypatch):
    start = nbformat.read(str(NOTEBOOKS / "00_start_here.ipynb"), as_version=4).cells[0].source
    assert catalog.sequence_table() in start
    assert catalog.course_table() in (ROOT / "README.md").read_text(encoding="utf-8")
    monkeypatch.setattr(catalog, "CATALOG", tuple(dataclasses.replace(e, minutes=e.minutes + 5)
                                                  if e.id == "02_model" else e for e in catalog.CATALOG))
    monkeypatch.setitem(catalog.BY_ID, "02_model", catalog.CATALOG[2])
    problems = check(log=lambda *_: None)
    for where in ("solutions/00_start_here.ipynb", "notebooks/00_start_here.ipynb", "README.md",
                  "solutions/02_model.ipynb", "notebooks/02_model.ipynb"):
        assert any(where in p and "stale <!--catalog:" in p for p in problems), (where, problems)


def test_every_notebook_in_the_folders_is_in_the_catalog(tmp_path, monkeypatch):
    (tmp_path / "solutions").mkdir()
    for path in SOLUTIONS.glob("*.ipynb"):
        (tmp_path / "solutions" / path.name).write_bytes(path.read_bytes())
    (tmp_path / "solutions" / "07_new.ipynb").write_text("{}")
    monkeypatch.setattr(build, "SOLUTIONS", tmp_path / "solutions")
    assert any("07_new.ipynb is not in lesson_tools/catalog.py" in p for p in check(log=lambda *_: None))


# ---------------------------------------------------------------------- predict first
PREDICT_CALL = re.compile(r"\bpredict\(\"(\w+)\"\)")


def _text(cell):
    outputs = [o.get("text", "") + "".join(str(v) for v in o.get("data", {}).values()) for o in cell.get("outputs", [])]
    return cell.source + "".join(outputs)


def _prediction_cells():
    """{prediction name: (notebook path, index of the cell that asks it, its variable)} over the teachers' sources."""
    found = {}
    for path in SOURCES:
        for i, cell in enumerate(nbformat.read(str(path), as_version=4).cells):
            for m in re.finditer(r"(\w+) = predict\(\"(\w+)\"\)", cell.source):
                assert m[2] not in found, f"{m[2]} is asked twice: {found.get(m[2])} and {path.name}"
                found[m[2]] = (path, i, m[1])
    return found


def test_every_prediction_is_asked_once_and_revealed_after_it_hiding_the_answer_in_stored_outputs():
    asked = _prediction_cells()
    assert set(asked) == set(PREDICTIONS), set(asked) ^ set(PREDICTIONS)
    for name, (path, i, variable) in asked.items():
        cells = nbformat.read(str(path), as_version=4).cells
        reveals = [k for k, c in enumerate(cells) if f"reveal({variable})" in c.source]
        assert reveals and all(k > i for k in reveals), (name, path.name, i, reveals)
        shown = _text(cells[reveals[0]])
        assert "still hidden" in shown and "lesson-reveal" in shown and "The answer:" not in shown, (name, shown)


def _read_before(name, teacher=None):
    """{where: text} for everything a learner has read when they choose prediction `name`: the READMEs, the Bench
    app; every earlier notebook whole (teachers' and learners' versions, stored outputs) with the reveals of its
    predictions (the answer and every option's reason) and its notes (the after-lock texts); every card that can be
    asked by then; and the prediction's own notebook as a learner sees it before choosing: every markdown and code
    cell (markdown renders at once, below the prediction too), the outputs of the cells run before its lock, and
    the reveals and notes of the predictions asked before it there.  teacher: that notebook's teachers' source
    (by default the one on disk; its learner version is then what the build makes of it)."""
    import json

    from lesson_course.reveal import NOTES
    from lesson_tools import release
    order = [entry.id for entry in catalog.CATALOG]
    cards = json.loads((ROOT / "lesson_course" / "cards.json").read_text(encoding="utf-8"))
    asked = _prediction_cells()
    path, i, _ = asked[name]

    def revealed(names):
        return {f"the reveal of {n}": PREDICTIONS[n].answer + " " + " ".join(o.why for o in PREDICTIONS[n].options)
                for n in names}

    def notes(stem, before=None):
        return {f"note {key}": note["text"] for key, note in NOTES.items() if key.startswith(stem[:2] + ":")
                and (before is None or name not in note["after"])}

    def whole(stem):
        return {str(p.relative_to(ROOT)): "".join(_text(c) for c in nbformat.read(str(p), as_version=4).cells)
                for p in (SOLUTIONS / f"{stem}.ipynb", NOTEBOOKS / f"{stem}.ipynb") if p.exists()}

    texts = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8"), "the learners' README": release.readme(),
             **whole(next(e.id for e in catalog.CATALOG if e.app))}
    before = order[:order.index(path.stem)]
    for stem in before:
        texts.update(whole(stem))
        texts.update(notes(stem))
        texts.update(revealed([n for n, (p, _, _) in asked.items() if p.stem == stem]))
    texts.update({f"card {cid}": card["question"] + card["answer"] for cid, card in cards.items()
                  if any(stem.startswith(card["after"]) for stem in before)})
    if teacher is None:
        teacher, learner = (nbformat.read(str(p), as_version=4) for p in (path, NOTEBOOKS / path.name))
    else:
        learner = learner_version(teacher, path.name)
    texts[f"notebooks/{path.name} (every cell)"] = "\n".join(c.source for c in learner.cells)
    lock_cell = next(k for k in range(i + 1, len(teacher.cells)) if teacher.cells[k].cell_type == "code")
    texts[f"{path.name}'s outputs before its lock"] = "".join(_text(c) for c in teacher.cells[:lock_cell]
                                                                if c.cell_type == "code")
    texts.update(notes(path.stem, before=name))
    texts.update(revealed([n for n, (p, k, _) in asked.items() if p == path and k < i]))
    return texts


@pytest.mark.parametrize("name", sorted(PREDICTIONS))
def test_nothing_a_learner_reads_before_choosing_gives_a_prediction_away(name):
    """Nothing a learner can read before choosing states the prediction's outcome (its give-away patterns, or a
    clause of its answer or of its right option's reason): see _read_before for what that is."""
    found = gives_away(name, _read_before(name))
    assert not found, "\n".join(found)


def test_the_giveaway_search_finds_an_answer_written_below_its_prediction():
    """A clause of an answer put into a markdown cell below the prediction (where it renders before the choice)
    is found, and the same text tagged after-lock (a note, shown after the lock) is not."""
    name = "half_the_circle"
    path, i, _ = _prediction_cells()[name]
    clause = outcome(name)[1][0]
    for tagged, found in ((False, True), (True, False)):
        teacher = nbformat.read(str(path), as_version=4)
        lock_cell = next(k for k in range(i + 1, len(teacher.cells)) if teacher.cells[k].cell_type == "code")
        cell = nbformat.v4.new_markdown_cell(f"As you will see: {clause}.")
        if tagged:
            cell.metadata["tags"] = ["after-lock"]
        teacher.cells.insert(lock_cell + 1, cell)
        assert bool(gives_away(name, _read_before(name, teacher))) == found, (tagged, clause)


# ---------------------------------------------------------------------- the solution-block stripper
def test_strip_solutions_keeps_indentation_and_given_lines():
    src = ("def f(x):\n    y = 2 * x\n    ### BEGIN SOLUTION\n    z = y + 1\n    ### END SOLUTION\n    return z")
    out, n = strip_solutions(src)
    assert n == 1
    assert out == ("def f(x):\n    y = 2 * x\n    # YOUR CODE HERE\n"
                   "    raise NotImplementedError(\"Your turn: see the instructions above\")\n    return z")


@pytest.mark.parametrize("src, match", [
    ("### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n", "top level"),
    ("def f():\n    ### BEGIN SOLUTION\n    return 1\n", "without a matching"),
    ("def f():\n    return 1\n    ### END SOLUTION\n", "without a matching"),
])
def test_strip_solutions_refuses_bad_markers(src, match):
    with pytest.raises(CourseError, match=match):
        strip_solutions(src)


def test_after_lock_text_becomes_a_note_that_waits_for_the_predictions_above_it():
    """A markdown cell tagged after-lock, below a prediction's evidence cell, is in the learner version a code cell
    calling note(...) (same id), and its text, comments out, is in notes_text with the predictions above it; one
    above the evidence cell, or with no prediction above it, stops the build with the cell named."""
    from lesson_tools.notebook_format import after_lock_notes, notes_text
    cells = [nbformat.v4.new_code_cell('a = predict("half_the_circle")'), nbformat.v4.new_code_cell("lock(a)"),
             nbformat.v4.new_markdown_cell("It <!--fact:X-->2<!--/fact--> shows."),
             nbformat.v4.new_code_cell('b = predict("letters_twice_as_fast")'), nbformat.v4.new_code_cell("lock(b)"),
             nbformat.v4.new_markdown_cell("Both.")]
    for k in (2, 5):
        cells[k].metadata["tags"] = ["after-lock"]
    nb = nbformat.v4.new_notebook(cells=cells, metadata={"lesson": {"notebook": "06_x"}})
    learner = learner_version(nb)
    assert [c.cell_type for c in learner.cells] == ["code"] * 6 and learner.cells[2].id == cells[2].id
    assert 'note("06:1")' in learner.cells[2].source.replace("'", '"') and learner.cells[2].outputs == []
    assert json.loads(notes_text({"06_x": nb})) == {"06:1": {"after": ["half_the_circle"], "text": "It 2 shows."},
                                                   "06:2": {"after": ["half_the_circle", "letters_twice_as_fast"],
                                                            "text": "Both."}}
    early = copy.deepcopy(nb)
    early.cells.insert(1, copy.deepcopy(cells[2]))
    with pytest.raises(CourseError, match="cell 1 .*before the first evidence cell of 'half_the_circle'"):
        after_lock_notes(early, "06_x.ipynb")
    with pytest.raises(CourseError, match="no prediction is asked above it"):
        learner_version(nbformat.v4.new_notebook(cells=[cells[2]]))


def test_every_learner_notebook_shows_after_lock_text_only_as_a_note():
    """No text of a teachers' after-lock cell is in a learner notebook's markdown, and every note its code calls is
    in notes.json (the notes of the course's notebooks are what the build reads from them: `check`)."""
    from lesson_course.reveal import NOTES
    called = set()
    for path in SOURCES:
        learner = nbformat.read(str(NOTEBOOKS / path.name), as_version=4)
        markdown = "\n".join(c.source for c in learner.cells if c.cell_type == "markdown")
        for cell in nbformat.read(str(path), as_version=4).cells:
            if "after-lock" in cell.get("metadata", {}).get("tags", []):
                assert cell.source.strip().splitlines()[0] not in markdown, (path.name, cell.source[:80])
        called |= {m for c in learner.cells if c.cell_type == "code"
                   for m in re.findall(r"note\(['\"]([\d:]+)", c.source)}
    assert called == set(NOTES) and called, sorted(called ^ set(NOTES))


def test_every_figure_the_course_stores_is_an_image_with_a_text_alternative():
    """No stored output of a teachers' notebook is a bare PNG (JupyterLab, Notebook 7 and Voilà draw one with no alt
    text: axe-core's image-alt, critical); every image in an HTML output has alt text that is not empty."""
    figures = 0
    for path in SOURCES + [NOTEBOOKS / "bench_app.ipynb"]:
        for i, cell in enumerate(nbformat.read(str(path), as_version=4).cells):
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                assert "image/png" not in data and "image/jpeg" not in data, f"{path.name}, cell {i}: a bare image"
                for img in re.findall(r"<img\b[^>]*>", data.get("text/html", "")):
                    figures += 1
                    assert re.search(r'\balt="[^"]+"', img), f"{path.name}, cell {i}: {img[:80]}"
    assert figures >= 8, figures


def test_solution_markdown_is_dropped():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("for teachers"),
                                         nbformat.v4.new_markdown_cell("for all")])
    nb.cells[0].metadata["tags"] = ["solution"]
    assert [c.source for c in learner_version(nb).cells] == ["for all"]


# ---------------------------------------------------------------------- (c) the grader: tests/test_grading*.py


# ---------------------------------------------------------------------- kind errors when cells run out of order
def test_cells_run_out_of_order_say_which_cell_to_run():
    from nbclient import NotebookClient
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("from lesson_course.notebook import require, setup\nsetup()"),
        nbformat.v4.new_code_cell('require("black_box", cell="\'Train both models\' (section 2)")'),
        nbformat.v4.new_code_cell("print(never_defined)")])
    NotebookClient(nb, kernel_name="python3", allow_errors=True).execute()
    (missing,), (name_error,) = nb.cells[1].outputs, nb.cells[2].outputs
    assert missing.output_type == "error" and missing.ename == "MissingStep"
    assert "'Train both models' (section 2)" in missing.evalue and len(missing.traceback) == 1
    assert name_error.output_type == "error" and name_error.ename == "NameError"
    assert "Run All Above Selected Cell" in name_error.traceback[-1].replace("\u00a0", " ")


# ---------------------------------------------------------------------- references between and within notebooks
SECTION_OF = re.compile(r"section\s+([A-Z0-9]+)(?:\s+\(([^)]+)\))?\s+of\s*\[[^\]]*\]\((\d\d_\w+)\.ipynb\)")
SECTION_IN_REQUIRE = re.compile(r"require\([^)]*cell=\"[^\"]*\(section\s+(\w+)\)\"")


def _headings(notebook_id):
    """{section label: its title} of a notebook's headings '## D · Control (after notebook 07)'."""
    nb = nbformat.read(str(SOLUTIONS / f"{notebook_id}.ipynb"), as_version=4)
    return {m.group(1): m.group(2) for c in nb.cells if c.cell_type == "markdown"
            for m in re.finditer(r"^#+\s+(\w+)\s+·\s*(.*)$", c.source, re.M)}


def test_every_section_a_notebook_names_exists_where_it_points():
    """'section D (Control) of [05 · ...](05_...ipynb)' names a heading '## D · Control ...' of 05 (a reference to
    another notebook gives the section's title too, so a wrong letter is caught); a require(...) that sends the
    learner to '(section 2)' names a heading of its own notebook."""
    checked = 0
    for entry in catalog.CATALOG:
        if entry.app:
            continue
        nb = nbformat.read(str(build.source_path(entry)), as_version=4)
        for cell in nb.cells:
            found = [(m.group(1), m.group(2), m.group(3)) for m in SECTION_OF.finditer(cell.source)]
            assert all(title for _, title, _ in found), f"{entry.id}: give the section's title: {found}"
            found += [(m.group(1), None, entry.id) for m in SECTION_IN_REQUIRE.finditer(cell.source)]
            for section, title, target in found:
                headings = _headings(target)
                assert section in headings, (f"{entry.id} sends the learner to section {section} of {target}, "
                                             f"which has sections {sorted(headings)}")
                assert title is None or headings[section].startswith(title), (
                    f"{entry.id} calls section {section} of {target} '{title}'; it is '{headings[section]}'")
                checked += 1
    assert checked >= 10, f"only {checked} section references found: the patterns no longer match the text"


def _bound(source):
    """The names a cell's code binds at its top level (assignments, imports, definitions, loop targets)."""
    import ast
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def test_every_require_sends_the_learner_to_a_cell_that_makes_what_it_needs():
    """require(names) without cell= says the names come from the first code cell: they must; a cell='...' that
    quotes a cell ('The recording', its first line's comment, or 'model = DeLaN(seed=0)', its code) names a code cell
    above that shows those words and makes one of the names."""
    import ast
    checked = 0
    for path in SOURCES:
        code = [c.source for c in nbformat.read(str(path), as_version=4).cells if c.cell_type == "code"]
        for k, source in enumerate(code):
            for node in ast.walk(ast.parse(source)):
                if not (isinstance(node, ast.Call) and getattr(node.func, "id", "") == "require"):
                    continue
                names = [a.value for a in node.args]
                where = {kw.arg: kw.value.value for kw in node.keywords}.get("cell")
                if where is None:
                    missing = set(names) - _bound(code[0])
                    assert not missing, f"{path.name}: require{tuple(names)} sends the learner to the first code " \
                                        f"cell, which does not make {sorted(missing)}"
                    checked += 1
                elif m := re.match(r"'([^']+)'", where):
                    title = m.group(1).split("...")[0]        # "bench = Bench(...)": its start
                    makers = [c for c in code[:k] if title in c]
                    assert any(set(names) & _bound(c) for c in makers), (
                        f"{path.name}: require{tuple(names)} sends the learner to the cell '{title}', but no code "
                        f"cell above shows those words and makes them")
                    checked += 1
    assert checked >= 30, checked


def test_the_front_doors_agree_on_python_and_serve_the_bench_app_where_the_reviews_are():
    """Every text that tells a learner how to start (the READMEs, notebook 00) names Python as pyproject's
    requires-python does ('>=3.11': 'Python 3.11 or newer'), and opens the Bench app on the Lab server's own
    /voila/render (one origin, one review history), never as a standalone voila on another port."""
    import tomllib

    from lesson_tools import release
    floor = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"].removeprefix(">=")
    texts = {"README.md": (ROOT / "README.md").read_text(encoding="utf-8"), "the learners' README": release.readme(),
             "lesson_tools/README.md": (ROOT / "lesson_tools" / "README.md").read_text(encoding="utf-8"),
             "00": "".join(c.source for c in nbformat.read(str(SOLUTIONS / "00_start_here.ipynb"), as_version=4).cells)}
    for where, text in texts.items():
        named = re.findall(r"Python (3\.\d+)( or newer)?", text)
        assert all(m == (floor, " or newer") for m in named), f"{where} names Python as {named}, pyproject >={floor}"
        assert "voila notebooks/bench_app" not in text, f"{where} serves the Bench app on a port of its own"
    # `jupyter lab NOTEBOOK` serves NOTEBOOK's folder: the app's URL is its path from there (tests/test_browser.py
    # follows it on a server started so)
    command = re.search(r"```bash\n(.+?)\n", texts["README.md"]).group(1)
    opened = ROOT / next(a for a in command[command.index("jupyter lab"):].split() if a.endswith(".ipynb"))
    app = next(e.id for e in catalog.CATALOG if e.app)
    url = f"/voila/render/{(NOTEBOOKS / f'{app}.ipynb').relative_to(opened.parent).as_posix()}"
    for where in ("README.md", "the learners' README", "lesson_tools/README.md"):
        assert url in texts[where] and "/voila/render/notebooks/" not in texts[where], (where, url)


# ---------------------------------------------------------------------- the design card's top level
def test_layout_names_a_stray_top_level_file_and_the_repository_has_none(tmp_path):
    assert build.layout_problems() == []
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for name in ("README.md", "hat the check prints#", "lesson_lib/x.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("x\n")
    subprocess.run(["git", "-C", str(tmp_path), "add", "."], check=True)
    problems = build.layout_problems(tmp_path)
    assert len(problems) == 1 and "'hat the check prints#'" in problems[0] and "git rm --cached" in problems[0]
    assert build.layout_problems(tmp_path / "not-a-repo") == []
