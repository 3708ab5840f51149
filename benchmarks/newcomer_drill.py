"""Issue 19's goal, tried, and issue 38's five more: a newcomer makes a kind of change (an activation, a default, a
Bench readout, an exercise, the physics; an optimiser, a hint, a notebook, a gradient for one arm size, a
window), each with the mistake a newcomer makes, and a test must catch it and name it.

Each drill writes the repository's committed files (`git archive HEAD`) into a fresh folder, makes one edit
there, and runs the tests a contributor would run for that part, with the copy's lesson_lib and lesson_tools
first on the path.  A drill passes when those tests fail and the failure's text names what went wrong (the words
listed beside it).  First the same tests run on the unedited copy: they must pass, or a "caught" would mean
nothing.  Two drills also make the change correctly, which the tests must let through (a test that breaks on a
correct change is what the issue complained of).

Run:  python benchmarks/newcomer_drill.py            (about 3 minutes on 2 cores; not in CI)
"""
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SOFTSIGN_FAST = '''def _softsign(z):
    """s = z / (1 + |z|), s' = 1 / (1 + |z|)^2, s''/s' = -2 sign(z) / (1 + |z|)."""
    d = np.abs(z)
    d += 1.0
    s1 = {slope}
    ratio = np.sign(z) * -2.0 / d
    z /= d
    return z, s1, ratio


FAST = {{"softsign": _softsign, '''


def _activation(slope):
    """A softsign in both tables: its reference s(z) in definition.py, its fast s, s', s''/s' in fast.py."""
    return [("lesson_lib/model/definition.py", "ACTIVATIONS = {\n",
             "ACTIVATIONS = {\n    \"softsign\": lambda z: z / (1.0 + np.abs(z)),\n"),
            ("lesson_lib/model/fast.py", "FAST = {", SOFTSIGN_FAST.format(slope=slope))]


# (what the newcomer does, [(file, old text, new text)], tests, words the failure must contain; None: must pass)
DRILLS = [
    ("activation: a new softsign whose fast slope s' is written 1/(1+|z|), not 1/(1+|z|)^2",
     _activation("1.0 / d"), ["tests/test_fast.py"], ["softsign"]),
    ("activation, done right: the same softsign with s' = 1/(1+|z|)^2 (the table's tests pick it up and pass)",
     _activation("1.0 / (d * d)"), ["tests/test_fast.py"], None),
    ("default: DeLaN's hidden layers changed in delan.py instead of lesson_lib/facts.py",
     [("lesson_lib/model/delan.py", "def __init__(self, n_dof=2, hidden=HIDDEN,",
       "def __init__(self, n_dof=2, hidden=(64, 64),")],
     ["tests/test_facts.py", "tests/test_course.py"], ["hidden=(64, 64)", "lesson_lib.facts.HIDDEN"]),
    ("readout: a new Bench panel (the arm's reach) written only when a slider moves, left out of Bench.PANELS",
     [("lesson_course/ui/bench.py", '        self.readout = widgets.HTML().add_class("bench-readout")\n',
       '        self.readout = widgets.HTML().add_class("bench-readout")\n'
       '        self.reach = widgets.HTML().add_class("bench-reach")\n'),
      ("lesson_course/ui/bench.py", "widgets.VBox([self.readout, self.status, self.badge])",
       "widgets.VBox([self.readout, self.reach, self.status, self.badge])"),
      ("lesson_course/ui/bench.py", "    def _on_slider(self, change):\n        self.update_q()\n",
       "    def _on_slider(self, change):\n        self.update_q()\n"
       "        self.reach.value = f\"<div>tip at {float(np.sum(self.chain.l)):.2f} m at most</div>\"\n")],
     ["tests/test_bench.py"], ["reach"]),
    ("exercise: 05's instructions edited in notebooks/solutions/, the learners' notebook not rebuilt",
     [("notebooks/solutions/05_retrieve_and_space.ipynb", "Without scrolling back to any notebook, complete",
       "Without looking at any notebook, complete")],
     ["tests/test_course.py"], ["05_retrieve_and_space", "differs from its teachers' source"]),
    ("physics: the centripetal term of the RNEA's outward pass with its sign flipped (w x (w x r) = +w^2 r)",
     [("lesson_lib/physics/chain.py", "tx = -al * uy[:, i] - w * w * ux[:, i]",
       "tx = -al * uy[:, i] + w * w * ux[:, i]"),
      ("lesson_lib/physics/chain.py", "ty = al * ux[:, i] - w * w * uy[:, i]",
       "ty = al * ux[:, i] + w * w * uy[:, i]")],
     ["tests/test_chain.py"], ["closed_form", "> ", "chain.coriolis(q, qd), c"]),     # the line of c that failed
    ("default, done right: facts.HIDDEN changed to (40,) (the model's tests read the fact, so they pass; only "
     "the stored notebook outputs and the prose's fact markers wait for a rebuild)",
     [("lesson_lib/facts.py", "HIDDEN = (48,)", "HIDDEN = (40,)")],
     ["tests/test_model_file.py", "tests/test_bad_input_model.py", "tests/test_training.py",
      "tests/test_delan.py", "tests/test_adam.py"], None),
    ("optimiser: Adam's second moment without its bias correction (the first step about 32 times too large)",
     [("lesson_lib/model/adam.py", "vhat = self.v / (1 - self.b2 ** self.t)", "vhat = self.v")],
     ["tests/test_adam.py"], ["test_adam_steps_as_its_textbook_says_from_the_first_step_on"]),
    ("hint: a new hint for 00's check that no wrong answer can reach",
     [("lesson_course/checks/nb00_start_here.py", '    "shape": "the total mass is one number',
       '    "negative": "a mass is never negative: check the sign of what you add",\n'
       '    "shape": "the total mass is one number')],
     ["tests/test_checks.py"], ["negative"]),
    ("notebook: a new notebook listed in lesson_tools/catalog.py, with no teachers' source or learner notebook",
     [("lesson_tools/catalog.py", '    Notebook("bench_app", ',
       '    Notebook("09_extra", "Extra", 10, "one more exercise"),\n    Notebook("bench_app", ')],
     ["tests/test_course.py"], ["09_extra", "is missing"]),
    ("gradient: the quadratic form's mixed terms qd_j qd_l (j < l: arms of 2 and 3 joints, none for 1) read off "
     "with j twice",
     [("lesson_lib/model/quadratic.py", "- by_qd[..., jo] - by_qd[..., ko] +", "- by_qd[..., jo] - by_qd[..., jo] +")],
     ["tests/test_quadratic.py", "tests/test_definition.py"], ["definitions_torque[", "-2]"]),
    ("window: the Savitzky-Golay window made even instead of odd (one sample off its centre)",
     [("lesson_lib/data/sensors.py", "window += 1 - window % 2", "window += window % 2")],
     ["tests/test_sensors.py"], ["savgol"]),
]


