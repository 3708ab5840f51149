"""The arm writing: notebook 07's figures, and the writing desk, a widget that writes a typed word with a model.

    WritingDesk({"DeLaN": ComputedTorque(delan), "PD alone": PD()}, word="hello")    # in a notebook cell

The desk tracks a word once per (word, controller, speed) on the TRUE arm (control.track at 100 Hz, torque
limits); Play and the slider then only redraw the arm, the trace and the error cursor into one PNG (blitting), the
same in JupyterLab, Notebook 7 and Voila.  Tests drive it without a browser (`desk.word.value = "abc";
desk.write_button.click()`, then read `desk.readout.value`).

Figures (pyplot; the cell calls plt.show(), which shows each with alt text: figure.DescribedFigure):
`letters_overview`, `torque_parts` (the paper's figure: M q'', c, g over time, truth against the models, on unseen
letters), `tracking_overview`.  m (mm on error axes), N m, rad, s."""
import html
import time

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from lesson_lib.control import track, tracking_errors
from lesson_lib.data.letters import BASELINE, SPEED, strokes, write_word
from lesson_lib.physics.chain import double_pendulum
from lesson_lib.validate import number_list, positive_number

from ..limits import MAX_SECONDS, MAX_WORD
from .aria import AriaCarrier
from .blit import BlittedFigure
from .figure import DescribedFigure
from .palette import BLACK_BOX
from .palette import LEARNED as DELAN
from .palette import TRUE as TRUTH

PD_COLOR, SEEN, UNSEEN, INK = "#c0392b", "#2c6fbb", "#d35400", "0.8"
COLORS = {"true model": TRUTH, "DeLaN": DELAN, "black box": BLACK_BOX, "PD alone": PD_COLOR}
PARTS = (("tau", "total torque $\\tau$"), ("M_qdd", "inertial $M(q)\\,\\ddot q$"),
         ("c", "Coriolis and centrifugal $c(q, \\dot q)$"), ("g", "gravity $g(q)$"))
FRAME_DT = 0.1              # s of motion per animation frame
INTERVAL = 50               # ms between frames: FRAME_DT / INTERVAL = 2x faster than real time


def _color(name, i=0):
    return COLORS.get(name, f"C{i}")


def _pen_path(xy, pen_down):
    """xy (P, 2) with NaN rows where the pen is up, so one plotted line shows only the drawn strokes."""
    return np.where(np.asarray(pen_down)[:, None], xy, np.nan)


def _draw_arm(ax, points, color="0.25", **style):
    """The arm as a thick polyline base -> elbow -> tip, points (n + 1, 2); returns the line."""
    (line,) = ax.plot(points[:, 0], points[:, 1], "-o", color=color, lw=4, ms=6, solid_capstyle="round", **style)
    return line


