"""The course's small helpers, on hand-worked cases: friendly NameErrors in a real IPython shell, the
predict-first reveal, the check framework's number formatting and registry, the exercises' own test cases (each
label says which matrix it is, each case sits where its docstring says), the PASS report's diagnosis, the
closed-form truth, and the marker messages."""
import ast
import json
import re

import numpy as np
import pytest

from lesson_course import checks, feedback
from lesson_course import reveal as reveals
from lesson_course.checks import framework, independent, nb01_challenge, nb04_feedback, nb05_retrieve_and_space
from lesson_course.checks.nb06_mastery_and_project import TRIPLE_LENGTHS
from lesson_course.reveal import PREDICTIONS, lock, predict, reveal
from lesson_lib import PlanarChain, double_pendulum, facts
from lesson_tools import markers

chain = double_pendulum()


# ---------------------------------------------------------------------- notebook: friendly NameErrors
@pytest.fixture(scope="module")
def shell():
    """A real IPython shell with lesson_course.notebook.setup() installed; errors shown are recorded."""
    from IPython.core.interactiveshell import InteractiveShell

    from lesson_course.notebook import setup
    sh = InteractiveShell.instance()
    setup()
    sh.shown = []
    sh._showtraceback = lambda etype, value, stb: sh.shown.append((etype, str(value), stb))
    yield sh
    sh.set_custom_exc((), None)
    InteractiveShell.clear_instance()


def test_require_names_the_missing_names_and_the_cell_to_run(shell):
    shell.shown.clear()
    shell.run_cell("from lesson_course.notebook import require\nmodel = 1\n"
                   "require('model', 'data', 'chain', cell=\"'Train' (section 2)\")")
    ((etype, value, stb),) = shell.shown
    assert etype.__name__ == "MissingStep" and issubclass(etype, NameError)
    assert value == ("this cell needs `data`, `chain`, which the cell 'Train' (section 2) makes. Run that cell "
                     "first (or Run > Run All Above Selected Cell), then run this cell again.")
    assert stb == [f"MissingStep: {value}"]                     # the message alone, no traceback
    shell.shown.clear()
    shell.run_cell("require('model', cell='x')")                # everything there: nothing raised
    assert shell.shown == []


def test_require_by_default_names_the_first_code_cell(shell):
    shell.shown.clear()
    shell.run_cell("require('chain_never_made')")
    ((etype, value, stb),) = shell.shown
    assert "`chain_never_made`, which the cell with the imports (the first code cell) makes" in value


def test_other_name_errors_keep_their_traceback_and_get_a_hint(shell):
    shell.shown.clear()
    shell.run_cell("print(never_defined)")
    ((etype, value, stb),) = shell.shown
    assert etype is NameError and "never_defined" in value and len(stb) > 1
    assert any("NameError" in line for line in stb[:-1])
    assert stb[-1].startswith("Hint: ") and "Run > Run All Above Selected Cell" in stb[-1].replace("\u00a0", " ")
    from lesson_course.notebook import WIDTH  # JupyterLab breaks longer lines mid-word ("Run A / ll Above")
    assert all(len(line) <= WIDTH for line in stb[-1].splitlines()) and "\n" in stb[-1]


def test_setup_outside_ipython_does_nothing(monkeypatch):
    import IPython

    from lesson_course.notebook import setup
    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    assert setup() is None


# ---------------------------------------------------------------------- predict first
@pytest.fixture(autouse=True)
def fresh_kernel():
    """Each test starts as in a fresh kernel whose browser holds no history: no prediction locked."""
    reveals.KERNEL_LOG.clear()
    yield
    reveals.KERNEL_LOG.clear()


@pytest.mark.parametrize("name", sorted(PREDICTIONS))
def test_every_prediction_offers_one_right_answer_among_misconceptions_each_with_a_why(name):
    p = PREDICTIONS[name]
    assert sum(o.right for o in p.options) == 1 and len(p.options) >= 3, name
    assert len({o.text for o in p.options}) == len(p.options) and all(len(o.why) > 30 for o in p.options)
    right = next(o for o in p.options if o.right)
    for pattern in p.gives_away:          # each pattern would catch this answer, so a test can use it
        assert re.search(pattern, p.answer + right.text + right.why, re.I), (name, pattern)


