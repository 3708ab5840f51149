"""Inverse-dynamics data from the RNEA truth: (q, qd, qdd) -> tau, seeded."""
import numpy as np

from ..facts import N_SAMPLES, QD_MAX, QDD_MAX
from ..physics.integrators import rollout


def sample_uniform(chain, n_samples=N_SAMPLES, seed=0, qd_max=QD_MAX, qdd_max=QDD_MAX, noise=0.0):
    """Samples with q uniform on the torus [-pi, pi)^n, qd uniform in [-qd_max, qd_max]^n and qdd uniform in
    [-qdd_max, qdd_max]^n; tau from the RNEA, plus Gaussian sensor noise of std `noise` (N m) if asked.

    Returns a dict of (n_samples, n) arrays "q", "qd", "qdd", "tau".
    """
    rng = np.random.default_rng(seed)
    n = chain.n_dof
    q = rng.uniform(-np.pi, np.pi, (n_samples, n))
    qd = rng.uniform(-qd_max, qd_max, (n_samples, n))
    qdd = rng.uniform(-qdd_max, qdd_max, (n_samples, n))
    tau = chain.rnea(q, qd, qdd) + noise * rng.standard_normal((n_samples, n))
    return {"q": q, "qd": qd, "qdd": qdd, "tau": tau}


def sample_trajectories(chain, n_traj=8, duration=4.0, dt=0.01, seed=0, torque_amp=5.0):
    """Samples along trajectories driven by random sinusoidal torques from random initial states.

    Returns the same dict as sample_uniform, with qdd from the true forward dynamics at each sample.
    """
    rng = np.random.default_rng(seed)
    n = chain.n_dof
    amp = rng.uniform(-torque_amp, torque_amp, (n_traj, n))
    freq = rng.uniform(0.3, 2.0, (n_traj, n))
    phase = rng.uniform(0, 2 * np.pi, (n_traj, n))

    def tau_fn(t, q, qd):
        return amp * np.sin(2 * np.pi * freq * t + phase)
    steps = int(round(duration / dt))
    t, q, qd = rollout(chain.forward_dynamics, rng.uniform(-np.pi, np.pi, (n_traj, n)),
                       rng.uniform(-1, 1, (n_traj, n)), dt=dt, steps=steps, tau_fn=tau_fn)
    tau = np.stack([tau_fn(tk, None, None) for tk in t])           # (T, n_traj, n)
    q, qd, tau = (a.reshape(-1, n) for a in (q, qd, tau))
    return {"q": q, "qd": qd, "qdd": chain.forward_dynamics(q, qd, tau), "tau": tau}
