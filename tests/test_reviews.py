"""The review cards and their schedule (lesson_course/review.py): the cards come from the notebooks'
questions; FSRS's schedule is replayed from the learner's log, so a card rated "again" comes back before one rated
"easy", the same log gives the same schedule, and a log that is not one is refused item by item, never garbage.
The browser side (localStorage, download and load, a restart): tests/test_browser.py."""
import json
from datetime import UTC, datetime, timedelta

import nbformat
import pytest

from lesson_course import review as reviews
from lesson_course.limits import MAX_ANSWER_CHARS, MAX_REVIEW_EVENTS
from lesson_course.review import CARDS, RATINGS, ReviewPanel, due, interval, schedule, valid_events
from lesson_tools import build, catalog
from lesson_tools.cards import notebook_cards

T0 = datetime(2026, 12, 4, 12, tzinfo=UTC)


class Clock:
    def __init__(self):
        self.now = T0

    def __call__(self):
        return self.now


def _answer(panel, rating):
    panel.answer_box.value = "my answer"
    panel._on_show()
    panel.rate_card(rating)


def test_every_notebook_asks_retrieval_questions_and_each_is_a_card_with_its_answer():
    notebooks = {e.id[:2] for e in catalog.CATALOG if not e.app}
    assert {c["notebook"] for c in CARDS.values()} == notebooks
    assert {c["after"] for c in CARDS.values()} <= notebooks
    for cid, card in CARDS.items():
        assert card["question"].startswith("<p>") and len(card["answer"]) > 60 and "<!--" not in card["answer"], cid


def test_the_cards_are_the_notebooks_questions_as_the_build_reads_them():
    """cards.json is what the build reads from the sources now (a question edited without a rebuild fails)."""
    read = {}
    for entry in catalog.CATALOG:
        if not entry.app:
            read.update(notebook_cards(build.refresh(build._read(build.source_path(entry)), entry.id), entry.id[:2]))
    assert read == CARDS


def test_a_question_under_an_after_notebook_heading_joins_with_that_notebook():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(
        "## A\n\n**A1.** First?\n\n<details><summary>Answer</summary>\n\nOne.\n</details>\n\n"
        "## D · Later (after notebook 07)\n\n**D1.** Second?\n\n"
        "<details><summary>Answer</summary>\n\nTwo.\n</details>\n"
        "\n**Think!** Third?\n\n<details><summary>Reveal</summary>\n\nThree.\n</details>")])
    cards = notebook_cards(nb, "05")
    assert {k: v["after"] for k, v in cards.items()} == {"05:A1": "05", "05:D1": "07", "05:T1": "07"}
    assert cards["05:D1"]["answer"] == "<p>Two.</p>" and cards["05:T1"]["text"] == "Third?"


def test_a_card_rated_again_comes_back_before_one_rated_easy_and_the_schedule_replays_the_same():
    clock = Clock()
    panel = ReviewPanel("01", clock=clock)
    first, second = due(schedule(panel.events[0]), T0)
    assert panel.current == first and "2 due now" in panel.header.value
    _answer(panel, "again")
    assert panel.current == second
    _answer(panel, "easy")
    deck = schedule(panel.events[0])
    assert deck[first].due < deck[second].due
    assert deck[first].due - T0 <= timedelta(minutes=10) and deck[second].due - T0 >= timedelta(days=3)
    again = ReviewPanel(None, clock=clock)
    again.store.log = panel.store.log                     # a new kernel given the browser's log
    assert {c: d.due for c, d in schedule(again.events[0]).items()} == {c: d.due for c, d in deck.items()}
    assert again.current == first                        # due within the learn-ahead window, asked again
    clock.now = T0 + timedelta(days=30)
    assert due(deck, clock.now) == [first, second]       # both due a month later, the most overdue first


def test_the_buttons_say_the_interval_each_rating_gives():
    panel = ReviewPanel("00", clock=Clock())
    labels = [b.description for b in panel.rate.values()]
    assert [label.split(" · ")[0] for label in labels] == [name.capitalize() for name in RATINGS]
    assert labels[0].endswith("1 min") and labels[-1].endswith("days")


def test_the_answer_waits_for_the_learners_own_and_keeps_it_with_the_rating():
    panel = ReviewPanel("02", clock=Clock())
    assert panel.show.disabled and panel.answer.layout.display == "none"
    panel.answer_box.value = "x" * (MAX_ANSWER_CHARS + 10)
    assert not panel.show.disabled
    panel._on_show()
    assert "Answer." in panel.answer.value and panel.ratings.layout.display is None
    panel.rate_card("good")
    rated = [e for e in json.loads(panel.store.log) if "card" in e]
    assert len(rated) == 1 and len(rated[0]["answer"]) == MAX_ANSWER_CHARS and rated[0]["rating"] == 3


