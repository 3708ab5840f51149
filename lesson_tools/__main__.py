"""python -m lesson_tools VERB ...: the teachers' and graders' commands, one module each."""
import sys

VERBS = {   # verb: (module, what it does)
    "build": ("build", "refresh facts, execute the teachers' sources, write the learner notebooks and stubs"),
    "check": ("build", "fail on any course problem: sync, stale or bare facts, stamps, exercise rules"),
    "release": ("release", "write the learners' edition to a folder or a branch"),
    "links": ("links", "Binder links to the learners' edition"),
    "grade": ("grading.command", "grade a class's notebooks: gradebook, points, platform exports, feedback"),
}


def usage():
    width = max(map(len, VERBS))
    return ("usage: python -m lesson_tools VERB [options]   (python -m lesson_tools VERB --help for each)\n\nverbs:\n"
            + "\n".join(f"  {verb:<{width}}  {text}" for verb, (_, text) in VERBS.items()))


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0 if argv else 2
    if argv[0] not in VERBS:
        print(f"error: {argv[0]!r} is not a verb of lesson_tools; the verbs are: {', '.join(VERBS)}\n\n{usage()}",
              file=sys.stderr)
        return 2
    from importlib import import_module
    module = import_module(f"lesson_tools.{VERBS[argv[0]][0]}")
    return module.main(argv if module.__name__.endswith(".build") else argv[1:])


sys.exit(main(sys.argv[1:]))
