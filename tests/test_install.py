"""Install set-up: binder/requirements.txt is the learners' environment (the course's pins and Voilà, one home),
requirements.txt adds the teachers' and graders' tools to it; repo2docker accepts binder/ in the teachers'
repository and in the learners' edition; a fresh environment built from the edition's binder/ alone runs every
notebook.

repo2docker (pinned in requirements.txt) prints the Dockerfile Binder would build without needing Docker.
The last test builds a virtualenv (2-4 minutes on 2 cores); deselect it with `-m "not slow"`.
"""
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from kernel_sockets import nbconvert_options
from test_edition import check_lines

from lesson_course.checks import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"
# In requirements.txt for the tests and the graders only; learners (Binder, the README's first command) do not
# need them.
TEST_TOOLS = {"nbval", "pytest", "playwright", "jupyter-repo2docker", "cloudpickle", "dask", "distributed", "mutmut", "ruff",
              "confusable-homoglyphs", "jupyterhub", "nbgitpuller"}
# What learners need: the design card's packages that are not test tools, Notebook 7 beside JupyterLab, Voilà.
LEARNERS = {"jupyterlab", "notebook", "ipywidgets", "numpy", "autograd", "matplotlib", "voila",
            "fsrs", "anywidget", "psygnal",     # the review panel: its scheduler, the browser store (and its dependency)
            "threadpoolctl"}                    # one BLAS thread while a model trains
INCLUDE = "-r binder/requirements.txt"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][0-9A-Za-z.+!-]*)$")


def read_pins(path, include=None):
    """{normalised name: version} of a requirements file, and the lines that are not an exact `name==version`
    (nor the one `include` line allowed)."""
    pins, bad = {}, []
    for n, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#") or line == include:
            continue
        m = PIN.match(line)
        if not m:
            bad.append(f"{path.relative_to(ROOT)}:{n}: {raw!r}")
            continue
        name = re.sub(r"[-_.]+", "-", m.group(1)).lower()
        if name in pins:
            bad.append(f"{path.relative_to(ROOT)}:{n}: {name} pinned twice")
        pins[name] = m.group(2)
    return pins, bad


