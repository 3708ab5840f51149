"""An exception the learner's code raised, named: which line of theirs raised it, what its arrays were, and the hint
key of its kind.

    raised_where(exc)  ->  " (line 6 of the cell, in is_valid_inertia: `return bool(smallest > 0)`)"
                           " (line 3 of the cell, in layer_jet: `z = W @ h + b`, where W is (4, 4) and h (5, 4))"
    raised_key(exc)    ->  "uncalled"  (a method compared or multiplied without its parentheses)

Each key is a general hint (framework.GENERAL_HINTS).  A check may give its own words for some errors of a kind
(diagnosis.Raised, under a key of its own, when its condition holds) or for all of them (a hint it writes under
the general key).

The learner's line is the innermost frame of the traceback that is not the course's or an installed package's
(numpy raises inside its own files; the line that called it is the learner's).  For an error about shapes, the
shapes of the arrays that line names are read from that frame (`operands`).  An exception rebuilt by the grader's
wire carries both as `learner_line` and `learner_operands`, found in the learner's kernel the same way."""
import ast
import linecache
import os
import re
import sysconfig
from pathlib import Path

COURSE_PACKAGES = ("lesson_lib", "lesson_course", "lesson_tools")


def _installed():
    """Folders whose files are not the learner's: the standard library and site-packages."""
    paths = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    return tuple(os.path.realpath(p) + os.sep for p in paths)


def _theirs(frame, installed):
    """True when the frame runs the learner's code: not a module of the course's packages, not installed."""
    if str(frame.f_globals.get("__name__", "")).split(".")[0] in COURSE_PACKAGES:
        return False
    filename = frame.f_code.co_filename
    return filename.startswith("<") or not os.path.realpath(filename).startswith(installed)


def _learners_frame(exc):
    """The innermost traceback entry of exc that runs the learner's code, or None."""
    found, installed = None, _installed()
    tb = exc.__traceback__
    while tb is not None:
        if _theirs(tb.tb_frame, installed):
            found = tb
        tb = tb.tb_next
    return found


def learner_line(exc):
    """(line number, function name, the line's text, where) of the innermost frame of exc's traceback that is the
    learner's, or None.  `where` is "the cell" for a notebook cell, else the file's name."""
    tb = _learners_frame(exc)
    if tb is None:
        return None
    code = tb.tb_frame.f_code
    text = linecache.getline(code.co_filename, tb.tb_lineno, tb.tb_frame.f_globals).strip()
    notebook = "ipykernel_" in code.co_filename or code.co_filename.startswith("<ipython-input")
    return tb.tb_lineno, code.co_name, text, "the cell" if notebook else Path(code.co_filename).name


SHAPE_KINDS = ("shapes", "matmul number", "ambiguous", "index")      # errors whose line's shapes are shown


def operands(exc, limit=4):
    """'W is (4, 4) and h (5, 4)': the shapes of the arrays (and lengths of the lists) that the learner's line
    names, read from its frame, for an error about shapes (SHAPE_KINDS); '' otherwise."""
    if hasattr(exc, "learner_line"):                       # rebuilt by the wire: found in the learner's kernel
        return str(getattr(exc, "learner_operands", "") or "")
    tb = _learners_frame(exc)
    if tb is None or raised_key(exc) not in SHAPE_KINDS:
        return ""
    frame = tb.tb_frame
    text = linecache.getline(frame.f_code.co_filename, tb.tb_lineno, frame.f_globals).strip()
    shown = []
    for name in dict.fromkeys(_names(text)):
        value = frame.f_locals.get(name, frame.f_globals.get(name))
        shape = getattr(value, "shape", None) if type(value).__module__.startswith("numpy") else None
        if isinstance(shape, tuple):
            shown.append(f"{name} {shape}")
        elif isinstance(value, (list, tuple)):
            shown.append(f"{name} a {type(value).__name__} of {len(value)}")
        if len(shown) == limit:
            break
    if not shown:
        return ""
    first, *rest = shown
    first = first.replace(" ", " is ", 1)
    return first if not rest else ", ".join([first, *rest[:-1]]) + " and " + rest[-1]


def _names(text):
    """The names a line of code uses (a line that is not a whole statement, e.g. `for k in range(n):`, too)."""
    for attempt in (text, text + " pass", text.rstrip(":")):
        try:
            names = [n for n in ast.walk(ast.parse(attempt)) if isinstance(n, ast.Name)]
        except SyntaxError:
            continue
        return [n.id for n in sorted(names, key=lambda n: (n.lineno, n.col_offset))]      # as the line reads
    return re.findall(r"[A-Za-z_]\w*", text)


def raised_where(exc):
    """' in line N of the cell, in fn: `the line`' for the learner's line that raised exc, or ''."""
    line = getattr(exc, "learner_line", None) or learner_line(exc)
    if not line:
        return ""
    number, function, text, where = line
    name = "" if function in ("<lambda>", "<module>") else f", in {function}"
    shown = text if len(text) <= 90 else text[:87] + "..."
    arrays = operands(exc)
    arrays = f", where {arrays}" if arrays and shown else ""
    return f" (line {number} of {where}{name}" + (f": `{shown}`{arrays})" if shown else ")")


def raised_key(exc):
    """The key of the general hint that names what kind of mistake raised exc ("raised" when none fits)."""
    message = str(exc)
    if isinstance(exc, UnboundLocalError) or "cannot access local variable" in message:
        return "unbound"
    if isinstance(exc, NameError) or type(exc).__name__ == "NameError":
        return "undefined"
    if isinstance(exc, TypeError):
        if any(word in message for word in ("builtin_function_or_method", "'method'", "'function'")):
            return "uncalled"
        if any(word in message for word in ("unexpected keyword argument", "positional argument")):
            return "arguments"
        if any(word in message for word in ("sequence", "'list'", "'tuple'", "can only concatenate")):
            return "sequence"
    if isinstance(exc, AttributeError):
        return "attribute"
    if isinstance(exc, ValueError):
        if "does not have enough dimensions" in message:
            return "matmul number"
        if "truth value of an array" in message:
            return "ambiguous"
        if "could not be broadcast" in message or "matmul: Input operand" in message or "not aligned" in message:
            return "shapes"
        if re.search(r"\bhas shape \(.*\), expected", message):
            return "argument shape"
    if isinstance(exc, IndexError):
        return "index"
    if isinstance(exc, ZeroDivisionError):
        return "division"
    return "raised"
