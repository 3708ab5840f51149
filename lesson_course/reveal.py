"""Predict first: before the evidence, the learner chooses one answer among plausible ones (the common
misconceptions among them) and may add a sentence of their own; after the evidence, `reveal` says whether the
choice was right, why, and why each other choice is not, and quotes the learner's sentence back unscored.

    my_prediction = predict("what_a_delan_learns")      # a widget: choose an answer, say why in your own words
    lock(my_prediction)                                 # the first evidence cell: the choice is final from here
    ...                                                 # the evidence
    reveal(my_prediction)                               # right or not, and why

Every prediction of the course is a Prediction in PREDICTIONS.  A choice is locked by the first cell of its
evidence (`lock`) or by its reveal, whichever runs first, and the lock is kept with the learner's history
(lesson_course.review: {"t", "predict": name, "choice": the option's text, or None when it was closed without
one, "words"}; the first one counts), so re-running the prediction cell, in the same kernel or after a restart,
shows the locked choice, and `reveal` judges that choice, never a later click.  Evidence run with nothing chosen
closes the prediction without a choice; while nothing is chosen `reveal` keeps the answer hidden and says how to
choose, so "Restart Kernel and Run All" cannot show it before the learner has predicted;
`reveal(my_prediction, ask=True)` shows it without a choice.  What `reveal` shows is a Reveal: HTML in a
notebook, text wrapped at WIDTH characters elsewhere."""
import html
import json
import os
import re
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

import ipywidgets as widgets

from lesson_lib.validate import integer

from .notebook import WIDTH, wrapped  # noqa: F401 -- WIDTH: the width the reveals wrap to
from .review import append, compacted, history, valid_events
from .ui.browser_store import BrowserStore


class Option(NamedTuple):
    """One answer a learner can choose: its text, whether it is right, and why (or why not)."""
    text: str
    right: bool
    why: str


class Prediction(NamedTuple):
    """A question asked before its evidence: the options in the order shown (exactly one right), the answer, and
    gives_away: patterns (regular expressions, any case) that state the answer (the outcome, not the principle a
    learner is asked to apply), which a learner must not meet before the question: in the READMEs, the Bench app,
    an earlier notebook, a review card they can be asked by then, or the notebook's cells above the prediction."""
    question: str
    options: tuple
    answer: str
    gives_away: tuple = ()


