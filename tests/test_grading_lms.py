"""A class from the learning platforms' downloads, graded end to end with the README's command: a Canvas zip (a
resubmission, a late hand-in, a namesake, a wrong answer, an untouched notebook), a Moodle download in folders and a
plain folder, side by side under one folder.  Every person is one student, the zip grades as its folder does, the
files the platforms import and the feedback pages are written, and a feedback page is looked at in Chromium.
"""
import copy
import csv
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from lesson_lib.course import checks
from lesson_tools.build import NOTEBOOKS, ROOT, SOLUTIONS
from lesson_tools.grading import gradebook
from lesson_tools.grading.command import grade
from lesson_tools.grading.rlimits import Limits
from lms_downloads import canvas_name, moodle_folder, write_tree, write_zip

M04 = "04_feedback"
CHECK, = [name for name, spec in checks.REGISTRY.items() if spec.notebook == M04]
POINTS = 4                                           # the teacher's file sets these for the one check
SALT = 36                                            # one run's salt, given again to grade the folder
ARTIFACTS = ROOT / "artifacts" / "browser"


def notebook(teachers=True, wrong=False):
    nb = nbformat.read(str((SOLUTIONS if teachers else NOTEBOOKS) / f"{M04}.ipynb"), as_version=4)
    if wrong:
        nb = copy.deepcopy(nb)
        cell = next(c for c in nb.cells if c.cell_type == "code" and f"def {CHECK}" in c.source)
        assert " and " in cell.source
        cell.source = cell.source.replace(" and ", " or ")
    return nb


CANVAS = {   # file name in the zip: (notebook, expected verdict)
    canvas_name("smithjane", 12345, 67890, f"{M04}.ipynb"): (notebook(False), "NOT ATTEMPTED"),
    canvas_name("smithjane", 12345, 67891, f"{M04}.ipynb", resubmission=1): (notebook(), "PASS"),
    canvas_name("smithjane", 22222, 67892, f"{M04}.ipynb"): (notebook(wrong=True), "FAIL"),       # a namesake
    canvas_name("doejohn", 23456, 67893, "my homework.ipynb", late=True): (notebook(), "PASS"),
}
MOODLE = {
    f"{moodle_folder('Jane Smith', 501)}/{M04}.ipynb": (notebook(), "PASS"),
    f"{moodle_folder('Li Wei', 502)}/{M04} (1).ipynb": (notebook(False), "NOT ATTEMPTED"),
}
PLAIN = {f"alice/{M04}.ipynb": (notebook(wrong=True), "FAIL")}


@pytest.fixture(scope="module")
def downloads(tmp_path_factory):
    """The class as downloaded (dl/: canvas.zip, moodle/, alice/) and the same unzipped (unzipped/)."""
    base = tmp_path_factory.mktemp("lms")
    write_zip(base / "dl" / "canvas.zip", {name: nb for name, (nb, _) in CANVAS.items()})
    for root in ("dl", "unzipped"):
        write_tree(base / root / "moodle", {rel: nb for rel, (nb, _) in MOODLE.items()})
        write_tree(base / root, {rel: nb for rel, (nb, _) in PLAIN.items()})          # a folder per student
    write_tree(base / "unzipped" / "canvas", {name: nb for name, (nb, _) in CANVAS.items()})
    (base / "points.toml").write_text(f"[points]\n{CHECK} = {POINTS}\n")
    return base


