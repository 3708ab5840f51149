"""The Deep Lagrangian Network: keep the manipulator equation, learn only M(q) and V(q).

    tau = M(q) qdd + c(q, qd) + g(q)

- A network maps the features [cos q, sin q] to the n(n+1)/2 entries of a lower-triangular L(q) and to a
  potential V(q).  The diagonal of L goes through softplus (plus eps), and M = L L^T + eps I, so M is symmetric
  positive-definite at every q for ANY weights.
- Units: the network's outputs start near size 1.  L's entries are about 1 (M of a 1 kg, 1 m link is about
  1 kg m^2) but a potential is tens of joules (m g l: 20 J for the default double pendulum), and Adam moves each
  weight by about lr per step whatever its gradient, so a V of size 1 would need thousands of steps just to grow.
  The potential output is therefore measured in units of `potential_scale` joules (V = potential_scale x the
  network's last output, applied in lesson_lib.model.fast.manipulator; default POTENTIAL_SCALE):
  benchmarks/bench_trajectories.py measures the effect.
- dL/dq and g = dV/dq come from pushing a first-order jet in q through the network (lesson_lib.model.fast.jet).
- c = Mdot qd - 1/2 [qd^T dM/dq_k qd]_k from dM/dq (lesson_lib.model.fast.manipulator): nothing Coriolis-shaped is learned.
- autograd differentiates the torque loss with respect to all weights.

Shapes: q, qd, qdd, tau are (n,) or (B, n); M is (n, n) or (B, n, n).
"""
import textwrap
import warnings

import autograd.numpy as anp
import numpy as np

from .fast import manipulator
from .._validate import number
from ..facts import ACTIVATION, BATCH_SIZE, EPS, HIDDEN, LR, POTENTIAL_SCALE
from .fast.jet import jet_mlp, periodic_features, unflatten
from .fast.loss import delan_loss, delan_loss_and_grad
from .training import Trainable, init_mlp

