"""Letters written by the 2-link arm: the DeLaN paper's kind of trajectory data (Lutter et al., ICLR 2019).

1. Glyphs: the outlines of each character in FONT (DejaVu Sans) as matplotlib sets them, from the table
   glyphs.json beside this module (lesson_tools.glyphs writes it), laid out letter by letter with the font's
   advances and kerning; the pen traces each closed contour.
2. Smooth curves: each contour as a Fourier series X(s) = a + sum_k A_k cos(2 pi k s) + B_k sin(2 pi k s),
   low-passed by a Gaussian of width `smooth` (m) so the pen's acceleration stays bounded; straight moves
   X(s) = a + d s between contours (`pen_down` marks what is drawn).
3. Timing: each move starts and ends at rest, s(u) = 10 u^3 - 15 u^4 + 6 u^5, u = (t - t0) / T,
   T = max(length / speed, T_MIN).  One trajectory is one letter (`write_letters`) or one word (`write_word`).
4. Joints: inverse kinematics on one elbow branch gives q, qd, qdd analytically; tau from the RNEA (+ noise).

The writing line (BASELINE, LINE, SIZE in m) stays in the annulus 0.8 m <= |xy| <= 1.7 m of the default arm,
far from its singularities."""
import functools
import json
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ..limits import MAX_LETTERS, MAX_SAMPLES
from ..physics.chain import double_pendulum
from ..physics.inverse_kinematics import check_elbow, joint_motion, reach
from ..validate import LimitExceeded, described, integer, number, positive_number, within_limit

FONT = "DejaVu Sans"
SIZE = 0.5                 # font size: metres per em (a lowercase "a" is about 0.28 m tall)
BASELINE = -1.2            # y of the writing line (m); the shoulder is at (0, 0)
LINE = (-0.95, 0.95)       # x extent of the writing line (m)
SPEED = 0.3                # average pen speed along each move (m/s)
SMOOTH = 0.02              # width of the Gaussian that rounds the font's corners (m)
T_MIN = 0.3                # shortest move (s)
ELBOW = 1                  # the elbow branch: q1 > 0 throughout
TRAIN_LETTERS = "acdeghkmnosuvwz"
TEST_LETTERS = "bfijlpqrtxy"
_SAMPLES = 512             # points per contour for the Fourier fit
_CHUNK = 2048              # samples evaluated at once


@functools.cache
def _glyphs():
    """The glyph table: {"glyphs": {char: {"advance", "contours"}}, "kerning": {pair: offset}}, in em."""
    return json.loads(Path(__file__).with_name("glyphs.json").read_text(encoding="utf-8"))


def _contours(text, size):
    """Closed contours (P, 2) of `text` set at `size` m per em on the baseline y = 0, in the font's order."""
    table, x, out = _glyphs(), 0.0, []
    for k, ch in enumerate(text):
        if k:
            x += table["glyphs"][text[k - 1]]["advance"] + table["kerning"].get(text[k - 1] + ch, 0.0)
        out += [(np.array(c, dtype=float) + (x, 0.0)) * size for c in table["glyphs"][ch]["contours"]]
    return out


def _fourier(poly, smooth):
    """Length, mean a (2,) and Fourier coefficients A, B (K, 2) of the smoothed closed curve through poly, keeping
    the harmonics the Gaussian low-pass leaves above 1e-9."""
    edges = np.linalg.norm(np.diff(poly, axis=0), axis=1)
    arc = np.concatenate([[0.0], np.cumsum(edges)])
    length = arc[-1]
    s = np.arange(_SAMPLES) * length / _SAMPLES
    pts = np.stack([np.interp(s, arc, poly[:, i]) for i in range(2)], axis=1)
    c = np.fft.rfft(pts, axis=0) / _SAMPLES                    # (_SAMPLES/2 + 1, 2)
    weight = np.exp(-0.5 * (2 * np.pi * np.arange(1, c.shape[0]) * smooth / length) ** 2)
    keep = weight > 1e-9
    w = weight[keep, None]
    return length, c[0].real, 2 * c[1:][keep].real * w, -2 * c[1:][keep].imag * w


def _min_jerk(u):
    """s, ds/du, d2s/du2 of s(u) = 10 u^3 - 15 u^4 + 6 u^5 (u clipped to [0, 1]: at rest outside)."""
    u = np.clip(u, 0.0, 1.0)
    return (u**3 * (10 - 15 * u + 6 * u * u), 30 * u * u * (1 - u) ** 2, 60 * u * (1 - u) * (1 - 2 * u))


