"""The Bench: train a DeLaN live and watch its learned M(q) (teal, dashed) land on the true M(q) (gold, solid).

    Bench()            # in a notebook cell: sliders, Train, Reset, readouts, plots, PASS badge

Everything shown is computed by the library (model.delan, physics.chain, evaluation.metrics).  Tests drive it
without a browser: set `bench.q0.value`, call `bench.train_button.click()`, read `bench.badge.value`.

One state, one picture: every update measures the model, then writes every panel from those numbers in one fixed
order, the ARIA attributes last, so all panels show the same step.  Figures are drawn once and blitted; a full
redraw only when a curve leaves its limits.  Every callback shows its exception in the message area and leaves
the Bench usable; Train is fit's transaction."""
import collections
import datetime
import functools
import html
import threading
import time

import ipywidgets as widgets
import numpy as np
import traitlets
from matplotlib.figure import Figure

from lesson_lib.data import sample_uniform
from lesson_lib.evaluation.metrics import compare_mass_matrices, torque_nmse, torus_grid
from lesson_lib.facts import GRID_POINTS, HIDDEN, LR, N_SAMPLES, PASS_MAX_ERROR, SEED, STEPS_PER_PRESS
from lesson_lib.model.blackbox import BlackBox
from lesson_lib.model.delan import DeLaN
from lesson_lib.model.training import TrainingDiverged, single_blas_thread
from lesson_lib.physics.chain import PlanarChain, double_pendulum
from lesson_lib.validate import as_data, integer, number, within_limit

from ..limits import MAX_GRID_POINTS, MAX_STEPS_PER_PRESS
from . import palette
from .aria import AriaCarrier
from .blit import BlittedFigure

SLIDER_STEP = 0.05                     # rad per arrow key (PageUp/PageDown: 5 steps); the readout takes any value


class _Unchecked(traitlets.Any):
    """A trait that hands every value, None too, to the owner's validator (traitlets.Any passes None by)."""
    allow_none = False


def _sent_time():
    """When the page sent the message being handled (its header's date, the browser's clock), or None."""
    try:
        from IPython import get_ipython
        date = get_ipython().kernel.get_parent("shell")["header"]["date"]
    except Exception:                          # no kernel (plain Python), no parent, no header: no date
        return None
    if isinstance(date, str):
        try:
            date = datetime.datetime.fromisoformat(date.replace("Z", "+00:00"))
        except ValueError:
            return None
    return date if isinstance(date, datetime.datetime) else None


class _PressButton(widgets.Button):
    """A Button that knows when the page sent the click it handles (`sent`, None from code): the Bench
    ignores a click sent before the last press ended (`Bench._sent_during_press`), and no other."""

    _sent = threading.local()              # per thread: JupyterLab may handle two clicks at once (`_one_at_a_time`)

    @property
    def sent(self):
        return getattr(self._sent, "date", None)

    def _handle_button_msg(self, _, content, buffers):
        if content.get("event", "") == "click":
            self._sent.date = _sent_time()
            try:
                self.click()
            finally:
                self._sent.date = None


class _AngleSlider(widgets.FloatSlider):
    """A FloatSlider for an angle (rad) that refuses what is not a finite real number, keeping its last
    good value and calling `on_refused(message)`; out-of-range values are clamped."""

    value = _Unchecked(0.0, help="Float value").tag(sync=True)

    def __init__(self, name, on_refused, **kwargs):
        self._angle, self._on_refused = name, on_refused
        super().__init__(**kwargs)

    @traitlets.validate("value")
    def _validate_value(self, proposal):
        try:
            value = number(self._angle, proposal["value"], hint="give an angle in radians")
        except (TypeError, ValueError) as err:
            kept = self.value
            self._on_refused(f"{err}. Kept {self._angle} = {kept:.2f} rad.")
            return kept
        return min(max(value, self.min), self.max)


def _fixed(v, digits):
    """v with `digits` decimals, never "-0.000" (a tiny negative rounds to zero, shown without its sign)."""
    return f"{round(float(v), digits) + 0.0:.{digits}f}"


