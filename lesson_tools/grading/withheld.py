"""The answers that are not in the room: the library a grading kernel gets lacks every implementation of the
exercises' answers.

    names = for_notebook(course_nb)                    # dotted names of what the kernel must not hold
    kept = kernel_copy(root, expected, dest, names)    # lesson_lib copied to dest, those functions hollowed

A learner's function is judged in the kernel that ran their notebook, so whatever that kernel can reach, the
function can reach: a patch of a module, a copy of a code object, a thread or a process started in an earlier
cell.  Watching the calls (lesson_tools.grading.wire.watching) races each new trick; this ends the race.  The
kernel's copy of lesson_lib holds, in place of each function that computes an answer of the notebook's exercises
(each check's `computed_by`: the library's own implementation and anything else in it that gives the same
result), a function of the same name and signature whose body only raises WITHHELD; the course's checks (their
truths, the reference chain of 06, the accepted variants of 05) are hollowed the same way, since the checks run in
the judge.  Nothing is patched after the kernel starts: the code is not in the kernel's files, so no code object
of it exists there to copy.

The rest of the library is byte for byte the verified one, and every name still imports, so a notebook's other
cells run as before; a cell that calls a withheld function (02's worked example of chain.mass_matrix, 07's four
controllers, 08's training on estimates) raises WITHHELD's error like any cell that raises: the error is
recorded, the run goes on, and each check is judged as it would be anywhere.  The teachers' own answers use
nothing withheld (tests/test_grading_class.py grades them).
"""
import ast
import hashlib
from pathlib import Path

from .verified import LEARNERS

CHECKS = "lesson_course/checks/"             # the checks: judged in the judge, hollow in the kernel
# what the kernel side of the wire needs (no truths)
KEPT_IN_CHECKS = {"lesson_course/checks/framework.py", "lesson_course/checks/raised.py"}
EVERYTHING = "*"                                 # every function and lambda of a module
WITHHELD = ("{name} is withheld from this kernel while the notebook is graded: it computes the answer of an "
            "exercise, and the grader judges your own function")
CHECK_WITHHELD = "{name} is withheld from this kernel while the notebook is graded: the checks run in the grader"


def for_notebook(course_nb):
    """The dotted names withheld from the kernel of a submission of `course_nb`: what its checks' `computed_by`
    name."""
    from lesson_course.checks import REGISTRY
    return sorted({name for check in course_nb.checks if check.name in REGISTRY
                   for name in REGISTRY[check.name].computed_by})


