"""Predict first: before the evidence, the learner chooses one answer among plausible ones (the common
misconceptions among them) and may add a sentence of their own; after the evidence, `reveal` says whether the
choice was right, why, and why each other choice is not, and quotes the learner's sentence back unscored.

    my_prediction = predict("what_a_delan_learns")      # a widget: choose an answer, say why in your own words
    lock(my_prediction)                                 # the first evidence cell: the choice is final from here
    ...                                                 # the evidence
    note("01:1")                                        # text that interprets it, shown once the choice is locked
    reveal(my_prediction)                               # right or not, and why

Every prediction of the course is a Prediction in PREDICTIONS.  A choice is locked by the first cell of its
evidence (`lock`) or by its reveal, whichever runs first, and the lock is kept with the learner's history
(lesson_course.review: {"t", "predict": name, "choice": the option's text, "words"}; the first one counts), so
re-running the prediction cell, in the same kernel or after a restart, shows the locked choice, and `reveal`
judges that choice, never a later click.

The evidence waits for the choice: `lock` with nothing chosen stops the run (PredictFirst, one line that says
how to go on), so "Run All" stops at the first prediction not yet made instead of showing its evidence, and the
prediction can still be made.  Only where no learner is there to choose (LESSON_PREDICTIONS="": the course's
build, its tests, the grader) does the evidence run without a choice, its reveal then hiding the answer.
`reveal(my_prediction, ask=True)` shows the answer without a choice, and closes the prediction (recorded with
"asked": true).  What `reveal` shows is a Reveal: HTML in a notebook, text wrapped at WIDTH characters elsewhere.

The text that interprets a prediction's evidence is never on the page before the choice: a teachers' markdown
cell tagged `after-lock` becomes, in the learner's notebook, a code cell `note("NN:k")` that shows that text (from
notes.json, which the build writes) once every prediction above it in its notebook is locked."""
import html
import json
import os
import re
import textwrap
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

import ipywidgets as widgets

from lesson_lib.validate import integer

from .notebook import NBSP, WIDTH, MissingStep, wrapped  # noqa: F401 -- WIDTH: the width the reveals wrap to
from .review import append, closes, compacted, history, valid_events
from .ui.browser_store import BrowserStore


class Option(NamedTuple):
    """One answer a learner can choose: its text, whether it is right, and why (or why not)."""
    text: str
    right: bool
    why: str


class Prediction(NamedTuple):
    """A question asked before its evidence: the options in the order shown (exactly one right), the answer, and
    gives_away: patterns (regular expressions, any case) that state the answer (the outcome, not the principle a
    learner is asked to apply), which a learner must not meet before choosing: in the READMEs, the Bench app, an
    earlier notebook (its text, its outputs, its reveals and notes), a review card they can be asked by then, or
    anything on the page of the prediction's own notebook before its lock (every markdown and code cell: markdown
    renders at once, below the prediction too)."""
    question: str
    options: tuple
    answer: str
    gives_away: tuple = ()


