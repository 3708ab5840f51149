"""The learners' edition: the course as learners get it, written from the teachers' repository.

    lesson-tools release OUT_DIR                    # into a folder (new, empty, or a previous edition)
    lesson-tools release --branch learners          # as a commit on the branch `learners` of this repo
    lesson-tools release OUT_DIR --branch learners  # both

The edition holds, generated from the teachers' sources in notebooks/solutions/ (as nbgrader's
`generate_assignment` and otter-grader's `assign` do):

    notebooks/      the learner notebooks: every solution block replaced by its stub, cells tagged `solution`
                    dropped, no stored outputs or widget state (nothing shown before a prediction); the Bench app
    lesson_lib/     the science learners import (physics, data, model, evaluation, control)
    lesson_course/  the course's machinery their notebooks call (the exercise checks with their hints, reveals,
                    reviews, the Bench, the writing desk, figures), and nothing else
    binder/         the learners' environment: this repository's binder/ (course pins and Voilà only; closing a
                    tab shuts its kernel down)
    pyproject.toml  installs lesson_lib and lesson_course, with what they import
    README.md       for learners: start here, how checks work, how to hand in a notebook

and nothing of the teachers': no solutions, tests, benchmarks, build or grading code (lesson_tools).  The same
sources give the same files, byte for byte, so a release with nothing new changes nothing.

A branch release lets a Binder link to that branch (`lesson-tools links` points there by default) give
learners the edition alone: publish it with `git push REMOTE learners`, REMOTE the public repository learners open
(`--remote NAME` names it once and git remembers it as the branch's pushRemote; with a single remote, that one).
The course must pass `lesson-tools check` first, and its sources (notebooks/, the packages, binder/) must
be committed, so that the edition is one commit's; the release refuses otherwise (`--allow-uncommitted` releases
the work tree as it is, and the branch's commit message says so).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from lesson_lib import facts

from . import build, catalog
from .notebook_format import CourseError, learner_version

BRANCH = "learners"
MARK = "<!-- The learners' edition, written by `lesson-tools release`. Do not edit: edit the teachers' repository. -->"
from lesson_tools.grading.verified import LEARNERS  # noqa: E402 -- the packages learners get

SKIP = {"__pycache__", ".ipynb_checkpoints"}

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "learn-the-structure"
version = "0.1.0"
description = "The course 'Learn the structure, not the map': RNEA truth, a Deep Lagrangian Network, and the course"
requires-python = ">=3.11"
dependencies = {dependencies}

[tool.setuptools.packages.find]
include = ["lesson_lib*", "lesson_course*"]

[tool.setuptools.package-data]
"lesson_course.checks" = ["stubs.json"]
"lesson_course" = ["cards.json", "notes.json"]
"lesson_lib.data" = ["glyphs.json"]
"""

GITIGNORE = ".venv/\n__pycache__/\n*.pyc\n.ipynb_checkpoints/\n*.egg-info/\n"