class Handwriting:
    """Timed pen paths of one or more trajectories and the arm's joint motion that writes them.

    A joint reference: `reference(t)` gives (q_d, qd_d, qdd_d), each (n_traj, 2) (an ended trajectory holds its last
    pose), what control.track follows.  Attributes: labels, durations (n_traj,) s, duration, chain, elbow, n_traj.

    >>> writing = write_word("a")
    >>> writing.n_traj, writing.labels
    (1, ['a'])"""

    def __init__(self, labels, moves, chain, elbow, speed):
        """moves[b]: list of (a, d, A, B, length, pen_down) of trajectory b, in order (see the module docstring)."""
        self.labels, self.chain, self.elbow, self.n_traj = list(labels), chain, elbow, len(labels)
        flat = [m for ms in moves for m in ms]
        K = max(len(m[2]) for m in flat)
        self._a, self._d = (np.array([m[i] for m in flat]) for i in (0, 1))
        self._A, self._B = (np.array([np.pad(m[i], ((0, K - len(m[i])), (0, 0))) for m in flat]) for i in (2, 3))
        self._T = np.maximum(np.array([m[4] for m in flat]) / speed, T_MIN)
        self._pen = np.array([m[5] for m in flat])
        self._counts = np.array([len(ms) for ms in moves])
        self._first = np.cumsum(self._counts) - self._counts           # index of each trajectory's first move
        back_to_back = np.cumsum(self._T) - self._T
        self._t0 = back_to_back - np.repeat(back_to_back[self._first], self._counts)   # start within its trajectory
        self._starts = np.full((self.n_traj, self._counts.max()), np.inf)              # (n_traj, most moves)
        self._starts[np.repeat(np.arange(self.n_traj), self._counts),
                     np.arange(len(flat)) - np.repeat(self._first, self._counts)] = self._t0
        self.durations = np.add.reduceat(self._T, self._first)
        self.duration = float(self.durations.max())
        self._omega = 2 * np.pi * np.arange(1, K + 1)

    def __repr__(self):
        return f"Handwriting({self.labels}, durations={np.round(self.durations, 2).tolist()} s)"

    def pen(self, traj, t):
        """Pen position, velocity, acceleration (N, 2) and pen_down (N,) for trajectories traj (N,) at
        times t (N,) (s from each trajectory's start).

        >>> xy, xyd, xydd, pen_down = write_word("o").pen([0], [0.0])
        >>> xy.shape, bool(pen_down[0])
        ((1, 2), True)"""
        traj, t = np.asarray(traj, int), np.asarray(t, float)
        if len(t) > _CHUNK:                                            # bounded memory: (N, 2, K) per chunk
            chunks = [self.pen(traj[i:i + _CHUNK], t[i:i + _CHUNK]) for i in range(0, len(t), _CHUNK)]
            return tuple(np.concatenate(parts) for parts in zip(*chunks, strict=True))
        local = np.sum(self._starts[traj] <= t[:, None], axis=1) - 1
        seg = self._first[traj] + np.clip(local, 0, self._counts[traj] - 1)
        T = self._T[seg]
        s, ds, dds = _min_jerk((t - self._t0[seg]) / T)
        sd, sdd = ds / T, dds / T**2                                   # ds/dt, d2s/dt2
        phase = self._omega * s[:, None]                               # (N, K)
        cos, sin = np.cos(phase)[:, None, :], np.sin(phase)[:, None, :]
        A, B = np.swapaxes(self._A[seg], 1, 2), np.swapaxes(self._B[seg], 1, 2)   # (N, 2, K)
        X = self._a[seg] + self._d[seg] * s[:, None] + np.sum(A * cos + B * sin, axis=-1)
        dX = self._d[seg] + np.sum(self._omega * (B * cos - A * sin), axis=-1)
        ddX = -np.sum(self._omega**2 * (A * cos + B * sin), axis=-1)
        return X, dX * sd[:, None], ddX * sd[:, None] ** 2 + dX * sdd[:, None], self._pen[seg]

    def reference(self, t):
        """The joint reference at time t (s): (q_d, qd_d, qdd_d), each (n_traj, 2).

        >>> q_d, qd_d, qdd_d = write_word("o").reference(0.5)
        >>> q_d.shape
        (1, 2)"""
        x, xd, xdd, _ = self.pen(np.arange(self.n_traj), np.full(self.n_traj, float(t)))
        return joint_motion(self.chain, x, xd, xdd, self.elbow)

    __call__ = reference

    def sample(self, dt=0.01, noise=0.0, seed=0):
        """Samples every dt s along each trajectory until it has ended, trajectory after trajectory:
        sample_uniform's dict ("q", "qd", "qdd", "tau" (N, 2), tau with sensor noise of std `noise` N m) plus "traj",
        "t", "xy" (N, 2) the pen, "pen_down" and "label" (N,).  Every value has N rows.

        >>> data = write_word("o").sample(dt=0.05)
        >>> sorted(data), data["q"].shape[1]
        (['label', 'pen_down', 'q', 'qd', 'qdd', 't', 'tau', 'traj', 'xy'], 2)"""
        dt = positive_number("dt", dt)
        noise = number("noise", noise, low=0.0)
        seed = integer("seed", seed, low=0)
        counts = np.ceil(self.durations / dt - 1e-9) + 1               # the last sample: at rest, at or past the end
        within_limit(f"sample(dt={dt:g})", int(min(counts.sum(), 10**15)), MAX_SAMPLES,
                     f"{self.durations.sum():.3g} s of writing; use a larger dt, fewer letters or a faster pen")
        n = counts.astype(int)
        traj = np.repeat(np.arange(self.n_traj), n)
        t = (np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)) * dt
        xy, xyd, xydd, pen_down = self.pen(traj, t)
        q, qd, qdd = joint_motion(self.chain, xy, xyd, xydd, self.elbow)
        tau = self.chain.rnea(q, qd, qdd) + noise * np.random.default_rng(seed).standard_normal(q.shape)
        return {"q": q, "qd": qd, "qdd": qdd, "tau": tau, "traj": traj, "t": t, "xy": xy, "pen_down": pen_down,
                "label": np.array(self.labels)[traj]}


