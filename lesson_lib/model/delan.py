"""The Deep Lagrangian Network: keep the manipulator equation, learn only M(q) and V(q).

    tau = M(q) qdd + c(q, qd) + g(q)

- A network maps the features [cos q, sin q] to the n(n+1)/2 entries of a lower-triangular L(q) and to a
  potential V(q).  The diagonal of L goes through softplus (plus eps), and M = L L^T + eps I, so M is symmetric
  positive-definite at every q for ANY weights.
- Units: the network's outputs start near size 1.  L's entries are about 1 (M of a 1 kg, 1 m link is about
  1 kg m^2) but a potential is tens of joules (m g l: 20 J for the default double pendulum), and Adam moves each
  weight by about lr per step whatever its gradient, so V is measured in units of `potential_scale` joules
  (default POTENTIAL_SCALE; benchmarks/bench_trajectories.py measures the effect).
- dL/dq and g = dV/dq come from pushing a first-order jet in q through the network; c = Mdot qd -
  1/2 [qd^T dM/dq_k qd]_k from dM/dq: nothing Coriolis-shaped is learned.

Every equation is one function of lesson_lib.model.definition, which this class computes with; fit trains
through the fast path's one seam (lesson_lib.model.fast.fused.loss_and_grad), tested equal to the definition,
and inverse_dynamics evaluates the definition's torque as the fast path does (fused.torque).
Shapes: q, qd, qdd, tau are (n,) or (B, n); M is (n, n) or (B, n, n).
"""
import textwrap
import warnings

import numpy as np

from . import definition
from .._validate import number
from ..facts import ACTIVATION, BATCH_SIZE, EPS, HIDDEN, LR, POTENTIAL_SCALE
from ..limits import EPS_MAX, POTENTIAL_SCALE_RANGE
from .fast import fused
from .fast.jet import periodic_features
from .training import Trainable, init_mlp

EVAL_CHUNK = 1024       # states per pass of the public methods (each state's jet is its own; benchmarks/bench_bench.py)


class DeLaN(Trainable):
    """Deep Lagrangian Network for an n-joint robot.

    Defaults (lesson_lib.facts: HIDDEN, BATCH_SIZE, LR, EPS, ACTIVATION, POTENTIAL_SCALE) were chosen for
    time-to-accuracy on the double pendulum: see benchmarks/bench_delan.py and benchmarks/bench_trajectories.py.
    activation: a name in lesson_lib.model.activations.ACTIVATIONS; optimizer: "adam" (default), "sgd", or an
    optimiser object from lesson_lib.model.optimizers (its learning rate is `lr`); potential_scale: the unit of
    V in joules (see above).  Every argument is checked here; every public method checks its inputs (lists are
    accepted; an empty batch (0, n) gives empty results) and refuses more than `max_states` states per call.

    >>> model = DeLaN(seed=0)
    >>> bool(np.linalg.eigvalsh(model.mass_matrix([0.3, -1.2])).min() > 0)   # SPD before any training
    True
    """

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
        """Warn (InertiaCollapsed, naming the data's accelerations and the fix) when the learned M collapsed to
        eps I on the configurations just trained on: the loss falls either way, so fit must say it."""
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
        """The loss `fit` minimises (unchecked: model.loss checks its arguments, then calls this): definition.loss
        at the flat weights theta (n_weights,) on a batch from `training_batch` (q, qd, qdd, target, inv_scale,
        each (B, n)), computed by the fast path (fast.fused.loss, tested equal to it); autograd differentiates it."""
        return fused.loss(theta, self.architecture, batch)

    def _loss_and_grad(self, theta, batch):
        """fit's loss and its gradient in theta (fast.fused.loss_and_grad: autograd's numbers, without its
        tracing).  A subclass that redefines _loss gets autograd's gradient of its own loss."""
        if type(self)._loss is not DeLaN._loss:
            return super()._loss_and_grad(theta, batch)
        return fused.loss_and_grad(theta, self.architecture, batch)

    # ------------------------------------------------------------------ public, batched like the RNEA
    def _jet(self, q, derivatives=True):
        """The network's jet J (n_out, 1+n, B) at a checked q (B, n), softplus on L's diagonal included (the fast
        path's), EVAL_CHUNK states per pass.  Without derivatives the values alone, (n_out, 1, B), in half the time."""
        rows = slice(None) if derivatives else slice(0, 1)
        return np.concatenate([fused.jet_mlp(periodic_features(q[i:i + EVAL_CHUNK])[rows], self.theta, self.sizes,
                                             self.activation, self.n_dof)
                               for i in range(0, max(len(q), 1), EVAL_CHUNK)], axis=-1)

    def _learned(self, q, derivatives=True):
        """(L, dL, V, g) of the definition at a checked q (B, n).  Without derivatives dL and g are empty
        ((B, 0, n, n), (B, 0))."""
        J, n_L = self._jet(q, derivatives), self.sizes[-1] - 1
        out, dout = J[:, 0].T, J[:, 1:].T
        return (*definition.place_factor(self.architecture, out[:, :n_L], dout[:, :, :n_L]),
                *definition.potential_jet(self.architecture, out, dout))

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
        """tau_hat = M(q) qdd + c(q, qd) + g(q), definition.torque as the fast path computes it (fused.torque,
        equal up to rounding): (n,) or (B, n)."""
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
