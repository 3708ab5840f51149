"""Teachers' links: the Binder badge and every notebook's JupyterLab and Voilà links, for the learners' edition.

    lesson-tools links                      # the repository of `git remote` (origin first)
    lesson-tools links --repo OWNER/REPO    # or a GitHub address given, or a full URL
    lesson-tools links --readme             # also put the badge at the top of README.md
    lesson-tools links --hub https://hub.example.edu --repo https://git.example.edu/school/course.git

Binder (mybinder.org) builds only public repositories, on GitHub (`gh`) or GitLab (`gl`).  The links open
JupyterLab on a notebook (`urlpath=lab/tree/notebooks/NAME.ipynb`) or render it as an app with Voilà
(`urlpath=voila/render/notebooks/NAME.ipynb`).  They point at the learners' edition, the branch `learners` that
`lesson-tools release --branch learners` writes (publish it as `release` says: `git push REMOTE learners`), so that
learners get no solutions; `--ref` picks another branch or tag (`--ref HEAD`: the teachers' repository itself,
solutions included).  With `--hub URL` the links are nbgitpuller links to a university's own JupyterHub instead
(`HUB/hub/user-redirect/git-pull?repo=...&branch=...&urlpath=...`), for a repository on any git host.
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

from .build import ROOT
from .catalog import CATALOG
from .release import BRANCH, push_advice

BINDER = "https://mybinder.org/v2"
BADGE = "https://mybinder.org/badge_logo.svg"
BADGE_LINE = re.compile(r"^\[!\[Binder\]\(https://mybinder\.org/badge_logo\.svg\)\]\(.*\)[ \t]*$", re.MULTILINE)
HOSTS = {"github.com": "gh", "gitlab.com": "gl"}
REMOTE = re.compile(r"^(?:(?P<scheme>[a-z][a-z0-9+.-]*)://)?(?P<user>[^@/]+@)?(?P<host>[^/:]*)[/:](?P<path>.+?)"
                    r"(?:\.git)?/*$", re.IGNORECASE)


class LinkError(Exception):
    """No repository to link to, or one that Binder cannot build."""


def parse_repository(text):
    """(provider, path) for 'OWNER/REPO' or a GitHub/GitLab remote URL: ('gh', 'owner/repo')."""
    text = text.strip()
    if re.fullmatch(r"[\w.-]+/[\w.-]+", text):
        return "gh", text.removesuffix(".git")
    m = REMOTE.match(text)
    if not m or m.group("host").lower() not in HOSTS or "/" not in m.group("path"):
        raise LinkError(f"{text!r} is not a GitHub or GitLab repository address; Binder builds public "
                        f"repositories from github.com or gitlab.com: give --repo OWNER/REPO")
    return HOSTS[m.group("host").lower()], m.group("path")


def git_remote(root=ROOT, name=None):
    """The URL of the remote `name`, or of origin, or of the first remote; LinkError if there is none."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True).stdout.split()
    names = git("remote")
    chosen = name if name else ("origin" if "origin" in names else (names[0] if names else None))
    if chosen is None or chosen not in names:
        which = f"named {name}" if name else "at all"
        raise LinkError(f"no git remote {which} in {root}: push the course to a public GitHub repository, or "
                        f"give --repo OWNER/REPO")
    url = git("remote", "get-url", chosen)
    if not url:
        raise LinkError(f"git remote {chosen} has no URL")
    return url[0]


def branch_note(ref, root=ROOT):
    """What a teacher should know about the ref the links point at: where it comes from, and if it is missing
    here, how to make and publish it."""
    if ref != BRANCH:
        return (f"These links open {ref} of the teachers' repository: learners there can see the solutions "
                f"(notebooks/solutions/). The learners' edition is the default (no --ref).")
    here = subprocess.run(["git", "rev-parse", "-q", "--verify", f"refs/heads/{BRANCH}"], cwd=root,
                          capture_output=True, text=True).stdout.strip()
    if not here:
        return (f"The links open the branch {BRANCH}, the learners' edition, which this repository does not have "
                f"yet: write it with `lesson-tools release --branch {BRANCH}`, then publish it with "
                f"{push_advice(BRANCH, root)}.")
    return (f"The links open the branch {BRANCH}, the learners' edition (no solutions); after a change to the "
            f"course, write it again with `lesson-tools release --branch {BRANCH}` and publish it with "
            f"{push_advice(BRANCH, root)}.")


def binder_url(provider, path, ref=BRANCH, urlpath=None):
    repo = path if provider == "gh" else quote(path, safe="")
    url = f"{BINDER}/{provider}/{repo}/{quote(ref, safe='')}"
    return f"{url}?urlpath={urlpath}" if urlpath else url


