"""The grader's intake, points, exports and feedback pages, without running a notebook: what Canvas and Moodle
download is read as it is (one person one student, zips in place), points come from the checks and a teacher's file,
and the files the platforms import carry the columns the platforms document.

Grading such downloads end to end (the CLI, a zip against its folder, the feedback page in Chromium) is in
tests/test_grading_lms.py.
"""
import csv
import html
import io
import json
import os
import time
import zipfile

import nbformat
import pytest
from lms_downloads import canvas_name, moodle_folder, write_tree, write_zip

from lesson_course import checks
from lesson_tools.build import NOTEBOOKS, SOLUTIONS
from lesson_tools.grading import course_notebooks, export, feedback, gradebook, intake, limits, points
from lesson_tools.grading import roster as rosters
from lesson_tools.grading.grader import collect
from lesson_tools.grading.intake import File, UsageError, compile_pattern, find, person

M04 = "04_feedback"
CHECK_04, = [name for name, spec in checks.REGISTRY.items() if spec.notebook == M04]


@pytest.fixture(scope="module")
def course():
    return course_notebooks.load()


def nb(stem, teachers=True):
    return nbformat.read(str((SOLUTIONS if teachers else NOTEBOOKS) / f"{stem}.ipynb"), as_version=4)


def at(rel, folder="downloads"):
    return File(f"{folder}/{rel}", tuple(rel.split("/")), 0, 0.0, None, outer=(folder,))


# ---------------------------------------------------------------------- who handed a file in
@pytest.mark.parametrize("late", [False, True])
@pytest.mark.parametrize("resubmission", [None, 1, 12])
def test_a_canvas_file_is_its_user_id_with_late_and_resubmission_read(late, resubmission):
    name = canvas_name("smithjane", 12345, 67890, f"{M04}.ipynb", late, resubmission)
    who = person(at(name), M04)
    assert (who.key, who.id, who.name, who.platform, who.late) == ("canvas:12345", "12345", "smithjane", "canvas", late)
    assert who.order[:2] == (67890, resubmission or 0)
    assert name.startswith(who.prefix) and who.prefix.endswith("_12345_67890")


def test_canvas_submissions_of_one_person_are_one_student_and_namesakes_are_two():
    first = person(at(canvas_name("smithjane", 12345, 67890, "02_model.ipynb")), "02_model")
    again = person(at(canvas_name("smithjane", 12345, 67891, "02_model.ipynb", resubmission=1)), "02_model")
    namesake = person(at(canvas_name("smithjane", 22222, 67892, "02_model.ipynb")), "02_model")
    assert first.key == again.key != namesake.key and first.name == namesake.name
    assert again.order > first.order                     # the later submission sorts later


@pytest.mark.parametrize("rel", [
    f"{moodle_folder('Jane Smith', 501)}/{M04}.ipynb",                       # downloaded in folders
    f"{moodle_folder('Jane Smith', 501)}/my work (2).ipynb",
    f"{moodle_folder('Jane Smith', 501)}{M04}.ipynb",                        # downloaded without folders
    f"{moodle_folder('Jane Smith', 501, 'onlinetext')}/{M04}.ipynb",
    f"{moodle_folder('Jane Smith_777_assignsubmission_file', 501)}/{M04}.ipynb",  # a full name that ends like an id
])
def test_a_moodle_file_is_its_participant_id_never_its_folder(rel):
    who = person(at(rel, folder="moodle"), M04)
    assert (who.key, who.platform) == ("moodle:501", "moodle") and who.name.startswith("Jane Smith")
    assert who.prefix.startswith(who.name + "_501_assignsubmission_")


@pytest.mark.parametrize("rel, claimed", [
    (f"{moodle_folder('Mallory Mole', 555)}/{moodle_folder('Vic Victim', 777)}{M04}.ipynb", "777"),     # folders
    (f"{moodle_folder('Mallory Mole', 555)}/{canvas_name('vicvictim', 777, 2, f'{M04}.ipynb')}", "777"),
    (f"{moodle_folder('Mallory Mole', 555)}/{M04}.ipynb", None),
])
def test_a_moodle_file_is_the_person_moodle_named_whatever_the_student_named_it(rel, claimed):
    who = person(at(rel), M04)
    assert (who.key, who.name, who.platform) == ("moodle:555", "Mallory Mole", "moodle")
    assert who.prefix == moodle_folder("Mallory Mole", 555)
    assert (who.claim is None) == (claimed is None)
    if claimed:
        assert "claims to be " in who.claim and f" {claimed}'s" in who.claim
        assert "graded as moodle id 555's" in who.claim