@pytest.mark.parametrize("name", sorted(PREDICTIONS))
def test_the_reveal_says_whether_the_choice_was_right_and_why_each_other_one_is_not(name):
    p = PREDICTIONS[name]
    for number, option in enumerate(p.options, 1):
        reveals.KERNEL_LOG.clear()                          # a learner of their own for each option
        choice = predict(name)
        choice.choose(number)
        choice.sentence.value = "  because   of physics "
        shown = " ".join(str(reveal(choice)).split())
        assert shown.startswith(f"You chose: “{' '.join(option.text.split())}”")
        assert ("Right." in shown) == option.right and ("Not right." in shown) == (not option.right)
        for other in p.options:
            if other is not option:
                mark = "✓" if other.right else "✗"
                assert f"{mark} {' '.join(other.text.split())} — {' '.join(other.why.split())}" in shown
        assert "“because of physics”" in shown and " ".join(p.answer.split()) in shown
        assert choice.buttons.disabled, "the choice stays open after its answer was shown"


def test_the_right_options_length_place_and_form_give_nothing_away():
    """Over every prediction: the right option is the longest or the second-longest in at most two, and the
    shortest in at most two; its place varies (first in one, last in another); and each two-part form ("X; Y",
    "X: Y") is about as common among the wrong options as among the right ones (within one prediction's share)."""
    rights = [(p.options.index(next(o for o in p.options if o.right)), p.options) for p in PREDICTIONS.values()]
    n = len(rights)
    ranks = [sorted((len(o.text) for o in options), reverse=True).index(len(options[i].text))
             for i, options in rights]
    assert sum(r <= 1 for r in ranks) <= 2, f"the right option is among the two longest in {ranks}"
    assert sum(r == len(options) - 1 for r, (_, options) in zip(ranks, rights, strict=True)) <= 2, ranks
    places = [i for i, _ in rights]
    assert 0 in places and any(i == len(options) - 1 for i, options in rights) and len(set(places)) > 1, places
    right = [options[i].text for i, options in rights]
    wrong = [o.text for _, options in rights for o in options if not o.right]
    for mark in ("; ", ": "):
        shares = sum(mark in t for t in right) / n, sum(mark in t for t in wrong) / len(wrong)
        assert abs(shares[0] - shares[1]) <= 1 / n, f"{mark!r}: right {shares[0]:.2f}, wrong {shares[1]:.2f}"


def test_a_reveal_waits_for_a_choice_or_an_explicit_ask():
    choice = predict("what_a_delan_learns")
    choice.sentence.value = "M and V"
    shown = str(reveal(choice))
    assert "still hidden" in shown and "reveal(my_prediction, ask=True)" in shown
    global fast_prediction                                 # the notebook's own name for it, as in 07
    fast_prediction = choice
    assert "reveal(fast_prediction, ask=True)" in str(reveal(fast_prediction))
    assert PREDICTIONS["what_a_delan_learns"].answer not in shown and not choice.buttons.disabled
    asked = " ".join(str(reveal(choice, ask=True)).split())
    assert " ".join(PREDICTIONS["what_a_delan_learns"].answer.split()) in asked and "You chose" not in asked


def test_a_prediction_and_a_reveal_refuse_what_they_cannot_use():
    with pytest.raises(KeyError, match="what_a_delan_learns"):
        predict("what_delan_learns")
    with pytest.raises(TypeError, match=r"predict\(\.\.\.\)"):
        reveal("It learns M and V")
    with pytest.raises(ValueError, match="expected 1 to 4"):
        predict("what_a_delan_learns").choose(5)


def _restarted(choice_texts_and_times, name="noisy_recorded_positions"):
    """A prediction widget as after a kernel restart: the kernel knows nothing, then the browser reports its
    history ({"t", "predict", "choice", "words"} events) through the widget's store."""
    reveals.KERNEL_LOG.clear()
    choice = predict(name)
    return choice, lambda: (setattr(choice.store, "log", json.dumps(choice_texts_and_times)),
                            setattr(choice.store, "heard", True))


def test_a_revealed_prediction_run_again_stays_locked_and_its_reveal_gives_the_first_verdict():
    """Re-running the prediction cell after its reveal (same kernel) shows the locked choice, greyed, with the
    learner's words; a click on the fresh widget changes nothing; the reveal still judges the first choice."""
    p = PREDICTIONS["letters_twice_as_fast"]
    wrong = next(i for i, o in enumerate(p.options, 1) if not o.right)
    right = next(i for i, o in enumerate(p.options, 1) if o.right)
    first = predict("letters_twice_as_fast")
    first.choose(wrong)
    first.sentence.value = "more data helps"
    assert "Not right." in str(reveal(first))
    again = predict("letters_twice_as_fast")                    # the prediction cell, run again
    assert again.buttons.disabled and again.sentence.disabled and "Locked" in again.status.value
    assert again.buttons.value == p.options[wrong - 1].text and again.sentence.value == "more data helps"
    again.choose(right)                                         # as a click would, were the buttons not greyed
    again.buttons.value = p.options[right - 1].text             # even set by code
    assert again.buttons.value == p.options[wrong - 1].text
    shown = " ".join(str(reveal(again)).split())
    assert "Not right." in shown and "Right." not in shown.replace("Not right.", "")
    assert "“more data helps”" in shown
    first.buttons.value = p.options[right - 1].text             # the first widget, too
    assert "Not right." in str(reveal(first))