EPS_MAX = 1.0                          # kg m^2: above this eps I outweighs a robot arm's inertia
POTENTIAL_SCALE_RANGE = (1e-3, 1e4)    # J: the potential's unit, from a toy arm's millijoules to an industrial arm's
# The public methods push at most EVAL_CHUNK states through the network at once.  Each state's jet depends on
# that state only, so the numbers are those of one pass; but one pass over thousands of states makes layer
# arrays of megabytes, which glibc maps in and frees back at every call (page faults), while arrays of a chunk
# are reused (benchmarks/bench_bench.py times the Bench's updates, which evaluate N_SAMPLES states each).
EVAL_CHUNK = 1024


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

    def _architecture(self):
        self._tril = manipulator.tril_order(self.n_dof)
        return (2 * self.n_dof, *self.hidden, len(self._tril[0]) + 1)  # outputs: L entries (diagonal first), V

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
        return unflatten(self.theta, self.sizes)

    def _jet(self, theta, q, derivatives=True):
        """Network outputs and their q-derivatives at a batch q (B, n): the jet (n_L+1, 1+n, B), softplus on
        the first n outputs (L's diagonal); EVAL_CHUNK states at a time, joined along the batch axis.  Without
        derivatives, the outputs alone, (n_L+1, 1, B): the value row of the same jet, in about half its time
        (the network's value row never depends on its derivative rows)."""
        rows = slice(None) if derivatives else slice(0, 1)
        chunks = [jet_mlp(periodic_features(q[i:i + EVAL_CHUNK])[rows], theta, self.sizes, self.activation,
                          self.n_dof) for i in range(0, max(len(q), 1), EVAL_CHUNK)]
        return chunks[0] if len(chunks) == 1 else anp.concatenate(chunks, axis=-1)

    def _loss(self, theta, batch):
        """The loss `fit` minimises (unchecked: model.loss checks its arguments, then calls this), at the flat
        weights theta (n_weights,) on a batch from `training_batch` (q, qd, qdd, target, inv_scale, each (B, n)):
        mean over samples and joints of (tau_hat * inv_scale - target)^2, tau_hat = M(q) qdd + c(q, qd) + g(q) of
        this architecture at theta.  autograd differentiates it; it does not change the model.  Its definition in
        plain autograd is lesson_lib.model.definition.loss; this is the fast path (one fused primitive), tested
        equal to it."""
        return delan_loss(*self._loss_arguments(theta, batch))

    def _loss_and_grad(self, theta, batch):
        """fit's loss and its gradient in theta: the fused loss's own forward pass and VJP
        (fast.loss.delan_loss_and_grad), the numbers autograd.value_and_grad(self._loss) gives, without its
        tracing.  A subclass that redefines _loss gets autograd's gradient of its own loss."""
        if type(self)._loss is not DeLaN._loss:
            return super()._loss_and_grad(theta, batch)
        return delan_loss_and_grad(*self._loss_arguments(theta, batch))

    def _loss_arguments(self, theta, batch):
        q, qd, qdd, target, inv_scale = batch
        return (theta, periodic_features(q), qd, qdd, target, inv_scale, self.sizes, self.activation, self.n_dof,
                self._tril, self.eps, self.potential_scale)

    # ------------------------------------------------------------------ public, batched like the RNEA
    def _factor(self, q, derivatives=True):
        """Checked q -> (L, dL, g, V) and whether q was a single state (without derivatives, dL and g are empty:
        shapes (B, 0, n, n) and (B, 0))."""
        (q,), single = self._states(q=q)
        J = self._jet(self.theta, q, derivatives)
        return manipulator.cholesky_factor(J, self._tril, self.eps, self.potential_scale), single

    def mass_matrix(self, q):
        """Learned M(q) = L L^T + eps I: (n, n) or (B, n, n)."""
        (L, dL, _, _), single = self._factor(q, derivatives=False)
        M = manipulator.mass_matrix(L, dL, self.eps)[0]
        return M[0] if single else M

    def mass_matrix_derivative(self, q):
        """dM/dq from the jet: (n, n, n) or (B, n, n, n), indexed [k, i, j] = dM_ij/dq_k."""
        (L, dL, _, _), single = self._factor(q)
        dM = manipulator.mass_matrix(L, dL, self.eps)[1]
        return dM[0] if single else dM

    def cholesky_factor(self, q):
        """Learned L(q), lower-triangular with a positive diagonal: (n, n) or (B, n, n)."""
        (L, _, _, _), single = self._factor(q, derivatives=False)
        return L[0] if single else L

    def potential(self, q):
        """Learned V(q) (defined up to a constant): () or (B,)."""
        (_, _, _, V), single = self._factor(q, derivatives=False)
        return V[0] if single else V

    def gravity(self, q):
        """g(q) = dV/dq from the jet: (n,) or (B, n)."""
        (_, _, g, _), single = self._factor(q)
        return g[0] if single else g

    def parts(self, q, qd, qdd):
        """The three terms of the manipulator equation: dict with "M_qdd", "c", "g", each (n,) or (B, n)."""
        (q, qd, qdd), single = self._states(q=q, qd=qd, qdd=qdd)
        with np.errstate(over="ignore", invalid="ignore"):
            terms = manipulator.parts(self._jet(self.theta, q), qd, qdd, self._tril, self.eps, self.potential_scale)
        terms = self._finite("torque", tuple(terms), q=q, qd=qd, qdd=qdd)
        return {k: (v[0] if single else v) for k, v in zip(("M_qdd", "c", "g"), terms)}

    def coriolis(self, q, qd):
        """c(q, qd) = C(q, qd) qd computed from dM/dq: (n,) or (B, n)."""
        return self.parts(q, qd, np.zeros(self.n_dof))["c"]

    def inverse_dynamics(self, q, qd, qdd):
        """tau_hat = M(q) qdd + c(q, qd) + g(q): (n,) or (B, n).  The sum of `parts`, computed as fit's loss does
        (manipulator_torque: products of L, dL and vectors, never M or dM/dq; equal to the sum up to rounding)."""
        (q, qd, qdd), single = self._states(q=q, qd=qd, qdd=qdd)
        with np.errstate(over="ignore", invalid="ignore"):
            tau = manipulator.manipulator_torque(self._jet(self.theta, q), qd, qdd, self._tril, self.eps,
                                                 self.potential_scale)
        tau = self._finite("torque", tau, q=q, qd=qd, qdd=qdd)
        return tau[0] if single else tau

    def forward_dynamics(self, q, qd, tau):
        """qdd = M(q)^-1 (tau - c - g) with the learned model (usable by lesson_lib.physics.integrators.rollout)."""
        (q, qd, tau), single = self._states(q=q, qd=qd, tau=tau)
        L, dL, g, _ = manipulator.cholesky_factor(self._jet(self.theta, q), self._tril, self.eps,   # one pass
                                                self.potential_scale)
        M, dM = manipulator.mass_matrix(L, dL, self.eps)
        with np.errstate(over="ignore", invalid="ignore"):
            c = manipulator.coriolis(dM, qd)
            qdd = self._finite("acceleration", np.linalg.solve(M, (tau - c - g)[..., None])[..., 0], q=q, qd=qd,
                               tau=tau)
        return qdd[0] if single else qdd
