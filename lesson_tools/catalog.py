"""The course's notebooks, one home: id (the file's stem), title, time in minutes and a one-line summary.

Notebook 00's sequence table, README.md's course table and each notebook's "**Time:** about N minutes" line are
written from this list by `lesson-tools build`, between markers (lesson_tools.markers):

    <!--catalog:minutes-->20<!--/catalog-->      this notebook's time
    <!--catalog:sequence-->...<!--/catalog-->    the table of notebooks 01.. with links (in 00)
    <!--catalog:course-->...<!--/catalog-->      the table of every notebook (in README.md)

and `lesson-tools check` fails while any of them disagrees with the list.

Times are for a learner who reads every cell, runs it, and does the exercises: at least the markdown at
150 words a minute plus 5 minutes per exercise (tests/test_course.py holds every notebook to that floor), more
where the notebook asks for play on the Bench, answers from memory (05) or a project (06).
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Notebook:
    id: str                 # file stem: notebooks/<id>.ipynb, teachers' source notebooks/solutions/<id>.ipynb
    title: str
    minutes: int | None     # None: not a lesson (the Bench app)
    summary: str
    later: str = ""         # spaced practice after the first sitting, shown after the time
    app: bool = False       # an app without exercises: the notebook is its own source (no teachers' version)


CATALOG = (
    Notebook("00_start_here", "Start here", 15,
             "goals, prerequisites, how exercises and checks work, a warm-up exercise"),
    Notebook("01_challenge", "Challenge", 20,
             "predict first; a black box and a DeLaN trained on the same torques; the black box's impossible inertia"),
    Notebook("02_model", "Model", 65,
             "the manipulator equation and the RNEA truth, then the DeLaN built piece by piece, down to its whole "
             "loss in plain autograd; four exercises"),
    Notebook("03_guided_practice", "Guided practice", 25,
             "Steps A–D on the Bench: SPD before training, train it live, inspect anywhere, the lesson"),
    Notebook("04_feedback", "Feedback", 15, "the PASS check, with specific hints when it fails"),
    Notebook("05_retrieve_and_space", "Retrieve and space", 30,
             "questions with hidden answers, reaching back to energy, Lagrangians, integrators and the RNEA; "
             "one code exercise; the review panel", later="then when reviews are due"),
    Notebook("06_mastery_and_project", "Mastery and project", 60,
             "generalisation beyond the data, learned rollouts and energy, then your own triple pendulum"),
    Notebook("07_write_with_the_model", "Write with the model", 45,
             "learn from an arm writing letters, test on letters it never saw (M q̈, c and g apart), write the "
             "computed-torque law, compare four controllers, then type a word and watch the arm write it"),
    Notebook("08_learn_from_what_the_robot_records", "Learn from what the robot records", 35,
             "noisy encoder positions and no measured q̈: predict what they do, write the second difference, see "
             "what a DeLaN learns from it, then train it through the Störmer–Verlet integrator"),
    Notebook("bench_app", "The Bench", None, "the Bench alone, for Voilà", app=True),
)

BY_ID = {nb.id: nb for nb in CATALOG}


def duration(nb):
    """A notebook's time as the tables show it: its minutes (and what it leaves for later), or "–"."""
    if nb.minutes is None:
        return "–"
    return f"{nb.minutes} min" + (f", {nb.later}" if nb.later else "")


def sequence_table():
    """Notebook 00's table of the lessons after it, with links."""
    rows = ["| # | Notebook | What happens | Time |", "|---|---|---|---|"]
    rows += [f"| {nb.id[:2]} | [{nb.title}]({nb.id}.ipynb) | {nb.summary} | {duration(nb)} |"
             for nb in CATALOG if nb.minutes is not None and nb.id != CATALOG[0].id]
    return "\n".join(rows)


def course_table():
    """README.md's table of every notebook."""
    rows = ["| notebook | what the learner does | time |", "|---|---|---|"]
    rows += [f"| `{nb.id}` | {nb.summary} | {duration(nb)} |" for nb in CATALOG]
    return "\n".join(rows)


def text(key, where):
    """What the marker <!--catalog:key--> holds in the document `where` (a notebook id, or "README")."""
    if key == "minutes":
        if where not in BY_ID or BY_ID[where].minutes is None:
            raise KeyError(f"{where} has no time in lesson_tools/catalog.py")
        return str(BY_ID[where].minutes)
    if key == "sequence":
        return f"\n\n{sequence_table()}\n\n"
    if key == "course":
        return f"\n\n{course_table()}\n\n"
    raise KeyError(f"unknown catalog marker {key!r} (known: minutes, sequence, course)")