def _matrix_html(M, color, title, cls, style):
    rows = "".join("<tr>" + "".join(f"<td style='padding:2px 8px;text-align:right;font-family:monospace;"
                                    f"font-size:15px'>{_fixed(v, 3)}</td>" for v in row) + "</tr>" for row in M)
    return (f"<div class='{cls}' style='display:inline-block;margin-right:18px;color:{color}'>"
            f"<table style='border-left:2px {style} {color};"
            f"border-right:2px {style} {color}'><caption style='text-align:left;font-weight:bold'>"
            f"{html.escape(title)}</caption>{rows}</table></div>")


def _progress_html(done, asked):
    """A progress bar with the progressbar role, its values and a name (ipywidgets' IntProgress has none)."""
    return (f"<div role='progressbar' aria-label='Training progress' aria-valuemin='0' aria-valuemax='{asked}' "
            f"aria-valuenow='{done}' aria-valuetext='{done} of {asked} steps' style='width:240px;height:18px;"
            f"margin:7px 4px;background:{palette.TRACK};border:1px solid {palette.TRACK_EDGE};border-radius:3px'>"
            f"<div style='height:100%;width:{100 * done / asked if asked else 0:.1f}%;background:{palette.RUNNING}'>"
            f"</div></div>")


def _badge_html(label, background, text):
    return (f"<span class='bench-badge-label' style='font-size:18px;font-weight:bold;padding:2px 10px;"
            f"border-radius:4px;color:white;background:{background}'>{label}</span> <span>{text}</span>")


def _two_joints(name, obj, cls, what, fix):
    """obj if it is a `cls` with 2 joints, else raise: the Bench shows a double pendulum."""
    if not isinstance(obj, cls):
        raise TypeError(f"{name} must be {what}, got {type(obj).__name__}; {fix}")
    if obj.n_dof != 2:
        raise ValueError(f"{name} must have 2 joints (the Bench shows a double pendulum), got a "
                         f"{type(obj).__name__} with {obj.n_dof} joints (n_dof={obj.n_dof}); {fix}")
    return obj


def _check_model(model):
    fix = "pass DeLaN(n_dof=2) or leave model out"
    if isinstance(model, BlackBox):
        raise TypeError(f"model must be a DeLaN, got {model!r}: a black box learns the whole map "
                        f"(q, qd, qdd) -> tau and has no mass matrix M(q) for the Bench to show; {fix}")
    return _two_joints("model", model, DeLaN, "a DeLaN with 2 joints", fix)


def _check_chain(chain):
    return _two_joints("chain", chain, PlanarChain, "the true robot, a PlanarChain with 2 joints",
                       "e.g. chain=double_pendulum()")


def _check_data(data):
    """data: a data dict as sample_uniform returns (_validate.as_data: q, qd, qdd, tau of shape (N, 2), N >= 2),
    whose torques vary on both joints (the loss divides by their variance)."""
    checked = as_data("data", data, 2, min_samples=2)
    flat = np.flatnonzero(checked["tau"].std(axis=0) == 0)
    if flat.size:
        raise ValueError(f"data['tau'] is constant in joint {int(flat[0])}: there is nothing to learn from, and the "
                         f"loss (torque error / variance) is undefined; e.g. data=sample_uniform(chain, 4096)")
    return {k: checked[k] for k in ("q", "qd", "qdd", "tau")}


