"""The class at a glance, for the teacher: one HTML page per notebook and a small class-wide JSON.

    written = report.write(folder, submissions, rows, course)        # lesson-tools grade ... --report DIR

From the scored gradebook (each person's counted submission of each notebook):

- what to go over again: each hint that fired (a hint names a mistake: `lesson_course.checks`), how many people it
  fired for, and the code most of them wrote for it, as code (indentation and every line, comments left out), when
  at least two wrote it the same (lesson_tools.grading.identical's forms: the same code under other names counts),
  most people first.  Nothing a single learner wrote (a comment, a name, a returned type's text) becomes an example,
  and no example that names anyone in the class is shown;
- the points: how they spread (a histogram; points set by hand count, an excused notebook does not), and each
  check's verdicts and pass rate;
- short right answers many people wrote the same (lesson_tools.grading.identical: expected, not flagged), as code;
- how many handed in late (under any penalty, or none) and with what taken off, how many are missing the notebook
  (they handed in another), how many have identical work flagged, the teacher's overrides (points set by hand,
  extensions, excused), and who has nothing that could be graded.

Names appear in one place only, the last table of each page ("who to follow up": late with how late and what it
cost, overrides with their reasons, ...); the figures, the other tables and `class.json` hold counts and no names.
Every page is self-contained (figures are PNG `data:` URIs, no script, nothing fetched: its Content-Security-Policy
allows images from the page itself only), and everything that came from a learner (names, values, code) is escaped
and shown (gradebook.shown).
"""
import base64
import html
import io
import json
from collections import Counter
from itertools import pairwise
from pathlib import Path

import numpy as np

from lesson_course.checks import REGISTRY
from lesson_course.checks.framework import GENERAL_HINTS
from lesson_course.ui import palette

from . import gradebook as gb
from . import identical
from .feedback import STYLE

MARK = ".lesson-report"
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
LOOK_AT = (gb.TAMPERED, gb.ERROR, gb.TIMEOUT)


def hint_of(check, detail):
    """(key, text) of the registered hint a FAIL line of `check` gives, or None."""
    spec = REGISTRY.get(check)
    if spec is None or ". Hint: " not in detail:
        return None
    for key in [*spec.hints, *GENERAL_HINTS]:
        text = spec.hint(key)
        if f". Hint: {text}" in detail:
            return key, text
    return None


def mentions(text, people):
    """Whether `text` holds a name or an id of anyone in the class (`people`: gradebook.totals) as a word of its own,
    whole or a part of a name of four letters or more, in any case."""
    import re
    marks = set()
    for p in people.values():
        for value in (p["student"], p["student_id"]):
            value = str(value).casefold()
            marks |= {value} if len(value.strip()) >= 3 else set()
            marks |= {w for w in re.split(r"[\W_]+", value) if len(w) >= 4 and w.isalpha()}
    text = text.casefold()
    return any(re.search(rf"(?<![\w]){re.escape(m)}(?![\w])", text) for m in marks)


def example_code(found, check, people):
    """The code most of `found` ([(person key, [Piece])]: the people a hint fired for and what they wrote) wrote for
    `check`, when at least two wrote it the same (by form: names changed count), and it names no one; else ""."""
    by_form = {}
    for key, pieces in found:
        for piece in pieces:
            if check in piece.checks and piece.code.strip():
                by_form.setdefault(piece.form, {}).setdefault(key, piece)
    ranked = sorted(by_form.values(), key=lambda g: (-len(g), min(len(p.code) for p in g.values())))
    for group in ranked:
        if len(group) < 2:
            break
        code = identical.most_written(list(group.values()))[0]
        if not mentions(code, people):
            return code
    return ""


STEPS = (1.0, 0.5, 0.25)      # points on such a grid get a bar per value (a late share or a half point set by hand)


def _histogram(points, possible):
    """(labels, people per label, bin edges): a bar per value when every point and the maximum lie on a grid of
    whole, half or quarter points and there are at most 40 values (edges halfway between), else ten ranges."""
    for step in STEPS:
        values = np.asarray([*points, possible], dtype=float) / step
        if np.allclose(values, np.round(values)) and possible / step <= 40:
            counts = np.bincount(np.round(np.asarray(points, dtype=float) / step).astype(int),
                                 minlength=int(round(possible / step)) + 1)
            return ([gb.number(k * step) for k in range(len(counts))], counts.tolist(),
                    ((np.arange(len(counts) + 1) - 0.5) * step).tolist())
    counts, edges = np.histogram(points, bins=10, range=(0, possible or 1))
    return ([f"{gb.number(round(a, 2))} to {gb.number(round(b, 2))}" for a, b in pairwise(edges)], counts.tolist(),
            edges.tolist())