PREDICTIONS = {
    "what_a_delan_learns": Prediction(
        question="A Deep Lagrangian Network refuses to learn the whole map from state to torque. What does it "
                 "learn instead?",
        options=(
            Option("Two functions, the mass matrix M(q) and the potential V(q), that the equation of motion turns "
                   "into torque.", True,
                   "M comes from a lower-triangular factor, M = L Lᵀ, so it is symmetric positive-definite for "
                   "any weights; gravity is the gradient of V; the Coriolis term is computed from ∂M/∂q."),
            Option("The same map from state to torque, with a bigger and deeper network.", False,
                   "Size is not the difference: both networks use the same kind of layers. What differs is what "
                   "the network's outputs mean."),
            Option("The torque directly, with a penalty added to the loss that pushes its predictions towards what "
                   "physics allows.", False,
                   "A penalty discourages violations only where there is data, and only on average; a DeLaN's "
                   "structure makes them impossible at every state, for any weights."),
            Option("Three networks: one for M(q), one for the Coriolis term and one for gravity.", False,
                   "The Coriolis term is never learned: it is computed from ∂M/∂q, so it always agrees with M. "
                   "Gravity is not a network of its own either but the gradient of one potential V(q)."),
        ),
        answer="It keeps the equation of motion M(q) q̈ + C(q, q̇) q̇ + g(q) = τ as it is and learns only two "
               "physical functions inside it: the mass matrix M(q), through a lower-triangular (Cholesky) factor "
               "L(q) with M = L Lᵀ (so M is symmetric positive-definite for any weights), and the potential "
               "energy V(q), whose gradient is gravity. The Coriolis term is then computed from ∂M/∂q, never learned.",
        gives_away=(r"M\s*=\s*L\s*L[ᵀT]", r"learns? only two", r"cholesky", r"(?:computed|comes?) from ∂M/∂q")),
    "half_the_circle": Prediction(
        question="Both models trained on half the circle of q0 only. Which is more accurate on the seen half at "
                 "twice the training speeds? And on the unseen half, at the training speeds?",
        options=(
            Option("The DeLaN on both: its structure makes its torque right at every speed and at every angle, "
                   "seen or not.", False,
                   "Structure fixes the form of the equation, not the values of M(q) and V(q): at angles it "
                   "never saw, those are still a network's extrapolation."),
            Option("The black box on both: nothing constrains it, so it fits best wherever it is asked.", False,
                   "Unconstrained, it must learn how τ depends on q̇ and q̈ from examples, and beyond the "
                   "speeds it saw it guesses."),
            Option("About the same on both: they saw the same data, so they learned the same things.", False,
                   "The same data, but not the same hypotheses: what each model can represent decides how it "
                   "extrapolates."),
            Option("The DeLaN at twice the speeds; on the unseen half neither, and the black box can be ahead.",
                   True,
                   "A DeLaN's torque is exactly linear in q̈ and quadratic in q̇ with coefficients that depend on "
                   "q alone, so speed is no extrapolation for it; new angles are, for both models."),
        ),
        answer="At twice the speeds on the seen half the DeLaN's error barely grows while the black box's grows "
               "by more than ten times: in a DeLaN the torque is linear in q̈ and quadratic in q̇ with "
               "coefficients that depend on q alone, so learning M(q) and V(q) on these angles covers every "
               "speed. On the unseen half neither model knows M(q) or V(q), and the black box can be ahead: "
               "structure fixes the form of the equation, not the values it never saw.",
        gives_away=(r"barely grows", r"no extrapolation", r"covers every speed", r"neither model knows",
                    r"black box can be ahead")),
    "control_with_a_learned_model": Prediction(
        question="A DeLaN learns the arm's dynamics from the arm writing 15 letters. A controller then uses it "
                 "to make the real arm write 11 letters it never saw. Will its tracking error be close to that "
                 "of the same controller with the exact model, or close to that of PD feedback with no model?",
        options=(
            Option("Close to PD alone: a learned model is never accurate enough to help a controller that "
                   "already has feedback.", False,
                   "It need not be perfect: the feedback corrects what the model misses, and even an "
                   "approximate feed-forward torque removes most of what PD must wait for an error to produce."),
            Option("Close to the exact model: it supplies nearly the right feed-forward torque; feedback "
                   "corrects the rest.", True,
                   "Gravity above all is fed forward instead of being waited for, and the unseen letters pass "
                   "through the same angles of the same arm."),
            Option("Worse than PD alone: a model's errors push the arm the wrong way.", False,
                   "A wildly wrong model could; this one is close to the truth on these angles, and its M is "
                   "positive-definite, so it never pushes against the acceleration asked for."),
            Option("Close to the exact model on the 15 letters it learned, close to PD on the 11 new ones.", False,
                   "New letters are new motions through the same angles, and a DeLaN's torque is linear in q̈ and "
                   "quadratic in q̇ with coefficients that depend on q alone, so it covers motions it never saw."),
        ),
        answer="Close to the exact model's, and many times smaller than PD alone's at the same gains. The model "
               "supplies the feed-forward torque each motion needs, M(q) q̈_d + c + g (gravity above all), so "
               "the feedback only has to correct the small remainder; PD alone must first fall behind before it "
               "pushes, and it sags under gravity. The unseen letters are new motions, but through the same "
               "angles of the same arm, and a DeLaN's torque is exactly linear in q̈ and quadratic in q̇, so "
               "learning M(q) and V(q) on those angles covers motions it never saw.",
        gives_away=(r"close to the exact model", r"feed-forward torque")),
    "letters_twice_as_fast": Prediction(
        question="The unseen letters written twice as fast: twice the joint speeds, four times the "
                 "accelerations, torques beyond anything in the training data. Which learned model keeps up?",
        options=(
            Option("Both: both learned the letters well.", False,
                   "The black box learned τ(q, q̇, q̈) only at the speeds it saw; beyond them it guesses."),
            Option("The DeLaN keeps up; the black box falls far behind.", True,
                   "The DeLaN's torque is linear in q̈ and quadratic in q̇ with coefficients that depend on q "
                   "alone: the same angles at twice the speed are no extrapolation for it."),
            Option("Neither: both saw only the slower letters.", False,
                   "Speed is outside the black box's data, but not outside the DeLaN's structure."),
            Option("The black box keeps up; the DeLaN's structure is too rigid for fast motion.", False,
                   "The structure is the true form of every rigid arm's dynamics, fast or slow: it is what "
                   "lets the DeLaN keep up."),
        ),
        answer="The DeLaN keeps pace with the true model and the black box falls far behind: notebook 06's "
               "lesson at work. Twice the speed through the same angles is no extrapolation for a torque that "
               "is exactly linear in q̈ and quadratic in q̇ with coefficients that depend on q alone; the black "
               "box has never seen such speeds and guesses.",
        gives_away=(r"keeps? pace", r"falls? far behind")),
    "noisy_recorded_positions": Prediction(
        question="The arm's encoders record each joint angle 500 times a second with a noise of 0.001 rad "
                 "(0.06°). You estimate q̈ by differencing the recorded positions twice and train a DeLaN on it. "
                 "What happens to the q̈ estimate, and to the mass matrix M(q) the DeLaN learns?",
        options=(
            Option("Little changes: 0.001 rad is far too small to matter.", False,
                   "Each difference divides by the step h = 2 ms, twice: the noise is divided by h² = 4·10⁻⁶ s², "
                   "which turns 0.001 rad into hundreds of rad/s²."),
            Option("q̈ is swamped by noise; to explain the large accelerations, the learned M(q) grows too "
                   "large.", False,
                   "The torques do not follow the noisy q̈ at all, so the best a least-squares fit can do is to "
                   "stop using it: M shrinks, it does not grow."),
            Option("q̈ is noisy, so the learned M(q) stops being positive-definite.", False,
                   "M = L Lᵀ + εI is symmetric positive-definite for any weights: no data can break that. What "
                   "data can do is make M useless."),
            Option("The noise averages out over thousands of samples, so M(q) is learned as well as from the exact "
                   "q̈.", False,
                   "Noise in an input does not average out: it biases a least-squares fit towards zero "
                   "(the errors-in-variables problem), here all the way."),
            Option("q̈ is swamped by noise; the learned M(q) shrinks to almost nothing but stays "
                   "positive-definite.", True,
                   "Fitting torques that do not follow q̈, least squares makes M q̈ as small as the structure "
                   "allows (εI); the structure still holds, but the data no longer teach it."),
        ),
        answer="The q̈ estimate drowns in noise: each difference divides by the step h = 2 ms, so the noise is "
               "divided by h², and its error is about √6 σ / h² ≈ 600 rad/s², hundreds of times the motion's own "
               "q̈. The torques do not follow that q̈ at all, so the best a least-squares fit can do is to stop "
               "using it: M(q) shrinks to almost nothing, it collapses (M̂ ≈ εI), and the potential explains what "
               "it can. The structure still holds (M̂ stays symmetric positive-definite), but the data no longer "
               "teach it. "
               "The cure is not to differentiate the noise: smooth the positions first, or keep them as they "
               "are and integrate the model's accelerations instead.",
        gives_away=(r"collaps", r"\bM\S*\s+shrinks", r"shrinks to almost nothing",
                    r"as small as the structure allows")),
}


