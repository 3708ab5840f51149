"""Predict first: the learner writes a guess before the evidence, then `reveal` gives the answer and says which
of its key ideas the guess already named (a keyword match that understands a "not": a keyword after a negation
in the same clause, "does not learn the mass matrix", "torques instead of the mass matrix", does not count).

The answer waits for the learner: while the prediction is empty, `reveal` prints how to record one and keeps the
answer hidden, so "Restart Kernel and Run All" cannot show it before the learner has predicted.  A learner who
wants the answer without predicting asks for it explicitly: `reveal(my_prediction, ask=True)`.  Both outputs are
deterministic (nbval compares them), and wrapped at spaces to WIDTH characters (JupyterLab would otherwise break
a long line in the middle of a word)."""
import html
import re

from .notebook import WIDTH, wrapped  # noqa: F401 -- WIDTH: the width the reveals wrap to

QUESTION = ("A Deep Lagrangian Network refuses to learn the whole map from state to torque. "
            "What does it learn instead?")

ANSWER = ("It keeps the equation of motion M(q) q̈ + C(q, q̇) q̇ + g(q) = τ as it is and learns only two "
          "physical functions inside it: the mass matrix M(q), through a lower-triangular factor L(q) with "
          "M = L Lᵀ (so M is symmetric positive-definite for any weights), and the potential energy V(q), whose "
          "gradient is gravity. The Coriolis term is then computed from ∂M/∂q, never learned.")

# idea -> words that show a guess has it (lower case; a guess matches if it contains any of them)
IDEAS = {
    "the mass matrix M(q) (the inertia)": ("mass matrix", "mass-matrix", "inertia", "m(q)", "cholesky",
                                           "ll^t", "llt", "ll'", "kinetic"),
    "the potential energy V(q) (gravity)": ("potential", "v(q)", "gravity", "gravit"),
    "the structure of the equation of motion": ("structure", "lagrang", "manipulator", "equation of motion",
                                                "euler", "physics", "coriolis", "christoffel"),
}


NEGATION = re.compile(r"\b(?:not|no|never|nor|neither|without|instead of|rather than|cannot)\b|n't\b")
CLAUSE_END = re.compile(r"[.;:!?,]|\b(?:but|however|just|only|whereas|while)\b")


def _mentions(text, word):
    """(affirmed, negated): does `word` occur in `text` outside, and inside, the scope of a negation (from the
    negation to the end of its clause)?"""
    affirmed = negated = False
    for m in re.finditer(re.escape(word), text):
        clause_start = max([0] + [c.end() for c in CLAUSE_END.finditer(text, 0, m.start())])
        if NEGATION.search(text, clause_start, m.start()):
            negated = True
        else:
            affirmed = True
    return affirmed, negated


def idea_mentions(prediction, ideas=None):
    """{idea: "named" | "negated" | "absent"}: the prediction names the idea, mentions it only after a negation
    ("it does not learn the mass matrix"), or does not mention it."""
    text = " ".join(str(prediction).lower().replace("’", "'").split())
    found = {}
    for idea, words in (ideas or IDEAS).items():
        marks = [_mentions(text, w) for w in words]
        found[idea] = ("named" if any(a for a, _ in marks) else "negated" if any(n for _, n in marks)
                       else "absent")
    return found


def matched_ideas(prediction, ideas=None):
    """{idea: True/False}: does the prediction name each idea (not only after a negation)?"""
    return {idea: state == "named" for idea, state in idea_mentions(prediction, ideas).items()}


class Reveal:
    """What `reveal` shows, as formatted text in a notebook (HTML: the front end wraps it at spaces to the output
    area's width, in JupyterLab, Notebook 7 and Voilà) and as plain text wrapped at WIDTH elsewhere
    (print(reveal(...)), str()).  Parts: ("p", text) a paragraph, ("label", label, text) a paragraph that starts
    with a bold label, ("tick", ticked, text) one line of the list of key ideas."""

    def __init__(self, parts):
        self.parts = parts

    def __str__(self):
        lines = []
        for kind, *rest in self.parts:
            if kind == "label":
                lines.append(wrapped(rest[1], f"{rest[0]} "))
            elif kind == "tick":
                lines.append(wrapped(rest[1], f"  {'[x]' if rest[0] else '[ ]'} "))
            elif kind == "gap":
                lines.append("")
            else:
                lines.append(wrapped(rest[0]))
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self):
        out, items = [], []
        for kind, *rest in self.parts + [("end",)]:
            if kind != "tick" and items:
                out.append("<ul style='list-style:none;padding-left:1.2em;margin:0.2em 0'>" + "".join(items)
                           + "</ul>")
                items = []
            if kind == "label":
                out.append(f"<p><b>{html.escape(rest[0])}</b> {html.escape(rest[1])}</p>")
            elif kind == "tick":
                items.append(f"<li>{'☑' if rest[0] else '☐'} {html.escape(rest[1])}</li>")
            elif kind == "p":
                out.append(f"<p>{html.escape(rest[0])}</p>")
        return (f"<div class='lesson-reveal' style='max-width:52em;line-height:1.45;overflow-wrap:normal;"
                f"word-break:normal'>{''.join(out)}</div>")


