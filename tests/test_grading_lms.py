"""A class from the learning platforms' downloads, graded end to end with the README's command: a Canvas zip (a
resubmission, a late hand-in, a namesake, a wrong answer, an untouched notebook, a zip handed in, a PDF alone), a
Moodle download in folders (a file named as another student's) and plain folders (a name that holds a new line and
a terminal escape), given as three PATHs.  Every person is one student, identified by what the platform wrote;
everyone has a row in every file; the zip grades as its folder does; the files the platforms import and the
feedback pages are written, hold each person's own work only, and a feedback page is looked at in Chromium.

The class also holds what broke intake before (issue 56): an answer that raises with a lone surrogate in its
message, a lone surrogate in a cell's source and a folder name that is not UTF-8 (one notebook, graded with --keep),
code cells whose source is a number, null or an object, a Moodle full name that ends like another participant's id,
a student's file and a learner's zip entry named as a classmate's platform file, a ':' in a folder name, a zip
holding its notebook three times, and a zip bomb.
"""
import copy
import csv
import html
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from lms_downloads import canvas_name, moodle_folder, write_tree, write_zip

from lesson_course import checks
from lesson_tools.build import NOTEBOOKS, ROOT, SOLUTIONS
from lesson_tools.grading import gradebook, limits
from lesson_tools.grading.grader import grade
from lesson_tools.grading.rlimits import Limits
from lesson_tools.grading.text import decoded

M04 = "04_feedback"
CHECK, = [name for name, spec in checks.REGISTRY.items() if spec.notebook == M04]
POINTS = 4                                           # the teacher's file sets these for the one check
SALT = 36                                            # one run's salt, given again to grade the folder
ARTIFACTS = ROOT / "artifacts" / "browser"


def notebook(teachers=True, wrong=False, copied=True, mine="mine"):
    """04 as the teachers wrote it, or the learners' (untouched); `wrong`: `or` for `and`, the same for everyone
    unless not `copied` (then a wrong answer of one's own, told apart by the comment `mine`)."""
    nb = nbformat.read(str((SOLUTIONS if teachers else NOTEBOOKS) / f"{M04}.ipynb"), as_version=4)
    if wrong:
        nb = copy.deepcopy(nb)
        cell = next(c for c in nb.cells if c.cell_type == "code" and f"def {CHECK}" in c.source)
        assert " and " in cell.source
        cell.source = cell.source.replace(" and ", " or ") + ("" if copied else f"\n# {mine}")
    return nb


def zipped(entries, copies=()):
    """A zip's bytes from {member: notebook node or bytes}; each name in `copies` written COPIES times."""
    import io
    import warnings
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf, warnings.catch_warnings():
        warnings.simplefilter("ignore")                   # zipfile warns of a duplicate name, and writes it
        for name, nb in entries.items():
            for _ in range(COPIES if name in copies else 1):
                zf.writestr(name, nb if isinstance(nb, bytes) else nbformat.writes(nb))
    return buffer.getvalue()


def raising():
    """04 whose answer raises ValueError('x' + chr(0xd800)), with a lone surrogate in a cell's source, as JSON bytes
    (JSON's "\\ud800")."""
    nb = copy.deepcopy(notebook())
    cell = next(c for c in nb.cells if c.cell_type == "code" and f"def {CHECK}" in c.source)
    cell.source = (f"def {CHECK}(max_error, min_eig):\n    # a lone surrogate: \ud800\n"
                   f"    raise ValueError('x' + chr(0xd800))\n")
    return json.dumps(nb).encode()                      # (ensure_ascii: the surrogate as JSON's escape)


def wrong_typed(value):
    """04 with its first code cell's source `value` (a number, null, an object): JSON bytes."""
    nb = json.loads(nbformat.writes(notebook()))
    next(c for c in nb["cells"] if c["cell_type"] == "code")["source"] = value
    return json.dumps(nb).encode()


def bomb(entries=6):
    """A zip of `entries` bzip2 entries, each MAX_BYTES of spaces (each under the per-file limit; together past
    what a learner's zip may expand to)."""
    import io
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_BZIP2) as zf:
        for k in range(entries):
            zf.writestr(f"spaces{k}.ipynb", b" " * limits.MAX_BYTES)
    return buffer.getvalue()


