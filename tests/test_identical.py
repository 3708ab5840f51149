"""Identical work across a class, judged on what each learner wrote (lesson_tools.grading.identical): a short answer
many people share, right or a common short mistake, is what people write on their own, not flagged; a long identical
answer (its names changed or not), a longer shared mistake and the very same file are flagged to the teacher.  The
class is collected from a folder as the grader collects it; the verdicts are the gradebook rows the checks would give
(the graded path is tests/test_grading_lms.py's)."""
import copy
import os

import nbformat
import pytest
from lms_downloads import write_tree

from lesson_course import checks
from lesson_tools.build import NOTEBOOKS, SOLUTIONS
from lesson_tools.grading import course_notebooks, gradebook, identical
from lesson_tools.grading.command import collect

M04 = "04_feedback"
CHECK, = [name for name, spec in checks.REGISTRY.items() if spec.notebook == M04]
LONG = ["# first the error: the model's mass matrix must be close to the true one everywhere we looked",
        "close_enough = max_error < PASS_MAX_ERROR",
        "# then the curvature: a mass matrix that is not positive definite is no mass matrix at all",
        "positive_definite = min_eig > 0",
        "return bool(close_enough) and bool(positive_definite)"]
WRONG = ["return max_error < PASS_MAX_ERROR or min_eig > 0"]              # 8 tokens: the `or` mistake, made alike
LONGER_WRONG = ["error_ok = max_error < PASS_MAX_ERROR", "curvature_ok = min_eig > 0",   # 17 tokens, wrong (`or`)
                "return bool(error_ok or curvature_ok)"]
CODED = ["error_ok = bool(max_error < PASS_MAX_ERROR)", "curvature_ok = bool(min_eig > 0)",   # 30 tokens of code
         "both_ok = error_ok and curvature_ok", "if both_ok:", "    return True", "else:", "    return False"]
RENAMED = [line.replace("error_ok", "e").replace("curvature_ok", "k").replace("both_ok", "fine") for line in CODED]


@pytest.fixture(scope="module")
def course():
    return course_notebooks.load()


def handed_in(who, body=None):
    """04 as `who` saved it: the teachers' notebook with the exercise's answer replaced by `body` (lines), or the
    course's own answer; each person's file has a metadata mark of their own, as every editor leaves."""
    nb = copy.deepcopy(nbformat.read(str(SOLUTIONS / f"{M04}.ipynb"), as_version=4))
    if body is not None:
        cell = next(c for c in nb.cells if c.cell_type == "code" and f"def {CHECK}" in c.source)
        head = cell.source.split("### BEGIN SOLUTION")[0]
        cell.source = head + "\n    ".join(body)
    nb.metadata["saved_by"] = who
    return nb


def graded(subs, verdicts):
    """Gradebook rows for the class: the check's verdict per person (`verdicts`: {student: verdict})."""
    return gradebook.score([gradebook.row(gradebook.identity(s.person), s.notebook, s.label, CHECK,
                                          verdicts[s.student], "") for s in subs], {CHECK: 1},
                           order={s.label: s.person.order for s in subs})


@pytest.fixture(scope="module")
def klass(course, tmp_path_factory):
    folder = write_tree(tmp_path_factory.mktemp("class") / "class", {
        f"alice/{M04}.ipynb": handed_in("alice", LONG), f"erin/{M04}.ipynb": handed_in("erin", LONG),
        f"bob/{M04}.ipynb": handed_in("bob"), f"cy/{M04}.ipynb": handed_in("cy"),
        f"kit/{M04}.ipynb": handed_in("kit"), f"lee/{M04}.ipynb": handed_in("lee"),
        f"dan/{M04}.ipynb": handed_in("dan", WRONG), f"eve/{M04}.ipynb": handed_in("eve", WRONG),
        f"jo/{M04}.ipynb": handed_in("jo", WRONG),
        f"mo/{M04}.ipynb": handed_in("mo", LONGER_WRONG), f"ned/{M04}.ipynb": handed_in("ned", LONGER_WRONG),
        f"oz/{M04}.ipynb": handed_in("oz", CODED), f"pat/{M04}.ipynb": handed_in("pat", RENAMED),
        f"hal/{M04}.ipynb": nbformat.read(str(NOTEBOOKS / f"{M04}.ipynb"), as_version=4),
        f"ivy/{M04}.ipynb": nbformat.read(str(NOTEBOOKS / f"{M04}.ipynb"), as_version=4)})
    (folder / "gus").mkdir()
    (folder / "gus" / f"{M04}.ipynb").write_bytes((folder / "kit" / f"{M04}.ipynb").read_bytes())   # kit's bytes
    (folder / "fay").mkdir()
    os.link(folder / "lee" / f"{M04}.ipynb", folder / "fay" / f"{M04}.ipynb")                     # lee's file
    subs = collect([folder], course)
    verdicts = dict.fromkeys(("alice", "erin", "bob", "cy", "kit", "lee", "gus", "fay", "oz", "pat"),
                             gradebook.PASS) | dict.fromkeys(("dan", "eve", "jo", "mo", "ned"), gradebook.FAIL) | {
        "hal": gradebook.NOT_ATTEMPTED, "ivy": gradebook.NOT_ATTEMPTED}
    rows = graded(subs, verdicts)
    return subs, rows, identical.findings(rows, subs, course)


