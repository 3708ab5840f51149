"""Grade a class's notebooks: a gradebook, points, the files learning platforms import, and feedback, from the
class's downloads.

    lesson-tools grade PATH [PATH ...] --out gradebook.csv [--canvas canvas.csv] [--moodle moodle.csv]
                       [--scores scores.csv] [--feedback feedback/] [--report report/] [--roster export.csv ...]
                       [--overrides overrides.toml] [--dry-run]

PATH: notebook files, folders (searched recursively) and zips (read in place), as Canvas, Moodle or any platform
downloads them (lesson_tools.grading.intake says how each file's person is found; --pattern gives another
platform's naming).  Each file is matched to its course notebook by content and graded in a fresh kernel under
limits; the course's checks run in a separate judge process that sends the learner's function its arguments and
gets back plain data (no learner code runs there).  The gradebook has one row per (submission, check), with points
(lesson_tools.grading.gradebook); a summary per person is printed at the end.

Every option can be set once for a course in its settings file (lesson_tools.settings: lesson_tools.toml or
pyproject.toml's [tool.lesson_tools]); the command line wins.  Each submission's result is kept as soon as it is
known (lesson_tools.grading.results), by what was handed in: after Ctrl-C or a crash the same command grades only
what is missing, with the same salt, and writes the same files an uninterrupted run would have; a new download of
the class grades only what is new.  The teacher's decisions (lesson_tools.grading.overrides: overrides.toml in the
folder run from, or --overrides) are applied on every run.
"""
import argparse
import os
import sys
from pathlib import Path

from ..settings import SettingsError, option_defaults
from ..settings import find as find_settings
from ..settings import notebooks as notebook_settings
from . import caps, export, feedback, report, sandbox
from . import gradebook as gb
from . import late as late_policy
from . import overrides as by_hand
from . import points as course_points
from . import roster as rosters
from .grader import Interrupted, available_cores, chosen, collect, run
from .intake import check_path, compile_pattern
from .results import Store, default_folder
from .rlimits import Limits
from .submissions import UsageError
from .verified import CourseFilesChanged

PATHS = ("out", "points", "scores", "canvas", "moodle", "feedback", "keep", "roster", "cache", "overrides",
         "report")                                                              # read from the settings' folder
OVERRIDES = "overrides.toml"           # the teacher's overrides, taken from the folder you run from when it is there
EXIT = {0: "grading ran (whatever the learners scored), or --dry-run listed the class",
        1: "grading could not run (course files changed, no Dask scheduler, no kernel could start)",
        130: "interrupted (Ctrl-C): every result so far kept; the same command grades the rest"}


def _positive(kind):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
        return value
    return parse


def _policy(text):
    try:
        return late_policy.parse(text)
    except late_policy.PolicyError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def due_dates(args, known):
    """{notebook: seconds since the epoch}: --due over the settings' [notebooks.NN_name] due."""
    dates = {stem: late_policy.due_time(table["due"], f"{args.settings_file}: [notebooks.{stem}] due")
             for stem, table in args.settings.get("notebooks", {}).items() if "due" in table}
    for item in args.due or ():
        stem, sep, when = item.partition("=")
        if not sep or stem.strip() not in known:
            raise UsageError(f"--due {item!r}: expected NN_name=WHEN, NN_name a notebook of the course "
                             f"({', '.join(sorted(known))}), e.g. --due '02_model=2026-12-01T23:59:00+01:00'")
        dates[stem.strip()] = late_policy.due_time(when.strip(), f"--due {item!r}")
    return dates


