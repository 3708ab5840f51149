"""The Bench driven without a browser: sliders, Train, Reset, readouts, badge, divergence."""
import matplotlib.pyplot as plt
import numpy as np
import pytest

from lesson_lib import DeLaN, PlanarChain
from lesson_lib.ui.bench import Bench


@pytest.fixture(scope="module")
def bench():
    return Bench(seed=0)


def test_untrained_bench_is_spd_but_fails(bench):
    assert bench.model.step == 0
    assert "FAIL" in bench.badge.value
    assert bench.last_check["min_eig"] > 0 and bench.last_check["max_error"] > 0.2
    assert "class='bench-step'>0<" in bench.status.value


def test_slider_moves_update_readouts_and_plot_without_new_figures(bench):
    before = (bench.matrices.value, bench.readout.value, bench.plot.value, bench.eigmap.value)
    figs = plt.get_fignums()
    bench.q0.value, bench.q1.value = -1.3, 2.2
    after = (bench.matrices.value, bench.readout.value, bench.plot.value, bench.eigmap.value)
    assert all(a != b for a, b in zip(before, after))
    assert "q = (-1.30, 2.20)" in bench.readout.value
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


def test_train_press_reaches_pass_and_queued_press_is_ignored(bench):
    bench.q0.value, bench.q1.value = 0.4, -0.8
    matrices_before = bench.matrices.value
    seen, updates = [], []
    original = bench._update_status

    def spy(*args):
        original(*args)
        updates.append(bench.model.step)
        if bench.model.step < 2000:
            seen.append((bench.train_button.disabled, bench.reset_button.disabled))
            bench.train_button.click()               # a second press while training: must not start a run
            bench.reset_button.click()
    bench._update_status = spy
    try:
        bench.train_button.click()
    finally:
        bench._update_status = original
    assert bench.model.step == 2000
    assert seen and all(disabled == (True, True) for disabled in seen)
    assert updates[:3] == [250, 500, 750]                       # live updates during training
    assert not bench.train_button.disabled and not bench.reset_button.disabled
    assert bench.progress.value == 2000
    assert "PASS" in bench.badge.value and bench.last_check["max_error"] < 0.2
    assert "class='bench-step'>2000<" in bench.status.value
    assert bench.matrices.value != matrices_before


def test_reset_goes_back_to_the_seeded_untrained_model(bench):
    bench.reset_button.click()
    assert bench.model.step == 0
    np.testing.assert_array_equal(bench.model.get_params(), DeLaN(seed=0).get_params())
    assert "FAIL" in bench.badge.value and bench.last_check["min_eig"] > 0


def test_divergence_shows_a_message_and_keeps_the_last_good_state():
    bench = Bench(seed=0, steps_per_press=300)
    bench.train_button.click()
    good = bench.model.get_params()
    bench.model.lr = 10.0
    bench.train_button.click()
    assert "Training stopped" in bench.message.value and "smaller learning rate" in bench.message.value
    np.testing.assert_array_equal(bench.model.get_params(), good)
    assert bench.model.step == 300 and not bench.train_button.disabled


def test_bench_is_configurable_and_refuses_other_robots():
    bench = Bench(seed=3, hidden=(8,), steps_per_press=100)
    assert bench.model.seed == 3 and bench.model.hidden == (8,)
    assert bench.train_button.description == "Train ×100"
    assert "Bench(" in bench._repr_mimebundle_()["text/plain"]
    with pytest.raises(ValueError, match="2-joint"):
        Bench(chain=PlanarChain(m=[1, 1, 1], l=[1, 1, 1], lc=[.5, .5, .5], I=[.1, .1, .1]))
