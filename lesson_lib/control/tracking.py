"""Tracking: the TRUE arm follows a joint reference under a control law; errors in the joints and at the pen.

hold=True (default): a digital controller at 1/dt Hz: each tick reads the state, saturates |tau_i| <= tau_max_i
and holds it while RK4 integrates the true arm.  hold=False: the law at every RK4 stage (dt -> 0; time rides
along as a coordinate).  A reference is a callable t -> (q_d, qd_d, qdd_d), each (B, n), e.g. a Handwriting;
its `duration` and `durations` (B,) are used when present."""
import numpy as np

from ..limits import MAX_SPEED, MAX_TRACKING_STEPS, TAU_MAX
from ..physics.chain import double_pendulum
from ..physics.integrators import rk4_step
from ..validate import as_state, boolean, callable_arg, described, has_api, positive_number, within_limit
from .laws import check_gain_lengths


class Unstable(RuntimeError):
    """The simulated closed loop diverged (gains too high for the controller's tick, or a model far off).

    >>> issubclass(Unstable, RuntimeError)
    True"""


def _tau_max(tau_max, n):
    """Torque limits (n,) from one number or one per joint; None: no limit."""
    if tau_max is None:
        return np.full(n, np.inf)
    if np.ndim(tau_max) == 0:
        return np.full(n, positive_number("tau_max", tau_max, hint="None means no limit"))
    if tau_max is TAU_MAX and n != len(TAU_MAX):
        raise ValueError(f"the default torque limits tau_max={TAU_MAX} are for the 2-joint arm and the chain has {n} "
                         f"joints: pass tau_max= (one number, one per joint, or None for no limit)")
    if np.ndim(tau_max) == 1 and len(tau_max) != n:
        raise ValueError(f"tau_max has {len(tau_max)} limits but the chain has {n} joints: give one number for all "
                         f"joints or one per joint; None means no limit")
    limit = as_state("tau_max", tau_max, n, allow_batch=False)
    if np.any(limit <= 0):
        raise ValueError(f"tau_max must be > 0 for every joint, got {tau_max!r}; None means no limit")
    return limit


