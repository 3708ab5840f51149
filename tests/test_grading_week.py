"""A teacher's week, end to end, on a class with a Canvas half and a Moodle half (issue 59), graded once and reused:
the overrides file beside the class (points set by hand, an extension, an excused notebook, points for work handed in
on paper) applied in every file and page; a Canvas and a Moodle roster merged, one person on both under two ids
named, Canvas's Test Student left out and said; late work under a penalty counted and listed, and --dry-run saying
who is late, by how much and what each would lose; results kept by what was handed in (the same zip under another
name, plus two new files, grades the two; --only changes that person's rows alone); the output folders made; the
learner's own error first on their page.  The cheap cases of each (no kernel) are in tests/test_overrides.py."""
import copy
import csv
import html
import json
import os
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import nbformat
import pytest
from lms_downloads import canvas_name, content, moodle_folder, write_tree

from lesson_tools.build import NOTEBOOKS, SOLUTIONS
from lesson_tools.grading import gradebook
from lesson_tools.grading.late import due_time

M04 = "04_feedback"
DUE_TEXT = "2026-11-30T23:59:00+01:00"
DUE = due_time(DUE_TEXT, "DUE")
DAY = 86400.0
CANVAS_ROSTER = ("Student,ID,SIS User ID,SIS Login ID,Section,Feedback (4567)\n"
                 "    Points Possible,,,,,1\n"
                 "\"Smith, Jane\",12345,S1,jsmith@uni.example,A,\n\"Doe, John\",23456,S2,jdoe,A,\n"
                 "\"Park, Min\",45678,S4,mpark,B,\n"
                 "\"Student, Test\",99999,,,A,\n\"Zero, Zed\",56789,S6,zzero,B,\n")
MOODLE_ROSTER = ("Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
                 "Last modified (submission),Last modified (grade),Feedback comments\n"
                 "Participant 501,Li Wei,lwei@uni.example,Submitted,,1,Yes,-,-,\n"
                 "Participant 502,Ana Lopez,alopez@uni.example,Submitted,,1,Yes,-,-,\n"
                 "Participant 503,Vic Victim,vvictim@uni.example,Submitted,,1,Yes,-,-,\n"
                 "Participant 504,Jane Smith,jsmith@uni.example,No submission,,1,Yes,-,-,\n")
OVERRIDES = f"""
[[points]]
student = "503"
notebook = "{M04}"
check = "lesson_passes"
points = 0.5
reason = "the idea is right, the operator a slip"

[[points]]
student = "Zero, Zed"
notebook = "{M04}"
points = 1
reason = "handed in on paper in class"

[[extension]]
student = "45678"
notebook = "{M04}"
due = 2026-12-03T23:59:00+01:00
reason = "ill, the office's note"

[[excused]]
student = "Ana Lopez"
notebook = "{M04}"
reason = "joined after it was due"
"""


def notebook(kind, who):
    """04 as `who` hands it in: the course's answer ("right"), the `or` mistake, a SyntaxError, or untouched."""
    if kind is None:
        return nbformat.read(str(NOTEBOOKS / f"{M04}.ipynb"), as_version=4)
    nb = copy.deepcopy(nbformat.read(str(SOLUTIONS / f"{M04}.ipynb"), as_version=4))
    cell = next(c for c in nb.cells if c.cell_type == "code" and "def lesson_passes" in c.source)
    cell.source = {"right": cell.source, "or": cell.source.replace(" and ", " or "),
                   "syntax": cell.source.replace(" and ", " and (")}[kind]
    nb.metadata["saved_by"] = who                 # each person's file their own, as every editor leaves it
    return nb


