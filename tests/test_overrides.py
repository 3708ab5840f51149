"""The teacher's week without a kernel (the graded class is tests/test_grading_week.py's): the overrides file read,
checked against the class and applied to the gradebook and the platforms' files; rosters merged; results keyed by what
was handed in; late work judged with extensions; Moodle's worksheets and dates; the output folders."""
import argparse
import csv
import time

import pytest
from lms_downloads import canvas_name, moodle_folder, write_tree

from lesson_tools.build import SOLUTIONS
from lesson_tools.grading import course_notebooks, export, feedback, grader, late, overrides, results
from lesson_tools.grading import gradebook as gb
from lesson_tools.grading import roster as rosters
from lesson_tools.grading.command import check_out, stamps, write_exports
from lesson_tools.grading.intake import UsageError

M04 = "04_feedback"
CHECK = "lesson_passes"
DUE = 1_796_083_140.0


@pytest.fixture(scope="module")
def course():
    return course_notebooks.load()


@pytest.fixture(scope="module")
def klass(course, tmp_path_factory):
    """A download with a Canvas half (a namesake pair, the Test Student) and a Moodle half, collected."""
    import nbformat
    nb = nbformat.read(str(SOLUTIONS / f"{M04}.ipynb"), as_version=4)
    folder = write_tree(tmp_path_factory.mktemp("week") / "dl", {
        f"canvas/{canvas_name('smithjane', 12345, 1, f'{M04}.ipynb')}": nb,
        f"canvas/{canvas_name('smithjane', 22222, 2, f'{M04}.ipynb')}": nb,
        f"canvas/{canvas_name('studenttest', 99999, 3, f'{M04}.ipynb')}": nb,
        f"moodle/{moodle_folder('Li Wei', 501)}/{M04}.ipynb": nb})
    return grader.collect([folder / "canvas", folder / "moodle"], course)