PDF = b"%PDF-1.4 \xff\xfe a scan of my work"
INNER = canvas_name("kimjisoo", 10012, 50012, "mywork.zip")
WENDY, XENA = canvas_name("whitewendy", 888, 67894, f"{M04}.ipynb"), moodle_folder("Xena Xu", 999)
ZOE = os.fsdecode(b"zo\xffe")                           # a folder name that is not UTF-8
COLON = f"quinn:{canvas_name('whitewendy', 888, 7, 'x')}"    # a ':' in a folder name
CANVAS = {   # file name in the zip: (notebook, expected verdict)
    canvas_name("smithjane", 12345, 67890, f"{M04}.ipynb"): (notebook(False), "NOT ATTEMPTED"),
    canvas_name("smithjane", 12345, 67891, f"{M04}.ipynb", resubmission=1): (notebook(), "PASS"),
    canvas_name("smithjane", 22222, 67892, f"{M04}.ipynb"): (notebook(wrong=True), "FAIL"),       # a namesake
    canvas_name("doejohn", 23456, 67893, "my homework.ipynb", late=True): (notebook(), "PASS"),
    canvas_name("parkmin", 10013, 50013, "homework.pdf"): (PDF, "NOT GRADED"),            # nothing gradable
    WENDY: (notebook(), "PASS"),
    **{canvas_name("typoty", 10020 + k, 50020 + k, f"{M04}.ipynb"): (wrong_typed(v), "NOT GRADED")
       for k, v in enumerate((5, None, {"text": "x"}))},                                  # a source of the wrong type
    canvas_name("bomberbo", 10030, 50030, "work.zip"): (bomb(), "NOT GRADED"),           # a zip bomb
}
IN_THE_ZIP = {f"mywork/{M04}.ipynb": (notebook(), "PASS"), "mywork/report.pdf": (PDF, "NOT GRADED"),
              f"{XENA}{M04}.ipynb": (notebook(wrong=True, copied=False, mine="kim"), "FAIL")}   # named as Xena's
COPIES = 3                                          # mywork/04 is in the zip this many times: graded once
MALLORY, VIC = moodle_folder("Mallory Mole", 555), moodle_folder("Vic Victim", 777)
MAL = moodle_folder("Mal Ory_777_assignsubmission_file", 556)     # a full name that ends like Vic's id
MOODLE = {
    f"{moodle_folder('Jane Smith', 501)}/{M04}.ipynb": (notebook(), "PASS"),
    f"{moodle_folder('Li Wei', 502)}/{M04} (1).ipynb": (notebook(False), "NOT ATTEMPTED"),
    f"{VIC}/{M04}.ipynb": (notebook(), "PASS"),
    f"{MALLORY}/{VIC}{M04}.ipynb": (notebook(wrong=True, copied=False), "FAIL"),    # named as Vic's, and later
    f"{MAL}/{M04}.ipynb": (notebook(wrong=True, copied=False, mine="mal"), "FAIL"),  # later than Vic's too
    f"{XENA}/{M04}.ipynb": (notebook(), "PASS"),
}
FORGER = "ezra\nrows: 99 PASS\r\x1b[2K\u202e"                      # a name that would forge lines on the terminal
PLAIN = {f"alice/{M04}.ipynb": (notebook(wrong=True), "FAIL"), f"{FORGER}/{M04}.ipynb": (notebook(), "PASS"),
         f"mallory/{canvas_name('whitewendy', 888, 99999, f'{M04}.ipynb')}": (
             notebook(wrong=True, copied=False, mine="mallory"), "FAIL"),                 # named as Wendy's, later
         f"{ZOE}/{M04}.ipynb": (raising(), "FAIL"), f"{COLON}/{M04}.ipynb": (PDF, "NOT GRADED")}
LATER = [f"moodle/{MALLORY}/{VIC}{M04}.ipynb", f"moodle/{MAL}/{M04}.ipynb",
         f"folders/mallory/{canvas_name('whitewendy', 888, 99999, f'{M04}.ipynb')}"]


def paths(base, root="dl"):
    """The three PATHs of the class: Canvas's zip (or its folder, unzipped), Moodle's download, the plain folders."""
    return [str(base / root / ("canvas.zip" if root == "dl" else "canvas")), str(base / root / "moodle"),
            str(base / root / "folders")]


@pytest.fixture(scope="module")
def downloads(tmp_path_factory):
    """The class as downloaded (dl/: canvas.zip, moodle/, folders/) and the same unzipped (unzipped/)."""
    base = tmp_path_factory.mktemp("lms")
    inner = zipped({name: nb for name, (nb, _) in IN_THE_ZIP.items()}, copies=(f"mywork/{M04}.ipynb",))
    write_zip(base / "dl" / "canvas.zip", {name: nb for name, (nb, _) in CANVAS.items()} | {INNER: inner})
    for root in ("dl", "unzipped"):
        write_tree(base / root / "moodle", {rel: nb for rel, (nb, _) in MOODLE.items()})
        write_tree(base / root / "folders", {rel: nb for rel, (nb, _) in PLAIN.items()})    # a folder per student
    write_tree(base / "unzipped" / "canvas", {name: nb for name, (nb, _) in CANVAS.items()} | {INNER: inner})
    for folder in ("dl", "unzipped"):                              # the files named as others' are the later ones
        for rel in LATER:
            later = base / folder / rel
            os.utime(later, (later.stat().st_mtime + 60,) * 2)
    (base / "points.toml").write_text(f"[points]\n{CHECK} = {POINTS}\n")
    return base


