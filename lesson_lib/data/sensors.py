"""What a real arm records, and velocities and accelerations estimated from it.

Encoders measure q at a fixed rate, with noise and a finite resolution; motors report tau with noise; nobody
measures q̇ or q̈.  `record` turns motion data from the truth (with "t" and "traj") into such a recording:

    rec = record(write_letters("ocs").sample(dt=1 / 500), sigma=1e-4)
    rec["q"], rec["tau"]                  measured: q + N(0, sigma^2) (rounded to `quantum` if given), tau + noise
    rec["q_true"], rec["qd_true"], rec["qdd_true"], rec["tau_true"]   the truth, for evaluation only

`estimate` gives q̇ and q̈ from the measured q, trajectory by trajectory:

- "differences": q̇_k = (q_{k+1} - q_{k-1}) / 2h, q̈_k = (q_{k+1} - 2 q_k + q_{k-1}) / h^2; no bias, but q̈'s
  noise is about sqrt(6) sigma / h^2 (61 rad/s^2 for sigma = 1e-4 rad at 500 Hz).
- "savgol": Savitzky-Golay, a least-squares polynomial of degree `order` over each window, differentiated at
  its centre: less noise, a smoothing bias that grows with the window (benchmarks/bench_sensors.py)."""
from collections.abc import Mapping

import numpy as np

from ..validate import array, as_data, choice, described, integer, number, positive_number

METHODS = ("differences", "savgol")


def _motion(data, n):
    """Checked motion data: q, qd, qdd, tau (N, n) and t, traj (N,), each trajectory sampled at one step."""
    d = as_data("data", data, n, min_samples=1)
    if "t" not in d or "traj" not in d:
        raise ValueError("data must come from a motion (keys 't' and 'traj', as Handwriting.sample(dt) or "
                         "sample_trajectories(chain) give): a recording is a time series")
    return d


def record(data, sigma=1e-4, quantum=None, tau_sigma=0.0, seed=0):
    """The recording of the motion in `data`: measured q and tau, the truth kept as q_true, qd_true,
    qdd_true, tau_true, other per-sample keys as they are.  sigma: encoder noise (rad); quantum: resolution (rad per
    count) or None; tau_sigma: torque noise (N m); seed.

    >>> from lesson_lib.data import write_word
    >>> rec = record(write_word("o").sample(dt=0.01), sigma=1e-3)
    >>> bool(np.abs(rec["q"] - rec["q_true"]).max() < 0.01)
    True"""
    if not isinstance(data, Mapping) or np.ndim(data.get("q")) != 2:
        raise TypeError(f"data must be motion data with 'q' of shape (N, n), 't' and 'traj' (e.g. "
                        f"write_letters('ocs').sample(dt=0.002)), got {described(data)}")
    d = _motion(data, np.shape(data["q"])[1])
    sigma = number("sigma", sigma, low=0.0, hint="the encoders' noise in rad, e.g. sigma=1e-4")
    tau_sigma = number("tau_sigma", tau_sigma, low=0.0, hint="the torque sensors' noise in N m, e.g. 0.01")
    if quantum is not None:
        quantum = positive_number("quantum", quantum, hint="rad per encoder count, e.g. 2 * np.pi / 2**16")
    rng = np.random.default_rng(integer("seed", seed, low=0))
    q = d["q"] + sigma * rng.standard_normal(d["q"].shape)
    if quantum is not None:
        q = np.round(q / quantum) * quantum
    tau = d["tau"] + tau_sigma * rng.standard_normal(d["tau"].shape)
    out = {k: v for k, v in data.items() if k not in ("q", "qd", "qdd", "tau")}
    out.update(q=q, tau=tau, t=d["t"], traj=np.asarray(d["traj"]), q_true=d["q"], qd_true=d["qd"],
               qdd_true=d["qdd"], tau_true=d["tau"])
    return out


def savgol_coefficients(window, order, h):
    """(C, E0, E1): Savitzky-Golay for `window` (odd) samples, degree `order`, step h.  C (3,
    window): value, first and second derivative at the centre; E0, E1 (3, window // 2, window): the same at the
    first and last points, from the first and last window.

    >>> C, E0, E1 = savgol_coefficients(5, 2, h=1.0)
    >>> (C @ np.arange(5.0) ** 2).round(6)              # t^2 sampled at t = 0..4: at the centre t = 2, 4, 2 t, 2
    array([4., 4., 2.])"""
    half = window // 2
    x = np.arange(-half, half + 1) * h                             # sample times relative to the centre
    fit = np.linalg.pinv(np.vander(x, order + 1, increasing=True))  # samples -> polynomial coefficients a_0..a_p

    def at(t):
        """Rows mapping the coefficients to p(t), p'(t), p''(t)."""
        powers = np.arange(order + 1)
        value = t ** powers
        first = np.where(powers >= 1, powers * t ** np.maximum(powers - 1, 0), 0.0)
        second = np.where(powers >= 2, powers * (powers - 1) * t ** np.maximum(powers - 2, 0), 0.0)
        return np.stack([value, first, second])

    C = at(0.0) @ fit
    E0 = np.stack([at(x[i]) @ fit for i in range(half)], axis=1)
    E1 = np.stack([at(x[half + 1 + i]) @ fit for i in range(half)], axis=1)
    return C, E0, E1


