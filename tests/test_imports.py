"""How the three packages import each other and themselves: each only those below it (lesson_tools imports
lesson_course and lesson_lib, lesson_course imports lesson_lib, lesson_lib neither), and no module imports another
that (directly or through others) imports it back, counting imports inside functions too.

An import of a package's own ancestors (`from .. import facts` inside lesson_lib.model) is left out: Python
imports a module's parent packages first in any case, so that is no cycle a reader has to follow.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("lesson_lib", "lesson_course", "lesson_tools")      # each may import only those before it


def modules():
    """{module name: path} of every module of both packages."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports(name, path, known):
    """The modules of `known` that module `name` imports, anywhere in its code."""
    is_package = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")[: len(name.split(".")) - node.level + (1 if is_package else 0)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in known else module for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                out.add(target)
    return out


def graph():
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def cycles(edges):
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_each_package_imports_only_the_packages_below_it():
    rank = {package: k for k, package in enumerate(PACKAGES)}
    bad = sorted((a, b) for a, targets in graph().items() for b in targets
                 if rank[b.split(".")[0]] > rank[a.split(".")[0]])
    assert not bad, f"a package imports one above it (the science the course, or either the teachers' tools): {bad}"


def test_no_import_cycles():
    found = cycles(graph())
    assert not found, f"modules that import each other (in a cycle): {found}"


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    edges = graph()
    assert "lesson_lib.model.fast" in edges["lesson_lib.model.delan"]
    assert "lesson_tools.grading.judge" in edges["lesson_tools.grading.job"]


def private_uses(name, path, known):
    """Where module `name` uses another module's private name (`_x`, not `__x__`): `from M import _x`, or `m._x`
    with m bound to a module of `known` by an import; as "name:line uses M._x"."""
    is_package, bound, out = path.name == "__init__.py", {}, []
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def private(attr):
        return attr.startswith("_") and not attr.endswith("__")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bound.update({a.asname or a.name.split(".")[0]: a.name for a in node.names if a.name in known})
        elif isinstance(node, ast.ImportFrom):
            base = name.split(".")[: len(name.split(".")) - node.level + (1 if is_package else 0)] if node.level \
                else []
            module = ".".join(base + ([node.module] if node.module else []))
            for a in node.names:
                if f"{module}.{a.name}" in known:
                    bound[a.asname or a.name] = f"{module}.{a.name}"
                elif module in known and module != name and private(a.name):
                    out.append(f"{name}:{node.lineno} uses {module}.{a.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound \
                and bound[node.value.id] != name and private(node.attr):
            out.append(f"{name}:{node.lineno} uses {bound[node.value.id]}.{node.attr}")
    return sorted(out)


def test_no_module_uses_another_modules_private_names():
    known = modules()
    found = [use for name, path in known.items() for use in private_uses(name, path, known)]
    assert not found, f"private names used outside their module (make them public, or move the code): {found}"


def test_the_private_name_finder_finds_both_forms(tmp_path):
    path = tmp_path / "b.py"
    path.write_text("from pkg.a import _hidden, shown\nfrom pkg import a\nimport pkg.a as alias\n"
                    "a._x(); alias._y; a.z; a.__doc__\n")
    found = private_uses("pkg.b", path, {"pkg.a", "pkg.b"})
    assert found == ["pkg.b:1 uses pkg.a._hidden", "pkg.b:4 uses pkg.a._x", "pkg.b:4 uses pkg.a._y"]