@pytest.fixture(scope="module")
def graded(downloads):
    """The README's command on dl/'s three PATHs, with every output: (process, the output folder)."""
    out = downloads / "out"
    out.mkdir()
    before = sorted(p.relative_to(downloads) for p in (downloads / "dl").rglob("*"))
    proc = subprocess.run([sys.executable, "-m", "lesson_tools", "grade", *paths(downloads), "--workers", "2",
                           "--points", str(downloads / "points.toml"), "--out", str(out / "gradebook.csv"),
                           "--canvas", str(out / "canvas.csv"), "--canvas-assignment", "DeLaN feedback (4567)",
                           "--moodle", str(out / "moodle.csv"), "--scores", str(out / "scores.csv"),
                           "--feedback", str(out / "feedback"), "--report", str(out / "report"), "--salt", str(SALT),
                           "--keep", str(out / "keep"), "-q"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(p.relative_to(downloads) for p in (downloads / "dl").rglob("*")) == before, "wrote beside them"
    return proc, out


def table(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def labelled():
    """{gradebook label, as the gradebook writes it: expected verdict} of every file of the class."""
    return {gradebook.shown(decoded(label)): verdict for label, verdict in [
        *((f"dl/canvas.zip:{name}", v) for name, (_, v) in CANVAS.items()),
        *((f"dl/canvas.zip:{INNER}:{name}", v) for name, (_, v) in IN_THE_ZIP.items()),
        *((f"moodle/{rel}", v) for rel, (_, v) in MOODLE.items()),
        *((f"folders/{rel}", v) for rel, (_, v) in PLAIN.items())]}


def test_each_person_is_one_student_with_the_verdicts_their_files_earn(graded):
    rows = gradebook.read(graded[1] / "gradebook.csv")
    assert {r["submission"]: r["verdict"] for r in rows} == labelled() and len(rows) == len(labelled())
    people = {(r["platform"], r["student_id"]): r["student"] for r in rows}
    assert people == {("canvas", "12345"): "smithjane", ("canvas", "22222"): "smithjane",
                      ("canvas", "23456"): "doejohn", ("canvas", "10012"): "kimjisoo", ("canvas", "10013"): "parkmin",
                      ("canvas", "888"): "whitewendy", **{("canvas", str(k)): "typoty" for k in (10020, 10021, 10022)},
                      ("canvas", "10030"): "bomberbo",
                      ("moodle", "501"): "Jane Smith", ("moodle", "502"): "Li Wei", ("moodle", "555"): "Mallory Mole",
                      ("moodle", "777"): "Vic Victim", ("moodle", "556"): "Mal Ory_777_assignsubmission_file",
                      ("moodle", "999"): "Xena Xu",
                      ("folder", "alice"): "alice", ("folder", "mallory"): "mallory", ("folder", COLON): COLON,
                      ("folder", gradebook.shown(FORGER)): gradebook.shown(FORGER),
                      ("folder", gradebook.shown(decoded(ZOE))): gradebook.shown(decoded(ZOE))}
    assert {r["student"] for r in rows}.isdisjoint({"canvas", "moodle", "dl", "folders"})
    said = (graded[0].stdout + graded[0].stderr).splitlines()
    assert not [line for line in said if line.startswith("rows: 99")] and gradebook.shown(FORGER) in graded[0].stdout
    for who, claimed in (("555", "Moodle participant 777's"), ("mallory", "Canvas user 888's"),
                         ("10012", "Moodle participant 999's")):       # named as another's: theirs, and noted
        noted = [r for r in rows if r["student_id"] == who and "claims to be" in r["note"]]
        assert len(noted) == 1 and claimed in noted[0]["note"] and noted[0]["verdict"] == "FAIL", (who, noted)
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
    assert f"kimjisoo (10012): {POINTS} of {POINTS} points ({M04} {POINTS}/{POINTS}, best of 2: " in summary


def test_the_platforms_files_hold_their_own_people_and_the_points(graded):
    out = graded[1]
    canvas = table(out / "canvas.csv")
    assert list(canvas[0]) == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "DeLaN feedback (4567)"]
    assert canvas[0]["Student"] == "Points Possible" and canvas[0]["DeLaN feedback (4567)"] == str(POINTS)
    assert {r["ID"]: r["DeLaN feedback (4567)"] for r in canvas[1:]} == {
        "12345": str(POINTS), "22222": "0", "23456": str(POINTS), "10012": str(POINTS), "10013": "0",
        "888": str(POINTS), "10020": "0", "10021": "0", "10022": "0", "10030": "0"}
    moodle = table(out / "moodle.csv")
    assert {r["Identifier"]: (r["Full name"], r["Grade"], r["Maximum Grade"]) for r in moodle} == {
        "Participant 501": ("Jane Smith", str(POINTS), str(POINTS)), "Participant 502": ("Li Wei", "0", str(POINTS)),
        "Participant 555": ("Mallory Mole", "0", str(POINTS)),
        "Participant 777": ("Vic Victim", str(POINTS), str(POINTS)),
        "Participant 556": ("Mal Ory_777_assignsubmission_file", "0", str(POINTS)),
        "Participant 999": ("Xena Xu", str(POINTS), str(POINTS))}
    scores = {r["student_id"]: r for r in table(out / "scores.csv")}
    assert set(scores) == {"12345", "22222", "23456", "10012", "10013", "888", "10020", "10021", "10022", "10030",
                           "501", "502", "555", "556", "777", "999", "alice", "mallory", COLON,
                           gradebook.shown(FORGER), gradebook.shown(decoded(ZOE))}
    assert scores["12345"]["total"] == str(POINTS) and scores["alice"]["total"] == "0"
    assert scores["10013"]["total"] == "0" and "not a notebook: a binary file" in scores["10013"]["ungraded"]
    assert ("left out, without a Canvas user id in their file names: Jane Smith, Li Wei, Mal Ory_777_assignsubmission"
            "_file, Mallory Mole, " in graded[0].stdout)
    assert scores["10012"]["total"] == scores["10012"]["possible"] == str(POINTS)    # its notebook three times: once
    assert scores["10012"]["counted"] == f"{INNER}/mywork/{M04}.ipynb"               # as the platform named it


def test_a_zip_grades_as_its_folder_does(downloads, graded):
    """Canvas's zip and the same unzipped into a folder give the same rows.  Moodle's download and the plain
    folders are the same files under the same names in both: their results are taken as the class's run kept them
    (the same salt and limits), and only Canvas's files are graded again."""
    from lesson_tools.grading import points
    from lesson_tools.grading.results import Store, default_folder
    unzipped = grade(paths(downloads, "unzipped"), Limits(salt=SALT), workers=2,
                     points=points.load(downloads / "points.toml"), store=Store(default_folder()))
    zipped = gradebook.read(graded[1] / "gradebook.csv")

    def key(rows, raw):             # the submissions' paths aside, in their column and in the notes that name them
        def where(text):
            return (gradebook.shown(text) if raw else text).replace("dl/canvas.zip:", "canvas/").replace(
                "unzipped/canvas/", "canvas/").replace("unzipped/", "").replace("dl/", "")
        return sorted(tuple(sorted((k, where(v)) for k, v in r.items() if k != "submission")) for r in rows)
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
             "alice", "ezra", "12345", "22222", "23456", "10012", "10013", "typoty", "bomberbo", "quinn", "Xena Xu",
             "Mal Ory", "mallory", "whitewendy", "zo\\\\xffe"}
    assert len(pages) == len(CANVAS) + len(MOODLE) + len(PLAIN) + len(IN_THE_ZIP)
    for path in pages:
        text = html.unescape(path.read_text(encoding="utf-8"))
        heading = text.split("<h1>", 1)[1].split("</h1>", 1)[0]
        own = {n for n in names if n in heading}
        assert own, heading
        file = text.split("your file <code>", 1)[1].split("</code>", 1)[0]       # named by the learner
        others = {n for n in names if n in text.replace(heading, "").replace(file, "")} - own
        assert not others, (path, others)
        for forbidden in ("dl/", "folders/", str(graded[1].parent), "canvas.zip", "note:", "identical work", "unzip",
                          "--", "\x1b", "\u202e"):
            assert forbidden not in text, (path, forbidden)
    page = graded[1] / "feedback" / "canvas" / canvas_name("doejohn", 23456, 67893, "my homework_feedback.html", True)
    assert "your file <code>my homework.ipynb</code>" in page.read_text()


def test_vic_wendy_and_xena_keep_their_points_under_either_count_and_mallory_is_herself(downloads, graded, tmp_path):
    """The files named as Vic's, Wendy's and Xena's (a Moodle full name ending like Vic's id, a file in Mallory's own
    folder, an entry of Kim's own zip), each later than theirs: --count latest still counts their own.  The same
    PATHs and salt as the class's run, so every result is taken as kept."""
    out = tmp_path / "latest"
    proc = subprocess.run([sys.executable, "-m", "lesson_tools", "grade", *paths(downloads), "--count", "latest",
                           "--points", str(downloads / "points.toml"), "--moodle", str(out) + ".csv", "--canvas",
                           str(out) + "-canvas.csv", "--canvas-assignment", "DeLaN feedback (4567)", "--feedback",
                           str(out), "--salt", str(SALT), "-q"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    grades = {r["Identifier"]: r["Grade"] for r in table(str(out) + ".csv")}
    assert grades["Participant 777"] == grades["Participant 999"] == str(POINTS), grades
    assert grades["Participant 555"] == grades["Participant 556"] == "0", grades
    assert {r["ID"]: r["DeLaN feedback (4567)"] for r in table(str(out) + "-canvas.csv")}["888"] == str(POINTS)
    assert (out / "moodle" / MALLORY / f"{VIC}{M04}_feedback.html").is_file()
    assert sorted(p.name for p in (out / "moodle" / VIC).iterdir()) == [f"{M04}_feedback.html"]
    assert "claims to be Moodle participant 777's" in proc.stdout and "claims to be Canvas user 888's" in proc.stdout


def test_text_no_writer_could_hold_stops_nothing_and_is_shown_escaped(graded):
    """Zoe's answer raises ValueError('x' + chr(0xd800)), her cell holds a lone surrogate and her folder's name is not
    UTF-8: she is graded (FAIL, the message escaped) and every file is written, --keep's too; the sources of the
    wrong type are NOT GRADED rows saying which field; the zip bomb is one NOT GRADED row naming the limit."""
    proc, out = graded
    rows = gradebook.read(out / "gradebook.csv")
    zoe, = [r for r in rows if r["student_id"] == gradebook.shown(decoded(ZOE))]
    assert zoe["verdict"] == "FAIL" and "your code raised ValueError: x" + gradebook.shown("\ud800") in zoe["detail"]
    written = [p for p in out.rglob("*") if p.is_file()]
    assert {p.suffix for p in written} >= {".csv", ".html", ".json", ".ipynb", ".log", ".zip"}
    for path in written:
        if path.suffix != ".zip":
            assert not re.search("[\ud800-\udfff]", path.read_bytes().decode("utf-8")), path    # valid UTF-8 only
    page, = (out / "feedback").glob("zo*/*.html")
    assert html.escape("# a lone surrogate: \\ud800") in page.read_text() and "x\\\\ud800" in page.read_text()
    kept, = (out / "keep").glob("zo*/*.ipynb")
    assert nbformat.reads(kept.read_text(), as_version=4).cells
    wrong = {r["student_id"]: r["detail"] for r in rows if r["student"] == "typoty"}
    assert sorted(wrong.values()) == [f"not a notebook: cell 2 (a code cell): its source is {what}, not text"
                                      for what in ("a number", "an object", "null")]
    bomb, = [r for r in rows if r["student"] == "bomberbo"]
    assert bomb["verdict"] == "NOT GRADED" and bomb["detail"].startswith("not read: the zip expands to more than 64 MB")
    kim = [r for r in rows if r["submission"].endswith(f"mywork/{M04}.ipynb")]
    assert len(kim) == 1 and f"the zip holds {COPIES} entries named 'mywork/{M04}.ipynb': graded once" in kim[0]["note"]


def test_no_page_report_or_export_holds_the_teachers_path(downloads, graded):
    """Feedback pages, the report and the files the platforms import name a file as the platform wrote it: never the
    PATH given, nor the folders above what the platform wrote."""
    proc, out = graded
    files = [*(out / "feedback").rglob("*.html"), *(out / "report").rglob("*"), out / "scores.csv",
             out / "canvas.csv", out / "moodle.csv"]
    for path in files:
        text = html.unescape(path.read_text(encoding="utf-8"))
        for given in (*paths(downloads), str(downloads), "dl/", "canvas.zip:", "folders/", "moodle/"):
            assert given not in text, (path, given)


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
    assert nb["mistakes"][0]["hint_key"] == "or" and nb["mistakes"][0]["people"] == 5    # alice, 22222, Mallory,
    #                                                                                       Mal Ory, mallory
    assert (nb["late"], nb["identical_work"]) == (1, 2)                                  # doejohn; the copy
    assert figures["nothing_gradable"] == 6         # parkmin, the three typotys, bomberbo, quinn
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
