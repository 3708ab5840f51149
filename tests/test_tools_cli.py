"""The teachers' command as a teacher meets it: `lesson-tools VERB` (installed by the package), each verb's help,
the course's settings file under the command line, Ctrl-C, and grade's preview (--dry-run, --roster, --notebook),
none of which starts a kernel.  Grading that survives Ctrl-C is tests/test_grading_resume.py."""
import argparse
import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import nbformat
import pytest
from lms_downloads import canvas_name, write_tree

from lesson_tools import cli
from lesson_tools.build import NOTEBOOKS, ROOT, SOLUTIONS
from lesson_tools.grading import command, grader
from lesson_tools.settings import SettingsError

M04, M05 = "04_feedback", "05_retrieve_and_space"


def lesson_tools(*args, cwd=ROOT, env=None):
    """The installed command, from the virtualenv the tests run in."""
    exe = Path(sys.executable).parent / "lesson-tools"
    return subprocess.run([str(exe), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env=env)


# ---------------------------------------------------------------------- one command, every verb described
def test_the_package_installs_one_command_with_a_version():
    out = lesson_tools("--version")
    assert out.returncode == 0 and out.stdout.startswith(f"lesson-tools {version('learn-the-structure')}"), out
    listed = lesson_tools("--help")
    assert listed.returncode == 0 and set(re.findall(r"^  (\w+)  ", listed.stdout, re.M)) == set(cli.VERBS)
    assert "exit codes: 0 " in listed.stdout
    assert not (ROOT / "lesson_tools" / "grade.py").exists(), "a second spelling of grade"
    wrong = lesson_tools("buidl")
    assert wrong.returncode == 2
    assert "'buidl' is not a verb of lesson-tools; the verbs are: build, check" in wrong.stderr


WITHOUT_THE_TOOLS = r"""
import importlib.abc, sys
from importlib.metadata import requires
from packaging.requirements import Requirement
tools = [Requirement(r) for r in requires("learn-the-structure") if "extra == \"tools\"" in r]
blocked = {r.name.lower().replace("-", "_") for r in tools if r.name != "learn-the-structure"}


class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0].lower() in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


sys.meta_path.insert(0, NotInstalled())
from lesson_tools import cli
print(sorted(blocked), [cli.main([verb, "--help"]) for verb in cli.VERBS])
"""


def test_every_verb_without_the_tools_packages_names_the_install_to_run():
    """An install without the extra `tools` (its packages made unimportable, as the metadata lists them): every
    verb, --help too, says which package it lacks and the install that brings it, exit 1, no traceback."""
    r = subprocess.run([sys.executable, "-c", WITHOUT_THE_TOOLS], capture_output=True, text=True, timeout=120)
    blocked, codes = r.stdout.strip().rsplit("] ", 1)
    assert "nbconvert" in blocked and codes == str([1] * len(cli.VERBS)), r.stdout + r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == len(cli.VERBS) and "Traceback" not in r.stderr, r.stderr
    for verb, line in zip(cli.VERBS, lines, strict=True):
        assert line.startswith(f"error: lesson-tools {verb} needs the package '"), line
        assert "pip install -r requirements.txt -e ." in line and 'pip install "learn-the-structure[tools]"' in line


@pytest.mark.parametrize("verb", list(cli.VERBS))
def test_each_verbs_help_describes_it_names_units_and_exit_codes(verb, capsys):
    where, _, _ = cli.VERBS[verb]
    module, function = where.rsplit(".", 1)
    main = getattr(__import__(f"lesson_tools.{module}", fromlist=[function]), function)
    with pytest.raises(SystemExit) as exit_:
        main(["--help"], prog=f"lesson-tools {verb}")
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    usage, description = out.split("\n\n")[:2]
    assert usage.startswith(f"usage: lesson-tools {verb}")
    assert not description.startswith(("positional arguments", "options")) and len(description) > 30, out
    assert re.search(r"\bexit codes: 0 .*; 2 a usage error; 130 interrupted", " ".join(out.split())), out
    # an option's value is named for what it is (SECONDS, MB, FILE, ...), never argparse's echo of the option
    defaults = [m for m in re.findall(r"--([a-z-]+) ([A-Z_]+)\b", usage) if m[1] == m[0].upper().replace("-", "_")]
    assert not defaults, defaults


def test_grade_help_works_where_sched_getaffinity_is_missing(monkeypatch, capsys):
    """macOS has no os.sched_getaffinity: the default number of workers is then every core."""
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    assert grader.available_cores() == (os.cpu_count() or 1)
    assert command.parser().get_default("workers") == (os.cpu_count() or 1)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["grade", "--help"])
    assert exit_.value.code == 0 and "--workers N" in capsys.readouterr().out