@pytest.mark.parametrize("rel", [
    canvas_name("molemallory", 555, 1001, canvas_name("victimvic", 777, 1002, f"{M04}.ipynb")),
    f"{canvas_name('molemallory', 555, 1001, 'mywork')}/{M04}.ipynb",        # an inner zip, unzipped to a folder
    f"{canvas_name('molemallory', 555, 1001, 'mywork.zip')}/{M04}.ipynb",    # ... read in place
    f"{canvas_name('molemallory', 555, 1001, 'mywork')}/{moodle_folder('Vic Victim', 777)}{M04}.ipynb",
])
def test_a_canvas_file_is_the_person_canvas_named_whatever_the_student_named_it(rel):
    who = person(at(rel), M04)
    assert (who.key, who.name, who.platform) == ("canvas:555", "molemallory", "canvas")
    assert who.prefix == "molemallory_555_1001"
    assert (who.claim is not None and "777's" in who.claim) == ("777" in rel), who.claim


def test_a_teachers_pattern_names_the_person_and_refuses_what_it_does_not_match():
    pattern = compile_pattern(r"^(?P<student_id>s\d+)-(?P<name>[a-z]+)(?P<late>-late)?/")
    who = person(at(f"s17-ann-late/{M04}.ipynb"), M04, pattern)
    assert (who.key, who.name, who.late, who.platform) == ("pattern:s17", "ann", True, "pattern")
    assert person(at(f"ann/{M04}.ipynb"), M04, pattern) is None
    for bad, says in [("(", "is not a regular expression"), (r"(?P<name>\w+)", "needs a named group"),
                      (r"(?P<student_id>\w+)(?P<group>\d)", "knows no group group")]:
        with pytest.raises(UsageError, match=says):
            compile_pattern(bad)


def test_two_platforms_downloads_given_as_paths_name_everyone_and_a_download_in_a_folder_is_refused(course, tmp_path):
    """Canvas's zip and Moodle's download side by side: each person by their id, none merged.  A platform writes its
    names on the first level of what it downloads, so the Moodle download must be a PATH of its own: inside the
    folder given, `moodle/` is a folder like a person's, and one holding several people is refused, saying so."""
    learner, teacher = nb(M04, False), nb(M04)
    write_zip(write_tree(tmp_path / "dl", {}) / "canvas.zip", {
        canvas_name("smithjane", 12345, 67890, f"{M04}.ipynb"): learner,
        canvas_name("smithjane", 12345, 67891, f"{M04}.ipynb", resubmission=1): teacher,
        canvas_name("doejohn", 23456, 67893, f"{M04}.ipynb", late=True): teacher})
    write_tree(tmp_path / "dl" / "moodle", {f"{moodle_folder('Jane Smith', 501)}/{M04}.ipynb": teacher,
                                            f"{moodle_folder('Li Wei', 502)}/homework.ipynb": learner})
    with pytest.raises(UsageError, match=r"the folder 'moodle' holds the same notebook under several names .*Give "
                                         r"'moodle' itself as the PATH"):
        collect([tmp_path / "dl"], course)
    subs = collect([tmp_path / "dl" / "canvas.zip", tmp_path / "dl" / "moodle"], course)
    people = {s.person.key: s.person.name for s in subs}
    assert people == {"canvas:12345": "smithjane", "canvas:23456": "doejohn", "moodle:501": "Jane Smith",
                      "moodle:502": "Li Wei"}
    assert all(s.notebook == M04 and s.problem is None for s in subs)
    assert [s.person.late for s in subs if s.person.id == "23456"] == [True]


def test_a_folder_that_would_merge_people_is_refused_by_name(course, tmp_path):
    write_tree(tmp_path / "in" / "class", {f"{name}/{M04}.ipynb": nb(M04) for name in ("alice", "bob")})
    with pytest.raises(UsageError, match=r"the folder 'class' holds the same notebook under several names "
                                         r"\(alice, bob\).*Give 'class' itself as the PATH"):
        collect([tmp_path / "in"], course)
    assert sorted(s.student for s in collect([tmp_path / "in" / "class"], course)) == ["alice", "bob"]
    write_tree(tmp_path / "flat" / "class", {f"{name}_{M04}.ipynb": nb(M04) for name in ("alice", "bob")})
    with pytest.raises(UsageError, match=r"'class' holds the same notebook under several names \(alice, bob\)"):
        collect([tmp_path / "flat"], course)
    # a student's own resubmissions in their folder are no other people
    write_tree(tmp_path / "own", {f"alice/{M04}.ipynb": nb(M04), f"alice/{M04} (1).ipynb": nb(M04),
                                  f"alice/alice_{M04}.ipynb": nb(M04), f"bob/{M04}.ipynb": nb(M04)})
    assert sorted(s.student for s in collect([tmp_path / "own"], course)) == ["alice", "alice", "alice", "bob"]


