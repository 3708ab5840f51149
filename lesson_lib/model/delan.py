"""The Deep Lagrangian Network: keep the manipulator equation, learn only M(q) and V(q).

    tau = M(q) qdd + c(q, qd) + g(q)

A network maps [cos q, sin q] to the n(n+1)/2 entries of a lower-triangular L(q) (softplus on the diagonal)
and to V(q) in units of `potential_scale` joules; M = L L^T + eps I is SPD for any weights.  L's entries read
`mass_units` units of the last hidden layer of their own and V the others (the output layer's other weights start
at 0 and training never changes them): with one hidden layer, the default, two networks side by side, as the
authors' DeLaN keeps them (with more, the layers below the last are shared).  dL/dq and g = dV/dq
come from a first-order jet in q; c = Mdot qd - 1/2 [qd^T dM/dq_k qd]_k from dM/dq: nothing Coriolis-shaped is
learned.  The torque is linear in V's last weights: fit ends each call by solving them, when the validation samples
agree (potential_readout); and where L and V are two networks (one hidden layer), a call may end with its L joined
to the V it started from (recombined), when that does best on the validation samples.
Every equation is a function of model.definition; the network's jet, and fit's loss and gradient, come from
model.fast (the same numbers; at one state the jet is 3.8 times, on the Bench's 41 x 41 grid 4.1 times, faster than
the definition's plain autograd: benchmarks/bench_definition.py).
Shapes: q, qd, qdd, tau (n,) or (B, n); M (n, n) or (B, n, n)."""
import functools
import textwrap
import warnings

import numpy as np

from ..facts import ACTIVATION, BATCH_SIZE, EPS, HIDDEN, LR, MASS_UNITS, POTENTIAL_SCALE
from ..limits import EPS_MAX, POTENTIAL_SCALE_RANGE
from ..validate import as_data, has_api, integer, layer_widths, number
from . import definition, fast, potential_readout, quadratic
from .trainable import Trainable, init_mlp

COLLAPSE_FACTOR = 20     # a learned M whose largest entry stays below this many eps has collapsed to eps I


class InertiaCollapsed(UserWarning):
    """DeLaN.fit's warning: the mass matrix it learned collapsed to eps I (see inertia_collapse).

    >>> issubclass(InertiaCollapsed, UserWarning)
    True"""