# ipywidgets gives each radio button one line of fixed height: an option longer than the line would overlap the next
LONG_OPTIONS = ("<style>.lesson-choice .widget-radio-box label {display: flex; flex-direction: row-reverse; "
                "justify-content: flex-end; align-items: flex-start; height: auto; line-height: 1.35; "
                "white-space: normal; margin-bottom: 0.45em} "
                ".lesson-choice .widget-radio-box input {margin: 0.2em 0.5em 0 0; flex: none}</style>")


KERNEL_LOG = []
"""The "predict" events this kernel knows, oldest first: its own locks, those of this machine's file
(`history_file`) and those its prediction widgets heard from the browser's history (so a prediction cell run again
in the same kernel is locked at once)."""
WAIT_FOR_BROWSER_S = 2.0    # how long a new prediction widget waits for the browser's history before it opens


def history_file():
    """Where this machine keeps the locks too, so that a kernel restarted on the same server knows them at once
    (the browser's history reaches a kernel only between cells, after "Restart Kernel and Run All" has run):
    $LESSON_PREDICTIONS, else $XDG_DATA_HOME/lesson-structure/predictions.json (~/.local/share/...).
    LESSON_PREDICTIONS="" keeps none: the course's build, its tests and the grader run with it."""
    chosen = os.environ.get("LESSON_PREDICTIONS")
    if chosen is not None:
        return Path(chosen) if chosen else None
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data) / "lesson-structure" / "predictions.json"