def test_a_lock_is_kept_in_the_learners_history_and_read_back_after_a_restart(monkeypatch):
    """The lock is a "predict" event handed to the browser's history (the store's pending events) and the kernel's
    log; after a restart a new widget waits greyed until the browser reports, then shows the recorded choice, and
    the reveal judges it.  Run All before the report stops at the evidence (the kernel cannot know the lock yet)
    and says that an earlier lock shows up in a moment; once it has, the evidence runs."""
    import json

    from lesson_course.review import compacted, valid_events
    p = PREDICTIONS["noisy_recorded_positions"]
    choice = predict("noisy_recorded_positions")
    choice.choose(2)
    choice.sentence.value = "noise"
    lock(choice)
    log = json.loads(choice.store.log)
    assert log == [{"t": log[0]["t"], "predict": "noisy_recorded_positions", "choice": p.options[1].text,
                    "words": "noise"}]
    assert json.loads(choice.store.pending) == log                  # handed to the browser to keep
    events, dropped = valid_events(log + [{"t": "2030-01-01T00:00:00+00:00", "predict": "noisy_recorded_positions",
                                           "choice": p.options[4].text}])
    assert dropped == 0 and compacted(events) == log                # a later lock adds nothing

    monkeypatch.setenv("LESSON_PREDICTIONS", "")
    monkeypatch.delenv("LESSON_PREDICTIONS")                         # a learner's kernel, with no file yet
    monkeypatch.setenv("XDG_DATA_HOME", "/nonexistent-home")
    restarted, browser_reports = _restarted(log)
    restarted.heard = restarted.answered = False                     # as in a kernel with a front end
    restarted._show()
    assert restarted.buttons.disabled and "Looking for" in restarted.status.value and restarted.record is None
    with pytest.raises(reveals.PredictFirst, match="shows it in a moment"):
        lock(restarted)                                              # Run All: the evidence ran before the report
    assert restarted.record is None                                  # nothing recorded
    browser_reports()
    assert restarted.record == log[0] and restarted.buttons.disabled
    assert restarted.buttons.value == p.options[1].text and "Locked" in restarted.status.value
    lock(restarted)                                                  # run again: the evidence runs
    shown = " ".join(str(reveal(restarted)).split())
    assert shown.startswith(f"You chose: “{' '.join(p.options[1].text.split())}”") and "Not right." in shown
    again = predict("noisy_recorded_positions")                      # the kernel has learned it
    assert again.record == log[0] and again.buttons.disabled

    fresh, browser_reports = _restarted([])
    fresh.heard = False
    browser_reports()
    assert not fresh.buttons.disabled and fresh.record is None and "next cell locks" in fresh.status.value


def test_a_lock_is_kept_in_this_machines_file_so_restart_and_run_all_knows_it_at_once(tmp_path, monkeypatch, capsys):
    """Restart Kernel and Run All: the browser's history reaches the kernel only after every cell has run, so the
    lock is also kept in a file of the server's (history_file); the restarted kernel reads it when the prediction
    cell runs, and the evidence cell and the reveal judge the choice locked before."""
    import json
    monkeypatch.setenv("LESSON_PREDICTIONS", str(tmp_path / "history" / "predictions.json"))
    p = PREDICTIONS["letters_twice_as_fast"]
    fast_prediction = predict("letters_twice_as_fast")
    fast_prediction.choose(1)
    lock(fast_prediction)
    kept = json.loads(reveals.history_file().read_text(encoding="utf-8"))
    assert [(e["predict"], e["choice"]) for e in kept] == [("letters_twice_as_fast", p.options[0].text)]
    reveals.KERNEL_LOG.clear()                                       # the kernel restarted; no browser report yet
    again = predict("letters_twice_as_fast")
    again.heard = again.answered = False
    assert again.record == kept[0] and again.buttons.disabled and "Locked" in again.status.value
    capsys.readouterr()
    lock(again)
    assert "Your prediction is locked" in capsys.readouterr().out
    assert " ".join(str(reveal(again)).split()).startswith(f"You chose: “{' '.join(p.options[0].text.split())}”")
    assert json.loads(reveals.history_file().read_text(encoding="utf-8")) == kept       # nothing added
    monkeypatch.setenv("LESSON_PREDICTIONS", "")
    assert reveals.history_file() is None


@pytest.fixture
def learner_here(monkeypatch, tmp_path):
    """A learner's kernel: a history file of the test's own (LESSON_PREDICTIONS set, so not unattended)."""
    monkeypatch.setenv("LESSON_PREDICTIONS", str(tmp_path / "predictions.json"))
    return tmp_path / "predictions.json"


