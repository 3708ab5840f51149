"""The same work handed in by several people, judged on what each learner wrote, not on the course's own cells.

    rows = identical.noted(rows, submissions, course)       # the gradebook's `note` (the teacher's eye only)
    found = identical.findings(rows, submissions, course)   # .notes {submission: [note]}, .common [Common], .pieces

What a learner wrote (`pieces`): in every code cell of their notebook but the check cells, the lines the learner
version's nearest cell (the exercise's stub: its `def` line, the given lines, the stub) does not hold, in order and
with their indentation; a line the learner wrote that happens to appear elsewhere in the notebook is theirs too.  A
piece answers the checks whose answer it defines (`def lesson_passes` answers `checks.lesson_passes(lesson_passes)`).
Two pieces are the same answer when their text is (comments included), or when their code is once comments are
dropped and each name the learner introduced is numbered in order of appearance (`form`): copied code with its
variables renamed is the same answer.  Among different people the same answer is

- flagged when it is long: `size` (Python tokens, a comment counting its words; for the same form, the code's tokens)
  at least `threshold`, twice the course's own answer to the exercise and never under MIN_TOKENS;
- flagged when it is wrong for all who wrote it (not PASS on every check it answers) and at least half the threshold
  long: a mistake of that length is not written twice by chance;
- otherwise what people write on their own, right (`T = 0.5 * qd @ Mqd`) or wrong (`T = qd @ Mqd`, the ½ left out,
  a mistake many make): not flagged; the class report counts how many wrote each (`Common`: the short right answers
  of several people, and the examples of its "what to go over again").

The very same file is flagged whatever its size: a hard link shared by two people, or the same notebook, outputs and
metadata included, holding something the learner wrote and what running it left (outputs or execution counts: two
files never run are the same exactly when their code is, which the rules above judge).  A file that is one of the
course's own notebooks is the course's, not a classmate's.  Which of two people wrote it is for a person to find
out.
"""
import builtins
import difflib
import hashlib
import io
import json
import keyword
import textwrap
import tokenize
from dataclasses import dataclass, field

from . import gradebook as gb
from .course_notebooks import carries_check_marker, defined_names
from .verified import package_root

MIN_TOKENS = 30         # a line or two: the same few tokens are what many people write on their own
FACTOR = 2              # an answer up to twice the course's own is as short as answers to it come
MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


@dataclass(frozen=True)
class Piece:
    """What a learner wrote in one cell: its `text` (stripped lines, to compare), its `code` (the lines as written,
    dedented, comments dropped: what the report shows), its `form` (code with the learner's names numbered), the
    `checks` it answers, its `size` in tokens (a comment counting its words), the code's `form_size`, and the
    `threshold` below which the same answer from two people is expected."""
    text: str
    checks: tuple
    size: int
    threshold: int
    code: str = field(default="", compare=False)
    form: str = field(default="", compare=False)
    form_size: int = field(default=0, compare=False)


@dataclass(frozen=True)
class Common:
    """A short right answer several people wrote the same: `notebook`, the `checks` it answers, how many `people`,
    its `size` in tokens, its `text` (the code, as the most of them wrote it)."""
    notebook: str
    checks: tuple
    people: int
    size: int
    text: str


@dataclass(frozen=True)
class Findings:
    notes: dict             # {submission label: [note, ...]}
    common: list            # [Common], most people first
    pieces: dict = field(default_factory=dict)      # {submission label: [Piece]}


def _tokens(text):
    return list(tokenize.generate_tokens(io.StringIO(text + "\n").readline))


def size(text):
    """Python tokens in `text` (names, operators, numbers, strings), a comment counting its words; text that does
    not tokenize counts its words."""
    try:
        tokens = _tokens(text)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return len(text.split())
    skip = (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    return sum(len(t.string.lstrip("#").split()) if t.type == tokenize.COMMENT else 1
               for t in tokens if t.type not in skip)


def without_comments(code):
    """`code` with its comments taken out (a line that held only a comment goes), indentation kept."""
    try:
        tokens = _tokens(code)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return code
    lines = code.splitlines()
    for t in reversed([t for t in tokens if t.type == tokenize.COMMENT]):
        row, col = t.start
        lines[row - 1] = lines[row - 1][:col].rstrip()
    return "\n".join(line for line in lines if line.strip())


KNOWN = frozenset(dir(builtins)) | frozenset(keyword.kwlist)


def form(code, given_names):
    """(form, tokens): `code` as a sequence of tokens, comments and layout dropped (indentation kept as such), each
    name the learner introduced (not a keyword, a builtin, an attribute or a name of the course's `given_names`)
    numbered in order of first appearance; None, 0 when it does not tokenize."""
    try:
        tokens = _tokens(code)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None, 0
    names, out, previous, count = {}, [], None, 0
    for t in tokens:
        if t.type in (tokenize.COMMENT, tokenize.NL, tokenize.ENDMARKER):
            continue
        if t.type == tokenize.NAME and t.string not in KNOWN and t.string not in given_names and previous != ".":
            out.append(names.setdefault(t.string, f"v{len(names)}"))
        else:
            out.append({tokenize.NEWLINE: "\n", tokenize.INDENT: "<in>", tokenize.DEDENT: "<out>"}.get(t.type,
                                                                                                     t.string))
        count += t.type not in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)
        previous = t.string
    return " ".join(out), count


def _names(sources):
    found = set()
    for source in sources:
        try:
            found |= {t.string for t in _tokens(source) if t.type == tokenize.NAME}
        except (tokenize.TokenError, SyntaxError, IndentationError):
            continue
    return frozenset(found)


