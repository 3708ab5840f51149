"""The course's press against a JAX-jit DeLaN written from the same math, timed in the same run (issue 23).

The peer: the default DeLaN (features [cos q, sin q], the default's isru layers, L with a softplus diagonal,
M = L Lᵀ + eps I, V = v_scale x the last output) in jax.numpy, ∂M/∂q by forward mode (jax.jacfwd), g = ∂V/∂q by
jax.grad, c = Ṁ q̇ − ½ [q̇ᵀ ∂M/∂q_k q̇]_k, the course's loss on model.training_batch(data) (the same scaled,
weighted torque error), float32, optax Adam at the course's rate and b1, b2, with the course's average of the
iterates (lesson_lib.model.adam), minibatches of the course's size drawn uniformly, the whole step under jax.jit; the
same initial weights as DeLaN(seed=0) and the same weights held at 0 (L and V on units of their own:
DeLaN.trainable_mask).  Rate, batch, widths, eps, the potential's unit and Adam's settings are read from DeLaN() and
Adam (the library's defaults, lesson_lib.facts), so both sides do the same work per step (issue 60); the first line
printed says which.  Compile time is excluded
(one step runs first).  Not the same algorithm step for step: the course's fit also holds out a validation split
and keeps its best weights; both end with the weights checked by lesson_check.

JAX is optional and never a dependency of the course or its tests:

    pip install jax==0.10.2 jaxlib==0.10.2 optax==0.2.8      # into a scratch or the teachers' environment
    python benchmarks/bench_jax_peer.py [--rounds 3]

Without JAX it prints one line saying so and exits 0.  Prints, per round (interleaved: course, then JAX), the
seconds for 2,000 steps, then the best of each, the ratio course / JAX and the load average, and max |M_hat - M|
over the lesson's grid for both after 2,000 steps.
"""
import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # the course of this repository, not an installed one


def jax_peer(model, batch):
    """(train(steps) -> (seconds, final theta as numpy), its loss and the course's plain loss at model's weights
    on the first rows of batch) for the JAX DeLaN with model's sizes and initial weights, trained on `batch`
    (model.training_batch(data) of a model whose fit set the torque scales)."""
    import jax
    import jax.numpy as jnp
    import optax

    from lesson_lib.model.definition import tril_order, unflatten

    n, sizes, EPS, POTENTIAL_SCALE = model.n_dof, model.layer_sizes, model.eps, model.potential_scale
    isru_only(model)
    rows, cols = tril_order(n)
    q_all, qd_all, qdd_all, target_all, inv_all = (jnp.asarray(a, jnp.float32) for a in batch)

    def outputs(theta, q):
        """The network's outputs (n(n+1)/2 entries of L, then V) at one q (n,)."""
        *hidden, (W, b) = unflatten(theta, sizes)
        h = jnp.concatenate([jnp.cos(q), jnp.sin(q)])
        for W_i, b_i in hidden:
            z = W_i @ h + b_i
            h = z / jnp.sqrt(1.0 + z * z)                        # isru, the default activation
        return W @ h + b

    def mass_matrix(theta, q):
        out = outputs(theta, q)
        entries = jnp.concatenate([jax.nn.softplus(out[:n]), out[n:len(rows)]])
        L = jnp.zeros((n, n), out.dtype).at[rows, cols].set(entries)
        return L @ L.T + EPS * jnp.eye(n, dtype=out.dtype)

    def torque(theta, q, qd, qdd):
        M = mass_matrix(theta, q)
        dM = jax.jacfwd(mass_matrix, argnums=1)(theta, q)         # (n, n, n): [i, j, k] = dM_ij / dq_k
        Mdot = dM @ qd
        c = Mdot @ qd - 0.5 * jnp.einsum("ijk,i,j->k", dM, qd, qd)
        g = POTENTIAL_SCALE * jax.grad(lambda q_: outputs(theta, q_)[-1])(q)
        return M @ qdd + c + g

    def loss(theta, q, qd, qdd, target, inv_scale):
        tau = jax.vmap(torque, in_axes=(None, 0, 0, 0))(theta, q, qd, qdd)
        return jnp.mean((tau * inv_scale - target) ** 2)

    from lesson_lib.model.adam import Adam
    optimizer = optax.adam(model.lr, b1=Adam.b1, b2=Adam.b2, eps=Adam.eps)

    @jax.jit
    def step(theta, state, key):
        """One Adam step; state is (optax's state, the average of the iterates, the step count t)."""
        opt_state, average, t = state
        key, sub = jax.random.split(key)
        i = jax.random.randint(sub, (model.batch_size,), 0, q_all.shape[0])
        value, g = jax.value_and_grad(loss)(theta, q_all[i], qd_all[i], qdd_all[i], target_all[i], inv_all[i])
        g = g * kept                                            # only the weights the DeLaN trains (trainable_mask)
        updates, opt_state = optimizer.update(g, opt_state, theta)
        theta, t = optax.apply_updates(theta, updates), t + 1
        d = jnp.minimum(Adam.decay, (t - 1) / (t + 8))
        return theta, (opt_state, d * average + (1 - d) * theta, t), key, value

    theta0, kept = jnp.asarray(model.get_params(), jnp.float32), jnp.asarray(model.trainable_mask, jnp.float32)
    first = float(loss(theta0, q_all[:128], qd_all[:128], qdd_all[:128], target_all[:128], inv_all[:128]))
    from lesson_lib.model import definition
    course_first = float(definition.loss(model.get_params(), model.architecture, tuple(a[:128] for a in batch)))

    def train(steps):
        """(seconds, the average of the iterates as numpy) after `steps` steps from theta0."""
        fresh = (optimizer.init(theta0), theta0, jnp.float32(0))
        theta, state, key, _ = step(theta0, fresh, jax.random.PRNGKey(0))     # compile (excluded from the time)
        jax.block_until_ready(theta)
        theta, state, key = theta0, fresh, jax.random.PRNGKey(0)
        t0 = time.perf_counter()
        for _ in range(steps):
            theta, state, key, _ = step(theta, state, key)
        jax.block_until_ready(state[1])
        return time.perf_counter() - t0, np.asarray(state[1], dtype=float)

    return train, first, course_first


