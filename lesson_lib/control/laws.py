"""Control laws that make the arm follow a joint reference (q_d, qd_d, qdd_d), with e = q_d - q, e_dot = qd_d - qd.

Computed torque (feedback linearisation) with a model's inverse dynamics ID_hat(q, qd, qdd):

    tau = M_hat(q) (qdd_d + K_d e_dot + K_p e) + c_hat(q, qd) + g_hat(q) = ID_hat(q, qd, qdd_d + K_d e_dot + K_p e)

The second form needs only `inverse_dynamics`, so one law serves every model: the truth (the chain's RNEA), a
DeLaN, and the black box, which has no M/c/g split: its feed-forward is its own torque prediction at the commanded
acceleration qdd_d + K_d e_dot + K_p e.  With the true model the arm obeys M (qdd - qdd_d - K_d e_dot - K_p e) = 0,
so each joint's error follows e'' + K_d e' + K_p e = 0: with K_p = w^2 and K_d = 2 w, e(t) = (e0 + (e0' + w e0) t)
exp(-w t).  A model error d_tau enters as e'' + K_d e' + K_p e = -M^-1 d_tau: the better the model, the smaller e.

PD alone: tau = K_p e + K_d e_dot, no model, the same numbers as gains (now in N m/rad and N m s/rad).  It has no
feed-forward, so it lags the motion and sags under gravity.

A digital controller (lesson_lib.control.track, hold=True) needs a tick dt short against its gains: K_d dt well
below 2 for computed torque, K_d dt below about 2 lambda_min(M) for PD (at 100 Hz, K_d = 20 is fine for PD only
while the elbow stays bent: a stretched arm's lambda_min(M) falls to about 0.07 kg m^2).

Gains are a number (every joint) or one number per joint.  Shapes: q, qd, q_d, qd_d, qdd_d, tau are (n,) or (B, n).
"""
import numpy as np

from ..physics.chain import PlanarChain

KP = 100.0      # 1/s^2: natural frequency w = 10 rad/s
KD = 20.0       # 1/s:   critically damped, K_d = 2 w


def _gain(name, k):
    """A gain as a float array, () or (n,), finite and >= 0; raise otherwise."""
    if isinstance(k, (bool, np.bool_, str)) or k is None:
        raise TypeError(f"{name} must be a number or one number per joint, got {k!r}")
    try:
        arr = np.asarray(k, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number or one number per joint, got {k!r}") from None
    if arr.ndim > 1 or not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must be a finite number >= 0 or a flat list of them (one per joint), got {k!r}")
    return arr


def check_gain_lengths(gains, n, owner):
    """Raise unless each gain of `gains` ({what to call it: array}) is one number or one per joint of n; `owner`
    names what has the n joints ("the model", "the chain")."""
    for name, k in gains.items():
        if k is not None and np.ndim(k) == 1 and len(k) != n:
            raise ValueError(f"{name} has {len(k)} gains but {owner} has {n} joints: give one number for all joints "
                             f"or one per joint")


def inverse_dynamics_of(model):
    """The callable (q, qd, qdd) -> tau of a model: `inverse_dynamics`, or the RNEA for a PlanarChain (the truth)."""
    if isinstance(model, PlanarChain):
        return model.rnea
    fn = getattr(model, "inverse_dynamics", None)
    if not callable(fn):
        raise TypeError(f"model must be a PlanarChain or have an inverse_dynamics(q, qd, qdd) method "
                        f"(DeLaN, BlackBox), got {type(model).__name__}")
    return fn


class PD:
    """tau = K_p e + K_d e_dot: feedback only."""

    def __init__(self, kp=KP, kd=KD):
        self.kp, self.kd = _gain("kp", kp), _gain("kd", kd)

    def __repr__(self):
        return f"PD(kp={self.kp.tolist()}, kd={self.kd.tolist()})"

    def feedback(self, q, qd, q_d, qd_d):
        """K_p e + K_d e_dot."""
        return self.kp * (q_d - q) + self.kd * (qd_d - qd)

    def __call__(self, q, qd, q_d, qd_d, qdd_d):
        return self.feedback(q, qd, q_d, qd_d)


class ComputedTorque(PD):
    """tau = ID_hat(q, qd, qdd_d + K_d e_dot + K_p e) for any model with inverse dynamics (see the module)."""

    def __init__(self, model, kp=KP, kd=KD):
        super().__init__(kp, kd)
        self.model, self.inverse_dynamics = model, inverse_dynamics_of(model)
        n = getattr(model, "n_dof", None)
        if n is not None:
            check_gain_lengths({"kp": self.kp, "kd": self.kd}, n, "the model")

    def __repr__(self):
        return f"ComputedTorque({type(self.model).__name__}, kp={self.kp.tolist()}, kd={self.kd.tolist()})"

    def __call__(self, q, qd, q_d, qd_d, qdd_d):
        return self.inverse_dynamics(q, qd, qdd_d + self.feedback(q, qd, q_d, qd_d))
