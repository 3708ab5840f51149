"""Examples that run: every public function and class of lesson_lib (and every public method of a public class)
shows a short example in its docstring, in Modern Robotics' manner, and every example in lesson_lib runs and prints
what its docstring says (doctest, whitespace normalised, `...` for the rest of a long message).  The whole run
takes a few seconds: the examples are tiny."""
import doctest
import importlib
import inspect
import pkgutil

import pytest

import lesson_lib

MODULES = [lesson_lib] + [importlib.import_module(info.name)
                          for info in pkgutil.walk_packages(lesson_lib.__path__, "lesson_lib.")]
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def public_names(module):
    """{qualified name: object} of the module's own public functions and classes, and their public methods and
    properties (inherited ones count where they are defined)."""
    found = {}
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(inspect.unwrap(obj)):                  # functools.cache's wrappers too
            found[name] = obj
        elif inspect.isclass(obj):
            found[name] = obj
            for attribute, member in vars(obj).items():
                if attribute.startswith("_"):
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if inspect.isfunction(member) or isinstance(member, property):
                    found[f"{name}.{attribute}"] = member
    return found


def test_every_public_name_has_an_example():
    missing = [f"{module.__name__}.{name}" for module in MODULES for name, obj in public_names(module).items()
               if ">>>" not in (obj.__doc__ or "")]
    assert not missing, f"{len(missing)} public names of lesson_lib without a docstring example: {missing}"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_the_examples_print_what_they_say(module):
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=FLAGS)
    failures = []
    for test in finder.find(module, module.__name__):
        output = []
        result = runner.run(test, out=output.append)
        if result.failed:
            failures.append("".join(output))
    assert not failures, "\n".join(failures)


def test_a_wrong_example_fails():
    def wrong():
        """>>> 1 + 1
        3"""
    test = doctest.DocTestFinder().find(wrong, "wrong", globs={})[0]
    assert doctest.DocTestRunner(optionflags=FLAGS).run(test, out=lambda text: None).failed == 1
