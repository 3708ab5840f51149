"""Grade a class: a gradebook, points, the files learning platforms import, and feedback, from their downloads.

    python -m lesson_tools.grade PATH [PATH ...] --out gradebook.csv [--canvas canvas.csv] [--moodle moodle.csv]
                                 [--scores scores.csv] [--feedback feedback/] [--report report/]

PATH: notebook files, folders (searched recursively) and zips (read in place), as Canvas, Moodle or any platform
downloads them (lesson_tools.grading.intake says how each file's person is found; --pattern gives another
platform's naming).  Each file is matched to its course notebook by content and graded in a fresh kernel under
limits; the course's checks run in a separate judge process that sends the learner's function its arguments and
gets back plain data (no learner code runs there).  The gradebook has one row per (submission, check), with points
(lesson_tools.grading.gradebook); a summary per person is printed at the end.

Exit code 0 whenever grading ran, whatever the learners scored; 2 for a usage error; 1 when grading itself
could not run (course files changed, no Dask scheduler at ADDRESS, no kernel could start).
"""
import argparse
import os
import sys
import time
from pathlib import Path

from . import caps, sandbox
from . import gradebook as gb
from . import export, feedback, flags, identical, points as course_points, report
from .intake import compile_pattern, find, merged_folders
from .rlimits import Limits
from .submissions import UsageError, identify
from .verified import CourseFilesChanged, changed, committed, manifest, package_root, restore_command


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