def copy_repo_files(dest):
    """Copy the repo's tracked files (as they are in the work tree) into dest: what Binder would clone."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached"],
                         cwd=ROOT, capture_output=True, check=True).stdout.decode()
    for rel in filter(None, out.split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel, follow_symlinks=False)
    return dest


def tail(text, n=40):
    return "\n".join(text.splitlines()[-n:])


def test_learners_pins_in_binder_and_the_tools_beside_them_in_requirements():
    root, root_bad = read_pins(ROOT / "requirements.txt", include=INCLUDE)
    binder, binder_bad = read_pins(BINDER / "requirements.txt")
    assert not root_bad + binder_bad, f"every requirement must be an exact `name==version` pin: {root_bad + binder_bad}"
    lines = [ln.strip() for ln in (ROOT / "requirements.txt").read_text().splitlines()]
    assert lines.count(INCLUDE) == 1, f"requirements.txt must take the learners' pins with one `{INCLUDE}` line"
    assert set(binder) == LEARNERS, (f"binder/requirements.txt must pin exactly what learners need, "
                                     f"{sorted(LEARNERS)}; it pins {sorted(binder)}")
    assert set(root) == TEST_TOOLS, (f"requirements.txt adds exactly the test and grading tools {sorted(TEST_TOOLS)} "
                                     f"to binder/requirements.txt; it pins {sorted(root)}")


def third_party_imports(package):
    """{distribution name: [modules that import it]} of the package's modules, imports inside functions too."""
    import ast
    from importlib.metadata import packages_distributions
    dists, found = packages_distributions(), {}
    for path in sorted((ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in ("lesson_lib", "lesson_course", "lesson_tools"):
                    continue
                assert top in dists, f"{path.relative_to(ROOT)} imports {top}, which no installed distribution holds"
                found.setdefault(normalised(dists[top][0]), []).append(path.relative_to(ROOT).as_posix())
    return found


def normalised(name):
    return re.sub(r"[-_.]+", "-", re.split(r"[\[<>=;\s]", name)[0]).lower()


def test_each_package_declares_exactly_what_it_imports():
    """pyproject's dependencies are what lesson_lib and lesson_course import, the extra `tools` what lesson_tools
    imports besides, no more and no less; the science imports numpy, autograd and threadpoolctl alone."""
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    base = {normalised(d) for d in project["dependencies"]}
    tools = {normalised(d) for d in project["optional-dependencies"]["tools"]}
    science, course, teachers = (third_party_imports(p) for p in ("lesson_lib", "lesson_course", "lesson_tools"))
    assert set(science) <= {"numpy", "autograd", "threadpoolctl"}, science
    assert set(science) | set(course) == base, f"declared {sorted(base)}; imported {sorted(set(science) | set(course))}"
    assert set(teachers) - base == tools, f"the extra `tools` declares {sorted(tools)}; imported {sorted(set(teachers) - base)}"


def test_binder_runtime_is_python_311():
    text = (BINDER / "runtime.txt").read_text().strip()
    assert text == "python-3.11", f"binder/runtime.txt must say python-3.11 (numpy 2.4 needs >= 3.11), not {text!r}"


def test_postbuild_is_executable_and_installs_the_package():
    post = BINDER / "postBuild"
    assert os.access(post, os.X_OK), "binder/postBuild must be executable (chmod +x binder/postBuild)"
    staged = subprocess.run(["git", "ls-files", "-s", "binder/postBuild"], cwd=ROOT, capture_output=True,
                            text=True).stdout
    assert not staged or staged.startswith("100755"), f"git records binder/postBuild without its exec bit: {staged}"
    lines = [ln.strip() for ln in post.read_text().splitlines()]
    assert lines[0] in ("#!/usr/bin/env bash", "#!/bin/bash"), f"postBuild must be a bash script, starts {lines[0]!r}"
    assert "set -euo pipefail" in lines, "postBuild must stop on the first error: `set -euo pipefail`"
    installs = [ln for ln in lines if re.match(r"^pip install\b.*\s-e\s+\.(\s|$)", ln)]
    assert installs, "postBuild must install the course library with `pip install ... -e .`"


def test_the_settings_script_writes_every_setting_and_keeps_what_is_there(tmp_path):
    """binder/jupyter-settings, as Binder, a hub's image and the README's first command run it: news off, a kernel
    shut down with its tab, idle kernels culled, lesson_lib.egg-info hidden; a setting already there is kept, and a
    second run changes nothing."""
    server = tmp_path / "etc" / "jupyter" / "jupyter_server_config.json"
    server.parent.mkdir(parents=True)
    server.write_text(json.dumps({"ServerApp": {"root_dir": "/srv/course", "tornado_settings": {"headers": {"X": "y"}}}}))
    env = {**os.environ, "NB_PYTHON_PREFIX": str(tmp_path)}

    def run():
        r = subprocess.run(["bash", str(BINDER / "jupyter-settings")], env=env, capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, r.stderr
        return {p.relative_to(tmp_path).as_posix(): p.read_text() for p in tmp_path.rglob("*.json")}
    first = run()
    lab = json.loads(first["share/jupyter/lab/settings/overrides.json"])
    config = json.loads(first["etc/jupyter/jupyter_server_config.json"])
    assert lab["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    assert lab["@jupyterlab/notebook-extension:tracker"]["kernelShutdown"] is True
    assert config["MappingKernelManager"]["cull_idle_timeout"] == 1200
    assert "*.egg-info" in config["ContentsManager"]["hide_globs"] and "__pycache__" in config["ContentsManager"][
        "hide_globs"]
    assert config["ServerApp"] == {"root_dir": "/srv/course", "tornado_settings": {"headers": {"X": "y"},
                                                                                  "mathjax_url": None,
                                                                                  "mathjax_config": None}}
    for voila in (config, json.loads(first["etc/jupyter/voila.json"])):
        assert voila["VoilaConfiguration"] == {"template": "lesson",
                                               "extension_denylist": ["@jupyter-notebook/lab-extension"]}
    assert (tmp_path / "share" / "jupyter" / "voila" / "templates" / "lesson" / "index.html.j2").is_file()
    assert run() == first
    assert "bash binder/jupyter-settings" in (BINDER / "postBuild").read_text()


@pytest.fixture(params=["teachers' repository", "learners' edition"])
def binder_repo(request, tmp_path):
    """What Binder would clone: the teachers' tracked files, or the learners' edition."""
    if request.param == "learners' edition":
        from lesson_tools import release
        release.release(tmp_path / "repo", log=lambda *_: None, allow_uncommitted=True)
        return tmp_path / "repo"
    return copy_repo_files(tmp_path / "repo")


def test_repo2docker_accepts_binder_folder(binder_repo, tmp_path):
    repo = binder_repo
    (tmp_path / "cwd").mkdir()  # repo2docker reads a repo2docker_config.py from its working directory
    r = subprocess.run([sys.executable, "-m", "repo2docker", "--no-build", "--debug",
                        "--Repo2Docker.platform=linux/amd64", str(repo)],
                       cwd=tmp_path / "cwd", capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (f"repo2docker failed (is it installed? `pip install -r requirements.txt`):\n"
                               f"{tail(r.stdout)}\n{tail(r.stderr)}")
    dockerfile = r.stdout
    assert "FROM " in dockerfile, f"repo2docker printed no Dockerfile:\n{tail(r.stderr)}"
    req = re.search(r'^RUN .*pip install .*-r "?binder/requirements\.txt"?', dockerfile, re.M)
    assert req, "the Dockerfile does not `pip install -r binder/requirements.txt`"
    post = re.search(r"^RUN \./binder/postBuild\s*$", dockerfile, re.M)
    assert post, "the Dockerfile does not run ./binder/postBuild"
    assert req.start() < post.start(), "binder/postBuild runs before binder/requirements.txt is installed"
    assert not re.search(r'-r "?requirements\.txt', dockerfile), "the Dockerfile installs the root requirements.txt"
    # The Python environment comes from repo2docker's lock file for the chosen version, copied in under an
    # escaped (and maybe truncated) name ending in a hash of the file's path: match that hash.
    r2d_dir = Path(importlib.util.find_spec("repo2docker").origin).parent
    lock = r2d_dir / "buildpacks" / "conda" / "environment.py-3.11-linux-64.lock"
    digest = hashlib.sha256(str(lock).encode()).hexdigest()[:6]
    envs = re.findall(r"^COPY \S+ build_script_files/(\S+) /tmp/env/(\S*environment\.lock)$", dockerfile, re.M)
    assert [dest for name, dest in envs if name.endswith("-" + digest)] == ["environment.lock"], (
        f"the Dockerfile does not build a Python 3.11 environment; it copies {envs}\n{tail(r.stderr, 10)}")


SETTINGS_CHECK = """
import json, os, tempfile
from jupyterlab.commands import get_app_dir
from jupyterlab_server.settings_utils import get_settings
app = get_app_dir()
def default(plugin, key):
    s, _ = get_settings(os.path.join(app, "settings"), os.path.join(app, "schemas"), tempfile.mkdtemp(),
                        schema_name=plugin)
    return s["schema"]["properties"][key]["default"]
import subprocess, sys
server = json.loads(subprocess.run([sys.executable, "-m", "jupyter", "server", "--show-config-json"],
                                   capture_output=True, text=True, check=True).stdout)
print(json.dumps({"fetchNews": default("@jupyterlab/apputils-extension:notification", "fetchNews"),
                  "kernelShutdown": default("@jupyterlab/notebook-extension:tracker", "kernelShutdown"),
                  "cull_idle_timeout": server.get("MappingKernelManager", {}).get("cull_idle_timeout"),
                  "hides_egg_info": "*.egg-info" in server.get("ContentsManager", {}).get("hide_globs", [])}))
"""


IMPORT_EVERY_MODULE = """
import importlib, pkgutil, sys
for name in sys.argv[1:]:
    package = importlib.import_module(name)
    for info in pkgutil.walk_packages(package.__path__, name + "."):
        if not info.name.endswith("__main__"):              # a command, run when imported
            importlib.import_module(info.name)
print("imported")
"""


@pytest.mark.slow
def test_the_repository_installs_into_a_clean_environment_with_what_it_declares(tmp_path):
    """`pip install ".[tools]"` (not editable, with the teachers' lock as constraints) into a new virtualenv gives
    three packages whose every module imports: the metadata declares all they need."""
    venv, source = tmp_path / "venv", tmp_path / "source"
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"}}
    py = str(venv / "bin" / "python")
    copy_repo_files(source)                 # the tracked files only: no build/ left by an earlier build
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
        r = subprocess.run([py, "-m", "pip", "install", "-q", "-c", str(ROOT / "requirements.txt"),
                            f"{source}[tools]"], env=env, capture_output=True, text=True, timeout=900, cwd=tmp_path)
        assert r.returncode == 0, tail(r.stdout + r.stderr)
        r = subprocess.run([py, "-c", IMPORT_EVERY_MODULE, "lesson_lib", "lesson_course", "lesson_tools"], env=env,
                           capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert r.returncode == 0 and "imported" in r.stdout, tail(r.stdout + r.stderr)
    finally:
        shutil.rmtree(venv, ignore_errors=True)


@pytest.mark.slow
def test_fresh_binder_environment_runs_the_notebooks(tmp_path):
    """Binder's steps for the learners' edition in a fresh virtualenv: install its binder/requirements.txt, run
    its binder/postBuild from its root, then run every notebook top to bottom in a fresh kernel of that
    environment, on the edition's own lesson_lib: no cell raises, and every check cell says NOT ATTEMPTED in one
    line (the edition's fresh-kernel run: tests/test_edition.py puts the teachers' answers in).  Uses pip's cache."""
    from lesson_tools import release
    if sys.version_info[:2] == (3, 11):
        base_python = sys.executable
    else:
        base_python = shutil.which("python3.11")
        assert base_python, "python3.11 is needed to build the Binder environment (binder/runtime.txt)"
    repo = tmp_path / "repo"
    release.release(repo, log=lambda *_: None, allow_uncommitted=True)
    venv = tmp_path / "venv"
    env = {k: v for k, v in os.environ.items()
           if k not in {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "JUPYTERLAB_DIR", "NB_PYTHON_PREFIX",
                        "PYTEST_ADDOPTS"}}
    env.update(VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", MPLBACKEND="Agg")
    py = str(venv / "bin" / "python")

    def run(cmd, what, timeout, cwd=repo):
        start = time.monotonic()
        r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
        print(f"{what}: {time.monotonic() - start:.0f} s")  # shown with -rP, or on failure
        rc = r.returncode
        assert rc == 0, f"{what} failed (exit {rc}):\n{tail(r.stdout)}\n{tail(r.stderr)}"
        return r.stdout + r.stderr

    try:
        run([base_python, "-m", "venv", str(venv)], f"{base_python} -m venv", 120)
        version = run([py, "-c", "import sys; print(*sys.version_info[:2], sep='.')"], "python", 60).strip()
        assert version == "3.11", f"the Binder venv runs Python {version}, binder/runtime.txt says 3.11"
        run([py, "-m", "pip", "install", "-q", "-r", "binder/requirements.txt"],
            "pip install -r binder/requirements.txt", 900)
        run(["bash", "binder/postBuild"], "bash binder/postBuild", 600)
        where = run([py, "-c", "import lesson_lib; print(lesson_lib.__file__)"], "import lesson_lib", 60,
                    cwd=tmp_path).strip()
        assert Path(where).is_relative_to(repo), f"lesson_lib imports from {where}, not from the edition (pip -e .)"
        for tool in ("lesson_tools", "nbval", "pytest", "dask"):
            r = subprocess.run([py, "-c", f"import {tool}"], cwd=tmp_path, env=env, capture_output=True)
            assert r.returncode != 0, f"{tool} is importable in the learners' environment"
        run([py, "-c", IMPORT_EVERY_MODULE, "lesson_lib", "lesson_course"], "importing every module", 300,
            cwd=tmp_path)
        settings = json.loads(run([py, "-c", SETTINGS_CHECK], "reading JupyterLab settings", 60).strip().splitlines()[-1])
        assert settings == {"fetchNews": "false", "kernelShutdown": True, "cull_idle_timeout": 1200,
                            "hides_egg_info": True}, (
            f"postBuild should turn news off, shut a kernel down when its tab closes and cull idle kernels: {settings}")
        listing = re.sub(r"\x1b\[[0-9;]*m", "", run([py, "-m", "jupyter", "server", "extension", "list"],
                                                     "jupyter server extension list", 120))
        assert re.search(r"voila\.server_extension\s+enabled", listing) and re.search(
            r"voila\.server_extension\s+OK", listing), (
            f"Voila's server extension (for ?urlpath=voila/...) is not enabled in the Binder venv:\n{tail(listing)}")
        names = sorted(p.name for p in (repo / "notebooks").glob("*.ipynb"))
        lanes = max(1, min(2, len(os.sched_getaffinity(0))))       # each notebook in its own kernel, two at a time
        with ThreadPoolExecutor(lanes) as pool:
            list(pool.map(lambda k: run([py, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                                         "--ExecutePreprocessor.timeout=600", *nbconvert_options(f"lane{k}"),
                                         "--output-dir", str(tmp_path / "executed"), *names[k::lanes]],
                                        f"notebooks {names[k::lanes]}", 1800, cwd=repo / "notebooks"),
                          range(lanes)))
        n_check_lines = 0
        for name in names:
            nb = nbformat.read(str(tmp_path / "executed" / name), as_version=4)
            errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
            assert not errors, f"{name}: {errors[0]['ename']}: {errors[0]['evalue']}"
            lines = check_lines(nb)
            assert all(line.startswith("NOT ATTEMPTED: ") and "\n" not in line for line in lines), (name, lines)
            n_check_lines += len(lines)
        assert n_check_lines == len(REGISTRY), f"{len(REGISTRY)} checks in the course, {n_check_lines} check cells ran"
    finally:
        start = time.monotonic()
        shutil.rmtree(venv, ignore_errors=True)  # ~600 MB; pytest keeps its last three tmp dirs
        print(f"removing the venv: {time.monotonic() - start:.0f} s")