def inertia_collapse(model, data):
    """Has the learned M collapsed to eps I on these data (accelerations mostly noise)?  Returns
    {"largest_M" (kg m^2), "qdd_rms" (rad/s^2), "collapsed" (largest_M < COLLAPSE_FACTOR eps), "message" (the cause
    and the fix, or "")}; model: anything with n_dof and mass_matrix.

    >>> from lesson_lib import double_pendulum, sample_uniform
    >>> found = inertia_collapse(DeLaN(seed=0), sample_uniform(double_pendulum(), 64))
    >>> found["collapsed"], found["message"]                      # an untrained DeLaN's M is of order 1
    (False, '')"""
    has_api("model", model, ("mass_matrix",), "a model with a mass matrix, such as DeLaN()")
    d = as_data("data", data, model.n_dof, keys=("q", "qdd"))
    q = d["q"][:: max(1, len(d["q"]) // 2000)]                        # at most about 2000 configurations
    largest = float(np.abs(model.mass_matrix(q)).max())
    eps = float(getattr(model, "eps", EPS))
    qdd_rms = float(np.sqrt(np.mean(d["qdd"] ** 2)))
    collapsed = largest < COLLAPSE_FACTOR * eps
    message = "" if not collapsed else (
        f"the learned mass matrix has collapsed to eps I (its largest entry is {largest:.2g} kg m^2 over the "
        f"data, eps = {eps:g}; the course's arm's is of order 1, and only an arm of a few grams would be that "
        f"light): the model explains the torques without any inertia. "
        f"The accelerations in the data (rms {qdd_rms:.3g} rad/s^2) are most likely noise, e.g. encoder positions "
        f"differenced twice. Estimate q̇ and q̈ with a smoothing filter, "
        f"lesson_lib.data.sensors.estimate(recording, method='savgol'), and train again from model.reset(); "
        f"then train on through the integrator, lesson_lib.model.verlet.fit_verlet(model, recording), which "
        f"needs no q̈ at all.")
    return {"largest_M": largest, "qdd_rms": qdd_rms, "collapsed": collapsed, "message": message}


def _mass_units(entries, width):
    """DeLaN's default mass_units for L's `entries` outputs and a last hidden layer of `width` units: MASS_UNITS is
    for the double pendulum's 3 entries of L in HIDDEN's last layer; another arm or width gets as many units per entry
    and per unit of width (at least 1, and 1 left for V; 0 for a width of 1).

    >>> _mass_units(3, 48), _mass_units(6, 48), _mass_units(3, 8), _mass_units(3, 1)      # 2 and 3 joints; widths
    (6, 12, 1, 0)"""
    if width < 2:
        return 0
    per_entry_and_unit = MASS_UNITS / (3 * HIDDEN[-1])
    return min(width - 1, max(1, round(per_entry_and_unit * entries * width)))


@functools.cache
def _trainable_mask(layer_sizes, mass_units):
    """DeLaN.trainable_mask for these layer sizes and mass_units (read-only: one array for every model of the
    shape)."""
    flat = np.ones(definition.n_weights(layer_sizes))
    if mass_units:
        *_, (W, _) = definition.unflatten(flat, layer_sizes)                  # views into flat
        W[:-1, mass_units:] = 0.0                                             # L's entries from V's units
        W[-1, :mass_units] = 0.0                                              # V from L's units
    flat.flags.writeable = False
    return flat


@functools.cache
def _potential_weights(layer_sizes, mass_units):
    """The positions in theta of V's own network when L and V are two (one hidden layer, mass_units > 0): V's units'
    weights and biases, and V's output weights from them and its bias; none otherwise (read-only)."""
    found = np.zeros(0, dtype=int)
    if mass_units and len(layer_sizes) == 3:
        (W1, b1), (W2, b2) = definition.unflatten(np.arange(definition.n_weights(layer_sizes)), layer_sizes)
        found = np.concatenate([W1[mass_units:].ravel(), b1[mass_units:], W2[-1, mass_units:], b2[-1:]])
    found.flags.writeable = False
    return found


class DeLaN(Trainable):
    """Deep Lagrangian Network for an n-joint robot; defaults from lesson_lib.facts (benchmarks/bench_delan.py).

    activation: a name in model.definition.ACTIVATIONS; potential_scale: V's unit in joules; mass_units: how many of
    the last hidden layer's units L reads (V reads the others; 0: both read all), by default MASS_UNITS for two joints
    and HIDDEN, as many per entry of L and per unit for another arm or width (_mass_units).  Every argument and every
    public method's input is checked; an empty batch (0, n) gives empty results.

    >>> model = DeLaN(seed=0)
    >>> bool(np.linalg.eigvalsh(model.mass_matrix([0.3, -1.2])).min() > 0)   # SPD before any training
    True"""

    architecture_fields = (*definition.Architecture._fields, "mass_units")   # a saved file must match (and optimiser)
    solves_readout = True      # fit ends by solving V's readout (potential_readout); False: Adam's alone

    def __init__(self, n_dof=2, hidden=HIDDEN, seed=0, lr=LR, batch_size=BATCH_SIZE, eps=EPS, activation=ACTIVATION,
                 potential_scale=POTENTIAL_SCALE, mass_units=None):
        width = layer_widths("hidden", hidden)[-1]
        self._mass_units = None if mass_units is None else integer(
            "mass_units", mass_units, low=0, high=width - 1,
            hint=f"the number of the last hidden layer's {width} units that L reads (V reads the others; 0: both "
                 f"read all); leave it out for the default")
        self.eps = number("eps", eps, low=0.0, high=EPS_MAX, low_open=True,
                          hint=f"eps (kg m^2) is added to every learned mass matrix, M = L L^T + eps I: it keeps M "
                               f"positive-definite for eps > 0, and above {EPS_MAX:g} it would drown the inertia the "
                               f"network learns (a robot arm's M has entries of order 1); e.g. eps={EPS:g}")
        self.potential_scale = number("potential_scale", potential_scale, low=POTENTIAL_SCALE_RANGE[0],
                                      high=POTENTIAL_SCALE_RANGE[1],
                                      hint=f"the unit of the learned potential in J (the network outputs V in "
                                           f"these units; a robot arm's potential is of order 1 to 100 J), e.g. "
                                           f"potential_scale={POTENTIAL_SCALE:g}")
        super().__init__(n_dof, hidden, seed, lr, batch_size, activation)

    @property
    def architecture(self):
        """The record (definition.Architecture) that, with the weights, fixes the model's function.

        >>> DeLaN(hidden=(16,), eps=0.01).architecture
        Architecture(n_dof=2, hidden=(16,), activation='isru', eps=0.01, potential_scale=20.0)"""
        return definition.Architecture(self.n_dof, self.hidden, self.activation, self.eps, self.potential_scale)

    @property
    def layer_sizes(self):
        """The network's layer sizes (the architecture's).

        >>> DeLaN(n_dof=3, hidden=(16,)).layer_sizes                     # 2n in; 6 entries of L and V out
        (6, 16, 7)"""
        return self.architecture.layer_sizes

    def initial_weights(self, rng):
        """The flat weights before training (init_mlp, the last layer scaled by 0.5).

        >>> DeLaN(hidden=(8,)).initial_weights(np.random.default_rng(0)).shape
        (76,)"""
        return init_mlp(rng, self.layer_sizes, out_scale=0.5) * self.trainable_mask

    @property
    def mass_units(self):
        """How many of the last hidden layer's units L's entries read (V reads the others; 0: both read all): the
        number given, or by default _mass_units for this model's entries of L and width.

        >>> DeLaN().mass_units, DeLaN(n_dof=3).mass_units, DeLaN(mass_units=0).mass_units
        (6, 12, 0)"""
        if self._mass_units is None:
            return _mass_units(self.layer_sizes[-1] - 1, self.hidden[-1])
        return self._mass_units

    @property
    def trainable_mask(self):
        """1 for each weight training changes, 0 for the output layer's weights from V's units to L's entries and
        from L's units to V (mass_units), which start at 0: flat, like theta; fit and fit_verlet step
        g * trainable_mask (set_params may set them otherwise: training then leaves them as set).

        >>> model = DeLaN(hidden=(8,), mass_units=1)
        >>> W = definition.unflatten(model.trainable_mask, model.layer_sizes)[-1][0]   # L_00, L_11, L_10, V; 8 units
        >>> W.astype(int)
        array([[1, 0, 0, 0, 0, 0, 0, 0],
               [1, 0, 0, 0, 0, 0, 0, 0],
               [1, 0, 0, 0, 0, 0, 0, 0],
               [0, 1, 1, 1, 1, 1, 1, 1]])"""
        return _trainable_mask(self.layer_sizes, self.mass_units)

    @property
    def potential_units(self):
        """The last hidden layer's units V reads: a slice (from mass_units on, or all of them when mass_units is 0).

        >>> DeLaN().potential_units, DeLaN(mass_units=0).potential_units
        (slice(6, None, None), slice(0, None, None))"""
        return slice(self.mass_units, None)

    def refined(self, theta, rows, validation_set):
        """The weights theta with V's readout solved by least squares on the training samples rows (5n, N), when
        that lowers the loss on the validation batch (potential_readout.solved); theta itself when solves_readout
        is False.  fit weighs the best average it kept, refined, at the end of each call (unchecked: fit's hook,
        Trainable.refined).

        >>> from lesson_lib import double_pendulum, sample_uniform
        >>> model, chain = DeLaN(seed=0), double_pendulum()
        >>> rows = np.concatenate([x.T for x in model.training_batch(sample_uniform(chain, 64))])
        >>> held = model.training_batch(sample_uniform(chain, 16, seed=1))
        >>> bool(model.batch_loss(model.refined(model.theta, rows, held), held) < model.batch_loss(model.theta, held))
        True"""
        if not self.solves_readout:
            return theta
        return potential_readout.solved(self, theta, rows, validation_set)

    def recombined(self, theta, start):
        """(joined,): the weights theta (P,), with which a fit call ends, joined to V's network from start (P,), the
        weights the call started from: the call's L with the V it started from, M(q) theta's and g(q) start's.  fit
        weighs it beside theta and start (Trainable.recombined), so that a V solved well in an earlier call does not
        keep L from improving.  () unless L and V are two networks: one hidden layer, mass_units > 0, and the weights
        between them 0 in both, as training keeps them (set_params may set them otherwise).  Unchecked, like refined.

        >>> model = DeLaN(hidden=(8,), mass_units=2)
        >>> zeros, ones = np.zeros(model.theta.size), model.trainable_mask
        >>> [int(w.sum()) for w in model.recombined(zeros, ones)]       # V's 6 units: 6 x (4 + 1) in, 6 + 1 out
        [37]
        >>> DeLaN(hidden=(8, 8)).recombined(model.theta, model.theta), model.recombined(zeros, np.ones(zeros.size))
        ((), ())"""
        own, apart = _potential_weights(self.layer_sizes, self.mass_units), self.trainable_mask == 0
        if not own.size or np.any(theta[apart]) or np.any(start[apart]):
            return ()
        joined = np.array(theta, dtype=float)
        joined[own] = start[own]
        return (joined,)

    def after_fit(self, q, qdd):
        """Warn (InertiaCollapsed, naming the data and the fix) when the learned M collapsed to eps I on the
        configurations just trained on.

        >>> DeLaN(seed=0).after_fit(np.zeros((2, 2)), np.ones((2, 2)))   # M of order 1: no warning"""
        found = inertia_collapse(self, {"q": q, "qdd": qdd})
        if found["collapsed"]:
            text = textwrap.fill(f"fit: {found['message']}", 88, break_long_words=False, break_on_hyphens=False)
            warnings.warn("\n" + text, InertiaCollapsed, stacklevel=3)     # lines a notebook shows whole

    @property
    def layers(self):
        """The weights as a list of (W, b) per layer (views into the flat vector theta).

        >>> [W.shape for W, b in DeLaN(hidden=(16,)).layers]
        [(16, 4), (4, 16)]"""
        return definition.unflatten(self.theta, self.layer_sizes)

    def batch_loss(self, theta, batch):
        """fit's loss (unchecked): definition.loss at theta on a training batch, by the fast path.

        >>> model, ones = DeLaN(seed=0), np.ones((4, 2))
        >>> bool(model.batch_loss(model.theta, (ones, ones, ones, ones, ones)) > 0)
        True"""
        return fast.loss(theta, self.architecture, batch)

    def learned_jet(self, theta, q):
        """definition.learned_jet at the weights theta and the states q (B, n), unchecked: L, dL and g, differentiable
        by autograd in theta (the network's jet as one node, fast.network_jet).

        >>> model = DeLaN(seed=0)
        >>> [x.shape for x in model.learned_jet(model.theta, np.zeros((3, 2)))]     # L, dL, g
        [(3, 2, 2), (3, 2, 2, 2), (3, 2)]"""
        return definition.learned_jet(theta, self.architecture, q, jet=fast.network_jet)

    def batch_loss_and_grad(self, theta, batch):
        """fit's loss and gradient by fast.loss_and_grad; a subclass that redefines batch_loss gets autograd's
        gradient of its own.

        >>> model, ones = DeLaN(seed=0), np.ones((4, 2))
        >>> value, g = model.batch_loss_and_grad(model.theta, (ones, ones, ones, ones, ones))
        >>> g.shape == model.theta.shape
        True"""
        if type(self).batch_loss is not DeLaN.batch_loss:
            return super().batch_loss_and_grad(theta, batch)
        return fast.loss_and_grad(theta, self.architecture, batch)

    # ------------------------------------------------------------------ public, batched like the RNEA
    def _at(self, q, derivatives=True):
        """(L, dL, V, g) at q as given (checked), and whether q was a single state; without derivatives dL
        (B, 0, n, n) and g (B, 0)."""
        (q,), single = self.checked_states(q=q)
        return quadratic.factor_and_potential(self.architecture, self._output_jet(q, derivatives)), single

    def _output_jet(self, q, derivatives=True, theta=None):
        """fast.output_jet at the checked states q (B, n) and the model's weights (or theta): J (n_out, 1+n, B), L's
        entries (the diagonal after softplus) and V."""
        return fast.output_jet(self.theta if theta is None else theta, self.architecture, q, derivatives)

    def mass_matrix(self, q):
        """Learned M(q) = L L^T + eps I: (n, n) or (B, n, n).

        >>> M = DeLaN(seed=0).mass_matrix([0.3, -1.2])
        >>> M.shape, bool(np.allclose(M, M.T))
        ((2, 2), True)"""
        (L, dL, _, _), single = self._at(q, derivatives=False)
        M = definition.mass_matrix_jet(self.architecture, L, dL)[0]
        return M[0] if single else M

    def mass_matrix_derivative(self, q):
        """dM/dq from the jet: (n, n, n) or (B, n, n, n), indexed [k, i, j] = dM_ij/dq_k.

        >>> DeLaN(seed=0).mass_matrix_derivative(np.zeros((5, 2))).shape
        (5, 2, 2, 2)"""
        (L, dL, _, _), single = self._at(q)
        dM = definition.mass_matrix_jet(self.architecture, L, dL)[1]
        return dM[0] if single else dM

    def cholesky_factor(self, q):
        """Learned L(q), lower-triangular with a positive diagonal: (n, n) or (B, n, n).

        >>> L = DeLaN(seed=0).cholesky_factor([0.3, -1.2])
        >>> float(L[0, 1]), bool(L[0, 0] > 0 and L[1, 1] > 0)
        (0.0, True)"""
        (L, _, _, _), single = self._at(q, derivatives=False)
        return L[0] if single else L

    def potential(self, q):
        """Learned V(q) (defined up to a constant): () or (B,).

        >>> DeLaN(seed=0).potential(np.zeros((4, 2))).shape
        (4,)"""
        (_, _, V, _), single = self._at(q, derivatives=False)
        return V[0] if single else V

    def gravity(self, q):
        """g(q) = dV/dq from the jet: (n,) or (B, n).

        >>> DeLaN(seed=0).gravity([0.3, -1.2]).shape
        (2,)"""
        (_, _, _, g), single = self._at(q)
        return g[0] if single else g

    def parts(self, q, qd, qdd):
        """The three terms of the manipulator equation (definition.parts): dict with "M_qdd", "c", "g", each (n,)
        or (B, n).

        >>> model = DeLaN(seed=0)
        >>> parts = model.parts([0.3, -1.2], [1.0, 0.0], [0.0, 2.0])
        >>> bool(np.allclose(sum(parts.values()), model.inverse_dynamics([0.3, -1.2], [1.0, 0.0], [0.0, 2.0])))
        True"""
        (q, qd, qdd), single = self.checked_states(q=q, qd=qd, qdd=qdd)
        with np.errstate(over="ignore", invalid="ignore"):
            L, dL, _, g = quadratic.factor_and_potential(self.architecture, self._output_jet(q))
            terms = definition.parts(self.architecture, L, dL, g, qd, qdd)
        terms = self._finite("torque", terms, q=q, qd=qd, qdd=qdd)
        return {k: (v[0] if single else v) for k, v in zip(("M_qdd", "c", "g"), terms, strict=True)}

    def coriolis(self, q, qd):
        """c(q, qd) = C(q, qd) qd computed from dM/dq: (n,) or (B, n).

        >>> model = DeLaN(seed=0)
        >>> q = [0.3, -1.2]
        >>> bool(np.allclose(model.coriolis(q, [2.0, 1.0]), 4 * model.coriolis(q, [1.0, 0.5])))    # quadratic in qd
        True"""
        return self.parts(q, qd, np.zeros(self.n_dof))["c"]

    def inverse_dynamics(self, q, qd, qdd):
        """tau_hat = M(q) qdd + c(q, qd) + g(q): (n,) or (B, n) (quadratic.jet_torque: the definition's torque, read off
        the jet as one product).

        >>> DeLaN(seed=0).inverse_dynamics(np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((3, 2))).shape
        (3, 2)"""
        (q, qd, qdd), single = self.checked_states(q=q, qd=qd, qdd=qdd)
        with np.errstate(over="ignore", invalid="ignore"):
            J = self._output_jet(q)
            tau = self._finite("torque", quadratic.jet_torque(self.architecture, J, qd, qdd), q=q, qd=qd, qdd=qdd)
        return tau[0] if single else tau

    def forward_dynamics(self, q, qd, tau):
        """qdd = M(q)^-1 (tau - c - g) with the learned model (usable by lesson_lib.physics.integrators.rollout).

        >>> model, q, qd = DeLaN(seed=0), np.array([0.3, -1.2]), np.array([1.0, 0.0])
        >>> qdd = model.forward_dynamics(q, qd, model.inverse_dynamics(q, qd, [0.5, -0.5]))
        >>> qdd.round(6)
        array([ 0.5, -0.5])"""
        (q, qd, tau), single = self.checked_states(q=q, qd=qd, tau=tau)
        with np.errstate(over="ignore", invalid="ignore"):
            L, dL, _, g = quadratic.factor_and_potential(self.architecture, self._output_jet(q))
            qdd = self._finite("acceleration", definition.forward_dynamics(self.architecture, L, dL, g, qd, tau),
                               q=q, qd=qd, tau=tau)
        return qdd[0] if single else qdd
