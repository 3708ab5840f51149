"""Retrieve and space: the course's retrieval questions as flash cards that come back when they are due.

    review("02")     # the panel: notebook 02's cards join the learner's deck; every card due now is asked

CARDS come from cards.json (`lesson-tools build` writes it from the notebooks' questions).  The learner
types an answer, opens the real one and rates their recall (again, hard, good, easy).  The schedule is FSRS's
(the `fsrs` package), replayed from the learner's event log kept in the browser (ui.browser_store): {"t": ISO
time, "open": notebook} and {"t": ISO time, "card": id, "rating": 1-4, "answer": the learner's words}.  The same
history keeps the learner's locked predictions (lesson_course.reveal): {"t", "predict": its name, "choice": the
option's text, "words"}, or {"t", "predict", "choice": None, "asked": True} when the learner asked for the answer
without choosing; the schedule passes them by."""
import html
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import fsrs
import ipywidgets as widgets

from .limits import MAX_ANSWER_CHARS, MAX_REVIEW_EVENTS
from .ui.browser_store import BrowserStore

CARDS = json.loads((Path(__file__).with_name("cards.json")).read_text(encoding="utf-8"))
"""{card id "NN:label": {"notebook": where it is asked, "after": the notebook whose panel adds it to the deck,
"question", "answer": HTML, "text": the question as plain text}}"""

NOTEBOOKS = sorted({card["after"] for card in CARDS.values()})   # the notebooks whose panels add cards
SCHEDULER = fsrs.Scheduler(enable_fuzzing=False)      # deterministic: the same log gives the same schedule
RATINGS = {"again": fsrs.Rating.Again, "hard": fsrs.Rating.Hard, "good": fsrs.Rating.Good, "easy": fsrs.Rating.Easy}
LEARN_AHEAD = timedelta(minutes=20)                   # as Anki: with nothing else due, a card due this soon is asked


def _time(text):
    return datetime.fromisoformat(text).astimezone(UTC)


def valid_events(log):
    """(events, dropped): the well-formed events of `log` (a list), oldest first, and how many were not."""
    events = []
    for e in log if isinstance(log, list) else []:
        try:
            t = _time(e["t"])
            if "open" in e and e["open"] in NOTEBOOKS:
                events.append((t, e))
            elif e.get("card") in CARDS and e.get("rating") in (1, 2, 3, 4):
                events.append((t, e))
            elif isinstance(e.get("predict"), str) and (e.get("choice") is None or isinstance(e["choice"], str)):
                events.append((t, e))
        except (TypeError, KeyError, ValueError, AttributeError):
            pass
    events.sort(key=lambda pair: pair[0])
    return [e for _, e in events], len(log if isinstance(log, list) else []) - len(events)


def closes(event):
    """True when a "predict" event closes its prediction: it holds the learner's choice, or says they asked for the
    answer without one.  (A "predict" event with neither, written by earlier versions of the course when Run All
    ran a prediction's evidence before any choice, closes nothing: that prediction can still be made.)"""
    return isinstance(event.get("choice"), str) or (event.get("choice") is None and event.get("asked") is True)


def history(store):
    """(events, dropped): valid_events of a BrowserStore's log (none when the log is not JSON)."""
    try:
        log = json.loads(store.log)
    except ValueError:
        log = []
    return valid_events(log)


def append(store, event):
    """Add `event` to a BrowserStore: to the log the kernel reads (kept by the history's rule, compacted) and to
    the events it hands the browser to keep (`pending`, which the browser empties once they are in its storage)."""
    events, _ = history(store)
    try:
        pending, _ = valid_events(json.loads(store.pending))
    except ValueError:
        pending = []
    store.pending = json.dumps(compacted(pending + [event]), ensure_ascii=False)
    store.log = json.dumps(compacted(events + [event]), ensure_ascii=False)


