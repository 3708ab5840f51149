"""Letters written by the arm: inverse kinematics against forward kinematics, the data against finite differences
and the RNEA, the pen path against the font's outlines, the workspace, seeds."""
import numpy as np
import pytest
from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextPath

from lesson_lib import PlanarChain, double_pendulum
from lesson_lib.data import letters, strokes, write_letters, write_word
from lesson_lib.data.letters import BASELINE, FONT, SIZE, SMOOTH
from lesson_lib.physics.inverse_kinematics import inverse_kinematics, joint_motion, reach, tip_jacobian

chain = double_pendulum()
uneven = PlanarChain(m=[1.3, 0.7], l=[0.9, 1.4], lc=[0.3, 0.8], I=[0.05, 0.2])
rng = np.random.default_rng(7)


def points_in_reach(arm, count=500):
    r_min, r_max = reach(arm)
    r = rng.uniform(r_min + 0.01, r_max - 0.01, count)
    phi = rng.uniform(-np.pi, np.pi, count)
    return np.stack([r * np.cos(phi), r * np.sin(phi)], axis=1)


@pytest.mark.parametrize("arm", [chain, uneven])
@pytest.mark.parametrize("elbow", [1, -1])
def test_inverse_kinematics_round_trips_through_forward_kinematics(arm, elbow):
    xy = points_in_reach(arm)
    q = inverse_kinematics(arm, xy, elbow)
    np.testing.assert_allclose(arm.forward_kinematics(q)[:, -1], xy, atol=1e-12)
    assert np.all(np.sign(q[:, 1]) == elbow) and np.all(np.abs(q[:, 0]) <= np.pi)
    np.testing.assert_allclose(arm.forward_kinematics(inverse_kinematics(arm, xy[0], elbow))[-1], xy[0], atol=1e-12)


@pytest.mark.parametrize("arm", [chain, uneven])
def test_tip_jacobian_and_joint_motion_match_finite_differences_of_forward_kinematics(arm):
    q, qd, qdd = rng.uniform(-2, 2, (3, 50, 2))
    q[:, 1] = rng.uniform(0.3, 2.8, 50)                           # away from the singular q1 = 0, pi
    h = 1e-5
    tip = lambda t: arm.forward_kinematics(q + t * qd + 0.5 * t * t * qdd)[:, -1]   # noqa: E731
    xyd = (tip(h) - tip(-h)) / (2 * h)
    xydd = (tip(h) - 2 * tip(0.0) + tip(-h)) / h**2
    np.testing.assert_allclose(np.einsum("bij,bj->bi", tip_jacobian(arm, q), qd), xyd, atol=1e-8)
    q2, qd2, qdd2 = joint_motion(arm, tip(0.0), xyd, xydd)
    np.testing.assert_allclose(q2, q, atol=1e-10)
    np.testing.assert_allclose(qd2, qd, atol=1e-6)
    np.testing.assert_allclose(qdd2, qdd, atol=2e-3)


def test_inverse_kinematics_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="out of reach"):
        inverse_kinematics(chain, [[0.0, -2.5], [0.1, 0.1]])
    with pytest.raises(ValueError, match="elbow must be"):
        inverse_kinematics(chain, [0.0, -1.0], elbow=0)
    with pytest.raises(ValueError, match="2-link arm"):
        inverse_kinematics(PlanarChain(m=[1] * 3, l=[1] * 3, lc=[0.5] * 3, I=[0.1] * 3), [0.0, -1.0])


def derivative(y, h):
    """Five-point central difference (error h^4/30 y^(5)) at the interior samples y[2:-2]."""
    return (y[:-4] - 8 * y[1:-3] + 8 * y[3:-1] - y[4:]) / (12 * h)


@pytest.fixture(scope="module")
def fine():
    """Two letters sampled finely enough for finite differences."""
    return letters("sk", dt=1e-3, seed=3)