def _estimate_one(q, h, method, window, order):
    """(q, qd, qdd) of one trajectory's positions q (T, n) sampled every h s."""
    T = len(q)
    if method == "differences":
        if T < 3:
            raise ValueError(f"a trajectory of {T} samples is too short for differences: at least 3 are needed")
        qd = np.gradient(q, h, axis=0)
        qdd = np.empty_like(q)
        qdd[1:-1] = (q[2:] - 2 * q[1:-1] + q[:-2]) / h**2
        qdd[0], qdd[-1] = qdd[1], qdd[-2]
        return q.copy(), qd, qdd
    if T < window:
        raise ValueError(f"a trajectory of {T} samples is shorter than the Savitzky-Golay window of {window} "
                         f"samples: use a shorter window or a higher rate")
    C, E0, E1 = savgol_coefficients(window, order, h)
    half = window // 2
    windows = np.lib.stride_tricks.sliding_window_view(q, window, axis=0)     # (T - 2 half, n, window)
    out = np.empty((3, T, q.shape[1]))
    out[:, half:T - half] = np.einsum("dw,tnw->dtn", C, windows)
    out[:, :half] = np.einsum("dew,wn->den", E0, q[:window])
    out[:, T - half:] = np.einsum("dew,wn->den", E1, q[T - window:])
    return out[0], out[1], out[2]


def estimate(recording, method="savgol", window=0.1, order=3):
    """A data dict for `fit` from a recording: q smoothed (savgol) or as measured (differences), qd and
    qdd estimated per trajectory, tau as measured, the other keys as they are.  window in s (an odd number of
    samples >= order + 2); order 2 to 5.

    >>> from lesson_lib.data import write_word
    >>> rec = record(write_word("o").sample(dt=0.005), sigma=0.0)
    >>> bool(np.abs(estimate(rec)["qd"] - rec["qd_true"]).max() < 0.05)
    True"""
    if not isinstance(recording, Mapping) or any(k not in recording for k in ("q", "tau", "t", "traj")):
        raise TypeError(f"recording must be a dict with 'q', 'tau', 't' and 'traj', as record(...) gives, got "
                        f"{described(recording)}")
    method = choice("method", method, METHODS)
    q = array("recording['q']", recording["q"], (2,), "joint positions of shape (N, n)")
    t = array("recording['t']", recording["t"], (1,), "(N,) times")
    tau = array("recording['tau']", recording["tau"], (2,), "torques of shape (N, n)")
    if tau.shape != q.shape:
        raise ValueError(f"recording['tau'] must have the shape of recording['q'], {q.shape}, got {tau.shape}")
    traj = np.asarray(recording["traj"])
    if t.shape != (len(q),) or traj.shape != (len(q),):
        raise ValueError(f"recording['t'] and ['traj'] must have one entry per sample ({len(q)}), got shapes "
                         f"{t.shape} and {traj.shape}")
    order = integer("order", order, low=2, high=5, hint="a cubic (order=3) suits a 0.1 s window")
    window_s = positive_number("window", window, hint="seconds, e.g. window=0.1")
    out = {k: v for k, v in recording.items()}
    q_hat, qd, qdd = np.empty_like(q), np.empty_like(q), np.empty_like(q)
    for k in np.unique(traj):
        rows = np.flatnonzero(traj == k)
        steps = np.diff(t[rows])
        if len(rows) > 1 and (np.any(steps <= 0) or np.ptp(steps) > 1e-6 * steps.mean()):
            raise ValueError(f"trajectory {k} is not sampled at one fixed step (its times must rise evenly): "
                             f"a recording is sampled at the encoders' rate")
        h = float(steps.mean()) if len(rows) > 1 else 1.0
        window = max(order + 2, int(round(window_s / h)))
        window += 1 - window % 2                                       # odd: a centre sample
        q_hat[rows], qd[rows], qdd[rows] = _estimate_one(q[rows], h, method, window, order)
    out.update(q=q_hat, qd=qd, qdd=qdd, tau=tau)
    return out


def estimation_errors(data):
    """RMS errors of the estimates against the truth: {"q", "qd", "qdd"} in rad, rad/s, rad/s^2.

    >>> from lesson_lib.data import write_word
    >>> errors = estimation_errors(estimate(record(write_word("o").sample(dt=0.005), sigma=1e-4)))
    >>> sorted(errors)
    ['q', 'qd', 'qdd']"""
    return {k: float(np.sqrt(np.mean((np.asarray(data[k]) - np.asarray(data[f"{k}_true"])) ** 2)))
            for k in ("q", "qd", "qdd")}
