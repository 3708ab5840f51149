"""Property-based tests (Hypothesis) of what reads a submission and what writes what was read: any text (lone
surrogates, control characters, bidi controls, a byte that is not UTF-8 in a file name) and any notebook field of the
wrong type is data.  The readers (names, paths and zips found on disk, platforms' names, notebooks' JSON fields)
never raise and never hand on text a file cannot hold; the writers (gradebook CSV and JSON, summary, the platforms'
files, feedback pages, the class report) always write valid UTF-8 with every control character escaped.  No kernel
runs here: examples are bounded, and deadlines off (a busy machine is no failure).
"""
import csv
import functools
import json
import os
import re
import zipfile

import nbformat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lesson_course import checks
from lesson_tools.build import NOTEBOOKS, SOLUTIONS
from lesson_tools.grading import course_notebooks, export, feedback, gradebook, intake, report
from lesson_tools.grading.feedback import code_for
from lesson_tools.grading.intake import File, find, person, readings
from lesson_tools.grading.plan import plan
from lesson_tools.grading.submissions import Submission, identify
from lesson_tools.grading.text import BIDI, readable, shown

M04 = "04_feedback"
CHECK, = [name for name, spec in checks.REGISTRY.items() if spec.notebook == M04]
SETTINGS = settings(max_examples=60, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
HOSTILE = st.sampled_from(["\ud800", "\udfff", "\udcff", "\n", "\r", "\x1b[2K", "\u202e", "\u2028", "\x00", "\\",
                           "=cmd|'/C calc'!A0", "<script>alert(1)</script>", "_777_assignsubmission_file_", ":", "/"])
TEXT = st.lists(st.text(st.characters(exclude_categories=())) | HOSTILE, max_size=4).map("".join)
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT,
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3), max_leaves=6)
FORBIDDEN = re.compile("[\ud800-\udfff\x00-\x08\x0b-\x1f\x7f\u2028\u2029" + "".join(sorted(BIDI)) + "]")


@functools.cache
def course():
    """The course's notebooks, loaded once (a function, not a fixture: Hypothesis prints no course when it fails)."""
    return course_notebooks.load()


def written_cleanly(text, keep="\n"):
    """The text a writer wrote holds no lone surrogate, no control character (but `keep`), no bidi control."""
    found = {ch for ch in FORBIDDEN.findall(text) if ch not in keep}
    assert not found, sorted(map(hex, map(ord, found)))


# ---------------------------------------------------------------------- the one place text becomes safe
@SETTINGS
@given(TEXT)
def test_shown_text_can_always_be_written_and_is_the_same_for_the_text_kept(text):
    out = shown(text)
    out.encode("utf-8")                                      # never raises
    written_cleanly(out, keep="")
    assert shown(readable(text)) == out                      # a row kept (readable) is written as a fresh one is
    assert readable(readable(text)) == readable(text)
    if not re.search("[\ud800-\udfff]", text):
        assert readable(text) == text                        # valid text is left as it is


@SETTINGS
@given(TEXT, TEXT)
def test_two_texts_stay_two_when_shown(a, b):
    if readable(a) != readable(b):
        assert shown(a) != shown(b)


# ---------------------------------------------------------------------- the writers
ROW_TEXT = st.fixed_dictionaries({k: TEXT for k in ("student", "student_id", "detail", "note", "submission")})


def rows_of(texts, verdicts):
    rows = []
    for k, (t, verdict) in enumerate(zip(texts, verdicts, strict=True)):
        who = {"student": t["student"], "student_id": f"{t['student_id']}{k}", "platform": ("canvas", "moodle",
                                                                                            "folder")[k % 3],
               "late": ""}
        check = "" if verdict == gradebook.NOT_GRADED else CHECK
        rows.append(gradebook.row(who, M04 if check else "", f"{t['submission']}/{k}", check, verdict, t["detail"],
                                  t["note"]))
    return gradebook.score(rows, {CHECK: 2}, order={r["submission"]: 0 for r in rows})


VERDICTS = st.sampled_from([gradebook.PASS, gradebook.FAIL, gradebook.ERROR, gradebook.NOT_GRADED])