def own_lines(source, given):
    """The lines of `source` the learner wrote: those the most alike of the learner version's code cells (`given`)
    does not hold, matched in order (stripped, blank lines and the solution markers left out)."""
    mine = [line for line in source.splitlines() if line.strip() and line.strip() not in MARKERS]
    keys = [line.strip() for line in mine]
    best, ratio = (), 0.0
    for cell in given:
        theirs = [line.strip() for line in cell.splitlines() if line.strip()]
        r = difflib.SequenceMatcher(None, theirs, keys, autojunk=False).ratio()
        if r > ratio:
            best, ratio = theirs, r
    matcher = difflib.SequenceMatcher(None, best, keys, autojunk=False)
    return [mine[j] for op, _, _, j1, j2 in matcher.get_opcodes() if op in ("insert", "replace")
            for j in range(j1, j2)]


def pieces(code, course_nb):
    """[Piece] a learner wrote in a notebook whose code cells' sources are `code`, of the course notebook
    `course_nb`."""
    answers = {c.answer_name: c.name for c in course_nb.checks}
    solutions = {name: ex.solution for ex in course_nb.exercises for name in ex.names}
    given_names = _names(course_nb.given)
    found = []
    for source in code:
        if carries_check_marker({"cell_type": "code", "source": source}):
            continue
        lines = own_lines(source, course_nb.given)
        text = "\n".join(line.strip() for line in lines)
        if not text:
            continue
        written = textwrap.dedent("\n".join(line.rstrip() for line in lines))
        names = sorted(n for n in defined_names(source) if n in answers)
        course_size = sum(size(solutions.get(n, "")) for n in names)
        shape, tokens = form(written, given_names)
        found.append(Piece(text, tuple(answers[n] for n in names), size(text), max(MIN_TOKENS, FACTOR * course_size),
                           without_comments(written), shape or text, tokens if shape else size(text)))
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


def most_written(pieces_of):
    """The code most of `pieces_of` ([Piece], one answer's) were written as: (code, how many), ties the shorter."""
    counts = {}
    for p in pieces_of:
        counts[p.code] = counts.get(p.code, 0) + 1
    code = min(counts, key=lambda c: (-counts[c], len(c), c))
    return code, counts[code]


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

    def others(sub, group):                  # other people's, less those already named
        return [o for o in group if o.person.key != sub.person.key and o.label not in named.get(sub.label, ())]

    digests = {s.label: file_digest(s.text) for s in graded if written[s.label] and ran(s.text)}

    def same_file(sub):                      # its file's digest, unless the file is one of the course's own
        digest = digests.get(sub.label)
        return digest if digest and digest not in course_digests else None

    def flag(group, what):
        for sub in group:
            them = others(sub, group)
            if them:
                note(sub, what(them))
                named.setdefault(sub.label, set()).update(o.label for o in them)

    for key, subs_of, what in ((lambda s: s.file.inode, subs, "the same file (a hard link)"),
                               (same_file, graded, "the same file, outputs and metadata too,")):
        for group in _groups(subs_of, key):
            flag(group, lambda them, what=what: f"{what} as {_named(them)}: identical work handed in by two people, "
                                                f"for a person to look at")
    for by_text in (True, False):            # the same text first, then the same code under other names
        for (_, checks, _), found in _by(graded, written, by_text).items():
            group = [s for s, _ in found]
            if len({s.person.key for s in group}) < 2 or (not by_text and len({p.text for _, p in found}) < 2):
                continue                         # one person's, or (the same text) judged by text already
            piece = found[0][1]
            tokens, threshold = (piece.size if by_text else piece.form_size), piece.threshold
            what = f"answer to {', '.join(checks)}" if checks else "cell of their own"
            renamed = "" if by_text else ", its names changed"
            wrong = [s for s, p in found if _right(p, verdicts.get(s.label, {})) is False]
            if tokens >= threshold:
                flag(group, lambda them, what=what, renamed=renamed, tokens=tokens, threshold=threshold:
                     f"wrote the same {what}{renamed} ({tokens} tokens; the same is expected below {threshold}) as "
                     f"{_named(them)}: for a person to look at")
            elif tokens >= threshold / 2 and len(wrong) == len(group):
                flag(wrong, lambda them, what=what, renamed=renamed, tokens=tokens:
                     f"wrote the same wrong {what}{renamed} ({tokens} tokens) as {_named(them)}: the same mistake, "
                     f"longer than people write alike on their own, for a person to look at")
    common = []
    for (stem, checks, _), found in _by(graded, written, False).items():
        short = [(s, p) for s, p in found if _right(p, verdicts.get(s.label, {})) and p.size < p.threshold]
        passed, people = [p for _, p in short], len({s.person.key for s, _ in short})
        if people > 1 and passed[0].form_size < passed[0].threshold:
            common.append(Common(stem, checks, people, passed[0].form_size, most_written(passed)[0]))
    common.sort(key=lambda c: (-c.people, c.notebook, c.checks, c.text))
    return Findings(notes, common, written)


def _by(graded, written, by_text):
    """{(notebook, checks, text or form): [(submission, Piece)]}."""
    by = {}
    for sub in graded:
        for piece in written[sub.label]:
            by.setdefault((sub.notebook, piece.checks, piece.text if by_text else piece.form), []).append((sub, piece))
    return by


def noted(rows, submissions, course, course_digests=None):
    """The rows with `findings`' notes added to each submission's `note`."""
    notes = findings(rows, submissions, course, course_digests).notes
    return [{**r, "note": "; ".join(([r["note"]] if r["note"] else []) + notes[r["submission"]])}
            if notes.get(r["submission"]) else r for r in rows]
