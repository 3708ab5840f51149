"""Bad input on the surfaces added after the first bad-input tables: letters, inverse kinematics, control, model
files, evaluation of a broken model, and the command lines, one row each.

BAD rows: (id, call, exception type, regex the message must match).  The message names the argument or the
piece at fault (both pieces when two do not fit together), says what is expected, and never comes from inside
numpy or matplotlib.  Where state changes (model files), the model is unchanged after the refusal.
"""
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from bad_input import assert_refused

from lesson_lib import BlackBox, DeLaN, PlanarChain, double_pendulum, facts, lesson_check, sample_uniform, torque_nmse
from lesson_lib.control import PD, ComputedTorque, track
from lesson_lib.data.letters import letters, strokes, write_letters, write_word
from lesson_lib.evaluation import audit, metrics
from lesson_lib.limits import MAX_LETTERS, MAX_SAMPLES
from lesson_lib.physics.inverse_kinematics import joint_motion
from lesson_lib.validate import LimitExceeded

chain = double_pendulum()
three = PlanarChain(m=[1.0] * 3, l=[1.0] * 3, lc=[0.5] * 3, I=[0.1] * 3)
data = sample_uniform(chain, 50, seed=1)
REF = write_letters("a")
WRITTEN = letters("ab", dt=0.05)


def big_blackbox():
    """A black box with softplus hidden units and weights a million times its initial ones: unbounded and steep,
    so states far too large overflow its torque (isru and tanh saturate instead)."""
    box = BlackBox(activation="softplus")
    box.set_params(box.get_params() * 1e6)
    return box


