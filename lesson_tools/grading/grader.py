"""Grade a class: the files found, matched and owned (intake, submissions, flags), one task per submission graded on
local worker processes or a Dask cluster (job), each result kept as soon as it is known (results), scored
(gradebook).  The command line is lesson_tools.grading.command; this is what it runs.

    subs, rows, course = run(["downloads/"], Limits(salt=1), workers=2)          # rows scored, in course order
    rows = grade(["downloads/"], Limits(salt=1))                                 # the rows alone

With `store` (results.Store) a result already kept is taken, not graded again, wherever the file now lies (it is
keyed by what was handed in and whose it is), and every new one is kept the moment it arrives: Ctrl-C (Interrupted)
or a crash loses only the submissions being graded.  Each submission's checks draw their inputs from the run's salt
and its own bytes (results.submission_salt).  `only`: people (an id or a
name) graded again, everyone else's results taken as kept; `fresh`: everyone graded again.  `keep`: a folder where each
graded submission's executed notebook and its kernel's output are written, which its ERROR and TIMEOUT rows point
to.  `roster` (roster.Roster): everyone listed gets a row, with "nothing handed in" where nothing is theirs.
`notebooks`: grade only these course notebooks of the download (the other files are left out, and counted).
`late` (late.Policy) and `due` ({notebook: seconds since the epoch}): a share of a late submission's points off
(without a policy, late work is marked).  `overrides` (overrides.read): the teacher's decisions, checked against the
class before anything is graded and applied to the rows.  Canvas's Test Student is left out (roster.set_aside).
"""
import os
import signal
import time
from pathlib import Path

from . import flags, identical
from . import gradebook as gb
from . import points as course_points
from .feedback import safe
from .intake import merged_folders
from .rlimits import Limits
from .submissions import UsageError, identify
from .verified import CourseFilesChanged, changed, committed, manifest, package_root, restore_command

DEFAULT_LIMITS = Limits()          # frozen: one default shared by every call is safe


class Interrupted(Exception):
    """Ctrl-C while grading: `graded` submissions of `total` have their results kept."""

    def __init__(self, graded, total):
        super().__init__(f"{graded} of {total}")
        self.graded, self.total = graded, total


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
    subs = [identify(f, course, pattern) for f in find_files(paths)]
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


def find_files(paths):
    from .intake import find
    return find(paths)


def chosen(subs, notebooks):
    """(the submissions of `notebooks` (all when None), how many files of other course notebooks were left out)."""
    if not notebooks:
        return subs, 0
    mine = [s for s in subs if s.notebook in notebooks or s.notebook is None]
    return mine, len(subs) - len(mine)


def matches(person, only):
    """Whether a Person is one of `only` (ids or names, as the gradebook shows them)."""
    return bool(only) and (person.id in only or person.name in only or person.key in only)


POLL_S = 0.2          # how often the grading loop looks for a Ctrl-C while it waits for a result


def run_local(tasks, workers, work=None):
    """Yield (task, Graded or exception) as submissions finish, `work(task)` (job.grade_task) on `workers`
    processes.  Ctrl-C or SIGTERM is only recorded by its handler; the loop sees it at its next safe point (between
    two results, or within POLL_S while it waits): the submissions not started are cancelled, those being graded are
    ended through their clean-ups, and KeyboardInterrupt is raised here, in this frame (so any exit before the end is
    clean)."""
    if not tasks:
        return
    import multiprocessing
    import threading
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    from .kernel import SIGNALS, worker_start
    if work is None:
        from .job import grade_task as work
    requested = []
    mine = threading.current_thread() is threading.main_thread()      # a signal handler is the main thread's
    saved = {sig: signal.signal(sig, lambda sig, frame: requested.append(sig)) for sig in SIGNALS} if mine else {}
    context = multiprocessing.get_context("spawn")
    pool, futures = None, {}
    try:
        # the workers are started with both signals blocked, so that one sent before their handlers are in place
        # (a Ctrl-C while they start) waits for them (kernel.worker_start) instead of ending them with a traceback
        if mine:
            from multiprocessing import resource_tracker
            resource_tracker.ensure_running()        # first: starting it unblocks both signals (bpo-33613)
            signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
        try:
            pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=worker_start)
            futures = {pool.submit(work, task): task for task in tasks}        # (every worker is started here)
        finally:
            if mine:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)
        pending = set(futures)
        while pending and not requested:
            done, pending = wait(pending, timeout=POLL_S, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=list(futures).index):
                try:
                    yield futures[future], future.result()
                except Exception as exc:                      # noqa: BLE001 -- reported per submission
                    yield futures[future], exc
        if requested:
            raise KeyboardInterrupt
    except BaseException:
        for future in futures:
            future.cancel()
        for worker in multiprocessing.active_children():
            worker.terminate()                                # SIGTERM: see kernel.worker_start
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)    # the workers' clean-ups end before this does
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def run_dask(tasks, address):
    """The same tasks on a Dask distributed cluster."""
    from dask.distributed import Client, as_completed

    from .job import grade_task
    with Client(address, timeout="10s") as client:
        futures = client.map(grade_task, tasks, pure=False)
        task_of = dict(zip((f.key for f in futures), tasks, strict=True))
        try:
            for future in as_completed(futures):
                try:
                    yield task_of[future.key], future.result()
                except Exception as exc:                          # noqa: BLE001
                    yield task_of[future.key], exc
        except BaseException:
            client.cancel(futures)
            raise


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


