"""Inverse-dynamics data from the RNEA truth: (q, qd, qdd) -> tau, seeded.

A data set is a dict of (N, n) arrays "q", "qd", "qdd", "tau"; data along motions also carry "traj" (N,), the
trajectory of each sample, and "t" (N,), its time (validate on whole trajectories)."""
import numpy as np

from ..facts import N_SAMPLES, QD_MAX, QDD_MAX
from ..limits import MAX_SAMPLES
from ..physics.integrators import rollout, steps_for
from ..validate import has_api, integer, number, within_limit

_CHAIN = "a PlanarChain such as double_pendulum()"


def _seed(seed):
    return integer("seed", seed, low=0, hint="a whole number >= 0, e.g. seed=0 (the same seed gives the same data)")


def _size(name, count):
    count = integer(name, count, low=1, hint=f"the number of samples, e.g. {name}={N_SAMPLES}")
    return within_limit(name, count, MAX_SAMPLES, "use fewer samples; a few thousand are enough for the lesson")


def sample_uniform(chain, n_samples=N_SAMPLES, seed=0, qd_max=QD_MAX, qdd_max=QDD_MAX, noise=0.0):
    """q uniform on the torus [-pi, pi)^n, qd in [-qd_max, qd_max]^n, qdd in [-qdd_max, qdd_max]^n;
    tau from the RNEA plus Gaussian noise of std `noise` (N m).  Returns {"q", "qd", "qdd", "tau"}, each
    (n_samples, n).

    >>> from lesson_lib import double_pendulum
    >>> data = sample_uniform(double_pendulum(), 8, seed=0)
    >>> sorted(data), data["q"].shape
    (['q', 'qd', 'qdd', 'tau'], (8, 2))"""
    has_api("chain", chain, ("rnea",), _CHAIN)
    n_samples, seed = _size("n_samples", n_samples), _seed(seed)
    qd_max = number("qd_max", qd_max, low=0.0, hint="the largest joint speed in rad/s, e.g. qd_max=3")
    qdd_max = number("qdd_max", qdd_max, low=0.0, hint="the largest joint acceleration in rad/s^2, e.g. qdd_max=10")
    noise = number("noise", noise, low=0.0, hint="the sensor noise's standard deviation in N m, e.g. noise=0.5")
    rng = np.random.default_rng(seed)
    n = chain.n_dof
    q = rng.uniform(-np.pi, np.pi, (n_samples, n))
    qd = rng.uniform(-qd_max, qd_max, (n_samples, n))
    qdd = rng.uniform(-qdd_max, qdd_max, (n_samples, n))
    tau = chain.rnea(q, qd, qdd) + noise * rng.standard_normal((n_samples, n))
    return {"q": q, "qd": qd, "qdd": qdd, "tau": tau}


def sample_trajectories(chain, n_traj=8, duration=4.0, dt=0.01, seed=0, torque_amp=5.0):
    """Samples along n_traj trajectories from random states (q on the torus, |qd| <= 1 rad/s)
    driven by torques A sin(2 pi f t + phi), A in [-torque_amp, torque_amp] N m, f in [0.3, 2] Hz, per trajectory
    and joint; `duration` s recorded every dt s.  Returns sample_uniform's dict (qdd from the true forward dynamics)
    plus "traj" and "t", trajectory-major.

    >>> from lesson_lib import double_pendulum
    >>> data = sample_trajectories(double_pendulum(), n_traj=2, duration=0.5)
    >>> data["q"].shape, sorted(set(data["traj"].tolist()))
    ((102, 2), [0, 1])"""
    has_api("chain", chain, ("forward_dynamics",), _CHAIN)
    n_traj, seed = integer("n_traj", n_traj, low=1, hint="the number of trajectories, e.g. n_traj=8"), _seed(seed)
    steps = steps_for(duration, dt)
    torque_amp = number("torque_amp", torque_amp, low=0.0, hint="the torques' largest amplitude in N m, e.g. 5")
    within_limit("n_traj x (steps + 1) samples", n_traj * (steps + 1), MAX_SAMPLES,
                 "use fewer or shorter trajectories, or a larger dt")
    rng = np.random.default_rng(seed)
    n = chain.n_dof
    amp = rng.uniform(-torque_amp, torque_amp, (n_traj, n))
    freq = rng.uniform(0.3, 2.0, (n_traj, n))
    phase = rng.uniform(0, 2 * np.pi, (n_traj, n))

    def tau_fn(t, q, qd):
        return amp * np.sin(2 * np.pi * freq * t + phase)
    t, q, qd = rollout(chain.forward_dynamics, rng.uniform(-np.pi, np.pi, (n_traj, n)),
                       rng.uniform(-1, 1, (n_traj, n)), dt=dt, steps=steps, tau_fn=tau_fn)
    tau = np.stack([tau_fn(tk, None, None) for tk in t])           # (T, n_traj, n), like q and qd
    q, qd, tau = (np.swapaxes(a, 0, 1).reshape(-1, n) for a in (q, qd, tau))   # trajectory-major rows
    return {"q": q, "qd": qd, "qdd": chain.forward_dynamics(q, qd, tau), "tau": tau,
            "traj": np.repeat(np.arange(n_traj), len(t)), "t": np.tile(t, n_traj)}
