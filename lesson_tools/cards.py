"""The course's review cards (lesson_course/cards.json), read from the notebooks' retrieval questions, their
one home.  A question is a bold label in a markdown cell, then the question, then its answer folded away:

    **A1.** Why must a robot's mass matrix be symmetric positive-definite?       (or **Think!** ...)

    <details><summary>Answer</summary>            (or Reveal)
    ... the answer ...
    </details>

A card's id is "NN:label" (the Think! questions of a notebook are numbered T1, T2, ...).  Its cards join a
learner's deck when that notebook's review panel first runs, or a later one's when the question sits under a
heading that says "(after notebook NN)".  `lesson-tools build` writes the file; `check` compares it."""
import json
import re
from pathlib import Path

CARDS = Path(__file__).resolve().parents[1] / "lesson_course" / "cards.json"
QUESTION = re.compile(r"\*\*(?P<label>[A-Z]\d+\.|Think!)\*\*\s*(?P<question>.+?)\s*<details>\s*<summary>"
                      r"(?:Answer|Reveal)</summary>\s*(?P<answer>.+?)\s*</details>", re.S)
HEADING = re.compile(r"^#+ .*$", re.M)
AFTER = re.compile(r"\(after notebook (\d\d)\)")
COMMENT = re.compile(r"<!--.*?-->", re.S)


def _html(markdown):
    from nbconvert.filters.markdown import markdown2html_mistune  # 3 s to import: only where cards are built
    return markdown2html_mistune(COMMENT.sub("", markdown)).strip()


def notebook_cards(nb, notebook_id):
    """{card id: card} for one notebook (its markdown with the facts written into their markers)."""
    cards, thinks, after = {}, 0, notebook_id
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        headings = [(m.start(), AFTER.search(m[0])) for m in HEADING.finditer(cell.source)]
        for m in QUESTION.finditer(cell.source):
            for start, found in headings:
                if start < m.start():
                    after = found[1] if found else notebook_id
            if m["label"] == "Think!":
                thinks += 1
                label = f"T{thinks}"
            else:
                label = m["label"].rstrip(".")
            question = COMMENT.sub("", m["question"])
            cards[f"{notebook_id}:{label}"] = {
                "notebook": notebook_id, "after": after, "question": _html(question), "answer": _html(m["answer"]),
                "text": re.sub(r"<[^>]+>|[*`]", "", " ".join(question.split()))}
    return cards


def cards_text(teachers):
    """The text of cards.json for {notebook id: teachers' source with current markers}, in course order."""
    cards = {}
    for notebook_id, nb in teachers.items():
        cards.update(notebook_cards(nb, notebook_id[:2]))
    return json.dumps(cards, indent=1, ensure_ascii=False) + "\n"
