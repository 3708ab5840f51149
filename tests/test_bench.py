"""The Bench driven without a browser: sliders, Train, Reset, every panel at every live update, errors shown in
the message area, the layout, the ARIA carrier and the palette."""
import html.parser
import json
import re
from itertools import pairwise

import ipywidgets as widgets
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from lesson_course.ui import palette
from lesson_course.ui.bench import Bench
from lesson_lib import DeLaN


@pytest.fixture(scope="module")
def bench():
    return Bench(seed=0)


NUMBER = r"[-+−]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def _number(markup, cls):
    """The number in the element of class `cls` in the HTML `markup` (1.5, -0.02, 9.62e-05, −3)."""
    return float(re.search(rf"class='{cls}'>({NUMBER})<", markup).group(1).replace("−", "-"))


def test_numbers_are_read_in_every_format_the_bench_may_write():
    for text, value in [("1.500", 1.5), ("-0.02", -0.02), ("9.62e-05", 9.62e-05), ("−3", -3.0), ("2E+3", 2000.0)]:
        assert _number(f"<b class='x'>{text}</b>", "x") == value


def _independent_view(bench):
    """What every panel must show for the model as it is now, computed here without the Bench's code."""
    model, q = bench.model, bench.q
    M_grid = model.mass_matrix(bench.grid)
    lam_grid = np.linalg.eigvalsh(M_grid)[:, 0]
    max_error = np.abs(M_grid - bench.chain.mass_matrix(bench.grid)).max()
    d = bench.data
    tau_hat = model.inverse_dynamics(d["q"], d["qd"], d["qdd"])
    loss = np.mean(np.mean((tau_hat - d["tau"]) ** 2, axis=0) / np.var(d["tau"], axis=0))
    return dict(step=model.step, M_hat=model.mass_matrix(q), lam_grid=lam_grid, max_error=max_error,
                min_eig=lam_grid.min(), loss=loss, passed=max_error < 0.2 and lam_grid.min() > 0)


def _assert_every_panel_is_drawn_now(bench):
    """Each declared panel (Bench.PANELS) shows what its draw method gives for the state as it is now: a panel
    drawn only on some updates (stale after Train, say) differs.  The images are compared by the figures'
    artists in _assert_panels_agree, since a blitted PNG is not redrawn bit for bit."""
    for name, draw in Bench.PANELS:
        widget = getattr(bench, name)
        if isinstance(widget, widgets.HTML):
            assert widget.value == getattr(bench, draw)(), f"the panel {name} is stale"
        else:
            assert isinstance(widget, widgets.Image) and widget.value[:8] == b"\x89PNG\r\n\x1a\n", name


def _assert_panels_agree(bench, busy, start, steps):
    """Every panel shows the model as it is now."""
    _assert_every_panel_is_drawn_now(bench)
    want = _independent_view(bench)
    assert _number(bench.status.value, "bench-step") == want["step"]
    assert _number(bench.status.value, "bench-loss") == pytest.approx(want["loss"], rel=6e-3)   # 3 digits
    assert _number(bench.status.value, "bench-grid-error") == pytest.approx(want["max_error"], abs=6e-4)
    assert _number(bench.status.value, "bench-grid-eig") == pytest.approx(want["min_eig"], abs=6e-5)
    for v in want["M_hat"].ravel():
        assert f">{v:.3f}<" in bench.matrices.value
    M_true = bench.chain.mass_matrix(bench.q)
    assert _number(bench.readout.value, "bench-q-error") == pytest.approx(np.abs(want["M_hat"] - M_true).max(),
                                                                          abs=6e-4)
    assert _number(bench.readout.value, "bench-q-eig") == pytest.approx(np.linalg.eigvalsh(want["M_hat"])[0],
                                                                        abs=6e-5)
    assert _number(bench.eig_caption.value, "bench-eig-lowest") == pytest.approx(want["min_eig"], abs=6e-5)
    assert ("&gt; 0 everywhere: SPD" in bench.eig_caption.value) == (want["min_eig"] > 0)
    np.testing.assert_allclose(np.asarray(bench._eig_image.get_array()).T.ravel(), want["lam_grid"], atol=1e-12)
    verdict = "PASS" if want["passed"] else "FAIL"
    if busy:
        assert "TRAINING" in bench.badge.value and f"check so far: {verdict}" in bench.badge.value
    else:
        assert "TRAINING" not in bench.badge.value and verdict in bench.badge.value
    assert f"aria-valuenow='{want['step'] - start}'" in bench.progress.value
    assert f"aria-valuemax='{steps}'" in bench.progress.value
    attrs = bench.aria.attrs
    assert attrs[""]["data-bench-step"] == want["step"]
    assert attrs[""]["data-bench-busy"] == ("true" if busy else "false")
    assert f"step {want['step']}:" in attrs["img.bench-plot"]["alt"]
    assert f"step {want['step']}: lowest {want['min_eig']:.4f}" in attrs["img.bench-eigmap"]["alt"]
    disabled = "true" if busy else None
    assert attrs["button.bench-train"]["aria-disabled"] == attrs["button.bench-reset"]["aria-disabled"] == disabled
    assert bench.train_button.description == ("Training…" if busy else f"▶ Train ×{bench.steps_per_press}")
    assert not bench.train_button.icon and not bench.reset_button.icon      # no icon font needed in any front end
    assert not bench.train_button.disabled and not bench.reset_button.disabled   # focus stays on the button


