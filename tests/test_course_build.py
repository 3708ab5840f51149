"""`lesson-tools build|check` in-process, on a copy of the course in a temporary folder: what
build writes (the teachers' source refreshed and stamped, the learner version stripped), in which order and
folder it executes them, what the command line prints and returns, and a real kernel run of `execute`."""
import json
import re
import shutil

import nbformat
import pytest

from lesson_tools import build, catalog
from lesson_tools.build import BEGIN, NOTEBOOKS, README, SOLUTIONS, STUB, CourseError


@pytest.fixture
def course(tmp_path, monkeypatch):
    """A copy of notebooks/, notebooks/solutions/ and README.md that build and check use instead of the repo's."""
    shutil.copytree(NOTEBOOKS, tmp_path / "notebooks", ignore=shutil.ignore_patterns("_grading_*", ".ipynb_*"))
    shutil.copy(README, tmp_path / "README.md")
    monkeypatch.setattr(build, "NOTEBOOKS", tmp_path / "notebooks")
    monkeypatch.setattr(build, "SOLUTIONS", tmp_path / "notebooks" / "solutions")
    monkeypatch.setattr(build, "README", tmp_path / "README.md")
    shutil.copy(build.STUBS, tmp_path / "stubs.json")
    monkeypatch.setattr(build, "STUBS", tmp_path / "stubs.json")
    return tmp_path


@pytest.fixture
def executed(monkeypatch):
    """Record build's calls of execute instead of starting kernels."""
    calls = []
    monkeypatch.setattr(build, "execute", lambda nb, cwd, name="notebook": calls.append((nb, cwd, name)) or nb)
    return calls


def cells(nb):
    return [(c.cell_type, c.source) for c in nb.cells]


def read(path):
    return nbformat.read(str(path), as_version=4)


def test_build_without_running_rewrites_the_learner_version_from_the_source(course, executed):
    learner_path = course / "notebooks" / "00_start_here.ipynb"
    before = read(learner_path)
    learner_path.unlink()
    log = []
    build.build(["00_start_here"], run=False, log=log.append)
    learner = read(learner_path)
    assert cells(learner) == cells(before)                            # the same learner notebook, generated again
    assert all(c.outputs == [] and c.execution_count is None for c in learner.cells if c.cell_type == "code")
    assert any(STUB[1] in c.source for c in learner.cells)
    assert learner.metadata["lesson"] == {"notebook": "00_start_here"}
    teacher = read(course / "notebooks" / "solutions" / "00_start_here.ipynb")
    original = read(SOLUTIONS / "00_start_here.ipynb")
    assert cells(teacher) == cells(original) and [c.get("outputs") for c in teacher.cells] == \
        [c.get("outputs") for c in original.cells]                    # stored outputs kept when not re-run
    assert executed == []
    (line,) = log
    assert re.fullmatch(r"built 00_start_here \((\d+\.\d) s\)", line) and float(line.split("(")[1][:-3]) < 60


def test_build_executes_the_source_in_its_folder_and_writes_the_learner_version_unrun(course, executed):
    build.build(["00_start_here"], log=lambda *_: None)
    ((teacher, cwd_t, name_t),) = executed
    assert cwd_t == course / "notebooks" / "solutions" and name_t == "solutions/00_start_here.ipynb"
    learner = read(course / "notebooks" / "00_start_here.ipynb")
    assert all(c.outputs == [] and c.execution_count is None for c in learner.cells if c.cell_type == "code")
    assert any(BEGIN in c.source for c in teacher.cells) and not any(BEGIN in c.source for c in learner.cells)
    assert any(STUB[1] in c.source for c in learner.cells if c.cell_type == "code")
    assert teacher.metadata["lesson"] == learner.metadata["lesson"] == {"notebook": "00_start_here"}


def test_an_app_is_its_own_source_and_gets_no_learner_version(course, executed):
    build.build(["bench_app"], log=lambda *_: None)
    ((nb, cwd, name),) = executed
    assert cwd == course / "notebooks" and name == "bench_app.ipynb"
    assert nb.metadata["lesson"]["notebook"] == "bench_app"
    assert not (course / "notebooks" / "solutions" / "bench_app.ipynb").exists()


def test_build_refuses_names_not_in_the_catalog(course, executed):
    with pytest.raises(CourseError, match=r"not in lesson_tools/catalog.py: \['99_nope'\]"):
        build.build(["00_start_here.ipynb", "99_nope"], run=False)
    assert executed == []


def test_a_markdown_marker_that_names_no_fact_stops_the_build(course, executed):
    path = course / "notebooks" / "solutions" / "04_feedback.ipynb"
    nb = read(path)
    nb.cells.append(nbformat.v4.new_markdown_cell("<!--fact:NO_SUCH_FACT-->1<!--/fact-->"))
    nbformat.write(nb, str(path))
    cell = len(nb.cells) - 1
    with pytest.raises(CourseError, match=rf"04_feedback.ipynb, cell {cell}: no fact named 'NO_SUCH_FACT'"):
        build.build(["04_feedback"], run=False)


