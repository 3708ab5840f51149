"""Hand-worked cases for the letters and the control room: where letters and words land on the writing line,
the smoothing of a circle by the Fourier low-pass, the strokes of a made-up record, the composition `letters`
promises, and the tracking tables printed from made-up rows."""
import importlib
import re

import numpy as np
import pytest

from lesson_lib import PlanarChain, double_pendulum
from lesson_lib.control import PD, ComputedTorque, compare, print_comparison, track, tracking_errors

L = importlib.import_module("lesson_lib.data.letters")     # the module (lesson_lib.data.letters is also a function)

chain = double_pendulum()
long_arm = PlanarChain(m=[1.0, 1.0], l=[1.3, 1.1], lc=[0.65, 0.55], I=[1.3**2 / 12, 1.1**2 / 12])


def pen_x(hw):
    """The pen's x over every trajectory of a Handwriting, sampled finely."""
    return hw.sample(dt=0.02)["xy"][:, 0]


# ---------------------------------------------------------------------- letters
def test_a_circle_keeps_its_centre_and_length_and_loses_the_gaussian_share_of_its_radius():
    s = np.linspace(0, 2 * np.pi, 2001)
    r, centre, smooth = 0.2, np.array([0.3, -1.1]), 0.1                 # smooth = r / 2
    circle = centre + r * np.stack([np.cos(s), np.sin(s)], axis=1)
    length, a, A, B = L._fourier(circle, smooth)
    assert length == pytest.approx(2 * np.pi * r, rel=1e-5)
    np.testing.assert_allclose(a, centre, atol=1e-9)
    w1 = np.exp(-0.5 * (2 * np.pi * smooth / length) ** 2)               # the Gaussian at the first harmonic
    np.testing.assert_allclose(A[0], [r * w1, 0.0], atol=1e-6)
    np.testing.assert_allclose(B[0], [0.0, r * w1], atol=1e-6)
    assert np.abs(A[1:]).max() < 1e-6 and np.abs(B[1:]).max() < 1e-6


@pytest.mark.parametrize("line", [(-0.95, 0.95), (-0.4, 0.4), (0.1, 0.75)])
def test_each_letter_lands_inside_the_writing_line_at_a_seeded_place(line):
    hw = L.write_letters("amow", seed=3, line=line)
    xs = [pen_x(L.write_letters(ch, seed=3, line=line)) for ch in "amow"]
    for x in xs:
        assert line[0] - 0.01 <= x.min() and x.max() <= line[1] + 0.01       # the smoothing may round a corner
    assert hw.labels == list("amow")


def test_letters_are_placed_all_along_the_line_not_at_its_start():
    lefts = [pen_x(L.write_letters("o", seed=s)).min() for s in range(8)]
    assert np.ptp(lefts) > 0.5 and min(lefts) >= L.LINE[0] - 0.01


def test_spaces_between_letters_are_skipped():
    assert L.write_letters("a c", seed=0).labels == ["a", "c"]


def test_a_letter_wider_than_the_line_is_refused_and_one_that_fits_is_written():
    width = np.ptp(L._contours("m", L.SIZE)[0][:, 0])
    with pytest.raises(ValueError, match=rf"^the letter 'm' is {width:.2f} m wide, wider than the line"):
        L.write_letters("m", line=(0.0, 0.9 * width))
    L.write_letters("m", line=(0.0, 1.05 * width))


def test_a_word_is_centred_on_the_line_and_shrunk_to_its_width():
    line = (-0.3, 0.5)
    x = pen_x(L.write_word("minimum", line=line))
    assert abs(0.5 * (x.min() + x.max()) - 0.1) < 0.02
    assert x.max() - x.min() == pytest.approx(0.8, abs=0.03)


def test_letters_and_words_use_the_arm_they_are_given():
    d = L.letters("o", chain=long_arm, dt=0.05)
    np.testing.assert_allclose(d["tau"], long_arm.rnea(d["q"], d["qd"], d["qdd"]), atol=1e-9)
    np.testing.assert_allclose(long_arm.forward_kinematics(d["q"])[:, -1], d["xy"], atol=1e-9)
    w = L.write_word("on", chain=long_arm)
    assert w.chain is long_arm and L.write_letters("o", chain=long_arm).chain is long_arm


