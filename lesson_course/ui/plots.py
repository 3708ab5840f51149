"""Figures for the course notebooks 01, 02, 05, 06 and 08: each function draws one figure and returns it; the
notebook cell calls plt.show(), which shows it with alt text read from its titles, axes and lines
(figure.DescribedFigure).  Every axis is labelled with its unit.  Colours come from lesson_course.ui.palette
(the truth gold, DeLaN teal, the black box grey, as on the Bench), and lines also differ in style or width."""
import matplotlib.pyplot as plt
import numpy as np

from lesson_lib.evaluation.audit import velocity_sweep

from .figure import DescribedFigure
from .palette import BLACK_BOX, OTHER
from .palette import LEARNED as DELAN
from .palette import TRUE as TRUTH


def velocity_dependence(black_box, delan, chain, q, qd_max=3.0, spread=3.0, points=61):
    """Off-diagonal entries of each model's implied mass matrix at a fixed q while qd_0 sweeps +-spread*qd_max.
    The truth is flat (M depends on q only) and symmetric (M_01 = M_10)."""
    v = np.linspace(-spread * qd_max, spread * qd_max, points)
    bb, dl = velocity_sweep(black_box, q, v), velocity_sweep(delan, q, v)
    true = chain.mass_matrix(q)[0, 1]
    fig, ax = plt.subplots(figsize=(7, 3.8), FigureClass=DescribedFigure)
    ax.axvspan(-qd_max, qd_max, color="0.92", label="training range of $\\dot q_0$")
    ax.axhline(true, color=TRUTH, lw=3, label="truth $M_{01} = M_{10}$")
    ax.plot(v, bb[:, 0, 1], color=BLACK_BOX, label="black box $\\partial\\tau_0/\\partial\\ddot q_1$")
    ax.plot(v, bb[:, 1, 0], color=BLACK_BOX, ls="--", label="black box $\\partial\\tau_1/\\partial\\ddot q_0$")
    ax.plot(v, dl[:, 0, 1], color=DELAN, lw=2, label="DeLaN $M_{01} = M_{10}$")
    ax.set(xlabel="joint-0 velocity $\\dot q_0$ (rad/s)", ylabel="off-diagonal inertia (kg m$^2$)",
           title=f"Implied inertia at q = ({q[0]:.1f}, {q[1]:.1f}) rad as the velocity changes")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    return fig


def mass_matrix_entries(chain, points=181):
    """The true M(q) entries of a 2-link chain over the elbow angle q_1 (they do not depend on q_0)."""
    q1 = np.linspace(-np.pi, np.pi, points)
    M = chain.mass_matrix(np.stack([np.zeros_like(q1), q1], axis=1))
    fig, ax = plt.subplots(figsize=(7, 3.6), FigureClass=DescribedFigure)
    for (i, j), style in zip(((0, 0), (0, 1), (1, 1)), ("-", "--", ":"), strict=True):
        ax.plot(q1, M[:, i, j], color=TRUTH, ls=style, lw=2, label=f"$M_{{{i}{j}}}$")
    ax.set(xlabel="elbow angle $q_1$ (rad)", ylabel="inertia (kg m$^2$)",
           title="True mass matrix of the double pendulum over the elbow angle")
    ax.legend()
    fig.tight_layout()
    return fig


def energy_errors(errors, dt):
    """Size of the energy error |E(t) - E(0)| of each integrator (a dict name -> (t, dE)), log scale."""
    fig, ax = plt.subplots(figsize=(7, 3.8), FigureClass=DescribedFigure)
    for (name, (t, dE)), color in zip(errors.items(), OTHER, strict=True):
        ax.semilogy(t[1:], np.abs(dE[1:]) + 1e-16, color=color, label=name)
    ax.set(xlabel="time (s)", ylabel="energy error $|E(t) - E(0)|$ (J)",
           title=f"Unforced double pendulum, step dt = {dt} s: energy error of three integrators")
    ax.legend()
    fig.tight_layout()
    return fig


def speed_extrapolation(speeds, curves):
    """Torque error against the speed multiplier (1 = the training range), one line per model, log scale."""
    fig, ax = plt.subplots(figsize=(7, 3.8), FigureClass=DescribedFigure)
    colors = {"DeLaN": DELAN, "black box": BLACK_BOX}
    for name, err in curves.items():
        ax.plot(speeds, err, "o-", color=colors.get(name), label=name)
    ax.axvline(1.0, color="0.6", ls=":", label="edge of the training range")
    ax.set_yscale("log")
    ax.set(xlabel="speed and acceleration range (multiples of the training range)",
           ylabel="torque error (% of variance)", title="Faster than anything in the training data")
    ax.legend()
    fig.tight_layout()
    return fig


def rollout_comparison(t, q_true, q_model, energies):
    """Left: joint angles of the true and the learned rollout. Right: energy changes E(t) - E(0) (dict of
    label -> E(t))."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 3.8), FigureClass=DescribedFigure)
    for j, style in ((0, "-"), (1, "--")):
        a1.plot(t, q_true[:, j], color=TRUTH, ls=style, lw=2.5, label=f"truth $q_{j}$")
        a1.plot(t, q_model[:, j], color=DELAN, ls=style, label=f"DeLaN $q_{j}$")
    a1.set(xlabel="time (s)", ylabel="joint angle (rad)", title="Released from rest: angles")
    a1.legend(fontsize=8)
    for (label, E), color, width in zip(energies.items(), (TRUTH, OTHER[2], DELAN), (4, 1.5, 1.5), strict=True):
        a2.plot(t, E - E[0], color=color, lw=width, label=label)
    a2.set(xlabel="time (s)", ylabel="energy change $E(t) - E(0)$ (J)", title="Energy along the rollouts")
    a2.legend(fontsize=8)
    fig.tight_layout()
    return fig


def derivative_estimates(recording, estimates, joint=1, start=1.0, seconds=0.4):
    """A stretch of one trajectory of a recording (sensors.record): the recorded joint angle against the truth
    (top), and q̈ of that joint from each estimate in `estimates` (a dict label -> sensors.estimate(...) output)
    against the true q̈ (bottom, the y range set by the truth so that a noisy estimate runs off it)."""
    t, traj = np.asarray(recording["t"]), np.asarray(recording["traj"])
    rows = np.flatnonzero((traj == traj[0]) & (t >= t[0] + start) & (t <= t[0] + start + seconds))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 5.2), sharex=True, FigureClass=DescribedFigure)
    top.plot(t[rows], recording["q_true"][rows, joint], color=TRUTH, lw=3, label="true angle")
    top.plot(t[rows], recording["q"][rows, joint], ".", color=BLACK_BOX, ms=3, label="recorded (with noise)")
    top.set(ylabel=f"$q_{joint}$ (rad)", title="What the encoder records, and q̈ estimated from it")
    top.legend(fontsize=8)
    true = recording["qdd_true"][rows, joint]
    bottom.plot(t[rows], true, color=TRUTH, lw=3, label="true $\\ddot q$")
    # up to three estimates (notebook 08 shows two): the colours and styles left over go unused
    for (label, data), color, style in zip(estimates.items(), OTHER, ("-", "--", ":"), strict=False):
        bottom.plot(t[rows], data["qdd"][rows, joint], color=color, ls=style, lw=1.2, label=label)
    pad = 0.5 * np.ptp(true) + 1.0
    bottom.set(xlabel="time (s)", ylabel=f"$\\ddot q_{joint}$ (rad/s$^2$)", ylim=(true.min() - pad, true.max() + pad))
    bottom.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    return fig