def test_untrained_bench_is_spd_but_fails(bench):
    assert bench.model.step == 0
    assert "FAIL" in bench.badge.value and "not trained yet" in bench.badge.value
    assert bench.last_check["min_eig"] > 0 and bench.last_check["max_error"] > 0.2
    assert "not trained yet" not in bench.status.value               # the loss is measured from the start
    _assert_panels_agree(bench, busy=False, start=0, steps=bench.steps_per_press)


def test_slider_moves_update_readouts_plot_and_text_alternatives_without_new_figures(bench):
    before = (bench.matrices.value, bench.readout.value, bench.plot.value, bench.eigmap.value,
              bench.aria.attrs["img.bench-plot"]["alt"], bench.aria.attrs["img.bench-eigmap"]["alt"])
    figs = plt.get_fignums()
    bench.q0.value, bench.q1.value = -1.3, 2.2
    after = (bench.matrices.value, bench.readout.value, bench.plot.value, bench.eigmap.value,
             bench.aria.attrs["img.bench-plot"]["alt"], bench.aria.attrs["img.bench-eigmap"]["alt"])
    assert all(a != b for a, b in zip(before, after, strict=True))
    assert "q = (-1.30, 2.20)" in bench.readout.value
    assert "q0 = -1.30 rad" in after[4] and "q1 = 2.20" in after[4] and "q = (-1.30, 2.20)" in after[5]
    M = bench.chain.mass_matrix([-1.3, 2.2])
    assert f"{M[0, 0]:.3f}" in bench.matrices.value          # the gold numbers are the RNEA's
    assert plt.get_fignums() == figs                            # nothing piles up
    assert bench.plot.value[:8] == b"\x89PNG\r\n\x1a\n"


def test_values_outside_the_slider_range_are_clamped(bench):
    bench.q1.value = 10.0
    assert bench.q1.value == pytest.approx(np.pi)
    bench.q0.value = -7.0
    assert bench.q0.value == pytest.approx(-np.pi)
    assert "q = (-3.14, 3.14)" in bench.readout.value


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, "abc", None, True, 1 + 2j, [0.1, 0.2]])
def test_a_bad_slider_value_is_refused_with_a_message_and_the_last_good_value_kept(bench, bad):
    bench.q0.value = 0.7
    readout = bench.readout.value
    bench.q0.value = bad
    assert bench.q0.value == 0.7 and bench.readout.value == readout
    assert "Value refused" in bench.message.value and "q0 must be" in bench.message.value
    assert "Kept q0 = 0.70 rad" in bench.message.value
    bench.q0.value = 0.9                                        # still usable
    assert "q = (0.90," in bench.readout.value