def badge(provider, path, ref=BRANCH, first=CATALOG[0].id):
    """The Markdown badge that opens the first notebook in JupyterLab."""
    return f"[![Binder]({BADGE})]({binder_url(provider, path, ref, f'lab/tree/notebooks/{first}.ipynb')})"


def _links(open_at, folder, notebooks=None):
    """[(name, JupyterLab URL, Voilà URL or None)] for every learner notebook (the catalog's, in its order), the URL
    `open_at(urlpath)` gives for the notebook under `folder`.  Only an app (catalog: app=True, no exercises) gets a
    Voilà link: Voilà hides the code cells an exercise needs."""
    names = notebooks if notebooks is not None else [nb.id for nb in CATALOG]
    apps = {nb.id for nb in CATALOG if nb.app}
    return [(n, open_at(f"lab/tree/{folder}notebooks/{n}.ipynb"),
             open_at(f"voila/render/{folder}notebooks/{n}.ipynb") if n in apps else None) for n in names]


def _table(rows):
    """The Markdown table of links the reports print."""
    return ["| notebook | JupyterLab | Voilà (the notebook as an app, no code) |", "|---|---|---|"] + [
        f"| `{n}` | {lab} | {voila or '– (its exercises need code cells: JupyterLab only)'} |"
        for n, lab, voila in rows]


def notebook_links(provider, path, ref=BRANCH, notebooks=None):
    """[(name, JupyterLab URL, Voilà URL or None)] on Binder for every learner notebook (see _links)."""
    return _links(lambda urlpath: binder_url(provider, path, ref, urlpath), "", notebooks)


SAME_ORIGIN_APP = "voila/render/notebooks/{}.ipynb"    # Voilà inside the Lab server: its origin, its review history


def local_report(why):
    """What the command can print without a public repository: why there are no Binder links, how to get them,
    and how to open each notebook on this machine."""
    lines = [f"No Binder links: {why}", "Binder builds public GitHub or GitLab repositories: push the learners' "
             f"edition there (lesson-tools release --branch {BRANCH}, then {push_advice(BRANCH)}), or "
             f"give --repo OWNER/REPO.", "", "On this machine, with the course installed:"]
    lines += [f"  jupyter lab notebooks/{nb.id}.ipynb" + (f"   (or, as an app on that server: "
                                                          f"http://localhost:8888/{SAME_ORIGIN_APP.format(nb.id)})"
                                                          if nb.app else "") for nb in CATALOG]
    return "\n".join(lines)


def report(provider, path, ref=BRANCH, notebooks=None, root=ROOT):
    """The text the command prints: where the links point, the badge, then a Markdown table of links."""
    host = {v: k for k, v in HOSTS.items()}[provider]
    lines = [f"Binder links for {host}/{path} ({ref}). Binder builds public repositories only: make the "
             f"repository public, then open a link once to start the first build (a few minutes).",
             branch_note(ref, root), "",
             "Badge (Markdown):", badge(provider, path, ref), ""]
    return "\n".join(lines + _table(notebook_links(provider, path, ref, notebooks)))


HUB_SCHEMES = ("https://", "http://", "file://")     # what a hub clones without keys: a smart HTTP server, a path


def clone_url(text):
    """The URL a hub clones for `text`: an https (or http) git URL as given, without trailing slashes (any host: a
    university's GitLab, GitHub Enterprise, Gitea), a file:// URL (a repository on the hub's own machine), or
    OWNER/REPO on GitHub.  LinkError for what is not a repository address, and for ssh addresses (git@host:path,
    ssh://), which a learner's server cannot clone (it holds no key), with the https form to give instead."""
    text = text.strip()
    if re.fullmatch(r"[\w.-]+/[\w.-]+", text):
        return f"https://github.com/{text.removesuffix('.git')}"
    m = REMOTE.match(text)
    if not m or "/" not in m.group("path") or " " in text:
        raise LinkError(f"{text!r} is not a git repository address: give its URL (https://git.example.edu/school/"
                        f"course.git) or OWNER/REPO on GitHub")
    if text.lower().startswith(HUB_SCHEMES):
        return text.rstrip("/")
    if m.group("host") and (m.group("user") or (m.group("scheme") or "").lower() in ("ssh", "git", "git+ssh")):
        https = f"https://{m.group('host')}/{m.group('path').strip('/')}.git"
        raise LinkError(f"{text!r} is an ssh or git:// address: a learner's server on the hub clones over https (it "
                        f"holds no ssh key). Give the repository's https address, e.g. --repo {https} (the learners' "
                        f"edition must be readable without logging in)")
    raise LinkError(f"{text!r} is not an address a hub can clone: give the repository's https address "
                    f"(https://git.example.edu/school/course.git), or file:///path/to/course.git for a repository on "
                    f"the hub's own machine")


