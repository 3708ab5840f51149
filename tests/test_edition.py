"""The learners' edition (`lesson-tools release`): the course as learners get it, and nothing else.

Written once per test run into a temporary folder, from the teachers' sources as they are now.  It holds no line
of any solution, no stored outputs, no build or grading code; its checks say PASS once the teachers' answers are
put in (and NOT ATTEMPTED before: tests/test_install.py runs the edition in the learners' environment); each cell
run first after a restart works or says which cell to run; a branch release commits exactly the folder's files.
"""
import ast
import json
import os
import re
import subprocess
import sys

import nbformat
import pytest
from kernel_sockets import ipc_prefix, nbconvert_options

from lesson_tools import build, catalog, release
from lesson_tools.notebook_format import BEGIN, STUB, is_check_cell, solution_lines

ROOT = build.ROOT
# Rooms of lesson_lib that are the course's truth: they may compute what an exercise asks (the RNEA builds M
# column by column, the audit takes the smallest eigenvalue), so a solution's line may appear there.
TRUTH_ROOMS = ("lesson_lib/physics/", "lesson_lib/model/", "lesson_lib/data/", "lesson_lib/evaluation/",
               "lesson_lib/control/")
# Lines that carry no answer: a loop header over the joints, returning a name.
CARRIES_NOTHING = re.compile(r"^(for \w+ in range\(\w+\):|return \w+)$")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    out = tmp_path_factory.mktemp("release") / "learners-edition"
    release.release(out, log=lambda *_: None, allow_uncommitted=True)
    return out


def _norm(line):
    return " ".join(line.split())


