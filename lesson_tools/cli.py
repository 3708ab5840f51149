"""`lesson-tools VERB ...`: the teachers' and graders' commands, one module each (also `python -m lesson_tools`).

Each verb is a function `(argv, prog) -> exit code` in its module; this one dispatches, prints the version, and
turns Ctrl-C into exit code 130 with what the interrupted verb kept (grade says it itself: its results are kept as
they come).  The verbs need the tools' packages (the extra `tools`); where one is not installed (an install of the
science alone), the verb says which, and the install that brings them, instead of a traceback.
"""
import sys

PROG = "lesson-tools"

VERBS = {   # verb: (module.function, what it does, what an interruption leaves)
    "build": ("build.main_build", "refresh facts, execute the teachers' sources, write the learner notebooks and stubs",
              "notebooks written before the interruption are kept, each whole; run `lesson-tools check` to see which "
              "are stale"),
    "check": ("build.main_check", "fail on any course problem: sync, stale or bare facts, stamps, exercise rules",
              "nothing was written"),
    "release": ("release.main", "write the learners' edition to a folder or a branch",
                "nothing was written (the edition is staged and moved into place whole)"),
    "links": ("links.main", "Binder or JupyterHub links to the learners' edition", "nothing was written"),
    "grade": ("grading.command.main", "grade a class's notebooks: gradebook, points, platform exports, feedback",
              "each submission's result is kept as soon as it is known; the same command grades only the rest"),
}

OURS = ("lesson_lib", "lesson_course", "lesson_tools")
INSTALLS = ("pip install -r requirements.txt -e .` in the course's repository (the teachers' lock), or "
            "`pip install \"learn-the-structure[tools]\"")

EXIT_CODES = {0: "done", 1: "the verb could not do its work (the message says why)", 2: "a usage error",
              130: "interrupted (Ctrl-C)"}


def exit_codes(extra=()):
    """The epilog every verb's --help ends with: its exit codes."""
    codes = {**EXIT_CODES, **dict(extra)}
    return "exit codes: " + "; ".join(f"{code} {text}" for code, text in sorted(codes.items()))


def version():
    """'lesson-tools X.Y.Z' from the installed metadata, and the course's commit when run from its repository."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed
    try:
        number = installed("learn-the-structure")
    except PackageNotFoundError:
        number = "not installed"
    from .grading.verified import committed, package_root
    found = committed(package_root())
    return f"{PROG} {number}" + (f" (course commit {found[1][:12]})" if found else "")


def missing_package(verb, name):
    """What a verb says when the package `name` it imports is not installed: which package, and the install."""
    return (f"error: lesson-tools {verb} needs the package {name.split('.')[0]!r}, which is not installed here: the "
            f"teachers' and graders' tools come with packages of their own, beyond the science (numpy, autograd). "
            f"Install them with `{INSTALLS}`, then run the command again.")


def missing_tool():
    """The import name of the first package of the extra `tools` (as the installed metadata lists them) that is not
    installed, or None (also when the course is not installed at all): looked up, not imported."""
    import re
    from importlib.metadata import PackageNotFoundError, requires
    from importlib.util import find_spec
    try:
        listed = requires("learn-the-structure") or []
    except PackageNotFoundError:
        return None
    for requirement in listed:
        found = re.match(r"([A-Za-z0-9_.-]+)(?:\[([^]]*)\])?", requirement)
        if 'extra == "tools"' not in requirement or found[1] == "learn-the-structure":
            continue
        for name in (found[1], *(found[2] or "").split(",")):      # dask[distributed]: dask, then distributed
            name = name.strip().lower().replace("-", "_")
            try:
                if name and find_spec(name) is None:
                    return name
            except (ImportError, ValueError):
                return name
    return None


def usage():
    width = max(map(len, VERBS))
    return (f"usage: {PROG} VERB [options]   ({PROG} VERB --help for each; {PROG} --version)\n\nverbs:\n"
            + "\n".join(f"  {verb:<{width}}  {text}" for verb, (_, text, _) in VERBS.items())
            + "\n\n" + exit_codes())


def main(argv=None):
    """Run one verb; its exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0 if argv else 2
    if argv[0] == "--version":
        print(version())
        return 0
    if argv[0] not in VERBS:
        print(f"error: {argv[0]!r} is not a verb of {PROG}; the verbs are: {', '.join(VERBS)}\n\n{usage()}",
              file=sys.stderr)
        return 2
    from importlib import import_module
    verb = argv[0]
    where, _, kept = VERBS[verb]
    lacking = missing_tool()                  # before the verb starts, not when it first needs the package
    if lacking:
        print(missing_package(verb, lacking), file=sys.stderr)
        return 1
    module, function = where.rsplit(".", 1)
    try:
        return getattr(import_module(f"lesson_tools.{module}"), function)(argv[1:], prog=f"{PROG} {verb}")
    except KeyboardInterrupt:
        print(f"\ninterrupted: {kept}", file=sys.stderr)
        return 130
    except ModuleNotFoundError as err:
        if not err.name or err.name.split(".")[0] in OURS:     # the course's own modules: a bug, not an install
            raise
        print(missing_package(verb, err.name), file=sys.stderr)
        return 1