def test_refresh_readme_writes_current_values_and_leaves_a_current_file_alone(tmp_path):
    path = tmp_path / "README.md"
    text = README.read_text(encoding="utf-8")
    stale = re.sub(r"(<!--fact:GRID_POINTS-->).*?(<!--/fact-->)", r"\g<1>7 × 7\2", text, count=1)
    assert stale != text
    path.write_text(stale, encoding="utf-8")
    build.refresh_readme(path)
    assert path.read_text(encoding="utf-8") == text
    path.chmod(0o444)                                   # a current README is not written again
    try:
        build.refresh_readme(path)
    finally:
        path.chmod(0o644)


# ---------------------------------------------------------------------- the command line, in-process
def test_check_command_says_ok_on_the_course(course, capsys):
    assert build.main_check([]) == 0
    assert capsys.readouterr().out.strip() == (f"ok: {len(catalog.CATALOG)} course notebooks and README.md are "
                                               f"consistent")


def test_check_command_lists_each_problem_and_fails(course, capsys):
    path = course / "notebooks" / "04_feedback.ipynb"
    nb = read(path)
    del nb.metadata["lesson"]
    nbformat.write(nb, str(path))
    assert build.main_check([]) == 1
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert captured.out == "" and len(lines) == 2
    assert lines[0].startswith("problem: notebooks/04_feedback.ipynb, metadata['lesson'] is None") or \
        lines[0].startswith(f"problem: {path}, metadata['lesson'] is None"), lines[0]
    assert lines[1] == "1 problem(s). Stale markers, stamps and learner versions: lesson-tools build 04_feedback"


def test_build_command_builds_the_named_notebooks_without_running_them(course, executed, capsys):
    for name in ("00_start_here", "04_feedback"):
        (course / "notebooks" / f"{name}.ipynb").unlink()
    assert build.main_build(["--no-execute", "00_start_here", "04_feedback"]) == 0
    assert executed == []
    assert (course / "notebooks" / "00_start_here.ipynb").exists()
    assert (course / "notebooks" / "04_feedback.ipynb").exists()
    out = capsys.readouterr().out
    assert "built 00_start_here" in out and "built 04_feedback" in out


def test_build_command_reports_an_unknown_notebook(course, executed, capsys):
    assert build.main_build(["--no-execute", "99_nope"]) == 1
    assert capsys.readouterr().err.strip() == "error: not in lesson_tools/catalog.py: ['99_nope']"


# ---------------------------------------------------------------------- a rebuild of an unchanged notebook
def widget_notebook(ids, seconds="2.4"):
    """A notebook holding a Box of two sliders under the model ids `ids` (box, slider, slider), as a kernel stores
    them, with a label that shows seconds measured on this machine."""
    box, a, b = ids
    state = {m: {"model_name": "IntSliderModel", "model_module": "@jupyter-widgets/controls",
                 "model_module_version": "2.0.0", "state": {"value": k}} for k, m in enumerate((a, b))}
    state[box] = {"model_name": "HBoxModel", "model_module": "@jupyter-widgets/controls",
                  "model_module_version": "2.0.0",
                  "state": {"children": [f"IPY_MODEL_{a}", f"IPY_MODEL_{b}"],
                            "label": f"trained in <span class='bench-seconds'>{seconds}</span> s"}}
    view = {"output_type": "display_data", "metadata": {},
            "data": {build.WIDGET_VIEW: {"model_id": box, "version_major": 2, "version_minor": 0}}}
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("box", outputs=[nbformat.from_dict(view)])])
    nb.metadata["widgets"] = {build.WIDGET_STATE: {"state": state, "version_major": 2, "version_minor": 0}}
    return nb


def test_widget_ids_are_the_same_for_the_same_widgets_whatever_the_kernel_drew():
    import uuid
    runs = [build.stable_widget_ids(widget_notebook([uuid.uuid4().hex for _ in range(3)]), "03_x") for _ in range(2)]
    assert [(r.metadata, r.cells[0].outputs) for r in runs[:1]] == [(r.metadata, r.cells[0].outputs) for r in runs[1:]]
    state = runs[0].metadata["widgets"][build.WIDGET_STATE]["state"]
    box = runs[0].cells[0].outputs[0]["data"][build.WIDGET_VIEW]["model_id"]
    assert set(state[box]["state"]["children"]) == {f"IPY_MODEL_{m}" for m in state if m != box}   # still linked
    other = build.stable_widget_ids(widget_notebook([uuid.uuid4().hex for _ in range(3)]), "07_y")
    assert set(other.metadata["widgets"][build.WIDGET_STATE]["state"]).isdisjoint(state)        # per notebook