def write(tmp_path, text, name="overrides.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------- the file
def test_every_kind_is_read_with_its_value(tmp_path):
    found = overrides.read(write(tmp_path, f"""
[[points]]
student = "12345"
notebook = "{M04}"
check = "{CHECK}"
points = 1.5
reason = "method right"
[[points]]
student = 501
notebook = "{M04}"
points = 3
reason = "on paper"
[[extension]]
student = "Li Wei"
notebook = "{M04}"
due = 2026-12-03T23:59:00+01:00
reason = "ill"
[[excused]]
student = "22222"
notebook = "{M04}"
reason = "joined late"
"""))
    assert [(o.kind, o.student, o.check, o.points) for o in found] == [
        ("points", "12345", CHECK, 1.5), ("points", "501", "", 3.0), ("extension", "Li Wei", "", None),
        ("excused", "22222", "", None)]
    assert found[2].due == late.due_time("2026-12-03T23:59:00+01:00", "x")
    assert found[0].said() == "set by hand: 1.5 points (method right)"


@pytest.mark.parametrize("text, said", [
    ("[[grades]]\nstudent = 'x'", r"grades: not a kind of override; the kinds are \[\[points\]\], \[\[extension\]\]"),
    (f"[[points]]\nstudent = 'x'\nnotebook = '{M04}'\npoints = 1", r"\[\[points\]\] #1: reason missing"),
    (f"[[points]]\nstudent = 'x'\nnotebook = '{M04}'\npoints = -1\nreason = 'r'", r"points = -1: expected a number"),
    (f"[[points]]\nstudent = 'x'\nnotebook = '{M04}'\npoints = 'two'\nreason = 'r'", r"points = 'two': expected"),
    (f"[[excused]]\nstudent = 'x'\nnotebook = '{M04}'\nreason = ''", r"the reason is empty: say why"),
    (f"[[excused]]\nstudent = 'x'\nnotebook = '{M04}'\nreason = 'r'\ngrade = 2",
     r"grade: not a key of \[\[excused\]\]"),
    (f"[[extension]]\nstudent = 'x'\nnotebook = '{M04}'\ndue = 'Friday'\nreason = 'r'", r"'Friday' is not a date"),
    ("[[excused]\n", r"is not valid TOML"),
])
def test_a_file_that_cannot_be_used_is_refused_naming_the_entry(tmp_path, text, said):
    with pytest.raises(UsageError, match=said):
        overrides.read(write(tmp_path, text))


def test_an_override_must_name_one_known_person_notebook_and_check(klass, course):
    people = overrides.people_of(klass)
    assert "canvas:99999" in people                     # (the Test Student is set aside before this, by the grader)

    def said(**entry):
        o = overrides.Override(**{"kind": "points", "student": "12345", "notebook": M04, "reason": "r",
                                  "where": "o.toml: [[points]] #1", "points": 1.0, **entry})
        with pytest.raises(UsageError) as caught:
            overrides.resolve([o], people, course)
        return str(caught.value)
    assert "student = 'smithjane' names 2 people (canvas:12345, smithjane, canvas:22222, smithjane): write the one " \
           "you mean as its key, e.g. student = 'canvas:12345'" in said(student="smithjane")
    assert "student = 'Li Wie' is no one in the download or on the roster; did you mean 'Li Wei'?" in said(
        student="Li Wie")
    assert "notebook = '04_feedbak' is not a notebook of the course; did you mean '04_feedback'?" in said(
        notebook="04_feedbak")
    assert f"check = 'kinetic_energy' is not a check of {M04}" in said(check="kinetic_energy")
    o = overrides.Override("points", "canvas:22222", M04, "r", "o.toml #1", CHECK, 1.0)
    twice = overrides.Override("points", "22222", M04, "r", "o.toml #2", CHECK, 2.0)
    with pytest.raises(UsageError, match=r"o.toml #2: '22222', 04_feedback lesson_passes already has an override"):
        overrides.resolve([o, twice], people, course)
    both = [overrides.Override("points", "501", M04, "r", "#1", "", 1.0),
            overrides.Override("excused", "Li Wei", M04, "r", "#2")]
    with pytest.raises(UsageError, match=r"#2: 'Li Wei' is excused from 04_feedback and has points set by hand"):
        overrides.resolve(both, people, course)
    assert len(overrides.resolve([o], people, course)) == 1                 # the control: known, once


def rows_for(klass):
    return [gb.row(gb.identity(s.person), s.notebook, s.label, CHECK, gb.FAIL, "FAIL: no") for s in klass]


def test_points_by_hand_excused_and_paper_count_in_every_export(klass, course, tmp_path):
    klass, said = rosters.set_aside(klass)                                  # the Test Student, by Canvas's name
    assert said and "99999" in said[0]
    people = overrides.people_of(klass)
    people["canvas:56789"] = {"student": "Zero, Zed", "student_id": "56789", "platform": "canvas", "late": ""}
    decided = overrides.resolve([
        overrides.Override("points", "12345", M04, "method right", "#1", CHECK, 0.5),
        overrides.Override("points", "56789", M04, "on paper", "#2", "", 1.0),
        overrides.Override("excused", "Li Wei", M04, "joined late", "#3")], people, course)
    points = {CHECK: 1}
    rows = gb.score(rows_for(klass) + overrides.rows(decided, course, points), points,
                    order={s.label: s.person.order for s in klass}, by_hand=decided.check_points())
    people = gb.totals(rows)
    assert people["canvas:12345"]["points"] == 0.5 and people["canvas:22222"]["points"] == 0      # the namesake: 0
    assert people["canvas:56789"]["notebooks"][M04]["counted"] == overrides.BY_HAND
    assert people["moodle:501"]["notebooks"][M04]["excused"] == "excused (joined late)"
    assert (people["moodle:501"]["points"], people["moodle:501"]["max"]) == (0, 0)
    n, _ = export.canvas(rows, tmp_path / "c.csv", {M04: "F (1)"})
    with open(tmp_path / "c.csv", newline="") as f:
        canvas = {r["ID"]: r["F (1)"] for r in csv.DictReader(f)}
    assert canvas == {"": "1", "12345": "0.5", "22222": "0", "56789": "1"}
    export.moodle(rows, tmp_path / "m.csv", M04, time.time())
    with open(tmp_path / "m.csv", newline="") as f:
        moodle, = csv.DictReader(f)
    assert moodle["Grade"] == "" and moodle["Feedback comments"] == f"{M04}: excused (joined late)"
    export.scores(rows, tmp_path / "s.csv")
    with open(tmp_path / "s.csv", newline="") as f:
        scores = {r["student_id"]: r for r in csv.DictReader(f)}
    assert scores["501"][M04] == "EX" and scores["12345"]["set_by_hand"] == \
        f"{M04} {CHECK}: set by hand: 0.5 points (method right)"
    summary = "\n".join(gb.summary(rows))
    assert f"Li Wei (501): 0 of 0 points ({M04} excused)" in summary
    assert f"set by hand: {M04} {CHECK}" in summary and "rows: " in summary and "1 SET BY HAND, 1 EXCUSED" in summary


def test_an_extension_judges_by_the_hand_in_time_alone(klass, course):
    sub = next(s for s in klass if s.person.id == "501")
    later = type(sub)(type(sub.file)(sub.label, sub.file.rel, 1, DUE + 2 * 86400, None), sub.person, M04)
    policy = late.parse("10%/day")
    assert grader.lateness([later], policy, {M04: DUE})[sub.label] == (pytest.approx(0.8), "2 days late: 20% off")
    decided = overrides.resolve([overrides.Override("extension", "501", M04, "ill", "#1", due=DUE + 3 * 86400)],
                                overrides.people_of(klass), course)
    assert grader.lateness([later], policy, {M04: DUE}, decided)[sub.label] == (1.0, "")
    assert grader.lateness([later], None, {M04: DUE})[sub.label] == (1.0, "2 days late")       # marked, no penalty
    marked = type(sub.person)("1", "x", "canvas", late=True)
    platform_late = type(sub)(later.file, marked, M04)
    assert grader.lateness([platform_late], None, {})[sub.label] == (1.0, "late")


# ---------------------------------------------------------------------- rosters
def test_a_canvas_and_a_moodle_roster_merge_and_one_person_on_both_is_named(tmp_path, klass):
    (tmp_path / "c.csv").write_text("Student,ID,SIS User ID,SIS Login ID,Section\n    Points Possible,,,,\n"
                                    "\"Smith, Jane\",12345,S1,jsmith@uni.example,A\n\"Student, Test\",99999,,,A\n"
                                    "\"Wei, Li\",7,S2,li,A\n")
    (tmp_path / "m.csv").write_text("Identifier,Full name,Email address,Last modified (grade)\n"
                                    "Participant 501,Li Wei,lw@uni.example,-\n"
                                    "Participant 504,Jane Smith,other@uni.example,"
                                    "\"Monday, 30 November 2026, 10:00 AM\"\n")
    roster = rosters.load([tmp_path / "c.csv", tmp_path / "m.csv"])
    assert sorted(roster.people) == ["canvas:12345", "canvas:7", "moodle:501", "moodle:504"]
    assert roster.platforms == ["canvas", "moodle"] and [p.id for p in roster.left_out] == ["99999"]
    assert sorted([p.key for p in group] for group in roster.same) == [["canvas:12345", "moodle:504"],
                                                                      ["canvas:7", "moodle:501"]]
    kept, said = rosters.set_aside(klass, roster)
    assert [s.person.id for s in kept] == ["12345", "22222", "501"]
    assert said[0].startswith("left out: 1 file of Canvas's Test Student") and "Student, Test, 99999" in said[1]
    assert any("Smith, Jane (canvas 12345, jsmith@uni.example); Jane Smith (moodle 504, other@uni.example)" in line
               for line in said)
    notes = {s.person.id: grader.off_roster(roster, s) for s in kept}
    assert notes == {"12345": None, "22222": "not on the roster (--roster, canvas's and moodle's)", "501": None}
    missing = grader.roster_rows(roster, kept, [M04])
    assert [(r["platform"], r["student_id"]) for r in missing] == [("moodle", "504"), ("canvas", "7")]
    assert rosters.load(None) is None and rosters.load([tmp_path / "c.csv"]).platform == "canvas"


# ---------------------------------------------------------------------- results kept by what was handed in
def test_a_result_is_keyed_by_what_was_handed_in_and_whose_not_where_it_lies(klass, course, tmp_path):
    from lesson_tools.grading.job import make_task
    from lesson_tools.grading.rlimits import Limits
    store = results.Store(tmp_path)
    sub = next(s for s in klass if s.person.id == "12345")
    task = make_task(sub, course[M04], {CHECK}, {"a": "1"}, Limits(salt=1))
    renamed = {**task, "submission": "week2.zip:" + sub.label, "who": {**task["who"], "student": "Jane"},
               "student": "Jane"}
    assert store.key(task, {"a": "1"}, True, True) == store.key(renamed, {"a": "1"}, True, True)
    for other in ({**task, "text": task["text"] + " "}, {**task, "who": {**task["who"], "student_id": "22222"}},
                  {**task, "limits": Limits(salt=2)}):
        assert store.key(other, {"a": "1"}, True, True) != store.key(task, {"a": "1"}, True, True)
    assert store.key(task, {"a": "2"}, True, True) != store.key(task, {"a": "1"}, True, True)
    salt = results.submission_salt(7, task["text"])
    assert salt == results.submission_salt(7, task["text"]) and 0 <= salt < 2**62
    assert salt != results.submission_salt(7, task["text"] + "\n") and salt != results.submission_salt(8, task["text"])


def test_the_cache_keeps_one_salt_and_each_results_time(tmp_path):
    store = results.Store(tmp_path)
    salt = store.salt()
    assert store.salt() == salt and store.salt(fresh=True) != salt
    store.put("k", [{"a": 1, "note": "x"}], 123.0)
    assert store.get("k") == [{"a": 1, "note": ""}] and store.graded("k") == 123.0 and store.get("nope") is None
    assert (tmp_path / "salt.json").stat().st_mode & 0o077 == 0                  # the owner's alone


def test_moodles_last_modified_is_each_persons_own(klass):
    rows = gb.score(rows_for(klass), {CHECK: 1})
    graded = stamps(klass, {s.label: 1_800_000_000.0 + 60 * k for k, s in enumerate(klass)})
    assert graded["moodle:501"] == {M04: 1_800_000_000.0 + 60 * 3}
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        export.moodle(rows, f"{folder}/m.csv", M04, 0.0, stamps=graded)
        with open(f"{folder}/m.csv", newline="") as f:
            row, = csv.DictReader(f)
    assert row["Last modified (grade)"] == time.strftime(export.MOODLE_TIME, time.localtime(1_800_000_180.0))


def test_a_moodle_worksheet_is_written_for_a_notebook_a_moodle_learner_handed_in_or_the_teacher_asked_for(tmp_path):
    who = {"canvas": {"student": "ann", "student_id": "1", "platform": "canvas", "late": ""},
           "moodle": {"student": "bo", "student_id": "2", "platform": "moodle", "late": ""}}
    rows = gb.score([gb.row(who["canvas"], "00_start_here", "a", "total_mass", gb.PASS, ""),
                     gb.row(who["moodle"], M04, "b", CHECK, gb.PASS, "")], {"total_mass": 1, CHECK: 1})
    for notebooks in (None, ["00_start_here", M04]):
        said = []
        args = argparse.Namespace(scores=None, canvas=None, moodle=str(tmp_path / "m.csv"), notebook=notebooks)
        write_exports(args, rows, None, ({}, []), 0.0, {}, out=said.append)
        assert (tmp_path / f"m-{M04}.csv").is_file()
        assert (tmp_path / "m-00_start_here.csv").is_file() == bool(notebooks), said
        if notebooks is None:
            assert said[0] == ("moodle: no worksheet for 00_start_here: no Moodle participant handed it in "
                               "(--notebook 00_start_here writes one, of zeros)")


# ---------------------------------------------------------------------- small ones
def test_out_into_a_folder_not_there_is_made_or_says_why_not(tmp_path):
    check_out(tmp_path / "new" / "deeper" / "g.csv")
    assert not (tmp_path / "new").exists()                                   # made when written, not before
    gb.write([], tmp_path / "new" / "deeper" / "g.csv")
    assert (tmp_path / "new" / "deeper" / "g.csv").is_file()
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match=r"--out .*file/g.csv: .*file is a file, not a folder, so .* cannot be made"):
        check_out(tmp_path / "file" / "g.csv")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        import os
        if os.geteuid() != 0:
            with pytest.raises(UsageError, match=r"does not exist and cannot be made in .*locked \(no permission\)"):
                check_out(locked / "sub" / "g.csv")
    finally:
        locked.chmod(0o700)


def test_the_learners_own_error_is_said_before_a_course_cells(course):
    given = course[M04].given
    mine = "def lesson_passes(max_error, min_eig):\n    return (max_error"
    cells = (*given[:2], mine)
    detail = (f"the check cell raised NameError: name '{CHECK}' is not defined; code cell 2 (`x`) raised RuntimeError: "
              f"withheld; code cell 3 (`def lesson_passes(...`) raised SyntaxError: incomplete input")
    assert feedback.own_first(detail, cells, course[M04]) == (
        f"code cell 3 (`def lesson_passes(...`) raised SyntaxError: incomplete input; the check cell raised NameError: "
        f"name '{CHECK}' is not defined; code cell 2 (`x`) raised RuntimeError: withheld")
    assert feedback.own_first("PASS: ok", cells, course[M04]) == "PASS: ok"