def test_every_panel_agrees_at_every_live_update_of_a_press(bench):
    """The status, loss, matrices, eigenvalue map and title, badge, progress, text alternatives and buttons all
    show the model's current step at every update; the buttons come back only with the final redraw."""
    bench.q0.value, bench.q1.value = 0.4, -0.8
    matrices_before = bench.matrices.value
    seen, pngs = [], []

    def on_update(change):                     # the ARIA carrier is written last in every update
        busy = bench.aria.attrs[""]["data-bench-busy"] == "true"
        _assert_panels_agree(bench, busy=busy, start=0, steps=2000)
        seen.append((bench.model.step, busy))
        pngs.append((bench.plot.value, bench.eigmap.value))
    bench.aria.widget.observe(on_update, names="value")
    try:
        bench.train_button.click()
    finally:
        bench.aria.widget.unobserve(on_update, names="value")
    assert "Trained 2000 steps" in bench.message.value
    assert seen == [(0, True)] + [(s, True) for s in range(250, 2000, 250)] + [(2000, False)]
    for (plot_a, eig_a), (plot_b, eig_b) in pairwise(pngs[1:]):
        assert plot_a != plot_b and eig_a != eig_b                   # the plots are live too
    assert "PASS" in bench.badge.value and bench.last_check["max_error"] < 0.2
    assert bench.matrices.value != matrices_before


def test_presses_while_training_are_ignored(bench, monkeypatch):
    start = bench.model.step
    calls, fits, resets = [], [], []
    original = bench._show
    fit, reset = bench.model.fit, bench.model.reset
    monkeypatch.setattr(bench.model, "fit", lambda *a, **k: fits.append(1) or fit(*a, **k))
    monkeypatch.setattr(bench.model, "reset", lambda: resets.append(1) or reset())

    def show_and_press(*args, **kwargs):
        original(*args, **kwargs)
        if bench._busy and len(calls) < 3:
            calls.append(bench.model.step)
            bench.train_button.click()                  # a second press while training: must not start a run
            bench.reset_button.click()                  # nor reset the model under the running fit
    bench._show = show_and_press
    try:
        bench.train(300)
    finally:
        del bench._show
    assert calls == [start, start + 250] and bench.model.step == start + 300   # pressed at both updates
    assert len(fits) == 1 and not resets
    assert not bench._busy and "Trained 300 steps" in bench.message.value


def test_reset_goes_back_to_the_seeded_untrained_model(bench):
    bench.reset_button.click()
    assert bench.model.step == 0
    np.testing.assert_array_equal(bench.model.get_params(), DeLaN(seed=0).get_params())
    assert "FAIL" in bench.badge.value and bench.last_check["min_eig"] > 0
    _assert_panels_agree(bench, busy=False, start=0, steps=bench.steps_per_press)


def test_divergence_shows_a_message_and_keeps_the_last_good_state():
    bench = Bench(seed=0, steps_per_press=300)
    bench.train_button.click()
    good = bench.model.get_params()
    bench.model.lr = 10.0
    bench.train_button.click()
    assert "Training stopped" in bench.message.value and "smaller learning rate" in bench.message.value
    np.testing.assert_array_equal(bench.model.get_params(), good)
    assert bench.model.step == 300 and not bench._busy
    _assert_panels_agree(bench, busy=False, start=300, steps=300)


# ---------------------------------------------------------------------------------------------- errors shown
def _boom(*args, **kwargs):
    raise RuntimeError("boom")


def test_an_error_while_moving_a_slider_is_shown_and_the_bench_stays_usable(monkeypatch):
    bench = Bench(seed=0)
    with monkeypatch.context() as m:
        m.setattr(bench.model, "mass_matrix", _boom)
        bench.q0.value = 0.2                                   # ipywidgets would have swallowed this
    assert "Moving a slider failed" in bench.message.value and "RuntimeError: boom" in bench.message.value
    assert "role='alert'" in bench.message.value
    bench.q0.value = 0.3
    assert "q = (0.30," in bench.readout.value


def test_an_error_in_train_or_reset_is_shown_and_the_bench_stays_usable(monkeypatch):
    bench = Bench(seed=0, steps_per_press=50)
    params = bench.model.get_params()
    with monkeypatch.context() as m:
        m.setattr(bench.model, "fit", _boom)
        bench.train_button.click()
    assert "Training failed (RuntimeError)" in bench.message.value and "boom" in bench.message.value
    assert not bench._busy and "FAIL" in bench.badge.value and "TRAINING" not in bench.badge.value
    assert bench.aria.attrs["button.bench-train"]["aria-disabled"] is None
    np.testing.assert_array_equal(bench.model.get_params(), params)
    with monkeypatch.context() as m:
        m.setattr(bench.model, "reset", _boom)
        bench.reset_button.click()
    assert "Reset failed" in bench.message.value and "boom" in bench.message.value
    bench.train_button.click()                                 # still usable
    assert bench.model.step == 50 and "Trained 50 steps" in bench.message.value
    _assert_panels_agree(bench, busy=False, start=0, steps=50)


