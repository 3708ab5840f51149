"""The fast path's one seam: the DeLaN's training loss and its gradient, from an Architecture and a batch.

    loss(theta, arch, batch)             the loss, differentiable by autograd in theta (one node)
    loss_and_grad(theta, arch, batch)    the loss and its gradient without autograd's tracing (what fit calls)
    torque(arch, J, qd, qdd)             the definition's tau from the network's jet (DeLaN.inverse_dynamics)

The same numbers as definition.loss (tests/test_definition.py):

    J    = the network's jet                   (jet.jet_forward, softplus on L's diagonal)
    tau  = M qdd + c + g from J                (quadratic.torque, up to MAX_QUADRATIC_JOINTS)
    loss = mean((tau * inv_scale - target)^2)

Reverse: d loss / d tau = 2 G err inv_scale / err.size, through the quadratic form to d loss / d J, through the
network (jet.jet_backward) to d loss / d theta.  Larger arms differentiate the definition's loss by autograd.

A fused primitive is many numpy operations as ONE autograd node with a hand-written VJP that needs the forward
pass's intermediate arrays ("pieces").  autograd builds a primitive's VJP right after running it, so the pieces
pass through one slot: forward -> slot = (ans, pieces) -> the VJP maker takes them if the slot holds this ans.
Outside tracing only forward(...)[0] runs; a missed slot recomputes the pieces."""
import autograd
import numpy as np
from autograd.extend import defvjp_argnums, primitive, vspace
from autograd.tracer import isbox

from .. import definition
from . import quadratic
from .jet import jet_backward, jet_forward, periodic_features

# (ans, pieces) of the last traced forward pass, or (None, None): taken (and cleared) by its VJP maker.
_slot = [None, None]


def _take(ans):
    """The pieces kept for `ans` (or None if the slot holds another call's), and clear the slot."""
    kept_ans, pieces = _slot
    _slot[:] = [None, None]
    return pieces if kept_ans is ans else None


def fused_primitive(forward, make_vjp, wrt=None):
    """forward(*args) -> (ans, pieces) made f(*args) = ans, differentiable by autograd.

    make_vjp(argnums, pieces, *args) returns G -> (d loss / d args[i] for i in argnums).  wrt: the differentiable
    argument positions (None: any).  f.value_and_grad(*args) (only with wrt): a scalar f's value and gradients,
    by the same passes without tracing."""
    @primitive
    def traced(*args):
        ans, pieces = forward(*args)
        _slot[:] = [ans, pieces]
        return ans

    def vjp_maker(argnums, ans, args, kwargs):
        pieces = _take(ans)                     # first: a refused call must not leave its pieces in the slot
        if wrt is not None and not set(argnums) <= set(wrt):
            raise NotImplementedError(f"{forward.__name__} is differentiable only in arguments {wrt}, "
                                      f"asked for {tuple(argnums)}")
        if pieces is None:
            pieces = forward(*args)[1]
        return make_vjp(argnums, pieces, *args)

    defvjp_argnums(traced, vjp_maker)

    def fused(*args):
        if any(isbox(a) for a in args):
            return traced(*args)
        return forward(*args)[0]

    def value_and_grad(*args):
        """(f(*args), d f / d args[i] for i in wrt): the VJP at G = 1, autograd's numbers."""
        ans, pieces = forward(*args)
        return ans, make_vjp(wrt, pieces, *args)(vspace(ans).ones())

    if wrt is not None:
        fused.value_and_grad = value_and_grad
    return fused


# ---------------------------------------------------------------- the network's jet as one node
def _jet_forward(X, theta, sizes, activation, n_softplus):
    layers = definition.unflatten(theta.astype(X.dtype, copy=False), sizes)
    J, records = jet_forward(X, layers, activation, n_softplus)
    return J, (layers, records)


def _jet_vjp(argnums, kept, X, theta, sizes, activation, n_softplus):
    layers, records = kept

    def vjp(G):
        gtheta = np.empty(theta.shape, X.dtype)
        gX = jet_backward(layers, records, G, definition.unflatten(gtheta, sizes), input_grad=0 in argnums)
        out = {0: gX, 1: gtheta.astype(theta.dtype, copy=False)}
        return tuple(out[i] for i in argnums)
    return vjp


_jet_mlp = fused_primitive(_jet_forward, _jet_vjp, wrt=(0, 1))


def jet_mlp(X, theta, sizes, activation, n_softplus=0):
    """The network as ONE autograd node, differentiable in X and theta: input jet X (1+n, B, sizes[0]) ->
    output jet J (sizes[-1], 1+n, B); softplus on the first n_softplus outputs.  In X's precision."""
    return _jet_mlp(X, theta, sizes, activation, n_softplus)


def network_jet(theta, arch, q):
    """definition.network_jet's outputs (B, n_out) and q-derivatives (B, n, n_out) at q (B, n), as one node."""
    J = jet_mlp(periodic_features(q), theta, arch.sizes, arch.activation)
    return J[:, 0].T, J[:, 1:].T


def torque(arch, J, qd, qdd):
    """definition.torque (B, n) from the jet J (n_out, 1+n, B) (L's diagonal after softplus) and qd, qdd
    (B, n): its quadratic form where it fits, else the definition."""
    if quadratic.fits(arch.n_dof):
        return quadratic.torque(arch, J, qd.T, qdd.T)[0].T
    return quadratic.definition_torque(arch, J, qd, qdd).T


# ---------------------------------------------------------------- the training loss as one node
def _loss_forward(theta, arch, X, qd, qdd, target, inv_scale):
    layers = definition.unflatten(theta.astype(X.dtype, copy=False), arch.sizes)
    J, records = jet_forward(X, layers, arch.activation, arch.n_dof)
    err, form = quadratic.torque(arch, J, qd.T, qdd.T)
    err *= inv_scale.T                                                    # err is ours: scaled in place
    err -= target.T
    flat = err.reshape(-1)
    return (flat @ flat) / flat.size, (layers, records, J, err, form)


def _loss_vjp(argnums, kept, theta, arch, X, qd, qdd, target, inv_scale):
    layers, records, J, err, form = kept

    def vjp(G):
        dtau = err * inv_scale.T
        dtau *= 2.0 * G / err.size                                        # d loss / d tau
        gtheta = np.empty(theta.shape, X.dtype)
        jet_backward(layers, records, quadratic.torque_backward(J, form, dtau),
                     definition.unflatten(gtheta, arch.sizes), input_grad=False)
        return (gtheta.astype(theta.dtype, copy=False),)
    return vjp


_loss = fused_primitive(_loss_forward, _loss_vjp, wrt=(0,))


def _arguments(theta, arch, batch):
    q, qd, qdd, target, inv_scale = batch
    return theta, arch, periodic_features(q), qd, qdd, target, inv_scale


def loss(theta, arch, batch):
    """definition.loss(theta, arch, batch), differentiable in theta, in the batch's precision."""
    if quadratic.fits(arch.n_dof):
        return _loss(*_arguments(theta, arch, batch))
    return definition.loss(theta, arch, batch, jet=network_jet)


def loss_and_grad(theta, arch, batch):
    """(loss(theta, arch, batch), its gradient in theta): the numbers autograd.value_and_grad(loss) gives."""
    if quadratic.fits(arch.n_dof):
        value, (g,) = _loss.value_and_grad(*_arguments(theta, arch, batch))
        return value, g
    return autograd.value_and_grad(loss)(theta, arch, batch)