CANVAS = {  # (name in the zip, kind, hand-in time)
    "doejohn": (canvas_name("doejohn", 23456, 2, f"{M04}.ipynb", late=True), "right", DUE + 3600),
    "parkmin": (canvas_name("parkmin", 45678, 4, f"{M04}.ipynb"), "right", DUE + 2 * DAY),   # extended: on time
    "studenttest": (canvas_name("studenttest", 99999, 5, f"{M04}.ipynb"), "right", DUE - DAY),
}
WEEK2 = {   # the second download's two new files
    "smithjane": (canvas_name("smithjane", 12345, 6, f"{M04}.ipynb"), "right", DUE - DAY),
    "doejohn-1": (canvas_name("doejohn", 23456, 7, f"{M04}.ipynb", resubmission=1), "or", DUE - 2 * DAY),
}
MOODLE = {
    "Li Wei": (f"{moodle_folder('Li Wei', 501)}/{M04}.ipynb", "syntax", DUE - DAY),
    "Ana Lopez": (f"{moodle_folder('Ana Lopez', 502)}/{M04}.ipynb", None, DUE - DAY),
    "Vic Victim": (f"{moodle_folder('Vic Victim', 503)}/{M04}.ipynb", "or", DUE + 2.5 * DAY),  # points by hand
}


