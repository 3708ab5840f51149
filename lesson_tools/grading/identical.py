"""The same work handed in by several people, judged on what each learner wrote, not on the course's own cells.

    rows = identical.noted(rows, submissions, course)       # the gradebook's `note` (the teacher's eye only)
    found = identical.findings(rows, submissions, course)   # .notes {submission: [note]}, .common [Common]

What a learner wrote (`pieces`): every code cell of their notebook but the check cells, less the lines the learner
version of that notebook already holds (the exercise's `def` line, the given lines, the stub; lines compared
stripped, blank ones left out).  A piece answers the checks whose answer it defines (`def lesson_passes` answers
`checks.lesson_passes(lesson_passes)`).  Among different people, the same piece is

- flagged when it is long: `size` (Python tokens, a comment counting its words) at least `threshold`, twice the
  course's own answer to the exercise and never under MIN_TOKENS;
- flagged when it is short but wrong for both (not PASS on every check it answers): the same mistake;
- otherwise *common*: a short right answer many people arrive at on their own, counted (for the class report), not
  flagged.

The very same file is flagged whatever its size: a hard link shared by two people, or the same notebook, outputs and
metadata included, holding something the learner wrote and what running it left (outputs or execution counts: two
files never run are the same exactly when their code is, which the rules above judge).  A file that is one of the
course's own notebooks is the course's, not a classmate's.  Which of two people wrote it is for a person to find
out.
"""
import hashlib
import io
import json
import tokenize
from dataclasses import dataclass

from . import gradebook as gb
from .course_notebooks import carries_check_marker, defined_names
from .verified import package_root

MIN_TOKENS = 30         # a line or two: the same few tokens are what many people write on their own
FACTOR = 2              # an answer up to twice the course's own is as short as answers to it come


@dataclass(frozen=True)
class Piece:
    """What a learner wrote in one cell: its `text` (stripped lines), the `checks` it answers, its `size` in
    tokens and the `threshold` below which the same text from two people is expected."""
    text: str
    checks: tuple
    size: int
    threshold: int


@dataclass(frozen=True)
class Common:
    """A short right answer several people wrote the same: `notebook`, the `checks` it answers, how many `people`,
    its `size` in tokens, its `text`."""
    notebook: str
    checks: tuple
    people: int
    size: int
    text: str


@dataclass(frozen=True)
class Findings:
    notes: dict             # {submission label: [note, ...]}
    common: list            # [Common], most people first


