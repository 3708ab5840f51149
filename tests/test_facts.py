"""The lesson's numbers have one home (lesson_lib.facts): prose holds them between markers that `course build`
rewrites and `course check` verifies, and a fact written bare where it means the fact is reported."""
import re

import nbformat
import pytest

from lesson_lib import facts
from lesson_tools import build, catalog, markers
from lesson_tools.build import NOTEBOOKS, ROOT, check

QUIET = {"log": lambda *_: None}


def _files_with(marker):
    """Course files whose text holds `marker` (read as plain text, independently of the course code)."""
    paths = [build.source_path(e) for e in catalog.CATALOG]
    paths += [NOTEBOOKS / f"{e.id}.ipynb" for e in catalog.CATALOG if not e.app] + [ROOT / "README.md"]
    return sorted({str(p.relative_to(ROOT)) for p in paths if marker in p.read_text(encoding="utf-8")})


def test_every_fact_has_a_format_and_a_value():
    for name in facts.FORMATS:
        assert facts.text(name) == facts.FORMATS[name](getattr(facts, name))
    with pytest.raises(KeyError, match="no fact named 'PASS_THRESHOLD'"):
        facts.text("PASS_THRESHOLD")


def test_the_course_holds_current_facts():
    assert not [p for p in check(**QUIET) if "<!--fact:" in p]


def test_changing_a_constant_makes_course_check_list_every_stale_marker(monkeypatch):
    marker = "<!--fact:PASS_MAX_ERROR-->"
    expected = _files_with(marker)
    assert {"README.md", "notebooks/bench_app.ipynb", "notebooks/solutions/04_feedback.ipynb"} <= set(expected)
    monkeypatch.setattr(facts, "PASS_MAX_ERROR", 0.15)
    stale = [p for p in check(**QUIET) if f"stale {marker}" in p]
    reported = {p.split(",")[0].split(":")[0] for p in stale}
    assert reported == set(expected), (reported, expected)
    assert all("the current value is '0.15'" in p for p in stale)


def test_build_writes_the_new_value_into_the_markers(monkeypatch):
    nb = nbformat.read(str(build.source_path(catalog.BY_ID["04_feedback"])), as_version=4)
    monkeypatch.setattr(facts, "GRID_POINTS", 51)
    text = "\n".join(c.source for c in build.refresh(nb, "04_feedback").cells if c.cell_type == "markdown")
    assert "<!--fact:GRID_POINTS-->51 × 51<!--/fact-->" in text and not markers.stale(text, "04_feedback")


# Prose that means each fact; written bare it must be reported, between markers it must not.
MEANINGS = {
    "PASS_MAX_ERROR": "the max error drops below {v} on the grid",
    "GRID_POINTS": "over a {v} grid of the torus",
    "STEPS_PER_PRESS": "press Train ×{v} twice",
    "N_SAMPLES": "learn from the same {v} random torque samples",
    "QD_MAX": "speeds up to {v} rad/s, and",
    "QDD_MAX": "accelerations up to {v} rad/s², and",
    "HIDDEN": "a network of {v} units",
    "BATCH_SIZE": "minibatches of {v} samples",
    "LR": "at a learning rate of {v}.",
    "EPS": "the small ε = {v} keeps",
    "TRIPLE_MAX_ERROR": "max |M̂ − M| < {v} kg m²",
}


@pytest.mark.parametrize("name", sorted(markers.BARE))
def test_a_fact_written_bare_is_reported_and_between_markers_is_not(name):
    assert set(MEANINGS) == set(markers.BARE)
    bare = MEANINGS[name].format(v=facts.text(name))
    marked = MEANINGS[name].format(v=f"<!--fact:{name}-->{facts.text(name)}<!--/fact-->")
    assert [n for n, _ in markers.bare(bare)] == [name], bare
    assert markers.bare(marked) == []
    assert not markers.stale(marked, "README")