def _counted(rows):
    """{notebook: {person key: [rows of the counted submission]}} (the checks' rows: not a notebook set by hand)."""
    out = {}
    for r in rows:
        if r["check"] and r["counted"] == "yes":
            out.setdefault(r["notebook"], {}).setdefault(gb.person_key(r), []).append(r)
    return out


def figures(rows, submissions, course):
    """{"people", "nothing_gradable", "notebooks": {stem: figures}}: the numbers behind every page, no names
    (examples are code two people or more wrote the same, naming no one)."""
    people = gb.totals(rows)
    found = identical.findings(rows, submissions, course)
    flagged = {r["submission"] for r in rows if found.notes.get(r["submission"])}
    counted = _counted(rows)
    notebooks = {}
    stems = sorted(set(counted) | {s for p in people.values() for s in p["notebooks"]})
    for stem in stems:
        by_person = counted.get(stem, {})
        checks = [c.name for c in course[stem].checks] if stem in course else sorted(
            {r["check"] for rs in by_person.values() for r in rs})
        scored = {key: p["notebooks"][stem] for key, p in people.items()
                  if stem in p["notebooks"] and not p["notebooks"][stem]["excused"]}
        if not scored:
            continue
        points = [nb["points"] for nb in scored.values()]
        possible = max(nb["max"] for nb in scored.values())
        verdicts = {c: Counter() for c in checks}
        mistakes, fired = Counter(), {}
        for key, rs in by_person.items():
            for r in rs:
                verdicts.setdefault(r["check"], Counter())[r["verdict"]] += 1
                hint = hint_of(r["check"], r["detail"]) if r["verdict"] == gb.FAIL else None
                if hint:
                    mistakes[(r["check"], *hint)] += 1
                    fired.setdefault((r["check"], *hint), []).append((key, found.pieces.get(r["submission"], [])))
        labels, counts, edges = _histogram(points, possible)
        handed = {key for key, p in people.items() if stem in p["notebooks"]}
        mine = [nb for p in people.values() for s, nb in p["notebooks"].items() if s == stem]
        notebooks[stem] = {
            "people": len(scored), "possible": possible,
            "mean": round(float(np.mean(points)), 2), "median": round(float(np.median(points)), 2),
            "histogram": {"points": labels, "people": counts, "edges": edges},
            "checks": {c: {"verdicts": {v: verdicts[c][v] for v in gb.VERDICTS if verdicts[c][v]},
                           "pass_rate": round(verdicts[c][gb.PASS] / max(1, sum(verdicts[c].values())), 3)}
                       for c in verdicts},
            "mistakes": [{"check": c, "hint_key": k, "hint": t, "people": n,
                          "example": example_code(fired[(c, k, t)], c, people)}
                         for (c, k, t), n in sorted(mistakes.items(), key=lambda m: (-m[1], m[0]))],
            "common_answers": [{"checks": list(a.checks), "people": a.people, "tokens": a.size, "text": a.text}
                               for a in found.common if a.notebook == stem and not mentions(a.text, people)],
            "late": sum(1 for nb in scored.values() if nb["late"]),
            "late_penalised": sum(1 for nb in scored.values() if "% off" in nb["late"]),
            "missing": sum(1 for key, p in people.items() if p["notebooks"] and key not in handed),
            "identical_work": len({gb.person_key(r) for r in rows if r["notebook"] == stem
                                   and r["submission"] in flagged}),
            "look_at": len({key for key, rs in by_person.items() if any(r["verdict"] in LOOK_AT for r in rs)}),
            "set_by_hand": sum(1 for nb in mine if nb["by_hand"]),
            "excused": sum(1 for nb in mine if nb["excused"]),
            "extensions": len({gb.person_key(r) for r in rows if r["notebook"] == stem
                               and "extension to" in r.get("override", "")}),
        }
    return {"people": len(people), "nothing_gradable": sum(1 for p in people.values() if not p["notebooks"]),
            "notebooks": notebooks}