def test_the_evidence_waits_for_a_choice_and_says_how_to_go_on(learner_here, capsys):
    """Run All first: the evidence cell's lock(...) with nothing chosen stops the run (PredictFirst) and says what
    to click, which cells to run next, and how to see the answer without predicting; nothing is recorded, so the
    prediction can still be made, and once it is, the same cell locks it and runs on."""
    p = PREDICTIONS["half_the_circle"]
    global my_prediction                                             # the notebook's own name for it
    my_prediction = predict("half_the_circle")
    with pytest.raises(reveals.PredictFirst) as stop:
        lock(my_prediction)
    said = " ".join(str(stop.value).replace("\u00a0", " ").split())
    assert "nothing is chosen in the prediction cell above" in said and "Run Selected Cell and All Below" in said
    assert "reveal(my_prediction, ask=True)" in said and "shows it in a moment" not in said   # the browser answered
    assert my_prediction.record is None and not my_prediction.buttons.disabled and not learner_here.exists()
    my_prediction.choose(3)
    lock(my_prediction)
    assert capsys.readouterr().out.startswith("Your prediction is locked")
    assert my_prediction.record["choice"] == p.options[2].text and "Right." in str(reveal(my_prediction))
    assert [e["choice"] for e in json.loads(learner_here.read_text())] == [p.options[2].text]
    with pytest.raises(TypeError, match=r"lock\(prediction\)"):
        lock("the DeLaN")


def test_predict_first_shows_as_its_message_alone(shell, learner_here):
    shell.shown.clear()
    shell.run_cell("from lesson_course.reveal import lock, predict\nfirst = predict('half_the_circle')\nlock(first)")
    ((etype, value, stb),) = shell.shown
    assert etype.__name__ == "PredictFirst" and stb == [f"PredictFirst: {value}"]
    assert "reveal(first, ask=True)" in value


def test_an_unattended_run_runs_the_evidence_without_a_choice_and_keeps_the_answer_hidden(capsys):
    """Where no learner is there to choose (the build, the tests, the grader: LESSON_PREDICTIONS=""), the evidence
    runs with nothing chosen, records nothing and says so; the reveal hides the answer unless asked, and asking
    closes the prediction (a later click does not count)."""
    p = PREDICTIONS["half_the_circle"]
    my_prediction = predict("half_the_circle")
    my_prediction.choose(1)
    lock(my_prediction)
    assert capsys.readouterr().out.startswith("Your prediction is locked")
    assert my_prediction.buttons.disabled
    my_prediction.choose(4)
    assert my_prediction.chosen is p.options[0] and "Not right." in str(reveal(my_prediction))

    reveals.KERNEL_LOG.clear()
    open_one = predict("half_the_circle")
    lock(open_one)
    assert "no learner is here to choose" in " ".join(capsys.readouterr().out.split())
    assert open_one.record is None and not open_one.buttons.disabled
    assert "still hidden" in str(reveal(open_one))
    asked = " ".join(str(reveal(open_one, ask=True)).split())
    assert " ".join(p.answer.split()) in asked and "You chose" not in asked
    assert open_one.record["asked"] is True and open_one.buttons.disabled and "asked for the answer" in \
        open_one.status.value
    open_one.choose(3)                                               # too late: the answer is on screen
    assert "You chose" not in str(reveal(open_one))


def test_a_closure_without_a_choice_from_an_earlier_version_leaves_the_prediction_open(learner_here):
    """Earlier versions closed a prediction "without a choice" when Run All ran its evidence first, and kept that
    in the browser's history and this machine's file.  Such an event closes nothing: the prediction opens, the
    history leaves the event out, and a lock made now is the one kept."""
    from lesson_course.review import compacted, valid_events
    legacy = {"t": "2026-01-01T00:00:00+00:00", "predict": "half_the_circle", "choice": None, "words": ""}
    learner_here.write_text(json.dumps([legacy]))
    choice, browser_reports = _restarted([legacy], "half_the_circle")
    browser_reports()
    assert choice.record is None and not choice.buttons.disabled and "next cell locks" in choice.status.value
    choice.choose(2)
    lock(choice)
    events, _ = valid_events([legacy, choice.record])
    assert compacted(events) == [choice.record] and choice.record["choice"] == choice.prediction.options[1].text
    assert json.loads(learner_here.read_text()) == [choice.record]