def canvas_zip(path, entries):
    """Canvas's download: each entry dated as Canvas dates it, its hand-in time."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for who, (name, kind, when) in entries.items():
            zf.writestr(zipfile.ZipInfo(name, time.localtime(when)[:6]), content(notebook(kind, who)))


def arguments(base, *extra, out="out"):
    o = base / out
    return ["canvas", "moodle", "--workers", "2", "--roster", "canvas-roster.csv", "--roster", "moodle-roster.csv",
            "--due", f"{M04}={DUE_TEXT}", "--late-penalty", "10%/day", "--out", str(o / "new" / "gradebook.csv"),
            "--scores", str(o / "scores.csv"), "--canvas", str(o / "canvas.csv"), "--moodle", str(o / "moodle.csv"),
            "--feedback", str(o / "feedback"), "--report", str(o / "report"), *extra]


def grade(base, *extra, out="out"):
    """`lesson-tools grade` on the class as the teacher runs it, from the class's folder (where overrides.toml is
    found without being named)."""
    return subprocess.run([sys.executable, "-m", "lesson_tools", "grade", *arguments(base, *extra, out=out)],
                          cwd=base, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "XDG_CACHE_HOME": str(base / "cache")})


def grade_here(base, *extra, out="out"):
    """The same command run in this process (its start-up paid once): (exit code, stdout, stderr)."""
    import contextlib
    import io
    from unittest import mock

    from lesson_tools.grading import command
    said, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(base), mock.patch.dict(os.environ, {"XDG_CACHE_HOME": str(base / "cache")}), \
            contextlib.redirect_stdout(said), contextlib.redirect_stderr(err):
        code = command.main(arguments(base, *extra, out=out))
    return subprocess.CompletedProcess([], code, said.getvalue(), err.getvalue())


def graded_now(stderr):
    return len(re.findall(r"^\[\d+/\d+\] ", stderr, re.M))


def table(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    base = tmp_path_factory.mktemp("week")
    canvas_zip(base / "canvas" / "submissions.zip", CANVAS)
    write_tree(base / "moodle", {rel: notebook(kind, who) for who, (rel, kind, _) in MOODLE.items()})
    for rel, _, when in MOODLE.values():
        os.utime(base / "moodle" / rel, (when, when))
    (base / "canvas-roster.csv").write_text(CANVAS_ROSTER, encoding="utf-8")
    (base / "moodle-roster.csv").write_text(MOODLE_ROSTER, encoding="utf-8")
    (base / "overrides.toml").write_text(OVERRIDES, encoding="utf-8")
    first = grade(base)
    assert first.returncode == 0, first.stdout + first.stderr
    return base, first


def rows_of(base, out="out"):
    return gradebook.read(base / out / "new" / "gradebook.csv")


def test_the_overrides_reach_every_file_and_page(klass):
    base, first = klass
    rows = {(r["student_id"], r["submission"] == "(set by hand)"): r for r in rows_of(base)}
    vic = rows[("503", False)]                      # late, but points set by hand are the points
    assert (vic["verdict"], vic["points"], vic["late"]) == ("FAIL", "0.5", "3 days late: 30% off")
    assert "the idea is right" in vic["override"]
    paper = rows[("56789", True)]
    assert (paper["verdict"], paper["points"], paper["counted"]) == ("SET BY HAND", "1", "yes")
    ana = rows[("502", True)]
    assert (ana["verdict"], ana["counted"]) == ("EXCUSED", "yes") and rows[("502", False)]["counted"] == ""
    canvas = {r["ID"]: r["Feedback (4567)"] for r in table(base / "out" / "canvas.csv")[1:]}
    assert canvas == {"23456": "0.9", "45678": "1", "12345": "0", "56789": "1"}
    moodle = {r["Identifier"]: r for r in table(base / "out" / "moodle.csv")}
    assert moodle["Participant 502"]["Grade"] == "" and "joined after it was due" in \
        moodle["Participant 502"]["Feedback comments"]
    scores = {r["student_id"]: r for r in table(base / "out" / "scores.csv")}
    assert scores["502"][M04] == "EX" and scores["502"]["possible"] == "0" and "joined after" in \
        scores["502"]["set_by_hand"]
    assert scores["56789"]["total"] == "1" and "on paper" in scores["56789"]["set_by_hand"]
    page = html.unescape((base / "out" / "feedback" / "moodle" / moodle_folder("Vic Victim", 503) /
                          f"{M04}_feedback.html").read_text())
    assert "From your teacher: lesson_passes: set by hand: 0.5 points (the idea is right" in page
    assert "0.5 / 1" in page
    page = html.unescape((base / "out" / "feedback" / "moodle" / moodle_folder("Ana Lopez", 502) /
                          f"{M04}_feedback.html").read_text())
    assert "Excused" in page and "joined after it was due" in page
    report = (base / "out" / "report" / f"{M04}.html").read_text()
    mine = html.unescape(report.split("Who to follow up")[1])
    for said in ("handed in on paper in class", "joined after it was due", "the idea is right", "ill, the office"):
        assert said in mine, said
    figures = json.loads((base / "out" / "report" / "class.json").read_text())["notebooks"][M04]
    assert (figures["set_by_hand"], figures["excused"], figures["extensions"]) == (2, 1, 1)
    assert "overrides: overrides.toml (1 excused, 1 extension, 2 points)" in first.stderr


def test_two_rosters_make_one_class_and_name_one_person_under_two_ids(klass):
    base, first = klass
    rows = rows_of(base)
    assert not [r for r in rows if "not on the roster" in r["note"]]
    nothing = {(r["platform"], r["student_id"]) for r in rows if r["detail"] == "nothing handed in"}
    assert nothing == {("canvas", "12345"), ("moodle", "504"), ("canvas", "56789")}      # (Zed: on paper)
    said = first.stderr
    assert re.search(r"one person\? Smith, Jane \(canvas 12345, jsmith@uni.example\); Jane Smith \(moodle 504, "
                     r"jsmith@uni.example\)", said), said
    assert "left out: 1 file of Canvas's Test Student" in said and "Student, Test, 99999" in said
    assert not [r for r in rows if r["student_id"] == "99999" or "Test" in r["student"]]


def test_late_work_is_counted_listed_and_the_extension_holds(klass):
    base, first = klass
    late = {r["student_id"]: r["late"] for r in rows_of(base) if r["check"]}
    assert late == {"23456": "1 day late: 10% off", "503": "3 days late: 30% off", "45678": "", "501": "", "502": ""}
    figures = json.loads((base / "out" / "report" / "class.json").read_text())["notebooks"][M04]
    assert (figures["late"], figures["late_penalised"]) == (2, 2)
    report = html.unescape((base / "out" / "report" / f"{M04}.html").read_text().split("Who to follow up")[1])
    assert "<td>Vic Victim (503)</td><td>3 days late: 30% off</td>" in report


def test_dry_run_says_who_is_late_by_how_much_and_what_each_would_lose(klass, tmp_path):
    base, _ = klass
    dry = grade_here(base, "--dry-run", out="dry")
    assert dry.returncode == 0, dry.stderr
    late = next(line for line in dry.stdout.splitlines() if line.startswith("late (2): "))
    assert "Vic Victim (503) 04_feedback: 3 days late: 30% off (up to 0.3 of its 1 point)" in late
    assert "doejohn (23456) 04_feedback: 1 day late: 10% off (up to 0.1 of its 1 point)" in late
    assert "  override: 04_feedback: extension to 2026-12-03" in dry.stdout and "parkmin" not in late   # (without
    assert not (base / "dry").exists(), "a dry run wrote a file"                 # it: tests/test_overrides.py)


def test_an_override_naming_no_one_is_refused_by_name_before_anything_is_graded(klass, tmp_path):
    base, _ = klass
    bad = tmp_path / "bad.toml"
    bad.write_text(OVERRIDES.replace('"Ana Lopez"', '"Ana Lopes"').replace('check = "lesson_passes"',
                                                                        'check = "lesson_pases"'))
    refused = grade_here(base, "--overrides", str(bad), "--dry-run", out="refused")
    assert refused.returncode == 2 and "2 overrides cannot be applied (nothing graded)" in refused.stderr
    assert "[[excused]] #1: student = 'Ana Lopes' is no one in the download or on the roster; did you mean " \
           "'Ana Lopez'?" in refused.stderr
    assert "[[points]] #1: check = 'lesson_pases' is not a check of 04_feedback; its checks are lesson_passes" \
           in refused.stderr
    assert "Traceback" not in refused.stderr and not (base / "refused").exists()


def test_the_learners_own_error_comes_first_on_their_page(klass):
    base, _ = klass
    page = html.unescape((base / "out" / "feedback" / "moodle" / moodle_folder("Li Wei", 501) /
                          f"{M04}_feedback.html").read_text())
    said = re.findall(r"<td>(.*?)</td></tr>", page, re.S)[0]
    assert "SyntaxError" in said and said.index("SyntaxError") < said.index("the check cell raised")
    if "withheld" in said:
        assert said.index("SyntaxError") < said.index("withheld")
    row, = [r for r in rows_of(base) if r["student_id"] == "501"]
    assert row["detail"].index("SyntaxError") > row["detail"].index("the check cell raised")   # as the grader said


def test_a_new_download_grades_only_what_is_new_and_only_changes_that_persons_rows(klass):
    """The same Canvas zip saved under another name with two new files: two graded, the rest taken; then --only
    one person (whose file was fixed): one graded, and every file changes in that person's rows alone."""
    base, _ = klass
    (base / "canvas" / "submissions.zip").unlink()
    canvas_zip(base / "canvas" / "submissions_week2.zip", {**CANVAS, **WEEK2})
    week2 = grade_here(base, out="out2")
    assert week2.returncode == 0, week2.stderr
    assert graded_now(week2.stderr) == 2 and "5 submissions taken from the results kept" in week2.stderr
    rows = {r["submission"].split(":")[-1]: r for r in rows_of(base, "out2") if r["check"]}
    assert rows[WEEK2["smithjane"][0]]["verdict"] == "PASS" and rows[WEEK2["doejohn-1"][0]]["verdict"] == "FAIL"
    old = {r["submission"].split(":")[-1]: r for r in rows_of(base) if r["check"]}
    for who, (name, _, _) in CANVAS.items():      # kept results, now under the new zip's name
        if who != "studenttest":
            assert {k: v for k, v in rows[name].items() if k not in ("submission", "attempt", "counted", "note")} \
                == {k: v for k, v in old[name].items() if k not in ("submission", "attempt", "counted", "note")}, who
    before = files(base / "out2")
    fixed = base / "moodle" / MOODLE["Li Wei"][0]
    nbformat.write(notebook("right", "Li Wei"), str(fixed))
    os.utime(fixed, (MOODLE["Li Wei"][2],) * 2)
    only = grade_here(base, "--only", "501", out="out2")
    assert only.returncode == 0, only.stderr
    assert graded_now(only.stderr) == 1 and "6 submissions taken" in only.stderr
    after = files(base / "out2")
    for name in ("new/gradebook.csv", "scores.csv", "canvas.csv", "moodle.csv"):
        old_lines, new_lines = before[name].decode().splitlines(), after[name].decode().splitlines()
        assert len(new_lines) == len(old_lines), name
        changed = [line for line in new_lines if line not in old_lines]
        gone = [line for line in old_lines if line not in new_lines]
        assert all("501" in line or "Li Wei" in line for line in changed + gone), (name, changed, gone)
        assert bool(changed) == (name != "canvas.csv"), (name, changed)      # Li Wei is on Moodle's files only
    assert {k for k in before if before[k] != after.get(k)} <= {"new/gradebook.csv", "scores.csv", "moodle.csv",
                                                               "feedback/moodle_feedback.zip", "report/class.json",
                                                               "report/04_feedback.html"} | {
        k for k in before if "Li Wei" in k}