# ---------------------------------------------------------------------- zips, read in place
def test_a_zip_is_read_in_place_and_its_unsafe_entries_are_rows_of_their_own(course, tmp_path, monkeypatch):
    teacher = nbformat.writes(nb(M04)).encode()
    path = tmp_path / "canvas.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(canvas_name("smithjane", 12345, 67890, f"{M04}.ipynb"), teacher)
        zf.writestr("../outside.ipynb", teacher)
        zf.writestr("/etc/absolute.ipynb", teacher)
        link = zipfile.ZipInfo("link.ipynb")
        link.external_attr = (0o120777 << 16)
        zf.writestr(link, "../../notebooks/solutions/04_feedback.ipynb")
        zf.writestr("inner.zip", b"PK\x05\x06" + b"\0" * 18)
        zf.writestr("__MACOSX/._x.ipynb", b"")
        zf.writestr("big.ipynb", teacher + b" " * 200)
    before = sorted(p.name for p in tmp_path.iterdir())
    monkeypatch.setattr(limits, "MAX_BYTES", len(teacher) + 100)
    subs = {s.label.split(":", 1)[1]: s for s in collect([path], course)}
    assert sorted(p.name for p in tmp_path.iterdir()) == before          # nothing unpacked beside it
    graded = subs[canvas_name("smithjane", 12345, 67890, f"{M04}.ipynb")]
    assert graded.problem is None and graded.notebook == M04 and graded.person.key == "canvas:12345"
    assert "climbs out of the zip" in subs["../outside.ipynb"].problem
    assert "climbs out of the zip" in subs["/etc/absolute.ipynb"].problem
    assert subs["link.ipynb"].problem.startswith("not read: a link inside the zip (to '../../notebooks/")
    assert subs["inner.zip"].problem == "not graded: an empty zip"
    assert "larger than any notebook" in subs["big.ipynb"].problem
    assert not any("__MACOSX" in label for label in subs)
    assert subs["../outside.ipynb"].person.platform == "unmatched"       # a climbing path names nobody


def test_a_zip_inside_the_zip_is_its_persons_submission_read_in_place_under_the_same_limits(course, tmp_path,
                                                                                            monkeypatch):
    """A learner who handed a zip in to Canvas: its notebook is theirs (Canvas's name is on the zip), its PDF gets a
    row of theirs, and a zip inside it, or an unsafe entry, is refused as in the outer zip."""
    teacher = nbformat.writes(nb(M04)).encode()
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zf:
        zf.writestr(f"mywork/{M04}.ipynb", teacher)
        zf.writestr("mywork/report.pdf", b"%PDF-1.4 binary \xff\xfe")
        zf.writestr("mywork/deeper.zip", write_zip(tmp_path / "deeper.zip", {"x.ipynb": teacher}).read_bytes())
        zf.writestr("../../escape.ipynb", teacher)
        zf.writestr("big.ipynb", teacher + b" " * 200)
    path = write_zip(tmp_path / "canvas.zip", {canvas_name("kimjisoo", 10012, 50012, "mywork.zip"): inner.getvalue()})
    monkeypatch.setattr(limits, "MAX_BYTES", len(teacher) + 100)
    before = sorted(p.name for p in tmp_path.iterdir())
    subs = {s.label.rsplit(":", 1)[1]: s for s in collect([path], course)}
    assert sorted(p.name for p in tmp_path.iterdir()) == before           # nothing unpacked beside it
    assert {s.person.key for name, s in subs.items() if name != "../../escape.ipynb"} == {"canvas:10012"}
    notebook = subs[f"mywork/{M04}.ipynb"]
    assert notebook.problem is None and notebook.notebook == M04 and notebook.text.startswith("{")
    assert subs["mywork/report.pdf"].problem == "not a notebook: a binary file"
    assert subs["mywork/deeper.zip"].problem == "not read: a zip inside a zip the learner handed in"
    assert "climbs out of the zip" in subs["../../escape.ipynb"].problem
    assert "larger than any notebook" in subs["big.ipynb"].problem


