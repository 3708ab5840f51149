"""Fused autograd primitives whose reverse pass reuses their own forward pass.

A fused primitive (the jet through the network, the torque, the loss) runs many numpy operations as ONE
autograd node with a hand-written vector-Jacobian product.  Its reverse pass needs the forward pass's
intermediate arrays ("pieces").  autograd builds a primitive's VJP right after running it, on the very value it
returned, so the pieces are handed over through one slot:

    forward (traced)  ->  slot = (ans, pieces)  ->  VJP maker takes the pieces if slot holds this ans; slot cleared

Nothing is kept when no one will differentiate: a call outside autograd tracing (inference, or evaluating a
loss) skips the primitive and returns forward(...)[0] directly, so the slot stays empty and the pieces are freed
with the call.  If the slot does not hold this call's result, the pieces are recomputed (same numbers).
"""
from autograd.extend import defvjp_argnums, primitive, vspace
from autograd.tracer import isbox

# (ans, pieces) of the last traced forward pass, or (None, None): taken (and cleared) by its VJP maker.
_slot = [None, None]


def _take(ans):
    """The pieces kept for `ans` (or None if the slot holds another call's), and clear the slot."""
    kept_ans, pieces = _slot
    _slot[:] = [None, None]
    return pieces if kept_ans is ans else None


def fused_primitive(forward, make_vjp, wrt=None):
    """Turn forward(*args) -> (ans, pieces) into f(*args) = ans, differentiable by autograd.

    make_vjp(argnums, pieces, *args) returns G -> tuple of d loss / d args[i] for i in argnums (G = d loss / d ans).
    wrt: the argument positions that can be differentiated (None: any); asking for another one raises.
    Arguments are positional; wrap the result in a function with a signature and a docstring.
    f.value_and_grad(*args): the value and the gradients in the `wrt` arguments of a scalar f, by the same
    forward pass and VJP but without autograd's tracing (a training loop's hot path; only when wrt is given).
    """
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
        """(f(*args), d f / d args[i] for each i in wrt) for a scalar f, without autograd's tracing: the forward
        pass, then the hand-written VJP at G = 1, as autograd.value_and_grad would run them (the same numbers, to
        the bit), but with no boxes, no graph and no slot."""
        ans, pieces = forward(*args)
        return ans, make_vjp(wrt, pieces, *args)(vspace(ans).ones())

    if wrt is not None:
        fused.value_and_grad = value_and_grad
    return fused