# ---------------------------------------------------------------------- where grading runs: as a user without root
PRIVATE_INTERPRETER = """set -e
# In a mount namespace of this command's own (nothing changes on the host): the interpreter's folder, when it lies
# under a home only root may enter (pyenv in /root), is shown again under an empty /root; then root's powers go.
python=$(readlink -f "$1")
case "$python" in /root/*)
  rel=${python#/root/}; top=/root/${rel%%/*}
  mount --bind "$top" "$WORK/.interpreter"
  mount -t tmpfs -o mode=755,size=1m tmpfs /root; mkdir "$top"; mount --bind "$WORK/.interpreter" "$top";;
esac
exec setpriv --reuid "$GRADER_UID" --regid "$GRADER_GID" --clear-groups --inh-caps=-all --bounding-set=-all -- "$@"
"""


@pytest.fixture(scope="module")
def grader_user():
    """An unprivileged user made for the test (removed after it), or None where this machine cannot make one."""
    import shutil
    need = [t for t in ("useradd", "userdel", "unshare", "setpriv", "bwrap") if shutil.which(t) is None]
    why = "not root (a user cannot be made)" if os.geteuid() != 0 else f"no {', '.join(need)}" if need else None
    if why:
        if os.environ.get("REQUIRE_SANDBOX") == "1":
            pytest.fail(f"cannot test grading as a user without root: {why}; REQUIRE_SANDBOX=1 says it must run")
        pytest.skip(why)
    import pwd
    name = "lesson-grader-test"
    try:
        pwd.getpwnam(name)
        made = False
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
        made = True
    try:
        yield pwd.getpwnam(name)
    finally:
        if made:
            subprocess.run(["userdel", name], check=False)