def locate(dotted, files):
    """(relative path of the module file, qualified name inside it) of a dotted name, e.g.
    'lesson_lib.physics.chain.PlanarChain.mass_matrix' -> ('lesson_lib/physics/chain.py', 'PlanarChain.mass_matrix');
    `files`: the relative paths there are.  Raises KeyError when no module file holds it."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        for rel in ("/".join(parts[:cut]) + ".py", "/".join(parts[:cut]) + "/__init__.py"):
            if rel in files:
                return rel, ".".join(parts[cut:])
    raise KeyError(f"{dotted}: no module of the course holds it")


def targets(rel, source, names):
    """The function and lambda nodes of the module `rel` to hollow: every one for EVERYTHING, else those whose
    qualified name is in `names` (a class's name: each function defined in its body).  Raises KeyError naming a
    qualified name the module does not define."""
    tree = ast.parse(source)
    found, defined = [], set()
    built = called_at_import(tree) if EVERYTHING in names else set()

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = f"{prefix}{child.name}"
                defined.add(qual)
                inside = EVERYTHING in names or qual in names or any(qual.startswith(n + ".") for n in names)
                if inside and not isinstance(child, ast.ClassDef) and qual not in built:
                    found.append((qual, child))
                visit(child, qual + ".")
            elif isinstance(child, ast.Lambda) and EVERYTHING in names:
                found.append((f"{prefix}<lambda>", child))
                visit(child, prefix)
            else:
                visit(child, prefix)
    visit(tree, "")
    unknown = sorted(n for n in names if n != EVERYTHING and n not in defined)
    if unknown:
        raise KeyError(f"{rel} defines no {', '.join(unknown)}")
    outermost = []                                   # a hollowed function's own inner functions go with it
    for qual, node in sorted(found, key=lambda f: (f[1].lineno, f[1].col_offset)):
        if not any(_within(node, other) for _, other in outermost):
            outermost.append((qual, node))
    return outermost


def called_at_import(tree):
    """Names of the module's own top-level functions that its import calls (a factory that builds a check's hints):
    in a module hollowed whole, such a function keeps its body, as the module's other top-level code does, so the
    module still imports; the functions and lambdas inside it are hollowed."""
    calls, pending = set(), list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            pending += node.decorator_list + node.args.defaults + [d for d in node.args.kw_defaults if d]
            continue
        if isinstance(node, ast.Lambda):
            pending += node.args.defaults + [d for d in node.args.kw_defaults if d]
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            calls.add(node.func.id)
        pending += list(ast.iter_child_nodes(node))
    return calls & {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _within(node, other):
    return (other.lineno, other.col_offset) <= (node.lineno, node.col_offset) and \
        (node.end_lineno, node.end_col_offset) <= (other.end_lineno, other.end_col_offset)


def hollow(rel, source, names, module, message=WITHHELD):
    """The module's source with each target's body replaced by a raise of WITHHELD (a def keeps its decorators,
    name and signature; a lambda becomes a call that raises); every other byte is kept."""
    lines = source.encode("utf-8").splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    data = source.encode("utf-8")
    edits = []
    for qual, node in targets(rel, source, names):
        said = message.format(name=f"{module}.{qual}")
        if isinstance(node, ast.Lambda):
            start, end = node.body, node.body
            text = f"__withheld__({said!r})"
        else:
            start, end = node.body[0], node.body[-1]
            inline = lines[start.lineno - 1][:start.col_offset].strip() != b""     # `def f(x): return x`
            indent = " " * start.col_offset
            text = f"raise RuntimeError({said!r})" + ("" if inline else "\n")
            if not inline:                           # whole lines: from the body's first line to its last
                edits.append((offsets[start.lineno - 1], offsets[end.end_lineno], indent + text))
                continue
        edits.append((offsets[start.lineno - 1] + start.col_offset, offsets[end.end_lineno - 1] + end.end_col_offset,
                       text))
    for begin, stop, text in sorted(edits, reverse=True):
        data = data[:begin] + text.encode("utf-8") + data[stop:]
    out = data.decode("utf-8")
    if EVERYTHING in names:
        out += ("\n\ndef __withheld__(message):\n    raise RuntimeError(message)\n")
    return out


def plan(files, names):
    """{relative path: set of qualified names (or {EVERYTHING})} to hollow: the withheld `names` and every module of
    the checks but their framework."""
    out = {}
    for dotted in names:
        rel, qual = locate(dotted, files)
        out.setdefault(rel, set()).add(qual)
    for rel in files:
        if rel.startswith(CHECKS) and rel.endswith(".py") and rel not in KEPT_IN_CHECKS:
            out[rel] = {EVERYTHING}
    return out


def kernel_copy(root, expected, dest, names):
    """Copy the learners' packages' verified files (manifest `expected`) from root to dest, hollowing what `plan`
    says; returns the manifest of what was written ({relative path: sha256}), for a later look at whether a cell
    changed it."""
    from .verified import verified_bytes
    files = {rel for rel in expected if rel.split("/", 1)[0] in LEARNERS}
    hollowed = plan(files, names)
    written = {}
    for rel in sorted(files):
        data = verified_bytes(root, rel, expected)
        if rel in hollowed:
            module = rel.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
            message = CHECK_WITHHELD if rel.startswith(CHECKS) else WITHHELD
            data = hollow(rel, data.decode("utf-8"), hollowed[rel], module, message).encode("utf-8")
        target = Path(dest) / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written[rel] = hashlib.sha256(data).hexdigest()
    return written