PREDICTIONS = {
    "what_a_delan_learns": Prediction(
        question="A Deep Lagrangian Network refuses to learn the whole map from state to torque. What does it "
                 "learn instead?",
        options=(
            Option("The robot's parameters: each link's mass, length, centre of mass and inertia, fed to the "
                   "RNEA.", False,
                   "That is system identification: it assumes the arm is a chain of links whose form is written "
                   "down. A DeLaN assumes no links at all: M(q) and V(q) are general functions of q, so it fits an "
                   "arm whose geometry nobody knows."),
            Option("Two functions of the angles alone: the mass matrix M(q) and the potential energy V(q).", True,
                   "M comes from a lower-triangular factor, M = L Lᵀ, so it is symmetric positive-definite for "
                   "any weights; gravity is the gradient of V; the Coriolis term is computed from ∂M/∂q."),
            Option("One network for each term of the equation, M(q) q̈, the Coriolis torque and gravity, then "
                   "summed.", False,
                   "The Coriolis term is never learned: it is computed from ∂M/∂q, so it always agrees with M. "
                   "Gravity is not a network of its own either but the gradient of one potential V(q)."),
            Option("The Lagrangian L(q, q̇) as one network; the Euler–Lagrange equation turns it into torque.",
                   False,
                   "Close, but that is a Lagrangian neural network: a general L(q, q̇) need not have a positive "
                   "kinetic energy, so the inertia it implies, ∂²L/∂q̇², can be indefinite. A DeLaN fixes "
                   "T = ½ q̇ᵀ M(q) q̇ and learns M(q), through a factor that keeps it positive-definite, and V(q)."),
        ),
        answer="It keeps the equation of motion M(q) q̈ + C(q, q̇) q̇ + g(q) = τ as it is and learns only two "
               "physical functions inside it: the mass matrix M(q), through a lower-triangular (Cholesky) factor "
               "L(q) with M = L Lᵀ (so M is symmetric positive-definite for any weights), and the potential "
               "energy V(q), whose gradient is gravity. The Coriolis term is then computed from ∂M/∂q, never learned.",
        gives_away=(r"M\s*=\s*L\s*L[ᵀT]", r"learns? only", r"cholesky", r"(?:computed|comes?) from ∂M/∂q",
                    r"two (?:physical )?functions")),
    "half_the_circle": Prediction(
        question="Both models trained on half the circle of q0 only. Which is more accurate on the seen half at "
                 "twice the training speeds? And on the unseen half, at the training speeds?",
        options=(
            Option("The DeLaN in both cases; its structure holds at every speed and at every angle, seen or not.",
                   False,
                   "Structure fixes the form of the equation, not the values of M(q) and V(q): at angles it "
                   "never saw, those are still a network's extrapolation."),
            Option("The black box in both cases; with nothing to constrain it, it fits best wherever it is asked.",
                   False,
                   "Unconstrained, it must learn how τ depends on q̇ and q̈ from examples, and beyond the "
                   "speeds it saw it guesses."),
            Option("The DeLaN at twice the speeds; on the unseen half neither, and the black box may lead.", True,
                   "A DeLaN's torque is exactly linear in q̈ and quadratic in q̇ with coefficients that depend on "
                   "q alone, so speed is no extrapolation for it; new angles are, for both models."),
            Option("The black box at twice the speeds, free of a fixed form; on the unseen half, the DeLaN.", False,
                   "The fixed form is what carries a DeLaN to other speeds: its torque is linear in q̈ and "
                   "quadratic in q̇ by construction. At angles neither model saw, the form does not supply the "
                   "values of M(q) and V(q)."),
        ),
        answer="At twice the speeds on the seen half the DeLaN's error barely grows while the black box's grows "
               "by more than ten times: in a DeLaN the torque is linear in q̈ and quadratic in q̇ with "
               "coefficients that depend on q alone, so learning M(q) and V(q) on these angles covers every "
               "speed. On the unseen half neither model is sure of M(q) or V(q) (here the DeLaN's M carried over, "
               "its V did not), and the black box can be ahead: structure fixes the form of the equation, not the "
               "values it never saw.",
        gives_away=(r"barely grows", r"no extrapolation", r"covers every speed", r"neither model (?:knows|is sure)",
                    r"black box (?:can|may) (?:be ahead|lead)")),
    "control_with_a_learned_model": Prediction(
        question="A DeLaN learns the arm's dynamics from the arm writing 15 letters. A controller then uses it "
                 "to make the real arm write 11 letters it never saw. Will its tracking error be close to that "
                 "of the same controller with the exact model, or close to that of PD feedback with no model?",
        options=(
            Option("Close to PD alone's; a learned model is never accurate enough to help a controller with "
                   "feedback.", False,
                   "It need not be perfect: the feedback corrects what the model misses, and even an "
                   "approximate feed-forward torque removes most of what PD must wait for an error to produce."),
            Option("Worse than PD alone's: where the learned model is wrong, it pushes the arm the wrong way.",
                   False,
                   "A wildly wrong model could; this one is close to the truth on these angles, and its M is "
                   "positive-definite, so it never pushes against the acceleration asked for."),
            Option("Close to the exact model's on letters like those it learned; close to PD's on the others.",
                   False,
                   "New letters are new motions through the same angles, and a DeLaN's torque is linear in q̈ and "
                   "quadratic in q̇ with coefficients that depend on q alone, so it covers motions it never saw."),
            Option("Close to the exact model's: its feed-forward torque is nearly right, and feedback does the "
                   "rest.", True,
                   "Gravity above all is fed forward instead of being waited for, and the unseen letters pass "
                   "through the same angles of the same arm."),
        ),
        answer="Close to the exact model's: the DeLaN's controller tracks almost as well as the exact model's, and "
               "many times better than PD alone at the same gains. The model "
               "supplies the feed-forward torque each motion needs, M(q) q̈_d + c + g (gravity above all), so "
               "the feedback only has to correct the small remainder; PD alone must first fall behind before it "
               "pushes, and it sags under gravity. The unseen letters are new motions, but through the same "
               "angles of the same arm, and a DeLaN's torque is exactly linear in q̈ and quadratic in q̇, so "
               "learning M(q) and V(q) on those angles covers motions it never saw.",
        gives_away=(r"close to the exact model", r"(?:almost|nearly) as (?:well|good) as the exact model",
                    r"feed-?forward torque")),
    "letters_twice_as_fast": Prediction(
        question="The unseen letters written twice as fast: twice the joint speeds, four times the "
                 "accelerations, torques beyond anything in the training data. Same gains, same controllers: how "
                 "do the one with the DeLaN and the one with the black box fare?",
        options=(
            Option("The DeLaN's stays near the exact model's; the black box's falls far behind, towards PD's.",
                   True,
                   "The DeLaN's torque is linear in q̈ and quadratic in q̇ with coefficients that depend on q "
                   "alone: the same angles at twice the speed are no extrapolation for it. The black box has never "
                   "seen such speeds, and its torque misses by more than feedback at these gains can correct."),
            Option("Both stay near the exact model's; feedback corrects whatever the black box's torque "
                   "misses.", False,
                   "At the training speeds it did, but feedback at these gains corrects only small misses: at "
                   "twice the speed the black box's torque is off by newton-metres, and the pen lags by "
                   "centimetres."),
            Option("Both fall far behind: no learned model supplies torques beyond those it was trained on.",
                   False,
                   "True of the black box; the DeLaN's torques are not looked up but computed from M(q), c and "
                   "g(q), which hold at any speed through the same angles."),
            Option("The black box's stays near the exact model's; the DeLaN's fixed structure cannot follow fast "
                   "motion.", False,
                   "The structure is the true form of every rigid arm's dynamics, fast or slow: it is what "
                   "lets the DeLaN keep up."),
        ),
        answer="The DeLaN's controller keeps pace with the exact model's and the black box's falls far behind, "
               "its pen error many times larger, about half of PD alone's. Twice the speed through the same "
               "angles is no extrapolation for a torque that is exactly linear in q̈ and quadratic in q̇ with "
               "coefficients that depend on q alone; the black box has never seen such speeds and guesses, and "
               "feedback at these gains cannot make up for torques that far off.",
        gives_away=(r"keeps? pace", r"falls? far behind, (?:its|towards|to)", r"half of PD")),
    "noisy_recorded_positions": Prediction(
        question="The arm's encoders record each joint angle 500 times a second with a noise of 0.001 rad "
                 "(0.06°). You estimate q̈ by differencing the recorded positions twice and train a DeLaN on it. "
                 "What happens to the q̈ estimate, and to the mass matrix M(q) the DeLaN learns?",
        options=(
            Option("Little changes: 0.001 rad is far too small to matter, even after differencing twice.", False,
                   "Each difference divides by the step h = 2 ms, twice: the noise is divided by h² = 4·10⁻⁶ s², "
                   "which turns 0.001 rad into hundreds of rad/s²."),
            Option("q̈ is swamped by noise; to explain those large accelerations, the learned M(q) grows too "
                   "large.", False,
                   "The torques do not follow the noisy q̈ at all, so the best a least-squares fit can do is to "
                   "stop using it: M shrinks, it does not grow."),
            Option("q̈ is swamped by noise; the learned M(q) shrinks to almost nothing, yet stays "
                   "positive-definite.", True,
                   "Fitting torques that do not follow q̈, least squares makes M q̈ as small as the structure "
                   "allows (εI); the structure still holds, but the data no longer teach it."),
            Option("q̈ is noisy; the learned M(q) stops being positive-definite at some of the recorded angles.",
                   False,
                   "M = L Lᵀ + εI is symmetric positive-definite for any weights: no data can break that. What "
                   "data can do is make M useless."),
            Option("The noise averages out over the thousands of samples, so M(q) is learned as well as from the "
                   "exact q̈.", False,
                   "Noise in an input does not average out: it biases a least-squares fit towards zero "
                   "(the errors-in-variables problem), here all the way."),
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
"""The "predict" events that close a prediction (review.closes) this kernel knows, oldest first: its own locks,
those of this machine's file (`history_file`) and those its prediction widgets heard from the browser's history
(so a prediction cell run again in the same kernel is locked at once).  The kernel keeps them to itself: it hands a
browser only the locks made through that browser's widgets (review.append)."""
WAIT_FOR_BROWSER_S = 2.0    # how long a new prediction widget waits for the browser's history before it opens
RUN_BELOW = "Run > Run Selected Cell and All Below"


def unattended():
    """True where no learner is there to choose (LESSON_PREDICTIONS="": the course's build, its tests, the
    grader): the evidence then runs without a choice, and the reveals hide the answer."""
    return os.environ.get("LESSON_PREDICTIONS") == ""


def history_file():
    """Where this machine keeps the locks too, so that a kernel restarted on the same server knows them at once
    (the browser's history reaches a kernel only between cells, after "Restart Kernel and Run All" has run):
    $LESSON_PREDICTIONS, else $XDG_DATA_HOME/lesson-structure/predictions.json (~/.local/share/...).  It keeps only
    what the learner did: a choice locked, or the answer asked for (review.closes).  LESSON_PREDICTIONS="" keeps
    none (`unattended`)."""
    chosen = os.environ.get("LESSON_PREDICTIONS")
    if chosen is not None:
        return Path(chosen) if chosen else None
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data) / "lesson-structure" / "predictions.json"


def _file_events():
    """The "predict" events of history_file() that close a prediction (none when there is no file or it cannot be
    read)."""
    path = history_file()
    try:
        log = json.loads(path.read_text(encoding="utf-8")) if path is not None else []
    except (OSError, ValueError):
        return []
    return [e for e in valid_events(log)[0] if "predict" in e and closes(e)]


def _keep_in_file(event):
    """Add `event` to history_file(), written whole (a temporary file renamed); a home that cannot be written
    loses nothing the browser's history does not keep."""
    path = history_file()
    if path is None or not closes(event):
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(json.dumps(compacted(_file_events() + [event]), ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass


def _recorded(name, log):
    """The first "predict" event for prediction `name` in `log` (a list of events) that closes it, or None."""
    events, _ = valid_events(log)
    return next((e for e in events if e.get("predict") == name and closes(e)), None)


def _known():
    """Every closing "predict" event this kernel knows: KERNEL_LOG, with the file's read in."""
    KERNEL_LOG.extend(e for e in _file_events() if e not in KERNEL_LOG)
    return KERNEL_LOG


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
        _known()
        self.store = BrowserStore(controls=False)
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
        """The first "predict" event that closes this prediction in the kernel's or the browser's history, or
        None."""
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

    def lock(self, asked=False):
        """Record the choice in the learner's history, unless the prediction is closed already; with nothing
        chosen, record that the answer was asked for if `asked`, else record nothing."""
        if self.record is None and (self.chosen is not None or asked):
            chosen = self.chosen
            event = {"t": datetime.now(UTC).isoformat(), "predict": self.name,
                     "choice": chosen.text if chosen else None, "words": self.words}
            if chosen is None:
                event["asked"] = True
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
            self.status.value = ("<i>Choose, then run on: the next cell locks your choice and runs the evidence.</i>"
                                 if self.heard else "<i>Looking for a choice you locked earlier in this browser…</i>")
            return
        when = datetime.fromisoformat(record["t"]).astimezone(UTC).strftime("%d %b %Y, %H:%M UTC")
        chosen = self._option(record["choice"])
        self.buttons.value = chosen.text if chosen else None
        self.sentence.value = record.get("words") or ""
        self.buttons.disabled = self.sentence.disabled = True
        self.status.value = (f"<b>Locked</b> on {when}: the evidence has been shown, so this choice stays as it "
                             f"was, here and after a restart. Its reveal judges this choice." if chosen else
                             f"<b>Closed</b> on {when}: you asked for the answer without choosing. Its reveal "
                             f"shows the answer.")


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


class PredictFirst(MissingStep):
    """The evidence waits for a choice: nothing is chosen in the prediction cell (the message says what to do).
    Shown as its message alone (lesson_course.notebook.setup), and it stops "Run All" there."""


def lock(prediction):
    """Lock a prediction before its evidence (the first evidence cell calls it) and say so.  With nothing chosen,
    raise PredictFirst, so that the evidence waits for the learner's choice; where no learner is there to choose
    (`unattended`), say so and let the evidence run.  A locked prediction stays as it was locked."""
    _check(prediction, "lock")
    prediction.lock()
    chosen, record, name = prediction.chosen, prediction.record, _name_of(prediction)
    if chosen is not None:
        print(wrapped(f"Your prediction is locked: “{chosen.text}” Now the evidence; "
                      f"reveal({name}) will say whether it was right."))
    elif record is not None:
        print(wrapped(f"You asked for this prediction's answer without choosing (reveal({name}, ask=True)): "
                      f"here is the evidence."))
    elif unattended():
        print(wrapped("Nothing was chosen, and no learner is here to choose (LESSON_PREDICTIONS is empty: a build, "
                      "a test or the grader), so the evidence runs without a choice and the reveal hides the "
                      "answer."))
    else:
        earlier = ("" if prediction.answered else " If you locked a choice in this browser before, the prediction "
                   "cell shows it in a moment (the browser sends it once a run stops): then run this cell again.")
        said = (f"nothing is chosen in the prediction cell above, and the evidence waits for your choice. Click the "
                f"answer you think is right (and say why, if you like), then run this cell and the ones below it "
                f"({RUN_BELOW.replace(' ', NBSP)}). To see the answer without predicting, run reveal({name}, "
                f"ask=True) in a cell first.{earlier}")
        head = "PredictFirst: "                         # shown before the message, which breaks at spaces after it
        raise PredictFirst(textwrap.fill(said, WIDTH, initial_indent=head, break_long_words=False,
                                         break_on_hyphens=False)[len(head):])


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
    changes nothing).  Nothing chosen: the answer stays hidden unless ask=True, which closes the prediction.
    Revealing locks the choice."""
    _check(prediction, "reveal")
    if prediction.record is None and prediction.chosen is None and not ask:
        return Reveal([("p", "The answer is still hidden: no answer is chosen in the prediction cell."),
                       ("p", "Click the answer you think is right (and say why, if you like), then run this "
                             "cell again."),
                       ("p", f"To see the answer without predicting, run reveal({_name_of(prediction)}, ask=True) "
                             f"instead.")])
    prediction.lock(asked=ask)
    chosen, words, p = prediction.chosen, prediction.words, prediction.prediction
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


# ---------------------------------------------------------------------- notes: the text that interprets evidence
NOTES = json.loads((Path(__file__).with_name("notes.json")).read_text(encoding="utf-8"))
"""{note id "NN:k": {"after": the predictions asked above it in its notebook, "text": markdown}}, written by
`lesson-tools build` from the teachers' markdown cells tagged `after-lock`."""


WAITING = ("This text waits for your prediction: choose in the prediction cell above, then run the cells from the one "
           "that locks it.")


class Note:
    """What `note` shows: markdown in a notebook (rendered by JupyterLab, Notebook 7 and Voilà alike, maths
    included), the text itself elsewhere."""

    def __init__(self, text):
        self.text = text

    def _repr_markdown_(self):
        return self.text

    def __repr__(self):
        return self.text


def note(key):
    """The text of note `key` ("NN:k" in NOTES) once every prediction asked above it is locked (or its answer was
    asked for) in this kernel, else a line that says it waits for them."""
    if not isinstance(key, str) or key not in NOTES:
        raise KeyError(f"note(key): got {key!r}; the notes are {', '.join(NOTES)}")
    waiting = [name for name in NOTES[key]["after"] if _recorded(name, _known()) is None]
    if waiting:
        return Note(f"*{WAITING}*")
    return Note(NOTES[key]["text"])