def test_this_machines_file_keeps_only_what_the_learner_did(learner_here):
    """The server's file (history_file) keeps locks the learner made and answers they asked for, nothing else: a
    run that only showed a prediction, or ran the evidence with no learner there, adds nothing to it."""
    predict("what_a_delan_learns")
    made = predict("half_the_circle")
    made.choose(1)
    lock(made)
    asked = predict("letters_twice_as_fast")
    reveal(asked, ask=True)
    kept = json.loads(learner_here.read_text())
    assert [(e["predict"], e["choice"], e.get("asked")) for e in kept] == [
        ("half_the_circle", made.prediction.options[0].text, None), ("letters_twice_as_fast", None, True)]


def test_a_new_prediction_widget_hands_the_browser_nothing_the_kernel_knows(learner_here):
    """A prediction widget starts with nothing to hand the browser (its pending events and its log are empty), even
    in a kernel that knows locks from this machine's file and from other widgets: only a lock made through it is
    handed on.  (The browser side, tests/test_browser.py: a widget rendered in a fresh browser profile leaves that
    browser's storage as it was.)"""
    other = {"t": "2026-01-01T00:00:00+00:00", "predict": "half_the_circle", "choice": "x", "words": ""}
    learner_here.write_text(json.dumps([other]))
    reveals.KERNEL_LOG.append({**other, "predict": "letters_twice_as_fast"})
    choice = predict("what_a_delan_learns")
    assert choice.store.log == "[]" and choice.store.pending == "[]"
    choice.choose(1)
    lock(choice)
    assert [e["predict"] for e in json.loads(choice.store.pending)] == ["what_a_delan_learns"]


def test_a_note_waits_for_every_prediction_above_it(learner_here):
    """note(key): the after-lock text of a notebook (notes.json) once every prediction asked above it is locked or
    its answer asked for; before, a line that says it waits (and not the text)."""
    from lesson_course.reveal import NOTES, note
    key = next(k for k, n in NOTES.items() if len(n["after"]) == 2)
    first, second = NOTES[key]["after"]
    text = NOTES[key]["text"]
    assert reveals.WAITING in repr(note(key)) and text not in repr(note(key))
    one = predict(first)
    one.choose(1)
    lock(one)
    assert text not in repr(note(key))
    reveal(predict(second), ask=True)
    assert note(key)._repr_markdown_() == text
    with pytest.raises(KeyError, match="the notes are"):
        note("99:1")


def test_every_predictions_first_evidence_cell_locks_it():
    """In the teachers' notebooks the first code cell after each prediction cell locks that prediction."""
    import nbformat

    from lesson_tools.build import SOLUTIONS
    asked = 0
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        code = [c.source for c in nbformat.read(str(path), as_version=4).cells if c.cell_type == "code"]
        for k, source in enumerate(code):
            for variable in re.findall(r"(\w+) = predict\(", source):
                asked += 1
                assert k + 1 < len(code) and f"lock({variable})" in code[k + 1], (path.name, variable)
    assert asked == len(PREDICTIONS)


def test_reveals_wrap_at_spaces_and_use_the_notebooks_symbols():
    from lesson_course.reveal import WIDTH
    for name, p in PREDICTIONS.items():
        choice = predict(name)
        choice.choose(1)
        choice.sentence.value = "a guess about the mass matrix " * 8
        out = str(reveal(choice))
        assert all(len(line) <= WIDTH for line in out.splitlines()), max(out.splitlines(), key=len)
        flat = " ".join(out.split())                       # a word broken across lines would not be found whole
        assert f"The answer: {' '.join(p.answer.split())}" in flat
        assert "q''" not in flat and "qdd" not in flat, name


# ---------------------------------------------------------------------- framework
@pytest.mark.parametrize("x, digits, text", [
    (3.14159, 3, "3.142"), (2.1e-5, 3, "2.1e-05"), (-0.0004, 3, "-0.0004"), (0.0, 3, "0.000"),
    (-0.0, 3, "0.000"), (-1e-9, 3, "-1e-09"), (0.02, 1, "0.02"), (0.2, 1, "0.2"), (0.26, 1, "0.3"), (5, 3, "5.000"),
    (True, 3, "1.000"), (1 + 2j, 2, "1.00"), ([0.3, -1.2], 3, "[0.300, -1.200]"), ([0.26, 1], 1, "[0.3, 1.0]"),
    ([[1, 2], [3, 4]], 2, "[[1.00, 2.00], [3.00, 4.00]]"), ("abc", 3, "'abc'"), (None, 3, "None"),
])
def test_num_rounds_numbers_and_arrays(x, digits, text):
    assert framework.num(x, digits) == text


def test_num_rounds_to_three_digits_by_default():
    assert framework.num(1.23456) == "1.235" and framework.num([2e-4]) == "[0.0002]"


