"""The DeLaN's training loss as ONE autograd primitive: the network's jet, the torque, the scaled squared error.

    J     = the jet of the network at the features' jet X        (lesson_lib.model.fast.jet)
    tau   = M qdd + c + g from J                                 (quadratic.py for up to 3 joints, else manipulator.py)
    err   = tau * inv_scale - target,    loss = mean(err^2)      (over the batch and the joints)

Reverse, for G = d out / d loss:  d loss / d tau = 2 G err inv_scale / err.size, then back through the torque to
d loss / d J, then back through the network to d loss / d theta (jet.jet_backward).  One autograd node per step
instead of two, and nothing recorded in between; fit skips autograd's tracing altogether (delan_loss_and_grad).
Its definition in plain autograd is lesson_lib.model.definition.loss; tests/test_definition.py holds the two to the
same loss and gradient.
"""
import numpy as np

from . import manipulator, quadratic
from .jet import jet_backward, jet_forward, unflatten
from .primitive import fused_primitive


def torque_forward(J, qdT, qddT, tril, eps, v_scale):
    """tau (n, B) from the jet J (n_out, 1+n, B) and qd, qdd (n, B), and the pieces `torque_backward` needs."""
    if quadratic.fits(J.shape[1] - 1):
        return quadratic.torque_forward(J, qdT, qddT, eps, v_scale)
    return manipulator._torque_forward(J, qdT.T, qddT.T, tril, eps, v_scale)


def torque_backward(J, pieces, tril, GT, v_scale):
    """d loss / d J from GT = d loss / d tau (n, B), through `torque_forward`."""
    if quadratic.fits(J.shape[1] - 1):
        return quadratic.torque_backward(J, pieces, GT)
    return manipulator._torque_backward(J, pieces, tril, GT, v_scale)


def _forward(theta, X, qd, qdd, target, inv_scale, sizes, hidden_act, n_softplus, tril, eps, v_scale):
    layers = unflatten(theta.astype(X.dtype, copy=False), sizes)
    J, records = jet_forward(X, layers, hidden_act, n_softplus)
    err, pieces = torque_forward(J, qd.T, qdd.T, tril, eps, v_scale)
    err *= inv_scale.T                                                    # err is ours: scaled in place
    err -= target.T
    flat = err.reshape(-1)
    return (flat @ flat) / flat.size, (layers, records, J, err, pieces)


def _make_vjp(argnums, kept, theta, X, qd, qdd, target, inv_scale, sizes, hidden_act, n_softplus, tril, eps,
              v_scale):
    layers, records, J, err, pieces = kept

    def vjp(G):
        dtau = err * inv_scale.T
        dtau *= 2.0 * G / err.size                                        # d loss / d tau
        gJ = torque_backward(J, pieces, tril, dtau, v_scale)
        gtheta = np.empty(theta.shape, X.dtype)
        jet_backward(layers, records, gJ, unflatten(gtheta, sizes), input_grad=False)
        return (gtheta.astype(theta.dtype, copy=False),)
    return vjp


_loss = fused_primitive(_forward, _make_vjp, wrt=(0,))


def delan_loss(theta, X, qd, qdd, target, inv_scale, sizes, hidden_act, n_softplus, tril, eps, v_scale=1.0):
    """The training loss (a scalar), differentiable in theta: mean over the batch and the joints of
    (tau_hat * inv_scale - target)^2, tau_hat = M qdd + c + g of the network with flat weights theta (layout of
    jet.unflatten, layer sizes `sizes`, hidden activation `hidden_act`, softplus on its first n_softplus outputs).
    X: the features' jet of q (1+n, B, 2n), jet.periodic_features; qd, qdd, target, inv_scale (B, n) as in
    DeLaN.loss; tril: L's entries in the network's output order (manipulator.tril_order); eps, v_scale: the
    DeLaN's eps and potential_scale.  Computes in X's precision; the gradient comes back in theta's."""
    return _loss(theta, X, qd, qdd, target, inv_scale, sizes, hidden_act, n_softplus, tril, eps, v_scale)


def delan_loss_and_grad(theta, X, qd, qdd, target, inv_scale, sizes, hidden_act, n_softplus, tril, eps,
                        v_scale=1.0):
    """(delan_loss(...), its gradient in theta): the numbers autograd.value_and_grad(delan_loss) gives, to the bit,
    from the same forward pass and VJP called directly, without autograd's tracing (fit's hot path)."""
    value, (g,) = _loss.value_and_grad(theta, X, qd, qdd, target, inv_scale, sizes, hidden_act, n_softplus, tril,
                                       eps, v_scale)
    return value, g
