"""The course's files, verified: their hashes, a checked copy for a kernel, and an importer that refuses changes.

The grader takes the course's hashes once, when grading starts: `committed()`, the sha256 of every file of both
packages (lesson_lib and lesson_tools) as the git commit holds them, and refuses to grade while the files on disk
differ from them (edited, missing or untracked files, each named, with `restore_command`); only for an installed
copy without git does it fall back to `manifest()`, the hashes of the files on disk.  Every submission's kernel
gets a copy of the learners' package only, lesson_lib, from these verified bytes and without its notebook's answers
(lesson_tools.grading.withheld; a cell that edits it edits its own copy, which `changed` reports), and the judge
that runs the checks imports both packages through
`VerifiedFinder`, which compiles each module from bytes whose hash it has just checked (never from a cached .pyc)
and refuses a file that is not in the manifest.

The judge starts as `python -I -S -c <this file's verified source>`: no PYTHON* variables, no user site, no .pth
files, so nothing planted in the environment runs at its start.  It reads one JSON line from stdin, {"root":
folder holding lesson_lib/, "manifest": {...}, "site": the grader's site-packages, ...}, puts those folders on
sys.path (numpy, autograd), installs the finder, then hands the request to lesson_tools.grading.clean.  This module
imports nothing from either package, so that start is verified throughout.
"""
import hashlib
import importlib.machinery
import json
import os
import sys
from pathlib import Path

LEARNERS = ("lesson_lib", "lesson_course")     # what a learner's kernel imports: the science, the course's machinery
PACKAGES = (*LEARNERS, "lesson_tools")         # what the hashes cover


class CourseFilesChanged(Exception):
    """Course files differ from the hashes taken when grading started."""


def package_root():
    """The folder that contains the packages (the repository root for an editable install)."""
    return Path(__file__).resolve().parents[2]


def _files(root, packages=PACKAGES):
    for package in packages:
        for path in sorted((Path(root) / package).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                yield path.relative_to(root).as_posix(), path


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def manifest(root=None, packages=PACKAGES):
    """{relative path: sha256} of every file of the packages under root (default: the installed ones)."""
    root = Path(root or package_root())
    return {rel: sha256(path.read_bytes()) for rel, path in _files(root, packages)}


def committed(root=None, packages=PACKAGES):
    """(manifest, commit) of the packages as git's HEAD holds them, when root is a git checkout's top level;
    None otherwise (an installed copy: then only the files on disk can be hashed)."""
    import subprocess
    root = Path(root or package_root())

    def git(*args, data=None):
        return subprocess.run(["git", "-C", str(root), *args], input=data, capture_output=True, check=True).stdout
    try:
        if Path(git("rev-parse", "--show-toplevel").decode().strip()).resolve() != root.resolve():
            return None
        commit = git("rev-parse", "HEAD").decode().strip()
        entries = [line.split(b"\t", 1) for line in git("ls-tree", "-r", "-z", "HEAD", "--", *packages).split(b"\0")
                   if line]
        blobs = [(meta.split()[2].decode(), path.decode()) for meta, path in entries if meta.split()[1] == b"blob"]
        out = git("cat-file", "--batch", data=b"".join(sha.encode() + b"\n" for sha, _ in blobs))
    except (OSError, subprocess.CalledProcessError, IndexError, ValueError):
        return None
    expected, at = {}, 0
    for _sha, rel in blobs:                              # each: "<sha> blob <size>\n<content>\n"
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split()[2])
        expected[rel] = sha256(out[header_end + 1:header_end + 1 + size])
        at = header_end + 1 + size + 1
    return expected, commit


def restore_command(root):
    """The command that puts the packages back as the commit has them, untracked files removed too."""
    return (f"git -C {root} checkout HEAD -- {' '.join(PACKAGES)} && git -C {root} clean -fdx -- "
            f"{' '.join(PACKAGES)}")


def changed(root, expected):
    """Relative paths under root that differ from `expected`: edited, missing or added files (of the packages
    `expected` covers)."""
    packages = [p for p in PACKAGES if any(rel.startswith(p + "/") for rel in expected)] or list(LEARNERS)
    actual = manifest(root, packages)
    return sorted(rel for rel in set(actual) | set(expected) if actual.get(rel) != expected.get(rel))


def verified_bytes(root, rel, expected):
    """The bytes of root/rel, after checking them against the manifest."""
    data = (Path(root) / rel).read_bytes()
    if expected.get(rel) != sha256(data):
        raise CourseFilesChanged(f"course file {rel} in {root} differs from the course's hash taken when "
                                 f"grading started")
    return data


def copy_verified(root, expected, dest):
    """Copy every file of the manifest from root to dest (same relative paths), each checked first."""
    for rel in expected:
        target = Path(dest) / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(verified_bytes(root, rel, expected))


KERNEL_SIDE = "lesson_tools/grading/wire.py"     # the grader's part a kernel needs: copied into its sandbox


def copy_kernel_side(root, expected, dest):
    """Put the verified kernel side of the wire (lesson_tools.grading.wire) into dest as its own top-level module
    (wire.KERNEL_MODULE), beside the kernel's lesson_lib: learners' lesson_lib carries no sockets or profilers."""
    from .wire import KERNEL_MODULE
    (Path(dest) / f"{KERNEL_MODULE}.py").write_bytes(verified_bytes(root, KERNEL_SIDE, expected))


def bootstrap_source(root, expected):
    """This module's own source, verified: the program the judge runs with `python -I -S -c`."""
    return verified_bytes(root, "lesson_tools/grading/verified.py", expected).decode()


class _VerifiedLoader(importlib.machinery.SourceFileLoader):
    root, expected = None, None

    def get_code(self, fullname):
        path = Path(self.get_filename(fullname))
        rel = path.relative_to(self.root).as_posix()
        return compile(verified_bytes(self.root, rel, self.expected), str(path), "exec", dont_inherit=True)


class VerifiedFinder:
    """A meta path finder for lesson_lib.* and lesson_tools.*: modules from `root` only, compiled from
    hash-checked bytes."""

    def __init__(self, root, expected):
        self.loader = type("Loader", (_VerifiedLoader,), {"root": Path(root), "expected": expected})
        self.root = str(root)

    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top not in PACKAGES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, [self.root] if name == top else path)
        if spec is None or not str(spec.origin or "").endswith(".py"):
            raise ImportError(f"{name} is not a module of the course's files in {self.root}")
        spec.loader = self.loader(name, spec.origin)
        spec.cached = None
        return spec


def _main():
    """The judge: only the verified packages are importable; verdicts go to a private copy of fd 1."""
    line = b""
    while not line.endswith(b"\n"):                     # byte by byte: what follows is the judge's to read
        byte = os.read(0, 1)
        if not byte:
            break
        line += byte
    request = json.loads(line)
    results = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)                                  # whatever the learner's code prints goes nowhere
    sys.stdout = open(1, "w", closefd=False)
    sys.path.extend(p for p in request.get("site", ()) if isinstance(p, str))   # numpy & co., no .pth files run
    sys.meta_path.insert(0, VerifiedFinder(request["root"], request["manifest"]))
    from lesson_tools.grading import clean
    clean.serve(request, results)


if __name__ == "__main__":
    _main()
