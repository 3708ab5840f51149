"""What a robot records, and q̇, q̈ estimated from it (lesson_lib.data.sensors), against independent truth: the
letters' analytic derivatives (kept aside by `record`), polynomials a Savitzky-Golay filter must reproduce
exactly, the noise amplification of differences in closed form; and the collapse of the learned M that
twice-differenced noise causes, detected (lesson_lib.evaluation.audit.inertia_collapse)."""
import warnings

import numpy as np
import pytest

from lesson_lib import DeLaN, double_pendulum, sample_trajectories, sample_uniform
from lesson_lib.data import estimate, record
from lesson_lib.data.letters import write_letters
from lesson_lib.data.sensors import estimation_errors, savgol_coefficients
from lesson_lib.evaluation.audit import InertiaCollapsed, inertia_collapse

RATE = 500
LETTERS = write_letters("ocs").sample(dt=1 / RATE)


def test_record_adds_encoder_noise_and_keeps_the_truth_aside():
    rec = record(LETTERS, sigma=1e-3, tau_sigma=0.1, seed=3)
    assert "qd" not in rec and "qdd" not in rec, "an arm measures neither velocity nor acceleration"
    np.testing.assert_array_equal(rec["q_true"], LETTERS["q"])
    np.testing.assert_array_equal(rec["qdd_true"], LETTERS["qdd"])
    noise, tau_noise = rec["q"] - LETTERS["q"], rec["tau"] - LETTERS["tau"]
    assert noise.std() == pytest.approx(1e-3, rel=0.05) and tau_noise.std() == pytest.approx(0.1, rel=0.05)
    assert abs(noise.mean()) < 1e-4
    again = record(LETTERS, sigma=1e-3, tau_sigma=0.1, seed=3)
    np.testing.assert_array_equal(again["q"], rec["q"])                      # the same seed, the same noise
    quantised = record(LETTERS, sigma=0.0, quantum=2 * np.pi / 2**12)
    counts = quantised["q"] / (2 * np.pi / 2**12)
    np.testing.assert_allclose(counts, np.round(counts), atol=1e-9)
    assert np.abs(quantised["q"] - LETTERS["q"]).max() <= np.pi / 2**12 + 1e-12


def test_savgol_differentiates_a_cubic_exactly_also_at_the_ends():
    h, t = 0.002, np.arange(101) * 0.002
    q = np.stack([1 - 2 * t + 3 * t**2 - 4 * t**3, 0.5 + t**3], axis=1)
    data = {"q": q, "tau": np.zeros_like(q), "t": t, "traj": np.zeros(len(t), int)}
    est = estimate(data, window=0.03, order=3)
    np.testing.assert_allclose(est["qd"], np.stack([-2 + 6 * t - 12 * t**2, 3 * t**2], axis=1), atol=1e-8)
    np.testing.assert_allclose(est["qdd"], np.stack([6 - 24 * t, 6 * t], axis=1), atol=1e-6)
    C, E0, E1 = savgol_coefficients(15, 3, h)
    assert C.shape == (3, 15) and E0.shape == E1.shape == (3, 7, 15)
    np.testing.assert_allclose(C[0].sum(), 1.0) and np.testing.assert_allclose(C[1:].sum(axis=1), 0, atol=1e-6)


def test_differences_amplify_white_noise_as_the_closed_form_says():
    """q̈ = (q+ - 2 q + q-)/h^2 of white noise of std sigma has std sqrt(6) sigma / h^2."""
    sigma = 1e-4
    est = estimate(record(LETTERS, sigma=sigma, seed=1), method="differences")
    errors = estimation_errors(est)
    assert errors["qdd"] == pytest.approx(np.sqrt(6) * sigma * RATE**2, rel=0.05)
    assert errors["qd"] == pytest.approx(sigma * RATE / np.sqrt(2), rel=0.05)