def follow_up(rows, stem):
    """[(name, what)] for the teacher's table of a notebook's page: nothing gradable, missing, late, a verdict to
    look at, and the gradebook's notes (identical work, a look-alike name, a file name that claims another id)."""
    people = gb.totals(rows)
    out = []
    for key, p in sorted(people.items(), key=lambda kv: (kv[1]["student"], kv[0])):
        named = p["student"] + (f" ({p['student_id']})" if p["student_id"] != p["student"] else "")
        mine = [r for r in rows if gb.person_key(r) == key and r["notebook"] == stem and r["check"]]
        if not p["notebooks"]:
            out.append((named, "nothing could be graded: " + "; ".join(p["ungraded"])))
        elif stem not in p["notebooks"]:
            out.append((named, f"missing: handed in {', '.join(sorted(p['notebooks']))}, not {stem}"))
        nb = p["notebooks"].get(stem, {})
        if nb.get("late"):
            out.append((named, nb["late"]))                                # how late, and what it cost
        out += [(named, f"{check + ': ' if check else ''}{why}") for check, why in nb.get("by_hand", ())]
        if nb.get("excused"):
            out.append((named, nb["excused"]))
        out += [(named, why) for why in dict.fromkeys(
            part for r in mine for part in r.get("override", "").split("; ") if part.startswith("extension to"))]
        looks = Counter(r["verdict"] for r in mine if r["counted"] == "yes" and r["verdict"] in LOOK_AT)
        if looks:
            out.append((named, "look at: " + ", ".join(f"{n} {v}" for v, n in sorted(looks.items()))))
        out += [(named, f"note: {note}") for note in dict.fromkeys(r["note"] for r in mine if r["note"])]
    return out


def _png(fig):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _figure(height):
    from matplotlib.figure import Figure
    fig = Figure(figsize=(7.5, height))
    return fig, fig.add_subplot()


def histogram_figure(nb):
    """The points' histogram on a numeric axis: a bar over each bin (centred on its value when a bin is one value),
    ticks chosen by matplotlib (about ten at most, on the values' grid), so labels never crowd whatever the number
    of bins."""
    from matplotlib.ticker import MaxNLocator
    fig, ax = _figure(2.8)
    edges, counts = np.asarray(nb["histogram"]["edges"]), nb["histogram"]["people"]
    per_value = nb["histogram"]["points"][0] == "0" and " to " not in nb["histogram"]["points"][0]
    width = np.diff(edges)
    if per_value:
        ax.bar((edges[:-1] + edges[1:]) / 2, counts, width=0.8 * width, color=palette.RUNNING)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=10, steps=[1, 2, 2.5, 5, 10],
                                               integer=bool(np.isclose(width[0], 1.0))))
    else:
        ax.bar(edges[:-1], counts, width=0.95 * width, align="edge", color=palette.RUNNING)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=10))
    ax.set_xlim(edges[0], edges[-1])
    ax.set_xlabel(f"points (of {gb.number(nb['possible'])})")
    ax.set_ylabel("people")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


def histogram_png(nb):
    return _png(histogram_figure(nb))


def bars_png(labels, values, color, xlabel, xmax=None):
    fig, ax = _figure(0.45 * len(labels) + 0.9)
    y = np.arange(len(labels))[::-1]
    ax.barh(y, values, color=color)
    ax.set_yticks(y, labels)
    ax.set_xlabel(xlabel)
    if xmax is not None:
        ax.set_xlim(0, xmax)
    ax.xaxis.get_major_locator().set_params(integer=True)
    return _png(fig)


def e(text):
    return html.escape(gb.shown(text))


def _table(caption, head, body, code_columns=(), plain=()):
    lines = [f"<table>\n<caption>{e(caption)}</caption>\n<thead><tr>"
             + "".join(f"<th scope='col'>{e(h)}</th>" for h in head) + "</tr></thead>\n<tbody>"]
    for row in body:
        cells = [f"<pre><code>{html.escape(gb.shown(c, keep=chr(10)))}</code></pre>" if i in code_columns
                 and c not in plain else e(c) for i, c in enumerate(row)]
        lines.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return "\n".join(lines + ["</tbody>\n</table>"])


def _img(src, alt):
    return f"<img src='{src}' alt='{html.escape(alt)}'>"


