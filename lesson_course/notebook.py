"""Kind notebooks: when a cell needs something an earlier cell makes, say which cell to run.

    require("model", cell="'Train the model' (section 2)")     # first lines of a cell that needs `model`
    require("chain")                                          # made by the first code cell

`require` raises MissingStep, a NameError naming the missing names and the cell that makes them; `setup` (called
when lesson_course is imported in IPython) shows that message alone and adds a one-line hint under any other
NameError.  Every code cell after a notebook's first starts with such an import (tests/test_edition.py runs
each one first in a fresh kernel)."""
import inspect
import textwrap

RUN_ABOVE = "Run > Run All Above Selected Cell"
NBSP = "\u00a0"     # a space a line is never broken at: a menu path stays on one line
FIRST_CELL = "with the imports (the first code cell)"
WIDTH = 88           # characters per line of text the course prints: JupyterLab breaks longer lines mid-word, and
                     # 88 fit its output area in a 1,200 px window with the file browser open


def wrapped(text, indent=""):
    """text wrapped at spaces to WIDTH characters, the first line after `indent`, the others under it; words and
    hyphenated words are never broken."""
    return textwrap.fill(text, WIDTH, initial_indent=indent, subsequent_indent=" " * len(indent),
                         break_long_words=False, break_on_hyphens=False)


class MissingStep(NameError):
    """A cell needs a step not taken yet: names that an earlier cell makes (`require`), or a prediction's choice
    (lesson_course.reveal.PredictFirst); the message says what to do."""


# not mutated: mutmut's trampoline would stand between require and its caller, whose frame it reads
def require(*names, cell=FIRST_CELL):  # pragma: no mutate block
    """Raise MissingStep unless every name in `names` exists in the calling notebook's namespace; cell: how
    to find the cell that makes them (default: the notebook's first code cell)."""
    scope = inspect.currentframe().f_back.f_globals
    missing = [n for n in names if n not in scope]
    if missing:
        listed = ", ".join(f"`{n}`" for n in missing)
        raise MissingStep(f"this cell needs {listed}, which the cell {cell} makes. Run that cell first "
                          f"(or {RUN_ABOVE}), then run this cell again.")


def _handler(shell, etype, value, tb, tb_offset=None):
    """IPython custom exception handler: MissingStep (and its kinds) as its message alone, other NameErrors with
    a hint."""
    if issubclass(etype, MissingStep):
        stb = [f"{etype.__name__}: {value}"]
    else:
        stb = list(shell.InteractiveTB.structured_traceback(etype, value, tb, tb_offset=tb_offset))
        stb.append(wrapped(f"Hint: this cell uses a name that an earlier cell defines. After a restart, run the "
                           f"cells above this one first ({RUN_ABOVE.replace(' ', NBSP)}).", ""))  # never mid-word
    shell._showtraceback(etype, value, stb)          # send it to the front end as the cell's error output
    return stb


def setup():
    """Install the friendly NameError display in the running IPython kernel, and show the course's figures
    (ui.figure.DescribedFigure) as their HTML alone: an image with alt text, not a second copy of the PNG beside
    it.  Does nothing outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is not None:
        shell.set_custom_exc((NameError,), _handler)
        png = shell.display_formatter.formatters["image/png"]
        png.for_type_by_name("lesson_course.ui.figure", "DescribedFigure", lambda figure: None)