def isru_only(model):
    """The peers write the isru activation out: refuse another rather than time different work."""
    if model.activation != "isru":
        raise SystemExit(f"the peer implements the isru activation, the library's default is now "
                         f"{model.activation!r}: add it to the peer before comparing")


def settings(model):
    """The settings both sides train with, as printed: the library's defaults."""
    from lesson_lib.model.adam import Adam
    return (f"lr {model.lr:g}, batch {model.batch_size}, hidden {'x'.join(map(str, model.hidden))} (L on "
            f"{model.mass_units} of the units, V on the others), {model.activation}, eps {model.eps:g}, Adam b1 "
            f"{Adam.b1:g} b2 {Adam.b2:g} with an average of the iterates (decay {Adam.decay:g})")


def race(name, make_peer, goal, rounds=3, steps=2000):
    """The race both peer benchmarks run: make_peer(model, batch) -> (train, first, course_first) as jax_peer
    returns; the course's fit and the peer's train(steps) interleaved for `rounds` rounds on the same data from
    the same initial weights; prints the loss both see at the start, each round, the best of each with the ratio
    course / peer against `goal`, and max |M_hat - M| over the lesson's grid for both after the steps."""
    from lesson_lib import DeLaN, double_pendulum, lesson_check, sample_uniform
    chain = double_pendulum()
    data = sample_uniform(chain, 4096, seed=0)
    scaled = DeLaN(seed=0)
    scaled.fit(data, steps=1)                       # sets the torque scales fit's batches use
    train, first, course_first = make_peer(DeLaN(seed=0), scaled.training_batch(data))
    print(f"both sides: {settings(scaled)} (the library's defaults); the course's fit also holds out "
          f"validation samples and lowers the rate on their plateaus")
    print(f"the same loss at the initial weights: {name} {first:.6f}, the course's plain definition "
          f"{course_first:.6f}")
    course, peer = [], []
    for r in range(rounds):
        m = DeLaN(seed=0)
        t0 = time.perf_counter()
        m.fit(data, steps=steps)
        course.append(time.perf_counter() - t0)
        seconds, theta = train(steps)
        peer.append(seconds)
        print(f"round {r + 1}: course {course[-1]:.2f} s, {name} {peer[-1]:.2f} s for {steps} steps")
    trained = DeLaN(seed=0)
    trained.set_params(theta)
    ours, theirs = lesson_check(m, chain), lesson_check(trained, chain)
    print(f"best of {rounds}: course {min(course):.2f} s, {name} {min(peer):.2f} s, course / {name} = "
          f"{min(course) / min(peer):.2f} (goal <= {goal}); load average {os.getloadavg()[0]:.1f}")
    print(f"after {steps} steps: max |M_hat - M| course {ours['max_error']:.4f}, {name} {theirs['max_error']:.4f}")


def main(rounds=3, steps=2000):
    try:
        import jax  # noqa: F401
        import optax  # noqa: F401
    except ImportError:
        print("JAX is not installed: skipped (pip install jax==0.10.2 jaxlib==0.10.2 optax==0.2.8 to run it)")
        return
    race("JAX-jit", jax_peer, 0.6, rounds, steps)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=2000)
    args = parser.parse_args()
    main(args.rounds, args.steps)
    sys.exit(0)