@SETTINGS
@given(st.lists(st.tuples(ROW_TEXT, VERDICTS), min_size=1, max_size=5))
def test_the_gradebook_summary_and_platforms_files_are_always_written(tmp_path_factory, class_):
    folder = tmp_path_factory.mktemp("out")
    rows = rows_of(*zip(*class_, strict=True))
    for name in ("g.csv", "g.json"):
        gradebook.write(rows, folder / name)
        text = (folder / name).read_bytes().decode("utf-8")              # valid UTF-8, whole
        written_cleanly(text, keep="\n\r" if name.endswith(".csv") else "\n")   # (CSV's own line ends: \r\n)
        back = gradebook.read(folder / name)
        assert len(back) == len(rows)
        if name.endswith(".json"):
            assert [r["detail"] for r in back] == [shown(r["detail"]) for r in rows]
    for line in gradebook.summary(rows):
        written_cleanly(line, keep="")
        line.encode("utf-8")
    people = len(gradebook.totals(rows))
    assert export.scores(rows, folder / "s.csv") == people
    export.canvas(rows, folder / "c.csv", {M04: "Feedback (1)"})
    export.moodle(rows, folder / "m.csv", M04, 0)
    for name in ("s.csv", "c.csv", "m.csv"):
        text = (folder / name).read_bytes().decode("utf-8")
        written_cleanly(text, keep="\n\r")                                # (the CSV's own line ends)
        with open(folder / name, newline="", encoding="utf-8") as f:
            table = list(csv.reader(f))
        assert all(len(r) == len(table[0]) for r in table)
    assert len(list(csv.reader(open(folder / "s.csv", newline="", encoding="utf-8")))) == people + 1


def submission_of(name, code):
    """A Submission of 04 by a person named `name` (readable, as intake names everyone) whose exercise cell is
    `code`."""
    name = readable(name)
    file = File(f"class/{name}/{M04}.ipynb", (name, f"{M04}.ipynb"), 1, 0.0, None, outer=("class",))
    return Submission(file, person(file, M04), M04, "metadata", "{}", code=(code,))


@SETTINGS
@given(TEXT, TEXT, TEXT, VERDICTS)
def test_a_feedback_page_is_always_written_escaped(name, code, detail, verdict):
    sub = submission_of(name or "x", readable(f"def {CHECK}(max_error, min_eig):\n    {code}\n"))
    check = "" if verdict == gradebook.NOT_GRADED else CHECK
    rows = gradebook.score([gradebook.row(gradebook.identity(sub.person), M04, sub.label, check, verdict, detail)],
                           {CHECK: 1}, order={sub.label: 0})
    page = feedback.page(sub, rows, code_for(sub.code, course()[M04]))
    page.encode("utf-8")
    written_cleanly(page)
    assert "<script" not in page.lower().replace("&lt;script", "")
    assert "class/" not in page                                           # the teacher's folder: never


@settings(max_examples=5, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.tuples(ROW_TEXT, VERDICTS), min_size=1, max_size=4))
def test_the_class_report_is_always_written_escaped(tmp_path_factory, class_):
    rows = rows_of(*zip(*class_, strict=True))
    folder = tmp_path_factory.mktemp("report")
    for path in report.write(folder, [], rows, course()):
        text = path.read_bytes().decode("utf-8")
        written_cleanly(text)
        if path.suffix == ".json":
            json.loads(text)


# ---------------------------------------------------------------------- the readers: names
DIGITS = st.integers(1, 10**9).map(str)


@SETTINGS
@given(TEXT, st.booleans())
def test_any_name_is_read_without_an_error(part, folder):
    for r in readings(readable(part), folder):
        assert r.id.isdigit()


@SETTINGS
@given(TEXT.filter(lambda t: t and "/" not in t), DIGITS, st.sampled_from(["file", "onlinetext"]), TEXT)
def test_a_moodle_folder_is_read_from_its_right_end_whatever_the_full_name(name, uid, plugin, inside):
    """Whatever a full name holds (another id's `_777_assignsubmission_file`, underscores, digits), the participant id
    is the one Moodle wrote last; what is inside the folder never names the person, and claims are flagged."""
    folder = f"{readable(name)}_{uid}_assignsubmission_{plugin}_"
    inner = readable(inside).replace("/", "_") or "x"
    who = person(File(f"moodle/{folder}/{inner}", (folder, inner), 1, 0.0, None, outer=("moodle",)), M04)
    assert (who.platform, who.id) == ("moodle", uid)
    if any(r.id != uid for r in readings(inner)):
        assert who.claim and "claims to be" in who.claim


