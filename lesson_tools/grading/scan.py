"""A static look at the code a learner wrote, for what no honest answer needs: reaching into the checks or the
grader, into lesson_lib's internals or files, sys.modules, builtins or print, or faking a verdict line.

    findings = scan(source, protected)        # [(line, reason)]

Verdicts do not depend on this scan (they come from the judge); it flags a submission TAMPERED so
that a person looks at it.  It reads only cells the learner wrote or changed (the grader passes those), after
turning IPython syntax (`!cmd`, `%magic`) into the Python calls IPython would make.  `protected` names the
modules and lesson_lib objects a notebook imported (np, checks, DeLaN, ...): assigning to their attributes is
monkeypatching.
"""
import ast
import re

# modules whose contents the checks rely on: changing their attributes is monkeypatching
PROTECTED_MODULES = ("lesson_lib", "lesson_course", "numpy", "autograd", "math", "sys", "os", "builtins", "IPython",
                     "cloudpickle", "pickle", "importlib", "io", "contextlib", "warnings")
ALWAYS_PROTECTED = {"checks", "np", "numpy", "sys", "os", "builtins", "lesson_lib", "lesson_course"}
NAMES = {
    "builtins": "uses the builtins module", "__builtins__": "uses __builtins__",
    "__import__": "imports by __import__", "importlib": "uses importlib", "exec": "runs code with exec",
    "eval": "runs code with eval", "compile": "compiles code at run time", "globals": "reads globals()",
    "ctypes": "uses ctypes", "gc": "uses the garbage collector", "pickle": "uses pickle",
    "cloudpickle": "uses cloudpickle", "marshal": "uses marshal", "copyreg": "uses copyreg",
    "subprocess": "starts processes", "multiprocessing": "starts processes", "threading": "starts threads",
    "_thread": "starts threads", "signal": "handles signals", "atexit": "registers exit handlers",
    "get_ipython": "uses the IPython kernel directly",
}
SYS_ATTRS = {"modules", "_getframe", "settrace", "setprofile", "getprofile", "gettrace", "stdout", "stderr",
             "__stdout__", "__stderr__", "displayhook", "excepthook", "meta_path", "path_hooks", "path", "addaudithook"}
OS_ATTRS = {"system", "popen", "fork", "forkpty", "kill", "killpg", "write", "dup", "dup2", "remove", "unlink",
            "rename", "replace", "chmod", "symlink", "link", "truncate", "_exit", "open", "rmdir", "removedirs"}
DUNDERS = {"__file__", "__dict__", "__globals__", "__code__", "__builtins__", "__closure__", "__defaults__",
           "__kwdefaults__", "__subclasses__", "__loader__", "__spec__", "__reduce__", "__reduce_ex__",
           "__setattr__", "__delattr__", "__getattribute__", "__import__", "__bases__", "__mro__"}
SAFE_MAGICS = {"timeit", "time", "matplotlib", "pprint", "precision", "who", "whos", "prun", "capture"}
VERDICT_LINE = re.compile(r"(?m)^\s*(PASS|FAIL|NOT ATTEMPTED)\s*:")


def protected_names(sources):
    """Names bound by imports of protected modules, or of objects from lesson_lib, in any of the sources."""
    names = set(ALWAYS_PROTECTED)
    for source in sources:
        tree = _parse(source)
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, ast.Import):
                names |= {(a.asname or a.name).split(".")[0] for a in node.names
                          if a.name.split(".")[0] in PROTECTED_MODULES}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in PROTECTED_MODULES:
                names |= {a.asname or a.name for a in node.names}
    return names