def edition_pyproject(root=build.ROOT):
    """The edition's pyproject.toml: the learners' packages, declaring what they import (the repository's
    dependencies, the science's, and its extra `course`), not the teachers' tools."""
    import tomllib
    project = tomllib.loads((Path(root) / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = project["dependencies"] + project["optional-dependencies"]["course"]
    return PYPROJECT.replace("{dependencies}", "[" + ", ".join(f'"{d}"' for d in declared) + "]")


class ReleaseError(Exception):
    """The edition cannot be written: a course problem, an output folder in the way, or a git failure."""


def readme():
    """The learners' README: what the course is, how to start, how checks work, how to hand in."""
    rows = "\n".join(f"| [{nb.id}](notebooks/{nb.id}.ipynb) | {nb.summary} | {catalog.duration(nb)} |"
                     for nb in catalog.CATALOG if nb.minutes is not None)
    first = catalog.CATALOG[0].id
    return f"""{MARK}
# Learn the structure, not the map

A course on Deep Lagrangian Networks (DeLaN), taught on a double pendulum: a network that learns a robot arm's
dynamics from measured torques, and refuses to learn the whole map from state to torque. What does it learn
instead? Notebook 01 asks you to predict that before anything shows it.

## Start here

Open `notebooks/{first}.ipynb` and work through the notebooks in order. On your own computer (Python 3.11 or newer):

```bash
python3 -m venv .venv && . .venv/bin/activate && pip install --no-compile -r binder/requirements.txt -e . \
&& bash binder/jupyter-settings && jupyter lab notebooks/{first}.ipynb
```

(add `--allow-root` to `jupyter lab` where you are root, as in a container). The Bench alone, as an app, once you
have done notebook 01: with JupyterLab running, open http://localhost:8888/voila/render/bench_app.ipynb (the
command above serves the `notebooks/` folder; Voilà inside the same server, so the app sees the same review history
as your notebooks; a browser keeps a separate one per port).

| notebook | what you do | time |
|---|---|---|
{rows}

## How exercises and checks work

Each exercise is a function with a marked stub (`# YOUR CODE HERE` and a `raise NotImplementedError(...)` line):
replace the stub with your code, run the cell, then run the check cell after it. It prints one line:

- `PASS: ...` your function agrees with the course's own truth (closed forms, the recursive Newton–Euler
  algorithm, finite differences);
- `FAIL: ... Hint: ...` what it returned, what was expected, and a hint that names the likely mistake;
- `NOT ATTEMPTED: ...` the stub is still there.

The lesson passes when the learned mass matrix is within {facts.text("PASS_MAX_ERROR")} of the truth everywhere
on a {facts.text("GRID_POINTS")} grid and stays positive-definite. Where a notebook asks you to predict first,
choose your answer before you run the reveal. The review panel at the end of each notebook brings its questions
back when they are due; your history stays in your browser, and "Download my reviews" keeps a copy.

## Handing in a notebook

Save it (Ctrl+S), then File → Download, and hand the `.ipynb` file to your teacher as they ask (any file name
works). On Binder, download before you leave: a Binder session stops after about ten idle minutes and keeps
nothing. Your teacher grades it by running it from top to bottom in a fresh kernel, so make sure
"Restart kernel and run all" works before you hand it in.

## On a JupyterHub (for whoever runs the hub)

nbgitpuller pulls this repository's files into each learner's home; the packages come from the single-user image,
which installs, from this same release (URL: this repository, BRANCH: this branch; not a learner's set-up):

```sh
pip install nbgitpuller -r binder/requirements.txt "learn-the-structure @ git+URL@BRANCH"
bash binder/jupyter-settings     # news off, kernels shut down with their tab, idle culling, Voilà without CDNs
```
"""


def _copy_library(root, dest):
    """The learners' packages' files (no caches) from the repository at root into dest."""
    for path in sorted(p for package in LEARNERS for p in (root / package).rglob("*")):
        rel = path.relative_to(root)
        if SKIP & set(rel.parts) or path.suffix == ".pyc" or not path.is_file():
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dest / rel)


def write_edition(dest, root=build.ROOT):
    """Write the learners' edition into the empty folder dest; return the relative paths written."""
    import nbformat
    dest = Path(dest)
    (dest / "notebooks").mkdir(parents=True)
    for entry in catalog.CATALOG:
        path = build.source_path(entry)
        nb = learner_version(nbformat.read(str(path), as_version=4), path.name)
        nbformat.validate(nb)
        nbformat.write(nb, str(dest / "notebooks" / f"{entry.id}.ipynb"))
    _copy_library(Path(root), dest)
    # the learners' lock alone: its input (requirements.in) speaks of the teachers' files
    shutil.copytree(Path(root) / "binder", dest / "binder", ignore=shutil.ignore_patterns(*SKIP, "requirements.in"))
    (dest / "pyproject.toml").write_text(edition_pyproject(root), encoding="utf-8")
    (dest / "README.md").write_text(readme(), encoding="utf-8")
    (dest / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    return sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())


def _is_edition(folder):
    readme_path = folder / "README.md"
    try:
        return readme_path.read_text(encoding="utf-8").startswith(MARK)
    except OSError:
        return False


def _check_out_dir(out, root):
    """Refuse an output folder that would lose someone's files or sit in the teachers' repository's packages."""
    out, root = out.resolve(), Path(root).resolve()
    if out == root or root.is_relative_to(out):
        raise ReleaseError(f"{out} holds the teachers' repository: give a folder outside it, e.g. ../learners-edition")
    for inside in (*(root / p for p in LEARNERS), root / "lesson_tools", root / "notebooks"):
        if out.is_relative_to(inside):
            raise ReleaseError(f"{out} is inside {inside}: give a folder outside the course's packages and notebooks")
    if out.exists() and not out.is_dir():
        raise ReleaseError(f"{out} is a file: give a folder")
    if out.is_dir() and any(out.iterdir()) and not _is_edition(out):
        raise ReleaseError(f"{out} is not empty and holds no earlier learners' edition: give a new or empty folder")


def _git(root, *args, env=None, input=None):
    r = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, env=env, input=input)
    if r.returncode != 0:
        raise ReleaseError(f"git {' '.join(args)} failed: {r.stderr.strip() or r.stdout.strip()}")
    return r.stdout.strip()