def compacted(events):
    """`events` (valid_events) as a history keeps them, oldest first: each notebook's first "open", each
    prediction's first "predict" event that closes it (`closes`; a later one adds nothing, one that closes nothing
    is left out) and the newest MAX_REVIEW_EVENTS other events.  The browser store merges by the same rule."""
    opens, others = {}, []
    for e in events:
        if "open" in e:
            opens.setdefault(("open", e["open"]), e)
        elif "predict" in e:
            if closes(e):
                opens.setdefault(("predict", e["predict"]), e)
        else:
            others.append(e)
    return sorted([*opens.values(), *others[-MAX_REVIEW_EVENTS:]], key=lambda e: _time(e["t"]))


def schedule(events):
    """{card id: fsrs.Card} for every card in the deck: the cards of each opened notebook, due from when it was
    first opened, with every rating in `events` (valid_events) replayed in time order."""
    deck = {}
    for e in events:
        t = _time(e["t"])
        if "open" in e:
            for i, (cid, card) in enumerate(CARDS.items()):
                if card["after"] == e["open"] and cid not in deck:
                    deck[cid] = fsrs.Card(card_id=i + 1, due=t)
        elif e.get("card") in deck:
            deck[e["card"]], _ = SCHEDULER.review_card(deck[e["card"]], fsrs.Rating(e["rating"]), t)
    return deck


def due(deck, now):
    """Card ids to ask now, most overdue first: those due by `now`, or with none, those due within LEARN_AHEAD."""
    ids = sorted(deck, key=lambda cid: deck[cid].due)
    ready = [cid for cid in ids if deck[cid].due <= now]
    return ready or [cid for cid in ids if deck[cid].due <= now + LEARN_AHEAD]


def _in(delta):
    """When, from now: "now", or "in 3 min"."""
    span = interval(delta)
    return span if span == "now" else f"in {span}"


def interval(delta):
    """A time span as a learner reads it: "now", "3 min", "5 h", "8 days"."""
    s = delta.total_seconds()
    if s < 30:
        return "now"
    for unit, size in (("day", 86400), ("h", 3600), ("min", 60)):
        if s >= size or unit == "min":
            n = max(1, round(s / size))
            return f"{n} {unit}{'s' if unit == 'day' and n > 1 else ''}"


def _now():
    return datetime.now(UTC)