def test_a_zip_with_too_many_entries_or_none_that_opens_is_one_row(course, tmp_path, monkeypatch):
    write_zip(tmp_path / "many.zip", {f"{k}.ipynb": b"{}" for k in range(5)})
    (tmp_path / "broken.zip").write_bytes(b"PK not really")
    monkeypatch.setattr(limits, "MAX_MEMBERS", 4)
    subs = {s.label: s for s in collect([tmp_path], course)}
    assert subs[f"{tmp_path.name}/many.zip"].problem.startswith("not read: the zip holds 5 files, more than 4")
    assert subs[f"{tmp_path.name}/broken.zip"].problem.startswith("not a zip that can be read")


def test_a_file_that_lies_about_its_size_inside_a_zip_is_still_refused(tmp_path, monkeypatch):
    import dataclasses
    path = write_zip(tmp_path / "z.zip", {"a.ipynb": b"x" * 5000})
    file, = find([path])
    file = dataclasses.replace(file, size=10)             # as a forged header would say
    monkeypatch.setattr(limits, "MAX_BYTES", 1000)
    assert len(file.read_bytes()) == 1001                # read stops past the limit, whatever the header says
    from lesson_tools.grading.submissions import read
    with pytest.raises(ValueError, match="larger than any notebook"):
        read(file)


# ---------------------------------------------------------------------- points
def test_points_are_those_the_checks_declare_and_a_teachers_file_sets_others(tmp_path):
    declared = points.declared()
    assert declared == {name: spec.points for name, spec in checks.REGISTRY.items()}
    assert all(p > 0 for p in declared.values()) and len(set(declared.values())) > 1
    some, other = sorted(declared)[:2]
    (tmp_path / "p.toml").write_text(f"[points]\n{some} = 5\n{other} = 0.5\n")
    assert points.load(tmp_path / "p.toml") == {**declared, some: 5, other: 0.5}
    cases = {"[points]\nno_such_check = 2\n": "no_such_check is not a check of the course; the checks are: ",
             f"[points]\n{some} = -1\n": f"points must be numbers >= 0, got {some} = -1",
             f"[points]\n{some} = 'two'\n": f"got {some} = 'two'",
             f"{some} = 2\n": "expected one table [points]",
             "[points\n": "is not valid TOML"}
    for text, says in cases.items():
        (tmp_path / "bad.toml").write_text(text)
        with pytest.raises(UsageError, match=f"--points {tmp_path / 'bad.toml'}.*"):
            points.load(tmp_path / "bad.toml")
        with pytest.raises(UsageError) as caught:
            points.load(tmp_path / "bad.toml")
        assert says in str(caught.value), (text, str(caught.value))
    with pytest.raises(UsageError, match="cannot read it"):
        points.load(tmp_path / "missing.toml")


def test_a_check_cannot_declare_points_that_are_not_positive():
    from lesson_course.checks.framework import register
    for bad in (0, -1, "2", True, None):
        with pytest.raises(ValueError, match="points must be a positive number"):
            register("04_feedback", points=bad)