def test_a_teacher_without_root_grades_in_the_sandbox(grader_user, tmp_path_factory):
    """The grader run as an unprivileged user (no capabilities, its own uid): the bubblewrap sandbox starts (user
    namespaces), the class is graded with the right verdicts, and every file written is that user's; control groups
    need root or a delegated group, so the caps fall back to per-process limits, as the grader says."""
    import shutil
    import tempfile
    work = Path(tempfile.mkdtemp(prefix="lesson-unprivileged-"))
    try:
        write_tree(work / "class", {f"alice/{M04}.ipynb": notebook("right", "alice")})
        for sub in ("cache", "tmp", "out", ".interpreter"):
            (work / sub).mkdir()
        for path in [work, *work.rglob("*")]:
            os.chown(path, grader_user.pw_uid, grader_user.pw_gid)
        env = {"PATH": os.environ["PATH"], "HOME": str(work), "XDG_CACHE_HOME": str(work / "cache"),
               "TMPDIR": str(work / "tmp"), "LANG": "C.UTF-8", "WORK": str(work),
               "GRADER_UID": str(grader_user.pw_uid), "GRADER_GID": str(grader_user.pw_gid),
               "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory", "GIT_CONFIG_VALUE_0": "*"}
        run = subprocess.run(["unshare", "--mount", "--propagation", "private", "bash", "-c", PRIVATE_INTERPRETER,
                              "--", sys.executable, "-m", "lesson_tools", "grade", "class", "--out",
                              "out/gradebook.csv", "--workers", "1", "-q"],
                             cwd=work, env=env, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stdout + run.stderr
        assert "grading WITHOUT a sandbox" not in run.stderr and "limits: a bubblewrap sandbox" in run.stdout
        rows = {r["student"]: r["verdict"] for r in gradebook.read(work / "out" / "gradebook.csv")}
        assert rows == {"alice": "PASS"}                       # judged: the check ran and compared
        written = [p for p in work.rglob("*") if p.stat().st_uid != grader_user.pw_uid]
        assert not written, written                                 # nothing written as root
        assert (work / "out" / "gradebook.csv").stat().st_uid == grader_user.pw_uid
    finally:
        shutil.rmtree(work, ignore_errors=True)
