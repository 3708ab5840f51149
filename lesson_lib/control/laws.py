"""Control laws that make the arm follow a joint reference (q_d, qd_d, qdd_d), with e = q_d - q, e_dot = qd_d - qd.

Computed torque with a model's inverse dynamics ID_hat:

    tau = M_hat (qdd_d + K_d e_dot + K_p e) + c_hat + g_hat = ID_hat(q, qd, qdd_d + K_d e_dot + K_p e)

The second form needs only `inverse_dynamics`, so one law serves the truth, a DeLaN and the black box.  With the
true model each joint's error obeys e'' + K_d e' + K_p e = 0 (K_p = w^2, K_d = 2 w: critically damped); a model
error d_tau enters as -M^-1 d_tau.  PD alone, tau = K_p e + K_d e_dot, has no feed-forward: it lags and sags.
A digital controller (track, hold=True) needs K_d dt well below 2 (computed torque) or 2 lambda_min(M) (PD).

Gains are one number or one per joint.  Shapes: q, qd, q_d, qd_d, qdd_d, tau (n,) or (B, n)."""
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
    """Raise unless each gain ({name: array}) is one number or one per joint of n; `owner` names
    what has the joints.

    >>> check_gain_lengths({"kp": [100.0, 100.0, 100.0]}, 2, "the chain")
    Traceback (most recent call last):
    ValueError: kp has 3 gains but the chain has 2 joints: give one number for all joints or one per joint"""
    for name, k in gains.items():
        if k is not None and np.ndim(k) == 1 and len(k) != n:
            raise ValueError(f"{name} has {len(k)} gains but {owner} has {n} joints: give one number for all joints "
                             f"or one per joint")


def inverse_dynamics_of(model):
    """The callable (q, qd, qdd) -> tau of a model: `inverse_dynamics`, or the RNEA for a PlanarChain (the truth).

    >>> from lesson_lib import double_pendulum
    >>> inverse_dynamics_of(double_pendulum())([np.pi / 2, 0.0], [0.0, 0.0], [0.0, 0.0]).round(2)   # the RNEA
    array([19.62,  4.9 ])"""
    if isinstance(model, PlanarChain):
        return model.rnea
    fn = getattr(model, "inverse_dynamics", None)
    if not callable(fn):
        raise TypeError(f"model must be a PlanarChain or have an inverse_dynamics(q, qd, qdd) method "
                        f"(DeLaN, BlackBox), got {type(model).__name__}")
    return fn


class PD:
    """tau = K_p e + K_d e_dot: feedback only.

    >>> zero = np.zeros(2)
    >>> PD(kp=100.0, kd=20.0)(np.array([0.1, 0.0]), zero, zero, zero, zero).round(6)   # q 0.1 rad past q_d
    array([-10.,   0.])"""

    def __init__(self, kp=KP, kd=KD):
        self.kp, self.kd = _gain("kp", kp), _gain("kd", kd)

    def __repr__(self):
        return f"PD(kp={self.kp.tolist()}, kd={self.kd.tolist()})"

    def feedback(self, q, qd, q_d, qd_d):
        """K_p e + K_d e_dot.

        >>> zero = np.zeros(2)
        >>> PD(kp=100.0, kd=20.0).feedback(np.array([0.1, 0.0]), np.array([0.0, 1.0]), zero, zero).round(6)
        array([-10., -20.])"""
        return self.kp * (q_d - q) + self.kd * (qd_d - qd)

    def __call__(self, q, qd, q_d, qd_d, qdd_d):
        return self.feedback(q, qd, q_d, qd_d)


class ComputedTorque(PD):
    """tau = ID_hat(q, qd, qdd_d + K_d e_dot + K_p e) for any model with inverse dynamics (see the module).

    >>> from lesson_lib import double_pendulum
    >>> q, zero = np.array([np.pi / 2, 0.0]), np.zeros(2)
    >>> ComputedTorque(double_pendulum())(q, zero, q, zero, zero).round(2)     # on the reference: hold it
    array([19.62,  4.9 ])"""

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
