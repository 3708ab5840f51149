"""Names the course writes down exist: every dotted `lesson_lib.…` name in the notebooks (teachers' and learners'),
the READMEs, the benchmarks and the three packages' code and docstrings resolves to a module or an attribute; and
inside lesson_lib.model, where the modules name each other without the prefix (`fast.output_jet`,
`definition.loss`), every such name is an attribute of that sibling module.  A renamed or removed function leaves
no stale name behind."""
import ast
import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOTTED = re.compile(r"\blesson_lib(?:\.[A-Za-z_]\w*)+")
MODEL = ROOT / "lesson_lib" / "model"
SIBLINGS = sorted(p.stem for p in MODEL.glob("*.py") if p.stem != "__init__")
SIBLING = re.compile(r"(?<![\w.])(" + "|".join(SIBLINGS) + r")\.([A-Za-z_]\w*)")


def texts():
    """{place: text} of everything that names the library: notebooks' cells, Markdown files, Python files."""
    found = {}
    for path in sorted(ROOT.glob("notebooks/**/*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        found[str(path.relative_to(ROOT))] = "\n".join("".join(c["source"]) for c in cells)
    for pattern in ("*.md", "lesson_tools/README.md", "benchmarks/*.py", "lesson_lib/**/*.py", "lesson_course/**/*.py",
                    "lesson_tools/**/*.py"):
        for path in sorted(ROOT.glob(pattern)):
            found[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    return found


def resolves(dotted):
    """Whether `dotted` names a module of lesson_lib or an attribute reached from one (a trailing part that is a
    file suffix, `.py`, is a file name, not a name)."""
    parts = dotted.removesuffix(".py").split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for attribute in parts[k:]:
            if not hasattr(obj, attribute):
                return False
            obj = getattr(obj, attribute)
        return True
    return False


def test_every_dotted_name_of_the_library_resolves():
    stale = sorted({(place, name) for place, text in texts().items() for name in DOTTED.findall(text)
                    if not resolves(name)})
    assert not stale, f"names of lesson_lib that do not exist (place, name): {stale}"


def model_prose(path):
    """The docstrings (but their examples' code) and comments of a module of lesson_lib.model: where the modules
    name each other in words."""
    source = path.read_text(encoding="utf-8")
    nodes = [n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef))]
    docs = [line for node in nodes for line in (ast.get_docstring(node) or "").splitlines()
            if not line.lstrip().startswith((">>>", "..."))]
    comments = [line.split("#", 1)[1] for line in source.splitlines() if "#" in line]
    return "\n".join(docs + comments)


@pytest.mark.parametrize("module", SIBLINGS)
def test_the_model_modules_name_only_what_their_siblings_have(module):
    stale = []
    for sibling, name in SIBLING.findall(model_prose(MODEL / f"{module}.py")):
        if name != "py" and not hasattr(importlib.import_module(f"lesson_lib.model.{sibling}"), name):
            stale.append(f"{sibling}.{name}")
    assert not stale, f"lesson_lib/model/{module}.py names what its siblings do not have: {sorted(set(stale))}"


def test_the_finders_find_a_stale_name(tmp_path):
    assert resolves("lesson_lib.model.fast.loss") and resolves("lesson_lib.model.training.py")
    assert not resolves("lesson_lib.model.fast.fused") and not resolves("lesson_lib.model.nowhere")
    assert SIBLING.findall("the jet (fast.jet_node) and model.fast.loss") == [("fast", "jet_node")]