def _text(name, text):
    """text if a non-empty string of at most MAX_LETTERS characters the font draws; else an error naming the
    first one that is not."""
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a string of letters, e.g. {name}=\"abc\", got {described(text)}")
    if not text.strip():
        raise ValueError(f"{name} must be a non-empty string of letters, got {text!r}")
    if len(text) > MAX_LETTERS:
        raise LimitExceeded(f"{name} has {len(text):,} characters, above the limit of {MAX_LETTERS:,}: write fewer "
                            f"letters per call (a line holds about 15)")
    for i, ch in enumerate(text):
        if ch == " ":
            continue
        if not ch.isprintable() or ch.isspace() or ch not in _glyphs()["glyphs"]:
            why = ("is not a printable character" if not ch.isprintable() or ch.isspace()
                   else f"is not among the characters the arm writes (ASCII and Latin-1 letters of {FONT})")
            raise ValueError(f"{name} has {ch!r} (U+{ord(ch):04X}) at position {i}, which {why}: the arm can only "
                             f"write characters the font draws, such as letters, digits and punctuation")
    return text


def _moves(contours, smooth):
    """The moves of one trajectory: each contour as a smooth closed curve, straight moves in between."""
    moves, end = [], None
    for poly in contours:
        length, a, A, B = _fourier(poly, smooth)
        start = a + A.sum(axis=0)                                      # X(0) = X(1)
        if end is not None:
            moves.append((end, start - end, np.zeros((0, 2)), np.zeros((0, 2)), np.linalg.norm(start - end), False))
        moves.append((a, np.zeros(2), A, B, length, True))
        end = start
    return moves


def _check_fits(chain, contours, name):
    """Raise unless every contour point keeps 0.1 (l1 + l2) away from both singular circles."""
    r_min, r_max = reach(chain)
    margin = 0.1 * r_max
    r = np.linalg.norm(np.concatenate(contours), axis=1)
    if r.min() < r_min + margin or r.max() > r_max - margin:
        raise ValueError(f"{name} reaches {r.min():.2f}..{r.max():.2f} m from the shoulder; the arm writes safely "
                         f"only within {r_min + margin:.2f}..{r_max - margin:.2f} m: change baseline, line or size")


def _style(chain, size, speed, smooth, elbow, baseline, line):
    """Checked writing options (see write_letters)."""
    chain = double_pendulum() if chain is None else chain
    reach(chain)                                                       # a 2-link arm
    try:
        left, right = (number("line", x) for x in line)
    except (TypeError, ValueError):
        raise ValueError(f"line must be (x_left, x_right) in m with x_left < x_right, got {line!r}") from None
    if not left < right:
        raise ValueError(f"line must be (x_left, x_right) in m with x_left < x_right, got {line!r}")
    return (chain, positive_number("size", size), positive_number("speed", speed), positive_number("smooth", smooth),
            check_elbow(elbow), number("baseline", baseline), (left, right))


