"""The Deep Lagrangian Network: keep the manipulator equation, learn only M(q) and V(q).

    tau = M(q) qdd + c(q, qd) + g(q)

A network maps [cos q, sin q] to the n(n+1)/2 entries of a lower-triangular L(q) (softplus + eps on the diagonal)
and to V(q) in units of `potential_scale` joules; M = L L^T + eps I is SPD for any weights.  dL/dq and g = dV/dq
come from a first-order jet in q; c = Mdot qd - 1/2 [qd^T dM/dq_k qd]_k from dM/dq: nothing Coriolis-shaped is
learned.  Every equation is a function of model.definition; fit trains through fast.fused.loss_and_grad.
Shapes: q, qd, qdd, tau (n,) or (B, n); M (n, n) or (B, n, n)."""
import textwrap
import warnings

import numpy as np

from . import definition
from ..validate import number
from ..facts import ACTIVATION, BATCH_SIZE, EPS, HIDDEN, LR, POTENTIAL_SCALE
from ..limits import EPS_MAX, POTENTIAL_SCALE_RANGE
from .fast import fused, quadratic
from .fast.jet import periodic_features
from .training import Trainable, init_mlp

EVAL_CHUNK = 1024       # states per pass of the public methods (each state's jet is its own; benchmarks/bench_bench.py)


