"""The class report (lesson_tools.grading.report): what the class got wrong, how points spread, who to follow up,
from the gradebook rows of a small class (tests/class_report.py; the report of a class graded end to end is
tests/test_grading_lms.py's, and a page in Chromium tests/test_report_browser.py's)."""
import html
import json
from collections import Counter

import pytest
from class_report import ANSWERS, LATE, M00, M04, PEOPLE, SCRIPT, graded_class

from lesson_course.checks import REGISTRY
from lesson_course.checks.framework import GENERAL_HINTS, _fail, evaluate
from lesson_tools.grading import course_notebooks, gradebook, report
from lesson_tools.grading.command import check_folder, fresh_folder
from lesson_tools.grading.intake import UsageError


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    course = course_notebooks.load()
    base = tmp_path_factory.mktemp("report")
    subs, rows = graded_class(base / "class", course)
    written = report.write(fresh_folder(base / "report", "--report", report.MARK), subs, rows, course)
    return subs, rows, course, base / "report", written


def test_every_hint_of_every_check_is_read_back_as_itself():
    for name, spec in REGISTRY.items():
        for key in [*spec.hints, *GENERAL_HINTS]:
            line = _fail(spec, "it returned 1.0, expected 2.0", key).line
            found, text = report.hint_of(name, line)
            assert text == spec.hint(key) == spec.hint(found), (name, key)          # a key of the same words
            assert report.example_of(name, line, spec.hint(key)) == "it returned 1.0, expected 2.0"
    assert report.hint_of("lesson_passes", "FAIL: lesson_passes: no hint here") is None


def test_the_mistakes_are_the_hints_that_fired_most_people_first(klass):
    subs, rows, course, *_ = klass
    nb = report.figures(rows, subs, course)["notebooks"][M04]
    kinds = Counter(kind for kind in PEOPLE.values() if kind not in (None, "right"))
    assert [(m["hint_key"], m["people"]) for m in nb["mistakes"]] == kinds.most_common()
    for m in nb["mistakes"]:
        line = evaluate("lesson_passes", ANSWERS[m["hint_key"]][1])[1]
        assert m["hint"] == REGISTRY["lesson_passes"].hint(m["hint_key"]) and m["example"] in line
        assert not m["example"].startswith("FAIL") and "Hint" not in m["example"]


def test_the_numbers_behind_the_page(klass):
    subs, rows, course, folder, _ = klass
    figures = json.loads((folder / "class.json").read_text())
    nb = figures["notebooks"][M04]
    right = sum(kind == "right" for kind in PEOPLE.values()) + 1                 # and the late one
    handed = len(PEOPLE) + 1
    assert nb["people"] == handed and sum(nb["histogram"]["people"]) == handed
    assert nb["histogram"] == {"points": ["0", "1"], "people": [handed - right, right]}
    assert nb["checks"]["lesson_passes"]["verdicts"] == {"PASS": right, "FAIL": handed - right - 1,
                                                         "NOT ATTEMPTED": 1}
    assert nb["checks"]["lesson_passes"]["pass_rate"] == round(right / handed, 3)
    assert (nb["late"], nb["missing"], nb["identical_work"]) == (1, 1, 2)       # doejohn; Jonas; Farid and Greta
    assert figures["nothing_gradable"] == 1 and figures["people"] == handed + 2
    common, = nb["common_answers"]
    assert common["people"] == right and common["text"] == ANSWERS["right"][0]
    assert figures["notebooks"][M00]["people"] == 1


def test_names_appear_only_in_the_teachers_table_and_escaped(klass):
    subs, rows, course, folder, written = klass
    page = (folder / f"{M04}.html").read_text()
    table = page.index("<h2>Who to follow up")
    names = {s.student for s in subs} | {r["student_id"] for r in rows}
    for name in names:
        shown = html.escape(gradebook.shown(name))
        assert shown not in page[:table], name
    assert html.escape(SCRIPT) in page[table:] and SCRIPT not in page
    for who in ("doejohn (23456)", "Jonas", "Farid", "Greta"):
        assert f"<td>{who}</td>" in page[table:]
    assert "<script" not in page and page.count("<img ") == page.count("<img src='data:image/png;base64,")
    assert 'Content-Security-Policy' in page and "img-src data:" in page
    everything = (folder / "class.json").read_text()
    for name in names:
        assert json.dumps(gradebook.shown(name))[1:-1] not in everything, name
    assert LATE not in everything and "class/" not in everything
    assert sorted(p.name for p in written) == sorted([f"{M00}.html", f"{M04}.html", "class.json"])


def test_a_report_folder_that_holds_other_files_is_refused(klass, tmp_path):
    folder = klass[3]
    check_folder(folder, "--report", report.MARK)                              # an earlier report's: replaced
    check_folder(tmp_path / "new", "--report", report.MARK)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("the teacher's")
    with pytest.raises(UsageError, match="already holds other files"):
        check_folder(tmp_path / "mine", "--report", report.MARK)
    check_folder(tmp_path / "no" / "such", "--report", report.MARK)            # made when written, as nbgrader does
    with pytest.raises(UsageError, match=r"mine/notes.txt is a file, not a folder, so .* cannot be made"):
        check_folder(tmp_path / "mine" / "notes.txt" / "report", "--report", report.MARK)