# ---------------------------------------------------------------------- figures
def letters_overview(chain, train, test):
    """The training and unseen letters, where the arm writes them, and the joint angles they visit
    against the whole torus.  train, test: data dicts from data.letters."""
    fig = plt.figure(figsize=(10, 6.6), FigureClass=DescribedFigure)
    grid = fig.add_gridspec(2, 2, height_ratios=[1, 1.9])
    a_letters, a_arm, a_q = fig.add_subplot(grid[0, :]), fig.add_subplot(grid[1, 0]), fig.add_subplot(grid[1, 1])
    first = np.asarray(train["traj"]) == 0
    _draw_arm(a_arm, chain.forward_kinematics(train["q"][first][len(train["q"][first]) // 2]))
    for data, color in ((train, SEEN), (test, UNSEEN)):
        for b in np.unique(data["traj"]):
            for s in strokes(data, b):
                a_arm.plot(s[:, 0], s[:, 1], color=color, lw=0.6, alpha=0.5)
    r = chain.l.sum()
    a_arm.add_patch(plt.Circle((0, 0), r, fill=False, ls=":", color="0.6"))
    a_arm.set(xlim=(-0.65 * r, 0.65 * r), ylim=(BASELINE - 0.2 * r, 0.1 * r), aspect="equal", xlabel="x (m)",
              ylabel="y (m)", title="The arm and where it writes")

    x0 = 0.0
    for data, color, y0, label in ((train, SEEN, 0.0, "trained on"), (test, UNSEEN, -0.5, "never seen")):
        a_letters.text(-0.05, y0 + 0.1, label, ha="right", va="center", fontsize=9)
        x = 0.0
        for b in np.unique(data["traj"]):
            parts = strokes(data, b)
            lo, hi = min(s[:, 0].min() for s in parts), max(s[:, 0].max() for s in parts)
            for s in parts:
                a_letters.plot(s[:, 0] - lo + x, s[:, 1] - BASELINE + y0, color=color, lw=1.2)
            x += hi - lo + 0.06
        x0 = max(x0, x)
    a_letters.set(xlim=(-0.6, x0), ylim=(-0.65, 0.45), aspect="equal", xticks=[], yticks=[],
                  title="The letters, as the pen traces their outlines")
    for side in a_letters.spines.values():
        side.set_visible(False)

    a_q.add_patch(plt.Rectangle((-np.pi, -np.pi), 2 * np.pi, 2 * np.pi, fill=False, ls="--", color="0.5"))
    a_q.text(0, -np.pi + 0.25, "uniform samples (notebooks 01-06)\nfill this whole square", ha="center",
             fontsize=8, color="0.4")
    for data, color, label in ((train, SEEN, "training letters"), (test, UNSEEN, "unseen letters")):
        a_q.plot(data["q"][:, 0], data["q"][:, 1], ".", ms=1, color=color, label=label)
    a_q.set(xlim=(-3.4, 3.4), ylim=(-3.4, 3.4), aspect="equal", xlabel="$q_0$ (rad)", ylabel="$q_1$ (rad)",
            title="Joint angles the letters visit")
    a_q.legend(loc="upper left", fontsize=8, markerscale=8)
    fig.tight_layout()
    return fig


def _concatenated(data, labels):
    """(rows, t, starts): the rows writing `labels` in order, their time end to end, each one's start."""
    rows, t, starts, offset = [], [], [], 0.0
    for label in labels:
        found = np.flatnonzero(np.asarray(data["label"]) == label)
        if not len(found):
            raise ValueError(f"no trajectory writes {label!r}; the data has {sorted(set(data['label']))}")
        rows.append(found)
        t.append(np.asarray(data["t"])[found] + offset)
        starts.append(offset)
        offset = t[-1][-1] + 0.01
    return np.concatenate(rows), np.concatenate(t), starts


def torque_parts(chain, data, models, labels):
    """The DeLaN paper's figure on the trajectories writing `labels`, laid end to end: rows tau,
    M(q) qdd, c(q, qd), g(q), truth against each of {name: model} (a model without `parts` in the tau row only)."""
    rows, t, starts = _concatenated(data, labels)
    q, qd, qdd = (np.asarray(data[k])[rows] for k in ("q", "qd", "qdd"))
    truth = {"tau": np.asarray(data["tau"])[rows], "M_qdd": np.einsum("bij,bj->bi", chain.mass_matrix(q), qdd),
             "c": chain.coriolis(q, qd), "g": chain.gravity(q)}
    learned = {name: (m.parts(q, qd, qdd) if hasattr(m, "parts") else {}) for name, m in models.items()}
    for name, m in models.items():
        learned[name]["tau"] = m.inverse_dynamics(q, qd, qdd)
    fig, axes = plt.subplots(len(PARTS), chain.n_dof, figsize=(11, 7.6), sharex=True, FigureClass=DescribedFigure)
    for r, (key, title) in enumerate(PARTS):
        for j in range(chain.n_dof):
            ax = axes[r, j]
            ax.plot(t, truth[key][:, j], color=TRUTH, lw=3, label="truth (RNEA)")
            for i, (name, parts) in enumerate(learned.items()):
                if key in parts:
                    ax.plot(t, parts[key][:, j], color=_color(name, i), lw=1.3, ls="--", label=name)
            for s in starts[1:]:
                ax.axvline(s, color="0.7", lw=0.8)
            ax.set_ylabel("N m")
            ax.set_title(f"joint {j}: {title}", fontsize=10)
            ax.grid(alpha=0.3)
    for j in range(chain.n_dof):
        axes[-1, j].set_xlabel("time (s), letters one after the other")
        for s, label in zip(starts, labels, strict=True):
            axes[0, j].annotate(f"'{label}'", (s, 1.0), xycoords=("data", "axes fraction"), xytext=(4, -12),
                                textcoords="offset points", fontsize=10, fontweight="bold")
    axes[0, 0].legend(fontsize=8, loc="lower right")
    fig.suptitle("Unseen letters: each part of the torque, truth against the learned models", fontsize=12)
    fig.tight_layout()
    return fig


def tracking_overview(results, data, traj=0):
    """Per controller, the pen's path over the path it should draw for trajectory `traj`, and the
    distance between them over time (log scale).  results: {name: track result}; data: the reference at track's dt."""
    names = list(results)
    pen_down = np.asarray(data["pen_down"])[np.asarray(data["traj"]) == traj]
    ticks = int(next(iter(results.values()))["active"][:, traj].sum())
    if len(pen_down) != ticks:
        raise ValueError(f"data has {len(pen_down)} samples of trajectory {traj}, the tracking {ticks} ticks: pass "
                         f"the reference sampled at the tracking's dt, reference.sample(dt)")
    fig = plt.figure(figsize=(11, 5.6), FigureClass=DescribedFigure)
    grid = fig.add_gridspec(2, len(names), height_ratios=[1.2, 1])
    a_err = fig.add_subplot(grid[1, :])
    for i, name in enumerate(names):
        r = results[name]
        active = r["active"][:, traj]
        xy, xy_d, t = r["xy"][active, traj], r["xy_d"][active, traj], r["t"][active]
        ax = fig.add_subplot(grid[0, i])
        ax.plot(*_pen_path(xy_d, pen_down).T, color=INK, lw=5, solid_capstyle="round")
        ax.plot(*_pen_path(xy, pen_down).T, color=_color(name, i), lw=1.3)
        ax.set(aspect="equal", title=name, xticks=[], yticks=[])
        ax.margins(0.15)
        err = 1e3 * np.linalg.norm(xy - xy_d, axis=1)
        a_err.semilogy(t, err + 1e-3, color=_color(name, i), label=f"{name}: RMS {np.sqrt(np.mean(err**2)):.2f} mm")
    labels = next(iter(results.values())).get("labels")
    what = f"'{labels[traj]}'" if labels else f"trajectory {traj}"
    a_err.set(xlabel="time (s)", ylabel="pen error (mm)",
              title=f"Writing {what} on the true arm: distance between where the pen is and where it should be")
    a_err.grid(alpha=0.3, which="both")
    a_err.legend(fontsize=8, loc="lower right", ncol=2)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------- the writing desk
class Writing:
    """One tracked word, ready to draw: t (T,), arm points (T, n + 1, 2), xy and xy_d (T, 2), pen_down
    (T,), e_xy (T,) m, tau (T, n), saturated (T,), and frames (F,), the ticks the animation draws."""

    def __init__(self, word, name, speed, reference, result, chain, frame_every, seconds=None):
        self.word, self.name, self.speed, self.seconds = word, name, speed, seconds   # seconds: simulating it
        self.t, self.tau, self.saturated = result["t"], result["tau"][:, 0], result["saturated"][:, 0]
        self.points = chain.forward_kinematics(result["q"][:, 0])
        self.xy, self.xy_d = result["xy"][:, 0], result["xy_d"][:, 0]
        self.pen_down = reference.pen(np.zeros(len(self.t), int), self.t)[3]
        self.e_xy = np.linalg.norm(self.xy - self.xy_d, axis=1)
        errors = tracking_errors(result)
        self.rms, self.max = errors["rms_xy"], errors["max_xy"]
        last = len(self.t) - 1
        self.frames = np.unique(np.append(np.arange(0, last, frame_every), last))


class WritingDesk:
    """Type a word, press Write: the true arm writes it under one of `controllers` ({name: controller}),
    and the animation shows the arm, its trace over the word, and the pen's error.  word: at most MAX_WORD characters
    and MAX_SECONDS; speeds: multiples of the letters' SPEED; dt: the controller's tick (s).  ValueError if the first
    word cannot be written."""

    def __init__(self, controllers, word="hello", controller=None, speeds=(1.0, 2.0), chain=None, dt=0.01):
        if not isinstance(controllers, dict) or not controllers or not all(
                isinstance(k, str) and callable(c) for k, c in controllers.items()):
            raise TypeError("controllers must be a non-empty dict {name: controller}, e.g. "
                            "{'DeLaN': ComputedTorque(delan), 'PD alone': PD()}")
        self.controllers, self.chain = dict(controllers), chain or double_pendulum()
        self.dt = positive_number("dt", dt, hint="the controller's tick in s, e.g. dt=0.01")
        self.speeds = tuple(float(s) for s in number_list("speeds", speeds, example="(1.0, 2.0)"))
        self.frame_every = max(1, round(FRAME_DT / self.dt))
        self._cache, self._busy, self._syncing, self.shown = {}, False, False, None
        self._build_widgets(word)
        self._build_figure()
        if controller is not None and controller not in self.controllers:
            raise ValueError(f"controller must be one of {list(self.controllers)}, got {controller!r}")
        written = self._written(self._clean(word), controller or next(iter(self.controllers)), self.speeds[0])
        if isinstance(written, str):
            raise ValueError(written)
        self._show_writing(written)

    # ------------------------------------------------------------------ widgets
    def _build_widgets(self, word):
        self.word = widgets.Text(value=str(word), description="word", continuous_update=False,
                                 layout=widgets.Layout(width="260px")).add_class("writing-word")
        self.write_button = widgets.Button(description="✎ Write", button_style="success"
                                           ).add_class("writing-write")        # no icon font: a glyph
        self.controller = widgets.ToggleButtons(options=list(self.controllers), description="controller",
                                                style={"button_width": "110px"}).add_class("writing-controller")
        self.speed = widgets.ToggleButtons(options=[(f"{s:g}×", s) for s in self.speeds], description="pen speed",
                                           style={"button_width": "60px"}).add_class("writing-speed")
        self.play = widgets.Play(interval=INTERVAL, step=1, description="play").add_class("writing-play")
        self.frame = widgets.IntSlider(description="frame", readout=False,
                                       layout=widgets.Layout(width="420px")).add_class("writing-frame")
        widgets.jslink((self.play, "value"), (self.frame, "value"))      # the browser plays; the kernel draws
        self.readout = widgets.HTML().add_class("writing-readout")
        self.message = widgets.HTML().add_class("writing-message")
        self.plot = widgets.Image(format="png", layout=widgets.Layout(width="100%", max_width="760px")
                                  ).add_class("writing-plot")     # shrinks with a narrow window
        self.aria = AriaCarrier("writing")                           # the image's alt text, per word shown
        self.write_button.on_click(self._on_write)
        self.word.observe(self._on_write, names="value")                 # Enter in the text field
        self.controller.observe(self._on_choice, names="value")
        self.speed.observe(self._on_choice, names="value")
        self.frame.observe(self._on_frame, names="value")
        self.ui = widgets.VBox([widgets.HBox([self.word, self.write_button, self.message]),
                                widgets.HBox([self.controller]), widgets.HBox([self.speed]),
                                widgets.HBox([self.play, self.frame]), self.readout, self.plot,
                                self.aria.widget]).add_class("writing")

    def _repr_mimebundle_(self, **kwargs):
        """Show the widget; its text form stays short and stable (nbval compares it)."""
        bundle = self.ui._repr_mimebundle_(**kwargs)
        s = self.shown
        bundle["text/plain"] = f"WritingDesk(word={s.word!r}, controller={s.name!r}, speed={s.speed:g}x)"
        return bundle

    # ------------------------------------------------------------------ the figure: background once per word
    def _build_figure(self):
        """The desk's figure: 760 x 336 px, text at 12 pt (13 px; about 10 px where a 1,000 px window shrinks it)."""
        with plt.rc_context({"font.size": 12}):
            fig = Figure(figsize=(9.5, 4.2), dpi=80)
            grid = fig.add_gridspec(2, 2, width_ratios=[1, 1.6], height_ratios=[1.5, 1])
            self._ax_arm, self._ax_word, self._ax_err = (fig.add_subplot(grid[:, 0]), fig.add_subplot(grid[0, 1]),
                                                         fig.add_subplot(grid[1, 1]))
            r = float(self.chain.l.sum())
            self._ax_arm.set(xlim=(-0.65 * r, 0.65 * r), ylim=(BASELINE - 0.2 * r, 0.1 * r), aspect="equal",
                             xlabel="x (m)", ylabel="y (m)")
            self._ax_word.set(aspect="equal", xticks=[], yticks=[])
            self._ax_err.set(xlabel="time (s)", ylabel="pen error (mm)", yscale="log")
            self._ax_err.grid(alpha=0.3, which="both")
            self._ax_err.yaxis.set_minor_formatter(NullFormatter())
            self._static = []                                     # artists of the shown word, replaced per word
            self._arm = _draw_arm(self._ax_arm, np.zeros((self.chain.n_dof + 1, 2)), zorder=3)
            self._trace = [ax.plot([], [], lw=1.6)[0] for ax in (self._ax_arm, self._ax_word)]
            self._target = self._ax_word.plot([], [], "x", color="black", ms=9, mew=2)[0]
            self._tip = self._ax_word.plot([], [], "o", ms=7)[0]
            self._cursor = self._ax_err.axvline(0.0, color="black", lw=1)
            self._dot = self._ax_err.plot([], [], "o", ms=6)[0]
        fig.subplots_adjust(left=0.09, right=0.99, top=0.9, bottom=0.14, hspace=0.55, wspace=0.2)
        self._fig = BlittedFigure(fig, [self._arm, *self._trace, self._target, self._tip, self._cursor, self._dot])

    def _draw_background(self, w):
        """The shown word's static parts: the path to write (grey), the error curve, titles and limits."""
        for artist in self._static:
            artist.remove()
        color = _color(w.name, list(self.controllers).index(w.name))
        path = _pen_path(w.xy_d, w.pen_down)
        self._static = [ax.plot(*path.T, color=INK, lw=lw, solid_capstyle="round", zorder=1)[0]
                        for ax, lw in ((self._ax_arm, 2), (self._ax_word, 6))]
        self._static.append(self._ax_err.plot(w.t, 1e3 * w.e_xy + 1e-3, color=color, lw=1.2)[0])   # log: no 0
        for artist in (*self._trace, self._tip, self._dot):
            artist.set_color(color)
        lo, hi = np.nanmin(path, axis=0), np.nanmax(path, axis=0)
        pad = 0.08 * (hi[0] - lo[0]) + 0.03
        self._ax_word.set(xlim=(lo[0] - pad, hi[0] + pad), ylim=(lo[1] - pad, hi[1] + pad))
        e_mm = 1e3 * w.e_xy + 1e-3
        self._ax_err.set(xlim=(0, w.t[-1]), ylim=(0.5 * np.percentile(e_mm, 2), 2 * e_mm.max()))
        self._ax_word.set_title(f"“{w.word}” by {w.name}: pen (dot), target (×)",
                                fontsize=11)
        self._ax_arm.set_title(f"pen speed {w.speed * SPEED:.2g} m/s ({w.speed:g}× the training letters')",
                               fontsize=11)
        self._ax_err.set_title(f"pen error: RMS {1e3 * w.rms:.2f} mm, max {1e3 * w.max:.2f} mm", fontsize=11)

    # ------------------------------------------------------------------ computing (once per word) and drawing
    def _clean(self, word):
        return word.strip() if isinstance(word, str) else word

    def _written(self, word, name, speed):
        """The Writing of (word, name, speed), from the cache or tracked now; a message (str) if it cannot be."""
        key = (word, name, speed)
        if key in self._cache:
            return self._cache[key]
        if not isinstance(word, str):
            return f"the word must be text, e.g. 'hello', got {html.escape(repr(word))}"
        if not word:
            return "Type a word first (letters, digits or punctuation)."
        if len(word) > MAX_WORD:
            return f"“{html.escape(word[:20])}…” has {len(word)} characters; the desk writes at most {MAX_WORD}."
        start = time.perf_counter()
        try:
            reference = write_word(word, self.chain, speed=speed * SPEED)
            if reference.duration > MAX_SECONDS:
                return (f"“{html.escape(word)}” takes {reference.duration:.0f} s to write at this speed; the desk "
                        f"writes at most {MAX_SECONDS:.0f} s: try a shorter word")
            result = track(self.controllers[name], reference, self.chain, dt=self.dt)
        except Exception as err:                    # noqa: BLE001 -- shown to the learner; the last word stays
            return f"Cannot write “{html.escape(word)}” with {html.escape(name)}: {html.escape(str(err))}"
        written = Writing(word, name, speed, reference, result, self.chain, self.frame_every,
                          seconds=time.perf_counter() - start)
        self._cache[key] = written
        if len(self._cache) > 24:                   # bounded memory: forget the oldest
            self._cache.pop(next(iter(self._cache)))
        return written

    def write(self, word=None, controller=None, speed=None, at=0.0):
        """Show (word, controller, speed) (defaults: the widgets'), tracking first if needed, from the
        fraction `at` of the writing; bad input shows a message and keeps the last good word.  True if shown."""
        if self._busy:
            return False
        word = self._clean(self.word.value if word is None else word)
        name = self.controller.value if controller is None else controller
        speed = self.speed.value if speed is None else speed
        unknown = (("controller", name, list(self.controllers)) if name not in self.controllers else
                   ("speed", speed, list(self.speeds)) if speed not in self.speeds else None)
        if unknown is not None:
            what, got, valid = unknown
            self.message.value = (f"<span class='writing-error' role='alert' style='color:#c62828'>Cannot write: "
                                  f"{what} {html.escape(repr(got))} is not one of this desk's, "
                                  f"{html.escape(', '.join(map(repr, valid)))}</span>")
            return False
        self._busy, self.write_button.disabled = True, True
        self.play.playing = False
        if (word, name, speed) not in self._cache:
            self.message.value = "<span class='writing-busy'>tracking on the true arm…</span>"
        try:
            written = self._written(word, name, speed)
        finally:
            self._busy, self.write_button.disabled = False, False
        if isinstance(written, str):
            self.message.value = f"<span class='writing-error' role='alert' style='color:#c62828'>{written}</span>"
            self._set_widgets(self.shown)           # back to what is shown
            return False
        self.message.value = ""
        self._show_writing(written, round(at * (len(written.frames) - 1)))
        return True

    def _set_widgets(self, w):
        self._syncing = True
        try:
            self.controller.value, self.speed.value = w.name, w.speed
        finally:
            self._syncing = False

    def _show_writing(self, w, frame=0):
        self.shown = w
        self._set_widgets(w)
        self._draw_background(w)
        self.aria.set({"img.writing-plot": {"alt": (
            f"The arm writing “{w.word}” with {w.name} at {w.speed:g}× pen speed. Left: the whole arm; top right: "
            f"the word, the pen as a dot and where it should be as ×; bottom right: the pen's error over time "
            f"(RMS {1e3 * w.rms:.2f} mm, at most {1e3 * w.max:.2f} mm).")}})
        self._syncing = True
        try:
            self.frame.max = self.play.max = len(w.frames) - 1
            self.frame.value = self.play.value = min(frame, len(w.frames) - 1)
        finally:
            self._syncing = False
        self.show(self.frame.value, full=True)

    def show(self, frame, full=False):
        """Draw animation frame `frame` of the shown word (only the moving parts unless full)."""
        w = self.shown
        k = int(w.frames[int(np.clip(frame, 0, len(w.frames) - 1))])
        self._arm.set_data(*w.points[k].T)
        trace = _pen_path(w.xy[:k + 1], w.pen_down[:k + 1])
        for line in self._trace:
            line.set_data(*trace.T)
        self._tip.set_data([w.xy[k, 0]], [w.xy[k, 1]])
        self._target.set_data([w.xy_d[k, 0]], [w.xy_d[k, 1]])
        self._cursor.set_xdata([w.t[k], w.t[k]])
        self._dot.set_data([w.t[k]], [1e3 * w.e_xy[k] + 1e-3])
        self.plot.value = self._fig.full() if full else self._fig.fast()
        limit = " <b>(at its limit)</b>" if w.saturated[k] else ""
        self.readout.value = (
            f"<div>t = <b class='writing-t'>{w.t[k]:.2f}</b> s of {w.t[-1]:.2f} s · pen error now "
            f"<b class='writing-error-now'>{1e3 * w.e_xy[k]:.2f}</b> mm · over the word: RMS "
            f"<b class='writing-rms'>{1e3 * w.rms:.2f}</b> mm, max {1e3 * w.max:.2f} mm · torque "
            f"({', '.join(f'{v:.1f}' for v in w.tau[k])}) N m{limit} · simulated on this machine in "
            f"<span class='writing-seconds'>{w.seconds:.1f}</span> s</div>")

    # ------------------------------------------------------------------ callbacks
    def _on_write(self, change=None):
        if self.write() and self.play.max > 0:
            self.play.playing = True                # the browser starts the animation

    def _on_choice(self, change):
        if not self._syncing:                       # the same moment of the word, another controller or speed
            self.write(word=self.shown.word, at=self.frame.value / max(1, self.frame.max))

    def _on_frame(self, change):
        if not self._syncing:
            self.show(change["new"])