def test_short_puts_an_exception_on_one_line_of_at_most_150_characters():
    assert framework.exception_line(ValueError("a  b\n  c")) == "ValueError: a b c"
    assert framework.exception_line(KeyError()) == "KeyError"
    exact = "x" * 150
    assert framework.exception_line(ValueError(exact)) == f"ValueError: {exact}"
    cut = framework.exception_line(ValueError("y" * 151))
    assert cut == "ValueError: " + "y" * 147 + "..."


def test_close_compares_every_entry_up_to_and_including_tol():
    assert framework.close([1.0, 2.0], [1.5, 2.0], 0.5) and not framework.close([1.0, 2.0], [1.5, 2.0], 0.25)
    assert framework.close(np.zeros(0), np.zeros(0), 0.1)
    assert not framework.close(np.zeros(2), np.zeros(3), 1.0)


@pytest.mark.parametrize("got, key, what", [
    (None, "none", "f returned None"), ("text", "not numbers", "f returned str 'text', not numbers"),
    ([1.0, 2.0], "shape", "f returned shape (2,), expected ()"),
    (np.nan, "not finite", "f returned NaN (not a finite number)"),
    ([np.inf, 1.0], "not finite", "f returned inf (not a finite number) in 1 of its 2 entries"),
])
def test_as_array_says_what_the_learners_function_returned(got, key, what):
    with pytest.raises(framework.Fail) as info:
        framework.as_array(got, (), "f")
    assert (info.value.what, info.value.hint, str(info.value)) == (what, key, what)


def test_a_learner_error_keeps_the_learners_message():
    err = framework.LearnerError(ZeroDivisionError("division by zero"))
    assert str(err) == "division by zero" and isinstance(err.exc, ZeroDivisionError)


def test_register_records_a_spec_and_the_registered_name_prints_one_line(capsys):
    def _demo_check(fn):
        if framework.as_number(framework.call(fn), "_demo_check") != 1:      # read through a reader
            raise framework.Fail("it is not 1", "not one")
    try:
        check = framework.register("99_demo", hints={"not one": "return 1"})(_demo_check)
        other = framework.register("99_demo", function="learner_fn")(lambda fn: None)
        spec = check.spec
        assert framework.REGISTRY["_demo_check"] is spec and framework.REGISTRY["<lambda>"] is other.spec
        assert (spec.name, spec.notebook, spec.function, spec.test, spec.hints) == \
            ("_demo_check", "99_demo", "_demo_check", _demo_check, {"not one": "return 1"})
        assert other.spec.function == "learner_fn" and other.spec.hints == {}
        assert check(lambda: 1) is None
        assert capsys.readouterr().out == "PASS: _demo_check\n"
        check(lambda: 2)
        assert capsys.readouterr().out == "FAIL: _demo_check: it is not 1. Hint: return 1\n"
    finally:
        for name in ("_demo_check", "<lambda>"):
            framework.REGISTRY.pop(name, None)


def test_a_check_without_a_teachers_stub_calls_not_implemented_not_attempted():
    def raises(*args):
        raise NotImplementedError("Your turn")
    spec = framework.Check("_nostub", "99_no_such_notebook", "fn", test=lambda fn: fn())
    assert framework.outcome(spec, raises).status == "not attempted"
    assert framework._function_def(lambda x: x) is None           # a lambda has no def to compare


# ---------------------------------------------------------------------- the exercises' own cases
def _matrix_of(label):
    """The matrix a case's label names, worked out from the label alone."""
    if label.startswith("the true M at q = "):
        q = ast.literal_eval(label.removeprefix("the true M at q = "))
        return independent.closed_form_mass_matrix(chain, np.array(q))
    if label == "M = -(true M)":
        return -chain.mass_matrix([0.3, -1.2])
    if label == "the true 3x3 M of a 3-link chain":
        return independent.three_link().mass_matrix([0.4, -0.9, 2.0])
    if label.startswith("M = diag"):
        return np.diag(ast.literal_eval(label.removeprefix("M = diag")))
    turned = re.fullmatch(r"M = R diag\((.+)\) R\^T \(R a rotation by (.+) rad\)", label)
    if turned:
        c, s = np.cos(float(turned[2])), np.sin(float(turned[2]))
        R = np.array([[c, -s], [s, c]])
        return R @ np.diag(ast.literal_eval(f"({turned[1]})")) @ R.T
    return np.array(ast.literal_eval(label.removeprefix("M = ")), dtype=float)


def test_each_inertia_case_is_the_matrix_its_label_names_with_the_right_answer():
    cases = nb01_challenge._cases()
    assert len(cases) == 12
    for label, M, expected in cases:
        np.testing.assert_allclose(M, _matrix_of(label), atol=1e-12, err_msg=label)
        symmetric = np.allclose(M, M.T, atol=1e-9)
        assert expected == bool(symmetric and np.linalg.eigvalsh(M).min() > 0), label