def test_stored_browser_stores_carry_no_history_and_no_stored_notebook_a_lock():
    """The build kernel's history (a notebook opened at build time) is not stored, nor handed on: a reader's
    browser would merge it into their own when the stored widgets render.  (Notebooks built before
    forget_histories may still store an "open" event: harmless, and gone at their next build.)"""
    ids = ["a" * 32, "b" * 32, "c" * 32]
    nb = widget_notebook(ids)
    state = nb.metadata["widgets"][build.WIDGET_STATE]["state"]
    state["a" * 32]["state"].update(_anywidget_id="lesson_course.ui.browser_store.BrowserStore",
                                    log='[{"t": "2026-01-01T00:00:00+00:00", "predict": "x", "choice": "y"}]',
                                    pending='[{"t": "2026-01-01T00:00:00+00:00", "open": "01"}]')
    state["b" * 32]["state"]["log"] = "kept"                  # not a browser store
    build.forget_histories(nb)
    assert state["a" * 32]["state"]["log"] == "[]" and state["a" * 32]["state"]["pending"] == "[]"
    assert state["b" * 32]["state"]["log"] == "kept"
    for path in sorted(build.SOLUTIONS.glob("*.ipynb")):
        stored = nbformat.read(str(path), as_version=4).metadata.get("widgets", {}).get(build.WIDGET_STATE, {})
        logs = [m["state"]["log"] for m in stored.get("state", {}).values()
                if m["state"].get("_anywidget_id", "").endswith(".BrowserStore")]
        assert not any("predict" in e for log in logs for e in json.loads(log)), (path.name, logs)


def test_machine_dependent_figures_keep_their_earlier_bytes_and_nothing_else_does():
    def timing(text, marked=True):
        cell = nbformat.v4.new_code_cell(("# NBVAL_IGNORE_OUTPUT\n" if marked else "") + "print(t)")
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
        return cell
    old = nbformat.v4.new_notebook(cells=[timing("took 4.8 ms\n"), timing("error 0.25\n", False)])
    new = nbformat.v4.new_notebook(cells=[timing("took 3.2 ms\n"), timing("error 0.26\n", False)])
    build.keep_machine_dependent(old, new)
    assert [c.outputs[0]["text"] for c in new.cells] == ["took 4.8 ms\n", "error 0.26\n"]
    worded = nbformat.v4.new_notebook(cells=[timing("took 3.2 s\n"), timing("error 0.26\n", False)])
    assert build.keep_machine_dependent(old, worded).cells[0].outputs[0]["text"] == "took 3.2 s\n"   # not digits only
    ids = ["a" * 32, "b" * 32, "c" * 32]
    kept = build.keep_machine_dependent(widget_notebook(ids, "2.4"), widget_notebook(ids, "3.9"))
    assert "'bench-seconds'>2.4<" in kept.metadata["widgets"][build.WIDGET_STATE]["state"]["a" * 32]["state"]["label"]
    changed = widget_notebook(ids, "3.9")
    changed.metadata["widgets"][build.WIDGET_STATE]["state"]["b" * 32]["state"]["value"] = 7
    kept = build.keep_machine_dependent(widget_notebook(ids, "2.4"), changed)
    assert kept.metadata["widgets"][build.WIDGET_STATE]["state"]["b" * 32]["state"]["value"] == 7


# ---------------------------------------------------------------------- execute, in a real kernel
def test_execute_stores_outputs_and_widget_state_and_names_the_notebook_that_fails(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import os, ipywidgets\nprint(6 * 7, os.path.basename(os.getcwd()))"),
        nbformat.v4.new_code_cell("ipywidgets.IntSlider(value=3)")])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (tmp_path / "here").mkdir()
    build.execute(nb, tmp_path / "here", "demo.ipynb")
    assert nb.cells[0].outputs[0]["text"] == "42 here\n"
    assert "application/vnd.jupyter.widget-state+json" in nb.metadata["widgets"]
    chunked = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import sys, time\nprint('a', end=''); sys.stdout.flush(); time.sleep(0.3); print('b')")])
    chunked.metadata["kernelspec"] = nb.metadata["kernelspec"]
    build.execute(chunked, tmp_path, "chunked.ipynb")
    assert [o["text"] for o in chunked.cells[0].outputs] == ["ab\n"]     # one output, however the kernel sent it
    nb.cells.append(nbformat.v4.new_code_cell("1 / 0"))
    with pytest.raises(CourseError, match=r"(?s)^broken\.ipynb failed while executing:\n.*ZeroDivisionError"):
        build.execute(nb, tmp_path, "broken.ipynb")
