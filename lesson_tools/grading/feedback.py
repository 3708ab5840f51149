"""Feedback out: one HTML page per submission, readable in any browser without Jupyter, named so a platform's bulk
feedback upload finds its student.

    written = write_all(folder, submissions, rows, course)

Each page: the notebook, the person, the file they handed in (its own name, never the teacher's path), the points,
whether it was late and whether it is the submission the score counts, what the teacher decided by hand and why
(lesson_tools.grading.overrides: points, an extension, excused); then per check its verdict, points and what the
check said (the hint names the mistake; an error the learner's own cells raised comes before what a course cell
raised because of it), and the learner's own code for that exercise (the last cell that defines the answer's
function, shown even when it does not parse).  A page holds the learner's own work and
nothing else: no other student's name, id or file (the gradebook's `note` column, for the teacher, is left out) and
no teacher's path.  Everything the learner wrote is escaped, control characters shown (gradebook.shown), and the
page forbids scripts (Content-Security-Policy), so nothing in a notebook can run in the teacher's or the student's
browser.

Names and bundles:
- Canvas: `FOLDER/canvas/<downloaded name>_feedback.html` and `FOLDER/canvas_feedback.zip`; each name starts with the
  download's `lastnamefirstname_USERID_ATTACHMENTID`, which Canvas's "Upload submission comments" matches.
- Moodle: `FOLDER/moodle/<Full Name>_<id>_assignsubmission_file_/<file>_feedback.html` and `FOLDER/moodle_feedback.zip`,
  the download's own folder names, which Moodle's "Upload multiple feedback files in a zip" matches.
- Anything else: `FOLDER/<student>/<file>_feedback.html`.
"""
import html
import re
import zipfile
from pathlib import Path

from . import gradebook as gb

STYLE = """
body { font: 16px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1b; }
h1 { font-size: 1.5rem; margin-bottom: .25rem; } .meta { color: #444; margin-top: 0; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
th, td { border: 1px solid #bbb; padding: .4rem .6rem; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
.verdict { font-weight: 700; white-space: nowrap; }
.PASS { color: #005a9c; } .FAIL, .TAMPERED, .ERROR, .TIMEOUT { color: #a4161a; }
.NOT-ATTEMPTED, .NOT-GRADED { color: #555; }
pre { background: #f6f6f6; border: 1px solid #ddd; padding: .75rem; overflow-x: auto; white-space: pre-wrap; }
.total { font-size: 1.2rem; font-weight: 700; }
.visually-hidden { position: absolute; left: -10000px; }
"""
CSP = "default-src 'none'; style-src 'unsafe-inline'"
CODE_KEEPS = "\n\t\\"       # a learner's code shown as it is: its lines, tabs and backslashes (a "\\n" in a string)
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def safe(name):
    """A file or folder name from a person's or a file's name: no separators, no leading dot, nothing a file system
    refuses; never empty."""
    name = re.sub(r"[^\w .,()'@+-]", "_", name).strip(" .") or "_"
    return name[:150]


def code_for(cells, course_nb):
    """{check name: the learner's code for its exercise}: the last of the code cells' sources `cells` that defines
    the check's answer name (or, when none parses, the last that has `def NAME(` in its text), or '' when none does."""
    from .plan import defines
    out = {}
    for check in course_nb.checks:
        name = check.answer_name
        found = [s for s in cells if name and defines(s, name)] or \
                [s for s in cells if name and re.search(rf"^\s*def\s+{re.escape(name)}\s*\(", s, re.MULTILINE)]
        out[check.name] = found[-1] if found else ""
    return out


def handed_in(sub):
    """The name of the file as the learner handed it in: the platform's prefix taken off (Canvas, and Moodle's
    download without folders), no teacher's folder or zip."""
    name = sub.file.rel[-1] if sub.file.rel else sub.label.replace(":", "/").rsplit("/", 1)[-1]
    prefix = sub.person.prefix if sub.person.platform in ("canvas", "moodle") else ""
    if prefix and name.startswith(prefix):
        name = name[len(prefix):].lstrip("_") or name
    return name


