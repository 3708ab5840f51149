"""The class report (lesson_tools.grading.report): what the class got wrong, how points spread, who to follow up,
from the gradebook rows of a small class (tests/class_report.py; the report of a class graded end to end is
tests/test_grading_lms.py's, and a page in Chromium tests/test_report_browser.py's)."""
import html
import json
import re
from collections import Counter
from itertools import pairwise

import numpy as np
import pytest
from class_report import ANSWERS, LATE, M00, M04, PEOPLE, SCRIPT, graded_class

from lesson_course.checks import REGISTRY
from lesson_course.checks.framework import GENERAL_HINTS, _fail, evaluate
from lesson_tools.grading import course_notebooks, gradebook, points, report
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
    assert report.hint_of("lesson_passes", "FAIL: lesson_passes: no hint here") is None


def test_the_mistakes_are_the_hints_that_fired_most_people_first(klass):
    subs, rows, course, *_ = klass
    nb = report.figures(rows, subs, course)["notebooks"][M04]
    kinds = Counter(kind for kind in PEOPLE.values() if kind not in (None, "right"))
    assert [(m["hint_key"], m["people"]) for m in nb["mistakes"]] == kinds.most_common()
    for m in nb["mistakes"]:
        assert m["hint"] == REGISTRY["lesson_passes"].hint(m["hint_key"])
        wrote = [who for who, kind in PEOPLE.items() if kind == m["hint_key"]]      # the code they wrote, as code
        assert m["example"] == (ANSWERS[m["hint_key"]][0] if len(wrote) > 1 else ""), (m, wrote)
        assert evaluate("lesson_passes", ANSWERS[m["hint_key"]][1])[0] == "fail"


def test_the_numbers_behind_the_page(klass):
    subs, rows, course, folder, _ = klass
    figures = json.loads((folder / "class.json").read_text())
    nb = figures["notebooks"][M04]
    right = sum(kind == "right" for kind in PEOPLE.values()) + 1                 # and the late one
    handed = len(PEOPLE) + 1
    assert nb["people"] == handed and sum(nb["histogram"]["people"]) == handed
    assert nb["histogram"] == {"points": ["0", "1"], "people": [handed - right, right], "edges": [-0.5, 0.5, 1.5]}
    assert nb["checks"]["lesson_passes"]["verdicts"] == {"PASS": right, "FAIL": handed - right - 1,
                                                         "NOT ATTEMPTED": 1}
    assert nb["checks"]["lesson_passes"]["pass_rate"] == round(right / handed, 3)
    assert (nb["late"], nb["missing"], nb["identical_work"]) == (1, 1, 0)       # doejohn; Jonas; the `or` mistake,
                                                                               # short: written alike on their own
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
    for who in ("doejohn (23456)", "Jonas"):
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


def test_late_work_is_counted_and_listed_under_any_penalty(klass, tmp_path):
    """class.json counted 0 late while work was late under a penalty: the `late` column then says how late and what
    came off, and every such row is late work."""
    subs, rows, course, *_ = klass
    late_one = next(s.label for s in subs if s.person.late)
    kept = {late_one: (0.8, "2 days late: 20% off"), **{s.label: (1.0, "") for s in subs if s.label != late_one}}
    scored = gradebook.score(rows, points.declared(), order={s.label: s.person.order for s in subs}, late=kept)
    nb = report.figures(scored, subs, course)["notebooks"][M04]
    assert (nb["late"], nb["late_penalised"]) == (1, 1)
    assert ("doejohn (23456)", "2 days late: 20% off") in report.follow_up(scored, M04)
    unmarked = gradebook.score(rows, points.declared(), order={s.label: s.person.order for s in subs},
                               late={s.label: (1.0, "") for s in subs})
    assert report.figures(unmarked, subs, course)["notebooks"][M04]["late"] == 0     # the control: none late


HOSTILE = "!Vic Victim (777) copied this from Mal"