def _file_events():
    """The "predict" events of history_file() (none when there is no file or it cannot be read)."""
    path = history_file()
    try:
        log = json.loads(path.read_text(encoding="utf-8")) if path is not None else []
    except (OSError, ValueError):
        return []
    return [e for e in valid_events(log)[0] if "predict" in e]


def _keep_in_file(event):
    """Add `event` to history_file(), written whole (a temporary file renamed); a home that cannot be written
    loses nothing the browser's history does not keep."""
    path = history_file()
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(json.dumps(compacted(_file_events() + [event]), ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass


def _recorded(name, log):
    """The first "predict" event for prediction `name` in `log` (a list of events), or None."""
    events, _ = valid_events(log)
    return next((e for e in events if e.get("predict") == name), None)


class Choice(widgets.VBox):
    """The prediction widget: the question, one radio button per option (none chosen at first), a box for the
    learner's own words, a status line and the learner's history (an invisible BrowserStore).  Until the browser
    has said whether this prediction was locked before (or WAIT_FOR_BROWSER_S have passed) the buttons wait,
    greyed; a locked prediction shows its recorded choice and words, greyed for good.
    .name, .prediction the Prediction; .record the lock ({"t", "predict", "choice", "words"}) or None; .chosen the
    chosen Option (the recorded one once locked) or None; .words the sentence; .lock() records the choice."""

    def __init__(self, name):
        self.name, self.prediction = name, PREDICTIONS[name]
        self.buttons = widgets.RadioButtons(options=[o.text for o in self.prediction.options], value=None,
                                            disabled=True, layout=widgets.Layout(width="auto"))
        self.buttons.add_class("lesson-choice")
        self.sentence = widgets.Textarea(placeholder="Why? In your own words (optional; quoted back, never "
                                                     "scored)", layout=widgets.Layout(width="95%", height="4em"))
        self.status = widgets.HTML().add_class("lesson-prediction-status")
        KERNEL_LOG.extend(e for e in _file_events() if e not in KERNEL_LOG)
        self.store = BrowserStore(controls=False, log=json.dumps(KERNEL_LOG, ensure_ascii=False))
        question = widgets.HTML(f"<b>{html.escape(self.prediction.question)}</b>" + LONG_OPTIONS)
        super().__init__([question, self.buttons, self.sentence, self.status, self.store])
        self.add_class("lesson-prediction")
        # heard: the browser answered or the wait is over; answered: the browser answered (none will outside a kernel)
        self.heard = self.answered = type(self.comm).__name__ == "DummyComm"
        self.store.observe(self._on_store, ["log", "heard"])
        self.buttons.observe(lambda _: self.record is not None and self._show(), "value")   # a locked one stays
        if not self.heard and self.record is None:
            timer = threading.Timer(WAIT_FOR_BROWSER_S, self._stop_waiting)
            timer.daemon = True
            timer.start()
        self._show()

    @property
    def record(self):
        """The first "predict" event for this prediction that the kernel or the browser's history holds, or None."""
        return _recorded(self.name, KERNEL_LOG + history(self.store)[0])

    def _option(self, text):
        return next((o for o in self.prediction.options if o.text == text), None)

    @property
    def chosen(self):
        record = self.record
        return self._option(record["choice"] if record else self.buttons.value)

    @property
    def words(self):
        record = self.record
        return " ".join((record.get("words") or "" if record else self.sentence.value).split())

    def choose(self, number):
        """Choose option `number` (1 = the first shown), as a click would; a locked choice stays as it is."""
        n = len(self.prediction.options)
        number = integer("number", number, low=1, high=n, hint=f"expected 1 to {n}, the options as shown, first = 1")
        if self.record is None:
            self.buttons.value = self.prediction.options[number - 1].text

    def lock(self):
        """Record the choice (None if nothing is chosen) in the learner's history, unless it is locked already."""
        if self.record is None:
            chosen = self.chosen
            event = {"t": datetime.now(UTC).isoformat(), "predict": self.name,
                     "choice": chosen.text if chosen else None, "words": self.words}
            KERNEL_LOG.append(event)
            _keep_in_file(event)
            append(self.store, event)
        self._show()

    def _on_store(self, change):
        if change["name"] == "heard":
            self.heard = self.answered = True
        record = self.record
        if record is not None and record not in KERNEL_LOG:
            KERNEL_LOG.append(record)
        self._show()

    def _stop_waiting(self):
        self.heard = True
        self._show()

    def _show(self):
        """Draw the state: locked (the recorded choice, greyed, and when), waiting for the browser, or open."""
        record = self.record
        if record is None:
            self.buttons.disabled = not self.heard
            self.status.value = ("<i>Choose before you run on: the next cell locks your choice.</i>" if self.heard
                                 else "<i>Looking for a choice you locked earlier in this browser…</i>")
            return
        when = datetime.fromisoformat(record["t"]).astimezone(UTC).strftime("%d %b %Y, %H:%M UTC")
        chosen = self._option(record["choice"])
        self.buttons.value = chosen.text if chosen else None
        self.sentence.value = record.get("words") or ""
        self.buttons.disabled = self.sentence.disabled = True
        self.status.value = (f"<b>Locked</b> on {when}: the evidence has been shown, so this choice stays as it "
                             f"was, here and after a restart. Its reveal judges this choice." if chosen else
                             f"<b>Closed without a choice</b> on {when}: nothing was chosen before the evidence "
                             f"(or the answer) was shown. Its reveal shows the answer when asked (ask=True).")


def predict(name):
    """The Choice widget for PREDICTIONS[name] (display it: make it a cell's last line); locked as it was if the
    learner's history holds its lock."""
    if not isinstance(name, str) or name not in PREDICTIONS:
        raise KeyError(f"predict(name): got {name!r}; the predictions are {', '.join(sorted(PREDICTIONS))}")
    return Choice(name)


def _check(prediction, call):
    if not isinstance(prediction, Choice):
        raise TypeError(f"{call}(prediction): got {type(prediction).__name__} {prediction!r:.60}; expected the "
                        f"widget predict(...) made. Run the prediction cell (section 1), choose an answer, then "
                        f"run this cell again.")


_UNHEARD = (" (A choice you locked in this browser earlier still counts: the browser sends it once the cells "
            "have run; run the prediction cell again to see it.)")


def lock(prediction):
    """Lock a prediction before its evidence (the first evidence cell calls it) and say so: the choice, or that
    it is closed without one when nothing is chosen.  A locked prediction stays as it was locked."""
    _check(prediction, "lock")
    prediction.lock()
    chosen = prediction.chosen
    if chosen is not None:
        print(wrapped(f"Your prediction is locked: “{chosen.text}” Now the evidence; "
                      f"reveal({_name_of(prediction)}) will say whether it was right."))
    else:
        print(wrapped("No answer was chosen in the prediction cell before its evidence (what follows), so this "
                      "prediction is closed without one; its reveal shows the answer when asked (ask=True). In "
                      "the predictions still ahead, choose before you run on: a guess, even a wrong one, makes "
                      "the answer stick." + _UNHEARD * (not prediction.answered)))


class Reveal:
    """What `reveal` shows, as HTML in a notebook (wrapped by the front end at spaces, in JupyterLab, Notebook 7
    and Voilà) and as text wrapped at WIDTH elsewhere (print, str).  parts: ("label", label, text) a paragraph
    that starts with a bold label, ("p", text) a paragraph, ("item", mark, text) a line of a list."""

    def __init__(self, parts):
        self.parts = parts

    def __str__(self):
        lines = []
        for kind, *rest in self.parts:
            if kind == "label":
                lines.append(wrapped(rest[1], f"{rest[0]} "))
            elif kind == "item":
                lines.append(wrapped(rest[1], f"  {rest[0]} "))
            else:
                lines.append(wrapped(rest[0]))
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self):
        """Hyphenated words keep together (a non-breaking hyphen): a browser would otherwise break at the hyphen."""
        def esc(text):
            return re.sub(r"(?<=\w)-(?=\w)", "\u2011", html.escape(text))
        out, items = [], []
        for kind, *rest in self.parts + [("end",)]:
            if kind != "item" and items:
                out.append("<ul style='list-style:none;padding-left:1.2em;margin:0.2em 0'>" + "".join(items)
                           + "</ul>")
                items = []
            if kind == "label":
                out.append(f"<p><b>{esc(rest[0])}</b> {esc(rest[1])}</p>")
            elif kind == "item":
                items.append(f"<li>{esc(rest[0])} {esc(rest[1])}</li>")
            elif kind == "p":
                out.append(f"<p>{esc(rest[0])}</p>")
        return (f"<div class='lesson-reveal' style='max-width:52em;line-height:1.45;overflow-wrap:normal;"
                f"word-break:normal'>{''.join(out)}</div>")


def _name_of(prediction):
    """The name the notebook calls `prediction` by (fast_prediction, my_prediction): a public global name for it in
    the nearest calling frame outside lesson_course that has one (the notebook's), else "my_prediction"."""
    import inspect
    frame = inspect.currentframe()
    while frame is not None:
        if not frame.f_globals.get("__name__", "").startswith("lesson_course"):
            names = [k for k, v in frame.f_globals.items() if v is prediction and not k.startswith("_")]
            if names:
                return names[0]
        frame = frame.f_back
    return "my_prediction"


def reveal(prediction, ask=False):
    """A Reveal of the answer to a Choice: whether the chosen option is right and why, why each other option is
    right or not, and the learner's own words quoted back.  The choice judged is the locked one (a later click
    changes nothing).  Nothing chosen: the answer stays hidden unless ask=True.  Revealing locks the choice."""
    _check(prediction, "reveal")
    if prediction.record is None and prediction.chosen is None and not ask:
        return Reveal([("p", "The answer is still hidden: no answer is chosen in the prediction cell."),
                       ("p", "Click the answer you think is right (and say why, if you like), then run this "
                             "cell again."),
                       ("p", f"To see the answer without predicting, run reveal({_name_of(prediction)}, ask=True) "
                             f"instead.")])
    prediction.lock()
    chosen, words, p = prediction.chosen, prediction.words, prediction.prediction
    if chosen is None and not ask:
        return Reveal([("p", "The answer is still hidden: the prediction was closed without a choice, so there is "
                             "no choice to judge." + _UNHEARD * (not prediction.answered)),
                       ("p", f"To see the answer, run reveal({_name_of(prediction)}, ask=True) instead.")])
    if chosen is None:
        parts = [("p", "You asked for the answer without choosing one. Next time, commit to a guess first: even "
                       "a wrong one makes the answer stick.")]
    else:
        verdict = "Right." if chosen.right else "Not right."
        parts = [("label", "You chose:", f"“{chosen.text}”"), ("label", verdict, chosen.why)]
    parts.append(("label", "The answer:", p.answer))
    others = [o for o in p.options if o is not chosen]
    parts.append(("p", "The other choices:" if chosen else "The choices:"))
    parts += [("item", "✓" if o.right else "✗", f"{o.text} — {o.why}") for o in others]
    if words:
        parts.append(("label", "In your own words:", f"“{words}”{'' if words[-1] in '.!?' else '.'} Compare them "
                                                      f"with the answer: they are not scored, but the difference is "
                                                      f"what to remember."))
    elif chosen is not None:
        parts.append(("p", "You added no words of your own; saying why, even roughly, makes the answer stick."))
    return Reveal(parts)
