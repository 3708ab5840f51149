"""Notebook 07's visuals without a browser: the writing desk (type, write, play, switch controller and speed, bad
input), checked against closed-form kinematics of the arm; the three figures against closed-form gravity and
kinematics."""
import html

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from lesson_course.ui import writing
from lesson_course.ui.writing import MAX_WORD, WritingDesk
from lesson_lib import BlackBox, DeLaN, double_pendulum
from lesson_lib.control import PD, ComputedTorque, track
from lesson_lib.data import write_letters, write_word
from lesson_lib.data.letters import SPEED

matplotlib.use("Agg")
chain = double_pendulum()
L1, L2 = chain.l


def closed_form_points(q):
    """Shoulder, elbow and pen of the 2-link arm, q (T, 2) -> (T, 3, 2): x = sum l sin(angle), y = -sum l cos."""
    q0, q01 = q[:, 0], q[:, 0] + q[:, 1]
    elbow = np.stack([L1 * np.sin(q0), -L1 * np.cos(q0)], axis=-1)
    pen = elbow + np.stack([L2 * np.sin(q01), -L2 * np.cos(q01)], axis=-1)
    return np.stack([np.zeros_like(elbow), elbow, pen], axis=1)


def closed_form_gravity(q):
    """g(q) of the default double pendulum from V = -g (m1 lc1 + m2 l1) cos q0 - g m2 lc2 cos(q0 + q1)."""
    (m1, m2), (lc1, lc2), g = chain.m, chain.lc, chain.g
    s0, s01 = np.sin(q[:, 0]), np.sin(q[:, 0] + q[:, 1])
    return np.stack([g * (m1 * lc1 + m2 * L1) * s0 + g * m2 * lc2 * s01, g * m2 * lc2 * s01], axis=-1)


class Counting:
    """A controller that counts its calls (one per tick and RK4 stage it is asked for)."""

    def __init__(self, controller):
        self.controller, self.calls = controller, 0

    def __call__(self, *args):
        self.calls += 1
        return self.controller(*args)


@pytest.fixture(scope="module")
def desk():
    controllers = {"true model": Counting(ComputedTorque(chain)), "PD alone": Counting(PD()),
                   "nan": lambda q, *ref: np.full_like(q, np.nan),
                   "broken": lambda q, *ref: 1 / 0}
    return WritingDesk(controllers, word="o")


def numbers(html, cls):
    """The number inside <b class='cls'>...</b> of the readout."""
    return float(html.split(f"class='{cls}'>")[1].split("<")[0])


@pytest.mark.parametrize("name, controller", [("true model", ComputedTorque(chain)), ("PD alone", PD())])
def test_the_arm_and_the_error_shown_are_the_true_arms_under_the_controller(desk, name, controller):
    desk.controller.value = name
    expected = track(controller, write_word("o", chain), chain)                # the same simulation, done again
    points, points_d = closed_form_points(expected["q"][:, 0]), closed_form_points(expected["q_d"][:, 0])
    error_mm = 1e3 * np.linalg.norm(points[:, 2] - points_d[:, 2], axis=-1)
    for frame in (0, 7, 23, desk.frame.max):
        desk.frame.value = frame
        k = desk.shown.frames[frame]
        np.testing.assert_allclose(np.stack(desk._arm.get_data(), axis=-1), points[k], atol=1e-12)
        assert numbers(desk.readout.value, "writing-error-now") == pytest.approx(error_mm[k], abs=0.006)
        assert numbers(desk.readout.value, "writing-t") == pytest.approx(k * 0.01, abs=0.006)
    assert desk.shown.frames[-1] == len(expected["t"]) - 1                      # the animation ends at the end
    assert desk.frame.max == len(desk.shown.frames) - 1
    rms = np.sqrt(np.mean(error_mm**2))
    assert numbers(desk.readout.value, "writing-rms") == pytest.approx(rms, abs=0.006)
    desk.controller.value = "true model"


def test_the_pen_trace_grows_with_the_frames_and_shows_only_drawn_strokes(desk):
    desk.frame.value = 10
    assert len(desk._trace[1].get_xdata()) == desk.shown.frames[10] + 1
    desk.frame.value = desk.frame.max
    x, _ = desk._trace[1].get_data()
    k = desk.shown.frames[-1]
    assert len(x) == k + 1
    pen_down = desk.shown.pen_down[:k + 1]
    assert np.all(np.isnan(x) == ~pen_down) and pen_down.any() and not pen_down.all()   # "o": two contours


