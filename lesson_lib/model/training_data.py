"""What `fit` accepts as training data (checked once per call, before any step), and each sample's weight.

- Shapes, types, finiteness: _validate.as_states (q, qd, qdd, tau each (N, n)).
- At least 2 samples, and every joint's torque varies: the loss divides each joint's error by its torques'
  standard deviation.
- The float32 step must not overflow: values below FLOAT32_SAFE, angles below Q_PRECISE (float32's spacing at
  1e4 rad is 1e-3 rad), and the scaled torques, qdd / std(tau) and (DeLaN: c is quadratic in qd)
  qd² / std(tau) below SCALED_SAFE."""
import numpy as np

from ..validate import as_states
from ..facts import POTENTIAL_SCALE

FLOAT32_SAFE = 1e30
Q_PRECISE = 1e4
SCALED_SAFE = 1e12


def _largest(x):
    """(max |x|, the joint where it is) for an (N, n) array."""
    j = int(np.abs(x).max(axis=0).argmax())
    return float(np.abs(x[:, j]).max()), j


def _refuse(text):
    raise ValueError(f"{text}.  The model was not changed.")


def check_training_data(n_dof, q, qd, qdd, tau, tau_scale=None, squares_velocities=False):
    """(q, qd, qdd, tau) as float (N, n) arrays and the torque scale the loss divides by (the
    per-joint standard deviation, or the model's `tau_scale`), or ValueError saying what is wrong and the fix."""
    (q, qd, qdd, tau), _ = as_states(n_dof, q=q, qd=qd, qdd=qdd, tau=tau)
    N = len(q)
    if N < 2:
        _refuse(f"training needs at least 2 samples (rows of q, qd, qdd, tau), got {N}")
    for name, x, unit in (("q", q, "rad"), ("qd", qd, "rad/s"), ("qdd", qdd, "rad/s^2"), ("tau", tau, "N m")):
        big, j = _largest(x)
        if big > FLOAT32_SAFE:
            _refuse(f"{name} reaches {big:.3g} {unit} (joint {j}): too large for the float32 training step, "
                    f"which ends at {np.finfo(np.float32).max:.3g}; check the units of {name}")
    big, j = _largest(q)
    if big > Q_PRECISE:
        _refuse(f"q reaches {big:.3g} rad (joint {j}): float32 keeps 7 digits, so angles beyond {Q_PRECISE:g} rad "
                f"lose their precision; wrap them first (only cos q and sin q matter), e.g. "
                f"q = (q + np.pi) % (2 * np.pi) - np.pi")
    spread = tau.std(axis=0)
    for j in range(n_dof):
        if spread[j] <= 1e-12 * np.abs(tau[:, j]).max():
            _refuse(f"the torques of joint {j} do not vary (tau[:, {j}] is {tau[0, j]:g} in all {N} samples): these "
                    f"data cannot teach the model how that torque depends on the state (the loss divides each "
                    f"joint's error by its torques' standard deviation); use samples from varied motions")
    scale = spread if tau_scale is None else np.asarray(tau_scale, dtype=float)
    worst = (np.abs(tau).max(axis=0) / scale).max()
    sizes = [("tau", worst, f"tau / std(tau) reaches {worst:.3g}", "the loss squares the scaled torque error",
              "check the units of tau")]
    if squares_velocities:
        for name, x, power, term in (("qd", qd, 2, "its Coriolis terms square velocities"),
                                     ("qdd", qdd, 1, "the mass-matrix term is linear in qdd")):
            ratio = np.abs(x).max() ** power / scale.min()
            big, j = _largest(x)
            sizes.append((name, ratio, f"{name} reaches {big:.3g} (joint {j}) while the smallest torque standard "
                                       f"deviation is {scale.min():.3g}, so the torque the model computes, "
                                       f"scaled, reaches {name}{'^2' if power == 2 else ''} / std(tau) = {ratio:.3g}",
                          f"{term}, and the loss squares the scaled torque error again",
                          f"check the units of {name} and tau"))
    for name, ratio, what, why, fix in sizes:
        if ratio > SCALED_SAFE:
            _refuse(f"these data would overflow the float32 training step: {what}, above the limit of "
                    f"{SCALED_SAFE:g} ({why}; float32 ends at {np.finfo(np.float32).max:.3g}); {fix}, or leave "
                    f"out the samples with extreme {name}")
    return q, qd, qdd, tau, scale


def sample_weights(qd, qdd, scale=POTENTIAL_SCALE):
    """Each sample's weight in the training loss, (N,), mean 1:

        w_i  proportional to  1 / (1 + (|qdd_i| / scale)^2 + (|qd_i|^2 / scale)^2),   scale = POTENTIAL_SCALE 1/s^2.

    A model off by a relative amount makes a torque error that grows like |qdd| (M qdd) and |qd|^2 (c): dividing
    by the expected size asks for the same relative accuracy everywhere, not just on the fastest samples.
    Validation uses no weights; benchmarks/bench_trajectories.py measures the effect."""
    speed2, accel = np.sum(qd * qd, axis=1), np.sqrt(np.sum(qdd * qdd, axis=1))
    w = np.reciprocal(1.0 + (accel / scale) ** 2 + (speed2 / scale) ** 2)
    return w / w.mean()
