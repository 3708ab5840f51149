"""What states a prediction's outcome, as the registry declares it (lesson_course.reveal.PREDICTIONS), for the tests
that look for it where a learner reads before choosing: the course's texts (tests/test_course.py) and the pages a
browser shows (tests/test_browser.py)."""
import re

from lesson_course.reveal import PREDICTIONS


def clauses(text, words=6):
    """The clauses of `text` (split at . ; : and dashes) of at least `words` words, spaces normalised."""
    return [" ".join(c.split()) for c in re.split(r"[.;:—]\s", text) if len(c.split()) >= words]


def outcome(name):
    """(patterns, clauses): prediction `name`'s give-away patterns, and the clauses of its answer and of its right
    option's reason."""
    p = PREDICTIONS[name]
    right = next(o for o in p.options if o.right)
    return p.gives_away, clauses(p.answer) + clauses(right.why)


def gives_away(name, texts):
    """A message for each text in `texts` (a dict where -> text) that states prediction `name`'s outcome."""
    patterns, said = outcome(name)
    found = []
    for where, text in texts.items():
        flat = " ".join(text.split())
        for pattern in patterns:
            m = re.search(pattern, flat, re.I)
            if m:
                found.append(f"{where} gives away {name}'s answer ({pattern!r}): "
                             f"...{flat[max(0, m.start() - 80):m.end() + 80]}...")
        found += [f"{where} gives away {name}'s answer: it says {clause!r}" for clause in said
                  if clause.lower() in flat.lower()]
    return found