def test_frames_only_redraw_the_image_without_simulating_again(desk):
    calls = desk.controllers["true model"].calls
    figures = plt.get_fignums()
    images = set()
    for frame in (3, 4, 20, 4):
        desk.frame.value = frame
        images.add(desk.plot.value)
    assert desk.controllers["true model"].calls == calls
    assert len(images) == 3 and desk.plot.value[:8] == b"\x89PNG\r\n\x1a\n"
    assert plt.get_fignums() == figures                          # nothing piles up


def test_switching_controller_keeps_the_moment_and_simulates_each_once(desk):
    desk.frame.value = 12
    true_error = numbers(desk.readout.value, "writing-rms")
    desk.controller.value = "PD alone"
    assert desk.shown.name == "PD alone" and desk.frame.value == 12
    assert numbers(desk.readout.value, "writing-rms") > 10 * true_error       # PD alone sags and lags
    calls = {name: desk.controllers[name].calls for name in ("true model", "PD alone")}
    desk.controller.value = "true model"
    desk.controller.value = "PD alone"
    assert {name: desk.controllers[name].calls for name in calls} == calls     # replayed from memory
    assert "controller='PD alone'" in desk._repr_mimebundle_()["text/plain"]
    desk.controller.value = "true model"


def test_twice_the_speed_writes_the_same_word_in_about_half_the_time(desk):
    slow = desk.shown
    desk.speed.value = 2.0
    fast = desk.shown
    assert fast.speed == 2.0 and fast.word == slow.word
    reference = write_word("o", chain, speed=2 * SPEED)
    assert fast.t[-1] == pytest.approx(np.ceil(reference.duration / 0.01) * 0.01)
    assert 0.4 < fast.t[-1] / slow.t[-1] < 0.6
    assert f"{2 * SPEED:.2g} m/s" in desk._ax_arm.get_title()
    desk.speed.value = 1.0


def test_typing_a_word_writes_it_and_starts_the_animation(desk):
    desk.word.value = "ci"                                        # Enter in the text field
    assert desk.shown.word == "ci" and desk.message.value == ""
    assert desk.play.playing and desk.play.max == desk.frame.max == len(desk.shown.frames) - 1
    assert desk.frame.value == 0 and not desk.write_button.disabled
    assert "“ci”" in desk._ax_word.get_title()
    desk.play.playing = False
    desk.word.value = "o"
    desk.write_button.click()                                     # the same word again: replayed
    assert desk.shown.word == "o" and desk.play.playing


@pytest.mark.parametrize("word, words", [("", "Type a word first"), ("   ", "Type a word first"),
                                         ("x" * (MAX_WORD + 1), f"at most {MAX_WORD}"),
                                         (42, "must be text")])
def test_bad_words_show_a_message_and_keep_the_last_good_word(desk, word, words):
    before = (desk.shown, desk.plot.value, desk.readout.value)
    assert desk.write(word=word) is False
    assert words in desk.message.value and "writing-error" in desk.message.value
    assert (desk.shown, desk.plot.value, desk.readout.value) == before
    desk.write(word="o")
    assert desk.message.value == ""


@pytest.mark.parametrize("arguments", [{"controller": "nope"}, {"speed": 3.0}], ids=["controller", "speed"])
def test_a_controller_or_speed_the_desk_lacks_is_refused_naming_the_ones_it_has(desk, arguments):
    before = (desk.shown, desk.plot.value)
    assert desk.write(word="o", **arguments) is False
    ((what, got),) = arguments.items()
    valid = list(desk.controllers) if what == "controller" else list(desk.speeds)
    shown = html.unescape(desk.message.value)
    assert f"{what} {got!r} is not one of" in shown and all(repr(v) in shown for v in valid), shown
    assert (desk.shown, desk.plot.value) == before


@pytest.mark.parametrize("name, words", [("nan", "controller returned NaN or inf torques"),
                                         ("broken", "division by zero")])
def test_a_controller_that_fails_is_explained_and_the_toggle_goes_back(desk, name, words):
    before = desk.shown, desk.plot.value
    desk.controller.value = name
    assert f"with {name}: " in desk.message.value and words in desk.message.value
    assert (desk.shown, desk.plot.value) == before and desk.controller.value == before[0].name