class ReviewPanel(widgets.VBox):
    """The review panel: the card due now (the question, a box for the learner's answer, the answer once they
    ask, four rating buttons with the interval each gives; this notebook's due cards before the others', and after
    a rating always a fresh card area), the deck's schedule, and the browser store (whose Load reviews says what
    it left out of the file it loaded).
    notebook: whose cards join the deck (None: none join; the Bench app's panel); clock: now, for tests."""

    def __init__(self, notebook=None, clock=_now):
        self.notebook, self.clock, self.current = notebook, clock, None
        self.store = BrowserStore()
        self.header = widgets.HTML().add_class("lesson-review-header")
        self.question = widgets.HTML().add_class("lesson-review-question")
        self.answer_box = widgets.Textarea(placeholder="Your answer first: type it (a few words will do), then "
                                                       "Show answer", layout=widgets.Layout(width="95%",
                                                                                              height="5em"))
        self.answer_box.add_class("lesson-review-answer-box")
        self.show = widgets.Button(description="Show answer", disabled=True).add_class("lesson-review-show")
        self.answer = widgets.HTML().add_class("lesson-review-answer")
        self.rate = {name: widgets.Button(description=name).add_class(f"lesson-review-{name}") for name in RATINGS}
        self.ratings = widgets.HBox(list(self.rate.values()))
        self.table = widgets.HTML().add_class("lesson-review-schedule")
        self.card_area = widgets.VBox([self.question, self.answer_box, self.show, self.answer, self.ratings])
        super().__init__([self.header, self.card_area, self.table, self.store])
        self.add_class("lesson-review")
        self.answer_box.observe(lambda _: setattr(self.show, "disabled", not self.answer_box.value.strip()),
                                "value")
        self.show.on_click(self._on_show)
        for name, b in self.rate.items():
            b.on_click(lambda _, name=name: self.rate_card(name))
        self.store.observe(lambda _: self._draw(), "log")
        if notebook is not None:
            self._append({"t": self.clock().isoformat(), "open": notebook})
        self._draw()

    @property
    def events(self):
        return history(self.store)

    def _append(self, event):
        append(self.store, event)

    def _own(self, cid):
        """True when card `cid` is this panel's notebook's: asked in it, or added to the deck by it."""
        return self.notebook is not None and self.notebook in (CARDS[cid]["after"], CARDS[cid]["notebook"])

    def _new_card(self):
        """The card area as a new card starts: the learner's box empty, the answer and the ratings hidden."""
        self.answer_box.value, self.answer_box.disabled, self.answer.value = "", False, ""
        self.show.layout.display, self.answer.layout.display, self.ratings.layout.display = None, "none", "none"

    def _on_show(self, _=None):
        card = CARDS[self.current]
        self.answer.value = (f"<div><b>Answer.</b> {card['answer']}</div><div><b>You wrote:</b> "
                             f"{html.escape(self.answer_box.value.strip())}</div><p>How well did you recall it?</p>")
        self.show.layout.display, self.answer.layout.display, self.ratings.layout.display = "none", None, None
        self.answer_box.disabled = True

    def rate_card(self, rating):
        """Rate the card shown: rating is "again", "hard", "good" or "easy"."""
        if rating not in RATINGS:
            raise ValueError(f"rate_card(rating): got {rating!r}; expected one of {', '.join(RATINGS)}")
        if self.current is None:
            raise ValueError("rate_card: no card is shown (nothing is due); wait until one is due")
        rated, self.current = self.current, None         # the panel moves on, even to the same card come back
        self._append({"t": self.clock().isoformat(), "card": rated, "rating": int(RATINGS[rating]),
                      "answer": self.answer_box.value.strip()[:MAX_ANSWER_CHARS]})

    def _draw(self):
        events, _ = self.events
        deck, now = schedule(events), self.clock()
        ready = sorted(due(deck, now), key=lambda cid: not self._own(cid))    # this notebook's cards first
        by_due = sorted((card.due, cid) for cid, card in deck.items())
        later = [(t, c) for t, c in by_due if c not in ready]
        parts = ([f"<b>Reviews</b> · {len(ready)} due now · {len(deck)} card{'s' if len(deck) != 1 else ''} "
                  f"in your deck"] if deck else ["<b>Reviews</b> · no cards yet"])
        if later:
            parts.append(f"next after these {_in(later[0][0] - now)}")
        self.header.value = " · ".join(parts)
        shown = ready[0] if ready else None
        if shown != self.current:
            self.current = shown
            self._new_card()
        self.card_area.layout.display = None if shown else "none"
        if shown:
            self.question.value = f"<div><b>{html.escape(shown)}</b> {CARDS[shown]['question']}</div>"
            for name, b in self.rate.items():
                nxt, _ = SCHEDULER.review_card(deck[shown], RATINGS[name], now)
                b.description = f"{name.capitalize()} · {interval(nxt.due - now)}"
        cell = "<td style='padding:0.1em 1em 0.1em 0'>{}</td>"
        rows = "".join(f"<tr class='lesson-review-row' data-card='{html.escape(c)}'>"
                       + cell.format(html.escape(c)) + cell.format(html.escape(_short(CARDS[c]["text"])))
                       + cell.format("now" if c in ready else _in(t - now)) + "</tr>"
                       for t, c in by_due)
        self.table.value = ("<details><summary>Your schedule</summary><table><tr><th>Card</th><th>Question</th>"
                            f"<th>Due</th></tr>{rows}</table></details>" if rows else
                            "<p>No cards yet: each notebook's last cell adds its questions.</p>")


def _short(text, n=72):
    return text if len(text) <= n else text[:n].rsplit(" ", 1)[0] + " …"


def review(notebook=None):
    """The review panel; notebook ("00" to "08", or a notebook's file name): its questions join the deck."""
    if notebook is not None:
        if str(notebook)[:2] not in NOTEBOOKS:
            raise ValueError(f"review(notebook): got {notebook!r}; expected one of {', '.join(NOTEBOOKS)} (the "
                             f"notebooks with questions), or nothing for the reviews alone")
        notebook = str(notebook)[:2]
    return ReviewPanel(notebook)
