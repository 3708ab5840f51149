"""The course on a class's own JupyterHub, as a teacher hands it out: a real local JupyterHub (DummyAuthenticator,
SimpleLocalProcessSpawner, configurable-http-proxy from npm), the learners' edition in a git repository on its
branch `learners`, and the nbgitpuller links `lesson-tools links --hub` prints.  A learner logs in, follows
the link to 03 (JupyterLab), runs it and presses Train on the Bench; then the link to the Bench app (Voilà) and
presses Train there: PASS both times.  Screenshots in artifacts/browser/hub-*.png.

Needs Chromium (as tests/test_browser.py) and configurable-http-proxy ($CONFIGURABLE_HTTP_PROXY, or
build/npm/node_modules/.bin, where .ci/run installs it); without them these tests skip, or fail in CI
(REQUIRE_HUB=1).
"""
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from test_browser import PAGE_MS, TRAIN_MS, UI_MS, Tab, _open_and_run_all, artifacts, browser, console_errors  # noqa: F401

from lesson_tools import links, release
from lesson_tools.build import ROOT

ARTIFACT_NAMES = {"hub"}                 # this file's screenshots: hub-*.png (see test_browser.artifacts)
START_S = 60
PROXY = os.environ.get("CONFIGURABLE_HTTP_PROXY") or str(ROOT / "build" / "npm" / "node_modules" / ".bin" /
                                                         "configurable-http-proxy")


def _missing(reason):
    if os.environ.get("REQUIRE_HUB") == "1":
        pytest.fail(f"{reason}; REQUIRE_HUB=1 says the hub tests must run", pytrace=False)
    pytest.skip(reason)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CONFIG = """\
c = get_config()  # noqa: F821
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.authenticator_class = "dummy"
c.JupyterHub.spawner_class = "simple"
c.Spawner.args = ["--allow-root",          # CI runs as root
                  "--LabApp.app_settings_dir={prefix}/share/jupyter/lab/settings"]
c.Spawner.environment = {{"JUPYTER_CONFIG_PATH": "{prefix}/etc/jupyter",       # what binder/jupyter-settings wrote
                          "JUPYTER_PATH": "{prefix}/share/jupyter",
                          # the guide's PYTHONPATH=$HOME/<clone>: kernels import the pulled lesson_lib
                          "PYTHONPATH": lambda spawner: spawner.home_dir + "/{clone}"}}
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 120
c.SimpleLocalProcessSpawner.home_dir_template = {home!r}
c.JupyterHub.db_url = "sqlite:///{folder}/hub.sqlite"
c.JupyterHub.cookie_secret_file = "{folder}/cookie_secret"
c.JupyterHub.pid_file = "{folder}/hub.pid"
"""


def start(folder, username_template="{username}"):
    """A JupyterHub on 127.0.0.1 serving the learners' edition from a git repository in `folder`: (process, hub URL,
    the edition's git URL, its log file).  Stop it with `stop`."""
    edition = folder / "delan-course.git"            # a .git address, as git hosts give: the clone is delan-course/
    release.release(edition, log=lambda *_: None, allow_uncommitted=True)
    git = ["git", "-c", "user.name=teacher", "-c", "user.email=teacher@localhost"]
    for args in (["init", "-q", "-b", release.BRANCH], ["add", "-A"], ["commit", "-qm", "learners' edition"]):
        subprocess.run([*git, *args], cwd=edition, check=True, capture_output=True)
    # the single-user image's settings, as the edition's own script writes them (into a prefix of this hub's own,
    # so the environment the other tests use stays as it is)
    subprocess.run(["bash", str(edition / "binder" / "jupyter-settings")], check=True, capture_output=True,
                   env={**os.environ, "NB_PYTHON_PREFIX": str(folder / "prefix")})
    port = _free_port()
    (folder / "jupyterhub_config.py").write_text(CONFIG.format(prefix=folder / "prefix", clone=links.clone_folder(
        f"file://{edition}"),
        port=port, hub_port=_free_port(), api_port=_free_port(), proxy=PROXY, home=str(folder / "home" / "{username}"),
        folder=folder))
    exe = os.path.join(os.path.dirname(sys.executable), "jupyterhub")
    log = open(folder / "hub.log", "wb")
    proc = subprocess.Popen([exe if os.path.exists(exe) else "jupyterhub", "-f", str(folder / "jupyterhub_config.py")],
                            cwd=folder, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_S
    while True:
        try:
            urllib.request.urlopen(f"{url}/hub/login", timeout=2)
            return proc, url, links.clone_url(f"file://{edition}"), log
        except OSError as exc:             # the last attempt's error (refused, HTTP 500...) is kept as the cause
            if proc.poll() is not None or time.monotonic() > deadline:
                stop(proc, log)
                raise RuntimeError("JupyterHub did not start:\n" + (folder / "hub.log").read_text()[-3000:]) from exc
            time.sleep(0.5)


def stop(proc, log):
    """Stop the hub (and with it the learners' servers and the proxy)."""
    proc.terminate()
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def login(page, url, username):
    """Log `username` in to the hub (DummyAuthenticator: any password) and wait until the hub moved on."""
    page.goto(f"{url}/hub/login")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "any")
    page.click("[type=submit]")
    page.wait_for_url(lambda u: "/hub/login" not in u, timeout=PAGE_MS)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """(hub URL, the learners' edition's git URL) with a JupyterHub running; stopped afterwards."""
    if shutil.which("jupyterhub") is None and not os.path.exists(os.path.join(os.path.dirname(sys.executable),
                                                                              "jupyterhub")):
        _missing("jupyterhub is not installed (pip install -r requirements.txt)")
    if not os.access(PROXY, os.X_OK):
        _missing(f"no configurable-http-proxy at {PROXY} (npm install --prefix build/npm configurable-http-proxy)")
    folder = tmp_path_factory.mktemp("hub")
    proc, url, repo, log = start(folder)
    try:
        yield url, repo
    finally:
        stop(proc, log)
        shutil.copy(folder / "hub.log", artifacts_folder() / "hub-server.log")


