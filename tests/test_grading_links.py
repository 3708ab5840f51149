"""`lesson-tools links`: the Binder badge and every notebook's links, from git remote or given."""
import subprocess
import sys

import pytest

from lesson_tools import catalog, links
from lesson_tools.build import NOTEBOOKS, ROOT


@pytest.mark.parametrize("text, expected", [
    ("my-school/delan-course", ("gh", "my-school/delan-course")),
    ("https://github.com/my-school/delan-course", ("gh", "my-school/delan-course")),
    ("https://github.com/my-school/delan-course.git", ("gh", "my-school/delan-course")),
    ("git@github.com:my-school/delan-course.git", ("gh", "my-school/delan-course")),
    ("ssh://git@github.com/my-school/delan-course.git", ("gh", "my-school/delan-course")),
    ("https://gitlab.com/school/physics/delan.git", ("gl", "school/physics/delan")),
])
def test_repository_addresses_are_understood(text, expected):
    assert links.parse_repository(text) == expected


@pytest.mark.parametrize("text", ["https://example.org/a/b.git", "/srv/git/course.git", "just-a-name"])
def test_addresses_binder_cannot_build_are_refused_clearly(text):
    with pytest.raises(links.LinkError, match="GitHub or GitLab"):
        links.parse_repository(text)


def test_links_for_every_notebook_in_lab_and_voila():
    rows = links.notebook_links("gh", "o/r", "main")
    assert [name for name, _, _ in rows] == sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))
    name, lab, voila = next(r for r in rows if r[0] == "bench_app")
    assert lab == "https://mybinder.org/v2/gh/o/r/main?urlpath=lab/tree/notebooks/bench_app.ipynb"
    assert links.notebook_links("gh", "o/r")[0][1].startswith("https://mybinder.org/v2/gh/o/r/learners?")
    assert voila == "https://mybinder.org/v2/gh/o/r/main?urlpath=voila/render/notebooks/bench_app.ipynb"
    assert links.binder_url("gl", "school/physics/delan") == "https://mybinder.org/v2/gl/school%2Fphysics%2Fdelan/learners"