def _one_at_a_time(method):
    """Decorate a Bench method so that it waits for any other one running in another thread.  JupyterLab 4.6 with
    ipykernel 7 handles widget messages in a kernel subshell, a thread beside the cells (its setting
    commsOverSubshells, which binder/jupyter-settings turns off for the course; Voilà has none): a click or a slider
    move during a press then waits for its end, as in every other front end, and no two threads draw at once."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return wrapper


def _shows_errors(action):
    """Decorate a widget callback so that it runs one at a time (`_one_at_a_time`) and its exception is shown in
    the Bench's message area (not ipywidgets' hidden log); the Bench stays usable."""
    def decorate(callback):
        @functools.wraps(callback)
        @_one_at_a_time
        def wrapper(self, *args):
            try:
                return callback(self, *args)
            except Exception as err:
                self._say(self._error_markup(f"{action} failed.", err))
        return wrapper
    return decorate


class Bench:
    """Interactive DeLaN bench for a 2-joint chain (default: the double pendulum).

    chain: a 2-joint PlanarChain; model: a 2-joint DeLaN (default DeLaN(seed, hidden, lr)); data: a sample_uniform
    dict (default N_SAMPLES with `seed`); steps_per_press; update_every: steps between live updates; grid_points: the
    PASS check's torus grid.  Every argument is checked."""

    def __init__(self, chain=None, model=None, data=None, seed=SEED, hidden=None, lr=None,
                 steps_per_press=STEPS_PER_PRESS, update_every=250, grid_points=GRID_POINTS):
        seed = integer("seed", seed, low=0)
        self.chain = double_pendulum() if chain is None else _check_chain(chain)
        if model is None:
            self.model = DeLaN(n_dof=2, hidden=HIDDEN if hidden is None else hidden, seed=seed,
                               lr=LR if lr is None else lr)
        elif hidden is not None or lr is not None:
            raise ValueError("give either a model or hidden/lr for a new one, not both: a given model keeps its "
                             "own hidden sizes and learning rate (set model.lr to change it)")
        else:
            self.model = _check_model(model)
        self.data = sample_uniform(self.chain, N_SAMPLES, seed=seed) if data is None else _check_data(data)
        self.steps_per_press = within_limit("steps_per_press", integer("steps_per_press", steps_per_press, low=1),
                                            MAX_STEPS_PER_PRESS, "press Train several times instead")
        self.update_every = integer("update_every", update_every, low=1)
        self.grid_points = within_limit("grid_points", integer("grid_points", grid_points, low=2),
                                        MAX_GRID_POINTS)
        self.grid = torus_grid(2, self.grid_points)
        self._M_true_grid = self.chain.mass_matrix(self.grid)   # the truth over the grid never changes
        self._lock = threading.RLock()                          # `_one_at_a_time`
        self._busy = False
        self._press = None                                      # (steps done, steps asked) while training
        # when the last press ended (kernel clock), and what it said
        self._press_ended, self._message_after_press = None, ""
        self._click_delays = collections.deque(maxlen=8)        # kernel clock minus page clock, for recent clicks
        self._build_widgets()
        self._build_figures()
        self.refresh()

    # ------------------------------------------------------------------ widgets
    def _build_widgets(self):
        slider = dict(min=-np.pi, max=np.pi, step=SLIDER_STEP, readout_format=".2f", continuous_update=True,
                      style={"description_width": "70px"}, layout=widgets.Layout(width="360px"),
                      on_refused=self._refused)
        self.q0 = _AngleSlider("q0", value=0.5, description="q0 (rad)", **slider).add_class("bench-q0")
        self.q1 = _AngleSlider("q1", value=1.0, description="q1 (rad)", **slider).add_class("bench-q1")
        self.train_button = _PressButton().add_class("bench-train")                 # no icon font: a glyph
        self.reset_button = _PressButton(description="↺ Reset").add_class("bench-reset")
        self.progress = widgets.HTML().add_class("bench-progress")
        self.matrices = widgets.HTML().add_class("bench-matrices")
        self.readout = widgets.HTML().add_class("bench-readout")
        self.status = widgets.HTML().add_class("bench-status")
        self.badge = widgets.HTML().add_class("bench-badge")
        self.message = widgets.HTML().add_class("bench-message")
        self.plot = widgets.Image(format="png", layout=widgets.Layout(width="560px")).add_class("bench-plot")
        self.eigmap = widgets.Image(format="png", layout=widgets.Layout(width="400px")).add_class("bench-eigmap")
        self.eig_caption = widgets.HTML(layout=widgets.Layout(width="400px", margin="0")).add_class("bench-eig-caption")
        self.aria = AriaCarrier("bench")
        self.q0.observe(self._on_slider, names="value")
        self.q1.observe(self._on_slider, names="value")
        self.train_button.on_click(self._on_train)
        self.reset_button.on_click(self._on_reset)
        angles = widgets.HTML("<span class='bench-angle-help' style='font-size:0.9em'>Drag a slider, or type an "
                              "angle into the box beside it: radians from −3.14 to 3.14 (a number beyond is set to "
                              "the nearest end; anything else is not taken).</span>")
        self.ui = widgets.VBox([
            widgets.HBox([self.q0, self.q1]), angles,
            widgets.HBox([self.train_button, self.reset_button, self.progress]),
            widgets.HBox([self.matrices, widgets.VBox([self.readout, self.status, self.badge])]),
            widgets.HBox([self.plot, widgets.VBox([self.eig_caption, self.eigmap])],
                         layout=widgets.Layout(flex_flow="row wrap")),                            # narrow: stack
            self.message,
            self.aria.widget,
        ]).add_class("bench")

    def _repr_mimebundle_(self, **kwargs):
        """Show the widget; its text form stays short and stable (nbval compares it)."""
        bundle = self.ui._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = f"Bench(steps per press={self.steps_per_press}, seed={self.model.seed})"
        return bundle

    # ------------------------------------------------------------------ figures (drawn once, then updated)
    def _build_figures(self):
        self._angles = np.linspace(-np.pi, np.pi, 121)
        fig = Figure(figsize=(7.0, 4.6), dpi=80)
        axes = fig.subplots(2, 2, sharex=True)
        self._lines = {}
        # The true M of a planar chain does not depend on q0: its slices along q1 are static background.
        self._M_true_line = M_true_line = self.chain.mass_matrix(
            np.stack([np.zeros_like(self._angles), self._angles], axis=-1))
        for (i, j), ax in np.ndenumerate(axes):
            (true,) = ax.plot(self._angles, M_true_line[:, i, j], color=palette.TRUE, lw=2.5, ls="-",
                              label="true M (RNEA)")
            (learned,) = ax.plot(self._angles, 0 * self._angles, color=palette.LEARNED, lw=2, ls="--",
                                 label="learned M (DeLaN)")
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
        self._plot_fig = BlittedFigure(fig, [a for line in self._lines.values() for a in line[1:]])

        # The map's title is the HTML caption above it (eig_caption): its changing line costs nothing to draw
        # there, where matplotlib would lay out and render its text at every update.  The caption's two lines
        # and this figure are as tall as the plot beside them.
        efig = Figure(figsize=(5.0, 4.2), dpi=80)
        eax = efig.subplots()
        n = self.grid_points
        # One cell per grid point, the value the check saw there ("nearest": no resampling filter, which cost
        # most of the map's redraw at each update and showed the same cells).
        self._eig_image = eax.imshow(np.zeros((n, n)), origin="lower", extent=(-np.pi, np.pi, -np.pi, np.pi),
                                     cmap=palette.EIGEN_MAP, aspect="equal", interpolation="nearest")
        efig.colorbar(self._eig_image, ax=eax, extend="max", label="min eigenvalue of learned M (kg m²)")
        (self._eig_mark,) = eax.plot([0], [0], "X", ms=13, mfc=palette.MARKER_FACE, mec=palette.MARKER_EDGE,
                                     mew=1.5)
        eax.set_xlabel("q0 (rad)")
        eax.set_ylabel("q1 (rad)")
        efig.subplots_adjust(left=0.14, right=0.92, top=0.97, bottom=0.13)
        self._eig_fig = BlittedFigure(efig, [self._eig_mark], slow=[self._eig_image])

    def _fit_limits(self, lam, force=False):
        """Keep each axis's limits (and the colour scale) while the data stay inside them, so updates only
        blit; otherwise (or with force) fit them to the truth and the learned model.  True if they changed."""
        changed = force
        M_true = self._M_true_grid
        for (i, j), (_true, learned, _mark) in self._lines.items():
            y = learned.get_ydata()
            lo, hi = self._axes[i, j].get_ylim()
            if force or y.min() < lo or y.max() > hi:
                lo = min(y.min(), M_true[:, i, j].min())
                hi = max(y.max(), M_true[:, i, j].max())
                half = max(0.6 * (hi - lo), 0.25)             # at least 0.5 kg m^2 tall, so scales compare
                self._axes[i, j].set_ylim((lo + hi) / 2 - half, (lo + hi) / 2 + half)
                changed = True
        # The colour scale runs from 0 (or below, should SPD ever fail) to a little above the truth's largest
        # smallest eigenvalue: the trained map is compared with the truth's; higher values saturate.
        vmin = self._eig_image.get_clim()[0]
        if force or lam.min() < vmin:
            self._eig_image.set_clim(min(0.0, lam.min()), 1.25 * np.linalg.eigvalsh(M_true)[:, 0].max())
            changed = True
        return changed

    # ------------------------------------------------------------------ measuring (model -> numbers)
    @property
    def q(self):
        """The configuration the sliders show, (2,)."""
        return np.array([self.q0.value, self.q1.value])

    def _measure_model(self):
        """What depends on the model only: the PASS check over the grid, the loss, the eigenvalue map."""
        M_grid = self.model.mass_matrix(self.grid)
        self.last_check = compare_mass_matrices(M_grid, self._M_true_grid)
        self.loss = float(np.mean(torque_nmse(self.model, self.data)))
        self._lam_grid = np.linalg.eigvalsh(M_grid)[:, 0]
        self._eig_image.set_data(self._lam_grid.reshape(self.grid_points, self.grid_points).T)
        self._measured = self.model.get_params()
        self._model_changed = True                      # the eigenvalue map's layer must be redrawn

    def _measure_q(self):
        """What depends on the current q too: M at q, its error and smallest eigenvalue, the slices along q1."""
        q = self.q
        self._M_hat, self._M = self.model.mass_matrix(q), self.chain.mass_matrix(q)
        qs = np.stack([np.full_like(self._angles, q[0]), self._angles], axis=-1)
        M_hat_line = self.model.mass_matrix(qs)
        for (i, j), (_true, learned, mark) in self._lines.items():
            learned.set_ydata(M_hat_line[:, i, j])
            mark.set_data([q[1]], [self._M_hat[i, j]])
        self._line_gap = float(np.max(np.abs(M_hat_line - self._M_true_line)))
        self._eig_mark.set_data([q[0]], [q[1]])
        self._q_changed = True                          # the plot's lines and both figures' marks moved

    # ------------------------------------------------------------------ showing (numbers -> every panel)
    # Every panel, declared once: (widget attribute, the method that draws its value from the last measurements),
    # in drawing order.  `_show` draws them all at every update; tests/test_bench.py iterates over this list (a
    # panel left out of it is never drawn, and the tests see it).
    PANELS = (("progress", "_draw_progress"), ("matrices", "_draw_matrices"), ("readout", "_draw_readout"),
              ("plot", "_draw_plot"), ("eigmap", "_draw_eigmap"), ("eig_caption", "_draw_eig_caption"),
              ("status", "_draw_status"),
              ("badge", "_draw_badge"))

    def _draw_progress(self):
        return _progress_html(*(self._press or (0, self.steps_per_press)))

    def _draw_matrices(self):
        return (_matrix_html(self._M_hat, palette.LEARNED, "learned M(q)", "bench-learned", "dashed")
                + _matrix_html(self._M, palette.TRUE, "true M(q)", "bench-true", "solid"))

    def _draw_readout(self):
        q = self.q
        err, lam = np.abs(self._M_hat - self._M).max(), np.linalg.eigvalsh(self._M_hat)[0]
        return (f"<div>at q = ({_fixed(q[0], 2)}, {_fixed(q[1], 2)}) rad:<br>largest entry error "
                f"<b class='bench-q-error'>{_fixed(err, 3)}</b><br>min eigenvalue of learned M "
                f"<b class='bench-q-eig'>{_fixed(lam, 4)}</b></div>")

    # The figures are drawn again only when something they show was measured since they were last drawn (not at
    # the start of a press, which changes the badge and the buttons only): else they keep their PNG.
    def _draw_plot(self):
        if self._full:
            return self._plot_fig.full()
        return self._plot_fig.fast() if self._q_changed else self.plot.value

    def _draw_eigmap(self):
        if self._full:
            return self._eig_fig.full()
        if self._model_changed or self._q_changed:
            return self._eig_fig.fast(slow_changed=self._model_changed)
        return self.eigmap.value

    def _draw_eig_caption(self):
        lam = self.last_check["min_eig"]
        return (f"<div style='text-align:center;font-size:12px;line-height:1.4'>learned M: smallest eigenvalue over "
                f"the torus<br>lowest <b class='bench-eig-lowest'>{lam:.4f}</b> kg m² "
                f"({'&gt; 0 everywhere: SPD' if lam > 0 else 'NOT positive everywhere'})</div>")

    def _draw_status(self):
        check = self.last_check
        return (f"<div>step <b class='bench-step'>{self.model.step}</b> · loss <span class='bench-loss'>"
                f"{self.loss:.3g}</span> (torque error / variance over all {len(self.data['q'])} samples)<br>max "
                f"|M̂ − M| over the {self.grid_points}×{self.grid_points} torus grid: <b class='bench-grid-error'>"
                f"{check['max_error']:.3f}</b> (PASS below {PASS_MAX_ERROR})<br>min eigenvalue over the grid: "
                f"<span class='bench-grid-eig'>{check['min_eig']:.4f}</span></div>")

    def _draw_badge(self):
        return self._badge(self.model.step, self.last_check)

    def _show(self, full=False):
        """Write every panel (PANELS) from the last measurements, in a fixed order, then the buttons, the ARIA
        attributes last."""
        self._full = self._fit_limits(self._lam_grid, force=full)
        for name, draw in self.PANELS:
            getattr(self, name).value = getattr(self, draw)()
        self._model_changed = self._q_changed = False
        self.train_button.description = "Training…" if self._busy else f"▶ Train ×{self.steps_per_press}"
        self.train_button.style.button_color = palette.BUSY if self._busy else palette.PASS
        self.train_button.style.text_color = "white"
        self.reset_button.style.text_color = palette.TRACK_EDGE if self._busy else None   # looks inactive
        self.aria.set(self._aria_attrs(self.q, self.model.step, self.last_check))

    def _badge(self, step, check):
        """TRAINING (with the check so far) while a press runs, else PASS or FAIL with what to do."""
        if self._busy:
            return _badge_html("TRAINING", palette.RUNNING, f"check so far: {'PASS' if check['passed'] else 'FAIL'}")
        if check["passed"]:
            return _badge_html("PASS ✓", palette.PASS, "learned M matches the truth everywhere and is SPD")
        hint = ("not trained yet: press Train" if step == 0 else
                f"max error {check['max_error']:.3f} ≥ {PASS_MAX_ERROR}: press Train again"
                if check["max_error"] >= PASS_MAX_ERROR else "the learned M is not positive everywhere")
        return _badge_html("FAIL ✗", palette.FAIL, hint)

    def _aria_attrs(self, q, step, check):
        """What ipywidgets cannot give the page: names, the images' text alternatives, live regions,
        aria-disabled buttons while training, and data-bench-step / data-bench-busy on the root (the browser tests')."""
        busy = "true" if self._busy else None
        return {
            "": {"role": "region", "aria-label": "DeLaN Bench", "data-bench-step": step,
                 "data-bench-busy": "true" if self._busy else "false"},
            ".bench-q0 .noUi-handle": {"aria-label": "q0 (rad)"},
            ".bench-q1 .noUi-handle": {"aria-label": "q1 (rad)"},
            ".bench-readout .widget-html-content": {"aria-live": "polite", "aria-atomic": "true"},
            ".bench-badge .widget-html-content": {"aria-live": "polite", "aria-atomic": "true"},
            ".bench-message .widget-html-content": {"role": "status", "aria-live": "polite"},
            "button.bench-train": {"aria-disabled": busy},
            "button.bench-reset": {"aria-disabled": busy},
            "img.bench-plot": {"alt": (
                f"Plot of the four entries of M along q1 at q0 = {q[0]:.2f} rad, step {step}: learned (dashed) "
                f"against true (solid), largest gap {self._line_gap:.3f} kg m²; the dots mark q1 = {q[1]:.2f}.")},
            "img.bench-eigmap": {"alt": (
                f"Map of the learned M's smallest eigenvalue over the whole (q0, q1) torus, step {step}: lowest "
                f"{check['min_eig']:.4f} kg m², "
                f"{'positive everywhere (SPD)' if check['min_eig'] > 0 else 'NOT positive everywhere'}; "
                f"the cross marks q = ({q[0]:.2f}, {q[1]:.2f}).")},
        }

    @_one_at_a_time
    def refresh(self):
        """Measure the model and redraw every panel, figures in full (after construction or Reset)."""
        with single_blas_thread():
            self._measure_model()
            self._measure_q()
            self._show(full=True)

    @_one_at_a_time
    def update_q(self):
        """Redraw for a new q (the model is unchanged)."""
        with single_blas_thread():
            if not np.array_equal(self._measured, self.model.get_params()):   # changed since (e.g. from code)
                self._measure_model()
            self._measure_q()
            self._show()

    # ------------------------------------------------------------------ callbacks
    def _refused(self, text):
        self._say(f"<div role='alert' class='bench-error' style='color:{palette.FAIL}'><b>Value refused.</b> "
                  f"{html.escape(text)}</div>")

    def _say(self, markup):
        self.message.value = markup

    @_shows_errors("Moving a slider")
    def _on_slider(self, change):
        self.update_q()

    def _sent_during_press(self, button):
        """Whether the page sent this click before the last press ended: one rule for every front end, whatever
        the page showed when the click left it (a double-click, a click queued behind a press, a key on the busy
        button).  The page dates its messages on its clock (`button.sent`), the press ends on the kernel's; the
        least delay seen between a recent click's date and its handling relates the two (the clocks' difference
        plus the quickest trip).  A click from code (no date) is never one."""
        sent = getattr(button, "sent", None)
        if sent is None:
            return False
        sent = sent.timestamp()
        self._click_delays.append(time.time() - sent)
        return self._press_ended is not None and sent + min(self._click_delays) < self._press_ended

    def _ignored(self, what, then):
        self._say(self._message_after_press + f"<div class='bench-info'>A click on {what} made while training ran "
                  f"was ignored: {then}</div>")

    @_shows_errors("Training")
    def _on_train(self, button=None):
        if self._sent_during_press(button):
            self._ignored("Train", "press Train again for more steps.")
            return
        self.train(self.steps_per_press)

    @_shows_errors("Reset")
    def _on_reset(self, button=None):
        if self._sent_during_press(button):
            self._ignored("Reset", "the model keeps its training; press Reset again to re-initialise it.")
            return
        self.reset()

    @_one_at_a_time
    def reset(self):
        """Re-initialise the model from its seed (untrained, already SPD) and redraw."""
        if self._busy:
            self._say("<div class='bench-info'>Training is running; Reset was ignored.</div>")
            return
        self.model.reset()
        self._press = None
        self._say("<div class='bench-info'>Model re-initialised from its seed: untrained, and already SPD.</div>")
        self.refresh()

    def _live(self, start, steps):
        """The fit callback: measure and show every panel; a failure stops this press's live updates, never
        the training."""
        def live(model):
            if self._live_error is not None or model.step - start >= steps:   # the final redraw follows
                return
            try:
                self._press = (model.step - start, steps)
                self._measure_model()
                self._measure_q()
                self._show()
            except Exception as err:
                self._live_error = err
        return live

    @_one_at_a_time
    def train(self, steps):
        """Train `steps` more steps, every panel updated every `update_every` steps.  A transaction: fit
        completes or raises with the model restored, and the Bench says so.  A click the page sent before it ended
        is ignored (`_sent_during_press`)."""
        steps = within_limit("steps", integer("steps", steps, low=1), MAX_STEPS_PER_PRESS,
                             "press Train several times instead")
        if self._busy:
            self._say("<div class='bench-info'>Training is already running; this press was ignored.</div>")
            return
        start, t0 = self.model.step, time.perf_counter()
        self._busy, self._press, self._live_error = True, (0, steps), None
        self._say("")
        message = None
        try:
            self._show()                                   # TRAINING badge, buttons marked, progress at 0
            d = self.data
            self.model.fit(d["q"], d["qd"], d["qdd"], d["tau"], steps=steps, callback=self._live(start, steps),
                           every=self.update_every)
        except TrainingDiverged as err:
            message = self._error_markup("Training stopped.", err)
        except KeyboardInterrupt as err:
            message = self._error_markup("Training interrupted.", err)
        except Exception as err:
            message = self._error_markup(f"Training failed ({type(err).__name__}).", err)
        else:
            message = (f"<div class='bench-info'>Trained {steps} steps (step {start} → {self.model.step}) in "
                       f"{time.perf_counter() - t0:.1f} s.</div>")
        finally:
            if self._live_error is not None:
                message = (message or "") + self._error_markup(
                    "A live update failed; training went on without them.", self._live_error)
            self._busy = False
            self._press = (self.model.step - start, steps)
            self._say(message or "")
            with single_blas_thread():                     # final redraw, then the buttons come back (last)
                self._measure_model()
                self._measure_q()
                try:
                    self._show()
                finally:
                    self._press_ended = time.time()        # the page sees the end only after this
            self._message_after_press = message or ""

    def _error_markup(self, headline, err):
        """An error for the message area: what failed, the exception, and where the model is now."""
        return (f"<div role='alert' class='bench-error' style='color:{palette.FAIL}'><b>{html.escape(headline)}</b> "
                f"{html.escape(type(err).__name__)}: {html.escape(str(err))} (The model is at step "
                f"{self.model.step}.)</div>")