def track(controller, reference, chain=None, dt=0.01, duration=None, tau_max=TAU_MAX, hold=True, q0=None, qd0=None):
    """Simulate `chain` (default double_pendulum()) following `reference` under
    controller(q, qd, q_d, qd_d, qdd_d) -> tau, from the reference's start unless q0 / qd0 are given; tau_max one
    limit or one per joint (N m), None for none.

    Returns {"t" (T,), "q", "qd", "q_d", "qd_d", "tau" (applied) (T, B, n), "xy", "xy_d" (T, B, 2) the tip's actual
    and desired positions, "active" (T, B) while trajectory b runs, "saturated" (T, B), "dt", "hold", "tau_max",
    "labels"}.

    >>> from lesson_lib.control import ComputedTorque
    >>> from lesson_lib.data import write_word
    >>> result = track(ComputedTorque(double_pendulum()), write_word("o"), duration=0.2)
    >>> bool(tracking_errors(result)["rms_xy"] < 1e-3)                       # the true model: within a mm
    True"""
    chain = double_pendulum() if chain is None else has_api(
        "chain", chain, ("forward_dynamics", "forward_kinematics"), "a PlanarChain such as double_pendulum()")
    callable_arg("controller", controller, "controller(q, qd, q_d, qd_d, qdd_d) -> tau, e.g. ComputedTorque(model)")
    callable_arg("reference", reference, "reference(t) -> (q_d, qd_d, qdd_d), e.g. write_letters('ab')")
    _fits(controller, chain.n_dof)
    dt, hold = positive_number("dt", dt), boolean("hold", hold)
    duration = getattr(reference, "duration", None) if duration is None else duration
    if duration is None:
        raise ValueError("the reference has no duration attribute: pass duration= (s)")
    steps = within_limit("steps", int(np.ceil(positive_number("duration", duration) / dt - 1e-9)), MAX_TRACKING_STEPS,
                         "use a larger dt or a shorter reference")
    n = chain.n_dof
    batch = None

    def desired(t):
        nonlocal batch
        ref = reference(t)
        if not isinstance(ref, (tuple, list)) or len(ref) != 3:
            raise ValueError(f"reference({t:g}) returned {described(ref)}; a reference returns (q_d, qd_d, qdd_d)")
        ref = tuple(np.atleast_2d(np.asarray(a, dtype=float)) for a in ref)
        shapes = {a.shape for a in ref}
        if len(shapes) != 1 or ref[0].ndim != 2 or ref[0].shape[1] != n or (batch and ref[0].shape[0] != batch):
            raise ValueError(f"reference({t:g}) returned q_d, qd_d, qdd_d of shapes {[a.shape for a in ref]}; the "
                             f"chain has {n} joints, so each must be ({n},) or (B, {n}) with one B throughout")
        if not all(np.all(np.isfinite(a)) for a in ref):
            raise ValueError(f"reference({t:g}) returned NaN or inf: the reference must give finite q_d, qd_d and "
                             f"qdd_d at every time up to its duration")
        batch = ref[0].shape[0]
        return ref

    def torque(q, qd, ref):
        tau = np.asarray(controller(q, qd, *ref), dtype=float)
        if tau.shape not in ((len(q), n), (n,)):
            raise ValueError(f"controller returned torques of shape {tau.shape} for {len(q)} state(s) of {n} joints; "
                             f"it must return one torque per joint, ({len(q)}, {n})")
        if not np.all(np.isfinite(tau)):
            raise ValueError("controller returned NaN or inf torques: check its model and gains")
        return np.clip(tau, -limit, limit)

    def held(tau):                                      # the dynamics with this tick's torques held over it
        return lambda q, qd: chain.forward_dynamics(q, qd, tau)

    def closed_loop(q_ext, qd_ext):                     # continuous control: time is the last coordinate
        q, qd = q_ext[:, :n], qd_ext[:, :n]
        qdd = chain.forward_dynamics(q, qd, torque(q, qd, desired(q_ext[0, n])))
        return np.concatenate([qdd, np.zeros((len(q), 1))], axis=1)

    ref = desired(0.0)                                  # checks the reference against the chain first
    limit = _tau_max(tau_max, n)
    q = ref[0].copy() if q0 is None else np.broadcast_to(as_state("q0", q0, n), ref[0].shape).copy()
    qd = ref[1].copy() if qd0 is None else np.broadcast_to(as_state("qd0", qd0, n), ref[0].shape).copy()
    rows = []
    for k in range(steps + 1):
        ref = ref if k == 0 else desired(k * dt)
        tau = torque(q, qd, ref)
        rows.append((q, qd, ref[0], ref[1], tau))
        if k == steps:
            break
        if hold:
            q, qd = rk4_step(held(tau), q, qd, dt)
        else:
            clock = np.full((len(q), 1), k * dt)
            q_ext, qd_ext = rk4_step(closed_loop, np.hstack([q, clock]), np.hstack([qd, np.ones_like(clock)]), dt)
            q, qd = q_ext[:, :n], qd_ext[:, :n]
        if not np.abs(qd).max() < MAX_SPEED:
            raise Unstable(f"the closed loop is unstable: a joint passed {MAX_SPEED:g} rad/s at t = "
                           f"{(k + 1) * dt:g} s. A digital controller needs a tick short against its gains (K_d dt "
                           f"well below 2 for computed torque, below 2 lambda_min(M) for PD): use a smaller dt or "
                           f"lower gains")
    q, qd, q_d, qd_d, tau = (np.array(a) for a in zip(*rows, strict=True))
    t = np.arange(steps + 1) * dt
    durations = np.broadcast_to(getattr(reference, "durations", duration), q.shape[1])
    return {"t": t, "q": q, "qd": qd, "q_d": q_d, "qd_d": qd_d, "tau": tau, "xy": _tip(chain, q),
            "xy_d": _tip(chain, q_d), "active": t[:, None] < np.asarray(durations)[None, :] + dt - 1e-9,
            "saturated": np.any(np.abs(tau) >= limit, axis=-1), "dt": dt, "hold": hold, "tau_max": limit,
            "labels": getattr(reference, "labels", None)}