def git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def test_command_reads_git_remote_and_says_binder_needs_a_public_repository(tmp_path):
    git(tmp_path, "init", "-q")
    with pytest.raises(links.LinkError, match="no git remote"):
        links.git_remote(tmp_path)
    git(tmp_path, "remote", "add", "upstream", "https://github.com/someone/else.git")
    git(tmp_path, "remote", "add", "origin", "git@github.com:my-school/delan-course.git")
    assert links.git_remote(tmp_path) == "git@github.com:my-school/delan-course.git"
    assert links.git_remote(tmp_path, "upstream") == "https://github.com/someone/else.git"
    out = subprocess.run([sys.executable, "-m", "lesson_tools", "links", "--repo", "my-school/delan-course"],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "public repositories only" in out.stdout
    assert links.badge("gh", "my-school/delan-course") in out.stdout
    apps = [nb.id for nb in catalog.CATALOG if nb.app]
    assert out.stdout.count("https://mybinder.org/v2/gh/my-school/delan-course/learners?urlpath=") == len(
        list(NOTEBOOKS.glob("*.ipynb"))) + len(apps) + 1        # JupyterLab for each, Voilà for the apps, badge
    assert "/HEAD" not in out.stdout, "the default links must open the learners' edition, not the teachers' repository"
    from lesson_tools.release import push_advice
    assert "release --branch learners" in out.stdout and push_advice("learners", ROOT) in out.stdout


def test_links_to_the_teachers_repository_say_the_solutions_are_there():
    out = subprocess.run([sys.executable, "-m", "lesson_tools", "links", "--repo", "my-school/delan-course",
                          "--ref", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "/delan-course/HEAD?urlpath=lab/tree/notebooks/00_start_here.ipynb" in out.stdout
    assert "can see the solutions" in out.stdout


def test_the_note_says_whether_the_learners_branch_exists_here(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    assert "does not have yet" in links.branch_note("learners", tmp_path)
    (tmp_path / "f").write_text("x")
    git(tmp_path, "add", "f")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    git(tmp_path, "branch", "learners")
    note = links.branch_note("learners", tmp_path)
    assert "does not have yet" not in note and "`git push REMOTE learners` once this repository has a public" in note
    git(tmp_path, "remote", "add", "teachers", "https://github.com/school/teachers.git")
    assert "`git push teachers learners` (teachers is https://github.com/school/teachers.git;" in links.branch_note(
        "learners", tmp_path)                                     # the only remote
    git(tmp_path, "remote", "add", "public", "https://github.com/school/course.git")
    note = links.branch_note("learners", tmp_path)
    assert ("`git push REMOTE learners`, REMOTE the public repository learners open (remotes here: public, "
            "teachers)") in note
    git(tmp_path, "config", "branch.learners.pushRemote", "public")   # as release --remote public records it
    assert "`git push public learners` (public is https://github.com/school/course.git;" in links.branch_note(
        "learners", tmp_path)


def test_badge_goes_to_the_top_of_the_readme_once(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# Course\n\nText.\n")
    line = links.badge("gh", "a/b")
    readme.write_text(links.put_badge(readme, line))
    assert readme.read_text() == f"# Course\n\n{line}\n\nText.\n"
    readme.write_text(links.put_badge(readme, links.badge("gh", "c/d")))
    assert readme.read_text() == f"# Course\n\n{links.badge('gh', 'c/d')}\n\nText.\n"


def test_the_readme_has_the_badge_at_the_top():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert lines[0].startswith("# ") and links.BADGE_LINE.match(lines[2]), lines[:3]


def test_only_an_app_gets_a_voila_link():
    rows = {name: voila for name, _, voila in links.notebook_links("gh", "o/r")}
    assert [n for n, v in rows.items() if v] == [nb.id for nb in catalog.CATALOG if nb.app] == ["bench_app"]
    assert "its exercises need code cells" in links.report("gh", "o/r")


def test_a_clone_of_a_local_path_gets_what_can_be_given_and_what_is_missing(tmp_path):
    git(tmp_path, "init", "-q")
    git(tmp_path, "remote", "add", "origin", "/srv/git/course.git")
    out = subprocess.run([sys.executable, "-c", "import sys; from lesson_tools import links; "
                          "sys.exit(links.main([]))"], cwd=tmp_path, capture_output=True, text=True,
                         env={**__import__("os").environ, "GIT_DIR": str(tmp_path / ".git")})
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("No Binder links:") and "not a GitHub or GitLab repository" in out.stdout
    assert "jupyter lab notebooks/00_start_here.ipynb" in out.stdout
    assert "localhost:8888/voila/render/notebooks/bench_app.ipynb" in out.stdout    # the Lab server's own origin


def test_hub_links_pull_the_learners_edition_from_any_git_host_with_nbgitpuller():
    url = "https://github.example.edu/school/delan-course.git"            # a GitHub Enterprise address
    rows = {name: (lab, voila) for name, lab, voila in links.hub_links("https://hub.example.edu/", url)}
    assert list(rows) == [nb.id for nb in catalog.CATALOG]
    from urllib.parse import parse_qs, urlsplit
    for name, (lab, voila) in rows.items():
        parts = urlsplit(lab)
        assert (parts.scheme, parts.netloc, parts.path) == ("https", "hub.example.edu", "/hub/user-redirect/git-pull")
        query = parse_qs(parts.query)
        assert query == {"repo": [url], "branch": ["learners"], "targetpath": ["delan-course"],   # not delan-course.git
                         "urlpath": [f"lab/tree/delan-course/notebooks/{name}.ipynb"]}, query
        app = next(nb.app for nb in catalog.CATALOG if nb.id == name)
        assert (voila is not None) == app
        if app:
            assert parse_qs(urlsplit(voila).query)["urlpath"] == [f"voila/render/delan-course/notebooks/{name}.ipynb"]


@pytest.mark.parametrize("given, url, folder", [
    ("https://git.example.edu/school/course.git", "https://git.example.edu/school/course.git", "course"),
    ("https://git.example.edu/a/b/c-course/", "https://git.example.edu/a/b/c-course", "c-course"),
    ("https://git.example.edu/a/course.git/", "https://git.example.edu/a/course.git", "course"),
    ("http://127.0.0.1:3000/school/course", "http://127.0.0.1:3000/school/course", "course"),
    ("file:///srv/git/course.git", "file:///srv/git/course.git", "course"),
    ("school/course", "https://github.com/school/course", "course"),
])
def test_a_hub_clones_the_https_address_into_the_folder_its_links_open(given, url, folder):
    from urllib.parse import parse_qs, urlsplit
    assert links.clone_url(given) == url
    lab = parse_qs(urlsplit(links.hub_links("https://hub.example.edu", url)[0][1]).query)
    assert lab["repo"] == [url] and lab["targetpath"] == [folder]
    assert lab["urlpath"][0].startswith(f"lab/tree/{folder}/notebooks/")


@pytest.mark.parametrize("given, https", [
    ("git@gitlab.uni.example:teach/robotics.git", "https://gitlab.uni.example/teach/robotics.git"),
    ("ssh://git@github.com/school/course.git", "https://github.com/school/course.git"),
    ("git://git.example.edu/school/course/", "https://git.example.edu/school/course.git"),
])
def test_an_ssh_address_is_refused_with_the_https_one_to_give(given, https):
    with pytest.raises(links.LinkError, match="clones over https") as refused:
        links.clone_url(given)
    assert f"--repo {https} " in str(refused.value)
    out = subprocess.run([sys.executable, "-m", "lesson_tools", "links", "--hub", "https://hub.example.edu",
                          "--repo", given], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 1 and out.stdout == "" and f"--repo {https} " in out.stderr


@pytest.mark.parametrize("given", ["not a repository", "/srv/git/course.git", "ftp://files.example.edu/a/b"])
def test_what_a_hub_cannot_clone_is_refused_saying_what_it_can(given):
    with pytest.raises(links.LinkError, match="https://git.example.edu/school/course.git"):
        links.clone_url(given)


def test_hub_command_says_what_the_image_needs_and_refuses_a_bad_hub():
    def cli(*args):
        return subprocess.run([sys.executable, "-m", "lesson_tools", "links", *args], cwd=ROOT, capture_output=True,
                              text=True)
    out = cli("--hub", "https://hub.example.edu", "--repo", "https://git.example.edu/school/course.git")
    assert out.returncode == 0, out.stderr
    assert "pip install nbgitpuller -r binder/requirements.txt" in out.stdout and "git" in out.stdout
    assert "bash binder/jupyter-settings" in out.stdout and "mybinder" not in out.stdout
    assert "PYTHONPATH=$HOME/course " in out.stdout and "smart HTTP" in out.stdout
    assert (ROOT / "binder" / "jupyter-settings").is_file()                 # what it tells the hub's image to run
    bad = cli("--hub", "hub.example.edu", "--repo", "x/y")
    assert bad.returncode == 1 and "is not a hub's address: give it as https://" in bad.stderr