def test_a_failing_live_update_is_shown_and_training_completes(monkeypatch):
    bench = Bench(seed=0, steps_per_press=600, update_every=100)
    calls = []
    fast = bench._eig_fig.fast

    def fail_once(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:                                     # the first live update after the press began
            raise RuntimeError("renderer gone")
        return fast(*args, **kwargs)
    monkeypatch.setattr(bench._eig_fig, "fast", fail_once)
    bench.train_button.click()
    assert bench.model.step == 600
    assert "A live update failed" in bench.message.value and "renderer gone" in bench.message.value
    _assert_panels_agree(bench, busy=False, start=0, steps=600)


def test_an_interrupt_during_a_press_is_reported_and_the_bench_shows_the_model_it_left(monkeypatch):
    bench = Bench(seed=0, steps_per_press=600, update_every=100)
    measure = bench._measure_model

    def interrupt_at_300():
        if bench._busy and bench.model.step == 300:
            raise KeyboardInterrupt                             # as the kernel's Interrupt button does
        return measure()
    monkeypatch.setattr(bench, "_measure_model", interrupt_at_300)
    bench.train_button.click()
    assert "Training interrupted" in bench.message.value
    assert f"The model is at step {bench.model.step}" in bench.message.value
    assert not bench._busy
    _assert_panels_agree(bench, busy=False, start=0, steps=600)


# ---------------------------------------------------------------------------------------------- layout, ARIA
def _placed(widget):
    """Every widget in the displayed tree under `widget`."""
    found = [widget]
    for child in getattr(widget, "children", ()):
        found += _placed(child)
    return found


def _by_class(bench, cls):
    (widget,) = [w for w in _placed(bench.ui) if cls in getattr(w, "_dom_classes", ())]
    return widget


def test_every_panel_is_declared_and_every_declared_panel_is_drawn(bench):
    """Every HTML or image widget the Bench shows is in Bench.PANELS, but for the message area (written by the
    callbacks) and the ARIA carrier; and a panel drawn only on slider moves would be stale after a Reset or a
    press, which _assert_every_panel_is_drawn_now sees."""
    shown = [name for name, w in vars(bench).items() if isinstance(w, (widgets.HTML, widgets.Image))]
    declared = [name for name, _ in Bench.PANELS]
    assert sorted(set(shown) - {"message"}) == sorted(declared), (shown, declared)
    assert len(set(declared)) == len(declared)
    for action in (lambda: setattr(bench.q0, "value", 0.3), bench.reset, lambda: bench.train(30)):
        action()
        _assert_every_panel_is_drawn_now(bench)


def test_a_panel_left_out_of_the_declaration_goes_stale_and_is_seen(bench, monkeypatch):
    monkeypatch.setattr(Bench, "PANELS", tuple(p for p in Bench.PANELS if p[0] != "readout"))
    bench.q1.value = 0.25
    monkeypatch.undo()
    try:
        with pytest.raises(AssertionError, match="the panel readout is stale"):
            _assert_every_panel_is_drawn_now(bench)
    finally:
        bench.refresh()                                 # the module's Bench whole again for the next tests


def test_the_start_of_a_press_keeps_the_figures_and_every_update_after_it_redraws_them(bench, monkeypatch):
    """The update that starts a press changes the badge, progress and buttons only: nothing the figures show was
    measured since they were drawn, so they keep their PNG; the live update and the final redraw encode both."""
    from lesson_course.ui import blit
    bench.reset()                                      # from step 0: a live update at step 250
    encoded = []
    monkeypatch.setattr(blit, "png_bytes", lambda rgb, _encode=blit.png_bytes: encoded.append(1) or _encode(rgb))
    before = bench.plot.value, bench.eigmap.value
    per_update = []
    bench.aria.widget.observe(lambda change: per_update.append(len(encoded)), names="value")
    bench.train(500)                                   # updates: the start, step 250 (live), the final redraw
    assert per_update == [0, 2, 4] and bench.model.step == 500
    assert bench.plot.value != before[0] and bench.eigmap.value != before[1]


def test_every_widget_the_bench_builds_is_placed_in_its_layout(bench):
    placed = {id(w) for w in _placed(bench.ui)}
    built = [(name, w) for name, w in vars(bench).items() if isinstance(w, widgets.DOMWidget)]
    built.append(("aria.widget", bench.aria.widget))
    assert len(built) >= 12
    missing = [name for name, w in built if id(w) not in placed]
    assert not missing, f"built but not shown: {missing}"
    for cls, name in [("bench-q0", "q0"), ("bench-q1", "q1"), ("bench-train", "train_button"),
                      ("bench-reset", "reset_button"), ("bench-progress", "progress"), ("bench-matrices", "matrices"),
                      ("bench-readout", "readout"), ("bench-status", "status"), ("bench-badge", "badge"),
                      ("bench-message", "message"), ("bench-plot", "plot"), ("bench-eigmap", "eigmap"),
                      ("bench-aria", None)]:
        widget = _by_class(bench, cls)
        assert name is None or widget is getattr(bench, name)
        assert widget.layout.display != "none" or cls == "bench-aria"


class _Carrier(html.parser.HTMLParser):
    def handle_starttag(self, tag, attrs):
        self.tag, self.attrs = tag, dict(attrs)


def test_the_aria_carrier_holds_the_attributes_and_the_script_intact(bench):
    parser = _Carrier()
    parser.feed(bench.aria.widget.value)
    assert parser.tag == "img" and parser.attrs["src"] == "data:," and "hidden" in parser.attrs
    spec = json.loads(parser.attrs["data-aria"])                 # quotes in alt texts survive the escaping
    assert spec["root"] == "bench" and spec["attrs"] == json.loads(json.dumps(bench.aria.attrs))
    assert "M's smallest eigenvalue" in spec["attrs"]["img.bench-eigmap"]["alt"]
    assert "querySelectorAll" in parser.attrs["onerror"] and parser.attrs["onerror"].strip().endswith("(this)")
    assert bench.aria.attrs[".bench-q0 .noUi-handle"] == {"aria-label": "q0 (rad)"}
    for live in (".bench-readout", ".bench-badge", ".bench-message"):
        assert bench.aria.attrs[f"{live} .widget-html-content"]["aria-live"] == "polite"
    assert "role='progressbar'" in bench.progress.value and "aria-label='Training progress'" in bench.progress.value


# ---------------------------------------------------------------------------------------------- palette
def test_text_colours_have_at_least_4_5_to_1_contrast():
    for fg, bg in [(palette.LEARNED, "white"), (palette.TRUE, "white"), (palette.FAIL, "white"),
                   (palette.TEXT, "white"), ("white", palette.PASS), ("white", palette.FAIL),
                   ("white", palette.RUNNING), ("white", palette.BUSY), *[(c, "white") for c in palette.OTHER]]:
        assert palette.contrast_ratio(fg, bg) >= 4.5, (fg, bg)
    assert palette.contrast_ratio(palette.TRACK_EDGE, "white") >= 3.0          # a UI component's edge
    assert palette.contrast_ratio("black", "white") == pytest.approx(21.0)      # the formula itself
    assert palette.contrast_ratio("#2e8b57") == pytest.approx(4.25, abs=0.01)   # the old green, as axe measured


@pytest.mark.parametrize("kind", ["deuteranopia", "protanopia"])
def test_learned_and_true_differ_in_hue_for_colour_blind_learners(kind):
    """Red-green dichromats keep the blue-yellow axis (b* in CIELAB): learned must land on its blue side and
    true on its yellow side, well apart, not two olives told apart by lightness only."""
    def b_star(color):
        return palette.lab(palette.simulate_cvd(matplotlib.colors.to_rgb(color), kind))[2]
    assert b_star(palette.LEARNED) < -10 and b_star(palette.TRUE) > 10
    assert b_star(palette.TRUE) - b_star(palette.LEARNED) > 40
    old_green, old_gold = "#2e8b57", "#c9a227"                  # what the issue saw: both yellowish
    assert b_star(old_green) > 0 and b_star(old_gold) > 0


def test_the_simulation_matches_known_values():
    """Machado et al.'s matrices keep white and black, and map pure red to a dark olive for a protanope."""
    for kind in ("deuteranopia", "protanopia"):
        np.testing.assert_allclose(palette.simulate_cvd([1.0, 1.0, 1.0], kind), 1.0, atol=2e-3)
        np.testing.assert_allclose(palette.simulate_cvd([0.0, 0.0, 0.0], kind), 0.0)
    red = palette.simulate_cvd([1.0, 0.0, 0.0], "protanopia")
    assert red[0] == pytest.approx(red[1], abs=0.12) and red[2] < 0.1   # red and green channels alike: olive
    np.testing.assert_allclose(palette.lab([1.0, 1.0, 1.0]), [100, 0, 0], atol=0.05)


@pytest.mark.parametrize("kind", [None, "deuteranopia", "protanopia"])
def test_the_marker_on_the_eigenvalue_map_stands_out_on_every_colour_of_the_map(kind):
    cmap = matplotlib.colormaps[palette.EIGEN_MAP]
    for x in np.linspace(0, 1, 64):
        background = np.array(cmap(x)[:3])
        if kind:
            background = palette.simulate_cvd(background, kind)
        best = max(palette.contrast_ratio(palette.MARKER_FACE, background),
                   palette.contrast_ratio(palette.MARKER_EDGE, background))
        assert best >= 3.0, (x, background)
    assert palette.contrast_ratio("red", cmap(0.5)[:3]) < 3.0   # the old red cross did fade on the map


def test_the_bench_and_the_figures_draw_with_the_palette(bench):
    from lesson_course.ui import plots
    true, learned, _ = bench._lines[0, 0]
    assert (true.get_color(), learned.get_color()) == (palette.TRUE, palette.LEARNED)
    assert (true.get_linestyle(), learned.get_linestyle()) == ("-", "--")
    assert bench._eig_mark.get_markerfacecolor() == palette.MARKER_FACE
    assert f"color:{palette.LEARNED}" in bench.matrices.value and f"color:{palette.TRUE}" in bench.matrices.value
    assert (plots.TRUTH, plots.DELAN, plots.BLACK_BOX) == (palette.TRUE, palette.LEARNED, palette.BLACK_BOX)


def test_no_number_is_shown_as_minus_zero(bench):
    """A value that rounds to zero shows as 0.00, not -0.00 (sliders at -0.001 rad, a tiny negative entry)."""
    from lesson_course.ui.bench import _fixed
    assert [_fixed(v, 2) for v in (-0.001, -0.0, 0.004, -0.006)] == ["0.00", "0.00", "0.00", "-0.01"]
    bench.q0.value, bench.q1.value = -0.001, -0.004
    assert "(0.00, 0.00)" in bench.readout.value and "−0.00" not in bench.readout.value
    assert not re.search(r">-0\.0+<", bench.matrices.value + bench.readout.value)


def test_the_two_figures_wrap_onto_two_rows_when_the_page_is_narrow(bench):
    (row,) = [w for w in _placed(bench.ui) if isinstance(w, widgets.HBox) and bench.plot in w.children]
    (column,) = [w for w in row.children if w is not bench.plot]
    assert column.children == (bench.eig_caption, bench.eigmap)      # the map's caption stays above it
    assert row.layout.flex_flow == "row wrap"


def test_a_click_the_page_sent_before_the_press_ended_is_ignored_and_every_later_one_does_its_work(monkeypatch):
    """One rule for Train and Reset, whatever the front end showed: a click the page sent before the last press
    ended (a double-click, a click queued behind the press) is ignored and the Bench says so; a click sent after it
    ended does its work, however soon; so does a click from code, or from a front end that dates nothing.  The
    page's clock may be far off the kernel's: the least delay seen between a click's date and its handling
    relates the two."""
    import datetime

    from lesson_course.ui import bench as bench_module
    bench = Bench(seed=0, steps_per_press=20)
    page_behind = 3600.0                               # the page's clock an hour behind the kernel's

    def page_click(button, sent, handled):
        """The page sends a click at kernel time `sent` (dated on its own clock), the kernel handles it at
        `handled`; a press it starts ends a second later."""
        date = None if sent is None else datetime.datetime.fromtimestamp(sent - page_behind, datetime.UTC)
        monkeypatch.setattr(bench_module, "_sent_time", lambda: date)
        clock = iter([handled])
        monkeypatch.setattr(bench_module.time, "time", lambda: next(clock, handled + 1.0))
        button._handle_button_msg(None, {"event": "click"}, [])
        assert button.sent is None

    train, reset = bench.train_button, bench.reset_button
    page_click(train, 1000.0, 1000.02)                 # a press, ended at 1001.02
    assert bench.model.step == 20 and "ignored" not in bench.message.value
    page_click(train, 1000.5, 1001.5)                  # sent while it ran, handled after it: ignored
    assert bench.model.step == 20 and "Trained 20 steps" in bench.message.value
    assert "A click on Train made while training ran was ignored: press Train again" in bench.message.value
    page_click(reset, 1000.9, 1001.6)                  # a Reset queued behind the press: the training is kept
    assert bench.model.step == 20 and "A click on Reset made while training ran was ignored" in bench.message.value
    page_click(train, 1001.03, 1001.05)                # sent just after it ended: a press, ended at 1002.05
    assert bench.model.step == 40 and "ignored" not in bench.message.value
    train.click()                                      # from code: a press
    assert bench.model.step == 60
    page_click(train, None, 1002.5)                    # a front end that sends no date: a press
    assert bench.model.step == 80 and "ignored" not in bench.message.value
    page_click(reset, 1003.6, 1003.7)                  # sent after the last press ended: a reset
    assert bench.model.step == 0 and "re-initialised" in bench.message.value


def test_a_click_handled_in_another_thread_during_a_press_waits_for_its_end_and_is_ignored(monkeypatch):
    """JupyterLab 4.6 hands widget messages to a kernel subshell, a thread beside the one running a press: a click
    there waits for the press to end and is judged as in Voilà (ignored, and the Bench says so), with the date of
    its own message."""
    import datetime
    import threading
    import time

    from lesson_course.ui import bench as bench_module
    monkeypatch.setattr(bench_module, "_sent_time", lambda: datetime.datetime.now(datetime.UTC))
    bench = Bench(seed=0, steps_per_press=300, update_every=50)
    click = lambda: bench.train_button._handle_button_msg(None, {"event": "click"}, [])     # noqa: E731
    press = threading.Thread(target=click)
    press.start()
    while not bench._busy and press.is_alive():
        time.sleep(0.001)
    assert bench._busy, "the press ended before the second click could be made"
    click()                                                        # returns once the press has ended
    press.join()
    assert bench.model.step == 300 and not bench._busy
    assert "Trained 300 steps" in bench.message.value and "A click on Train made while training ran was ignored" in \
        bench.message.value


def test_the_page_sends_dated_clicks_and_the_bench_reads_the_date():
    """_sent_time reads the header's date as a kernel hands it over (a datetime, or an ISO string), else None."""
    import datetime
    from unittest import mock

    from lesson_course.ui.bench import _sent_time
    assert _sent_time() is None                                    # no kernel here
    for date in ("2026-12-04T12:00:00.250Z", datetime.datetime(2026, 12, 4, 12, 0, 0, 250000,
                                                               tzinfo=datetime.UTC)):
        shell = mock.Mock()
        shell.kernel.get_parent.return_value = {"header": {"date": date}}
        with mock.patch("IPython.get_ipython", return_value=shell):
            got = _sent_time()
        assert got == datetime.datetime(2026, 12, 4, 12, 0, 0, 250000, tzinfo=datetime.UTC)
    shell.kernel.get_parent.return_value = {"header": {"date": "yesterday"}}
    with mock.patch("IPython.get_ipython", return_value=shell):
        assert _sent_time() is None


def test_the_sliders_step_a_usable_amount_per_key(bench):
    from lesson_course.ui.bench import SLIDER_STEP
    assert bench.q0.step == bench.q1.step == SLIDER_STEP and 20 <= 1 / SLIDER_STEP <= 50   # 20-50 keys per rad