def test_the_pass_criterion_cases_sit_on_each_boundary_and_every_known_mistake_fails_one(monkeypatch):
    monkeypatch.setattr(facts, "PASS_MAX_ERROR", 0.3)
    T, cases = 0.3, nb04_feedback._cases()
    for e, lam, expected in cases:
        assert expected == (e < T and lam > 0)
    errors = [e for e, lam, _ in cases if lam > 0]
    assert T in errors and any(0.99 * T <= e < T for e in errors) and any(T < e <= 1.1 * T for e in errors)
    valid = [lam for e, lam, _ in cases if e < T]
    assert 0.0 in valid and any(-0.05 <= lam < 0 for lam in valid) and any(0 < lam <= 1e-5 for lam in valid)
    answers = {v.key: [bool(v.answer(e, lam)) for e, lam, _ in cases]
               for v in checks.REGISTRY["lesson_passes"].variations}
    truth = [want for _, _, want in cases]
    assert all(a != truth for a in answers.values())
    assert len({tuple(a) for a in answers.values()}) == len(answers)        # each mistake is told apart


def test_the_position_first_mistake_moves_q_before_qd():
    def f(q, qd):
        return -4.0 * q
    q, qd = nb05_retrieve_and_space._position_first(f, np.array([1.0]), np.array([0.5]), 0.1)
    np.testing.assert_allclose(q, [1.05])                                  # 1 + 0.1 * 0.5
    np.testing.assert_allclose(qd, [0.5 - 0.1 * 4.0 * 1.05])               # with the NEW q


@pytest.mark.parametrize("change, text", [
    (dict(m=[2.0, 1.0, 1.0]), "masses m are [2.000, 1.000, 1.000], expected [1.000, 1.000, 1.000]"),
    (dict(l=[1.0, 0.8, 0.5]), "lengths l are [1.000, 0.800, 0.500], expected [1.000, 0.800, 0.600]"),
    (dict(lc=[0.5, 0.4, 0.2]), "centres of mass lc are [0.500, 0.400, 0.200], expected [0.500, 0.400, 0.300]"),
    (dict(I=[0.1, 0.1, 0.1]), "inertias I are [0.100, 0.100, 0.100], expected [0.083, 0.053, 0.030]"),
    (dict(g=9.0), "gravity g are [9.000], expected [9.810]"),
])
def test_the_triple_pendulum_fail_line_names_the_wrong_parameter_and_its_values(change, text):
    from lesson_course import checks
    l = np.array(TRIPLE_LENGTHS)
    rods = dict(m=[1.0] * 3, l=l, lc=l / 2, I=l**2 / 12, g=9.81)
    status, line = checks.evaluate("triple_pendulum", lambda: PlanarChain(**{**rods, **change}))
    assert status == "fail" and text in line, line


def test_the_closed_form_mass_matrix_matches_the_rnea_for_unequal_links():
    arm = PlanarChain(m=[1.3, 0.7], l=[1.4, 0.9], lc=[0.6, 0.35], I=[0.2, 0.05])
    for q in ([0.3, -1.2], [2.0, 0.7]):
        np.testing.assert_allclose(independent.closed_form_mass_matrix(arm, np.array(q)), arm.mass_matrix(q),
                                   atol=1e-12)


def test_the_finite_difference_derivative_accepts_integer_lists():
    dM = independent.mass_matrix_derivative_fd(chain, [0, 1])
    assert dM.shape == (2, 2, 2) and abs(dM[1, 0, 0] + np.sin(1.0)) < 1e-8     # dM11/dq2 = -sin q2 here


def test_random_states_fill_the_circle_and_the_speed_box():
    q, qd = independent.random_states(3, 2000, seed=0, qd_max=2.0)
    assert q.shape == qd.shape == (2000, 3) and q.min() < -3.0 and q.max() > 3.0
    assert np.abs(qd).max() <= 2.0 and qd.min() < -1.9 and qd.max() > 1.9


# ---------------------------------------------------------------------- the PASS report's diagnosis
class Bumped:
    """The truth's M plus `bump` on entry (1, 1) at q = (pi/2, -pi/2) only; `step` training steps so far."""
    n_dof = 2

    def __init__(self, bump, step, base=None):
        self.bump, self.step, self.base, self.calls = bump, step, base, []

    def mass_matrix(self, q):
        self.calls.append(len(q))
        M = chain.mass_matrix(q) if self.base is None else np.broadcast_to(self.base, (len(q), 2, 2)).copy()
        at = np.all(np.isclose(q, [np.pi / 2, -np.pi / 2]), axis=1)
        M[at, 1, 1] += self.bump
        return M