@pytest.fixture(scope="module")
def graded(downloads):
    """The README's command on dl/, with every output: (process, the output folder)."""
    out = downloads / "out"
    out.mkdir()
    before = sorted(p.relative_to(downloads) for p in (downloads / "dl").rglob("*"))
    proc = subprocess.run([sys.executable, "-m", "lesson_tools.grade", str(downloads / "dl"), "--workers", "2",
                           "--points", str(downloads / "points.toml"), "--out", str(out / "gradebook.csv"),
                           "--canvas", str(out / "canvas.csv"), "--canvas-assignment", "DeLaN feedback (4567)",
                           "--moodle", str(out / "moodle.csv"), "--scores", str(out / "scores.csv"),
                           "--feedback", str(out / "feedback"), "--salt", str(SALT), "-q"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(p.relative_to(downloads) for p in (downloads / "dl").rglob("*")) == before, "wrote beside them"
    return proc, out


def table(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_each_person_is_one_student_with_the_verdicts_their_files_earn(graded):
    rows = gradebook.read(graded[1] / "gradebook.csv")
    expected = {name.split("/")[-1]: verdict for part in (CANVAS, MOODLE, PLAIN) for name, (_, verdict) in part.items()}
    assert {r["submission"].rsplit("/", 1)[-1].split(":")[-1]: r["verdict"] for r in rows} == expected
    people = {(r["platform"], r["student_id"]): r["student"] for r in rows}
    assert people == {("canvas", "12345"): "smithjane", ("canvas", "22222"): "smithjane",
                      ("canvas", "23456"): "doejohn", ("moodle", "501"): "Jane Smith", ("moodle", "502"): "Li Wei",
                      ("folder", "alice"): "alice"}
    assert {r["student"] for r in rows}.isdisjoint({"canvas", "moodle", "dl"})
    assert {r["late"] for r in rows if r["student_id"] == "23456"} == {"late"}
    assert {r["late"] for r in rows if r["student_id"] != "23456"} == {""}
    copied = [r for r in rows if "the same code, cell for cell, as" in r["detail"]]     # the two wrong answers
    assert {(r["platform"], r["student_id"]) for r in copied} == {("canvas", "22222"), ("folder", "alice")}
    for r in rows:
        assert r["max_points"] == str(POINTS) and r["points"] == (str(POINTS) if r["verdict"] == "PASS" else "0")
    counted = {r["submission"].split(":")[-1] for r in rows if r["counted"] == "yes" and r["student_id"] == "12345"}
    assert counted == {canvas_name("smithjane", 12345, 67891, f"{M04}.ipynb", resubmission=1)}
    summary = graded[0].stdout
    assert (f"smithjane (12345): {POINTS} of {POINTS} points ({M04} {POINTS}/{POINTS}, best of 2: dl/canvas.zip:"
            f"{canvas_name('smithjane', 12345, 67891, f'{M04}.ipynb', resubmission=1)})") in summary
    assert f"doejohn (23456): {POINTS} of {POINTS} points ({M04} {POINTS}/{POINTS}); late: {M04}" in summary


def test_the_platforms_files_hold_their_own_people_and_the_points(graded):
    out = graded[1]
    canvas = table(out / "canvas.csv")
    assert list(canvas[0]) == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "DeLaN feedback (4567)"]
    assert canvas[0]["Student"] == "Points Possible" and canvas[0]["DeLaN feedback (4567)"] == str(POINTS)
    assert {r["ID"]: r["DeLaN feedback (4567)"] for r in canvas[1:]} == {"12345": str(POINTS), "22222": "0",
                                                                          "23456": str(POINTS)}
    moodle = table(out / "moodle.csv")
    assert {r["Identifier"]: (r["Full name"], r["Grade"], r["Maximum Grade"]) for r in moodle} == {
        "Participant 501": ("Jane Smith", str(POINTS), str(POINTS)), "Participant 502": ("Li Wei", "0", str(POINTS))}
    scores = {r["student_id"]: r for r in table(out / "scores.csv")}
    assert set(scores) == {"12345", "22222", "23456", "501", "502", "alice"}
    assert scores["12345"]["total"] == str(POINTS) and scores["alice"]["total"] == "0"
    assert "left out, without a Canvas user id in their file names: Jane Smith, Li Wei, alice" in graded[0].stdout


def test_a_zip_grades_as_its_folder_does(downloads, graded):
    limits = Limits(salt=SALT)
    from lesson_tools.grading import points
    unzipped = grade([downloads / "unzipped"], limits, workers=2, points=points.load(downloads / "points.toml"))
    zipped = gradebook.read(graded[1] / "gradebook.csv")

    def key(rows):                  # the submissions' paths aside, in their column and in the notes that name them
        def where(text):
            return text.replace("dl/canvas.zip:", "canvas/").replace("unzipped/canvas/", "canvas/").replace(
                "unzipped/", "").replace("dl/", "")
        return sorted(tuple((k, where(v)) for k, v in r.items() if k != "submission") for r in rows)
    assert key(unzipped) == key(zipped)


def test_feedback_pages_are_named_for_bulk_upload_and_hold_the_learners_code(graded):
    folder = graded[1] / "feedback"
    with zipfile.ZipFile(folder / "canvas_feedback.zip") as zf:
        names = sorted(zf.namelist())
    assert len(names) == len(CANVAS)
    for name in CANVAS:             # each page starts with its download's Canvas prefix, which the upload matches
        prefix = "_".join(name.split("_")[:4 if "_LATE_" in name else 3])
        assert sum(n.startswith(prefix + "_") for n in names) >= 1, (prefix, names)
    with zipfile.ZipFile(folder / "moodle_feedback.zip") as zf:
        assert sorted(n.split("/")[0] for n in zf.namelist()) == sorted(rel.split("/")[0] for rel in MOODLE)
    page = (folder / "alice" / f"{M04}_feedback.html").read_text()
    assert f"0 of {POINTS} points" in page and "FAIL" in page and "Hint:" in page and " or " in page


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
                other = page.get_by_text("your score counts another submission").count()
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
