"""A class from the learning platforms' downloads, graded end to end with the README's command: a Canvas zip (a
resubmission, a late hand-in, a namesake, a wrong answer, an untouched notebook, a zip handed in, a PDF alone), a
Moodle download in folders (a file named as another student's) and plain folders (a name that holds a new line and
a terminal escape), side by side under one folder.  Every person is one student, identified by what the platform
wrote; everyone has a row in every file; the zip grades as its folder does; the files the platforms import and the
feedback pages are written, hold each person's own work only, and a feedback page is looked at in Chromium.
"""
import copy
import csv
import html
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from lms_downloads import canvas_name, moodle_folder, write_tree, write_zip

from lesson_course import checks
from lesson_tools.build import NOTEBOOKS, ROOT, SOLUTIONS
from lesson_tools.grading import gradebook
from lesson_tools.grading.grader import grade
from lesson_tools.grading.rlimits import Limits

M04 = "04_feedback"
CHECK, = [name for name, spec in checks.REGISTRY.items() if spec.notebook == M04]
POINTS = 4                                           # the teacher's file sets these for the one check
SALT = 36                                            # one run's salt, given again to grade the folder
ARTIFACTS = ROOT / "artifacts" / "browser"


def notebook(teachers=True, wrong=False, copied=True):
    """04 as the teachers wrote it, or the learners' (untouched); `wrong`: `or` for `and`, the same for everyone
    unless not `copied` (then a wrong answer of one's own)."""
    nb = nbformat.read(str((SOLUTIONS if teachers else NOTEBOOKS) / f"{M04}.ipynb"), as_version=4)
    if wrong:
        nb = copy.deepcopy(nb)
        cell = next(c for c in nb.cells if c.cell_type == "code" and f"def {CHECK}" in c.source)
        assert " and " in cell.source
        cell.source = cell.source.replace(" and ", " or ") + ("" if copied else "\n# mine")
    return nb


def zipped(entries):
    """A zip's bytes from {member: notebook node or bytes}."""
    import io
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, nb in entries.items():
            zf.writestr(name, nb if isinstance(nb, bytes) else nbformat.writes(nb))
    return buffer.getvalue()


PDF = b"%PDF-1.4 \xff\xfe a scan of my work"
INNER = canvas_name("kimjisoo", 10012, 50012, "mywork.zip")
CANVAS = {   # file name in the zip: (notebook, expected verdict)
    canvas_name("smithjane", 12345, 67890, f"{M04}.ipynb"): (notebook(False), "NOT ATTEMPTED"),
    canvas_name("smithjane", 12345, 67891, f"{M04}.ipynb", resubmission=1): (notebook(), "PASS"),
    canvas_name("smithjane", 22222, 67892, f"{M04}.ipynb"): (notebook(wrong=True), "FAIL"),       # a namesake
    canvas_name("doejohn", 23456, 67893, "my homework.ipynb", late=True): (notebook(), "PASS"),
    canvas_name("parkmin", 10013, 50013, "homework.pdf"): (PDF, "NOT GRADED"),            # nothing gradable
}
IN_THE_ZIP = {f"mywork/{M04}.ipynb": (notebook(), "PASS"), "mywork/report.pdf": (PDF, "NOT GRADED")}
MALLORY, VIC = moodle_folder("Mallory Mole", 555), moodle_folder("Vic Victim", 777)
MOODLE = {
    f"{moodle_folder('Jane Smith', 501)}/{M04}.ipynb": (notebook(), "PASS"),
    f"{moodle_folder('Li Wei', 502)}/{M04} (1).ipynb": (notebook(False), "NOT ATTEMPTED"),
    f"{VIC}/{M04}.ipynb": (notebook(), "PASS"),
    f"{MALLORY}/{VIC}{M04}.ipynb": (notebook(wrong=True, copied=False), "FAIL"),    # named as Vic's, and later
}
FORGER = "ezra\nrows: 99 PASS\r\x1b[2K\u202e"                      # a name that would forge lines on the terminal
PLAIN = {f"alice/{M04}.ipynb": (notebook(wrong=True), "FAIL"), f"{FORGER}/{M04}.ipynb": (notebook(), "PASS")}


