"""Rigid-body truth for a planar serial chain: the recursive Newton–Euler algorithm (RNEA).

Conventions (x right, y up, gravity (0, -g), revolute joints about +z):
q[0] is link 1's angle from the downward vertical, counter-clockwise positive (q = 0 hangs down);
q[i], i >= 1, is link i+1's angle relative to link i.  Link i has mass m_i, length l_i, centre of mass
lc_i from joint i along the link and inertia I_i about its centre of mass.

Equation of motion:  M(q) qdd + c(q, qd) + g(q) = tau,  with c = C(q, qd) qd and g = dV/dq.

Every function takes one state of shape (n,) or a batch of shape (B, n) and returns the same leading shape.
"""
import numpy as np

from ..validate import array, as_state, as_states, boolean, number, positive_number


def _cross(ax, ay, bx, by):
    """z component of the planar cross product a x b."""
    return ax * by - ay * bx


def _finite(what, out, **inputs):
    """out, unless finite inputs were too large for floating point and it overflowed: then raise naming the
    largest input."""
    if np.all(np.isfinite(out)):
        return out
    name, peak = max(((k, float(np.max(np.abs(v), initial=0.0))) for k, v in inputs.items()), key=lambda kv: kv[1])
    raise ValueError(f"{what} overflowed to inf or NaN: the inputs are too large for floating point (the largest "
                     f"is |{name}| = {peak:.3g}); use physically sensible values")