def _python(source):
    """The cell as the Python IPython would run (magics and shell escapes become get_ipython() calls)."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
        return TransformerManager().transform_cell(source)
    except Exception:                                   # noqa: BLE001 -- fall back to the raw text
        return source


def _parse(source):
    try:
        return ast.parse(_python(source))
    except (SyntaxError, ValueError):
        return None


def _root(node):
    """The name an attribute/subscript chain starts from (`np` for np.linalg.eigvalsh[0]), and the chain."""
    chain = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            chain.append(node.attr)
        node = node.value
    return (node.id if isinstance(node, ast.Name) else None), ".".join(reversed(chain))


class _Scanner(ast.NodeVisitor):
    def __init__(self, protected, check_names):
        self.protected, self.check_names, self.found = protected, set(check_names), []

    def flag(self, node, reason):
        self.found.append((getattr(node, "lineno", 0), reason))

    # changing what the checks rely on: any target (assignment, augmented or annotated assignment, del, for,
    # with ... as, comprehension, :=) is a node in Store or Del context, whatever statement holds it
    def _changes(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            root, chain = _root(node)
            if root in self.protected:
                verb = "deletes" if isinstance(node.ctx, ast.Del) else "assigns to"
                self.flag(node, f"{verb} {root}.{chain}".rstrip(".") + " (changes an imported module or "
                                "lesson_lib object)")

    def visit_Subscript(self, node):
        self._changes(node)
        self.generic_visit(node)

    def _definition(self, node):
        if node.name in ("print", "checks"):
            self.flag(node, f"redefines {node.name}")
        if node.name in DUNDERS:
            self.flag(node, f"defines {node.name}")
        self.generic_visit(node)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _definition

    def visit_Global(self, node):
        if "print" in node.names:
            self.flag(node, "redefines print")

    def _imports(self, node, module, names):
        top = module.split(".")[0]
        if top in NAMES and NAMES[top]:
            self.flag(node, NAMES[top])
        if module.split(".")[0] == "lesson_tools":
            self.flag(node, "imports the grader")
        for name, alias in names:
            if "print" in (name, alias):
                self.flag(node, "redefines print")
            if alias == "checks" or (name == "checks" and module != "lesson_course"):
                self.flag(node, f"binds checks to {module}.{name}")
            if module.startswith(("lesson_lib", "lesson_course")) and name.startswith("_"):
                self.flag(node, f"imports lesson_lib internals ({module}.{name})")
            if module.endswith("course.checks") and name not in self.check_names:
                self.flag(node, f"reaches into the checks ({name})")
            if name in NAMES and NAMES[name] and module in ("builtins", "os", "sys", "IPython"):
                self.flag(node, NAMES[name])

    def visit_Import(self, node):
        for a in node.names:
            self._imports(node, a.name, [])
            if a.asname in ("print", "checks"):
                self.flag(node, f"redefines {a.asname}")

    def visit_ImportFrom(self, node):
        self._imports(node, node.module or "", [(a.name, a.asname) for a in node.names])

    # reaching into things
    def visit_Name(self, node):
        reason = NAMES.get(node.id) or ("uses the grader's names" if node.id.startswith("_lesson") else None)
        if reason:
            self.flag(node, reason)
        if isinstance(node.ctx, (ast.Store, ast.Del)) and node.id in ("print", "checks"):
            self.flag(node, f"redefines {node.id}")

    def visit_Attribute(self, node):
        self._changes(node)
        root, chain = _root(node)
        if node.attr in DUNDERS:
            self.flag(node, f"reads {node.attr}")
        if root == "checks" and isinstance(node.value, ast.Name) and node.attr not in self.check_names:
            self.flag(node, f"reaches into the checks (checks.{node.attr})")
        elif root == "sys" and isinstance(node.value, ast.Name) and node.attr in SYS_ATTRS:
            self.flag(node, f"uses sys.{node.attr}")
        elif root == "os" and isinstance(node.value, ast.Name) and (node.attr in OS_ATTRS or
                                                                    node.attr.startswith(("exec", "spawn"))):
            self.flag(node, f"uses os.{node.attr}")
        elif root in self.protected and node.attr.startswith("_") and not node.attr.startswith("__"):
            self.flag(node, f"uses a private name ({root}.{chain})")
        self.generic_visit(node)

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("setattr", "delattr") and node.args:
            root, _ = _root(node.args[0])
            if root in self.protected or not isinstance(node.args[0], ast.Name):
                self.flag(node, f"calls {func.id} on a module or lesson_lib object")
        if isinstance(func, ast.Name) and func.id in ("getattr", "hasattr") and len(node.args) >= 2:
            root, _ = _root(node.args[0])
            attr = node.args[1].value if isinstance(node.args[1], ast.Constant) else None
            if root in self.protected and (not isinstance(attr, str) or attr.startswith("_") or
                                           (root == "checks" and attr not in self.check_names)):
                self.flag(node, f"reads {root}.{attr if isinstance(attr, str) else '<computed name>'} with {func.id}")
        if isinstance(func, ast.Name) and func.id == "vars" and node.args:
            root, _ = _root(node.args[0])
            if root in self.protected:
                self.flag(node, "reads a module's namespace with vars()")
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call)
                and isinstance(func.value.func, ast.Name) and func.value.func.id == "get_ipython"):
            return self._magic(node, func.attr, [a.value if isinstance(a, ast.Constant) else None for a in node.args])
        self.generic_visit(node)

    def _magic(self, node, method, args):
        """A line or cell magic as IPython turns it into a call: safe ones have their code scanned too."""
        magic = args[0] if args else None
        if method in ("run_line_magic", "run_cell_magic") and magic in SAFE_MAGICS:
            for code in args[1:]:
                tree = _parse(code) if isinstance(code, str) else None
                if tree is not None:
                    for _line, reason in scan_tree(tree, self.protected, self.check_names):
                        self.flag(node, reason)
        elif method in ("system", "getoutput"):
            self.flag(node, "runs a shell command")
        elif magic is not None:
            self.flag(node, f"runs the magic %{magic}")
        else:
            self.flag(node, "uses get_ipython()")

    def visit_Constant(self, node):
        if isinstance(node.value, str):
            self._text(node, node.value)

    def visit_JoinedStr(self, node):
        self._text(node, "".join(v.value for v in node.values if isinstance(v, ast.Constant)))
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                self.visit(value)

    def _text(self, node, text):
        if VERDICT_LINE.search(text):
            self.flag(node, f"writes a line that looks like a check's verdict ({text.strip()[:40]!r})")
        elif any(word in text for word in ("lesson_lib", "lesson_course", "lesson_tools", "site-packages")):
            self.flag(node, "names the course's or Python's installed files in a string")


def scan(source, protected=ALWAYS_PROTECTED, check_names=()):
    """[(line, reason)] for one cell's source; [] when nothing is found or the cell does not parse (a cell
    that does not parse raises when run, and cannot reach anything)."""
    tree = _parse(source)
    return [] if tree is None else scan_tree(tree, protected, check_names)


def scan_tree(tree, protected, check_names):
    scanner = _Scanner(set(protected), check_names)
    scanner.visit(tree)
    return sorted(set(scanner.found))


def handovers(sources, function, computed_by):
    """[(cell position, line, reason)] where the learner's `function` (in any of `sources`) hands its work to one of
    the library's own implementations of the exercise (`computed_by`, dotted names): by attribute (`.is_valid_inertia`),
    by a name imported from lesson_lib, or by the name as a string (getattr)."""
    last = {}
    for name in computed_by:                           # two modules may have a function of the same name
        short = name.rsplit(".", 1)[1]
        last[short] = f"{last[short]} or {name}" if short in last else name
    trees = [_parse(s) for s in sources]
    imported = {}
    for tree in filter(None, trees):
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("lesson_lib", "lesson_course")):
                imported.update({a.asname or a.name: last[a.name] for a in node.names if a.name in last})
    found = []
    for position, tree in enumerate(trees):
        for fn in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                   and n.name == function) if tree else ():
            for node in ast.walk(fn):                  # (imports inside it were read above, with the others)
                name = (node.attr if isinstance(node, ast.Attribute) else
                        node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None)
                dotted = last.get(name) if name else (imported.get(node.id) if isinstance(node, ast.Name) else None)
                if dotted:
                    found.append((position, node.lineno, f"hands the exercise to the library's own {dotted} (what "
                                                          f"the check compares with)"))
    return sorted(set(found))