def _syntax(source):
    """'SyntaxError: ... (line N)' when the learner's source does not parse, else None."""
    import ast
    try:
        ast.parse(source)
    except SyntaxError as exc:
        return f"{type(exc).__name__}: {exc.msg} (line {exc.lineno})"
    return None


CELL_ERROR = re.compile(r"; (?=code cell \d+ \(`|a cell \(`)")
CELL_NUMBER = re.compile(r"^code cell (\d+) \(`")


def own_first(detail, cells, course_nb=None):
    """`detail` with what the learner's own cells raised first: the grader's detail is the check's verdict, then the
    errors of the cells before it in notebook order ('...; code cell 6 (`...`) raised SyntaxError: ...'), where a
    course cell that failed only because the learner's did (a withheld function, a name not defined) may come before
    the learner's own error.  `cells`: the submission's code cells' sources; a cell counts as the course's when its
    text is one the course wrote (`course_nb.cells`)."""
    from .course_notebooks import normalise
    parts = CELL_ERROR.split(detail)
    course = course_nb.cells if course_nb is not None else frozenset()

    def own(part):
        m = CELL_NUMBER.match(part)
        k = int(m.group(1)) - 1 if m else -1
        return 0 <= k < len(cells) and normalise(cells[k]) not in course
    mine = [p for p in parts[1:] if own(p)]
    return "; ".join(mine + [parts[0]] + [p for p in parts[1:] if not own(p)])


def page(sub, rows, code, counted=None, decided=None, course_nb=None):
    """The HTML of one submission's feedback (`rows`: its scored gradebook rows; `code`: from code_for; `counted`:
    (attempt, file name) of the submission the score counts, when it is another; `decided`: the row of the teacher's
    decision for the whole notebook (points set by hand, excused), which counts instead; `course_nb`: the course
    notebook, whose cells tell the learner's own errors from the course's)."""
    def e(text):
        return html.escape(gb.shown(text))
    graded = [r for r in rows if r["check"]]
    teacher = list(dict.fromkeys(
        ([decided["override"]] if decided is not None else []) +
        [f"{r['check']}: {r['override']}" if r["check"] and r["override"].startswith("set by hand")
         else r["override"] for r in rows if r.get("override")]))
    late = next((r["late"] for r in rows if r["late"]), "late" if sub.person.late else "")
    who = sub.student + (f" ({sub.person.id})" if sub.person.id and sub.person.id != sub.student else "")
    title = f"{sub.notebook or 'Not graded'}: feedback for {who}"
    lines = [f"<!doctype html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
             f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">\n"
             f"<meta name='viewport' content='width=device-width, initial-scale=1'>\n"
             f"<title>{e(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>",
             f"<h1>{e(title)}</h1>",
             f"<p class='meta'>Learn the structure, not the map &middot; your file <code>{e(handed_in(sub))}</code>"
             + (f" &middot; <strong>handed in {e(late)}</strong>" if late else "") + "</p>"]
    if teacher:
        lines.append("<p>From your teacher: " + "; ".join(e(t) for t in teacher) + "</p>")
    if decided is not None and decided["verdict"] == gb.EXCUSED:
        lines.append("<p class='total'>Excused: this notebook counts for nothing</p>")
    elif decided is not None:
        lines.append(f"<p class='total'>{e(decided['points'])} of {e(decided['max_points'])} points, set by your "
                     f"teacher</p>")
    if not graded:
        reason = rows[0]["detail"] if rows else (sub.problem or "")
        lines.append(f"<p class='total'>Not graded</p>\n<p>{e(reason)}</p>")
    else:
        earned = sum(float(r["points"]) for r in graded)
        possible = sum(float(r["max_points"]) for r in graded)
        if decided is None:
            lines.append(f"<p class='total'>{gb.number(earned)} of {gb.number(possible)} "
                         f"point{'' if possible == 1 else 's'}</p>")
        else:
            lines.append(f"<p>What the checks gave this file: {gb.number(earned)} of {gb.number(possible)} "
                         f"point{'' if possible == 1 else 's'}.</p>")
        if counted is not None and decided is None:
            attempt, name = counted
            lines.append(f"<p>You handed this notebook in more than once; your score counts another of your "
                         f"submissions: attempt {e(attempt)}, <code>{e(name)}</code>.</p>")
        lines.append("<table>\n<caption class='visually-hidden'>Each exercise's check</caption>\n"
                     "<thead><tr><th scope='col'>exercise</th><th scope='col'>verdict</th><th scope='col'>points</th>"
                     "<th scope='col'>what the check said</th></tr></thead>\n<tbody>")
        for r in graded:
            css = r["verdict"].replace(" ", "-")
            lines.append(f"<tr><td><code>{e(r['check'])}</code></td><td class='verdict {css}'>{e(r['verdict'])}</td>"
                         f"<td>{e(r['points'])} / {e(r['max_points'])}</td>"
                         f"<td>{e(own_first(r['detail'], sub.code, course_nb))}</td></tr>")
        lines.append("</tbody>\n</table>\n<h2>Your code</h2>")
        for r in graded:
            mine = code.get(r["check"], "")
            lines.append(f"<h3><code>{e(r['check'])}</code></h3>")
            broken = _syntax(mine) if mine.strip() else None
            if broken:
                lines.append(f"<p>This cell is not valid Python, so it could not run ({e(broken)}). Here it is as "
                             f"you wrote it:</p>")
            lines.append(f"<pre><code>{html.escape(gb.shown(mine, keep=CODE_KEEPS))}</code></pre>"
                         if mine.strip() else "<p>No cell of this notebook defines this exercise's function.</p>")
    lines.append("</main>\n</body>\n</html>\n")
    return "\n".join(lines)