@pytest.mark.parametrize("verb", list(cli.VERBS))
def test_ctrl_c_in_any_verb_exits_130_and_says_what_was_kept(verb, monkeypatch, capsys):
    where, _, kept = cli.VERBS[verb]
    module, function = where.rsplit(".", 1)
    target = __import__(f"lesson_tools.{module}", fromlist=[function])

    def interrupted(argv, prog):
        raise KeyboardInterrupt
    monkeypatch.setattr(target, function, interrupted)
    assert cli.main([verb]) == 130
    assert capsys.readouterr().err.strip() == f"interrupted: {kept}"


# ---------------------------------------------------------------------- a course's settings in one file
def settings(folder, text, name="lesson_tools.toml"):
    (folder / name).write_text(text, encoding="utf-8")
    return folder / name


def test_settings_set_options_and_the_command_line_wins(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings(tmp_path, '[grade]\ntimeout = 12\nmemory-mb = 3000\nout = "marks/gradebook.csv"\ndry_run = true\n'
                       'notebook = "04_feedback"\n')
    args = command.parse(["downloads", "--timeout", "7"])
    assert (args.timeout, args.memory_mb, args.dry_run, args.notebook) == (7.0, 3000, True, ["04_feedback"])
    assert Path(args.out) == tmp_path / "marks" / "gradebook.csv"            # read from the settings' folder
    assert command.parse(["downloads"]).timeout == 12.0


def test_settings_in_pyproject_or_given_by_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings(tmp_path, '[project]\nname = "x"\n\n[tool.lesson_tools.grade]\nworkers = 3\n', "pyproject.toml")
    assert command.parse(["d"]).workers == 3
    other = tmp_path / "elsewhere"
    other.mkdir()
    settings(other, "[grade]\nworkers = 5\n")
    assert command.parse(["d", "--settings", str(other / "lesson_tools.toml")]).workers == 5
    settings(tmp_path, "[grade]\nworkers = 4\n")                             # lesson_tools.toml comes first
    assert command.parse(["d"]).workers == 4


@pytest.mark.parametrize("text, says", [
    ("[grade]\ntimout = 3\n", r"\[grade\] timout is not an option of lesson-tools grade; the keys there are: .*"
                               r"\btimeout\b"),
    ("[grades]\ntimeout = 3\n", r"grades is not a table of lesson-tools' settings; the tables are: grade, points, "
                                r"notebooks"),
    ("[grade]\nmemory_mb = \"lots\"\n", r"\[grade\] memory_mb = 'lots': expected a positive number, got 'lots'"),
    ("[grade]\ncount = \"worst\"\n", r"\[grade\] count = 'worst': expected one of best, latest"),
    ("[grade]\nlate_penalty = \"lots\"\n", r"\[grade\] late_penalty = 'lots': expected a share off late work"),
    ("[grade]\nquiet = \"yes\"\n", r"\[grade\] quiet = 'yes': expected true or false"),
    ("[grade]\nsettings = \"x.toml\"\n", r"settings is not an option"),
    ("[grade\n", r"cannot be read as TOML"),
])
def test_a_wrong_setting_is_named_with_what_there_is(tmp_path, monkeypatch, text, says):
    monkeypatch.chdir(tmp_path)
    settings(tmp_path, text)
    with pytest.raises(SettingsError, match=says):
        command.parse(["d"])


def test_the_commands_settings_errors_are_one_line_and_exit_2(tmp_path):
    settings(tmp_path, "[grade]\ntimout = 3\n")
    out = lesson_tools("grade", "d", cwd=tmp_path)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "timout is not an option" in out.stderr


def test_settings_points_and_notebooks_tables_are_checked_against_the_course(tmp_path):
    from lesson_course.checks import REGISTRY
    from lesson_tools.grading import points
    from lesson_tools.settings import notebooks
    name = next(iter(REGISTRY))
    assert points.load(None, {name: 5}, tmp_path / "s.toml")[name] == 5
    with pytest.raises(points.UsageError, match=r"s.toml: \[points\]: nope is not a check of the course"):
        points.load(None, {"nope": 1}, tmp_path / "s.toml")
    with pytest.raises(SettingsError, match=r"\[notebooks.99_x\]: '99_x' is not a notebook of the course"):
        notebooks({"99_x": {}}, "s.toml", {M04: ""})
    with pytest.raises(SettingsError, match=r"canvas_column: not a key of a notebook's settings; the keys there are: "
                                            r"canvas_assignment"):
        notebooks({M04: {"canvas_column": "x"}}, "s.toml", {M04: ""})
    with pytest.raises(SettingsError, match=r"\[notebooks.04_feedback\] due: 'Friday' is not a date"):
        notebooks({M04: {"due": "Friday"}}, "s.toml", {M04: ""})


def test_canvas_columns_come_from_the_option_the_settings_or_the_roster_and_warn_without_an_id(tmp_path):
    from lesson_tools.grading.roster import Roster
    args = argparse.Namespace(canvas_assignment=[f"{M04}=Feedback (11)"],
                              settings={"notebooks": {M05: {"canvas_assignment": "Retrieval (12)"}}})
    roster = Roster("canvas", {}, {"Week 2: 02_model (13)": "13", "Week 3 (14)": "14"})
    known = {M04: "", M05: "", "02_model": "", "03_guided_practice": ""}
    columns, warnings = command.canvas_columns(args, [M04, M05, "02_model", "03_guided_practice"], roster, known)
    assert columns == {M04: "Feedback (11)", M05: "Retrieval (12)", "02_model": "Week 2: 02_model (13)",
                       "03_guided_practice": "03_guided_practice"}
    assert len(warnings) == 1 and "'03_guided_practice' (03_guided_practice) has no assignment id" in warnings[0]
    bare = argparse.Namespace(canvas_assignment=["Feedback (11)"], settings={})
    assert command.canvas_columns(bare, [M04], None, known)[0] == {M04: "Feedback (11)"}
    with pytest.raises(command.UsageError, match="2 notebooks were graded"):
        command.canvas_columns(bare, [M04, M05], None, known)


# ---------------------------------------------------------------------- preview: who is who, nothing graded
def teacher(stem):
    return nbformat.read(str(SOLUTIONS / f"{stem}.ipynb"), as_version=4)


@pytest.fixture
def download(tmp_path):
    """A Canvas download of 04 and 05 and a stray file, and Canvas's exported gradebook of four people."""
    dl = write_tree(tmp_path / "dl", {
        canvas_name("smithjane", 12345, 900, f"{M04}.ipynb"): teacher(M04),
        canvas_name("doejohn", 23456, 901, f"{M05}.ipynb", late=True): nbformat.read(
            str(NOTEBOOKS / f"{M05}.ipynb"), as_version=4),
        canvas_name("doejohn", 23456, 902, "notes.txt"): b"my notes",
        canvas_name("roguerita", 99999, 903, f"{M04}.ipynb"): teacher(M04)})
    roster = tmp_path / "roster.csv"
    roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section,Feedback (11)\n    Points Possible,,,,,3\n"
                      "\"Smith, Jane\",12345,S1,js,A,\n\"Doe, John\",23456,S2,jd,A,\n\"Kim, Ji-soo\",34567,S3,jk,B,\n",
                      encoding="utf-8")
    return dl, roster


