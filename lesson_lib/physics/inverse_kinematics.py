"""Inverse kinematics of a 2-link planar arm: from the tip's path in the plane to the joint motion.

Conventions as in lesson_lib.physics.chain: q[0] from the downward vertical, counter-clockwise positive, q[1]
relative to link 1, so the tip is at

    x = l1 sin q0 + l2 sin(q0 + q1),    y = -l1 cos q0 - l2 cos(q0 + q1).

Position (law of cosines; `elbow` = +1 or -1 picks one of the two branches, q1 > 0 or q1 < 0):

    cos q1 = (r^2 - l1^2 - l2^2) / (2 l1 l2),   q0 = atan2(x, -y) - atan2(l2 sin q1, l1 + l2 cos q1).

Velocity and acceleration from the tip Jacobian J(q) = d(x, y)/dq:

    xd = J qd,   xdd = J qdd + Jd qd    =>    qd = J^-1 xd,   qdd = J^-1 (xdd - Jd qd).

J is singular when the arm is stretched (q1 = 0, r = l1 + l2) or folded (q1 = pi, r = |l1 - l2|): the joint speeds
blow up there, so paths should keep away from both circles (`reach` gives the annulus).
Shapes: xy, xyd, xydd are (2,) or (B, 2); q, qd, qdd come back with the same leading shape.
"""
import numpy as np

from ..validate import as_state, as_states, sign

SINGULAR = 1e-6     # |sin q1| below this: the arm is stretched or folded, J(q) singular to rounding


def _two_links(chain):
    if chain.n_dof != 2:
        raise ValueError(f"inverse kinematics is for a 2-link arm, got a chain with {chain.n_dof} links; "
                         f"use double_pendulum() or a PlanarChain with two links")
    return float(chain.l[0]), float(chain.l[1])


def check_elbow(elbow):
    """Return elbow as the int +1 or -1 (the sign of q1: which of the two branches), or raise (_validate.sign).

    >>> check_elbow(-1)
    -1"""
    return sign("elbow", elbow)


def reach(chain):
    """The tip's reachable annulus (r_min, r_max) = (|l1 - l2|, l1 + l2) around the base, in m.

    >>> from lesson_lib.physics.chain import double_pendulum
    >>> reach(double_pendulum())
    (0.0, 2.0)"""
    l1, l2 = _two_links(chain)
    return abs(l1 - l2), l1 + l2


def inverse_kinematics(chain, xy, elbow=1):
    """Joint angles q with the tip at xy, on the branch sign(q1) = elbow: (2,) or (B, 2), q0 in [-pi, pi).

    Raises ValueError if a point lies outside the reachable annulus (see `reach`).

    >>> from lesson_lib.physics.chain import double_pendulum
    >>> inverse_kinematics(double_pendulum(), [2.0, 0.0]).round(4)               # stretched out to the right
    array([1.5708, 0.    ])"""
    l1, l2 = _two_links(chain)
    check_elbow(elbow)
    xy = as_state("xy", xy, 2)
    x, y = xy[..., 0], xy[..., 1]
    r2 = x * x + y * y
    cos1 = (r2 - l1 * l1 - l2 * l2) / (2 * l1 * l2)
    if np.any(np.abs(cos1) > 1):
        r_min, r_max = reach(chain)
        bad = int(np.sum(np.abs(cos1) > 1))
        raise ValueError(f"xy has {bad} point(s) out of reach: the tip can only reach {r_min:g} m <= |xy| <= "
                         f"{r_max:g} m from the base; move or shrink the path")
    q1 = elbow * np.arccos(cos1)
    q0 = np.arctan2(x, -y) - np.arctan2(l2 * np.sin(q1), l1 + l2 * np.cos(q1))
    q0 = np.mod(q0 + np.pi, 2 * np.pi) - np.pi                    # into [-pi, pi)
    return np.stack([q0, q1], axis=-1)


def tip_jacobian(chain, q):
    """J(q) = d(x, y)/dq of the tip: (2, 2) or (B, 2, 2), rows (x, y), columns (q0, q1).

    >>> from lesson_lib.physics.chain import double_pendulum
    >>> tip_jacobian(double_pendulum(), [0.0, 0.0]).round(3)                      # hanging: the tip moves along x
    array([[2., 1.],
           [0., 0.]])"""
    l1, l2 = _two_links(chain)
    q = as_state("q", q, 2)
    th0, th1 = q[..., 0], q[..., 0] + q[..., 1]
    c1, s1 = l2 * np.cos(th1), l2 * np.sin(th1)
    return np.stack([np.stack([l1 * np.cos(th0) + c1, c1], -1),
                     np.stack([l1 * np.sin(th0) + s1, s1], -1)], -2)


def joint_motion(chain, xy, xyd, xydd, elbow=1):
    """The joint motion (q, qd, qdd) that moves the tip along (xy, xyd, xydd): q by `inverse_kinematics`,
    qd = J^-1 xyd, qdd = J^-1 (xydd - Jd qd), with Jd qd = sum_i l_i w_i^2 (-sin th_i, cos th_i) the centripetal
    part (th_i, w_i: absolute angle and angular velocity of link i).

    >>> from lesson_lib.physics.chain import double_pendulum
    >>> q, qd, qdd = joint_motion(double_pendulum(), [1.0, -1.0], [0.0, 0.0], [0.0, 0.0])
    >>> q.round(4), qd, qdd
    (array([0.    , 1.5708]), array([0., 0.]), array([0., 0.]))"""
    l1, l2 = _two_links(chain)
    (xy, xyd, xydd), single = as_states(2, xy=xy, xyd=xyd, xydd=xydd)
    q = inverse_kinematics(chain, xy, elbow)
    near = np.abs(np.sin(q[..., 1])) < SINGULAR
    if np.any(near):
        r_min, r_max = reach(chain)
        raise ValueError(f"xy has {int(near.sum())} point(s) where the arm is stretched out (|xy| = {r_max:g} m) or "
                         f"folded (|xy| = {r_min:g} m): there the tip Jacobian is singular and the joint speeds for a "
                         f"moving tip are unbounded; keep the path inside the annulus, away from both circles")
    J = tip_jacobian(chain, q)
    qd = np.linalg.solve(J, xyd[..., None])[..., 0]
    th = np.cumsum(q, axis=-1)
    w2 = np.cumsum(qd, axis=-1) ** 2
    centripetal = (np.array([l1, l2]) * w2)[..., None] * np.stack([-np.sin(th), np.cos(th)], axis=-1)
    qdd = np.linalg.solve(J, (xydd - centripetal.sum(axis=-2))[..., None])[..., 0]
    return (q[0], qd[0], qdd[0]) if single else (q, qd, qdd)