def test_savgol_trades_noise_for_a_small_bias():
    clean = estimation_errors(estimate(record(LETTERS, sigma=0.0)))
    noisy = estimation_errors(estimate(record(LETTERS, sigma=1e-4, seed=1)))
    differences = estimation_errors(estimate(record(LETTERS, sigma=1e-4, seed=1), method="differences"))
    assert 0 < clean["qdd"] < 0.5, "the bias of a 0.1 s cubic window on the letters"
    assert noisy["qdd"] < 2 * clean["qdd"] + 0.1 and differences["qdd"] > 100 * noisy["qdd"]


def test_estimates_stay_within_each_trajectory():
    """Estimating three trajectories together gives exactly what estimating each alone gives: no window reaches
    across the end of one trajectory into the next."""
    data = record(sample_trajectories(double_pendulum(), n_traj=3, duration=1.0, dt=0.002, seed=0), sigma=1e-4)
    together = estimate(data, window=0.05)
    for k in range(3):
        rows = data["traj"] == k
        alone = estimate({key: np.asarray(v)[rows] for key, v in data.items()}, window=0.05)
        for key in ("q", "qd", "qdd"):
            np.testing.assert_array_equal(together[key][rows], alone[key])


@pytest.mark.parametrize("call, error, words", [
    (lambda: record([1, 2]), TypeError, "motion data"),
    (lambda: record(sample_uniform(double_pendulum(), 10)), ValueError, "'t' and 'traj'"),
    (lambda: record(LETTERS, sigma=-1), ValueError, "sigma must be >= 0"),
    (lambda: record(LETTERS, quantum=0), ValueError, "quantum must be > 0"),
    (lambda: estimate(LETTERS, method="spline"), ValueError, "choose one of 'differences', 'savgol'"),
    (lambda: estimate(LETTERS, order=9), ValueError, "order must be between 2 and 5"),
    (lambda: estimate({"q": LETTERS["q"][:5], "tau": LETTERS["tau"][:5], "t": LETTERS["t"][:5],
                       "traj": LETTERS["traj"][:5]}), ValueError, "shorter than the Savitzky-Golay window"),
    (lambda: estimate({**LETTERS, "t": LETTERS["t"] ** 2}), ValueError, "not sampled at one fixed step"),
    (lambda: estimate("data"), TypeError, "recording must be a dict"),
    (lambda: estimate({**LETTERS, "tau": LETTERS["tau"] * np.nan}), ValueError, r"recording\['tau'\] contains NaN"),
    (lambda: estimate({**LETTERS, "tau": LETTERS["tau"][:, 0]}), ValueError, r"recording\['tau'\] has shape"),
    (lambda: estimate({**LETTERS, "tau": LETTERS["tau"][1:]}), ValueError, "must have the shape of"),
])
def test_bad_input_says_what_is_wrong(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_twice_differenced_noise_collapses_the_learned_M_and_the_audit_says_so():
    """The issue's case: the 15 training letters at 500 Hz with sigma = 1e-4 rad; 2000 steps."""
    letters = write_letters("acdeghkmnosuvwz").sample(dt=1 / RATE)
    rec = record(letters, sigma=1e-4, seed=0)
    chain = double_pendulum()
    verdicts = {}
    for method in ("differences", "savgol"):
        model = DeLaN(seed=0)
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            model.fit(estimate(rec, method=method), steps=2000)
        verdicts[method] = inertia_collapse(model, letters)
        verdicts[method]["fit said"] = [str(w.message) for w in said if w.category is InertiaCollapsed]
        M_err = np.abs(model.mass_matrix(letters["q"][::40]) - chain.mass_matrix(letters["q"][::40])).max()
        verdicts[method]["error"] = M_err
    assert verdicts["differences"]["collapsed"] and verdicts["differences"]["error"] > 1.0
    assert "savgol" in verdicts["differences"]["message"] and "noise" in verdicts["differences"]["message"]
    assert not verdicts["savgol"]["collapsed"] and verdicts["savgol"]["message"] == ""
    assert verdicts["savgol"]["error"] < 0.2
    said = verdicts["differences"]["fit said"]             # fit itself says so, naming the data and the fix
    assert len(said) == 1 and "collapsed" in said[0] and "method='savgol'" in said[0] and "fit_verlet" in said[0]
    assert verdicts["savgol"]["fit said"] == []