def relative_path(sub):
    """Where a submission's page goes under the feedback folder (see the module's docstring)."""
    stem = safe(Path(sub.file.rel[-1] if sub.file.rel else sub.label).stem) + "_feedback.html"
    who = sub.person
    if who.platform == "canvas":               # Canvas's prefix first, the learner's own name after it
        return Path("canvas", safe(f"{who.prefix}_{Path(handed_in(sub)).stem}") + "_feedback.html")
    if who.platform == "moodle":
        return Path("moodle", safe(who.prefix), stem)
    return Path(safe(who.name), stem)


def write_all(folder, submissions, rows, course):
    """Write every submission's page under `folder` and the Canvas and Moodle bundles; returns the paths written."""
    folder = Path(folder)
    by_label, counted, decided = {}, {}, {}
    subs = {s.label: s for s in submissions}
    for r in rows:
        if r["verdict"] in gb.DECIDED:
            decided[(gb.person_key(r), r["notebook"])] = r
            continue
        by_label.setdefault(r["submission"], []).append(r)
        if r["counted"] == "yes" and r["submission"] in subs:
            counted[(gb.person_key(r), r["notebook"])] = (r["attempt"], handed_in(subs[r["submission"]]),
                                                          r["submission"])
    written, used = [], set()
    for sub in submissions:
        rel = relative_path(sub)
        k = 2
        while rel in used:
            rel = rel.with_name(f"{rel.stem.removesuffix('_feedback')}-{k}_feedback.html")
            k += 1
        used.add(rel)
        code = code_for(sub.code, course[sub.notebook]) if sub.notebook in course else {}
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        mine = by_label.get(sub.label, [])
        other = counted.get((gb.person_key(mine[0]), sub.notebook)) if mine else None
        path.write_text(page(sub, mine, code, other[:2] if other and other[2] != sub.label else None,
                             decided.get((sub.person.key, sub.notebook)), course.get(sub.notebook)),
                        encoding="utf-8")
        written.append(path)
    for platform in ("canvas", "moodle"):
        pages = [p for p in written if p.relative_to(folder).parts[0] == platform]
        if pages:
            bundle = folder / f"{platform}_feedback.zip"
            with zipfile.ZipFile(bundle, "w", zipfile.ZIP_DEFLATED) as zf:
                for p in pages:                   # a fixed date: the same pages give the same zip, byte for byte
                    info = zipfile.ZipInfo(p.relative_to(folder / platform).as_posix(), ZIP_DATE)
                    zf.writestr(info, p.read_bytes(), zipfile.ZIP_DEFLATED)
            written.append(bundle)
    return written
