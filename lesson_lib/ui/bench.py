"""The Bench: train a DeLaN live and watch its learned M(q) (green) land on the true M(q) (gold).

    from lesson_lib.ui.bench import Bench
    Bench()            # in a notebook cell: sliders, Train, Reset, readouts, plots, PASS badge

Everything shown is computed by the library: the model (lesson_lib.model.delan), the truth (lesson_lib.physics.chain) and
the lesson's check (lesson_lib.evaluation.metrics).  Every callback is a method, so tests drive the Bench without a
browser: set `bench.q0.value`, call `bench.train_button.click()`, then read `bench.badge.value`.
Figures are drawn once; a slider move only moves their lines and markers and re-renders one PNG.
"""
import html
import io

import ipywidgets as widgets
import numpy as np
import PIL.Image
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..physics.chain import double_pendulum
from ..data import sample_uniform
from ..model.delan import DeLaN
from ..evaluation.metrics import compare_mass_matrices, torus_grid
from ..facts import GRID_POINTS, HIDDEN, LR, N_SAMPLES, PASS_MAX_ERROR, SEED, STEPS_PER_PRESS
from ..model.training import TrainingDiverged

GOLD, GREEN = "#c9a227", "#2e8b57"      # true M, learned M (also told apart by line style)


class _BlittedFigure:
    """A figure rendered to PNG bytes, fast when only its animated artists changed.

    `full()` draws everything and keeps the static background; `fast()` restores that background and draws
    only the animated artists (lines and markers that follow the sliders): blitting, as in matplotlib's
    animation guide, but into an image widget, so it works the same in JupyterLab, Notebook 7 and Voilà.
    """

    def __init__(self, fig, animated):
        self.fig, self.canvas, self.animated = fig, FigureCanvasAgg(fig), animated
        for artist in animated:
            artist.set_animated(True)
        self.background = None

    def full(self):
        self.canvas.draw()
        self.background = self.canvas.copy_from_bbox(self.fig.bbox)
        return self.fast()

    def fast(self):
        if self.background is None:
            return self.full()
        self.canvas.restore_region(self.background)
        for artist in self.animated:
            self.fig.draw_artist(artist)
        buf = io.BytesIO()
        PIL.Image.frombuffer("RGBA", self.canvas.get_width_height(), self.canvas.buffer_rgba()).save(
            buf, format="png", compress_level=1)
        return buf.getvalue()


def _matrix_html(M, color, title, cls):
    rows = "".join("<tr>" + "".join(f"<td style='padding:2px 8px;text-align:right'>{v:.3f}</td>" for v in row)
                   + "</tr>" for row in M)
    return (f"<div class='{cls}' style='display:inline-block;margin-right:18px;color:{color}'>"
            f"<b>{html.escape(title)}</b><table style='font-family:monospace;font-size:15px;"
            f"border-left:2px solid {color};border-right:2px solid {color}'>{rows}</table></div>")


