"""The class at a glance, for the teacher: one HTML page per notebook and a small class-wide JSON.

    written = report.write(folder, submissions, rows, course)        # lesson-tools grade ... --report DIR

From the scored gradebook (each person's counted submission of each notebook):

- what to go over again: each hint that fired (a hint names a mistake: `lesson_course.checks`), how many people it
  fired for, and one example of what was wrong (the check's own words: the inputs, the value returned, the value
  expected; no name), most people first;
- the points: how they spread (a histogram), and each check's verdicts and pass rate;
- short right answers many people wrote the same (lesson_tools.grading.identical: expected, not flagged);
- how many handed in late, how many are missing the notebook (they handed in another), how many have identical
  work flagged, and who has nothing that could be graded.

Names appear in one place only, the last table of each page ("who to follow up"); the figures, the other tables
and `class.json` hold counts and no names.  Every page is self-contained (figures are PNG `data:` URIs, no script,
nothing fetched: its Content-Security-Policy allows images from the page itself only), and everything that came
from a learner (names, values, code) is escaped and shown (gradebook.shown).
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
EXAMPLE_CHARS = 300


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


def example_of(check, detail, hint):
    """What the check said was wrong, the check's name and the hint taken off: 'f(0.2) returned True, expected
    False'."""
    what = detail.split(f". Hint: {hint}", 1)[0]
    return what.removeprefix(f"{gb.FAIL}: ").removeprefix(f"{check}: ")[:EXAMPLE_CHARS]


def _histogram(points, possible):
    """(labels, people per label): per point value when points are whole numbers (up to 40), else ten ranges."""
    if float(possible).is_integer() and possible <= 40 and all(float(p).is_integer() for p in points):
        counts = np.bincount(np.asarray(points, dtype=int), minlength=int(possible) + 1)
        return [str(v) for v in range(len(counts))], counts.tolist()
    counts, edges = np.histogram(points, bins=10, range=(0, possible))
    return [f"{gb.number(round(a, 2))} to {gb.number(round(b, 2))}" for a, b in pairwise(edges)], counts.tolist()


def _counted(rows):
    """{notebook: {person key: [rows of the counted submission]}}."""
    out = {}
    for r in rows:
        if r["check"] and r["counted"] == "yes":
            out.setdefault(r["notebook"], {}).setdefault(gb.person_key(r), []).append(r)
    return out


def figures(rows, submissions, course):
    """{"people", "nothing_gradable", "notebooks": {stem: figures}}: the numbers behind every page, no names."""
    people = gb.totals(rows)
    found = identical.findings(rows, submissions, course)
    flagged = {r["submission"] for r in rows if found.notes.get(r["submission"])}
    counted = _counted(rows)
    notebooks = {}
    for stem, by_person in sorted(counted.items()):
        checks = [c.name for c in course[stem].checks] if stem in course else sorted(
            {r["check"] for rs in by_person.values() for r in rs})
        points = [sum(float(r["points"]) for r in rs) for rs in by_person.values()]
        possible = max(sum(float(r["max_points"]) for r in rs) for rs in by_person.values())
        verdicts = {c: Counter() for c in checks}
        mistakes, examples = Counter(), {}
        for rs in by_person.values():
            for r in rs:
                verdicts.setdefault(r["check"], Counter())[r["verdict"]] += 1
                hint = hint_of(r["check"], r["detail"]) if r["verdict"] == gb.FAIL else None
                if hint:
                    mistakes[(r["check"], *hint)] += 1
                    examples.setdefault((r["check"], *hint), Counter())[example_of(r["check"], r["detail"],
                                                                                    hint[1])] += 1
        labels, counts = _histogram(points, possible)
        handed = {key for key, p in people.items() if stem in p["notebooks"]}
        notebooks[stem] = {
            "people": len(by_person), "possible": possible,
            "mean": round(float(np.mean(points)), 2), "median": round(float(np.median(points)), 2),
            "histogram": {"points": labels, "people": counts},
            "checks": {c: {"verdicts": {v: verdicts[c][v] for v in gb.VERDICTS if verdicts[c][v]},
                           "pass_rate": round(verdicts[c][gb.PASS] / max(1, sum(verdicts[c].values())), 3)}
                       for c in verdicts},
            "mistakes": [{"check": c, "hint_key": k, "hint": t, "people": n,
                          "example": min(examples[(c, k, t)].most_common(), key=lambda e: (-e[1], e[0]))[0]}
                         for (c, k, t), n in sorted(mistakes.items(), key=lambda m: (-m[1], m[0]))],
            "common_answers": [{"checks": list(a.checks), "people": a.people, "tokens": a.size, "text": a.text}
                               for a in found.common if a.notebook == stem],
            "late": sum(any(r["late"] == "late" for r in rs) for rs in by_person.values()),
            "missing": sum(1 for key, p in people.items() if p["notebooks"] and key not in handed),
            "identical_work": len({gb.person_key(r) for r in rows if r["notebook"] == stem
                                   and r["submission"] in flagged}),
            "look_at": len({key for key, rs in by_person.items() if any(r["verdict"] in LOOK_AT for r in rs)}),
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
        if p["notebooks"].get(stem, {}).get("late"):
            out.append((named, "late"))
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


def histogram_png(nb):
    fig, ax = _figure(2.8)
    labels, counts = nb["histogram"]["points"], nb["histogram"]["people"]
    ax.bar(range(len(labels)), counts, width=0.8, color=palette.RUNNING, tick_label=labels)
    ax.set_xlabel(f"points (of {gb.number(nb['possible'])})")
    ax.set_ylabel("people")
    ax.yaxis.get_major_locator().set_params(integer=True)
    return _png(fig)


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


def _table(caption, head, body, code_columns=()):
    lines = [f"<table>\n<caption>{e(caption)}</caption>\n<thead><tr>"
             + "".join(f"<th scope='col'>{e(h)}</th>" for h in head) + "</tr></thead>\n<tbody>"]
    for row in body:
        cells = [f"<pre><code>{html.escape(gb.shown(c, keep=chr(10)))}</code></pre>" if i in code_columns
                 else e(c) for i, c in enumerate(row)]
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
               ("late", nb["late"]), ("missing (handed in another notebook)", nb["missing"]),
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
        out.append(_table("The hints that fired, most people first, with one example of what the check found",
                          ("check", "the mistake (the hint learners saw)", "people", "an example"),
                          [(m["check"], m["hint"], m["people"], m["example"]) for m in mistakes]))
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
                      ("check", "pass rate", *gb.VERDICTS[:-1]),
                      [(name, f"{100 * c['pass_rate']:.0f} %", *(c["verdicts"].get(v, 0) for v in gb.VERDICTS[:-1]))
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