def kept_path(keep, task):
    """Where --keep writes a submission's executed notebook (and, beside it, .log): a folder per person."""
    import hashlib
    label = task["submission"]
    tag = hashlib.sha256(label.encode()).hexdigest()[:8]
    who = task["who"]
    return Path(keep) / safe(f"{who['student']}_{who['student_id']}") / f"{safe(Path(label).stem)}-{tag}.ipynb"


def _keep(keep, task, kept):
    if keep is None or not kept:
        return
    path = kept_path(keep, task)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(kept["ipynb"], encoding="utf-8")
    path.with_suffix(".log").write_text(kept["log"], encoding="utf-8")


def _pointed(rows, keep, tasks):
    """ERROR and TIMEOUT rows, with --keep, say where the executed notebook and its log are."""
    if keep is None:
        return rows
    where = {t["submission"]: kept_path(keep, t) for t in tasks}
    out = []
    for r in rows:
        path = where.get(r["submission"])
        if r["verdict"] in (gb.ERROR, gb.TIMEOUT) and path is not None and path.exists():
            r = {**r, "detail": f"{r['detail']}; the notebook as it ran: {path} "
                                f"(its output: {path.with_suffix('.log')})"}
        out.append(r)
    return out


def grade(paths, limits=DEFAULT_LIMITS, workers=1, scheduler=None, log=None, pattern=None, points=None, count="best",
          **options):
    """Gradebook rows for the files, folders and zips in `paths`, scored (see `run`)."""
    return run(paths, limits, workers, scheduler, log, pattern, points, count, **options)[1]