def size(text):
    """Python tokens in `text` (names, operators, numbers, strings), a comment counting its words; text that does
    not tokenize counts its words."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text + "\n").readline))
    except (tokenize.TokenError, SyntaxError):
        return len(text.split())
    skip = (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    return sum(len(t.string.lstrip("#").split()) if t.type == tokenize.COMMENT else 1
               for t in tokens if t.type not in skip)


def pieces(code, course_nb):
    """[Piece] a learner wrote in a notebook whose code cells' sources are `code`, of the course notebook
    `course_nb`."""
    answers = {c.answer_name: c.name for c in course_nb.checks}
    solutions = {name: ex.solution for ex in course_nb.exercises for name in ex.names}
    found = []
    for source in code:
        if carries_check_marker({"cell_type": "code", "source": source}):
            continue
        lines = [line.strip() for line in source.splitlines()]
        text = "\n".join(line for line in lines if line and line not in course_nb.stock)
        if not text:
            continue
        names = sorted(n for n in defined_names(source) if n in answers)
        course_size = sum(size(solutions.get(n, "")) for n in names)
        found.append(Piece(text, tuple(answers[n] for n in names), size(text), max(MIN_TOKENS, FACTOR * course_size)))
    return found


def file_digest(text):
    """What a notebook file holds, outputs and metadata included, as a hash (of its JSON, so the same notebook saved
    with other spacing or key order is the same)."""
    return hashlib.sha256(json.dumps(json.loads(text), sort_keys=True).encode("utf-8")).hexdigest()


def ran(text):
    """Whether a notebook holds what running it leaves (an output or an execution count): only then is the same
    file more than the same code."""
    return any(c.get("outputs") or c.get("execution_count") for c in json.loads(text).get("cells", ())
               if isinstance(c, dict) and c.get("cell_type") == "code")


def course_notebook_digests(root=None):
    """Digests of the course's own notebooks (learner and teachers' versions), as `file_digest` makes them."""
    root = root or package_root()
    return {file_digest(p.read_text(encoding="utf-8-sig")) for p in (root / "notebooks").rglob("*.ipynb")}


def _verdicts(rows):
    by = {}
    for r in rows:
        if r["check"]:
            by.setdefault(r["submission"], {})[r["check"]] = r["verdict"]
    return by


def _right(piece, verdicts):
    """True when every check the piece answers said PASS, False when one did not, None when nothing says."""
    said = [verdicts.get(c) for c in piece.checks]
    if not said or None in said:
        return None
    return all(v == gb.PASS for v in said)


def _named(subs):
    return ", ".join(f"{s.file.handed} ({s.student})" for s in subs[:3]) + (" ..." if len(subs) > 3 else "")


def _groups(subs, key):
    """Groups of submissions of at least two people that share `key(sub)` (None: no key)."""
    groups = {}
    for sub in subs:
        k = key(sub)
        if k is not None:
            groups.setdefault(k, []).append(sub)
    return [g for g in groups.values() if len({s.person.key for s in g}) > 1]


def findings(rows, submissions, course, course_digests=None):
    """Findings across the class: notes for the teacher on identical work, and the common short right answers
    (see the module's docstring); `rows`: the gradebook's rows (verdicts), `course`: {stem: CourseNotebook}."""
    course_digests = course_notebook_digests() if course_digests is None else course_digests
    subs = [s for s in submissions if s.person.platform != "unmatched"]
    graded = [s for s in subs if s.text is not None and s.notebook in course]
    written = {s.label: pieces(s.code, course[s.notebook]) for s in graded}
    verdicts = _verdicts(rows)
    notes, named = {}, {}

    def note(sub, text):
        notes.setdefault(sub.label, []).append(text)

    def others(sub, group):                  # other people's, less those already named as the very same file
        return [o for o in group if o.person.key != sub.person.key and o.label not in named.get(sub.label, ())]

    digests = {s.label: file_digest(s.text) for s in graded if written[s.label] and ran(s.text)}

    def same_file(sub):                      # its file's digest, unless the file is one of the course's own
        digest = digests.get(sub.label)
        return digest if digest and digest not in course_digests else None

    for key, subs_of, what in ((lambda s: s.file.inode, subs, "the same file (a hard link)"),
                               (same_file, graded, "the same file, outputs and metadata too,")):
        for group in _groups(subs_of, key):
            for sub in group:
                them = others(sub, group)
                if them:
                    note(sub, f"{what} as {_named(them)}: identical work handed in by two people, for a person to "
                              f"look at")
                    named.setdefault(sub.label, set()).update(o.label for o in them)
    by_piece = {}
    for sub in graded:
        for piece in written[sub.label]:
            by_piece.setdefault((sub.notebook, piece), []).append(sub)
    common = []
    for (stem, piece), group in by_piece.items():
        if len({s.person.key for s in group}) < 2:
            continue
        what = f"answer to {', '.join(piece.checks)}" if piece.checks else "cell of their own"
        if piece.size >= piece.threshold:
            for sub in group:
                if others(sub, group):
                    note(sub, f"wrote the same {what} ({piece.size} tokens; the same is expected below "
                              f"{piece.threshold}) as {_named(others(sub, group))}: for a person to look at")
            continue
        right = {s.label: _right(piece, verdicts.get(s.label, {})) for s in group}
        wrong = [s for s in group if right[s.label] is False]
        for sub in wrong:
            if others(sub, wrong):
                note(sub, f"wrote the same wrong {what} ({piece.size} tokens) as {_named(others(sub, wrong))}: "
                          f"the same mistake by two people, for a person to look at")
        passed = {s.person.key for s in group if right[s.label]}
        if len(passed) > 1:
            common.append(Common(stem, piece.checks, len(passed), piece.size, piece.text))
    common.sort(key=lambda c: (-c.people, c.notebook, c.checks, c.text))
    return Findings(notes, common)


def noted(rows, submissions, course, course_digests=None):
    """The rows with `findings`' notes added to each submission's `note`."""
    notes = findings(rows, submissions, course, course_digests).notes
    return [{**r, "note": "; ".join(([r["note"]] if r["note"] else []) + notes[r["submission"]])}
            if notes.get(r["submission"]) else r for r in rows]