class PlanarChain:
    """A planar serial chain of n revolute links.

    >>> chain = double_pendulum()
    >>> chain.rnea([np.pi / 2, 0.0], [0.0, 0.0], [0.0, 0.0]).round(2)   # hold both rods horizontal
    array([19.62,  4.9 ])
    """

    def __init__(self, m, l, lc, I, g=9.81):
        """m, l, lc, I: one number per link (kg, m, m, kg m^2); g >= 0 (m/s^2).  Every link needs
        I + m lc^2 > 0, which keeps M(q) positive-definite at every q."""
        values = {name: np.atleast_1d(array(name, v, (0, 1), "a list of numbers, one per link"))
                  for name, v in (("m", m), ("l", l), ("lc", lc), ("I", I))}
        lengths = {k: len(a) for k, a in values.items()}
        if 0 in lengths.values() or len(set(lengths.values())) > 1:
            raise ValueError(f"m, l, lc and I need one entry per link (at least one link), all of the same length, "
                             f"got lengths {lengths}")
        for name, ok, rule in (("m", values["m"] > 0, "> 0 (kg)"), ("l", values["l"] > 0, "> 0 (m)"),
                               ("I", values["I"] >= 0, ">= 0 (kg m^2)")):
            if not np.all(ok):
                k = int(np.argmin(ok))
                raise ValueError(f"{name} must be {rule} for every link, got {name} = {values[name].tolist()} "
                                 f"(link {k + 1}: {values[name][k]:g})")
        self.m, self.l, self.lc, self.I = values["m"], values["l"], values["lc"], values["I"]
        about_joint = self.I + self.m * self.lc**2
        if np.any(about_joint <= 0):
            k = int(np.argmax(about_joint <= 0))
            raise ValueError(f"link {k + 1} has no inertia about its joint (I + m lc^2 = 0, with I = {self.I[k]:g} "
                             f"and lc = {self.lc[k]:g}); every link needs I + m lc^2 > 0, which keeps M(q) "
                             f"invertible for forward_dynamics: give it I > 0 (a uniform rod: m l^2 / 12) or lc != 0")
        self.g = number("g", g, low=0.0, hint="g is the magnitude of gravity in m/s^2 (it points down, along -y); "
                                              "e.g. g=9.81, or g=0 for none")
        self.n_dof = len(self.m)

    @property
    def params(self):
        """The parameters as a plain dict {"m": [...], "l": [...], "lc": [...], "I": [...], "g": g}.

        >>> double_pendulum().params["lc"]
        [0.5, 0.5]"""
        return {"m": self.m.tolist(), "l": self.l.tolist(), "lc": self.lc.tolist(), "I": self.I.tolist(),
                "g": self.g}

    def __repr__(self):
        return f"PlanarChain(n_dof={self.n_dof}, " + ", ".join(f"{k}={v}" for k, v in self.params.items()) + ")"

    # ------------------------------------------------------------------ the algorithm
    def _rnea(self, q, qd, qdd, gravity):
        """RNEA on checked (B, n) arrays; returns tau of shape (B, n), or raises if it overflowed."""
        with np.errstate(over="ignore", invalid="ignore"):
            tau = self._newton_euler(q, qd, qdd, gravity)
        return _finite("the RNEA", tau, q=q, qd=qd, qdd=qdd)

    def _newton_euler(self, q, qd, qdd, gravity):
        """The two passes on (B, n) arrays; returns tau of shape (B, n)."""
        theta = np.cumsum(q, axis=1)                     # absolute link angles
        s, c = np.sin(theta), np.cos(theta)
        ux, uy = s, -c                                   # unit vector along each link, joint -> tip
        # Outward pass: angular velocity w, angular acceleration al, linear acceleration (ax, ay) of each
        # joint and (acx, acy) of each centre of mass.  Gravity enters as an upward base acceleration.
        B, n = q.shape
        ax = np.zeros(B)
        ay = np.full(B, self.g if gravity else 0.0)
        w = np.zeros(B)
        al = np.zeros(B)
        acx, acy, alpha = np.empty((B, n)), np.empty((B, n)), np.empty((B, n))
        for i in range(n):
            w = w + qd[:, i]
            al = al + qdd[:, i]
            # a_point = a_joint + al x r + w x (w x r), with r = d * u
            tx = -al * uy[:, i] - w * w * ux[:, i]       # per unit distance along the link
            ty = al * ux[:, i] - w * w * uy[:, i]
            acx[:, i] = ax + self.lc[i] * tx
            acy[:, i] = ay + self.lc[i] * ty
            ax = ax + self.l[i] * tx
            ay = ay + self.l[i] * ty
            alpha[:, i] = al
        # Inward pass: force f on link i from link i-1 and moment nz about joint i, then tau_i = nz.
        fx, fy, nz = np.zeros(B), np.zeros(B), np.zeros(B)
        tau = np.empty((B, n))
        for i in reversed(range(n)):
            Fx, Fy = self.m[i] * acx[:, i], self.m[i] * acy[:, i]
            nz = (self.I[i] * alpha[:, i] + nz
                  + self.lc[i] * _cross(ux[:, i], uy[:, i], Fx, Fy)
                  + self.l[i] * _cross(ux[:, i], uy[:, i], fx, fy))
            fx, fy = Fx + fx, Fy + fy
            tau[:, i] = nz
        return tau

    def rnea(self, q, qd, qdd, gravity=True):
        """tau = M(q) qdd + c(q, qd) + g(q) by recursive Newton–Euler; q, qd, qdd (n,) or (B, n);
        gravity=False drops g(q).

        >>> double_pendulum().rnea([0.0, 0.0], [0.0, 0.0], [1.0, 0.0], gravity=False).round(3)   # M's first column
        array([2.667, 0.833])"""
        (q, qd, qdd), single = as_states(self.n_dof, q=q, qd=qd, qdd=qdd)
        tau = self._rnea(q, qd, qdd, boolean("gravity", gravity))
        return tau[0] if single else tau

    def mass_matrix(self, q):
        """M(q), shape (n, n) or (B, n, n): column j is RNEA(q, 0, e_j) with gravity off.

        >>> double_pendulum().mass_matrix([0.0, 0.0]).round(3)
        array([[2.667, 0.833],
               [0.833, 0.333]])"""
        q = as_state("q", q, self.n_dof)
        M = self._mass_matrix(np.atleast_2d(q))
        return M[0] if q.ndim == 1 else M

    def _mass_matrix(self, Q):
        """M at checked configurations Q (B, n): (B, n, n)."""
        B, n = Q.shape
        Qrep = np.repeat(Q, n, axis=0)                   # rows: (sample b, column j)
        E = np.tile(np.eye(n), (B, 1))
        cols = self._rnea(Qrep, np.zeros_like(Qrep), E, gravity=False).reshape(B, n, n)
        return np.swapaxes(cols, 1, 2)                   # cols[b, j] is column j

    def coriolis(self, q, qd):
        """c(q, qd) = C(q, qd) qd: RNEA with zero acceleration and gravity off.

        >>> double_pendulum().coriolis([0.0, np.pi / 2], [1.0, 0.0]).round(3)
        array([0. , 0.5])"""
        return self.rnea(q, qd, np.zeros(self.n_dof), gravity=False)

    def gravity(self, q):
        """g(q) = dV/dq: RNEA with zero velocity and acceleration.

        >>> double_pendulum().gravity([np.pi / 2, 0.0]).round(2)                  # both rods horizontal
        array([19.62,  4.9 ])"""
        q = as_state("q", q, self.n_dof)
        return self.rnea(q, np.zeros(self.n_dof), np.zeros(self.n_dof))

    def forward_dynamics(self, q, qd, tau):
        """qdd = M(q)^-1 (tau - c(q, qd) - g(q)); shapes as in rnea.

        >>> chain = double_pendulum()
        >>> chain.forward_dynamics([0.3, 0.1], [0.0, 0.0], chain.gravity([0.3, 0.1])).round(12)    # gravity held
        array([0., 0.])"""
        (q, qd, tau), single = as_states(self.n_dof, q=q, qd=qd, tau=tau)
        bias = self._rnea(q, qd, np.zeros_like(q), gravity=True)
        with np.errstate(over="ignore", invalid="ignore"):
            qdd = np.linalg.solve(self._mass_matrix(q), (tau - bias)[..., None])[..., 0]
        qdd = _finite("forward_dynamics", qdd, q=q, qd=qd, tau=tau)
        return qdd[0] if single else qdd

    # ------------------------------------------------------------------ kinematics and energy
    def _kinematics(self, q, qd):
        """Centre-of-mass positions (B, n, 2), velocities (B, n, 2) and link angular velocities (B, n)."""
        theta, w = np.cumsum(q, axis=1), np.cumsum(qd, axis=1)
        u = np.stack([np.sin(theta), -np.cos(theta)], axis=-1)
        du = np.stack([np.cos(theta), np.sin(theta)], axis=-1) * w[..., None]   # d u / dt
        l, lc = self.l[:, None], self.lc[:, None]
        joint = np.cumsum(l * u, axis=1) - l * u          # position of joint i (the base is at the origin)
        djoint = np.cumsum(l * du, axis=1) - l * du
        return joint + lc * u, djoint + lc * du, w

    def forward_kinematics(self, q):
        """Joint and tip positions: (n+1, 2) or (B, n+1, 2), starting at the base (0, 0).

        >>> [(p.round(3) + 0.0).tolist() for p in double_pendulum().forward_kinematics([np.pi / 2, 0.0])]
        [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]]"""
        q = as_state("q", q, self.n_dof)
        Q = np.atleast_2d(q)
        theta = np.cumsum(Q, axis=1)
        steps = self.l[:, None] * np.stack([np.sin(theta), -np.cos(theta)], axis=-1)
        pts = np.concatenate([np.zeros((Q.shape[0], 1, 2)), np.cumsum(steps, axis=1)], axis=1)
        return pts[0] if q.ndim == 1 else pts

    def kinetic_energy(self, q, qd):
        """T = sum_i (1/2 m_i |v_ci|^2 + 1/2 I_i w_i^2), from the link kinematics (not from M).

        >>> round(float(double_pendulum().kinetic_energy([0.0, 0.0], [1.0, 0.0])), 3)
        1.333"""
        (q, qd), single = as_states(self.n_dof, q=q, qd=qd)
        _, v, w = self._kinematics(q, qd)
        with np.errstate(over="ignore", invalid="ignore"):
            T = _finite("kinetic_energy", 0.5 * np.sum(self.m * np.sum(v * v, axis=-1) + self.I * w * w, axis=1),
                        q=q, qd=qd)
        return T[0] if single else T

    def potential_energy(self, q):
        """V = sum_i m_i g y_ci, zero when the centres of mass are at the base's height.

        >>> round(float(double_pendulum().potential_energy([0.0, 0.0])), 3)        # hanging down: the lowest
        -19.62"""
        q = as_state("q", q, self.n_dof)
        Q = np.atleast_2d(q)
        pos, _, _ = self._kinematics(Q, np.zeros_like(Q))
        V = np.sum(self.m * self.g * pos[..., 1], axis=1)
        return V[0] if q.ndim == 1 else V

    def total_energy(self, q, qd):
        """E = T + V.

        >>> round(float(double_pendulum().total_energy([np.pi, 0.0], [0.0, 0.0])), 3)
        19.62"""
        return self.kinetic_energy(q, qd) + self.potential_energy(q)


def double_pendulum(m=1.0, l=1.0, g=9.81):
    """Two uniform rods of mass m (kg) and length l (m): lc = l/2, I = m l^2 / 12 (defaults 1 kg, 1 m, g 9.81 m/s^2).

    >>> chain = double_pendulum(m=2.0)
    >>> chain.n_dof, chain.params["m"], round(chain.params["I"][0], 4)
    (2, [2.0, 2.0], 0.1667)"""
    m, l = positive_number("m", m), positive_number("l", l)
    return PlanarChain(m=[m, m], l=[l, l], lc=[l / 2, l / 2], I=[m * l * l / 12] * 2, g=g)