def write_letters(chars=TRAIN_LETTERS, chain=None, seed=0, size=SIZE, speed=SPEED, smooth=SMOOTH, elbow=ELBOW,
                  baseline=BASELINE, line=LINE):
    """A Handwriting of one trajectory per character of `chars`, each at a place drawn (from `seed`)
    along the writing line.

    >>> write_letters("oc").labels
    ['o', 'c']"""
    chain, size, speed, smooth, elbow, baseline, line = _style(chain, size, speed, smooth, elbow, baseline, line)
    rng = np.random.default_rng(integer("seed", seed, low=0))
    labels, moves = [], []
    for ch in _text("chars", chars).replace(" ", ""):
        glyph = _contours(ch, size)
        if not glyph:
            raise ValueError(f"chars has {ch!r}, which the font {FONT} draws with no outline")
        lo, hi = min(p[:, 0].min() for p in glyph), max(p[:, 0].max() for p in glyph)
        room = (line[1] - line[0]) - (hi - lo)
        if room < 0:
            raise ValueError(f"the letter {ch!r} is {hi - lo:.2f} m wide, wider than the line {line}: reduce size")
        shift = np.array([line[0] - lo + rng.uniform(0, room), baseline])
        glyph = [p + shift for p in glyph]
        _check_fits(chain, glyph, f"the letter {ch!r}")
        labels.append(ch)
        moves.append(_moves(glyph, smooth))
    return Handwriting(labels, moves, chain, elbow, speed)


def write_word(word, chain=None, size=SIZE, speed=SPEED, smooth=SMOOTH, elbow=ELBOW, baseline=BASELINE, line=LINE):
    """A Handwriting of one trajectory writing `word` centred on the line (smaller if too long).

    >>> write_word("hi").labels
    ['hi']"""
    chain, size, speed, smooth, elbow, baseline, line = _style(chain, size, speed, smooth, elbow, baseline, line)
    glyphs = _contours(_text("word", word), 1.0)
    if not glyphs:
        raise ValueError(f"word {word!r} has no letter the font {FONT} can draw")
    lo, hi = min(p[:, 0].min() for p in glyphs), max(p[:, 0].max() for p in glyphs)
    size = min(size, (line[1] - line[0]) / (hi - lo))
    centre = np.array([0.5 * (line[0] + line[1]) - size * 0.5 * (lo + hi), baseline])
    glyphs = [p * size + centre for p in glyphs]
    _check_fits(chain, glyphs, f"the word {word!r}")
    return Handwriting([word], [_moves(glyphs, smooth)], chain, elbow, speed)


def letters(chars=TRAIN_LETTERS, chain=None, dt=0.01, noise=0.0, seed=0, **style):
    """write_letters(chars, chain, seed, **style).sample(dt, noise, seed): see Handwriting.sample.

    >>> data = letters("o", dt=0.05)
    >>> sorted(set(data["label"].tolist())), data["tau"].shape[1]
    (['o'], 2)"""
    return write_letters(chars, chain, seed, **style).sample(dt, noise, seed)


def strokes(data, traj=0):
    """The drawn strokes of trajectory `traj` in a `letters` data dict: a list of (P, 2) pen paths.

    >>> len(strokes(letters("i", dt=0.01))) >= 1
    True"""
    if not isinstance(data, Mapping) or any(k not in data for k in ("traj", "xy", "pen_down")):
        raise TypeError(f"data must be a dict from letters(...) or Handwriting.sample(...), with 'traj', 'xy' and "
                        f"'pen_down', got {described(data)}")
    ids = np.unique(np.asarray(data["traj"]))
    traj = integer("traj", traj, low=0)
    if traj not in ids:
        raise ValueError(f"traj={traj} is not a trajectory of these data: they hold trajectories "
                         f"{ids.min() if len(ids) else '-'} to {ids.max() if len(ids) else '-'} ({len(ids)} in all)")
    keep = np.asarray(data["traj"]) == traj
    xy, down = np.asarray(data["xy"])[keep], np.asarray(data["pen_down"])[keep]
    cuts = np.flatnonzero(np.diff(down.astype(int))) + 1
    return [p for p, d in zip(np.split(xy, cuts), np.split(down, cuts), strict=True) if d[0]]