def parser(prog="lesson-tools grade"):
    from ..cli import exit_codes
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0].replace("\n", " "),
                                epilog=f"Example: {prog} submissions/ --out gradebook.csv.  " + exit_codes(EXIT))
    p.add_argument("paths", nargs="+", metavar="PATH", help="notebook files, folders and zips of submissions")
    p.add_argument("--settings", metavar="FILE", help="the course's settings (default: lesson_tools.toml, else "
                                                      "pyproject.toml's [tool.lesson_tools], in this folder)")
    p.add_argument("--out", metavar="FILE", help="write the gradebook here (.csv, or .json)")
    p.add_argument("--dry-run", action="store_true",
                   help="list who is who (each person's files, the notebook each was matched to, what is left out) "
                        "and grade nothing")
    p.add_argument("--notebook", metavar="NN_name", action="append",
                   help="grade only this notebook of the download (repeat for several; default: every one found)")
    p.add_argument("--roster", metavar="FILE", action="append",
                   help="the class list: Canvas's exported gradebook or Moodle's grading worksheet (CSV); everyone on "
                        "it gets a row, 0 and 'nothing handed in' when the download holds nothing of theirs (Canvas's "
                        "SIS ids, sections and assignment columns are copied from it); repeat it for a class on "
                        "several platforms")
    p.add_argument("--overrides", metavar="FILE",
                   help=f"your decisions, applied on every run: points set by hand (a check's or a notebook's), "
                        f"extensions, excused notebooks (TOML: [[points]], [[extension]], [[excused]], each with "
                        f"student, notebook and reason; default: {OVERRIDES} in this folder when it is there)")
    p.add_argument("--pattern", metavar="REGEX",
                   help="how another platform names files: a regex with a group (?P<student_id>...) (and optionally "
                        "name, late, attempt), searched in each file's path under the PATH given; files it does not "
                        "match are not graded")
    p.add_argument("--points", metavar="FILE", help="a TOML file setting points per check ([points] then "
                                                     "kinetic_energy = 2); default: the settings' [points], else the "
                                                     "points each check declares")
    p.add_argument("--count", choices=gb.COUNTS, default="best",
                   help="which of a person's submissions of a notebook counts (default %(default)s)")
    p.add_argument("--scores", metavar="FILE", help="write one row per person (points per notebook, total) here")
    p.add_argument("--canvas", metavar="FILE", help="write Canvas's gradebook import CSV here, one column per "
                                                     "notebook (people from Canvas file names)")
    p.add_argument("--canvas-assignment", metavar="NN_name=HEADING", action="append",
                   help="a notebook's Canvas column as Canvas's export heads it, e.g. '02_model=Homework 2 (4567)' "
                        "(repeat per notebook; a bare HEADING when one notebook is graded; default: the settings' "
                        "[notebooks.NN_name] canvas_assignment, else the --roster export's heading that names the "
                        "notebook)")
    p.add_argument("--moodle", metavar="FILE", help="write Moodle's grading worksheet CSV here (one per notebook: "
                                                     "FILE-NN_name.csv when several are graded)")
    p.add_argument("--feedback", metavar="FOLDER", help="write one HTML feedback page per submission here, and the "
                                                         "Canvas and Moodle bulk-upload zips")
    p.add_argument("--report", metavar="FOLDER", help="write the class report here: a page per notebook (what the "
                                                       "class got wrong, points, who to follow up) and class.json")
    p.add_argument("--keep", metavar="FOLDER", help="keep each graded submission's executed notebook and its "
                                                     "kernel's output here (ERROR and TIMEOUT rows point to them)")
    p.add_argument("--cache", metavar="FOLDER", help=f"where each submission's result is kept as soon as it is known "
                                                      f"(default: {default_folder()})")
    p.add_argument("--fresh", action="store_true", help="grade everything again: take no kept result, and draw a new "
                                                         "salt unless --salt is given")
    p.add_argument("--only", metavar="ID", action="append",
                   help="grade this person again (a platform id or a name, as the gradebook shows it; repeat for "
                        "several), everyone else's results as kept by the last run: every output file changes in "
                        "that person's rows only")
    p.add_argument("--late-penalty", metavar="SHARE", type=_policy,
                   help="a share off a late submission's points, as Canvas and Moodle write it: '10%%/day' or "
                        "'5%%/hour' after the due date (each begun counts), '20%%' once; ', floor 50%%' keeps at least "
                        "that share (default: none; late work is marked, not penalised)")
    p.add_argument("--due", metavar="NN_name=WHEN", action="append",
                   help="a notebook's due date, e.g. '02_model=2026-12-01T23:59:00+01:00' (repeat per notebook; "
                        "default: the settings' [notebooks.NN_name] due); a file the download dates after it is late")
    p.add_argument("--workers", metavar="N", type=_positive(int), default=available_cores(),
                   help="submissions graded at once on this machine (default: the number of cores, %(default)s)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="grade on a Dask distributed cluster instead, e.g. tcp://scheduler.example.org:8786")
    d = Limits()
    p.add_argument("--timeout", metavar="SECONDS", type=_positive(float), default=d.cell_s,
                   help=f"CPU seconds per cell and per check, all the submission's processes counted, and "
                        f"{d.wall_factor:g} times as long waiting without computing; time spent waiting for a busy "
                        f"machine's CPU is not counted (wall-clock seconds where the sandbox has no caps) (default "
                        f"%(default)g)")
    p.add_argument("--notebook-timeout", metavar="SECONDS", type=_positive(float), default=d.notebook_s,
                   help="seconds for a whole notebook, all its cells together: of CPU time, and of waiting without "
                        "computing (wall-clock seconds where the sandbox has no caps) (default %(default)g)")
    p.add_argument("--memory-mb", metavar="MB", type=_positive(int), default=d.memory_mb,
                   help="address space of each process, and memory of each sandbox as a whole (default %(default)s)")
    p.add_argument("--max-output-mb", metavar="MB", type=_positive(float), default=d.output_mb,
                   help="output kept from one notebook (default %(default)g)")
    p.add_argument("--salt", metavar="N", type=int, default=None,
                   help="the number the checks' inputs are drawn with (default: the interrupted run's, to finish it; "
                        "else a new random one, printed at the end); give a run's own to grade again with the same "
                        "inputs. Keep it from learners")
    p.add_argument("--no-sandbox", action="store_true",
                   help="run kernels without the bubblewrap sandbox (only for submissions you trust)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    return p


MIN_MEMORY_MB = 1024        # a kernel with numpy, matplotlib and the course maps about 700 MB of address space
OUT_SUFFIXES = (".csv", ".json")


FORMATS = {".csv": "CSV (.csv)", ".json": "JSON (.json)"}


def check_out(out, flag="--out", suffixes=OUT_SUFFIXES, what="the gradebook", example="gradebook"):
    """Refuse, before any grading, an output path that could not be written: a format it does not write, a missing
    or read-only folder, a folder given as the file."""
    if out is None:
        return
    path = Path(out)
    if path.suffix.lower() not in suffixes:
        raise UsageError(f"{flag} {out}: {what} is written as {' or '.join(FORMATS[s] for s in suffixes)}, not "
                         f"{path.suffix or 'a file without an extension'}; e.g. {flag} {example}{suffixes[0]}")
    if path.is_dir():
        raise UsageError(f"{flag} {out} is a folder: give a file name, e.g. {flag} {path / (example + suffixes[0])}")
    folder = makeable(path.parent, flag, out)
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"{flag} {out}: cannot write there (no permission); choose another place")


def makeable(folder, flag, given):
    """`folder`, or the nearest folder above it that exists when it does not (the grader makes the rest when it
    writes, as nbgrader does); UsageError naming what is in the way: a file where a folder should be, no permission."""
    folder = Path(folder)
    at = folder
    while not at.exists():
        if at.is_symlink():
            raise UsageError(f"{flag} {given}: {at} is a link to nothing; give a folder that exists or can be made")
        at = at.parent
    if not at.is_dir():
        raise UsageError(f"{flag} {given}: {at} is a file, not a folder, so {folder} cannot be made; choose another "
                         f"place")
    if at != folder and not os.access(at, os.W_OK | os.X_OK):
        raise UsageError(f"{flag} {given}: the folder {folder} does not exist and cannot be made in {at} (no "
                         f"permission); choose another place")
    return at


FEEDBACK_MARK = ".lesson-feedback"


KEEP_MARK = ".lesson-keep"


def check_folder(folder, flag="--feedback", mark=FEEDBACK_MARK):
    """Refuse an output folder that holds anything but what an earlier run of the same option wrote (nothing of a
    teacher's is lost)."""
    if folder is None:
        return
    path = Path(folder)
    if path.exists() and (not path.is_dir() or (any(path.iterdir()) and not (path / mark).exists())):
        raise UsageError(f"{flag} {folder} already holds other files: give a new or empty folder (or one an "
                         f"earlier {flag} wrote), e.g. {flag} {path.name}{flag.replace('--', '-')}")
    makeable(path.parent, flag, folder)


def fresh_folder(folder, flag, mark):
    """`folder` emptied (check_folder made sure it held only an earlier run's files) and marked as `flag`'s."""
    import shutil
    path = Path(folder)
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    (path / mark).write_text(f"written by lesson-tools grade {flag}; replaced on each run\n")
    return path


def write_feedback(folder, subs, rows, course):
    """Replace the feedback folder's contents with this run's pages (see lesson_tools.grading.feedback)."""
    return feedback.write_all(fresh_folder(folder, "--feedback", FEEDBACK_MARK), subs, rows, course)



def parse(argv=None, prog="lesson-tools grade"):
    """The options: the command line over the course's settings file over the defaults.  Raises SettingsError."""
    p = parser(prog)
    first = argparse.ArgumentParser(add_help=False)
    first.add_argument("--settings")
    known, _ = first.parse_known_args(argv)
    path, table = find_settings(known.settings)
    if path is not None:
        p.set_defaults(**option_defaults(p, table.get("grade", {}), path, "grade", PATHS))
    args = p.parse_args(argv)
    args.settings_file, args.settings = path, table
    return args


def canvas_columns(args, stems, roster, known):
    """({notebook: Canvas column heading} for the notebooks graded, [warnings]): --canvas-assignment, else the
    settings' [notebooks.NN_name] canvas_assignment, else the roster export's one heading that names the notebook,
    else the notebook's id (a heading without an assignment id: Canvas would make a new assignment, so it warns)."""
    given = {}
    for item in args.canvas_assignment or ():
        stem, sep, heading = item.partition("=")
        if sep and stem.strip() in known:
            given[stem.strip()] = heading.strip()
        elif len(stems) == 1:
            given[stems[0]] = item.strip()
        else:
            raise UsageError(f"--canvas-assignment {item!r}: {len(stems)} notebooks were graded "
                             f"({', '.join(stems)}), so name the notebook: --canvas-assignment "
                             f"'{stems[0]}={item}'")
    settings = args.settings.get("notebooks", {})
    columns, warnings = {}, []
    for stem in stems:
        heading = (given.get(stem) or settings.get(stem, {}).get("canvas_assignment")
                   or _roster_heading(roster, stem, known.get(stem, "")))
        if not heading or not rosters.ASSIGNMENT.match(heading):
            heading = heading or stem
            warnings.append(f"the Canvas column {heading!r} ({stem}) has no assignment id, so Canvas's import would "
                            f"make a new assignment: give --canvas-assignment '{stem}=NAME (ID)' as Canvas's export "
                            f"heads that assignment, or [notebooks.{stem}] canvas_assignment in lesson_tools.toml, or "
                            f"--roster with Canvas's exported gradebook")
        columns[stem] = heading
    return columns, warnings


def _roster_heading(roster, stem, title):
    if roster is None or not roster.assignments:
        return None
    named = [h for h in roster.assignments
             if stem.lower() in h.lower() or (title and title.lower() in h.lower())]
    return named[0] if len(named) == 1 else None


def moodle_paths(path, stems):
    """{notebook: worksheet path}: the path given for one notebook, FILE-NN_name.csv for each of several."""
    path = Path(path)
    return {stems[0]: path} if len(stems) == 1 else {s: path.with_name(f"{path.stem}-{s}{path.suffix}") for s in stems}


def write_exports(args, rows, roster, columns, started, graded=None, out=print, points=None, names=None):
    """The files platforms import, as the options ask (`columns`: canvas_columns' answer; `graded`: stamps' answer,
    each Moodle person's "Last modified", `started` for those without; `points`: {check: points}, which each
    notebook's maximum is summed from; `names`: {submission label: its name as the platform wrote it}); says who each
    one leaves out."""
    stems = sorted({r["notebook"] for r in rows if r["check"]})
    columns, warnings = columns
    if args.scores:
        out(f"scores: {args.scores} ({export.scores(rows, args.scores, names)} people)")
    if args.canvas:
        n, left = export.canvas(rows, args.canvas, columns, roster, points)
        out(f"canvas: {args.canvas} ({n} people; columns {', '.join(repr(columns[s]) for s in stems)})"
            + _left_out(left, "Canvas user id"))
        for warning in warnings:
            print(f"warning: {gb.shown(warning)}", file=sys.stderr)
    if args.moodle:
        modified = {p.id: p.modified for p in roster.of("moodle").values()} if roster is not None else None
        handed = {r["notebook"] for r in rows
                  if r["platform"] == "moodle" and (r["check"] or r["verdict"] in gb.DECIDED)}
        for stem, path in moodle_paths(args.moodle, stems).items():
            if stem not in handed and stem not in (args.notebook or ()):
                out(f"moodle: no worksheet for {stem}: no Moodle participant handed it in (--notebook {stem} writes "
                    f"one, of zeros)")
                continue
            n, left = export.moodle(rows, path, stem, started, modified, stamps=graded, points=points)
            out(f"moodle: {path} ({n} people, {stem})" + _left_out(left, "Moodle participant id"))


def _left_out(people, what):
    if not people:
        return ""
    names = ", ".join(gb.shown(p["student"]) for p in people[:8]) + (" ..." if len(people) > 8 else "")
    return f"; left out, without a {what} in their file names: {names}"


class Late:
    """What late work would lose, for --dry-run: each submission's lateness (grader.lateness: the policy, the due
    dates, the extensions) and its notebook's points."""

    def __init__(self, policy, due, decisions, points, course):
        self.policy, self.due, self.decisions = policy, due, decisions
        self.possible = {stem: sum(points[c.name] for c in nb.checks) for stem, nb in course.items()}

    def said(self, subs):
        """{submission: '2 days late: 20% off (up to 0.8 of its 4 points)'} for the late ones."""
        from .grader import lateness
        out = {}
        for sub in subs:
            kept, why = lateness([sub], self.policy, self.due, self.decisions)[sub.label]
            if why and not sub.problem:
                most = self.possible.get(sub.notebook, 0)
                loss = (f" (up to {gb.number(round(most * (1 - kept), 4))} of its {gb.number(most)} point"
                        f"{'' if most == 1 else 's'})" if kept < 1 else
                        "" if self.policy is not None else " (marked only: no --late-penalty)")
                out[sub.label] = f"{why}{loss}"
        return out


def preview(subs, left, roster, notebooks, late=None):
    """--dry-run: who is who, person by person (each file, the notebook it was matched to and how, or why it is not
    graded, how late it is and what that would cost, the overrides that apply), what is left out, the roster's
    people with nothing in the download, and who is late."""
    from .grader import off_roster, roster_rows
    lines, people = [], {}
    late_said = late.said(subs) if late is not None else {}
    for sub in subs:
        people.setdefault(sub.person.key, []).append(sub)
    for key in sorted(people, key=lambda k: (people[k][0].person.name, k)):
        who = people[key][0].person
        lines.append(f"{who.name} ({who.platform} {who.id})" if who.id != who.name else f"{who.name} ({who.platform})")
        for sub in sorted(people[key], key=lambda s: s.label):
            what = (f"not graded: {sub.problem}" if sub.problem else f"{sub.notebook} (matched by {sub.matched_by})")
            what += f"; {late_said[sub.label]}" if sub.label in late_said else ""
            note = "; ".join(filter(None, (sub.note, off_roster(roster, sub))))
            lines.append(f"  {sub.label}: {what}" + (f"  [note: {note}]" if note else ""))
        decided = late.decisions.of(key) if late is not None else []
        lines += [f"  override: {o.notebook}{' ' + o.check if o.check else ''}: {o.said()}" for o in decided]
    missing = roster_rows(roster, subs, notebooks)
    if missing:
        lines.append(f"on the roster with nothing in the download ({len(missing)}): "
                     + ", ".join(f"{r['student']} ({r['student_id']})" for r in missing))
    if left:
        lines.append(f"left out: {left} file{'s' if left != 1 else ''} of other notebooks (--notebook "
                     f"{' '.join(notebooks)})")
    if late_said:
        lines.append(f"late ({len(late_said)}): " + "; ".join(
            f"{s.student} ({s.person.id}) {s.notebook}: {late_said[s.label]}"
            for s in sorted(subs, key=lambda s: (s.student, s.label)) if s.label in late_said))
    graded = sum(1 for s in subs if not s.problem)
    lines.append(f"{len(people)} people, {graded} file{'s' if graded != 1 else ''} to grade, "
                 f"{len(subs) - graded} not gradable; nothing graded (--dry-run)")
    return [gb.shown(line) for line in lines]


def read_overrides(args):
    """[overrides.Override] of --overrides (or the settings' overrides), else of OVERRIDES in the folder you run
    from when it is there (args.overrides is then set to it); [] when there are none."""
    if args.overrides is None and Path(OVERRIDES).is_file():
        args.overrides = OVERRIDES
    return by_hand.read(args.overrides) if args.overrides else []


def stamps(subs, graded_at):
    """{person key: {notebook: when the person's latest result for it was graded}} (Moodle's "Last modified")."""
    out = {}
    for sub in subs:
        when = graded_at.get(sub.label)
        if when is not None and sub.notebook:
            mine = out.setdefault(sub.person.key, {})
            mine[sub.notebook] = max(when, mine.get(sub.notebook, when))
    return out


def main(argv=None, prog="lesson-tools grade"):
    """The command; its exit code (EXIT)."""
    from collections import Counter
    try:
        args = parse(argv, prog)
    except SettingsError as exc:
        print(f"error: {gb.shown(exc)}", file=sys.stderr)
        return 2
    from . import course_notebooks
    try:
        for path in args.paths:                    # before anything keys the class by them
            check_path(path)
        check_out(args.out)
        for flag, what in (("scores", "the scores"), ("canvas", "Canvas's import"), ("moodle", "Moodle's worksheet")):
            check_out(getattr(args, flag), f"--{flag}", (".csv",), what, flag)
        check_folder(args.feedback)
        check_folder(args.report, "--report", report.MARK)
        check_folder(args.keep, "--keep", KEEP_MARK)
        if args.canvas_assignment and not args.canvas:
            raise UsageError("--canvas-assignment names a column of --canvas FILE: give --canvas too")
        roster = rosters.load(args.roster)                                   # refused before grading
        overrides = read_overrides(args)
        pattern = compile_pattern(args.pattern) if args.pattern else None
        points = course_points.load(args.points, args.settings.get("points"), args.settings_file)
        course = course_notebooks.load()
        from ..catalog import CATALOG
        titles = {e.id: e.title for e in CATALOG}
        known = {stem: titles.get(stem, "") for stem in course}
        notebook_settings(args.settings.get("notebooks", {}), args.settings_file, known)
        wrong = [n for n in args.notebook or () if n not in known]
        if wrong:
            raise UsageError(f"--notebook {wrong[0]}: not a notebook of the course; the notebooks are: "
                             f"{', '.join(sorted(known))}")
        if args.memory_mb < MIN_MEMORY_MB:
            raise UsageError(f"--memory-mb {args.memory_mb} is too little for a kernel: with numpy, matplotlib and "
                             f"the course it maps about 700 MB, so every check would end in ERROR; give at least "
                             f"{MIN_MEMORY_MB} (default {Limits().memory_mb})")
        due = due_dates(args, known)
        if args.dry_run:
            everyone, aside = rosters.set_aside(collect(args.paths, course, pattern), roster)
            decisions = by_hand.resolve(overrides, by_hand.people_of(everyone, roster), course, points)
            subs, left = chosen(everyone, args.notebook)
            late = Late(args.late_penalty, due, decisions, points, course)
            for line in [gb.shown(a) for a in aside] + preview(subs, left, roster, args.notebook or (), late):
                print(line)                                                 # (preview's lines are shown already)
            return 0
        store = open_store(args.cache)
    except (UsageError, SettingsError, late_policy.PolicyError) as exc:
        print(f"error: {gb.shown(exc)}", file=sys.stderr)
        return 2
    class_key = Store.class_key(args.paths, args.notebook)
    record = None if args.fresh else store.run(class_key)
    salt = args.salt if args.salt is not None else store.salt(fresh=args.fresh)
    if record is not None and args.salt is None and (record["finished"] is None or args.only):
        print(("--only: the salt of this class's last run" if record["finished"] else
               "resuming this class's interrupted run: the same salt, the results already kept") +
              f" (started {_when(record['started'])})", file=sys.stderr, flush=True)
    elif args.only and args.salt is None:
        print(f"--only: the salt kept in {store.folder}, as for every run of it", file=sys.stderr, flush=True)
    if overrides:
        kinds = Counter(o.kind for o in overrides)
        print(f"overrides: {args.overrides} (" + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) + ")",
              file=sys.stderr, flush=True)
    store.begin(class_key, salt)
    started = store.run(class_key)["first"]
    limits = Limits(cell_s=args.timeout, notebook_s=args.notebook_timeout, memory_mb=args.memory_mb,
                    output_mb=args.max_output_mb, sandbox=not args.no_sandbox, salt=salt)
    reason = sandbox.problem() if limits.sandbox else "--no-sandbox was given"
    if reason:
        print(f"warning: grading WITHOUT a sandbox: {reason}. The learners' code will run as you, with your files, "
              f"network and processes in reach (only per-process limits apply).", file=sys.stderr, flush=True)
    elif caps.problem():
        print(f"warning: grading without caps on each sandbox as a whole: {caps.problem()}. Memory is capped per "
              f"process only, the number of processes is not capped, and time limits count seconds on the clock "
              f"(a busy machine can turn correct work into TIMEOUT).", file=sys.stderr, flush=True)
    log = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    if args.keep:
        Path(args.keep).mkdir(exist_ok=True)
        (Path(args.keep) / KEEP_MARK).write_text("written by lesson-tools grade --keep\n")
    try:
        graded_at = {}
        subs, rows, course = run(args.paths, limits, args.workers, args.scheduler, log, pattern, points, args.count,
                                 notebooks=args.notebook, store=store, only=set(args.only or ()), keep=args.keep,
                                 roster=roster, fresh=args.fresh, late=args.late_penalty, due=due,
                                 overrides=overrides, say=lambda line: print(f"note: {gb.shown(line)}", file=sys.stderr,
                                                                              flush=True), graded_at=graded_at)
    except Interrupted as exc:
        print(f"\ninterrupted: {exc.graded} of {exc.total} submissions graded, their results kept in {store.folder}; "
              f"the same command grades the other {exc.total - exc.graded}, with the same salt", file=sys.stderr)
        return 130
    except UsageError as exc:
        print(f"error: {gb.shown(exc)}", file=sys.stderr)
        return 2
    except (CourseFilesChanged, RuntimeError, OSError) as exc:
        print(f"error: grading could not run: {gb.shown(exc)}", file=sys.stderr)
        return 1
    try:                                           # before any file is written; a rerun takes every result kept
        columns = canvas_columns(args, sorted({r["notebook"] for r in rows if r["check"]}), roster, known) \
            if args.canvas else ({}, [])
    except UsageError as exc:
        print(f"error: {gb.shown(exc)}", file=sys.stderr)
        return 2
    if args.out:
        gb.write(rows, args.out)
    else:
        for r in rows:
            print(gb.shown(f"{r['student']:<14} {r['notebook']:<24} {r['check']:<22} {r['verdict']:<13} "
                           f"{r['points']:>3}/{r['max_points']:<3} {r['detail']}"))
        print()
    for line in gb.summary(rows, args.count):
        print(line)
    if args.out:
        print(f"gradebook: {args.out} ({len(rows)} rows)")
    print(f"checks' inputs drawn with --salt {limits.salt} (give it to grade again with the same inputs; keep it "
          f"from learners)")
    if args.late_penalty is not None:
        dates = ", ".join(f"{s} {_when(t)}" for s, t in sorted(due.items())) if due else None
        print(f"late work: {args.late_penalty}" + (f"; due: {dates}" if dates else
                                                    "; no due date: late as the platform marks it"))
    print("limits: " + ("per process only (no sandbox)" if reason else
                        f"a bubblewrap sandbox per submission, capped as a whole by {caps.kind()}" if caps.kind() else
                        "a bubblewrap sandbox per submission; memory per process, time on the clock (no caps)"))
    write_exports(args, rows, roster, columns, started, stamps(subs, graded_at), points=points,
                  names={s.label: s.file.handed for s in subs})
    if args.feedback:
        pages = write_feedback(args.feedback, subs, rows, course)
        print(f"feedback: {args.feedback} ({sum(p.suffix == '.html' for p in pages)} pages"
              + "".join(f", {p.name}" for p in pages if p.suffix == ".zip") + ")")
    if args.report:
        written = report.write(fresh_folder(args.report, "--report", report.MARK), subs, rows, course)
        print(f"report: {args.report} ({', '.join(p.name for p in written)})")
    if args.keep:
        print(f"kept: {args.keep} (each graded submission's notebook as it ran, and its output)")
    store.finish(class_key)
    return 0


def open_store(folder):
    """The results' Store, or UsageError when its folder cannot be made or written."""
    folder = Path(folder) if folder else default_folder()
    try:
        store = Store(folder)
        probe = folder / "results" / ".probe"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"--cache {folder}: cannot keep results there ({exc.strerror}); give a folder you can "
                         f"write, e.g. --cache ./grading-cache") from None
    return store


def _when(seconds):
    import time
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))