def notes_of(klass):
    subs, _, found = klass
    return {s.student: found.notes.get(s.label, []) for s in subs}


def test_the_courses_own_answer_to_every_exercise_is_short_enough_to_be_common(course):
    for stem, nb in course.items():
        teachers = nbformat.read(str(SOLUTIONS / f"{stem}.ipynb"), as_version=4) if nb.exercises else None
        for piece in identical.pieces([c.source for c in teachers.cells if c.cell_type == "code"] if teachers else (),
                                      nb):
            assert piece.size < piece.threshold, (stem, piece)
        answered = {c for p in (identical.pieces([c.source for c in teachers.cells if c.cell_type == "code"], nb)
                                if teachers else ()) for c in p.checks}
        assert answered == {c.name for c in nb.checks}, stem        # every check's answer is found as written


def test_what_a_learner_wrote_leaves_out_the_notebooks_own_lines(course):
    learner = nbformat.read(str(NOTEBOOKS / f"{M04}.ipynb"), as_version=4)
    assert identical.pieces([c.source for c in learner.cells if c.cell_type == "code"], course[M04]) == []
    mine = handed_in("me", LONG)
    piece, = identical.pieces([c.source for c in mine.cells if c.cell_type == "code"], course[M04])
    assert piece.text == "\n".join(LONG) and piece.checks == (CHECK,)
    assert "def lesson_passes" not in piece.text and "PASS_MAX_ERROR      #" not in piece.text


def test_size_counts_tokens_and_the_words_of_comments():
    assert identical.size("return a < b and c > 0") == 8
    assert identical.size("x = 1  # three words here") == 6
    assert identical.size('s = """never closed') == 4                  # does not tokenize: its words


def test_a_short_right_answer_many_share_is_common_not_flagged(klass):
    notes = notes_of(klass)
    assert notes["bob"] == [] and notes["cy"] == []
    common, = [c for c in klass[2].common if c.checks == (CHECK,)]      # bob, cy, kit, lee, gus and fay
    assert common.people == 6 and common.text == "return max_error < PASS_MAX_ERROR and min_eig > 0"
    assert common.size < identical.MIN_TOKENS


def test_a_long_identical_answer_is_flagged_on_both(klass):
    notes = notes_of(klass)
    for me, other in (("alice", "erin"), ("erin", "alice")):
        note, = notes[me]
        assert note.startswith(f"wrote the same answer to {CHECK} (") and f"{other}/{M04}.ipynb ({other})" in note


def test_a_short_mistake_many_make_is_not_flagged_a_longer_shared_one_is(klass):
    notes = notes_of(klass)
    assert identical.size("\n".join(WRONG)) < identical.MIN_TOKENS / 2 <= identical.size("\n".join(LONGER_WRONG))
    assert notes["dan"] == notes["eve"] == notes["jo"] == []           # the `or` mistake, three people: not copying
    for me, other in (("mo", "ned"), ("ned", "mo")):
        note, = notes[me]
        assert note.startswith(f"wrote the same wrong answer to {CHECK} (17 tokens)") and f"({other})" in note
    assert all(WRONG[0] != c.text for c in klass[2].common)             # common answers are right ones


