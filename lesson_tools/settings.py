"""A course's settings in one file, as nbgrader keeps them in nbgrader_config.py: `lesson_tools.toml`, or a
`[tool.lesson_tools]` table in the course's `pyproject.toml`, in the folder a command is run from (or the file
given with `--settings`).

    # lesson_tools.toml                   (in pyproject.toml: [tool.lesson_tools.grade],
    #                                      [tool.lesson_tools.points], ...)
    [grade]                               # any long option of `lesson-tools grade`, without its dashes
    out = "gradebook.csv"                 # paths are read from this file's folder
    timeout = 60
    memory_mb = 4096
    roster = ["canvas-gradebook.csv", "moodle-worksheet.csv"]   # one or several
    overrides = "overrides.toml"          # points set by hand, extensions, excused (lesson_tools.grading.overrides)
    late_penalty = "10%/day"              # a share off late work (lesson_tools.grading.late)

    [points]                              # what a PASS of a check earns (default: what the check declares)
    kinetic_energy = 2

    [notebooks.02_model]                  # per notebook: its assignment on the learning platform, its due date
    canvas_assignment = "DeLaN 02 (4567)"
    due = 2026-12-01T23:59:00+01:00

Options given on the command line win over the file, the file over the defaults.  A key the command does not have
is named, with the keys there are; a value of the wrong kind is named with what is expected.
"""
import argparse
import tomllib
from pathlib import Path

FILE = "lesson_tools.toml"
TABLES = ("grade", "points", "notebooks")
NOTEBOOK_KEYS = ("canvas_assignment", "moodle_assignment", "due")


class SettingsError(Exception):
    """The settings file cannot be used: the message names the file, the key, what it holds and what is expected."""


def find(given=None, folder="."):
    """(path, {table: ...}) of the settings: the file given, else lesson_tools.toml, else pyproject.toml's
    [tool.lesson_tools], in `folder`; (None, {}) when there are none."""
    candidates = [Path(given)] if given else [Path(folder) / FILE, Path(folder) / "pyproject.toml"]
    for path in candidates:
        if not path.is_file():
            if given:
                raise SettingsError(f"--settings {given}: no such file; give a {FILE} or a pyproject.toml with a "
                                    f"[tool.lesson_tools] table")
            continue
        try:
            with open(path, "rb") as f:
                table = tomllib.load(f)
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise SettingsError(f"{path}: cannot be read as TOML ({exc}); fix the line it names") from None
        if path.name == "pyproject.toml" and path.name != FILE:
            if "tool" not in table or "lesson_tools" not in table["tool"]:
                if given:
                    raise SettingsError(f"--settings {given}: it has no [tool.lesson_tools] table")
                continue
            table, where = table["tool"]["lesson_tools"], "[tool.lesson_tools]"
        else:
            where = ""
        unknown = sorted(set(table) - set(TABLES))
        if unknown:
            raise SettingsError(f"{path}{' ' + where if where else ''}: {', '.join(unknown)} "
                                f"{'is not a table' if len(unknown) == 1 else 'are not tables'} of lesson-tools' "
                                f"settings; the tables are: {', '.join(TABLES)}")
        for name in TABLES:
            if name in table and not isinstance(table[name], dict):
                raise SettingsError(f"{path}: {name} must be a table ([{name}]), got {table[name]!r}")
        return path.absolute(), table
    return None, {}


def option_defaults(parser, values, path, table="grade", paths=()):
    """{dest: value} for `parser.set_defaults` from a settings table: each key a long option of the command (dashes
    or underscores), each value converted and checked as the command line would; paths (dests in `paths`) read
    from the settings file's folder."""
    options = {a.dest: a for a in parser._actions if a.option_strings and a.dest != "help"}
    out = {}
    for key, value in values.items():
        dest = key.replace("-", "_")
        action = options.get(dest)
        if action is None or dest == "settings":
            raise SettingsError(f"{path}: [{table}] {key} is not an option of lesson-tools {table}; the keys there "
                                f"are: {', '.join(sorted(d for d in options if d != 'settings'))}")
        out[dest] = _value(action, value, f"{path}: [{table}] {key}")
        if dest in paths and isinstance(out[dest], list):
            out[dest] = [str(Path(path).parent / v) for v in out[dest]]
        elif dest in paths and out[dest] is not None:
            out[dest] = str(Path(path).parent / out[dest])
    return out


def _value(action, value, where):
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
        if not isinstance(value, bool):
            raise SettingsError(f"{where} = {value!r}: expected true or false")
        return value
    if isinstance(action, argparse._AppendAction):
        items = value if isinstance(value, list) else [value]
        return [_one(action, v, where) for v in items]
    return _one(action, value, where)


def _one(action, value, where):
    if isinstance(value, (bool, dict, list)) or not isinstance(value, (str, int, float)):
        raise SettingsError(f"{where} = {value!r}: expected {action.metavar or 'a value'} (a string or a number)")
    try:
        converted = action.type(str(value)) if action.type else str(value)
    except (argparse.ArgumentTypeError, ValueError) as exc:
        raise SettingsError(f"{where} = {value!r}: {exc}") from None
    if action.choices is not None and converted not in action.choices:
        raise SettingsError(f"{where} = {value!r}: expected one of {', '.join(map(str, action.choices))}")
    return converted


def notebooks(values, path, known):
    """{notebook id: {key: value}} from the [notebooks] table, every id a notebook of the course (`known`) and
    every key one of NOTEBOOK_KEYS."""
    out = {}
    for stem, table in values.items():
        if stem not in known:
            raise SettingsError(f"{path}: [notebooks.{stem}]: {stem!r} is not a notebook of the course; the notebooks "
                                f"are: {', '.join(sorted(known))}")
        if not isinstance(table, dict):
            raise SettingsError(f"{path}: notebooks.{stem} must be a table ([notebooks.{stem}]), got {table!r}")
        wrong = sorted(set(table) - set(NOTEBOOK_KEYS))
        if wrong:
            raise SettingsError(f"{path}: [notebooks.{stem}] {', '.join(wrong)}: not a key of a notebook's settings; "
                                f"the keys there are: {', '.join(NOTEBOOK_KEYS)}")
        bad = {k: v for k, v in table.items() if k != "due" and not isinstance(v, str)}
        if "due" in table:
            from .grading.late import PolicyError, due_time
            try:
                due_time(table["due"], f"{path}: [notebooks.{stem}] due")
            except PolicyError as exc:
                raise SettingsError(str(exc)) from None
        if bad:
            raise SettingsError(f"{path}: [notebooks.{stem}] {', '.join(f'{k} = {v!r}' for k, v in bad.items())}: "
                                f"expected a string, e.g. canvas_assignment = \"DeLaN 02 (4567)\"")
        out[stem] = dict(table)
    return out