def test_letter_data_are_consistent_motions_with_rnea_torques(fine):
    d = fine
    assert set(d) == {"q", "qd", "qdd", "tau", "traj", "t", "xy", "pen_down", "label"}
    assert all(len(v) == len(d["t"]) for v in d.values()) and d["q"].shape == d["tau"].shape == (len(d["t"]), 2)
    assert d["label"][0] == "s" and d["label"][-1] == "k" and np.all((d["label"] == "k") == (d["traj"] == 1))
    np.testing.assert_allclose(chain.forward_kinematics(d["q"])[:, -1], d["xy"], atol=1e-12)
    np.testing.assert_allclose(d["tau"], chain.rnea(d["q"], d["qd"], d["qdd"]), atol=1e-12)
    for k in (0, 1):
        one = d["traj"] == k
        t, q, qd, qdd = d["t"][one], d["q"][one], d["qd"][one], d["qdd"][one]
        assert t[0] == 0 and np.allclose(np.diff(t), 1e-3)
        # away from the joins between moves (where the pen goes down or up) and the end, where the jerk jumps
        joins = np.append(np.flatnonzero(np.diff(d["pen_down"][one].astype(int))), len(t) - 2)
        smooth = np.all(np.abs(np.arange(2, len(t) - 2)[:, None] - joins[None, :]) > 3, axis=1)
        np.testing.assert_allclose(derivative(q, 1e-3)[smooth], qd[2:-2][smooth], atol=1e-7)
        np.testing.assert_allclose(derivative(qd, 1e-3)[smooth], qdd[2:-2][smooth], atol=1e-6)
        assert np.abs(qd[[0, -1]]).max() < 1e-12 and np.abs(qdd[[0, -1]]).max() < 1e-9   # from rest to rest
        assert np.ptp(q, axis=0).min() > 0.05                         # it moved


def test_sensor_noise_is_seeded_gaussian_on_the_torques():
    clean = letters("o", seed=2)
    a, b = letters("o", seed=2, noise=0.5), letters("o", seed=2, noise=0.5)
    np.testing.assert_array_equal(a["tau"], b["tau"])
    np.testing.assert_array_equal(a["q"], clean["q"])
    residual = a["tau"] - clean["tau"]
    assert residual.std() == pytest.approx(0.5, rel=0.05) and abs(residual.mean()) < 0.05


def test_seeds_repeat_and_move_the_letters():
    a, b, c = letters("ab", seed=5), letters("ab", seed=5), letters("ab", seed=6)
    for k in ("q", "qd", "qdd", "tau", "traj", "t", "xy"):
        np.testing.assert_array_equal(a[k], b[k])
    assert not np.allclose(a["xy"][:, 0].mean(), c["xy"][:, 0].mean())   # another place on the line
    np.testing.assert_allclose(a["xy"][:, 1], c["xy"][:, 1])              # on the same baseline


def normalised_outline(ch):
    """The font's outline of ch, densified, in metres with the letters' size, its box's lower-left at (0, 0)."""
    path = TextPath((0, 0), ch, size=SIZE, prop=FontProperties(family=FONT))
    pts = np.concatenate([np.linspace(a, b, 40) for p in path.to_polygons()
                          for a, b in zip(p[:-1], p[1:], strict=True)])
    return pts


def test_strokes_trace_the_fonts_outlines_within_the_smoothing_width():
    chars = "agklowz"
    d = letters(chars, seed=0)
    for k, ch in enumerate(chars):
        pen = np.concatenate(strokes(d, k))
        assert len(strokes(d, k)) == len(TextPath((0, 0), ch, prop=FontProperties(family=FONT)).to_polygons())
        outlines = {other: normalised_outline(other) for other in chars}
        dist = {}
        for other, ref in outlines.items():
            # align horizontally by the boxes' centres; the baseline is known
            shift = np.array([pen[:, 0].min() + np.ptp(pen[:, 0]) / 2 - ref[:, 0].min() - np.ptp(ref[:, 0]) / 2,
                              BASELINE])
            gaps = np.linalg.norm(pen[:, None] - (ref + shift)[None], axis=-1)
            dist[other] = max(gaps.min(axis=1).max(), gaps.min(axis=0).max())   # Hausdorff distance
        assert dist[ch] < SMOOTH, (ch, dist[ch])
        assert min(v for o, v in dist.items() if o != ch) > 2 * SMOOTH, (ch, dist)   # and not like another letter


def test_letters_have_their_shapes_and_sizes():
    d = letters("logx", seed=1)
    box = {ch: (np.concatenate(strokes(d, k)).min(0), np.concatenate(strokes(d, k)).max(0))
           for k, ch in enumerate("logx")}
    height = {ch: hi[1] - lo[1] for ch, (lo, hi) in box.items()}
    width = {ch: hi[0] - lo[0] for ch, (lo, hi) in box.items()}
    assert height["l"] > 5 * width["l"]                               # a tall thin bar
    assert 0.8 < width["o"] / height["o"] < 1.2                       # round
    assert box["g"][0][1] < BASELINE - 0.05 < box["o"][0][1]          # g descends below the line, o sits on it
    assert box["l"][1][1] > box["o"][1][1] + 0.05                     # l rises above the x-height
    assert abs(height["o"] - height["x"]) < 0.02 and abs(height["x"] - 0.55 * SIZE) < 0.03