def _text_lines(path):
    """The lines of a file as a reader sees them: a notebook's cell sources, any other file's text."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".ipynb":
        text = "\n".join(c.source for c in nbformat.reads(text, as_version=4).cells)
    return {_norm(line) for line in text.splitlines()}


def _teachers():
    return {e.id: nbformat.read(str(build.source_path(e)), as_version=4) for e in catalog.CATALOG if not e.app}


def _files(folder):
    return sorted(p for p in folder.rglob("*") if p.is_file())


def test_the_edition_is_the_course_and_nothing_of_the_teachers(edition):
    assert sorted(p.name for p in edition.iterdir()) == sorted(
        [".gitignore", "README.md", "binder", "lesson_course", "lesson_lib", "notebooks", "pyproject.toml"])
    assert sorted(p.stem for p in (edition / "notebooks").iterdir()) == sorted(e.id for e in catalog.CATALOG)
    tracked = subprocess.run(["git", "ls-files", "lesson_lib", "lesson_course"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
    shipped = [p.relative_to(edition).as_posix()
               for p in _files(edition / "lesson_lib") + _files(edition / "lesson_course")]
    assert sorted(shipped) == sorted(tracked), "the edition's packages must be the learners' files, no more"
    assert sorted(p.name for p in (edition / "binder").iterdir()) == [
        "jupyter-settings", "postBuild", "requirements.txt", "runtime.txt", "voila-template"]
    assert os.access(edition / "binder" / "jupyter-settings", os.X_OK)
    assert (edition / "binder" / "requirements.txt").read_bytes() == (ROOT / "binder" / "requirements.txt").read_bytes()
    assert os.access(edition / "binder" / "postBuild", os.X_OK)
    assert 'include = ["lesson_lib*", "lesson_course*"]' in (edition / "pyproject.toml").read_text()


def _imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node.module


@pytest.mark.parametrize("folder", ["edition", "repository"])
def test_the_learners_packages_never_import_the_teachers_tools(folder, edition):
    base = edition if folder == "edition" else ROOT
    found = [(p.relative_to(base).as_posix(), name) for package in ("lesson_lib", "lesson_course")
             for p in (base / package).rglob("*.py") for name in _imports(p)
             if name and name.split(".")[0] == "lesson_tools"]
    assert not found, f"the learners' packages import lesson_tools: {found}"
    assert not list(edition.rglob("lesson_tools")) and not list(edition.rglob("solutions"))


def test_the_edition_holds_no_sockets_and_no_profilers(edition):
    """The grader's transport (sockets, the profiler that watches hand-overs) is the grader's: it puts it into each
    sandbox itself; the library learners get imports neither."""
    grader = {"socket", "sys.setprofile", "threading.setprofile"}
    sources = [p for package in ("lesson_lib", "lesson_course") for p in (edition / package).rglob("*.py")]
    found = [(p.relative_to(edition).as_posix(), name) for p in sources for name in _imports(p) if name in grader]
    found += [(p.relative_to(edition).as_posix(), "setprofile") for p in sources
              if "setprofile" in p.read_text(encoding="utf-8")]
    assert not found, f"the learners' lesson_lib carries the grader's transport: {found}"
    assert [p.name for p in (ROOT / "lesson_tools").rglob("wire.py")] == ["wire.py"]     # it lives with the grader


def test_no_line_of_any_solution_is_in_the_edition(edition):
    """Every line of every solution block (whitespace aside; loop headers and `return name` carry no answer) is
    searched for in every file of the edition: notebooks, README, binder and the library outside its truth."""
    answers = {}
    for notebook_id, nb in _teachers().items():
        for cell in nb.cells:
            if cell.cell_type == "code":
                answers.update({_norm(line): notebook_id for line in solution_lines(cell.source)})
    telling = {line: nb for line, nb in answers.items() if not CARRIES_NOTHING.match(line)}
    assert len(telling) >= 15, f"too few solution lines found to search for: {telling}"
    found = []
    for path in _files(edition):
        rel = path.relative_to(edition).as_posix()
        if rel.startswith(TRUTH_ROOMS):
            continue
        found += [(rel, line, nb) for line in sorted(_text_lines(path) & set(telling))]
    assert not found, f"solution lines in the learners' edition (file, line, notebook): {found}"


def test_the_search_finds_a_solution_line_that_leaks(edition, tmp_path):
    """The search above can fail: a check module holding the answer's own line is caught."""
    leaked = tmp_path / "nb07.py"
    leaked.write_text("def truth(q, qd, q_d, qd_d):\n    e, e_dot = q_d - q, qd_d - qd\n")
    answers = {_norm(line) for nb in _teachers().values() for c in nb.cells if c.cell_type == "code"
               for line in solution_lines(c.source)}
    assert _text_lines(leaked) & answers == {"e, e_dot = q_d - q, qd_d - qd"}