def test_diagnose_finds_where_the_error_is_worst():
    d = feedback.diagnose(Bumped(0.5, step=0), chain, points=5)
    assert d["max_error"] == pytest.approx(0.5) and d["worst_entry"] == (1, 1)
    np.testing.assert_allclose(d["worst_q"], [np.pi / 2, -np.pi / 2])
    assert not d["passed"] and d["steps"] == 0
    assert any("M[1,1] at q = (1.57,-1.57) rad" in h for h in d["hints"])


def test_diagnose_hints_follow_the_training_steps(monkeypatch):
    monkeypatch.setattr(facts, "STEPS_PER_PRESS", 100)
    hints = {step: feedback.diagnose(Bumped(0.5, step=step), chain, points=5)["hints"] for step in (0, 99, 100)}
    assert all(len(h) == 2 for h in hints.values())                   # a training hint, then where it is worst
    assert "untrained" in hints[0][0] and "99" in hints[99][0] and "100" in hints[100][0]
    assert len({h[0] for h in hints.values()}) == 3
    assert facts.text("PASS_MAX_ERROR") in hints[100][0]


def test_diagnose_at_the_threshold_fails_and_below_it_has_no_hint(monkeypatch):
    err = feedback.diagnose(Bumped(0.25, step=0), chain, points=5)["max_error"]
    monkeypatch.setattr(facts, "PASS_MAX_ERROR", err)                   # exactly at the threshold: FAIL
    at = feedback.diagnose(Bumped(0.25, step=0), chain, points=5)
    assert not at["passed"] and len(at["hints"]) == 2
    monkeypatch.setattr(facts, "PASS_MAX_ERROR", np.nextafter(err, 1.0))
    below = feedback.diagnose(Bumped(0.25, step=0), chain, points=5)
    assert below["passed"] and below["hints"] == []


def test_diagnose_flags_a_singular_mass_matrix_but_not_a_small_positive_one():
    singular = feedback.diagnose(Bumped(0.0, step=5000, base=np.diag([1.0, 0.0])), chain, points=3)
    assert singular["min_eig"] == 0.0 and "not positive-definite" in singular["hints"][0]
    small = feedback.diagnose(Bumped(0.0, step=5000), chain, points=3)         # the truth: 0 < min eig < 1
    assert 0 < small["min_eig"] < 1 and small["passed"] and small["hints"] == []


def test_diagnose_uses_the_lessons_grid_by_default(monkeypatch):
    monkeypatch.setattr(facts, "GRID_POINTS", 3)
    model = Bumped(0.0, step=0)
    feedback.diagnose(model, chain)
    assert model.calls == [9]


# ---------------------------------------------------------------------- marker messages
def test_short_cuts_long_text_to_forty_characters():
    assert markers._short("a  b\n c") == "a b c"
    assert markers._short("x" * 40) == "x" * 40
    assert markers._short("x" * 41) == "x" * 37 + "..."


def test_stale_reports_every_unknown_marker():
    problems = markers.stale("<!--fact:NOPE-->1<!--/fact--> and <!--fact:NOPE_2-->2<!--/fact-->", "README")
    assert len(problems) == 2 and "NOPE_2" in problems[1]


def test_bare_facts_are_found_whatever_their_case():
    found = markers.bare(f"press TRAIN ×{facts.STEPS_PER_PRESS} twice")
    assert [name for name, _ in found] == ["STEPS_PER_PRESS"]


def test_a_reveal_is_formatted_text_in_a_notebook_and_the_same_words_as_plain_text():
    """In a notebook the cell shows the HTML (the front end wraps it at spaces); elsewhere str() is the text."""
    import html as html_module
    choice = predict("what_a_delan_learns")
    choice.choose(2)
    choice.sentence.value = "It learns the mass matrix & not much else"
    shown = reveal(choice)
    markup = shown._repr_html_()
    assert markup.startswith("<div class='lesson-reveal'") and "word-break:normal" in markup
    assert "&amp;" in markup and "<b>The answer:</b>" in markup
    assert markup.count("<li>") == len(PREDICTIONS["what_a_delan_learns"].options) - 1
    text = " ".join(re.sub(r"<[^>]+>", " ", html_module.unescape(markup)).replace("\u2011", "-").split())
    plain = " ".join(str(shown).split())
    assert "lower\u2011triangular" in markup, "a hyphenated word may break at its hyphen in the browser"
    assert text == plain, (text, plain)



def test_the_learners_words_are_quoted_with_one_full_stop():
    for words, quoted in (("It learns M.", "“It learns M.” Compare"), ("It learns M", "“It learns M”. Compare")):
        reveals.KERNEL_LOG.clear()
        choice = predict("what_a_delan_learns")
        choice.choose(1)
        choice.sentence.value = words
        assert quoted in " ".join(str(reveal(choice)).split())