def test_a_word_that_takes_too_long_is_refused_before_any_simulation(desk, monkeypatch):
    monkeypatch.setattr(writing, "MAX_SECONDS", 1.0)
    calls, before = desk.controllers["true model"].calls, desk.shown
    assert desk.write(word="ab") is False
    assert "takes" in desk.message.value and "at most 1 s" in desk.message.value
    assert desk.controllers["true model"].calls == calls and desk.shown is before


def test_a_second_write_while_one_runs_is_ignored(desk):
    desk._busy = True
    try:
        assert desk.write(word="ab") is False and desk.shown.word == "o"
    finally:
        desk._busy = False


def test_the_desk_refuses_bad_arguments_with_clear_messages():
    with pytest.raises(TypeError, match="non-empty dict"):
        WritingDesk({})
    with pytest.raises(TypeError, match="non-empty dict"):
        WritingDesk({"PD": "not a controller"})
    with pytest.raises(ValueError, match="controller must be one of"):
        WritingDesk({"PD alone": PD()}, word="o", controller="DeLaN")
    with pytest.raises(ValueError, match="at most"):
        WritingDesk({"PD alone": PD()}, word="a" * (MAX_WORD + 1))
    with pytest.raises(ValueError, match="dt"):
        WritingDesk({"PD alone": PD()}, word="o", dt=0)
    with pytest.raises(TypeError, match="speeds must be a list of numbers"):
        WritingDesk({"PD alone": PD()}, word="o", speeds=2)


# ---------------------------------------------------------------------- the figures
@pytest.fixture(scope="module")
def letters_data():
    return write_letters("bo", chain, seed=1).sample(dt=0.01)


def test_torque_parts_draws_the_true_parts_and_each_model_where_it_has_them(letters_data):
    fig = writing.torque_parts(chain, letters_data, {"DeLaN": DeLaN(seed=0), "black box": BlackBox(seed=0)}, "ob")
    axes = np.array(fig.axes).reshape(len(writing.PARTS), 2)
    rows = np.concatenate([np.flatnonzero(letters_data["label"] == c) for c in "ob"])
    q = letters_data["q"][rows]
    for j in range(2):
        t, g_line = axes[-1, j].lines[0].get_data()
        np.testing.assert_allclose(g_line, closed_form_gravity(q)[:, j], atol=1e-9)
        assert np.all(np.diff(t) > 0)                              # the letters laid end to end
        np.testing.assert_allclose(axes[0, j].lines[0].get_ydata(), letters_data["tau"][rows, j])
        dashed = [ln for ln in axes[0, j].lines if ln.get_linestyle() == "--"]
        assert len(dashed) == 2                                    # the DeLaN and the black box in the tau row
        assert len([ln for ln in axes[-1, j].lines if ln.get_linestyle() == "--"]) == 1   # only the DeLaN's g
    plt.close(fig)
    with pytest.raises(ValueError, match="no trajectory writes 'z'"):
        writing.torque_parts(chain, letters_data, {}, "z")


def test_tracking_overview_plots_the_pens_distance_from_where_it_should_be(letters_data):
    reference = write_letters("bo", chain, seed=1)
    results = {"PD alone": track(PD(), reference, chain)}
    fig = writing.tracking_overview(results, letters_data, traj=1)
    r = results["PD alone"]
    active = r["active"][:, 1]
    expected = 1e3 * np.linalg.norm(closed_form_points(r["q"][active, 1])[:, 2]
                                    - closed_form_points(r["q_d"][active, 1])[:, 2], axis=-1)
    np.testing.assert_allclose(fig.axes[0].lines[0].get_ydata(), expected + 1e-3, atol=1e-9)
    assert "'o'" in fig.axes[0].get_title()
    plt.close(fig)
    with pytest.raises(ValueError, match="sampled at the tracking's dt"):
        writing.tracking_overview(results, reference.sample(dt=0.02), traj=1)


def test_letters_overview_shows_every_sample_in_joint_space(letters_data):
    fig = writing.letters_overview(chain, letters_data, letters_data)
    dots = [ln for ln in fig.axes[2].lines if ln.get_marker() == "."]
    assert len(dots) == 2 and all(len(ln.get_xdata()) == len(letters_data["q"]) for ln in dots)
    plt.close(fig)


def test_the_desk_says_how_long_simulating_the_word_took_here(desk):
    """Times depend on the machine, so the desk measures its own and shows it beside the word's numbers."""
    assert "simulated on this machine in" in desk.readout.value
    assert 0 < numbers(desk.readout.value, "writing-seconds") == pytest.approx(desk.shown.seconds, abs=0.06)