# ---------------------------------------------------------------------- grades out
def people_rows():
    """Scored rows of a class from three platforms (as grading makes them)."""
    canvas = lambda name, uid, late=False: {"student": name, "student_id": uid, "platform": "canvas",  # noqa: E731
                                            "late": "late" if late else ""}
    rows = []
    for who, sub, verdict in [(canvas("smithjane", "12345"), "a.ipynb", "FAIL"),
                              (canvas("smithjane", "12345"), "b.ipynb", "PASS"),
                              (canvas("=cmd|' /C calc'!A0", "23456", True), "c.ipynb", "PASS"),
                              ({"student": "Jane Smith", "student_id": "501", "platform": "moodle", "late": ""},
                               "d.ipynb", "NOT ATTEMPTED"),
                              ({"student": "alice", "student_id": "alice", "platform": "folder", "late": ""},
                               "e.ipynb", "PASS")]:
        rows.append(gradebook.row(who, M04, sub, CHECK_04, verdict, verdict))
    order = {"a.ipynb": 1, "b.ipynb": 2, "c.ipynb": 1, "d.ipynb": 1, "e.ipynb": 1}
    return gradebook.score(rows, {CHECK_04: 3}, "best", order)


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def test_canvas_export_has_canvas_documented_columns_and_only_canvas_people(tmp_path):
    rows = people_rows()
    roster = tmp_path / "roster.csv"
    roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section,Homework 2 (4567)\n"
                      "    Points Possible,,,,,3\n\"Smith, Jane\",12345,S-100,jsmith,Section A,\n")
    n, left = export.canvas(rows, tmp_path / "c.csv", {M04: "Homework 2 (4567)"}, rosters.read(roster),
                            {CHECK_04: 3})
    table = read_csv(tmp_path / "c.csv")
    # Canvas's gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, then one column per assignment
    assert table[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Homework 2 (4567)"]
    assert table[1] == ["Points Possible", "", "", "", "", "3"]
    assert sorted(table[2:]) == [["'=cmd|' /C calc'!A0", "23456", "", "", "", "3"],            # a formula: text
                                 ["Smith, Jane", "12345", "S-100", "jsmith", "Section A", "3"]]  # best of 2, roster
    assert n == 2 and sorted(p["student"] for p in left) == ["Jane Smith", "alice"]
    with pytest.raises(UsageError, match="expected Canvas's exported gradebook"):
        (tmp_path / "bad.csv").write_text("name,grade\nx,1\n")
        rosters.read(tmp_path / "bad.csv")


def php_strtotime(text):
    """What Moodle's worksheet import makes of a date: PHP's strtotime (assignfeedback_offline's importer), in UTC;
    None where PHP cannot read it."""
    import shutil
    import subprocess
    php = shutil.which("php")
    if php is None:
        if os.environ.get("REQUIRE_PHP"):
            pytest.fail("php is required (REQUIRE_PHP=1): apt-get install -y php-cli")
        pytest.skip("php-cli is not installed: Moodle's date reading cannot be checked here (CI installs it)")
    out = subprocess.run([php, "-d", "date.timezone=UTC", "-r", "$t = strtotime($argv[1]); echo $t === false ? "
                          "'false' : $t;", text], capture_output=True, text=True, check=True).stdout
    return None if out == "false" else int(out)


def test_moodle_dates_read_back_as_moodle_reads_them(tmp_path, monkeypatch):
    """The worksheet's "Last modified (grade)": Moodle's own format, which its import reads back with strtotime to
    the same minute (a 24-hour clock read as PHP reads it would be a different time after noon)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        for stamp in (1796481000, 1796481000 + 9 * 3600 + 7 * 60):          # 2:30 PM and 11:37 PM
            export.moodle(people_rows(), tmp_path / "m.csv", M04, stamp)
            table = read_csv(tmp_path / "m.csv")
            written = dict(zip(table[0], table[1], strict=True))["Last modified (grade)"]
            assert php_strtotime(written) == stamp - stamp % 60, written
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_moodle_export_is_a_grading_worksheet_moodle_can_read(tmp_path):
    rows = people_rows()
    n, left = export.moodle(rows, tmp_path / "m.csv", M04, 0, points={CHECK_04: 3})   # the comment: their points
    table = read_csv(tmp_path / "m.csv")
    header = table[0]
    # Moodle's worksheet importer finds its columns by these headings and reads "Participant N" ids
    for column in ("Identifier", "Grade", "Last modified (grade)", "Feedback comments"):
        assert column in header
    body = dict(zip(header, table[1], strict=True))
    assert body["Identifier"] == "Participant 501" and body["Grade"] == "0" and body["Maximum Grade"] == "3"
    assert body["Feedback comments"] == "04_feedback: 0 of 3 points"
    assert n == 1 and len(table) == 2 and len(left) == 3


def test_scores_have_one_row_per_person_with_the_counted_submission(tmp_path):
    assert export.scores(people_rows(), tmp_path / "s.csv") == 4
    table = [dict(zip(read_csv(tmp_path / "s.csv")[0], r, strict=True)) for r in read_csv(tmp_path / "s.csv")[1:]]
    by_id = {r["student_id"]: r for r in table}
    assert by_id["12345"][M04] == "3" and by_id["12345"]["counted"] == "b.ipynb"
    assert by_id["23456"]["late"] == M04 and by_id["501"]["total"] == "0" and by_id["501"]["possible"] == "3"


# ---------------------------------------------------------------------- feedback pages
def test_a_feedback_page_escapes_the_learners_code_and_is_named_for_the_platform(course, tmp_path):
    teacher = nb(M04)
    cell = next(c for c in teacher.cells if c.cell_type == "code" and "def lesson_passes" in c.source)
    cell.source += "\n# </code></pre><script>alert('x')</script>\nprint('a\\nb')"      # a backslash, as written
    write_zip(tmp_path / "canvas.zip", {canvas_name("smithjane", 12345, 67890, f"{M04}.ipynb"): teacher})
    write_tree(tmp_path, {f"{moodle_folder('Jane Smith', 501)}/{M04}.ipynb": teacher, f"ann/{M04}.ipynb": teacher})
    subs = collect([tmp_path / "canvas.zip", tmp_path / moodle_folder("Jane Smith", 501), tmp_path / "ann"], course)
    rows = gradebook.score([gradebook.row(gradebook.identity(s.person), s.notebook, s.label, CHECK_04, "FAIL",
                                          "FAIL: it said <b>no</b>. Hint: use `and`") for s in subs],
                           points.declared(), order={s.label: s.person.order for s in subs})
    written = feedback.write_all(tmp_path / "fb", subs, rows, course)
    names = sorted(p.relative_to(tmp_path / "fb").as_posix() for p in written)
    assert names == ["ann/04_feedback_feedback.html",
                     f"canvas/{canvas_name('smithjane', 12345, 67890, '04_feedback_feedback.html')}",
                     "canvas_feedback.zip",
                     f"moodle/{moodle_folder('Jane Smith', 501)}/04_feedback_feedback.html", "moodle_feedback.zip"]
    with zipfile.ZipFile(tmp_path / "fb" / "moodle_feedback.zip") as zf:
        assert zf.namelist() == [f"{moodle_folder('Jane Smith', 501)}/04_feedback_feedback.html"]
    page = (tmp_path / "fb" / "ann" / "04_feedback_feedback.html").read_text()
    assert "<script>" not in page and html.escape("</code></pre><script>alert('x')</script>") in page
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert "it said &lt;b&gt;no&lt;/b&gt;" in page and "0 of 1 point<" in page
    assert html.escape("def lesson_passes(max_error, min_eig):", quote=True) in page
    assert html.escape("print('a\\nb')") in page


def test_a_feedback_page_shows_an_exercise_cell_that_does_not_parse_and_hides_what_text_could_reorder(course,
                                                                                                        tmp_path):
    learner = nb(M04, False)
    cell = next(c for c in learner.cells if c.cell_type == "code" and "def lesson_passes" in c.source)
    cell.source = cell.source.replace("# YOUR CODE HERE", "return max_error < PASS_MAX_ERROR and\n    # \u202eevil")
    write_tree(tmp_path, {f"ann/{M04}.ipynb": learner})
    subs = collect([tmp_path / "ann"], course)
    rows = gradebook.score([gradebook.row(gradebook.identity(s.person), s.notebook, s.label, CHECK_04, "ERROR",
                                          "the check cell raised NameError") for s in subs],
                           points.declared(), order={s.label: s.person.order for s in subs})
    written = feedback.write_all(tmp_path / "fb", subs, rows, course)
    page = next(p for p in written if p.suffix == ".html").read_text()
    assert "No cell of this notebook defines" not in page
    assert "This cell is not valid Python, so it could not run (SyntaxError: invalid syntax (line " in page
    assert "return max_error &lt; PASS_MAX_ERROR and" in page and "\u202e" not in page and "\\u202eevil" in page


# ---------------------------------------------------------------------- the class folder as it is
def test_links_fifos_and_devices_are_rows_of_their_own_and_never_followed(course, tmp_path):
    import os
    folder = write_tree(tmp_path / "class", {f"alice/{M04}.ipynb": nb(M04), f"bob/{M04}.ipynb": nb(M04, False)})
    os.makedirs(folder / "carol")
    os.symlink(SOLUTIONS / f"{M04}.ipynb", folder / "carol" / f"{M04}.ipynb")        # to the solutions
    os.makedirs(folder / "dave")
    os.symlink(folder / "alice" / f"{M04}.ipynb", folder / "dave" / f"{M04}.ipynb")  # to a classmate's file
    os.symlink(SOLUTIONS, folder / "erin")                                            # a folder link
    os.makedirs(folder / "fay")
    os.mkfifo(folder / "fay" / f"{M04}.ipynb")                                        # would block a reader
    subs = {s.label: s for s in collect([folder], course)}
    assert subs[f"class/alice/{M04}.ipynb"].problem is None          # the classmate's own row is still there
    assert subs[f"class/bob/{M04}.ipynb"].problem is None
    for who in ("carol", "dave"):
        assert subs[f"class/{who}/{M04}.ipynb"].problem.startswith("not graded: a link to "), who
        assert "links are never followed" in subs[f"class/{who}/{M04}.ipynb"].problem
    assert subs["class/erin"].problem.startswith(f"not graded: a link to {str(SOLUTIONS)!r}")
    assert subs[f"class/fay/{M04}.ipynb"].problem == "not graded: a FIFO (named pipe), not a file"
    assert {s.student for s in subs.values()} >= {"alice", "bob", "carol", "dave", "fay"}


def test_a_hard_link_to_the_courses_own_file_is_not_graded(course, tmp_path):
    import os
    folder = tmp_path / "class" / "mallory"
    folder.mkdir(parents=True)
    try:
        os.link(SOLUTIONS / f"{M04}.ipynb", folder / f"{M04}.ipynb")
    except OSError as exc:                                     # another file system: no hard link can be made
        pytest.skip(f"cannot hard-link across file systems here: {exc}")
    sub, = collect([tmp_path / "class"], course)
    assert sub.problem == f"not graded: a hard link to the course's own file {M04}.ipynb" and sub.text is None


def test_look_alike_and_invisible_names_are_flagged_beside_the_name(course, tmp_path):
    names = ["joe", "\u0458\u043e\u0435", "alice", "alice\u200b", "alice ", "Zoë-Ann O'Brien", "Дмитрий", "\u0430nn"]
    folder = write_tree(tmp_path / "class", {f"{name}/{M04}.ipynb": nb(M04, False) for name in names})
    subs = {s.student: s for s in collect([folder], course)}
    assert set(subs) == set(names)                             # eight people, none merged
    assert "looks like 'joe', another student's name" in subs["\u0458\u043e\u0435"].note
    assert "looks like '\u0458\u043e\u0435'" in subs["joe"].note
    assert "has invisible characters (U+200B)" in subs["alice\u200b"].note
    assert "has a space at its end" in subs["alice "].note
    assert "mixes Cyrillic and Latin letters" in subs["\u0430nn"].note          # alone in the class, still flagged
    assert subs["Zoë-Ann O'Brien"].note is None and subs["Дмитрий"].note is None


def test_a_notebook_over_the_size_limit_is_refused_before_it_is_parsed(course, tmp_path, monkeypatch):
    assert limits.MAX_BYTES >= 10 * max(p.stat().st_size for p in SOLUTIONS.glob("*.ipynb"))   # room for outputs
    folder = write_tree(tmp_path / "class", {f"alice/{M04}.ipynb": nb(M04)})
    size = (folder / "alice" / f"{M04}.ipynb").stat().st_size
    monkeypatch.setattr(limits, "MAX_BYTES", size - 1)
    opened = []
    monkeypatch.setattr(intake.File, "read_bytes", lambda self: opened.append(self) or b"{}")
    sub, = collect([folder], course)
    assert "larger than any notebook of the course" in sub.problem and opened == []     # not even read


# ---------------------------------------------------------------------- intake a class cannot stop (issue 56)
def test_a_path_that_loops_is_a_usage_error_before_anything_is_read(tmp_path, capsys):
    from lesson_tools.grading import command
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    with pytest.raises(UsageError, match="loop.* is a symbolic link that loops back on itself"):
        find([tmp_path / "loop"])
    assert command.main([str(tmp_path / "loop"), "--out", str(tmp_path / "g.csv")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "loops back on itself" in err and "Traceback" not in err
    assert not (tmp_path / "g.csv").exists()


@pytest.mark.parametrize("rel, who", [
    (f"quinn:{canvas_name('whitewendy', 888, 7, 'x')}/{M04}.ipynb", "name:quinn:whitewendy_888_7_x"),  # a ':'
    (f"mallory/{canvas_name('whitewendy', 888, 9, f'{M04}.ipynb')}", "name:mallory"),   # a Canvas name inside
    (f"mallory/{moodle_folder('Vic Victim', 777)}/{M04}.ipynb", "name:mallory"),         # a Moodle folder inside
    (f"mallory/work.zip/{moodle_folder('Vic Victim', 777)}{M04}.ipynb", "name:mallory"),  # in the learner's zip
])
def test_a_platform_name_inside_a_persons_folder_is_theirs_and_flagged(rel, who):
    found = person(at(rel), M04)
    assert found.key == who
    assert (found.claim is not None) == (who == "name:mallory"), found.claim


def learner_zip_bytes(entries):
    """A zip's bytes from [(name, bytes, date_time)]."""
    buffer = io.BytesIO()
    import warnings
    with zipfile.ZipFile(buffer, "w") as zf, warnings.catch_warnings():
        warnings.simplefilter("ignore")                             # a duplicate name: written all the same
        for name, data, when in entries:
            zf.writestr(zipfile.ZipInfo(name, when), data)
    return buffer.getvalue()


def test_a_learners_zip_is_read_once_under_its_limits_before_anything_is_parsed(course, tmp_path, monkeypatch):
    teacher = nbformat.writes(nb(M04)).encode()
    stamp = (2026, 1, 1, 0, 0, 0)
    zips = {"many": [(f"{k}.ipynb", b"{}", stamp) for k in range(5)],
            "big": [(f"{k}.ipynb", b" " * len(teacher), stamp) for k in range(3)],
            "copies": [(f"{M04}.ipynb", b"{}", stamp), (f"{M04}.ipynb", b"not JSON", stamp),
                       (f"{M04}.ipynb", teacher, stamp)]}
    write_tree(tmp_path / "class", {f"{who}/work.zip": learner_zip_bytes(entries) for who, entries in zips.items()})
    monkeypatch.setattr(limits, "MAX_MEMBERS", 4)
    monkeypatch.setattr(limits, "MAX_UNZIPPED_BYTES", 1000 + len(teacher))
    parsed = []
    monkeypatch.setattr(json, "loads", lambda text, _loads=json.loads: parsed.append(text) or _loads(text))
    subs = {s.label: s for s in collect([tmp_path / "class"], course)}
    assert subs["class/many/work.zip"].problem == "not read: the zip holds 5 files, more than 4 (no learner hands in " \
                                                  "that many)"
    assert subs["class/big/work.zip"].problem.startswith("not read: the zip expands to more than 0 MB (counted "
                                                         "while reading it; its directory claims 0 MB)")
    assert not [t for t in parsed if t.strip() == ""]                # nothing of the refused zips was parsed
    copy, = [s for s in subs.values() if s.person.key == "name:copies"]      # the name three times: one file,
    assert copy.problem is None and copy.notebook == M04                     # the last (what unzip keeps)
    assert copy.note.startswith(f"the zip holds 3 entries named '{M04}.ipynb': graded once, the last of them")
    monkeypatch.setattr(limits, "MAX_UNZIP_SECONDS", -1.0)                   # time runs out before the first read
    sub, = [s for s in collect([tmp_path / "class"], course) if s.person.key == "name:copies"]
    assert sub.problem.startswith("not read: reading the zip took more than -1 s of CPU time")


def test_hand_in_time_comes_from_the_platform_never_from_a_date_inside_a_learners_zip(course, tmp_path,
                                                                                       monkeypatch):
    """Alice's zip, handed in 5 days late, dates her notebook 1980; Bob's, on time, dates his 2099; Carol's loose
    file is 5 days late: the penalty follows the dates the platform wrote (the zip's, the file's), never the learner's
    zip tool's."""
    from lesson_tools.grading import grader, late
    from lesson_tools.grading.job import Graded
    from lesson_tools.grading.rlimits import Limits
    teacher = nbformat.writes(nb(M04)).encode()
    due = time.mktime((2026, 12, 1, 12, 0, 0, 0, 0, -1))
    files = {"alice/work.zip": learner_zip_bytes([(f"{M04}.ipynb", teacher, (1980, 1, 1, 0, 0, 0))]),
             "bob/work.zip": learner_zip_bytes([(f"{M04}.ipynb", teacher, (2099, 1, 1, 0, 0, 0))]),
             f"carol/{M04}.ipynb": teacher}
    write_tree(tmp_path / "class", files)
    for rel, when in (("alice/work.zip", due + 5 * 86400), ("bob/work.zip", due - 86400),
                      (f"carol/{M04}.ipynb", due + 5 * 86400)):
        os.utime(tmp_path / "class" / rel, (when, when))

    def passed(tasks, workers):
        for task in tasks:
            yield task, Graded([gradebook.row(task["who"], task["notebook"], task["submission"], c.name, "PASS",
                                              "PASS") for c in task["course_nb"].checks])
    monkeypatch.setattr(grader, "run_local", passed)
    rows = grader.grade([tmp_path / "class"], Limits(salt=1), late=late.parse("50%"), due={M04: due})
    kept = {r["student"]: (r["points"], r["late"]) for r in rows}
    assert kept == {"alice": ("0.5", "late: 50% off"), "bob": ("1", ""), "carol": ("0.5", "late: 50% off")}, kept


def test_a_dry_run_lists_a_notebook_of_the_wrong_type_as_not_graded(tmp_path, capsys):
    from lesson_tools.grading import command
    bad = json.loads(nbformat.writes(nb(M04)))
    next(c for c in bad["cells"] if c["cell_type"] == "code")["source"] = None
    write_tree(tmp_path / "class", {f"ann/{M04}.ipynb": json.dumps(bad).encode(), f"bo/{M04}.ipynb": nb(M04)})
    assert command.main([str(tmp_path / "class"), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "not graded: not a notebook: cell 2 (a code cell): its source is null, not text" in out
    assert f"class/bo/{M04}.ipynb: {M04} (matched by metadata)" in out