def test_no_stored_outputs_or_widget_state(edition):
    for path in sorted((edition / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(str(path), as_version=4)
        stored = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
        assert not stored, f"{path.name}: cells {stored} have stored outputs"
        assert "widgets" not in nb.metadata, f"{path.name} stores widget state"
        assert not any(BEGIN in c.source for c in nb.cells), f"{path.name} still has a solution block"
        assert nb.metadata.get("lesson") == {"notebook": path.stem}, f"{path.name} lost its stamp (the grader's)"


def _execute(folder, names, env_extra=None, timeout=900):
    """Run the notebooks `names` of folder/notebooks in fresh kernels that import folder's lesson_lib; return
    {name: executed notebook}."""
    out = folder.parent / f"{folder.name}-executed"
    out.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(folder), "MPLBACKEND": "Agg", **(env_extra or {})}
    lanes = max(1, min(2, len(os.sched_getaffinity(0))))          # each notebook in its own kernel, two at a time
    runs = [subprocess.Popen([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                              "--ExecutePreprocessor.timeout=600", *nbconvert_options(f"lane{k}"), "--output-dir",
                              str(out), *names[k::lanes]],
                             cwd=folder / "notebooks", env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for k in range(lanes) if names[k::lanes]]
    for run in runs:
        _, err = run.communicate(timeout=timeout)
        assert run.returncode == 0, f"a notebook failed to run top to bottom:\n{err[-4000:]}"
    return {name: nbformat.read(str(out / name), as_version=4) for name in names}


def check_lines(nb):
    return ["".join(o.get("text", "") for o in c.outputs if o.get("output_type") == "stream").strip()
            for c in nb.cells if is_check_cell(c)]


# The edition's notebooks, top to bottom in fresh kernels on its own lesson_lib, every check NOT ATTEMPTED: that
# run is tests/test_install.py::test_fresh_binder_environment_runs_the_notebooks, in the learners' environment.


def test_every_check_passes_with_the_teachers_answers_put_in(edition, tmp_path):
    """Each stub cell of the edition replaced by the teachers' cell: every check cell then says PASS."""
    answered = tmp_path / "answered"
    (answered / "notebooks").mkdir(parents=True)
    for package in ("lesson_lib", "lesson_course"):
        os.symlink(edition / package, answered / package)
    names = []
    for notebook_id, teacher in _teachers().items():
        nb = nbformat.read(str(edition / "notebooks" / f"{notebook_id}.ipynb"), as_version=4)
        by_id = {c.id: c for c in teacher.cells}
        stubs = [c for c in nb.cells if c.cell_type == "code" and STUB[1] in c.source]
        assert stubs, f"{notebook_id} has no exercise"
        for cell in stubs:
            assert BEGIN in by_id[cell.id].source, f"{notebook_id} cell {cell.id}: the teachers' cell has no answer"
            cell.source = by_id[cell.id].source
        nbformat.write(nb, str(answered / "notebooks" / f"{notebook_id}.ipynb"))
        names.append(f"{notebook_id}.ipynb")
    for name, nb in _execute(answered, names).items():
        lines = check_lines(nb)
        assert lines and all(line.startswith("PASS: ") for line in lines), (name, lines)


def test_learners_readme_says_how_to_start_check_and_hand_in(edition):
    text = (edition / "README.md").read_text(encoding="utf-8")
    assert text.startswith(release.MARK)
    for words in ("pip install --no-compile -r binder/requirements.txt -e .", "PASS", "FAIL", "NOT ATTEMPTED",
                  "Download", "hand"):
        assert words in text, f"the learners' README does not say {words!r}"
    for link in re.findall(r"\]\((notebooks/[^)]+)\)", text):
        assert (edition / link).is_file(), f"the learners' README links to {link}, which the edition lacks"
    assert "lesson_tools" not in text.replace(release.MARK, ""), "learners' README names the teachers' tools"


def _commands(text):
    """The shell lines of a text's bash blocks."""
    return [line.strip() for block in re.findall(r"```bash\n(.*?)```", text, re.S) for line in block.splitlines()
            if line.strip()]


def test_every_learners_set_up_command_is_the_readmes_first_command(edition):
    """The teachers' README's first command (the learners' set-up), 00's and the learners' README's are one command
    (the teachers' adds --allow-root for CI machines, where it runs as root)."""
    first = _commands((ROOT / "README.md").read_text(encoding="utf-8"))[0].replace(" --allow-root", "")
    assert "binder/requirements.txt" in first and "jupyter lab" in first
    zero = nbformat.read(str(edition / "notebooks" / "00_start_here.ipynb"), as_version=4)
    in_00 = [c for cell in zero.cells if cell.cell_type == "markdown" for c in _commands(cell.source)]
    assert in_00 == [first], f"00 says {in_00}, the README {first}"
    assert _commands((edition / "README.md").read_text(encoding="utf-8")) == [first]


def test_same_sources_give_the_same_edition(edition, tmp_path):
    again = tmp_path / "again"
    release.release(again, log=lambda *_: None, allow_uncommitted=True)
    first = {p.relative_to(edition).as_posix(): p.read_bytes() for p in _files(edition)}
    second = {p.relative_to(again).as_posix(): p.read_bytes() for p in _files(again)}
    assert first == second


def git(repo, *args):
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture()
def repo(tmp_path):
    """A git repository with one commit on main, as a teacher's fork would be."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "README.md").write_text("# Teachers\n")
    git(path, "add", "README.md")
    git(path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "teachers")
    return path


def test_branch_release_commits_exactly_the_edition_and_leaves_the_work_tree_alone(edition, repo):
    clean = repo.parent / "clean-edition"
    release.release(clean, log=lambda *_: None, allow_uncommitted=True)
    files = sorted(p.relative_to(clean).as_posix() for p in _files(clean))
    commit, changed = release.commit_branch(clean, "learners", repo)
    assert changed and git(repo, "rev-parse", "learners") == commit
    assert git(repo, "ls-tree", "-r", "--name-only", "learners").split() == files
    assert git(repo, "ls-tree", "learners", "binder/postBuild").startswith("100755"), "postBuild lost its exec bit"
    assert git(repo, "show", "learners:notebooks/02_model.ipynb") == \
        (clean / "notebooks" / "02_model.ipynb").read_text().strip()
    assert git(repo, "symbolic-ref", "--short", "HEAD") == "main" and git(repo, "status", "--porcelain") == ""
    assert release.commit_branch(clean, "learners", repo) == (commit, False), "nothing new must make no commit"
    (clean / "README.md").write_text("changed\n")
    second, changed = release.commit_branch(clean, "learners", repo)
    assert changed and git(repo, "rev-parse", f"{second}^") == commit


@pytest.mark.parametrize("branch, words", [("main", "checked out here"), ("bad..name", "check-ref-format")])
def test_branch_release_refuses_the_checked_out_branch_and_bad_names(edition, repo, branch, words):
    with pytest.raises(release.ReleaseError, match=words):
        release.commit_branch(edition, branch, repo)
    assert git(repo, "branch", "--list").split() == ["*", "main"]


def test_release_refuses_folders_it_would_harm(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("keep me")
    for out, words in ((tmp_path / "mine", "not empty"), (ROOT, "teachers' repository"),
                       (ROOT / "lesson_lib" / "x", "inside"), (ROOT / "notebooks" / "x", "inside")):
        with pytest.raises(release.ReleaseError, match=words):
            release.release(out, log=lambda *_: None, allow_uncommitted=True)
    assert (tmp_path / "mine" / "thesis.tex").read_text() == "keep me"
    with pytest.raises(release.ReleaseError, match="say where"):
        release.release(None, None)


def test_release_refuses_uncommitted_sources_unless_asked(tmp_path, monkeypatch, repo):
    (repo / "notebooks").mkdir()
    (repo / "notebooks" / "02_model.ipynb").write_text("{}")          # not committed
    (repo / "notes.txt").write_text("mine")                           # not a source of the edition
    assert release.uncommitted(repo) == ["notebooks/02_model.ipynb"]
    monkeypatch.setattr(release, "uncommitted", lambda root=ROOT: ["notebooks/02_model.ipynb"])
    with pytest.raises(release.ReleaseError, match=r"1 source file\(s\) of the edition are not committed "
                                                   r"\(notebooks/02_model.ipynb\): commit them first .* "
                                                   r"--allow-uncommitted"):
        release.release(tmp_path / "out", log=lambda *_: None)
    assert not (tmp_path / "out").exists()


def test_release_remembers_the_remote_that_publishes_the_branch(repo):
    with pytest.raises(release.ReleaseError, match="--remote public: no such git remote here; the remotes are none"):
        release.remember_remote("public", "learners", repo)
    git(repo, "remote", "add", "public", "https://github.com/school/course.git")
    git(repo, "remote", "add", "teachers", "https://github.com/school/teachers.git")
    assert release.push_remote("learners", repo) is None                 # two remotes, none named for the branch
    release.remember_remote("public", "learners", repo)
    assert release.push_remote("learners", repo) == ("public", "https://github.com/school/course.git")
    assert release.push_advice("learners", repo).startswith("`git push public learners`")


def test_release_replaces_an_earlier_edition(tmp_path):
    out = tmp_path / "edition"
    release.release(out, log=lambda *_: None, allow_uncommitted=True)
    (out / "notebooks" / "stale.ipynb").write_text("{}")
    release.release(out, log=lambda *_: None, allow_uncommitted=True)
    assert not (out / "notebooks" / "stale.ipynb").exists()


def test_release_refuses_a_course_with_problems(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "check", lambda log=print: ["notebooks/02_model.ipynb is missing"])
    with pytest.raises(release.ReleaseError, match="1 problem.*02_model"):
        release.release(tmp_path / "out", log=lambda *_: None, allow_uncommitted=True)
    assert not (tmp_path / "out").exists()


def test_release_command_says_what_is_wrong_in_one_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "lesson_tools", "release"], cwd=tmp_path, capture_output=True,
                       text=True)
    assert r.returncode == 1 and r.stderr.strip().count("\n") == 0 and r.stderr.startswith("error: say where")
    r = subprocess.run([sys.executable, "-m", "lesson_tools", "release", str(tmp_path / "ed"), "--allow-uncommitted"],
                       cwd=tmp_path,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"{len(catalog.CATALOG)} notebooks" in r.stdout
    assert json.loads((tmp_path / "ed" / "notebooks" / "00_start_here.ipynb").read_text())["metadata"]["lesson"]


# ---------------------------------------------------------------------- a cell run first, after a restart
def _run_each_cell_first(folder, name, timeout=300):
    """Each code cell of folder/notebooks/name run alone in a kernel restarted just before it: [(index, source,
    error output or None)]."""
    from jupyter_client.manager import KernelManager
    env = {**os.environ, "PYTHONPATH": str(folder), "MPLBACKEND": "Agg"}
    km = KernelManager(kernel_name="python3", transport="ipc", ip=ipc_prefix("kernel"))
    km.start_kernel(cwd=str(folder / "notebooks"), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = []
    try:
        nb = nbformat.read(str(folder / "notebooks" / name), as_version=4)
        for index, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
            if index:
                km.restart_kernel(now=True)
            client = km.client()
            client.start_channels()
            client.wait_for_ready(timeout=60)
            messages = []
            client.execute_interactive(cell.source, timeout=timeout, output_hook=messages.append)
            client.stop_channels()
            errors = [msg["content"] for msg in messages if msg["msg_type"] == "error"]
            results.append((index, cell.source, errors[0] if errors else None))
    finally:
        km.shutdown_kernel(now=True)
    return results


@pytest.fixture(scope="module")
def each_cell_first(edition):
    """_run_each_cell_first for every notebook, two notebooks at a time (each in a kernel of its own):
    {name: future}."""
    from concurrent.futures import ThreadPoolExecutor
    lanes = max(1, min(2, len(os.sched_getaffinity(0))))
    with ThreadPoolExecutor(lanes) as pool:
        yield {e.id + ".ipynb": pool.submit(_run_each_cell_first, edition, e.id + ".ipynb") for e in catalog.CATALOG}


@pytest.mark.parametrize("name", [f"{e.id}.ipynb" for e in catalog.CATALOG])
def test_every_cell_run_first_after_a_restart_works_or_says_which_cell_to_run(each_cell_first, name):
    from lesson_course.notebook import RUN_ABOVE
    bare = [f"code cell {index} ({source.splitlines()[0][:60]!r}) says only {error['ename']}: {error['evalue']}"
            for index, source, error in each_cell_first[name].result()
            if error is not None
            and RUN_ABOVE not in ANSI.sub("", "\n".join(error["traceback"])).replace("\u00a0", " ")]
    assert not bare, f"{name}, run first after a restart:\n" + "\n".join(bare)