def test_opening_a_notebook_twice_adds_its_cards_once_and_the_log_is_bounded(monkeypatch):
    panel = ReviewPanel("03", clock=Clock())
    panel._append({"t": T0.isoformat(), "open": "03"})
    panel._append({"t": (T0 + timedelta(days=1)).isoformat(), "open": "03"})   # a later load of the notebook
    assert [e for e in json.loads(panel.store.log) if "open" in e] == [{"t": T0.isoformat(), "open": "03"}]
    monkeypatch.setattr(reviews, "MAX_REVIEW_EVENTS", 3)
    for k in range(5):
        panel._append({"t": (T0 + timedelta(minutes=k)).isoformat(), "card": "03:T1", "rating": 3})
    kept = json.loads(panel.store.log)                    # the open event stays: without it the deck is empty
    assert [e.get("open") for e in kept] == ["03", None, None, None] and MAX_REVIEW_EVENTS > 1000
    assert [e["t"] for e in kept[1:]] == [(T0 + timedelta(minutes=k)).isoformat() for k in (2, 3, 4)]


@pytest.mark.parametrize("junk", [
    {"t": "yesterday", "card": "01:R1", "rating": 3}, {"t": T0.isoformat(), "card": "99:Z9", "rating": 3},
    {"t": T0.isoformat(), "card": "01:R1", "rating": 7}, {"t": T0.isoformat(), "open": "42"}, "text", None, [1]])
def test_a_log_entry_that_is_not_a_review_is_left_out_and_counted(junk):
    """Left out of the schedule, and not announced by the header for ever after: Load reviews says what it left
    out of the file it loaded, once (the browser test)."""
    good = [{"t": T0.isoformat(), "open": "01"}, {"t": T0.isoformat(), "card": "01:R1", "rating": 1}]
    events, dropped = valid_events(good + [junk])
    assert events == good and dropped == 1
    panel = ReviewPanel(None, clock=Clock())
    panel.store.log = json.dumps(good + [junk])
    assert "left out" not in panel.header.value and "1 due now" in panel.header.value


def test_after_a_rating_the_panel_moves_on_even_when_the_same_card_comes_straight_back():
    """Rate R1 easy, then R2 again: R2 is the only card due within the look-ahead, so it comes back at once, and
    the panel shows it afresh (an empty answer box, open; the answer and the ratings hidden), not the old answer."""
    clock = Clock()
    panel = ReviewPanel("01", clock=clock)
    first, second = due(schedule(panel.events[0]), T0)
    _answer(panel, "easy")
    assert panel.current == second
    panel.answer_box.value = "my first try"
    panel._on_show()
    panel.rate_card("again")
    assert panel.current == second                          # back at once: 1 min, inside the look-ahead
    assert panel.answer_box.value == "" and not panel.answer_box.disabled
    assert panel.show.layout.display is None and panel.answer.layout.display == "none"
    assert panel.ratings.layout.display == "none" and panel.answer.value == ""


def test_a_notebooks_panel_asks_its_own_due_cards_first():
    """Notebook 02's cards due long before 08's: 08's panel still asks one of 08's first, then the rest, most
    overdue first; the Bench app's panel (no notebook) keeps the most overdue first."""
    clock = Clock()
    early = ReviewPanel("02", clock=clock)
    clock.now = T0 + timedelta(days=2)
    late = ReviewPanel("08", clock=clock)
    late.store.log = early.store.log
    late._append({"t": clock.now.isoformat(), "open": "08"})
    own = [cid for cid in CARDS if CARDS[cid]["after"] == "08"]
    assert own and late.current in own, late.current
    deck = schedule(late.events[0])
    assert due(deck, clock.now)[0] not in own                # without the rule, a card of 02 came first
    alone = ReviewPanel(None, clock=clock)
    alone.store.log = late.store.log
    assert alone.current == due(deck, clock.now)[0]


def test_a_log_that_is_not_a_list_gives_an_empty_deck_not_an_error():
    panel = ReviewPanel(None, clock=Clock())
    panel.store.log = "{not json"
    assert panel.current is None and "No cards yet" in panel.table.value


def test_review_names_the_notebooks_it_knows_and_a_rating_names_the_ratings():
    with pytest.raises(ValueError, match=r"got '9x'; expected one of 00, 01, .*08"):
        reviews.review("9x")
    assert reviews.review("02_model").notebook == "02"
    panel = ReviewPanel("01", clock=Clock())
    with pytest.raises(ValueError, match="again, hard, good, easy"):
        panel.rate_card("perfect")
    empty = ReviewPanel(None, clock=Clock())
    with pytest.raises(ValueError, match="no card is shown"):
        empty.rate_card("good")


@pytest.mark.parametrize("seconds, text", [(5, "now"), (60, "1 min"), (330, "6 min"), (3 * 3600, "3 h"),
                                            (86400, "1 day"), (8 * 86400, "8 days")])
def test_intervals_read_as_a_learner_reads_them(seconds, text):
    assert interval(timedelta(seconds=seconds)) == text


def test_when_a_card_is_due_reads_as_a_learner_says_it():
    from lesson_course.review import _in
    assert _in(timedelta(seconds=10)) == "now" and _in(timedelta(minutes=10)) == "in 10 min"