@settings(max_examples=30, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=12), DIGITS, DIGITS,
       st.sampled_from([f"{M04}.ipynb", "vicvictim_777_1_04.ipynb", "Vic V_777_assignsubmission_file_04.ipynb"]),
       st.sampled_from(["class", "mallory"]))
def test_a_platform_name_counts_only_where_the_platform_writes_it(tmp_path_factory, name, uid, aid, original,
                                                                  owner):
    """Canvas's name on the first level of its download is its user's, whatever the student's own file name after
    it claims (even a Moodle name: Canvas's download holds Canvas's names); the same name inside a person's folder
    stays that person's.  Either way a claim is flagged for the teacher."""
    canvas = f"{name}_{uid}_{aid}_{original}"
    base = tmp_path_factory.mktemp("dl")
    with zipfile.ZipFile(base / "submissions.zip", "w") as zf:
        zf.writestr(canvas, b"{}")
        zf.writestr(f"doejohn_{uid}0_1_{M04}.ipynb", b"{}")             # another Canvas file beside it
    top = person(next(f for f in find([base / "submissions.zip"]) if f.rel == (canvas,)), M04)
    assert (top.platform, top.id) == ("canvas", uid)
    assert (top.claim is not None) == ("777" in original)
    inside = person(File(f"class/{owner}/{canvas}", (owner, canvas), 1, 0.0, None, outer=("class",)), M04)
    assert (inside.platform, inside.id) == ("folder", owner) and "claims to be Canvas user" in inside.claim


@settings(max_examples=25, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.binary(min_size=1, max_size=12).filter(lambda b: b"/" not in b and b"\0" not in b
                                                          and b not in (b".", b"..")), min_size=1, max_size=4,
                unique=True))
def test_folders_and_files_of_any_bytes_are_found_and_named_in_text_a_file_can_hold(tmp_path_factory, names):
    base = tmp_path_factory.mktemp("bytes")
    root = os.path.join(os.fsencode(base), b"class")
    for raw in names:
        folder = os.path.join(root, raw)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, raw + b".ipynb"), "wb") as f:
            f.write(b"{}")
    try:
        files = find([os.fsdecode(root)])
    except intake.UsageError:                       # every name hidden (a leading dot): nothing found, said so
        assert all(n.startswith(b".") for n in names)
        return
    assert len({f.label for f in files}) == len(files)
    for f in files:
        who = person(f, M04)
        for text in (f.label, f.handed, who.name, who.id, *f.rel):
            text.encode("utf-8")                    # readable: no lone surrogate left


# ---------------------------------------------------------------------- the readers: zips
@settings(max_examples=25, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(["a.ipynb", "w/a.ipynb", "w\\a.ipynb", "w//a.ipynb", "b.txt"]),
                          st.tuples(st.integers(1980, 2107), st.integers(1, 12), st.integers(1, 28),
                                    st.integers(0, 23), st.integers(0, 59), st.integers(0, 59))),
                min_size=1, max_size=6))
def test_a_learners_zip_is_read_once_per_name_and_dated_by_the_platform_never_by_itself(tmp_path_factory, entries):
    """Names written several times (or spelled two ways) are one file, noted; every file of a learner's zip has the
    date of the zip the platform holds, whatever date the learner's zip tool wrote."""
    import io
    import warnings
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zf, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, when in entries:
            zf.writestr(zipfile.ZipInfo(name, when), b"{}")
    base = tmp_path_factory.mktemp("zips")
    outer = base / "submissions.zip"
    platform_date = (2026, 12, 1, 9, 30, 0)
    with zipfile.ZipFile(outer, "w") as zf:
        zf.writestr(zipfile.ZipInfo("kimjisoo_10012_50012_mywork.zip", platform_date), inner.getvalue())
    files = find([outer])
    distinct = {tuple(p for p in name.replace("\\", "/").split("/") if p) for name, _ in entries}
    assert len(files) == len(distinct) and len({f.label for f in files}) == len(files)
    assert {f.mtime for f in files} == {intake._zip_time(zipfile.ZipInfo("x", platform_date))}
    for f in files:
        copies = sum(tuple(p for p in n.replace("\\", "/").split("/") if p) == f.rel[1:] for n, _ in entries)
        assert (f.note is not None) == (copies > 1), (f.rel, f.note)
        assert person(f, M04).key == "canvas:10012"