def parser():
    p = argparse.ArgumentParser(prog="python -m lesson_tools.grade", description=__doc__.split("\n\n")[0],
                                epilog="Example: python -m lesson_tools.grade submissions/ --out gradebook.csv")
    p.add_argument("paths", nargs="+", metavar="PATH", help="notebook files, folders and zips of submissions")
    p.add_argument("--out", metavar="FILE", help="write the gradebook here (.csv, or .json)")
    p.add_argument("--pattern", metavar="REGEX",
                   help="how another platform names files: a regex with a group (?P<student_id>...) (and optionally "
                        "name, late, attempt), searched in each file's path under the PATH given; files it does not "
                        "match are not graded")
    p.add_argument("--points", metavar="FILE", help="a TOML file setting points per check ([points] then "
                                                     "kinetic_energy = 2); default: the points each check declares")
    p.add_argument("--count", choices=gb.COUNTS, default="best",
                   help="which of a person's submissions of a notebook counts (default %(default)s)")
    p.add_argument("--scores", metavar="FILE", help="write one row per person (points per notebook, total) here")
    p.add_argument("--canvas", metavar="FILE", help="write Canvas's gradebook import CSV here (people from Canvas "
                                                     "file names)")
    p.add_argument("--canvas-assignment", metavar="NAME", default=None,
                   help="the assignment column's heading as Canvas's export writes it, e.g. 'Homework 2 (4567)' "
                        "(default: the notebooks graded)")
    p.add_argument("--canvas-roster", metavar="FILE", help="Canvas's exported gradebook CSV: SIS ids and sections "
                                                           "are copied from it")
    p.add_argument("--moodle", metavar="FILE", help="write Moodle's grading worksheet CSV here (people from Moodle "
                                                     "folder names)")
    p.add_argument("--feedback", metavar="FOLDER", help="write one HTML feedback page per submission here, and the "
                                                         "Canvas and Moodle bulk-upload zips")
    p.add_argument("--report", metavar="FOLDER", help="write the class report here: a page per notebook (what the "
                                                       "class got wrong, points, who to follow up) and class.json")
    p.add_argument("--workers", type=_positive(int), default=len(os.sched_getaffinity(0)),
                   help="submissions graded at once on this machine (default: the number of cores, %(default)s)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="grade on a Dask distributed cluster instead, e.g. tcp://scheduler.example.org:8786")
    d = Limits()
    p.add_argument("--timeout", type=_positive(float), default=d.cell_s,
                   help=f"CPU seconds per cell and per check, all the submission's processes counted, at most "
                        f"{d.wall_factor:g} times as long on the clock (wall-clock seconds where the sandbox has no "
                        f"caps) (default %(default)g)")
    p.add_argument("--notebook-timeout", type=_positive(float), default=d.notebook_s,
                   help="seconds for a whole notebook, counted the same way (default %(default)g)")
    p.add_argument("--memory-mb", type=_positive(int), default=d.memory_mb,
                   help="address space of each process, and memory of each sandbox as a whole, in MB "
                        "(default %(default)s)")
    p.add_argument("--max-output-mb", type=_positive(float), default=d.output_mb,
                   help="output kept from one notebook, in MB (default %(default)g)")
    p.add_argument("--salt", type=int, default=None,
                   help="the number the checks' inputs are drawn with (default: a new random one each run, printed "
                        "at the end); give a run's own to grade again with the same inputs. Keep it from learners")
    p.add_argument("--no-sandbox", action="store_true",
                   help="run kernels without the bubblewrap sandbox (only for submissions you trust)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    return p


def _failed(task, exc):
    """Rows for a submission the grader itself could not grade."""
    return [gb.row(task["who"], task["notebook"], task["submission"], c.name, gb.ERROR,
                   "the grader could not grade this submission", f"{type(exc).__name__}: {exc}")
            for c in task["course_nb"].checks]


def _graded(task, result, failed):
    """A task's Graded result: raise when the course's files changed, ERROR rows when the grader itself failed
    (kept in `failed`, by task, until a later try of it succeeds)."""
    from .job import Graded
    if isinstance(result, CourseFilesChanged):
        raise result
    if isinstance(result, Exception):
        failed[id(task)] = result
        return Graded(_failed(task, result))
    failed.pop(id(task), None)
    return result


def run_local(tasks, workers):
    """Yield (task, rows or exception) as submissions finish, on `workers` processes (this process only waits,
    so Ctrl-C stops grading whatever the number of workers)."""
    if not tasks:
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        from .job import grade_task
        futures = {pool.submit(grade_task, task): task for task in tasks}
        for future in as_completed(futures):
            try:
                yield futures[future], future.result()
            except Exception as exc:                          # noqa: BLE001 -- reported per submission
                yield futures[future], exc


def run_dask(tasks, address):
    """The same tasks on a Dask distributed cluster."""
    from dask.distributed import Client, as_completed
    from .job import grade_task
    with Client(address, timeout="10s") as client:
        futures = client.map(grade_task, tasks, pure=False)
        task_of = dict(zip((f.key for f in futures), tasks))
        for future in as_completed(futures):
            try:
                yield task_of[future.key], future.result()
            except Exception as exc:                          # noqa: BLE001
                yield task_of[future.key], exc


def course_hashes():
    """The hashes every submission is graded against: the git commit's, after checking that the files on disk
    are exactly those (else CourseFilesChanged names them and the command that restores them); the files on
    disk for an installed copy without git."""
    root = package_root()
    found = committed(root)
    if found is None:
        return manifest()
    expected, commit = found
    differ = changed(root, expected)
    if differ:
        raise CourseFilesChanged(f"the course's files at {root} differ from its commit {commit[:12]}: "
                                 f"{', '.join(differ[:8])}{' ...' if len(differ) > 8 else ''} (edited, missing or not "
                                 f"committed). Commit them, or restore them with: {restore_command(root)}")
    return expected


def course_files():
    """{(device, inode): path} of the course's own files."""
    root = package_root()
    inodes = {}
    for folder in ("notebooks", "lesson_lib", "lesson_course", "lesson_tools"):
        for path in (root / folder).rglob("*"):
            if path.is_file() and not path.is_symlink():
                st = path.stat()
                inodes[(st.st_dev, st.st_ino)] = path
    return inodes


def collect(paths, course, pattern=None):
    """[Submission] for every file under `paths`, with what a person should look at in `note`; refuses
    (UsageError) a folder that would merge people."""
    subs = [identify(f, course, pattern) for f in find(paths)]
    inodes = course_files()
    for sub in subs:
        linked = flags.course_link(sub.file, inodes)
        if linked is not None:
            sub.problem, sub.text = f"not graded: a hard link to the course's own file {linked.name}", None
    notes = flags.class_notes(subs)
    for sub in subs:
        if notes.get(sub.label):
            sub.note = "; ".join(([sub.note] if sub.note else []) + notes[sub.label])
    merged = merged_folders(subs)
    if merged:
        folder, names = next(iter(sorted(merged.items())))
        raise UsageError(f"the folder {folder!r} holds the same notebook under several names ({', '.join(names[:6])}"
                         f"{' ...' if len(names) > 6 else ''}): graded as one student it would merge several people. "
                         f"Give {folder!r} itself as the PATH (its files or folders then name the people), or a "
                         f"--pattern that finds the person in each path")
    return subs


def grade(paths, limits=Limits(), workers=1, scheduler=None, log=None, pattern=None, points=None, count="best"):
    """Gradebook rows for the files, folders and zips in `paths`, scored (see `run`)."""
    return run(paths, limits, workers, scheduler, log, pattern, points, count)[1]


def run(paths, limits=Limits(), workers=1, scheduler=None, log=None, pattern=None, points=None, count="best"):
    """(submissions, scored gradebook rows, course) for the files, folders and zips in `paths` (the whole CLI run,
    without printing); `pattern`: a compiled --pattern or None; `points`: {check: points}, default as declared."""
    import dataclasses
    import secrets
    from . import course_notebooks
    from .job import make_task
    if limits.salt is None:                    # one salt for the run: every judge draws the same inputs
        limits = dataclasses.replace(limits, salt=secrets.randbits(62))
    course = course_notebooks.load()
    expected = course_hashes()
    names = course_notebooks.check_names(course)
    rows, tasks = [], []
    subs = collect(paths, course, pattern)
    for sub in subs:
        if sub.problem:
            rows.append(gb.row(gb.identity(sub.person), sub.notebook, sub.label, "", gb.NOT_GRADED, sub.problem,
                               sub.note))
        else:
            tasks.append(make_task(sub, course[sub.notebook], names, expected, limits))
    results = run_dask(tasks, scheduler) if scheduler else run_local(tasks, workers)
    start, failed, timed_out, first = time.monotonic(), {}, [], {}
    for done, (task, result) in enumerate(results, 1):
        graded = _graded(task, result, failed)
        result = graded.rows
        if graded.starved and any(r["verdict"] == gb.TIMEOUT for r in result):
            timed_out.append(task)                    # graded again alone below: a busy machine is no verdict
            first[id(task)] = {r["check"]: r["verdict"] for r in result}
        else:
            rows += result
        if log:
            log(f"[{done}/{len(tasks)}] {gb.shown(task['student'])} {task['notebook']}: {gb.tally(result)} "
                f"({time.monotonic() - start:.0f} s)")
    for task, result in (run_local(timed_out, 1) if timed_out else ()):
        result = _graded(task, result, failed).rows
        before = first.get(id(task), {})
        again = "; graded a second time alone, after a TIMEOUT when graded with the others"
        rows += [{**r, "detail": r["detail"] + again} if before.get(r["check"]) == gb.TIMEOUT else r for r in result]
        if log:
            log(f"[again, alone] {gb.shown(task['student'])} {task['notebook']}: {gb.tally(result)}")
    if tasks and len(failed) == len(tasks):
        raise RuntimeError(f"no submission could be graded: {next(iter(failed.values()))}")
    order = {(nb.stem, c.name): c.index for nb in course.values() for c in nb.checks}
    rows = gb.score(rows, points or course_points.declared(), count, {s.label: s.person.order for s in subs})
    rows = identical.noted(rows, subs, course)             # the same work by several people: the teacher's note
    return subs, gb.sort_rows(rows, order), course


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
    folder = path.parent
    if not folder.is_dir():
        raise UsageError(f"{flag} {out}: the folder {folder} does not exist; create it first")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"{flag} {out}: cannot write there (no permission); choose another place")


FEEDBACK_MARK = ".lesson-feedback"


def check_feedback(folder):
    """Refuse a feedback folder that holds anything but an earlier run's feedback (nothing of a teacher's is lost)."""
    if folder is None:
        return
    path = Path(folder)
    if path.exists() and (not path.is_dir() or (any(path.iterdir()) and not (path / FEEDBACK_MARK).exists())):
        raise UsageError(f"--feedback {folder} already holds other files: give a new or empty folder (or one an "
                         f"earlier --feedback wrote), e.g. --feedback {path.name}-feedback")
    if not path.parent.is_dir():
        raise UsageError(f"--feedback {folder}: the folder {path.parent} does not exist; create it first")


def write_feedback(folder, subs, rows, course):
    """Replace the feedback folder's contents with this run's pages (see lesson_tools.grading.feedback)."""
    import shutil
    path = Path(folder)
    if path.exists():
        shutil.rmtree(path)
    path.mkdir()
    (path / FEEDBACK_MARK).write_text("written by python -m lesson_tools.grade --feedback; replaced on each run\n")
    return feedback.write_all(path, subs, rows, course)


def write_exports(args, rows, roster=None, out=print):
    """The files platforms import, as the options ask (`roster`: Canvas's exported gradebook, read); says who each
    one leaves out."""
    if args.scores:
        out(f"scores: {args.scores} ({export.scores(rows, args.scores)} people)")
    if args.canvas:
        assignment = args.canvas_assignment or " + ".join(sorted({r["notebook"] for r in rows if r["check"]}))
        n, left = export.canvas(rows, args.canvas, assignment, roster)
        out(f"canvas: {args.canvas} ({n} people, column {assignment!r})" + _left_out(left, "Canvas user id"))
    if args.moodle:
        n, left = export.moodle(rows, args.moodle)
        out(f"moodle: {args.moodle} ({n} people)" + _left_out(left, "Moodle participant id"))


def _left_out(people, what):
    if not people:
        return ""
    names = ", ".join(gb.shown(p["student"]) for p in people[:8]) + (" ..." if len(people) > 8 else "")
    return f"; left out, without a {what} in their file names: {names}"


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        check_out(args.out)
        for flag, what in (("scores", "the scores"), ("canvas", "Canvas's import"), ("moodle", "Moodle's worksheet")):
            check_out(getattr(args, flag), f"--{flag}", (".csv",), what, flag)
        check_feedback(args.feedback)
        report.check_folder(args.report)
        if args.canvas_assignment is not None and not args.canvas:
            raise UsageError("--canvas-assignment names the column of --canvas FILE: give --canvas too")
        if args.canvas_roster and not args.canvas:
            raise UsageError("--canvas-roster fills in --canvas FILE: give --canvas too")
        roster = export.read_roster(args.canvas_roster) if args.canvas_roster else None    # refused before grading
        pattern = compile_pattern(args.pattern) if args.pattern else None
        points = course_points.load(args.points)
        if args.memory_mb < MIN_MEMORY_MB:
            raise UsageError(f"--memory-mb {args.memory_mb} is too little for a kernel: with numpy, matplotlib and "
                             f"the course it maps about 700 MB, so every check would end in ERROR; give at least "
                             f"{MIN_MEMORY_MB} (default {Limits().memory_mb})")
    except UsageError as exc:
        print(f"error: {gb.shown(exc)}", file=sys.stderr)
        return 2
    import secrets
    limits = Limits(cell_s=args.timeout, notebook_s=args.notebook_timeout, memory_mb=args.memory_mb,
                    output_mb=args.max_output_mb, sandbox=not args.no_sandbox,
                    salt=args.salt if args.salt is not None else secrets.randbits(62))
    reason = sandbox.problem() if limits.sandbox else "--no-sandbox was given"
    if reason:
        print(f"warning: grading WITHOUT a sandbox: {reason}. The learners' code will run as you, with your files, "
              f"network and processes in reach (only per-process limits apply).", file=sys.stderr, flush=True)
    elif caps.problem():
        print(f"warning: grading without caps on each sandbox as a whole: {caps.problem()}. Memory is capped per "
              f"process only, the number of processes is not capped, and time limits count seconds on the clock "
              f"(a busy machine can turn correct work into TIMEOUT).", file=sys.stderr, flush=True)
    log = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    try:
        subs, rows, course = run(args.paths, limits, args.workers, args.scheduler, log, pattern, points, args.count)
    except UsageError as exc:
        print(f"error: {gb.shown(exc)}", file=sys.stderr)
        return 2
    except (CourseFilesChanged, RuntimeError, OSError) as exc:
        print(f"error: grading could not run: {gb.shown(exc)}", file=sys.stderr)
        return 1
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
    write_exports(args, rows, roster)
    if args.feedback:
        pages = write_feedback(args.feedback, subs, rows, course)
        print(f"feedback: {args.feedback} ({sum(p.suffix == '.html' for p in pages)} pages"
              + "".join(f", {p.name}" for p in pages if p.suffix == ".zip") + ")")
    if args.report:
        print(f"report: {args.report} ({', '.join(p.name for p in report.write(args.report, subs, rows, course))})")
    return 0