def without_warnings(call):
    """call() with numpy's warnings turned into errors: an overflow is the library's message, not a warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return call()


class Broken:
    """A model whose outputs are wrong in shape or value."""
    n_dof = 2

    def __init__(self, shape=None, value=np.nan):
        self.shape, self.value = shape, value

    def mass_matrix(self, q):
        return np.full(self.shape or (*np.shape(q)[:-1], 2, 2), self.value)

    def inverse_dynamics(self, q, qd, qdd):
        return np.full(self.shape or np.shape(q), self.value)


BAD = [
    # --------------------------------------------------------------- letters: sizes and characters
    ("word too long", lambda: write_word("a" * (MAX_LETTERS + 1)), LimitExceeded,
     rf"word has {MAX_LETTERS + 1:,} characters, above the limit of {MAX_LETTERS}"),
    ("letters too many", lambda: write_letters("ab" * MAX_LETTERS), LimitExceeded, r"chars has .* above the limit"),
    ("sample dt tiny", lambda: REF.sample(dt=1e-7), LimitExceeded,
     rf"sample\(dt=1e-07\) asks for [\d,]+, above the limit of {MAX_SAMPLES:,}.*larger dt"),
    ("pen very slow", lambda: write_letters("a", speed=1e-6).sample(), LimitExceeded, r"larger dt.*faster pen"),
    ("zero-width space", lambda: write_word("a\u200bb"), ValueError, r"U\+200B.*position 1.*not a printable"),
    ("newline", lambda: write_word("a\nb"), ValueError, r"U\+000A.*not a printable"),
    ("tab in letters", lambda: write_letters("a\tb"), ValueError, r"U\+0009"),
    ("not in the font", lambda: write_word("中"), ValueError, r"U\+4E2D.*not among the characters the arm writes"),
    ("control char", lambda: write_letters("\x07"), ValueError, r"U\+0007"),
    ("word not text", lambda: write_word(42), TypeError, r"word must be a string of letters.*42 \(int\)"),
    ("strokes missing traj", lambda: strokes(WRITTEN, traj=5), ValueError,
     r"traj=5 is not a trajectory of these data: they hold trajectories 0 to 1"),
    ("strokes not data", lambda: strokes([1, 2]), TypeError, r"data must be a dict from letters"),
    ("strokes uniform data", lambda: strokes(data), TypeError, r"'traj', 'xy' and 'pen_down'"),
    # --------------------------------------------------------------- inverse kinematics at the edges
    ("stretched out", lambda: joint_motion(chain, [0.0, -2.0], [0.1, 0.0], [0.0, 0.0]), ValueError,
     r"stretched out.*singular.*away from both circles"),
    ("folded at origin", lambda: joint_motion(chain, [0.0, 0.0], [0.1, 0.0], [0.0, 0.0]), ValueError,
     r"folded \(\|xy\| = 0 m\)"),
    ("one of a batch stretched", lambda: joint_motion(chain, [[0.5, -1.0], [0.0, -2.0]], np.zeros((2, 2)),
                                                      np.zeros((2, 2))), ValueError, r"xy has 1 point"),
    # --------------------------------------------------------------- control pieces checked together
    ("gains wrong length", lambda: track(PD(kp=[1.0, 2.0, 3.0]), REF), ValueError,
     r"controller's kp has 3 gains but the chain has 2 joints"),
    ("kd wrong length", lambda: track(PD(kd=[1.0, 2.0, 3.0]), REF), ValueError, r"kd has 3 gains"),
    ("model other joints", lambda: track(ComputedTorque(DeLaN(n_dof=3)), REF), ValueError,
     r"controller's model has 3 joints but the chain has 2.*DeLaN\(n_dof=2\)"),
    ("gains vs model", lambda: ComputedTorque(DeLaN(), kp=[1.0, 2.0, 3.0]), ValueError,
     r"kp has 3 gains but the model has 2 joints"),
    ("reference other joints", lambda: track(PD(), REF, chain=three, tau_max=None), ValueError,
     r"reference\(0\) returned q_d, qd_d, qdd_d of shapes \[\(1, 2\).*chain has 3 joints"),
    ("default tau_max, 3 joints", lambda: track(PD(), lambda t: (np.zeros(3),) * 3, chain=three, duration=0.05),
     ValueError, r"default torque limits .* are for the 2-joint arm.*3 joints: pass tau_max"),
    ("tau_max wrong length", lambda: track(PD(), REF, tau_max=[1.0, 2.0, 3.0]), ValueError,
     r"tau_max has 3 limits but the chain has 2 joints"),
    ("controller not callable", lambda: track(42, REF), TypeError, r"controller must be a function"),
    ("reference not callable", lambda: track(PD(), "abc", duration=1.0), TypeError, r"reference must be a function"),
    ("controller 3 torques", lambda: track(lambda *a: np.zeros((1, 3)), REF), ValueError,
     r"controller returned torques of shape \(1, 3\).*\(1, 2\)"),
    ("controller NaN", lambda: track(lambda *a: np.full((1, 2), np.nan), REF), ValueError,
     r"controller returned NaN or inf torques"),
    ("reference NaN", lambda: track(PD(), lambda t: (np.full(2, np.nan),) * 3, duration=1.0), ValueError,
     r"reference\(0\) returned NaN or inf"),
    ("reference two arrays", lambda: track(PD(), lambda t: (np.zeros(2), np.zeros(2)), duration=1.0), ValueError,
     r"reference\(0\) returned .*returns \(q_d, qd_d, qdd_d\)"),
    ("chain not a chain", lambda: track(PD(), REF, chain="arm"), TypeError, r"chain must be a PlanarChain"),
    # --------------------------------------------------------------- model settings and overflow
    ("eps huge", lambda: DeLaN(eps=1e6), ValueError, r"eps must be > 0 and <= 1, got 1e\+06.*drown the inertia"),
    ("eps zero", lambda: DeLaN(eps=0.0), ValueError, r"eps must be > 0"),
    ("mass_units all", lambda: DeLaN(mass_units=facts.HIDDEN[-1]), ValueError,
     rf"mass_units must be between 0 and {facts.HIDDEN[-1] - 1}, got {facts.HIDDEN[-1]}.*units that L reads"),
    ("mass_units text", lambda: DeLaN(mass_units="6"), TypeError, r"mass_units must be a whole number, got '6'"),
    ("potential_scale huge", lambda: DeLaN(potential_scale=1e300), ValueError,
     r"potential_scale must be >= 0.001 and <= 10000"),
    ("potential_scale tiny", lambda: DeLaN(potential_scale=1e-300), ValueError, r"potential_scale must be >= 0.001"),
    ("DeLaN qd overflow", lambda: DeLaN().inverse_dynamics([0, 0], [1e200, 0], [0, 0]), ValueError,
     r"torque overflowed to inf or NaN for these inputs \(\|q\| up to 0, \|qd\| up to 1e\+200, \|qdd\| up to 0\)"),
    ("BlackBox torque overflow", lambda: without_warnings(lambda: big_blackbox().inverse_dynamics([0, 0], [1e300, 0],
                                                                                                [0, 0])),
     ValueError, r"^the model's torque overflowed to inf or NaN for these inputs \(\|q\| up to 0, \|qd\| up to "
                 r"1e\+300, \|qdd\| up to 0\)"),
    ("DeLaN coriolis overflow", lambda: DeLaN().coriolis([0, 0], [1e200, 1e200]), ValueError, r"overflowed"),
    ("DeLaN forward overflow", lambda: DeLaN().forward_dynamics([0, 0], [1e200, 0], [0, 0]), ValueError,
     r"acceleration overflowed to inf or NaN for these inputs \(\|q\| up to 0, \|qd\| up to 1e\+200, \|tau\| up "
     r"to 0\)"),
    ("training_batch not data", lambda: DeLaN().training_batch([1, 2]), TypeError, r"data must be a dict of arrays"),
    ("training_batch 3 joints", lambda: DeLaN().training_batch(sample_uniform(three, 5, seed=0)), ValueError,
     r"data\['q'\] has shape \(5, 3\), expected \(2,\) for one state or \(B, 2\)"),
    # --------------------------------------------------------------- evaluation of a broken model
    ("lesson_check wrong size", lambda: lesson_check(Broken(shape=(1681, 3, 3)), chain), ValueError,
     r"model.mass_matrix\(q\) returned shape \(1681, 3, 3\), expected \(1681, 2, 2\)"),
    ("lesson_check NaN", lambda: lesson_check(Broken(), chain), ValueError,
     r"model.mass_matrix\(q\) returned NaN or inf"),
    ("min_eigenvalue NaN", lambda: metrics.min_eigenvalue(Broken()), ValueError, r"returned NaN or inf"),
    ("torque_nmse NaN", lambda: torque_nmse(Broken(), data), ValueError,
     r"model.inverse_dynamics\(q, qd, qdd\) returned NaN or inf"),
    ("audit wrong size", lambda: audit.audit(Broken(shape=(2000, 3, 3))), ValueError, r"expected \(2000, 2, 2\)"),
    ("mass_matrix_error NaN", lambda: metrics.mass_matrix_error(Broken(), chain, [0.1, 0.2]), ValueError,
     r"NaN or inf"),
]

@pytest.mark.parametrize("call, error, pattern", [row[1:] for row in BAD], ids=[row[0] for row in BAD])
def test_bad_input_is_refused_with_a_clear_message(call, error, pattern):
    assert_refused(call, error, pattern)


def test_writing_stays_correct_at_the_edges_of_what_is_allowed():
    """The longest word allowed is refused by the line's reach, not by the limit: it writes smaller; spaces and
    digits are letters the font draws; the allowed dt gives the samples it promises."""
    assert write_word("hello world 42").labels == ["hello world 42"]
    sampled = REF.sample(dt=0.05)
    assert len(sampled["t"]) == int(np.ceil(REF.durations[0] / 0.05 - 1e-9)) + 1
    assert len(strokes(WRITTEN, traj=1)) >= 1


def test_two_processes_saving_to_one_path_do_not_collide(tmp_path):
    """Each saver writes its own temporary file: eight processes at once all succeed and leave one whole file."""
    code = ("import sys; from lesson_lib import DeLaN; m = DeLaN(seed=int(sys.argv[1]))\n"
            "for _ in range(5): m.save(sys.argv[2])\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(i), str(tmp_path / "shared")], stderr=subprocess.PIPE,
                              text=True) for i in range(8)]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert all(p.returncode == 0 for p in procs), errors
    assert sorted(os.listdir(tmp_path)) == ["shared.npz"]
    DeLaN().load(tmp_path / "shared.npz")


@pytest.mark.parametrize("model, scales", [
    (DeLaN(seed=0), f"eps={facts.EPS:g}, potential_scale={facts.POTENTIAL_SCALE:g}"),
    (BlackBox(seed=0), "the torque scale comes from the data")])
def test_training_that_cannot_start_names_the_scales_too(model, scales):
    model.set_params(np.full(model.get_params().shape, 1e30))
    with pytest.raises(Exception, match=r"weights \(e.g. from set_params\) are too large for these data, or the "
                                        r"model's scales are \(" + re.escape(scales) + r"\); model\.reset\(\)"):
        model.fit(data, steps=2)


# ---------------------------------------------------------------------- command lines: checked before any work
ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "04_feedback.ipynb"


def grade(*args, cwd):
    return subprocess.run([sys.executable, "-m", "lesson_tools", "grade", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("args, pattern", [
    (lambda t: [NOTEBOOK, "--out", t / "g.xlsx"], r"CSV \(\.csv\) or JSON \(\.json\), not \.xlsx"),
    (lambda t: [NOTEBOOK, "--out", t], r"not a file without an extension|is a folder"),
    (lambda t: [NOTEBOOK, "--out", t / "notes.txt" / "g.csv"], r"notes.txt is a file, not a folder, so .* cannot be "
                                                               r"made"),
    (lambda t: [NOTEBOOK, "--memory-mb", "1"], r"--memory-mb 1 is too little.*at least 1024"),
    (lambda t: [t / "empty"], r"no files found under"),
    (lambda t: [t / "nothing-here"], r"does not exist"),
    (lambda t: [NOTEBOOK, "--canvas", t / "c.xlsx"], r"--canvas .*c.xlsx: Canvas's import is written as CSV \(\.csv\), "
                                                      r"not \.xlsx; e.g. --canvas canvas.csv"),
    (lambda t: [NOTEBOOK, "--moodle", t / "notes.txt" / "m.csv"], r"--moodle .*: .*notes.txt is a file, not a folder"),
    (lambda t: [NOTEBOOK, "--points", t / "nope.toml"], r"--points .*nope.toml: cannot read it"),
    (lambda t: [NOTEBOOK, "--points", t / "notes.txt"], r"--points .*notes.txt is not valid TOML"),
    (lambda t: [NOTEBOOK, "--pattern", "(?P<name>x"], r"--pattern '\(\?P<name>x' is not a regular expression"),
    (lambda t: [NOTEBOOK, "--pattern", "(?P<name>x)"], r"needs a named group \(\?P<student_id>\.\.\.\)"),
    (lambda t: [NOTEBOOK, "--feedback", t], r"--feedback .* already holds other files: give a new or empty folder"),
    (lambda t: [NOTEBOOK, "--canvas-assignment", "X (1)"], r"--canvas-assignment names a column of --canvas FILE"),
    (lambda t: [NOTEBOOK, "--roster", t / "notes.txt"], r"--roster .*notes.txt: expected Canvas's exported gradebook"),
    (lambda t: [NOTEBOOK, "--notebook", "99_nope"], r"--notebook 99_nope: not a notebook of the course"),
    (lambda t: [NOTEBOOK, "--settings", t / "nope.toml"], r"--settings .*nope.toml: no such file"),
    (lambda t: [NOTEBOOK, "--due", "02_model"], r"--due '02_model': expected NN_name=WHEN"),
    (lambda t: [NOTEBOOK, "--due", "02_model=Friday"], r"--due '02_model=Friday': 'Friday' is not a date"),
    (lambda t: [NOTEBOOK, "--report", t], r"--report .* already holds other files: give a new or empty folder"),
    (lambda t: [NOTEBOOK, "--report", t / "notes.txt" / "r"], r"--report .*: .*notes.txt is a file, not a folder"),
    (lambda t: [t / "class"], r"the folder 'class' holds the same notebook under several names \(alice, bob\)"),
])
def test_grader_refuses_bad_arguments_in_one_line_before_grading(tmp_path, args, pattern):
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.txt").write_text("not a folder")
    for name in ("alice", "bob"):                                  # a folder of two people's folders, given above it
        (tmp_path / "class" / "class" / name).mkdir(parents=True)
        (tmp_path / "class" / "class" / name / "04_feedback.ipynb").write_bytes(NOTEBOOK.read_bytes())
    before = sorted(p.name for p in tmp_path.iterdir())
    r = grade(*args(tmp_path), cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.count("\n") == 1 and re.search(pattern, r.stderr), r.stderr
    assert "Traceback" not in r.stderr and "[1/" not in r.stderr, "grading started before the arguments were checked"
    assert sorted(p.name for p in tmp_path.iterdir()) == before, "a refused command left files behind"


def test_course_check_without_the_teachers_files_says_so_in_lines(tmp_path, monkeypatch):
    from lesson_tools import build
    monkeypatch.setattr(build, "NOTEBOOKS", tmp_path / "notebooks")
    monkeypatch.setattr(build, "SOLUTIONS", tmp_path / "notebooks" / "solutions")
    monkeypatch.setattr(build, "README", tmp_path / "README.md")
    monkeypatch.setattr(build, "STUBS", tmp_path / "stubs.json")
    problems = build.check()
    assert any("README.md is missing" in p for p in problems) and any("00_start_here.ipynb is missing" in p
                                                                     for p in problems)
    assert any("stubs.json is missing" in p for p in problems)