class DeLaN(Trainable):
    """Deep Lagrangian Network for an n-joint robot; defaults from lesson_lib.facts (benchmarks/bench_delan.py).

    activation: a name in model.activations.ACTIVATIONS; optimizer: "adam", "sgd" or an optimiser object;
    potential_scale: V's unit in joules.  Every argument and every public method's input is checked; an empty
    batch (0, n) gives empty results.

    >>> model = DeLaN(seed=0)
    >>> bool(np.linalg.eigvalsh(model.mass_matrix([0.3, -1.2])).min() > 0)   # SPD before any training
    True"""

    squares_velocities = True            # c = Mdot qd - ... is quadratic in qd (the float32 data check)
    architecture_fields = ("n_dof", "hidden", "activation", "eps", "potential_scale")

    def __init__(self, n_dof=2, hidden=HIDDEN, seed=0, lr=LR, batch_size=BATCH_SIZE, eps=EPS, activation=ACTIVATION,
                 optimizer="adam", potential_scale=POTENTIAL_SCALE):
        self.eps = number("eps", eps, low=0.0, high=EPS_MAX, low_open=True,
                          hint=f"eps (kg m^2) is added to every learned mass matrix, M = L L^T + eps I: it keeps M "
                               f"positive-definite for eps > 0, and above {EPS_MAX:g} it would drown the inertia the "
                               f"network learns (a robot arm's M has entries of order 1); e.g. eps={EPS:g}")
        self.potential_scale = number("potential_scale", potential_scale, low=POTENTIAL_SCALE_RANGE[0],
                                      high=POTENTIAL_SCALE_RANGE[1],
                                      hint=f"the unit of the learned potential in J (the network outputs V in "
                                           f"these units; a robot arm's potential is of order 1 to 100 J), e.g. "
                                           f"potential_scale={POTENTIAL_SCALE:g}")
        super().__init__(n_dof, hidden, seed, lr, batch_size, activation, optimizer)

    @property
    def architecture(self):
        """The record (definition.Architecture) that, with the weights, fixes the model's function."""
        return definition.Architecture(self.n_dof, self.hidden, self.activation, self.eps, self.potential_scale)

    def _architecture(self):
        return self.architecture.sizes

    def _init_theta(self, rng):
        return init_mlp(rng, self.sizes, out_scale=0.5)

    def _after_fit(self, q, qdd):
        """Warn (InertiaCollapsed, naming the data and the fix) when the learned M collapsed to eps I on
        the configurations just trained on."""
        from ..evaluation.audit import InertiaCollapsed, inertia_collapse
        found = inertia_collapse(self, {"q": q, "qdd": qdd})
        if found["collapsed"]:
            text = textwrap.fill(f"fit: {found['message']}", 88, break_long_words=False, break_on_hyphens=False)
            warnings.warn("\n" + text, InertiaCollapsed, stacklevel=3)     # lines a notebook shows whole

    @property
    def layers(self):
        """The weights as a list of (W, b) per layer (views into the flat vector theta)."""
        return definition.unflatten(self.theta, self.sizes)

    def _loss(self, theta, batch):
        """fit's loss (unchecked): definition.loss at theta on a training batch, by the fast path."""
        return fused.loss(theta, self.architecture, batch)

    def _loss_and_grad(self, theta, batch):
        """fit's loss and gradient by fast.fused.loss_and_grad; a subclass that redefines _loss
        gets autograd's gradient of its own."""
        if type(self)._loss is not DeLaN._loss:
            return super()._loss_and_grad(theta, batch)
        return fused.loss_and_grad(theta, self.architecture, batch)

    # ------------------------------------------------------------------ public, batched like the RNEA
    def _jet(self, q, derivatives=True):
        """The network's jet J (n_out, 1+n, B) at a checked q (B, n), L's diagonal after softplus,
        EVAL_CHUNK states per pass; without derivatives the values alone, (n_out, 1, B)."""
        rows = slice(None) if derivatives else slice(0, 1)
        return np.concatenate([fused.jet_mlp(periodic_features(q[i:i + EVAL_CHUNK])[rows], self.theta, self.sizes,
                                             self.activation, self.n_dof)
                               for i in range(0, max(len(q), 1), EVAL_CHUNK)], axis=-1)

    def _learned(self, q, derivatives=True):
        """(L, dL, V, g) at a checked q (B, n); without derivatives dL (B, 0, n, n) and g (B, 0)."""
        return quadratic.learned(self.architecture, self._jet(q, derivatives))

    def _at(self, q, derivatives=True):
        """_learned at q as given (checked), and whether q was a single state."""
        (q,), single = self._states(q=q)
        return self._learned(q, derivatives), single

    def mass_matrix(self, q):
        """Learned M(q) = L L^T + eps I: (n, n) or (B, n, n)."""
        (L, dL, _, _), single = self._at(q, derivatives=False)
        M = definition.mass_matrix_jet(self.architecture, L, dL)[0]
        return M[0] if single else M

    def mass_matrix_derivative(self, q):
        """dM/dq from the jet: (n, n, n) or (B, n, n, n), indexed [k, i, j] = dM_ij/dq_k."""
        (L, dL, _, _), single = self._at(q)
        dM = definition.mass_matrix_jet(self.architecture, L, dL)[1]
        return dM[0] if single else dM

    def cholesky_factor(self, q):
        """Learned L(q), lower-triangular with a positive diagonal: (n, n) or (B, n, n)."""
        (L, _, _, _), single = self._at(q, derivatives=False)
        return L[0] if single else L

    def potential(self, q):
        """Learned V(q) (defined up to a constant): () or (B,)."""
        (_, _, V, _), single = self._at(q, derivatives=False)
        return V[0] if single else V

    def gravity(self, q):
        """g(q) = dV/dq from the jet: (n,) or (B, n)."""
        (_, _, _, g), single = self._at(q)
        return g[0] if single else g

    def parts(self, q, qd, qdd):
        """The three terms of the manipulator equation: dict with "M_qdd", "c", "g", each (n,) or (B, n)."""
        (q, qd, qdd), single = self._states(q=q, qd=qd, qdd=qdd)
        with np.errstate(over="ignore", invalid="ignore"):
            L, dL, _, g = self._learned(q)
            M, dM = definition.mass_matrix_jet(self.architecture, L, dL)
            terms = (np.einsum("bij,bj->bi", M, qdd), definition.coriolis(dM, qd), g)
        terms = self._finite("torque", terms, q=q, qd=qd, qdd=qdd)
        return {k: (v[0] if single else v) for k, v in zip(("M_qdd", "c", "g"), terms)}

    def coriolis(self, q, qd):
        """c(q, qd) = C(q, qd) qd computed from dM/dq: (n,) or (B, n)."""
        return self.parts(q, qd, np.zeros(self.n_dof))["c"]

    def inverse_dynamics(self, q, qd, qdd):
        """tau_hat = M(q) qdd + c(q, qd) + g(q): (n,) or (B, n) (fused.torque, the definition's
        torque)."""
        (q, qd, qdd), single = self._states(q=q, qd=qd, qdd=qdd)
        with np.errstate(over="ignore", invalid="ignore"):
            tau = self._finite("torque", fused.torque(self.architecture, self._jet(q), qd, qdd), q=q, qd=qd, qdd=qdd)
        return tau[0] if single else tau

    def forward_dynamics(self, q, qd, tau):
        """qdd = M(q)^-1 (tau - c - g) with the learned model (usable by lesson_lib.physics.integrators.rollout)."""
        (q, qd, tau), single = self._states(q=q, qd=qd, tau=tau)
        with np.errstate(over="ignore", invalid="ignore"):
            L, dL, _, g = self._learned(q)
            qdd = self._finite("acceleration", definition.forward_dynamics(self.architecture, L, dL, g, qd, tau),
                               q=q, qd=qd, tau=tau)
        return qdd[0] if single else qdd