@pytest.fixture(scope="module")
def downloads(tmp_path_factory):
    """The class as downloaded (dl/: canvas.zip, moodle/, alice/) and the same unzipped (unzipped/)."""
    base = tmp_path_factory.mktemp("lms")
    inner = zipped({name: nb for name, (nb, _) in IN_THE_ZIP.items()})
    write_zip(base / "dl" / "canvas.zip", {name: nb for name, (nb, _) in CANVAS.items()} | {INNER: inner})
    for root in ("dl", "unzipped"):
        write_tree(base / root / "moodle", {rel: nb for rel, (nb, _) in MOODLE.items()})
        write_tree(base / root, {rel: nb for rel, (nb, _) in PLAIN.items()})          # a folder per student
    write_tree(base / "unzipped" / "canvas", {name: nb for name, (nb, _) in CANVAS.items()} | {INNER: inner})
    for folder in ("dl", "unzipped"):                              # Mallory's file is the later one
        later = base / folder / "moodle" / MALLORY / f"{VIC}{M04}.ipynb"
        os.utime(later, (later.stat().st_mtime + 60,) * 2)
    (base / "points.toml").write_text(f"[points]\n{CHECK} = {POINTS}\n")
    return base


@pytest.fixture(scope="module")
def graded(downloads):
    """The README's command on dl/, with every output: (process, the output folder)."""
    out = downloads / "out"
    out.mkdir()
    before = sorted(p.relative_to(downloads) for p in (downloads / "dl").rglob("*"))
    proc = subprocess.run([sys.executable, "-m", "lesson_tools", "grade", str(downloads / "dl"), "--workers", "2",
                           "--points", str(downloads / "points.toml"), "--out", str(out / "gradebook.csv"),
                           "--canvas", str(out / "canvas.csv"), "--canvas-assignment", "DeLaN feedback (4567)",
                           "--moodle", str(out / "moodle.csv"), "--scores", str(out / "scores.csv"),
                           "--feedback", str(out / "feedback"), "--report", str(out / "report"), "--salt", str(SALT),
                           "-q"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(p.relative_to(downloads) for p in (downloads / "dl").rglob("*")) == before, "wrote beside them"
    return proc, out


def table(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_each_person_is_one_student_with_the_verdicts_their_files_earn(graded):
    rows = gradebook.read(graded[1] / "gradebook.csv")
    expected = {name.split("/")[-1]: verdict for part in (CANVAS, MOODLE, PLAIN, IN_THE_ZIP)
                for name, (_, verdict) in part.items()}
    assert {r["submission"].rsplit("/", 1)[-1].split(":")[-1]: r["verdict"] for r in rows} == expected
    people = {(r["platform"], r["student_id"]): r["student"] for r in rows}
    assert people == {("canvas", "12345"): "smithjane", ("canvas", "22222"): "smithjane",
                      ("canvas", "23456"): "doejohn", ("canvas", "10012"): "kimjisoo", ("canvas", "10013"): "parkmin",
                      ("moodle", "501"): "Jane Smith", ("moodle", "502"): "Li Wei", ("moodle", "555"): "Mallory Mole",
                      ("moodle", "777"): "Vic Victim", ("folder", "alice"): "alice",
                      ("folder", gradebook.shown(FORGER)): gradebook.shown(FORGER)}
    assert {r["student"] for r in rows}.isdisjoint({"canvas", "moodle", "dl"})
    said = (graded[0].stdout + graded[0].stderr).splitlines()
    assert not [line for line in said if line.startswith("rows: 99")] and gradebook.shown(FORGER) in graded[0].stdout
    mallory = [r for r in rows if r["student_id"] == "555"]
    assert {r["verdict"] for r in mallory} == {"FAIL"} and all("claims to be Moodle participant 777's" in r["note"]
                                                               for r in mallory), mallory
    assert {r["late"] for r in rows if r["student_id"] == "23456"} == {"late"}
    assert {r["late"] for r in rows if r["student_id"] != "23456"} == {""}
    copied = [r for r in rows if "identical work handed in by two people" in r["note"]]  # the two wrong answers' file
    assert {(r["platform"], r["student_id"]) for r in copied} == {("canvas", "22222"), ("folder", "alice")}
    for r in (r for r in rows if r["check"]):                     # (rows of files not graded have no points)
        assert r["max_points"] == str(POINTS) and r["points"] == (str(POINTS) if r["verdict"] == "PASS" else "0")
    counted = {r["submission"].split(":")[-1] for r in rows if r["counted"] == "yes" and r["student_id"] == "12345"}
    assert counted == {canvas_name("smithjane", 12345, 67891, f"{M04}.ipynb", resubmission=1)}
    summary = graded[0].stdout
    assert (f"smithjane (12345): {POINTS} of {POINTS} points ({M04} {POINTS}/{POINTS}, best of 2: dl/canvas.zip:"
            f"{canvas_name('smithjane', 12345, 67891, f'{M04}.ipynb', resubmission=1)})") in summary
    assert f"doejohn (23456): {POINTS} of {POINTS} points ({M04} {POINTS}/{POINTS}); late: {M04}" in summary
    assert ("parkmin (10013): 0 of 0 points; nothing of theirs could be graded (parkmin_10013_50013_homework.pdf: "
            "not a notebook: a binary file)") in summary
    assert f"kimjisoo (10012): {POINTS} of {POINTS} points ({M04} {POINTS}/{POINTS})" in summary


def test_the_platforms_files_hold_their_own_people_and_the_points(graded):
    out = graded[1]
    canvas = table(out / "canvas.csv")
    assert list(canvas[0]) == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "DeLaN feedback (4567)"]
    assert canvas[0]["Student"] == "Points Possible" and canvas[0]["DeLaN feedback (4567)"] == str(POINTS)
    assert {r["ID"]: r["DeLaN feedback (4567)"] for r in canvas[1:]} == {
        "12345": str(POINTS), "22222": "0", "23456": str(POINTS), "10012": str(POINTS), "10013": "0"}
    moodle = table(out / "moodle.csv")
    assert {r["Identifier"]: (r["Full name"], r["Grade"], r["Maximum Grade"]) for r in moodle} == {
        "Participant 501": ("Jane Smith", str(POINTS), str(POINTS)), "Participant 502": ("Li Wei", "0", str(POINTS)),
        "Participant 555": ("Mallory Mole", "0", str(POINTS)),
        "Participant 777": ("Vic Victim", str(POINTS), str(POINTS))}
    scores = {r["student_id"]: r for r in table(out / "scores.csv")}
    assert set(scores) == {"12345", "22222", "23456", "10012", "10013", "501", "502", "555", "777", "alice",
                           gradebook.shown(FORGER)}
    assert scores["12345"]["total"] == str(POINTS) and scores["alice"]["total"] == "0"
    assert scores["10013"]["total"] == "0" and "not a notebook: a binary file" in scores["10013"]["ungraded"]
    assert ("left out, without a Canvas user id in their file names: Jane Smith, Li Wei, Mallory Mole"
            in graded[0].stdout)


def test_a_zip_grades_as_its_folder_does(downloads, graded):
    limits = Limits(salt=SALT)
    from lesson_tools.grading import points
    unzipped = grade([downloads / "unzipped"], limits, workers=2, points=points.load(downloads / "points.toml"))
    zipped = gradebook.read(graded[1] / "gradebook.csv")

    def key(rows, raw):             # the submissions' paths aside, in their column and in the notes that name them
        def where(text):
            return (gradebook.shown(text) if raw else text).replace("dl/canvas.zip:", "canvas/").replace(
                "unzipped/canvas/", "canvas/").replace("unzipped/", "").replace("dl/", "")
        return sorted(tuple((k, where(v)) for k, v in r.items() if k != "submission") for r in rows)
    assert key(unzipped, raw=True) == key(zipped, raw=False)


def test_feedback_pages_are_named_for_bulk_upload_and_hold_the_learners_code(graded):
    folder = graded[1] / "feedback"
    with zipfile.ZipFile(folder / "canvas_feedback.zip") as zf:
        names = sorted(zf.namelist())
    assert len(names) == len(CANVAS) + len(IN_THE_ZIP)
    assert sum(n.startswith("kimjisoo_10012_50012_") for n in names) == len(IN_THE_ZIP)   # the zip's files, its prefix
    for name in CANVAS:             # each page starts with its download's Canvas prefix, which the upload matches
        prefix = "_".join(name.split("_")[:4 if "_LATE_" in name else 3])
        assert sum(n.startswith(prefix + "_") for n in names) >= 1, (prefix, names)
    with zipfile.ZipFile(folder / "moodle_feedback.zip") as zf:
        assert sorted(n.split("/")[0] for n in zf.namelist()) == sorted(rel.split("/")[0] for rel in MOODLE)
        assert [n for n in zf.namelist() if n.startswith(VIC)] == [f"{VIC}/{M04}_feedback.html"]   # Vic's alone
    page = (folder / "alice" / f"{M04}_feedback.html").read_text()
    assert f"0 of {POINTS} points" in page and "FAIL" in page and "Hint:" in page and " or " in page


def test_a_learners_page_shows_their_own_work_and_nothing_of_anyone_else(graded):
    """No other student's name or id, no teacher's path, no note meant for the teacher, no instruction for the grader;
    the name of the file as the learner handed it in."""
    pages = sorted((graded[1] / "feedback").rglob("*.html"))
    names = {"smithjane", "doejohn", "kimjisoo", "parkmin", "Jane Smith", "Li Wei", "Mallory Mole", "Vic Victim",
             "alice", "ezra", "12345", "22222", "23456", "10012", "10013"}
    assert len(pages) == len(CANVAS) + len(MOODLE) + len(PLAIN) + len(IN_THE_ZIP)
    for path in pages:
        text = html.unescape(path.read_text(encoding="utf-8"))
        heading = text.split("<h1>", 1)[1].split("</h1>", 1)[0]
        own = {n for n in names if n in heading}
        assert own, heading
        file = text.split("your file <code>", 1)[1].split("</code>", 1)[0]       # named by the learner
        others = {n for n in names if n in text.replace(heading, "").replace(file, "")} - own
        assert not others, (path, others)
        for forbidden in ("dl/", str(graded[1].parent), "canvas.zip", "note:", "identical work", "unzip", "--",
                          "\x1b", "\u202e"):
            assert forbidden not in text, (path, forbidden)
    page = graded[1] / "feedback" / "canvas" / canvas_name("doejohn", 23456, 67893, "my homework_feedback.html", True)
    assert "your file <code>my homework.ipynb</code>" in page.read_text()


def test_vic_keeps_his_points_under_either_count_and_mallory_is_herself(downloads, tmp_path):
    """The file Mallory named as Vic's, later than his: --count latest still counts Vic's own."""
    out = tmp_path / "latest"
    proc = subprocess.run([sys.executable, "-m", "lesson_tools", "grade", str(downloads / "dl" / "moodle"), "--count",
                           "latest", "--moodle", str(out) + ".csv", "--feedback", str(out), "--salt", str(SALT), "-q"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    grades = {r["Identifier"]: r["Grade"] for r in table(str(out) + ".csv")}
    assert grades["Participant 777"] == "1" and grades["Participant 555"] == "0", grades
    assert (out / "moodle" / MALLORY / f"{VIC}{M04}_feedback.html").is_file()
    assert sorted(p.name for p in (out / "moodle" / VIC).iterdir()) == [f"{M04}_feedback.html"]
    assert "claims to be Moodle participant 777's" in proc.stdout


def test_the_class_report_counts_what_the_gradebook_holds(graded):
    """The report of this class (its pages are looked at in tests/test_report_browser.py): the figures are the
    gradebook's, the `or` mistake is the hint that fired, the teachers' short answer is common, not flagged."""
    from collections import Counter

    from lesson_tools.grading.report import hint_of
    proc, out = graded
    rows = gradebook.read(out / "gradebook.csv")
    figures = json.loads((out / "report" / "class.json").read_text())
    nb = figures["notebooks"][M04]
    counted = [r for r in rows if r["counted"] == "yes" and r["check"]]
    assert nb["people"] == len(counted) and sum(nb["histogram"]["people"]) == len(counted)
    assert nb["checks"][CHECK]["verdicts"] == dict(Counter(r["verdict"] for r in counted))
    fired = Counter(hint_of(CHECK, r["detail"]) for r in counted if r["verdict"] == "FAIL")
    assert [(m["hint_key"], m["people"]) for m in nb["mistakes"]] == [(k, n) for (k, _), n in fired.most_common()]
    assert nb["mistakes"][0]["hint_key"] == "or" and nb["mistakes"][0]["people"] == 3    # alice, 22222, Mallory
    assert (nb["late"], nb["identical_work"], figures["nothing_gradable"]) == (1, 2, 1)  # doejohn; the copy; parkmin
    common, = nb["common_answers"]
    assert common["people"] == Counter(r["verdict"] for r in counted)["PASS"]
    assert f"report: {out / 'report'} ({M04}.html, class.json)" in proc.stdout
    page = (out / "report" / f"{M04}.html").read_text()
    mine = page.split("Who to follow up")[1]
    assert "parkmin (10013)" in mine and "claims to be Moodle participant 777" in mine    # the gradebook's notes too


def _chromium():
    for path in ("/usr/bin/chromium", os.environ.get("CHROMIUM")):
        if path and os.path.isfile(path):
            return path
    return None


def test_a_feedback_page_in_chromium_is_readable_and_accessible(graded):
    """The page a student is sent, screenshotted (artifacts/browser/feedback-*.png) and checked by axe-core."""
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    axe = Path(os.environ.get("AXE_CORE") or ROOT / "build" / "npm" / "node_modules" / "axe-core" / "axe.min.js")
    exe = _chromium()
    if exe is None or not axe.is_file():
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(f"no chromium or no axe-core at {axe}; REQUIRE_BROWSER=1 says the browser tests must run")
        pytest.skip("no chromium or axe-core")
    folder = graded[1] / "feedback"
    pages = {"resubmitted": folder / "canvas" / canvas_name("smithjane", 12345, 67890, f"{M04}_feedback.html"),
             "wrong": folder / "alice" / f"{M04}_feedback.html"}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            context = browser.new_context(viewport={"width": 1000, "height": 800}, bypass_csp=True)
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            for name, path in pages.items():
                page.goto(path.as_uri())
                page.screenshot(path=str(ARTIFACTS / f"feedback-{name}.png"), full_page=True)
                assert page.locator("h1").inner_text().startswith(f"{M04}: feedback for ")
                cells = page.locator("tbody tr td").all_inner_texts()
                assert cells[0] == CHECK and cells[2] == f"0 / {POINTS}", cells
                other = page.get_by_text("your score counts another of your submissions").count()
                assert other == (name == "resubmitted"), (name, other)
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= 1000, f"the page is {width} px wide in a 1000 px window"
                page.add_script_tag(path=str(axe))
                result = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']}))"
                                       ".violations.map(v => [v.id, v.impact, v.help])")
                (ARTIFACTS / f"feedback-{name}-axe.json").write_text(json.dumps(result, indent=1))
                assert not [v for v in result if v[1] in ("critical", "serious")], result
            assert not errors, errors
        finally:
            browser.close()