def page(stem, nb, class_figures, follow):
    """The HTML of one notebook's page (`nb`: figures()[\"notebooks\"][stem]; `follow`: follow_up's table)."""
    title = f"{stem}: the class at a glance"
    out = [f"<!doctype html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
           f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">\n"
           f"<meta name='viewport' content='width=device-width, initial-scale=1'>\n<title>{e(title)}</title>\n"
           f"<style>{STYLE} img {{ max-width: 100%; height: auto; }} dl {{ display: grid; grid-template-columns: "
           f"max-content auto; gap: .2rem 1rem; }} dd {{ margin: 0; }} dt {{ font-weight: 600; }}</style>\n"
           f"</head>\n<body>\n<main>\n<h1>{e(title)}</h1>",
           "<p class='meta'>Learn the structure, not the map &middot; for the teacher: names appear only in the "
           "last table</p>",
           "<dl>" + "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in (
               ("handed in", f"{nb['people']} of {class_figures['people']} people"),
               ("points", f"mean {gb.number(nb['mean'])}, median {gb.number(nb['median'])} of "
                          f"{gb.number(nb['possible'])}"),
               ("late", f"{nb['late']}" + (f" ({nb['late_penalised']} with points taken off)" if nb["late"] else "")),
               ("missing (handed in another notebook)", nb["missing"]),
               ("set by hand, excused, extensions (your overrides)",
                f"{nb['set_by_hand']}, {nb['excused']}, {nb['extensions']}"),
               ("nothing that could be graded (the whole class)", class_figures["nothing_gradable"]),
               ("identical work flagged", nb["identical_work"]),
               ("to look at (TAMPERED, ERROR, TIMEOUT)", nb["look_at"]))) + "</dl>",
           "<h2>What to go over again</h2>"]
    mistakes = nb["mistakes"]
    if mistakes:
        out.append(_img(bars_png([f"{m['check']}: {m['hint_key']}" for m in mistakes], [m["people"] for m in mistakes],
                                 palette.FAIL, "people"),
                        "The most common mistakes, as a bar chart of people per hint; the same numbers are in the "
                        "table below."))
        out.append(_table("The hints that fired, most people first, with the code most of them wrote",
                          ("check", "the mistake (the hint learners saw)", "people",
                           "what most of them wrote (when two or more wrote it the same)"),
                          [(m["check"], m["hint"], m["people"], m["example"] or "(each wrote their own)")
                           for m in mistakes], code_columns=(3,), plain=("(each wrote their own)",)))
    else:
        out.append("<p>No hint fired: no check failed with a named mistake.</p>")
    out += ["<h2>Points</h2>",
            _img(histogram_png(nb), "Histogram of the points each person's counted submission earned; the same "
                                    "numbers are in the table below."),
            _table("People per points", ("points", "people"),
                   list(zip(nb["histogram"]["points"], nb["histogram"]["people"], strict=True))),
            "<h2>Each check</h2>"]
    checks = nb["checks"]
    out.append(_img(bars_png(list(checks), [100 * c["pass_rate"] for c in checks.values()], palette.PASS,
                             "passed (% of people)", 100),
                    "Each check's pass rate as a bar chart; the same numbers are in the table below."))
    out.append(_table("Verdicts per check (each person's counted submission)",
                      ("check", "pass rate", *gb.CHECK_VERDICTS),
                      [(name, f"{100 * c['pass_rate']:.0f} %", *(c["verdicts"].get(v, 0) for v in gb.CHECK_VERDICTS))
                       for name, c in checks.items()]))
    out.append("<h2>Answers many people share</h2>")
    if nb["common_answers"]:
        out.append("<p>Short right answers several people wrote the same, which people arrive at on their own "
                   "(not flagged as identical work):</p>")
        out.append(_table("Common short right answers", ("check", "people", "the answer"),
                          [(", ".join(a["checks"]) or "(a cell of their own)", a["people"], a["text"])
                           for a in nb["common_answers"]], code_columns=(2,)))
    else:
        out.append("<p>None: no short right answer was written the same by several people.</p>")
    out.append("<h2>Who to follow up (names: for your eyes only)</h2>")
    out.append(_table("People to follow up for this notebook", ("student", "what"), follow) if follow
               else "<p>No one: everyone handed this notebook in, on time, with nothing to look at.</p>")
    out.append("</main>\n</body>\n</html>\n")
    return "\n".join(out)


def _shown(value):
    """`value` with every text in it shown (control characters escaped), as the gradebook writes text."""
    if isinstance(value, dict):
        return {_shown(k): _shown(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shown(v) for v in value]
    return gb.shown(value) if isinstance(value, str) else value


def write(folder, submissions, rows, course):
    """Write this run's pages and class.json into `folder` (an empty one: command.fresh_folder); returns the paths
    written."""
    path = Path(folder)
    class_figures = figures(rows, submissions, course)
    written = []
    for stem, nb in class_figures["notebooks"].items():
        target = path / f"{stem}.html"
        target.write_text(page(stem, nb, class_figures, follow_up(rows, stem)),
                          encoding="utf-8")
        written.append(target)
    target = path / "class.json"
    target.write_text(json.dumps(_shown(class_figures), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return written + [target]