def test_dry_run_lists_who_is_who_and_grades_nothing(download, tmp_path):
    dl, roster = download
    cache = tmp_path / "cache"
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    before = sorted(p.name for p in tmp_path.iterdir())
    out = lesson_tools("grade", dl, "--dry-run", "--roster", roster, "--out", tmp_path / "gb.csv", env=env)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[lines.index("doejohn (canvas 23456)") + 1:][:2] == [
        f"  dl/{canvas_name('doejohn', 23456, 902, 'notes.txt')}: not graded: not a notebook: not valid JSON "
        f"(Expecting value at line 1)",
        f"  dl/{canvas_name('doejohn', 23456, 901, f'{M05}.ipynb', late=True)}: {M05} (matched by metadata); late "
        f"(marked only: no --late-penalty)"]
    assert f"  dl/{canvas_name('roguerita', 99999, 903, f'{M04}.ipynb')}: {M04} (matched by metadata)  [note: not on " \
           f"the roster (--roster, canvas's)]" in lines
    assert "on the roster with nothing in the download (1): Kim, Ji-soo (34567)" in lines
    assert lines[-1] == "3 people, 3 files to grade, 1 not gradable; nothing graded (--dry-run)"
    assert sorted(p.name for p in tmp_path.iterdir()) == before, "a dry run wrote a file"


def test_notebook_grades_one_notebook_of_a_download(download):
    dl, _ = download
    out = lesson_tools("grade", dl, "--dry-run", "--notebook", M05)
    assert out.returncode == 0, out.stderr
    assert M04 not in out.stdout.replace(f"{M04}.ipynb", "")                     # no file of 04 is listed
    assert "left out: 2 files of other notebooks (--notebook 05_retrieve_and_space)" in out.stdout
    assert out.stdout.splitlines()[-1] == "1 people, 1 file to grade, 1 not gradable; nothing graded (--dry-run)"


def test_roster_rows_give_everyone_listed_a_zero(download):
    from lesson_tools.grading import course_notebooks, export, gradebook
    from lesson_tools.grading import roster as rosters
    dl, roster_file = download
    roster = rosters.read(roster_file)
    subs = grader.collect([dl], course_notebooks.load())
    rows = grader.roster_rows(roster, subs, [M04])
    assert [(r["student"], r["student_id"], r["notebook"], r["verdict"], r["detail"]) for r in rows] == [
        ("Kim, Ji-soo", "34567", M04, gradebook.NOT_GRADED, "nothing handed in")]
    scored = gradebook.score(rows, {}, "best")
    people = gradebook.totals(scored)
    assert export.points_comment(people["canvas:34567"]) == "nothing could be graded: nothing handed in"