def reveal(prediction, answer=ANSWER, ideas=None, ask=False, call="reveal"):
    """The answer compared with the learner's recorded prediction (a Reveal, shown as the cell's result); with
    an empty prediction, the answer only when asked (ask=True).  call: the function the learner runs, named in
    the instructions."""
    guess = str(prediction or "").strip()
    if not guess and not ask:
        return Reveal([("p", "The answer is still hidden: your prediction is empty."),
                       ("p", "Write one sentence in the prediction cell, run it, then run this cell again."),
                       ("p", f"To see the answer without predicting, run {call}(my_prediction, ask=True) instead.")])
    parts = [("label", "Answer:", answer), ("gap",)]
    if not guess:
        return Reveal(parts + [("p", "You asked for the answer without a prediction. Next time, try a rough guess "
                                     "first: even a wrong one makes the answer stick.")])
    found = idea_mentions(guess, ideas)
    parts.append(("label", "You predicted:", f'"{guess}"'))
    for idea, state in found.items():
        note = " (you mentioned it only after a 'not'; the answer affirms it)" if state == "negated" \
            else ""
        parts.append(("tick", state == "named", f"{idea}{note}"))
    n = sum(state == "named" for state in found.values())
    if n == len(found):
        parts.append(("p", "You named every key idea. Well predicted."))
    elif n:
        parts.append(("p", f"You named {n} of {len(found)} key ideas; the unticked ones are what the rest of the "
                           f"course builds."))
    else:
        parts.append(("p", "Your guess names none of the key ideas (by keywords): compare it with the answer above, "
                           "and keep the difference in mind as you go on."))
    return Reveal(parts)


# ---------------------------------------------------------------------- notebook 07: the learned model at work
CONTROL_QUESTION = ("A DeLaN learns the arm's dynamics from the arm writing 15 letters. A controller then uses it "
                    "to make the real arm write 11 letters it never saw. Will its tracking error be close to that "
                    "of the same controller with the exact model, or close to that of PD feedback with no model? "
                    "Why?")

CONTROL_ANSWER = ("Close to the exact model's, and many times smaller than PD alone's at the same gains. The "
                  "model supplies the feed-forward torque each motion needs, M(q) q̈_d + c + g (gravity above "
                  "all), so the feedback only has to correct the small remainder; PD alone must first fall behind "
                  "before it pushes, and it sags under gravity. The unseen letters are new motions, but through "
                  "the same angles of the same arm, and a DeLaN's torque is exactly linear in q̈ and quadratic "
                  "in q̇, so learning M(q) and V(q) on those angles covers motions it never saw.")

CONTROL_IDEAS = {
    "close to the exact model (far better than PD alone)": ("exact model", "true model", "exact one", "true one",
                                                            "better than pd", "better than the pd",
                                                            "smaller than pd", "smaller than the pd"),
    "the model gives the feed-forward torque; PD must wait for an error": (
        "feed-forward", "feedforward", "feed forward", "anticipat", "gravity", "compensat", "cancel", "predict",
        "sag", "lag"),
    "new letters, same angles and the same physics": ("same angles", "same region", "same part", "same arm",
                                                      "workspace", "structure", "generali", "physics",
                                                      "lagrang", "interpolat"),
}


def reveal_control(prediction, ask=False):
    """reveal for notebook 07's question (CONTROL_QUESTION)."""
    return reveal(prediction, CONTROL_ANSWER, CONTROL_IDEAS, ask, call="reveal_control")


# ---------------------------------------------------------------------- notebook 08: what a robot records
SENSORS_QUESTION = ("The arm's encoders record each joint angle 500 times a second with a noise of 0.001 rad "
                    "(0.06°). You estimate q̈ by differencing the recorded positions twice and train a DeLaN on it. "
                    "What happens to the q̈ estimate, and to the mass matrix M(q) the DeLaN learns? Why?")

SENSORS_ANSWER = ("The q̈ estimate drowns in noise: each difference divides by the step h = 2 ms, so the noise "
                  "is divided by h², and its error is about √6 σ / h² ≈ 600 rad/s², hundreds of times the "
                  "motion's own q̈. The torques do not follow that q̈ at all, so the best a least-squares fit can do is to "
                  "stop using it: M(q) shrinks to almost nothing (M̂ ≈ εI) and the potential explains what it "
                  "can. The structure still holds (M̂ stays symmetric positive-definite), but the data no longer "
                  "teach it. The cure is not to differentiate the noise: smooth the positions first, or keep them "
                  "as they are and integrate the model's accelerations instead.")

SENSORS_IDEAS = {
    "differencing amplifies the noise (by 1/h²)": ("amplif", "h²", "h^2", "h2", "huge", "blow", "explode",
                                                   "swamp", "drown", "noisier", "much larger", "dominat",
                                                   "magnif"),
    "the learned M(q) shrinks towards zero": ("zero", "shrink", "collapse", "vanish", "tiny", "small m",
                                              "smaller m", "εi", "ignore", "degenerate"),
    "smooth, or integrate instead of differentiating": ("smooth", "filter", "integrat", "averag", "savitzky",
                                                        "low-pass", "low pass"),
}


def reveal_sensors(prediction, ask=False):
    """reveal for notebook 08's question (SENSORS_QUESTION)."""
    return reveal(prediction, SENSORS_ANSWER, SENSORS_IDEAS, ask, call="reveal_sensors")