def test_copied_code_with_its_names_changed_is_flagged(klass):
    notes = notes_of(klass)
    assert identical.size("\n".join(CODED)) >= identical.MIN_TOKENS and RENAMED != CODED
    for me, other in (("oz", "pat"), ("pat", "oz")):
        note, = notes[me]
        assert note.startswith(f"wrote the same answer to {CHECK}, its names changed (30 tokens")
        assert f"({other})" in note


def test_the_very_same_file_is_flagged_whatever_its_size(klass):
    notes = notes_of(klass)
    assert [n.split(" as ")[0] for n in notes["gus"]] == ["the same file, outputs and metadata too,"]
    assert f"kit/{M04}.ipynb (kit)" in notes["gus"][0] and len(notes["kit"]) == 1
    assert [n.split(" as ")[0] for n in notes["fay"]] == ["the same file (a hard link)"]   # said once, not twice
    assert f"lee/{M04}.ipynb (lee)" in notes["fay"][0] and len(notes["lee"]) == 1
    assert notes["hal"] == [] and notes["ivy"] == []                  # the course's own notebook, untouched
    assert [n.split(" as ")[0] for n in notes["kit"]] == ["the same file, outputs and metadata too,"]


def test_two_files_never_run_are_the_same_file_only_when_their_answers_are(course, tmp_path):
    typed = nbformat.read(str(NOTEBOOKS / f"{M04}.ipynb"), as_version=4)        # the learner notebook, no outputs
    cell = next(c for c in typed.cells if c.cell_type == "code" and f"def {CHECK}" in c.source)
    cell.source = cell.source.split("# YOUR CODE HERE")[0] + "return max_error < PASS_MAX_ERROR and min_eig > 0"
    long = copy.deepcopy(typed)
    cell = next(c for c in long.cells if c.cell_type == "code" and f"def {CHECK}" in c.source)
    cell.source = cell.source.split("return max_error")[0] + "\n    ".join(LONG)
    folder = write_tree(tmp_path / "class", {f"{who}/{M04}.ipynb": typed for who in ("ann", "ben")} |
                        {f"{who}/{M04}.ipynb": long for who in ("cat", "don")})
    subs = collect([folder], course)
    found = identical.findings(graded(subs, dict.fromkeys(("ann", "ben", "cat", "don"), gradebook.PASS)), subs, course)
    notes = {s.student: found.notes.get(s.label, []) for s in subs}
    assert notes["ann"] == [] and notes["ben"] == []                  # the same bytes, the same short right answer
    assert [n.split(" (")[0] for n in notes["cat"]] == [f"wrote the same answer to {CHECK}"]     # judged on the code


def test_the_notes_reach_the_gradebooks_note_column(klass, course):
    subs, rows, found = klass
    noted = {r["student"]: r["note"] for r in identical.noted(rows, subs, course)}
    assert noted["alice"] == found.notes[next(s.label for s in subs if s.student == "alice")][0]
    assert noted["bob"] == ""


def test_what_a_learner_wrote_keeps_every_line_and_its_indentation(course):
    """The course's own answer to every exercise cell, handed in, is found as written: every line of its solution
    blocks in order, indented as in the function (dedented as a whole), even a line such as Coriolis' `for j in
    range(n):` that appears elsewhere in the notebook too."""
    import textwrap
    seen = 0
    for stem, nb in course.items():
        teachers = nbformat.read(str(SOLUTIONS / f"{stem}.ipynb"), as_version=4) if nb.exercises else None
        for cell in (c for c in (teachers.cells if teachers else ()) if c.cell_type == "code"):
            inside, lines = False, []
            for line in cell.source.splitlines():
                if line.strip() in identical.MARKERS:
                    inside = line.strip() == identical.MARKERS[0]
                elif inside and line.strip():
                    lines.append(line)
            if not lines:
                continue
            piece, = identical.pieces([cell.source], nb)
            assert piece.code == identical.without_comments(textwrap.dedent("\n".join(lines))), (stem, piece.code)
            seen += 1
    assert seen >= len({c.name for nb in course.values() for c in nb.checks})
    coriolis, = [p for p in identical.pieces(
        [c.source for c in nbformat.read(str(SOLUTIONS / "02_model.ipynb"), as_version=4).cells
         if c.cell_type == "code"], course["02_model"]) if "coriolis_from_dM" in p.checks]
    assert "    for j in range(n):\n        for k in range(n):" in coriolis.code