def copy_of_head(dest):
    """The committed files of HEAD, written into dest."""
    archive = subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=ROOT, capture_output=True,
                             check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def run_tests(folder, tests):
    """pytest on `tests` in `folder`, its own lesson_lib first: (passed, output)."""
    env = {**os.environ, "PYTHONPATH": str(folder), "MPLBACKEND": "Agg"}
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests], cwd=folder,
                       env=env, capture_output=True, text=True)
    return r.returncode == 0, r.stdout + r.stderr


def first_failure(output):
    """The short summary's first FAILED line, or the last lines of the output."""
    lines = [ln for ln in output.splitlines() if ln.startswith(("FAILED", "ERROR"))]
    return lines[0] if lines else " | ".join(output.strip().splitlines()[-3:])


def main():
    tests = sorted({t for _, _, ts, _ in DRILLS for t in ts})
    with tempfile.TemporaryDirectory() as tmp:
        start = time.monotonic()
        ok, out = run_tests(copy_of_head(Path(tmp) / "control"), tests)
        print(f"control, the unedited copy: {'passes' if ok else 'FAILS'} {' '.join(tests)} "
              f"({time.monotonic() - start:.0f} s)")
        if not ok:
            print(first_failure(out))
            return 1
        results = []
        for k, (what, edits, drill_tests, words) in enumerate(DRILLS):
            folder = copy_of_head(Path(tmp) / f"drill{k}")
            for rel, old, new in edits:
                path = folder / rel
                text = path.read_text(encoding="utf-8")
                assert old in text, f"drill {k}: {old!r} is not in {rel} any more: update the drill"
                path.write_text(text.replace(old, new, 1), encoding="utf-8")
            start = time.monotonic()
            ok, out = run_tests(folder, drill_tests)
            line = first_failure(out)
            if words is None:
                verdict = "let through (right)" if ok else "BROKEN by a correct change"
            else:
                named = all(re.search(re.escape(w), out) for w in words)
                verdict = ("caught and named" if not ok and named else "caught, NOT NAMED" if not ok
                           else "MISSED")
            results.append(verdict in ("caught and named", "let through (right)"))
            print(f"\n{what}\n  {' '.join(drill_tests)}: {verdict} ({time.monotonic() - start:.0f} s)")
            if not ok:
                print(f"  {line[:300]}")
    print(f"\n{sum(results)} of {len(results)} drills as they should be")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