def test_no_learner_writes_the_report(tmp_path):
    """A FAIL whose returned type's name is a sentence about classmates, written by two people alike: the hint it
    fired is counted, but neither the check's words nor code that names anyone in the class become its example;
    no name appears before the teachers' table."""
    import copy

    import nbformat
    from lms_downloads import write_tree

    from lesson_tools.build import SOLUTIONS
    from lesson_tools.grading.command import collect
    course = course_notebooks.load()
    base = nbformat.read(str(SOLUTIONS / f"{M04}.ipynb"), as_version=4)

    def answer(code):
        nb = copy.deepcopy(base)
        cell = next(c for c in nb.cells if c.cell_type == "code" and "def lesson_passes" in c.source)
        cell.source = cell.source.split("### BEGIN SOLUTION")[0] + code
        return nb
    hostile = f"return type({HOSTILE!r}, (), {{}})()"
    folder = write_tree(tmp_path / "class", {f"Vic Victim/{M04}.ipynb": answer(ANSWERS["right"][0]),
                                             f"Mal/{M04}.ipynb": answer(hostile), f"Nat/{M04}.ipynb": answer(hostile),
                                             f"Ola/{M04}.ipynb": answer(ANSWERS["or"][0]),
                                             f"Pim/{M04}.ipynb": answer(ANSWERS["or"][0])})
    subs = collect([folder], course)
    answers = {"Vic Victim": ANSWERS["right"][1], "Ola": ANSWERS["or"][1], "Pim": ANSWERS["or"][1],
               "Mal": lambda e, m: type(HOSTILE, (), {})(), "Nat": lambda e, m: type(HOSTILE, (), {})()}
    rows = [gradebook.row(gradebook.identity(s.person), s.notebook, s.label, "lesson_passes",
                          *(lambda st, line: (gradebook.FROM_STATUS[st], line))(*evaluate("lesson_passes",
                                                                                           answers[s.student])))
            for s in subs]
    rows = gradebook.score(rows, points.declared(), order={s.label: s.person.order for s in subs})
    assert HOSTILE in " ".join(r["detail"] for r in rows)                    # the check did report it
    written = report.write(fresh_folder(tmp_path / "report", "--report", report.MARK), subs, rows, course)
    page = (tmp_path / "report" / f"{M04}.html").read_text()
    before = html.unescape(re.sub(r"data:image/png;base64,[^']*", "", page[:page.index("<h2>Who to follow up")]))
    nb = json.loads((tmp_path / "report" / "class.json").read_text())["notebooks"][M04]
    mistakes = {m["hint_key"]: m for m in nb["mistakes"]}
    assert mistakes["not a bool"]["people"] == 2 and mistakes["not a bool"]["example"] == ""
    assert mistakes["or"]["example"] == ANSWERS["or"][0]              # the control: a shared form is shown as code
    assert f"<pre><code>{html.escape(ANSWERS['or'][0])}</code></pre>" in page
    for text in ("Vic", "777", "copied this", "Mal", "Nat", "Ola", "Pim"):
        assert text not in before and text not in (tmp_path / "report" / "class.json").read_text(), text
    assert len(written) == 2


@pytest.mark.parametrize("step, most, seed", [(1.0, 40, 1), (1.0, 40, 2), (0.5, 20, 3), (0.25, 5, 4), (0.05, 18, 5),
                                              (0.05, 18, 6), (1.0, 3, 7), (1.0, 1, 8), (0.1, 2.5, 9)])
def test_the_histograms_axis_labels_never_crowd(step, most, seed):
    """Whatever the class scored (whole points up to 40, halves from late shares, ranges of anything), the x axis's
    labels are numbers that do not overlap and stay inside the figure."""
    rng = np.random.default_rng(seed)
    points = rng.integers(0, int(round(most / step)) + 1, rng.integers(1, 60)).tolist()
    labels, counts, edges = report._histogram([k * step for k in points], float(most))
    assert sum(counts) == len(points) and len(edges) == len(counts) + 1
    fig = report.histogram_figure({"histogram": {"points": labels, "people": counts, "edges": edges},
                                   "possible": float(most)})
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    ax = fig.axes[0]
    boxes = [t.get_window_extent(canvas.get_renderer()) for t in ax.get_xticklabels()
             if t.get_visible() and t.get_text() and ax.get_xlim()[0] <= t.get_position()[0] <= ax.get_xlim()[1]]
    assert 2 <= len(boxes) <= 12, [t.get_text() for t in ax.get_xticklabels()]
    boxes.sort(key=lambda b: b.x0)
    assert all(a.x1 + 2 <= b.x0 for a, b in pairwise(boxes)), [(b.x0, b.x1) for b in boxes]
    width = fig.get_size_inches()[0] * fig.dpi
    assert boxes[0].x0 >= 0 and boxes[-1].x1 <= width
