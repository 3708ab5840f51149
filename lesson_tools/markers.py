"""Text written from code: the facts and the catalog, between markers in notebook markdown and README.md.

    <!--fact:PASS_MAX_ERROR-->0.2<!--/fact-->        lesson_lib.facts.text("PASS_MAX_ERROR")
    <!--catalog:minutes-->20<!--/catalog-->          lesson_tools.catalog.text("minutes", <notebook id>)

A rendered page shows only what is between the markers.  `refresh` writes the current values in (run by
`lesson-tools build`), `stale` lists markers whose text is out of date, and `bare` lists a fact's
value written in prose without markers where it clearly means that fact ("below 0.2", "41 × 41",
"Train ×2000", ...), so that a changed constant cannot leave a copy of the old value behind.
"""
import re

from lesson_lib import facts

from . import catalog

MARKER = re.compile(r"<!--(fact|catalog):(\w+)-->(.*?)<!--/\1-->", re.S)

# fact -> patterns of prose that means the fact; {v} stands for the fact's text (facts.text; "×" in it also
# matches "x" and any spacing).  Digits or a decimal point right next to the value never match ("0.25" is not
# "0.2").
_N = r"(?<![\d.]){v}(?![\d])"
BARE = {
    "PASS_MAX_ERROR": [r"(?:<|≤|below|under|bar of|needs <)\s*" + _N],
    "GRID_POINTS": [_N],
    "STEPS_PER_PRESS": [r"Train\s*[×x]\s*{v}(?!\d)", _N + r"\s+(?:training\s+)?steps"],
    "N_SAMPLES": [_N + r"\s+(?:[\w-]+\s+){{0,2}}samples"],
    "QD_MAX": [r"(?:up to|≤|<=)\s*" + _N + r"\s*rad/s(?![²^\w])"],
    "QDD_MAX": [r"(?:up to|≤|<=)\s*" + _N + r"\s*rad/s(?:²|\^2)"],
    "HIDDEN": [_N],
    "BATCH_SIZE": [r"batch\w*(?:\s+size)?\s+(?:of\s+)?" + _N],
    "LR": [r"learning rate\s+(?:of\s+)?" + _N, r"\blr\s*=\s*" + _N],
    "EPS": [r"(?:ε|\beps)\s*=\s*" + _N],
    "TRIPLE_MAX_ERROR": [r"(?:<|below|needs <)\s*" + _N + r"\s*kg"],
}


def expected(kind, key, where):
    """The text the marker (kind, key) must hold in the document `where` (notebook id or "README")."""
    return facts.text(key) if kind == "fact" else catalog.text(key, where)


def refresh(text, where):
    """`text` with every marker holding its current value."""
    return MARKER.sub(lambda m: f"<!--{m[1]}:{m[2]}-->{expected(m[1], m[2], where)}<!--/{m[1]}-->", text)


def stale(text, where):
    """One message per marker in `text` whose content is out of date or whose name is unknown."""
    problems = []
    for m in MARKER.finditer(text):
        try:
            want = expected(m[1], m[2], where)
        except KeyError as exc:
            problems.append(f"unknown marker <!--{m[1]}:{m[2]}-->: {exc.args[0]}")
            continue
        if m[3] != want:
            problems.append(f"stale <!--{m[1]}:{m[2]}-->: holds {_short(m[3])!r}, the current value is "
                            f"{_short(want)!r}")
    return problems


_LINE_START = re.compile(r"^[ \t]*<!--(?:fact:\w+|catalog:minutes)-->", re.M)


def misplaced(text):
    """One message per inline marker that starts a line: Markdown reads a comment there as the start of an
    HTML block, which ends the paragraph and leaves the rest of it unrendered (seen in JupyterLab)."""
    return [f"{m.group().strip()} starts a line, which breaks the paragraph when rendered: move a word before it"
            for m in _LINE_START.finditer(text)]


def _short(s, limit=40):
    s = " ".join(s.split())
    return s if len(s) <= limit else s[:limit - 3] + "..."


def _patterns(name):
    v = r"\s*[×x]\s*".join(re.escape(part.strip()) for part in facts.text(name).split("×"))
    return [re.compile(p.format(v=v), re.I) for p in BARE[name]]


NOT_FACT = re.compile(r"<!--not-fact-->(.*?)<!--/not-fact-->", re.S)


def bare(text):
    """[(fact name, the words around it)] for each fact written without markers where it means the fact.

    A number that looks like a fact but is not it (a benchmark's "batch 256" when BATCH_SIZE is 256, say) is
    marked so in the source, `<!--not-fact-->batch 256<!--/not-fact-->`, and left alone."""
    plain = MARKER.sub(lambda m: f"⟨{m[2]}⟩", NOT_FACT.sub("⟨not a fact⟩", text))
    found = []
    for name in BARE:
        for pattern in _patterns(name):
            for m in pattern.finditer(plain):
                found.append((name, " ".join(plain[max(0, m.start() - 25):m.end() + 15].split())))
    return found
