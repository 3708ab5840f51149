"""The black box: an MLP that learns the whole map (q, qd, qdd) -> tau, with no structure: the lesson's foil.
Nothing makes its implied mass matrix d tau / d qdd symmetric, positive-definite or independent of qd and qdd."""
import autograd.numpy as anp
import numpy as np
from autograd import elementwise_grad

from ..facts import ACTIVATION, BATCH_SIZE, HIDDEN, LR
from . import fast
from .trainable import Trainable, init_mlp


class BlackBox(Trainable):
    """MLP tau_hat = tau_scale f([cos q, sin q, qd / s_qd, qdd / s_qdd]); arguments as the DeLaN's.

    >>> from lesson_lib import double_pendulum, sample_uniform
    >>> model = BlackBox(seed=0)
    >>> losses = model.fit(sample_uniform(double_pendulum(), 64), steps=5)
    >>> len(losses), model.inverse_dynamics([0.1, 0.2], [0, 0], [0, 0]).shape
    (5, (2,))"""

    def __init__(self, n_dof=2, hidden=HIDDEN, seed=0, lr=LR, batch_size=BATCH_SIZE, activation=ACTIVATION):
        super().__init__(n_dof, hidden, seed, lr, batch_size, activation)

    @property
    def layer_sizes(self):
        """The network's layer sizes: [cos q, sin q, qd / s_qd, qdd / s_qdd] in, tau / tau_scale out.

        >>> BlackBox(hidden=(16,)).layer_sizes
        (8, 16, 2)"""
        return (4 * self.n_dof, *self.hidden, self.n_dof)

    def _initial_state(self):
        return {**super()._initial_state(), "input_scale": np.ones(2)}

    def _state(self):
        return {**super()._state(), "input_scale": self.input_scale.copy()}

    def _set_state(self, state):
        super()._set_state(state)
        self.input_scale = np.array(state["input_scale"])            # a copy (the file check made it float)

    def data_scales(self, q, qd, qdd, tau_scale):
        """The scales set before the first step: the torques' (tau_scale) and the inputs' (input_scale: qd's and
        qdd's spread).

        >>> scales = BlackBox().data_scales(None, np.array([[1.0], [-1.0]]), np.array([[2.0], [-2.0]]), np.ones(1))
        >>> scales["input_scale"].round(6)
        array([1., 2.])"""
        scales = super().data_scales(q, qd, qdd, tau_scale)  # pragma: no mutate (the base's scale is tau_scale's)
        scales["input_scale"] = np.array([qd.std(), qdd.std()]) + 1e-8
        return scales

    def initial_weights(self, rng):
        """The flat weights before training (init_mlp, the last layer scaled by 0.5).

        >>> model = BlackBox(hidden=(8,))
        >>> model.initial_weights(np.random.default_rng(0)).shape
        (90,)"""
        return init_mlp(rng, self.layer_sizes, out_scale=0.5)

    def _forward(self, theta, q, qd, qdd):
        """Scaled torque prediction (B, n); differentiable in theta and in qdd."""
        s_qd, s_qdd = (float(s) for s in self.input_scale)        # Python floats keep float32 batches float32
        x = anp.concatenate([anp.cos(q), anp.sin(q), qd / s_qd, qdd / s_qdd], axis=1)
        return fast.mlp(x[None], theta, self.layer_sizes, self.activation)[:, 0].T

    def batch_loss(self, theta, batch):
        """fit's loss (unchecked) at theta on a training batch (q, qd, qdd, target, inv_scale), each
        (B, n): mean((tau_hat inv_scale - target)^2), as the DeLaN's.

        >>> model, ones = BlackBox(seed=0), np.ones((4, 2))
        >>> bool(model.batch_loss(model.theta, (ones, ones, ones, ones, ones)) > 0)
        True"""
        q, qd, qdd, target, inv_scale = batch
        err = self._forward(theta, q, qd, qdd) * (inv_scale * self.tau_scale.astype(inv_scale.dtype)) - target
        return anp.mean(err * err)

    def inverse_dynamics(self, q, qd, qdd):
        """tau_hat (n,) or (B, n).

        >>> BlackBox(seed=0).inverse_dynamics(np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((3, 2))).shape
        (3, 2)"""
        (q, qd, qdd), single = self.checked_states(q=q, qd=qd, qdd=qdd)
        with np.errstate(over="ignore", invalid="ignore"):
            tau = self._finite("torque", self._forward(self.theta, q, qd, qdd) * self.tau_scale, q=q, qd=qd, qdd=qdd)
        return tau[0] if single else tau

    def implied_mass_matrix(self, q, qd, qdd):
        """d tau_hat / d qdd by autograd, (n, n) or (B, n, n): what plays the role of M(q) in the black box.

        >>> M = BlackBox(seed=0).implied_mass_matrix([0.3, 0.1], [0.0, 0.0], [0.0, 0.0])
        >>> M.shape, bool(np.allclose(M, M.T))                        # nothing makes it symmetric
        ((2, 2), False)"""
        (q, qd, qdd), single = self.checked_states(q=q, qd=qd, qdd=qdd)
        rows = [elementwise_grad(lambda a, i=i: self._forward(self.theta, q, qd, a)[:, i] * self.tau_scale[i])(qdd)
                for i in range(self.n_dof)]
        M = np.stack(rows, axis=1)
        return M[0] if single else M