def run(paths, limits=DEFAULT_LIMITS, workers=1, scheduler=None, log=None, pattern=None, points=None, count="best",
        notebooks=None, store=None, only=(), keep=None, roster=None, fresh=False, late=None, due=None, overrides=None,
        say=None, graded_at=None):
    """(submissions, scored gradebook rows, course) for the files, folders and zips in `paths` (the module's
    docstring says what the options do); `pattern`: a compiled --pattern or None; `points`: {check: points},
    default as declared; `overrides`: the teacher's [overrides.Override], checked against the class before anything
    is graded (UsageError); `say`: where lines the teacher must see go (Canvas's Test Student left out, one person
    on two rosters); `graded_at`: a dict filled with {submission: when its result was graded (seconds)}.  Raises
    Interrupted on Ctrl-C, with every result so far kept in `store`."""
    import dataclasses
    import secrets

    from . import caps, course_notebooks, sandbox
    from . import overrides as by_hand
    from . import roster as rosters
    from .job import make_task
    from .results import submission_salt
    if limits.salt is None:                    # one salt for the run: every judge draws the same inputs
        limits = dataclasses.replace(limits, salt=secrets.randbits(62))
    course = course_notebooks.load()
    expected = course_hashes()
    names = course_notebooks.check_names(course)
    points = points or course_points.declared()
    everyone, aside = rosters.set_aside(collect(paths, course, pattern), roster)
    for line in aside:
        (say or log or (lambda _: None))(line)
    decisions = by_hand.resolve(overrides or (), by_hand.people_of(everyone, roster), course, points)
    subs, left = chosen(everyone, notebooks)
    if log and left:
        log(f"{left} file{'s' if left != 1 else ''} of other notebooks left out (--notebook {' '.join(notebooks)})")
    for sub in subs:
        note = off_roster(roster, sub)
        if note:
            sub.note = "; ".join(filter(None, (sub.note, note)))
    sandboxed = limits.sandbox and sandbox.problem() is None
    capped = sandboxed and caps.problem() is None
    rows, tasks, keys, taken, made, when = [], [], {}, 0, [], {}
    for sub in subs:
        if sub.problem:
            rows.append(gb.row(gb.identity(sub.person), sub.notebook, sub.label, "", gb.NOT_GRADED, sub.problem,
                               sub.note))
            continue
        mine = dataclasses.replace(limits, salt=submission_salt(limits.salt, sub.text))
        task = make_task(sub, course[sub.notebook], names, expected, mine, keep=keep is not None)
        made.append(task)
        if store is not None:
            keys[id(task)] = key = store.key(task, expected, sandboxed, capped)
            again = fresh or matches(sub.person, only)
            found = None if again else store.get(key)
            if found is not None:                  # kept under any file name: this person's, this content's
                rows += [{**r, **gb.identity(sub.person), "submission": sub.label, "note": sub.note or ""}
                         for r in found]
                when[sub.label] = store.graded(key)
                taken += 1
                continue
        tasks.append(task)
    rows += roster_rows(roster, subs, notebooks)
    if log and taken:
        log(f"{taken} submission{'s' if taken != 1 else ''} taken from the results kept in {store.folder}; "
            f"{len(tasks)} to grade")
    results = run_dask(tasks, scheduler) if scheduler else run_local(tasks, workers)
    start, failed, timed_out, finished = time.monotonic(), {}, [], 0
    try:
        for done, (task, result) in enumerate(results, 1):
            graded = _graded(task, result, failed)
            _keep(keep, task, graded.kept)
            if graded.starved:                            # the machine's load ended its run (kernel.KernelRun.busy),
                timed_out.append(task)                    # not a limit of its own: graded again alone below
            else:
                rows += graded.rows
                when[task["submission"]] = time.time()
                if store is not None and id(task) not in failed:
                    store.put(keys[id(task)], graded.rows, when[task["submission"]])
                    finished += 1
            if log:
                log(f"[{done}/{len(tasks)}] {gb.shown(task['student'])} {task['notebook']}: {gb.tally(graded.rows)} "
                    f"({time.monotonic() - start:.0f} s)")
        results = run_local(timed_out, 1) if timed_out else iter(())
        for task, result in results:
            graded = _graded(task, result, failed)
            _keep(keep, task, graded.kept)
            again = "; graded a second time alone: the machine was too busy to grade it with the others"
            mine = [{**r, "detail": r["detail"] + again} for r in graded.rows]
            rows += mine
            when[task["submission"]] = time.time()
            if store is not None and id(task) not in failed:
                store.put(keys[id(task)], mine, when[task["submission"]])
                finished += 1
            if log:
                log(f"[again, alone] {gb.shown(task['student'])} {task['notebook']}: {gb.tally(graded.rows)}")
    except KeyboardInterrupt:
        if hasattr(results, "close"):
            results.close()                               # the workers' submissions end (run_local)
        raise Interrupted(taken + finished, taken + len(tasks)) from None
    if tasks and len(failed) == len(tasks):
        raise RuntimeError(f"no submission could be graded: {next(iter(failed.values()))}")
    if graded_at is not None:
        graded_at.update(when)
    order = {(nb.stem, c.name): c.index for nb in course.values() for c in nb.checks}
    rows += [r for r in by_hand.rows(decisions, course, points) if not notebooks or r["notebook"] in notebooks]
    rows = gb.score(_pointed(rows, keep, made), points, count, {s.label: s.person.order for s in subs},
                    lateness(subs, late, due, decisions), decisions.check_points())
    rows = by_hand.noted(rows, decisions)
    rows = identical.noted(rows, subs, course)             # the same work by several people: the teacher's note
    return subs, gb.sort_rows(rows, order), course


def lateness(subs, policy=None, due=None, decisions=None):
    """{submission: (share of its points kept, how late and what comes off)} for every submission (late.judged):
    late by the platform's mark or by its hand-in time after the notebook's due date; with an extension
    (overrides), by its hand-in time after the person's own due date alone (the platform judged by the old one)."""
    from . import late as late_work
    out = {}
    for s in subs:
        own = decisions.due(s.person.key, s.notebook) if decisions is not None else None
        out[s.label] = late_work.judged(policy, s.person.late and own is None, s.file.mtime,
                                        own if own is not None else (due or {}).get(s.notebook))
    return out


def roster_rows(roster, subs, notebooks=None):
    """A row for everyone on the roster of whom the download holds nothing: 0 points, "nothing handed in" (under
    the one notebook graded, when there is one)."""
    if roster is None:
        return []
    present = {s.person.key for s in subs}
    graded = sorted(notebooks or {s.notebook for s in subs if s.notebook})
    notebook = graded[0] if len(graded) == 1 else ""
    return [gb.row({"student": p.name, "student_id": p.id, "platform": p.platform, "late": ""}, notebook, "",
                   "", gb.NOT_GRADED, "nothing handed in",
                   "on the roster (--roster); nothing of theirs in the download")
            for p in sorted(roster.people.values(), key=lambda p: (p.name, p.id)) if p.key not in present]


def off_roster(roster, sub):
    """A note for the teacher when the submission's person is not on the roster, else None."""
    if roster is not None and sub.person.key not in roster.people:
        return f"not on the roster (--roster, {' and '.join(f'{p}' + chr(39) + 's' for p in roster.platforms)})"
    return None


def available_cores():
    """The cores this process may run on (Linux: its affinity; macOS and others, which lack it: all of them)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