def commit_branch(folder, branch=BRANCH, root=build.ROOT):
    """Commit the edition in `folder` as the new tip of `branch` in the repository at root (the work tree and
    the index stay as they are).  Returns (commit, changed): changed is False when the tree is the same as the
    branch's last commit, which is then kept."""
    root = Path(root)
    _git(root, "check-ref-format", "--branch", branch)
    current = subprocess.run(["git", "symbolic-ref", "-q", "--short", "HEAD"], cwd=root, capture_output=True,
                             text=True).stdout.strip()
    if current == branch:
        raise ReleaseError(f"{branch} is the branch checked out here: release to another branch (the teachers' "
                           f"work stays on {branch}), e.g. --branch {BRANCH}")
    parent = subprocess.run(["git", "rev-parse", "-q", "--verify", f"refs/heads/{branch}^{{commit}}"], cwd=root,
                            capture_output=True, text=True).stdout.strip()
    git_dir = _git(root, "rev-parse", "--absolute-git-dir")
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
        _git(folder, f"--git-dir={git_dir}", f"--work-tree={folder}", "add", "--all", "--force", ".", env=env)
        tree = _git(folder, f"--git-dir={git_dir}", "write-tree", env=env)
    if parent and _git(root, "rev-parse", f"{parent}^{{tree}}") == tree:
        return parent, False
    source = _git(root, "rev-parse", "--short", "HEAD")
    dirty = " (with uncommitted changes)" if _git(root, "status", "--porcelain", "--untracked-files=no") else ""
    who = {"GIT_AUTHOR_NAME": "lesson_tools release", "GIT_AUTHOR_EMAIL": "lesson-tools@localhost"}
    env = {**who, "GIT_COMMITTER_NAME": who["GIT_AUTHOR_NAME"], "GIT_COMMITTER_EMAIL": who["GIT_AUTHOR_EMAIL"],
           **os.environ}
    message = f"Learners' edition of the course, from {source}{dirty}\n\nWritten by lesson-tools release.\n"
    commit = _git(root, "commit-tree", tree, *(["-p", parent] if parent else []), env=env, input=message)
    _git(root, "update-ref", f"refs/heads/{branch}", commit, *([parent] if parent else []))
    return commit, True


SOURCES = ("notebooks", *LEARNERS, "binder", "pyproject.toml")     # what the edition is written from


def uncommitted(root=build.ROOT):
    """The edition's sources that differ from the commit: edited, added or not yet committed (ignored files aside)."""
    r = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", *SOURCES], cwd=root,
                       capture_output=True, text=True)
    return [line[3:] for line in r.stdout.splitlines() if line.strip()] if r.returncode == 0 else []


def _remotes(root):
    return subprocess.run(["git", "remote"], cwd=root, capture_output=True, text=True).stdout.split()


def push_remote(branch=BRANCH, root=build.ROOT):
    """(name, url) of the remote that receives `branch`: the one recorded for it (`git config
    branch.<branch>.pushRemote`, which `release --remote` sets, or branch.<branch>.remote), else the only remote;
    None when there is none, or several and none recorded."""
    names = _remotes(root)
    for key in (f"branch.{branch}.pushRemote", f"branch.{branch}.remote", "remote.pushDefault"):
        name = subprocess.run(["git", "config", "--get", key], cwd=root, capture_output=True, text=True).stdout.strip()
        if name in names:
            return name, _git(root, "remote", "get-url", name)
    return (names[0], _git(root, "remote", "get-url", names[0])) if len(names) == 1 else None