def test_the_path_stays_in_the_workspace_on_one_elbow_branch():
    d = letters("abcdefghijklmnopqrstuvwxyz", seed=0)
    r = np.linalg.norm(d["xy"], axis=1)
    r_min, r_max = reach(chain)
    assert r.min() > r_min + 0.2 and r.max() < r_max - 0.2           # far from folded and stretched
    assert np.all(d["q"][:, 1] > 0.3) and np.all(d["q"][:, 1] < np.pi - 0.3)
    assert np.abs(np.linalg.det(tip_jacobian(chain, d["q"]))).min() > 0.25
    assert np.all(np.abs(np.diff(d["q"], axis=0))[np.diff(d["traj"]) == 0] < 0.05)   # no jumps within a letter
    with pytest.raises(ValueError, match="writes safely"):
        write_letters("l", baseline=-1.9)


def test_a_word_is_one_trajectory_centred_and_shrunk_to_fit():
    short, long = write_word("oo").sample(), write_word("oooooooooo").sample()
    assert set(short["label"]) == {"oo"} and set(short["traj"]) == {0}
    assert len(strokes(short, 0)) == 4                                # two contours per o
    assert not short["pen_down"].all()                                # the pen moves between them
    assert abs(short["xy"][:, 0].min() + short["xy"][:, 0].max()) < 0.02          # centred on the line
    assert np.ptp(long["xy"][:, 0]) < 1.9 and np.ptp(long["xy"][:, 1]) < np.ptp(short["xy"][:, 1])


def test_the_reference_is_the_sampled_motion():
    hw = write_letters("ab", seed=4)
    d = hw.sample(dt=0.05)
    k = np.flatnonzero(d["traj"] == 1)[7]
    q, qd, qdd = hw.reference(d["t"][k])
    np.testing.assert_allclose(q[1], d["q"][k], atol=1e-12)
    np.testing.assert_allclose(qdd[1], d["qdd"][k], atol=1e-12)
    q_end, qd_end, _ = hw.reference(hw.duration + 1.0)                # a finished letter holds its last pose
    np.testing.assert_allclose(q_end[0], d["q"][d["traj"] == 0][-1], atol=1e-9)
    assert np.abs(qd_end).max() == 0


@pytest.mark.parametrize("call, match", [
    (lambda: letters(""), "non-empty string"),
    (lambda: letters(5), "must be a string"),
    (lambda: letters("a", dt=0), "dt must be"),
    (lambda: letters("a", noise=-1), "noise must be"),
    (lambda: letters("a", seed=-1), "seed must be"),
    (lambda: letters("a", size="big"), "size must be"),
    (lambda: letters("a", line=(1, -1)), "line must be"),
    (lambda: write_word("a", elbow=2), "elbow must be"),
    (lambda: write_word("   "), "non-empty string"),
])
def test_bad_arguments_get_clear_messages(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_the_glyph_table_is_the_fonts_as_matplotlib_sets_it():
    """lesson_lib draws letters from a table (no matplotlib in the library): the table is what
    `python -m lesson_tools.glyphs` writes from matplotlib now, and a word laid out from it is matplotlib's own
    TextPath of the word, to the kerning's rounding (ligatures aside: the arm writes letter by letter)."""
    import importlib
    import json

    from matplotlib.path import Path as MplPath

    from lesson_tools import glyphs
    L = importlib.import_module("lesson_lib.data.letters")
    assert json.loads(json.dumps(glyphs.table())) == L._glyphs(), "run: python -m lesson_tools.glyphs"
    for word in ("Wave", "handwriting", "AVa To", "Tokyo, 42!", "déjà vu"):
        path = TextPath((0, 0), word, size=1.0, prop=FontProperties(family=FONT))
        theirs = MplPath(path.vertices, path.codes).to_polygons(closed_only=True)
        ours = L._contours(word, 1.0)
        assert len(ours) == len(theirs), word
        gap = max(np.abs(a - b).max() for a, b in zip(ours, theirs, strict=True))
        assert gap < glyphs.KERN_MIN * len(word), (word, gap)