# ---------------------------------------------------------------------- the readers: notebooks
FIELDS = ["source", "cell_type", "metadata", "outputs", "cell", "notebook metadata", "cells"]


def hostile_notebook(field, value, surrogate):
    nb = json.loads(nbformat.writes(nbformat.read(str(NOTEBOOKS / f"{M04}.ipynb"), as_version=4)))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    cell = code[len(code) // 2]
    if field == "cell":
        nb["cells"][nb["cells"].index(cell)] = value
    elif field == "notebook metadata":
        nb["metadata"] = value
    elif field == "cells":
        nb["cells"].append(value)
    else:
        cell[field] = value
    if surrogate:
        code[0]["source"] = f"# {surrogate}\n" + "".join(code[0]["source"])
    return json.dumps(nb).encode()                           # (ensure_ascii: a surrogate as JSON's escape)


@settings(max_examples=80, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.sampled_from(FIELDS), JSON, st.sampled_from(["", "\ud800", "\udcff", "\u202e"]))
def test_any_field_of_any_type_is_graded_or_refused_with_its_reason(tmp_path_factory, field, value, surrogate):
    path = tmp_path_factory.mktemp("nb") / f"{M04}.ipynb"
    path.write_bytes(hostile_notebook(field, value, surrogate))
    file, = find([path])
    sub = identify(file, course())                          # never raises
    if sub.problem:
        assert sub.text is None and sub.problem.startswith(("not a notebook", "not graded", f"{M04} has")), sub.problem
        sub.problem.encode("utf-8")
        return
    sub.text.encode("utf-8")                                # no lone surrogate reaches the kernel or the pages
    assert all(isinstance(c, str) for c in sub.code)
    steps, _, _ = plan(nbformat.reads(sub.text, as_version=4), course()[sub.notebook], "addr", "token")
    assert steps
    code_for(sub.code, course()[sub.notebook])


def test_a_cell_source_of_the_wrong_type_says_which_cell_and_what_it_is(tmp_path):
    for value, what in ((5, "a number"), (None, "null"), ({"a": 1}, "an object"), ([1, "x"], "a list with")):
        path = tmp_path / f"{M04}.ipynb"
        path.write_bytes(hostile_notebook("source", value, ""))
        sub = identify(find([path])[0], course())
        assert sub.problem.startswith("not a notebook: cell ") and f"(a code cell): its source is {what}" in \
            sub.problem, sub.problem


def test_a_lone_surrogate_in_a_source_is_kept_as_its_escape(tmp_path):
    path = tmp_path / f"{M04}.ipynb"
    nb = nbformat.read(str(SOLUTIONS / f"{M04}.ipynb"), as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and f"def {CHECK}" in c.source)
    cell.source += "\n    # \ud800 and \udcff"
    path.write_text(json.dumps(nb), encoding="ascii")
    sub = identify(find([path])[0], course())
    assert sub.problem is None and sub.notebook == M04
    assert "# \\ud800 and \\udcff" in "".join(sub.code)     # the escape Python reads back as the same character


def test_a_result_kept_with_a_lone_surrogate_is_written_when_it_is_taken_again(tmp_path):
    """A result kept by a run before this one may hold a lone surrogate (an answer raised ValueError('x' +
    chr(0xd800))): taken again from the results store, every writer still writes it, the same as a fresh row."""
    from lesson_tools.grading.results import Store
    fresh = gradebook.row({"student": "zoe", "student_id": "zoe", "platform": "folder", "late": ""}, M04,
                          f"class/zoe/{M04}.ipynb", CHECK, gradebook.FAIL, "FAIL: your code raised ValueError: x\ud800")
    assert fresh["detail"].endswith("x\\ud800")                        # made readable where rows are made
    store = Store(tmp_path / "cache")
    store.put("k", [{**fresh, "detail": "FAIL: your code raised ValueError: x\ud800"}])   # as an older run kept it
    kept = gradebook.score(store.get("k"), {CHECK: 1}, order={fresh["submission"]: 0})
    gradebook.write(kept, tmp_path / "g.csv")
    export.scores(kept, tmp_path / "s.csv")
    assert gradebook.read(tmp_path / "g.csv")[0]["detail"] == shown(fresh["detail"])