class Bench:
    """Interactive DeLaN bench for a 2-joint chain (default: the double pendulum).

    chain: the true robot (PlanarChain with 2 joints); model: a DeLaN (default DeLaN(seed=seed, hidden=...));
    data: dict from sample_uniform (default N_SAMPLES samples with the same seed); steps_per_press: steps per
    Train press; update_every: steps between live updates while training.
    """

    def __init__(self, chain=None, model=None, data=None, seed=SEED, hidden=HIDDEN, lr=LR,
                 steps_per_press=STEPS_PER_PRESS, update_every=250, grid_points=GRID_POINTS):
        self.chain = double_pendulum() if chain is None else chain
        if self.chain.n_dof != 2:
            raise ValueError(f"the Bench shows a 2-joint robot, got a chain with {self.chain.n_dof} joints")
        self.model = DeLaN(n_dof=2, hidden=hidden, seed=seed, lr=lr) if model is None else model
        self.data = sample_uniform(self.chain, N_SAMPLES, seed=seed) if data is None else data
        self.steps_per_press, self.update_every = int(steps_per_press), int(update_every)
        self.grid = torus_grid(2, grid_points)
        self.grid_points = grid_points
        self._M_true_grid = self.chain.mass_matrix(self.grid)   # the truth over the grid never changes
        self._busy = False
        self._build_widgets()
        self._build_figures()
        self.refresh()

    # ------------------------------------------------------------------ widgets
    def _build_widgets(self):
        slider = dict(min=-np.pi, max=np.pi, step=0.01, readout_format=".2f", continuous_update=True,
                      style={"description_width": "70px"}, layout=widgets.Layout(width="360px"))
        self.q0 = widgets.FloatSlider(value=0.5, description="q0 (rad)", **slider).add_class("bench-q0")
        self.q1 = widgets.FloatSlider(value=1.0, description="q1 (rad)", **slider).add_class("bench-q1")
        self.train_button = widgets.Button(description=f"Train ×{self.steps_per_press}", button_style="success",
                                           icon="play").add_class("bench-train")
        self.reset_button = widgets.Button(description="Reset", icon="undo").add_class("bench-reset")
        self.progress = widgets.IntProgress(min=0, max=self.steps_per_press, value=0,
                                            layout=widgets.Layout(width="240px")).add_class("bench-progress")
        self.matrices = widgets.HTML().add_class("bench-matrices")
        self.readout = widgets.HTML().add_class("bench-readout")
        self.status = widgets.HTML().add_class("bench-status")
        self.badge = widgets.HTML().add_class("bench-badge")
        self.message = widgets.HTML().add_class("bench-message")
        self.plot = widgets.Image(format="png", layout=widgets.Layout(width="560px")).add_class("bench-plot")
        self.eigmap = widgets.Image(format="png", layout=widgets.Layout(width="400px")).add_class("bench-eigmap")
        self.q0.observe(self._on_slider, names="value")
        self.q1.observe(self._on_slider, names="value")
        self.train_button.on_click(self._on_train)
        self.reset_button.on_click(self._on_reset)
        self.ui = widgets.VBox([
            widgets.HBox([self.q0, self.q1]),
            widgets.HBox([self.train_button, self.reset_button, self.progress]),
            widgets.HBox([self.matrices, widgets.VBox([self.readout, self.status, self.badge])]),
            widgets.HBox([self.plot, self.eigmap]),
            self.message,
        ]).add_class("bench")

    def _repr_mimebundle_(self, **kwargs):
        """Show the widget; its text form stays short and stable (nbval compares it)."""
        bundle = self.ui._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = f"Bench(steps per press={self.steps_per_press}, seed={self.model.seed})"
        return bundle

    # ------------------------------------------------------------------ figures (drawn once, then updated)
    def _build_figures(self):
        angles = np.linspace(-np.pi, np.pi, 121)
        self._angles = angles
        fig = Figure(figsize=(7.0, 4.6), dpi=80)
        axes = fig.subplots(2, 2, sharex=True)
        self._lines = {}
        for (i, j), ax in np.ndenumerate(axes):
            (true,) = ax.plot(angles, angles * 0, color=GOLD, lw=2.5, ls="-", label="true M (RNEA)")
            (learned,) = ax.plot(angles, angles * 0, color=GREEN, lw=2, ls="--", label="learned M (DeLaN)")
            (mark,) = ax.plot([0], [0], "o", color="black", ms=6, label="current q")
            ax.set_title(f"M[{i},{j}]", fontsize=10)
            ax.set_ylabel("kg m²")
            ax.grid(alpha=0.3)
            self._lines[i, j] = (true, learned, mark)
        for ax in axes[1]:
            ax.set_xlabel("q1 (rad)")
        fig.legend(handles=list(self._lines[0, 0]), loc="lower center", ncol=3, fontsize=9, frameon=False)
        fig.suptitle("Mass matrix along q1 through the current q (q0 fixed at its slider value)", fontsize=10)
        fig.subplots_adjust(left=0.1, right=0.98, top=0.9, bottom=0.19, hspace=0.35, wspace=0.28)
        self._axes = axes
        self._plot_fig = _BlittedFigure(fig, [a for i, j in self._lines for a in self._lines[i, j][1:]])

        efig = Figure(figsize=(5.0, 4.6), dpi=80)
        eax = efig.subplots()
        n = self.grid_points
        self._eig_image = eax.imshow(np.zeros((n, n)), origin="lower", extent=(-np.pi, np.pi, -np.pi, np.pi),
                                     cmap="viridis", aspect="equal")
        efig.colorbar(self._eig_image, ax=eax, label="min eigenvalue of learned M (kg m²)")
        (self._eig_mark,) = eax.plot([0], [0], "x", color="red", ms=10, mew=2)
        eax.set_xlabel("q0 (rad)")
        eax.set_ylabel("q1 (rad)")
        efig.subplots_adjust(left=0.14, right=0.92, top=0.86, bottom=0.12)
        self._eig_ax = eax
        self._eig_fig = _BlittedFigure(efig, [self._eig_mark])

    # ------------------------------------------------------------------ updates
    @property
    def q(self):
        """The configuration the sliders show, (2,)."""
        return np.array([self.q0.value, self.q1.value])

    def refresh(self):
        """Recompute everything that depends on the model (after training or reset), then the current q."""
        M_grid = self.model.mass_matrix(self.grid)
        lam = np.linalg.eigvalsh(M_grid).min(axis=1)
        self._eig_image.set_data(lam.reshape(self.grid_points, self.grid_points).T)
        self._eig_image.set_clim(min(0.0, lam.min()), lam.max())
        self._eig_ax.set_title(f"learned M: min eigenvalue over the torus\nlowest {lam.min():.3f} "
                               f"({'> 0 everywhere: SPD' if lam.min() > 0 else 'NOT positive everywhere'})",
                               fontsize=10)
        M_true = self._M_true_grid
        for (i, j), (true, learned, mark) in self._lines.items():
            lo, hi = min(M_grid[:, i, j].min(), M_true[:, i, j].min()), max(M_grid[:, i, j].max(), M_true[:, i, j].max())
            half = max(0.55 * (hi - lo), 0.25)            # at least 0.5 kg m^2 tall, so scales are comparable
            self._axes[i, j].set_ylim((lo + hi) / 2 - half, (lo + hi) / 2 + half)
        self._update_status(M_grid)
        self.update_q(full=True)

    def _update_status(self, M_grid=None):
        """Step, loss, whole-grid error and the PASS badge (M_grid: the learned M over the grid, if known)."""
        M_grid = self.model.mass_matrix(self.grid) if M_grid is None else M_grid
        check = compare_mass_matrices(M_grid, self._M_true_grid)
        self.last_check = check
        losses = self.model.loss_history
        loss = f"{np.mean(losses[-50:]):.4f}" if losses else "not trained yet"
        self.status.value = (f"<div>step <b class='bench-step'>{self.model.step}</b> · loss {loss}<br>"
                             f"max |M̂ − M| over the {self.grid_points}×{self.grid_points} torus grid: <b class='bench-grid-error'>"
                             f"{check['max_error']:.3f}</b> (PASS below {PASS_MAX_ERROR})<br>"
                             f"min eigenvalue over the grid: {check['min_eig']:.4f}</div>")
        ok = check["passed"]
        self.badge.value = (f"<span style='font-size:18px;font-weight:bold;padding:2px 10px;border-radius:4px;"
                            f"color:white;background:{'#2e7d32' if ok else '#c62828'}'>{'PASS' if ok else 'FAIL'}"
                            f"</span> <span>{'learned M matches the truth everywhere and is SPD' if ok else 'not yet: press Train'}</span>")

    def _set_slices(self, with_truth):
        """Slices of the learned (and, with_truth, the true) M along q1 with q0 at its slider value.  The true
        M of a planar chain does not depend on q0, so its lines are static background, set on full redraws
        only; the learned one must learn that independence, so its lines follow every slider move."""
        qs = np.stack([np.full_like(self._angles, self.q0.value), self._angles], axis=-1)
        M_hat_line = self.model.mass_matrix(qs)
        M_line = self.chain.mass_matrix(qs) if with_truth else None
        for (i, j), (true, learned, mark) in self._lines.items():
            learned.set_ydata(M_hat_line[:, i, j])
            if with_truth:
                true.set_ydata(M_line[:, i, j])

    def update_q(self, full=False):
        """Redraw what depends on the current q only: matrices, readouts, slices and markers."""
        q = self.q
        M_hat, M = self.model.mass_matrix(q), self.chain.mass_matrix(q)
        err, lam = np.abs(M_hat - M).max(), np.linalg.eigvalsh(M_hat).min()
        self.matrices.value = (_matrix_html(M_hat, GREEN, "learned M(q)", "bench-learned")
                               + _matrix_html(M, GOLD, "true M(q)", "bench-true"))
        self.readout.value = (f"<div>at q = ({q[0]:.2f}, {q[1]:.2f}) rad:<br>largest entry error "
                              f"<b class='bench-q-error'>{err:.3f}</b><br>min eigenvalue of learned M "
                              f"<b class='bench-q-eig'>{lam:.4f}</b></div>")
        self._set_slices(with_truth=full)
        for (i, j), (true, learned, mark) in self._lines.items():
            mark.set_data([q[1]], [M_hat[i, j]])
        self._eig_mark.set_data([q[0]], [q[1]])
        self.plot.value = self._plot_fig.full() if full else self._plot_fig.fast()
        self.eigmap.value = self._eig_fig.full() if full else self._eig_fig.fast()

    # ------------------------------------------------------------------ callbacks
    def _on_slider(self, change):
        self.update_q()

    def _set_busy(self, busy):
        self._busy = busy
        self.train_button.disabled = self.reset_button.disabled = busy

    def _on_train(self, button=None):
        self.train(self.steps_per_press)

    def _on_reset(self, button=None):
        if self._busy:
            return
        self.model.reset()
        self.progress.value = 0
        self.message.value = "<span class='bench-info'>Model re-initialised from its seed: untrained, and already SPD.</span>"
        self.refresh()

    def train(self, steps):
        """Train `steps` more steps with live updates every `update_every` steps; keeps the last good state
        and explains what happened if training diverges."""
        if self._busy:
            return
        self._set_busy(True)
        self.progress.max, self.progress.value = steps, 0
        start = self.model.step
        self.message.value = ""

        def live(model):                            # cheap live update; the full redraw comes at the end
            self.progress.value = model.step - start
            self._update_status()
            self.update_q()
        d = self.data
        try:
            self.model.fit(d["q"], d["qd"], d["qdd"], d["tau"], steps=steps, callback=live, every=self.update_every)
        except TrainingDiverged as err:
            self.message.value = f"<span class='bench-error' style='color:#c62828'><b>Training stopped.</b> {html.escape(str(err))}</span>"
        finally:
            self.progress.value = self.model.step - start
            self._set_busy(False)
            self.refresh()