def push_advice(branch=BRANCH, root=build.ROOT):
    """The command that publishes `branch`, naming the remote that receives it, or how to choose one."""
    found = push_remote(branch, root)
    if found:
        name, url = found
        return f"`git push {name} {branch}` ({name} is {url}; Binder builds it only if it is public)"
    names = _remotes(root)
    if not names:
        return (f"`git push REMOTE {branch}` once this repository has a public remote (git remote add NAME URL), "
                f"then name it once with `lesson-tools release --branch {branch} --remote NAME`")
    return (f"`git push REMOTE {branch}`, REMOTE the public repository learners open (remotes here: "
            f"{', '.join(names)}); name it once with `lesson-tools release --branch {branch} --remote NAME`")


def remember_remote(name, branch, root=build.ROOT):
    """Record `name` as the remote that receives `branch` (git config branch.<branch>.pushRemote)."""
    names = _remotes(root)
    if name not in names:
        raise ReleaseError(f"--remote {name}: no such git remote here; the remotes are "
                           f"{', '.join(names) or 'none (git remote add NAME URL)'}")
    _git(root, "config", f"branch.{branch}.pushRemote", name)


def release(out=None, branch=None, root=build.ROOT, log=print, allow_uncommitted=False, remote=None):
    """Write the edition to the folder `out` and/or commit it to `branch`; see the module's docstring."""
    if out is None and branch is None:
        raise ReleaseError("say where the edition goes: an output folder, --branch NAME, or both")
    if remote is not None and branch is None:
        raise ReleaseError("--remote names where --branch is pushed: give --branch too, e.g. --branch learners")
    changed = uncommitted(root)
    if changed and not allow_uncommitted:
        raise ReleaseError(f"{len(changed)} source file(s) of the edition are not committed ({', '.join(changed[:5])}"
                           f"{' ...' if len(changed) > 5 else ''}): commit them first (git add -A {' '.join(SOURCES)} "
                           f"&& git commit), or release the work tree as it is with --allow-uncommitted")
    if out is not None:
        _check_out_dir(Path(out), root)
    problems = build.check(log=lambda *_: None)
    if problems:
        raise ReleaseError(f"the course has {len(problems)} problem(s), first: {problems[0]}; "
                           f"`lesson-tools check` lists them")
    staging_parent = Path(out).resolve().parent if out is not None else None
    if staging_parent is not None:
        staging_parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".edition-", dir=staging_parent))
    try:
        files = write_edition(staging / "edition", root)
        log(f"learners' edition: {len(files)} files, {sum(f.startswith('notebooks/') for f in files)} notebooks")
        if branch is not None:
            if remote is not None:
                remember_remote(remote, branch, root)
            commit, new = commit_branch(staging / "edition", branch, root)
            log(f"branch {branch}: {'new commit ' + commit[:12] if new else 'unchanged at ' + commit[:12]}. "
                f"Publish it with {push_advice(branch, root)}; `lesson-tools links` gives its Binder links")
        if out is not None:
            out = Path(out).resolve()
            if out.exists():
                shutil.rmtree(out)
            os.replace(staging / "edition", out)
            log(f"folder: {out}")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return files


def main(argv=None, prog="lesson-tools release"):
    """`lesson-tools release [OUT] [--branch B]`; its exit code."""
    from .cli import exit_codes
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0],
                                epilog=exit_codes({1: "the release was refused (the message says why); nothing "
                                                      "was written"}))
    p.add_argument("out", nargs="?", help="folder to write the edition into (new, empty, or an earlier edition)")
    p.add_argument("--branch", metavar="NAME",
                   help=f"also (or only) commit it to this branch of the repository, e.g. {BRANCH}")
    p.add_argument("--remote", metavar="NAME",
                   help="the git remote that publishes the branch (remembered as its pushRemote)")
    p.add_argument("--allow-uncommitted", action="store_true",
                   help="release the sources as they are in the work tree, committed or not")
    args = p.parse_args(argv)
    try:
        release(args.out, args.branch, allow_uncommitted=args.allow_uncommitted, remote=args.remote)
    except (ReleaseError, CourseError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0