def clone_folder(url):
    """The folder the links have nbgitpuller clone `url` into (its `targetpath`): the repository's last path part,
    without .git or a trailing slash (left to itself, nbgitpuller would keep the .git)."""
    return url.rstrip("/").split("/")[-1].removesuffix(".git")


def hub_links(hub, url, ref=BRANCH, notebooks=None):
    """[(name, JupyterLab URL, Voilà URL or None)] for every learner notebook: nbgitpuller links that make the hub
    pull `ref` of the repository `url` into the learner's home, folder `clone_folder(url)`, then open the notebook
    (an app also with Voilà)."""
    def pull_then_open(urlpath):
        return (f"{hub.rstrip('/')}/hub/user-redirect/git-pull?repo={quote(url, safe='')}&branch={quote(ref, safe='')}"
                f"&targetpath={quote(clone_folder(url), safe='')}&urlpath={quote(urlpath, safe='')}")
    return _links(pull_then_open, f"{clone_folder(url)}/", notebooks)


def hub_report(hub, url, ref=BRANCH, notebooks=None, root=ROOT):
    """The text `links --hub` prints: what the hub's image needs, then the links."""
    folder = clone_folder(url)
    lines = [f"nbgitpuller links for the JupyterHub at {hub}: each pulls {ref} of {url} into the learner's home "
             f"(folder {folder}/), then opens the notebook; a learner's own changes are kept on later pulls.",
             branch_note(ref, root), "",
             "The hub's single-user image needs git, nbgitpuller and the course's requirements, and the settings "
             "Binder gets (from the learners' edition, whose binder/ folder holds them):",
             "    apt-get install -y git",
             "    pip install nbgitpuller -r binder/requirements.txt",
             "    bash binder/jupyter-settings          # news off, kernels shut down with their tab, idle culling",
             f"and the pulled folder first on the kernels' path, so a change to lesson_lib reaches learners with "
             f"their next pull: PYTHONPATH=$HOME/{folder} in the single-user server's environment "
             f"(a container image: ENV PYTHONPATH=/home/jovyan/{folder}).",
             "The git server must speak git's smart HTTP protocol (GitHub, GitLab, Gitea, git http-backend): "
             "nbgitpuller clones shallow, which a plain web folder of a repository cannot serve.", ""]
    return "\n".join(lines + _table(hub_links(hub, url, ref, notebooks)))


def put_badge(readme, line):
    """README text with `line` as its Binder badge: replaces the existing badge line, or goes after the title."""
    text = Path(readme).read_text(encoding="utf-8")
    if BADGE_LINE.search(text):
        return BADGE_LINE.sub(lambda _: line, text, count=1)
    head, _, rest = text.partition("\n")
    return f"{head}\n\n{line}\n{rest}" if head.startswith("# ") else f"{line}\n\n{text}"


def main(argv=None, prog="lesson-tools links"):
    """`lesson-tools links [--repo R] [--hub URL]`; its exit code."""
    from .cli import exit_codes
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0],
                                epilog=exit_codes({1: "the repository or hub address cannot give links"}))
    p.add_argument("--repo", metavar="OWNER/REPO|URL",
                   help="OWNER/REPO on GitHub, or a GitHub/GitLab URL (default: from git remote)")
    p.add_argument("--remote", metavar="NAME", help="the git remote to read (default: origin, else the first)")
    p.add_argument("--ref", metavar="GIT_REF", default=BRANCH,
                   help=f"branch, tag or commit to build (default: {BRANCH}, the learners' edition; HEAD: the "
                        f"teachers' repository)")
    p.add_argument("--readme", action="store_true", help="also write the badge at the top of README.md")
    p.add_argument("--hub", metavar="URL", help="a JupyterHub's address: print nbgitpuller links to it instead of "
                                                 "Binder's (the repository may be on any git host)")
    args = p.parse_args(argv)
    if args.hub:
        if not re.match(r"^https?://[^/\s]+", args.hub):
            print(f"error: --hub {args.hub!r} is not a hub's address: give it as https://hub.example.edu",
                  file=sys.stderr)
            return 1
        try:
            url = clone_url(args.repo or git_remote(name=args.remote))
        except LinkError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(hub_report(args.hub, url, args.ref))
        return 0
    try:
        provider, path = parse_repository(args.repo or git_remote(name=args.remote))
    except LinkError as exc:
        if args.repo:                                  # an address given by hand that Binder cannot build
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(local_report(exc))                       # a clone of a local path, or no remote: what we can
        return 0
    print(report(provider, path, args.ref))
    if args.readme:
        readme = ROOT / "README.md"
        readme.write_text(put_badge(readme, badge(provider, path, args.ref)), encoding="utf-8")
        print(f"\nwrote the badge at the top of {readme}")
    return 0