def test_letters_is_write_letters_then_sample_with_the_same_seed():
    got = L.letters("ac", dt=0.05, noise=0.3, seed=4)
    want = L.write_letters("ac", seed=4).sample(0.05, 0.3, 4)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])


def test_sampling_has_no_noise_by_default_and_the_elbow_branch_is_kept():
    d = L.write_letters("a", elbow=-1).sample(dt=0.05)
    np.testing.assert_array_equal(d["tau"], chain.rnea(d["q"], d["qd"], d["qdd"]))
    assert np.all(d["q"][:, 1] < 0)


def test_strokes_of_a_made_up_record():
    xy = np.arange(20.0).reshape(10, 2)
    data = {"traj": np.array([0] * 7 + [1] * 3), "xy": xy,
            "pen_down": np.array([True, True, False, False, True, True, True, False, True, True])}
    first = L.strokes(data)
    assert len(first) == 2
    np.testing.assert_array_equal(first[0], xy[0:2])
    np.testing.assert_array_equal(first[1], xy[4:7])
    (second,) = L.strokes(data, traj=1)
    np.testing.assert_array_equal(second, xy[8:10])
    with pytest.raises(ValueError, match=r"^traj must be >= 0, got -1"):
        L.strokes(data, traj=-1)


def test_handwriting_repr_shows_labels_and_durations_in_seconds():
    hw = L.write_letters("ac", seed=0)
    assert repr(hw) == f"Handwriting(['a', 'c'], durations={[round(float(d), 2) for d in hw.durations]} s)"
    assert hw.durations.min() > 1 and all(len(str(float(d)).split(".")[-1]) > 2 for d in hw.durations)


@pytest.mark.parametrize("call, match", [
    (lambda: L.write_letters(5), r"^chars must be a string of letters, e\.g\. chars=\"abc\", got 5"),
    (lambda: L.write_word(None), r"^word must be a string of letters, e\.g\. word=\"abc\", got None"),
    (lambda: L.write_letters("a").sample(seed=-1), r"^seed must be >= 0, got -1"),
])
def test_letters_arguments_are_named_in_their_messages(call, match):
    with pytest.raises((TypeError, ValueError), match=match):
        call()


# ---------------------------------------------------------------------- control
class Hold:
    """A reference that holds one pose for `duration` seconds."""
    duration = 0.1

    def __call__(self, t):
        return np.array([[0.3, 0.5]]), np.zeros((1, 2)), np.zeros((1, 2))


def test_compare_tracks_with_each_controller_on_the_given_arm_and_options():
    rows = compare({"PD": PD(kp=50.0, kd=5.0), "CT": ComputedTorque(long_arm)}, Hold(), long_arm, dt=0.02,
                   tau_max=None)
    for row, c in zip(rows, (PD(kp=50.0, kd=5.0), ComputedTorque(long_arm)), strict=True):
        want = tracking_errors(track(c, Hold(), long_arm, dt=0.02, tau_max=None))
        assert row.pop("controller") in ("PD", "CT")
        assert row.keys() == want.keys()
        for k in want:
            np.testing.assert_allclose(row[k], want[k])
    assert rows[1]["rms_q"] < 1e-6 < rows[0]["rms_q"]                   # the true arm's own model holds the pose


def test_print_comparison_prints_rounded_milli_units(capsys):
    print_comparison([{"controller": "PD", "rms_q": 0.0123, "rms_xy": 0.0045, "max_xy": 0.0067, "max_tau": 12.34,
                       "saturated": 0.25}])
    header, row = capsys.readouterr().out.splitlines()
    assert re.fullmatch(r"controller\s+joint RMS\s+tip RMS\s+tip max\s+max \|tau\|\s+at limit", header), header
    assert re.fullmatch(r"PD\s+12\.30 mrad\s+4\.50 mm\s+6\.70 mm\s+12\.3 Nm\s+25\.0%", row), row


def test_controllers_say_what_they_are():
    assert repr(PD()) == "PD(kp=100.0, kd=20.0)"
    assert repr(ComputedTorque(chain, kp=[4.0, 9.0])) == "ComputedTorque(PlanarChain, kp=[4.0, 9.0], kd=20.0)"