def artifacts_folder():
    from test_browser import ARTIFACTS
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="module")
def learner(browser, hub):        # noqa: F811 -- test_browser's fixture
    """A tab logged in to the hub as a learner (DummyAuthenticator: any password)."""
    url, _ = hub
    with Tab(browser, "hub") as tab:
        login(tab.page, url, "learner1")
        yield tab


def _links(hub):
    url, repo = hub
    return {name: (lab, voila) for name, lab, voila in links.hub_links(url, repo)}


def _press_train_until_pass(tab, stage):
    from playwright.sync_api import expect

    from lesson_lib.facts import STEPS_PER_PRESS
    bench = tab.page.locator(".bench")
    expect(bench).to_have_count(1, timeout=PAGE_MS)
    expect(bench).to_have_attribute("data-bench-busy", "false", timeout=PAGE_MS)
    step = int(bench.locator(".bench-status .bench-step").inner_text())
    bench.locator("button.bench-train").click()
    expect(bench.locator(".bench-status .bench-step")).to_have_text(str(step + STEPS_PER_PRESS), timeout=TRAIN_MS)
    expect(bench).to_have_attribute("data-bench-busy", "false", timeout=UI_MS)
    expect(bench.locator(".bench-badge")).to_contain_text("PASS", timeout=UI_MS)
    tab.shot(stage)


def test_a_learner_pulls_03_into_jupyterlab_runs_it_and_the_bench_trains_to_pass(learner, hub):
    from playwright.sync_api import expect
    lab, _ = _links(hub)["03_guided_practice"]
    _open_and_run_all(learner, lab)
    assert "/user/learner1/lab/tree/delan-course/notebooks/03_guided_practice.ipynb" in learner.page.url
    expect(learner.page.locator(".jp-CodeCell .jp-InputArea-prompt", has_text="[*]")).to_have_count(0,
                                                                                                  timeout=PAGE_MS)
    _press_train_until_pass(learner, "03-lab-trained")
    assert learner.page.get_by_text("official Jupyter news").count() == 0, "the news pop-up covers the Bench"


def test_a_learner_opens_the_bench_app_in_voila_from_its_link_and_it_trains_to_pass(learner, hub):
    _, voila = _links(hub)["bench_app"]
    url, _ = hub
    elsewhere = []                                     # a hub behind a firewall reaches nothing but itself
    learner.page.on("request", lambda r: elsewhere.append(r.url) if not r.url.startswith((url, "data:", "blob:"))
                    else None)
    seen = len(learner.log)
    learner.page.goto(voila)                       # nbgitpuller pulls (nothing new), then sends the page on
    learner.page.wait_for_url("**/user/learner1/voila/render/delan-course/notebooks/bench_app.ipynb", timeout=PAGE_MS)
    _press_train_until_pass(learner, "bench-voila-trained")
    assert not elsewhere, f"Voilà asked other hosts for {elsewhere}"
    assert not console_errors(learner.log[seen:]), console_errors(learner.log[seen:])     # Voilà under the server


def test_a_change_to_lesson_lib_reaches_learners_with_their_next_pull(learner, hub):
    """The teacher commits a change to lesson_lib in the learners' edition; the learner follows a link again
    (nbgitpuller pulls it) and a new kernel imports the changed lesson_lib from the pulled folder."""
    import secrets

    import nbformat
    from playwright.sync_api import expect
    url, repo = hub
    edition = Path(repo.removeprefix("file://"))
    clone = edition.parent / "home" / "learner1" / links.clone_folder(repo)
    change = secrets.token_hex(8)
    init = edition / "lesson_lib" / "__init__.py"
    init.write_text(init.read_text() + f"\nHUB_CHANGE = {change!r}    # the teacher's change\n")
    git = ["git", "-c", "user.name=teacher", "-c", "user.email=teacher@localhost"]
    subprocess.run([*git, "commit", "-qam", "a change to lesson_lib"], cwd=edition, check=True, capture_output=True)
    lab, _ = _links(hub)["00_start_here"]
    learner.page.goto(lab)                               # nbgitpuller pulls, then opens the notebook
    learner.page.wait_for_url("**/user/learner1/lab/tree/delan-course/notebooks/00_start_here.ipynb", timeout=PAGE_MS)
    assert f"HUB_CHANGE = {change!r}" in (clone / "lesson_lib" / "__init__.py").read_text()
    probe = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import lesson_lib\nprint('imported', lesson_lib.__file__, getattr(lesson_lib, 'HUB_CHANGE', 'unchanged'))")])
    nbformat.write(probe, str(clone.parent / "probe.ipynb"))
    learner.page.goto(f"{url}/user/learner1/voila/render/probe.ipynb")     # a new kernel
    expect(learner.page.get_by_text("imported")).to_be_visible(timeout=PAGE_MS)
    said = learner.page.get_by_text("imported").inner_text()
    learner.shot("lesson-lib-pulled")
    assert said.split() == ["imported", str(clone / "lesson_lib" / "__init__.py"), change], said