def _fits(controller, n):
    """Raise unless the controller's gains and model (when it has them) fit a chain of n joints."""
    check_gain_lengths({f"the controller's {name}": getattr(controller, name, None) for name in ("kp", "kd")}, n,
                       "the chain")
    model = getattr(controller, "model", None)
    n_model = getattr(model, "n_dof", None)
    if n_model is not None and n_model != n:
        raise ValueError(f"the controller's model has {n_model} joints but the chain has {n}: build the model for "
                         f"this chain, e.g. DeLaN(n_dof={n})")


def _tip(chain, q):
    """Tip positions (T, B, 2) of joint angles (T, B, n)."""
    return chain.forward_kinematics(q.reshape(-1, q.shape[-1]))[:, -1].reshape(*q.shape[:-1], 2)


def tracking_errors(result):
    """Errors of a `track` result over each trajectory's duration: "rms_q" (rad), "rms_xy", "max_xy"
    (m), "rms_xy_per_traj" (B,), "max_tau" (N m), "saturated" (fraction of samples at a limit).

    >>> from lesson_lib.control import PD
    >>> from lesson_lib.data import write_word
    >>> sorted(tracking_errors(track(PD(), write_word("o"), duration=0.2)))
    ['max_tau', 'max_xy', 'rms_q', 'rms_xy', 'rms_xy_per_traj', 'saturated']"""
    active = result["active"]
    e_q = (result["q_d"] - result["q"])[active]
    e_xy = np.linalg.norm(result["xy_d"] - result["xy"], axis=-1)
    per_traj = np.sqrt(np.sum(np.where(active, e_xy**2, 0), axis=0) / active.sum(axis=0))
    return {"rms_q": float(np.sqrt(np.mean(e_q**2))), "rms_xy": float(np.sqrt(np.mean(e_xy[active] ** 2))),
            "max_xy": float(e_xy[active].max()), "rms_xy_per_traj": per_traj,
            "max_tau": float(np.abs(result["tau"][active]).max()),
            "saturated": float(result["saturated"][active].mean())}


def compare(controllers, reference, chain=None, **options):
    """[{"controller": name, **tracking_errors(...)}] for each of {name: controller} (options go to track).

    >>> from lesson_lib.control import PD, ComputedTorque
    >>> from lesson_lib.data import write_word
    >>> rows = compare({"PD": PD(), "truth": ComputedTorque(double_pendulum())}, write_word("o"), duration=0.2)
    >>> [row["controller"] for row in rows], bool(rows[1]["rms_q"] < rows[0]["rms_q"])
    (['PD', 'truth'], True)"""
    return [{"controller": name, **tracking_errors(track(c, reference, chain, **options))}
            for name, c in controllers.items()]


def print_comparison(rows):
    """The comparison as a table: RMS joint error (mrad), RMS and max tip error (mm), max |tau|, % saturated.

    >>> print_comparison([{"controller": "PD", "rms_q": 0.01, "rms_xy": 0.002, "max_xy": 0.005, "max_tau": 30.0,
    ...                    "saturated": 0.0}])
    controller       joint RMS    tip RMS    tip max  max |tau|  at limit
    PD              10.00 mrad    2.00 mm    5.00 mm   30.0 Nm      0.0%"""
    print(f"{'controller':<14}{'joint RMS':>12}{'tip RMS':>11}{'tip max':>11}{'max |tau|':>11}{'at limit':>10}")
    for r in rows:
        print(f"{r['controller']:<14}{1e3 * r['rms_q']:>7.2f} mrad{1e3 * r['rms_xy']:>8.2f} mm"
              f"{1e3 * r['max_xy']:>8.2f} mm{r['max_tau']:>7.1f} Nm{100 * r['saturated']:>9.1f}%")