def test_the_lint_reads_x_for_times_and_leaves_other_numbers_alone():
    n = facts.GRID_POINTS
    assert [f for f, _ in markers.bare(f"a {n}x{n} grid")] == ["GRID_POINTS"]
    assert markers.bare(f"below {facts.PASS_MAX_ERROR}5 and {facts.STEPS_PER_PRESS}0 steps") == []


def test_the_lint_follows_a_changed_constant(monkeypatch):
    monkeypatch.setattr(facts, "PASS_MAX_ERROR", 0.15)
    assert [f for f, _ in markers.bare("drops below 0.15")] == ["PASS_MAX_ERROR"]


def test_check_reports_a_bare_fact_in_a_notebook(tmp_path, monkeypatch):
    path = build.source_path(catalog.BY_ID["03_guided_practice"])
    nb = nbformat.read(str(path), as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "markdown" and "<!--fact:PASS_MAX_ERROR-->" in c.source)
    cell.source = re.sub(r"<!--fact:PASS_MAX_ERROR-->(.*?)<!--/fact-->", r"\1", cell.source)
    (tmp_path / "solutions").mkdir()
    nbformat.write(nb, str(tmp_path / "solutions" / path.name))
    monkeypatch.setattr(build, "SOLUTIONS", tmp_path / "solutions")
    assert any("03_guided_practice.ipynb, cell" in p and "PASS_MAX_ERROR written bare" in p
               for p in check(**QUIET))


def test_unknown_markers_are_reported():
    assert markers.stale("<!--fact:PASS_MAX-->0.2<!--/fact-->", "README")[0].startswith(
        "unknown marker <!--fact:PASS_MAX-->")


def test_feedback_hints_read_the_facts_when_called(monkeypatch, capsys):
    from lesson_course.feedback import report
    from lesson_lib import DeLaN, double_pendulum
    monkeypatch.setattr(facts, "STEPS_PER_PRESS", 1234)
    monkeypatch.setattr(facts, "PASS_MAX_ERROR", 0.15)
    report(DeLaN(seed=0), double_pendulum())
    out = capsys.readouterr().out
    assert "(needs < 0.15)" in out and "Train\u00a0x1234" in out and "steps=1234" in out, out


def test_a_marker_that_starts_a_line_is_reported():
    fact = f"<!--fact:BATCH_SIZE-->{facts.text('BATCH_SIZE')}<!--/fact-->"
    assert markers.misplaced(f"minibatches of\n{fact} samples")
    assert not markers.misplaced(f"minibatches\nof {fact} samples")
    assert not markers.misplaced("<!--catalog:course-->\n\n| table |\n\n<!--/catalog-->")     # a block marker


def test_a_number_marked_not_the_fact_is_left_alone_and_only_that_one():
    line = f"batch {facts.BATCH_SIZE}"
    assert [name for name, _ in markers.bare(f"a run at {line}.")] == ["BATCH_SIZE"]
    assert markers.bare(f"a run at <!--not-fact-->{line}<!--/not-fact-->.") == []
    both = f"<!--not-fact-->{line}<!--/not-fact--> and then {line}"
    assert [name for name, _ in markers.bare(both)] == ["BATCH_SIZE"]


def test_a_default_changed_in_the_code_instead_of_the_facts_is_a_course_problem():
    assert build.default_problems() == []
    def fake(lr=facts.LR * 2, hidden=facts.HIDDEN):
        return lr, hidden
    import sys
    import types
    module = types.ModuleType("fake_defaults")
    module.fake = fake
    sys.modules["fake_defaults"] = module
    try:
        problems = build.default_problems({"fake_defaults:fake": {"lr": "LR", "hidden": "HIDDEN", "eps": "EPS"}})
    finally:
        del sys.modules["fake_defaults"]
    assert len(problems) == 2 and "default lr=" in problems[0] and "lesson_lib.facts.LR" in problems[0]
    assert "has no parameter eps" in problems[1]
