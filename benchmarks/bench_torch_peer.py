"""The course's press against a PyTorch DeLaN written from the same math, timed in the same run (issue 23).

The peer: the default DeLaN as bench_jax_peer.py's JAX one (features [cos q, sin q], the default's isru layers, L with a
softplus diagonal, M = L Lᵀ + eps I, V = v_scale x the last output, c = Ṁ q̇ − ½ [q̇ᵀ ∂M/∂q_k q̇]_k, g = ∂V/∂q),
float32, eager PyTorch (no torch.compile), torch.optim.Adam at the course's rate and b1, b2 with the course's
average of the iterates (lesson_lib.model.adam), minibatches of the course's size
drawn uniformly, the same initial weights as DeLaN(seed=0) and the same weights held at 0 (L and V on units of their
own: DeLaN.trainable_mask), the course's loss on model.training_batch(data), the loss's gradient by backward().
Two ways to get ∂M/∂q, --peer:

  jet    (default) as the DeLaN authors' PyTorch code does: each layer returns its value and its q-derivative by
         the chain rule, batched (the course's own method: a first-order jet), autograd differentiating through it;
  func   as torch.func invites: jacfwd for ∂M/∂q and grad for g per sample, vmap over the batch (far slower).

The race (rounds, interleaving, the figures printed) is bench_jax_peer.race.  PyTorch is optional and never a
dependency of the course or its tests:

    pip install torch==2.13.0            # the CPU build; into a scratch or the teachers' environment
    python benchmarks/bench_torch_peer.py [--rounds 3] [--peer jet|func]

Without PyTorch it prints one line saying so and exits 0.  The goal (issue 23): course / PyTorch <= 0.15.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))          # bench_jax_peer's race (it adds the repo root)
from bench_jax_peer import isru_only, race  # noqa: E402


def torch_peer(model, batch, peer="jet"):
    """(train(steps) -> (seconds, final theta as numpy), its loss and the course's plain loss at model's weights
    on the first rows of batch), as bench_jax_peer.jax_peer, for the PyTorch DeLaN computing ∂M/∂q by `peer`."""
    import torch
    from torch.func import grad, jacfwd, vmap

    from lesson_lib.model import definition
    from lesson_lib.model.adam import Adam
    from lesson_lib.model.definition import tril_order, unflatten

    n, sizes, EPS, POTENTIAL_SCALE = model.n_dof, model.layer_sizes, model.eps, model.potential_scale
    isru_only(model)
    rows, cols = tril_order(n)
    place = torch.zeros(n * n, len(rows))                        # L's entries -> L, flattened
    place[np.asarray(rows) * n + np.asarray(cols), np.arange(len(rows))] = 1.0
    eye = torch.eye(n)
    q_all, qd_all, qdd_all, target_all, inv_all = (torch.as_tensor(a, dtype=torch.float32) for a in batch)

    def isru(z):
        return z / torch.sqrt(1.0 + z * z)                       # the default activation; s' = (1 + z^2)^(-3/2)

    # ---- jet: values and q-derivatives through the layers, batched (B, ...) and (B, n, ...)
    def network_jet(params, q):
        h = torch.cat([torch.cos(q), torch.sin(q)], dim=1)                                     # (B, 2n)
        dh = torch.cat([torch.diag_embed(-torch.sin(q)), torch.diag_embed(torch.cos(q))], dim=2)  # (B, n, 2n)
        for W, b in zip(params[0:-2:2], params[1:-2:2], strict=True):
            z, dz = h @ W.T + b, dh @ W.T
            h, dh = isru(z), (1.0 + z * z).pow(-1.5)[:, None, :] * dz
        return h @ params[-2].T + params[-1], dh @ params[-2].T                                 # (B, m), (B, n, m)

    def torque_jet(params, q, qd, qdd):
        out, dout = network_jet(params, q)
        entries = torch.cat([torch.nn.functional.softplus(out[:, :n]), out[:, n:len(rows)]], dim=1)
        dentries = torch.cat([torch.sigmoid(out[:, None, :n]) * dout[:, :, :n], dout[:, :, n:len(rows)]], dim=2)
        L = (entries @ place.T).reshape(-1, n, n)
        dL = (dentries @ place.T).reshape(-1, n, n, n)                                          # [b, k] = dL/dq_k
        M = L @ L.transpose(1, 2) + EPS * eye
        dM = dL @ L[:, None].transpose(2, 3) + L[:, None] @ dL.transpose(2, 3)                  # [b, k] = dM/dq_k
        Mdot = torch.einsum("bkij,bk->bij", dM, qd)
        c = torch.einsum("bij,bj->bi", Mdot, qd) - 0.5 * torch.einsum("bkij,bi,bj->bk", dM, qd, qd)
        g = POTENTIAL_SCALE * dout[:, :, -1]
        return torch.einsum("bij,bj->bi", M, qdd) + c + g

    # ---- func: per sample, jacfwd and grad, vmap over the batch
    def outputs(params, q):
        h = torch.cat([torch.cos(q), torch.sin(q)])
        for W, b in zip(params[0:-2:2], params[1:-2:2], strict=True):
            h = isru(W @ h + b)
        return params[-2] @ h + params[-1]

    def mass_matrix(params, q):
        out = outputs(params, q)
        L = (place @ torch.cat([torch.nn.functional.softplus(out[:n]), out[n:len(rows)]])).reshape(n, n)
        return L @ L.T + EPS * eye

    def torque_one(params, q, qd, qdd):
        M = mass_matrix(params, q)
        dM = jacfwd(mass_matrix, argnums=1)(params, q)           # (n, n, n): [i, j, k] = dM_ij / dq_k
        c = (dM @ qd) @ qd - 0.5 * torch.einsum("ijk,i,j->k", dM, qd, qd)
        g = POTENTIAL_SCALE * grad(lambda q_: outputs(params, q_)[-1])(q)
        return M @ qdd + c + g

    torque = {"jet": torque_jet, "func": vmap(torque_one, in_dims=(None, 0, 0, 0))}[peer]

    def loss(params, q, qd, qdd, target, inv_scale):
        return torch.mean((torque(params, q, qd, qdd) * inv_scale - target) ** 2)

    theta0 = [torch.tensor(a, dtype=torch.float32) for layer in unflatten(model.get_params(), sizes) for a in layer]
    kept = [torch.tensor(np.array(a), dtype=torch.float32)
            for layer in unflatten(model.trainable_mask, sizes) for a in layer]
    first = float(loss(theta0, q_all[:128], qd_all[:128], qdd_all[:128], target_all[:128], inv_all[:128]))
    course_first = float(definition.loss(model.get_params(), model.architecture, tuple(a[:128] for a in batch)))

    def train(steps):
        params = [p.clone().requires_grad_() for p in theta0]
        average = [p.clone() for p in theta0]
        optimizer = torch.optim.Adam(params, lr=model.lr, betas=(Adam.b1, Adam.b2), eps=Adam.eps)
        generator = torch.Generator().manual_seed(0)
        t0 = time.perf_counter()
        for t in range(1, steps + 1):
            i = torch.randint(0, len(q_all), (model.batch_size,), generator=generator)
            optimizer.zero_grad()
            loss(params, q_all[i], qd_all[i], qdd_all[i], target_all[i], inv_all[i]).backward()
            with torch.no_grad():
                for p, k in zip(params, kept, strict=True):
                    p.grad.mul_(k)                                 # only the weights the DeLaN trains (trainable_mask)
            optimizer.step()
            d = min(Adam.decay, (t - 1) / (t + 8))
            with torch.no_grad():
                for a, p in zip(average, params, strict=True):
                    a.lerp_(p, 1 - d)                                  # average + (1 - d)(theta - average)
        seconds = time.perf_counter() - t0
        return seconds, np.concatenate([a.numpy().astype(float).reshape(-1) for a in average])

    return train, first, course_first


def main(rounds=3, steps=2000, peer="jet"):
    try:
        import torch  # noqa: F401
    except ImportError:
        print("PyTorch is not installed: skipped (pip install torch==2.13.0 to run it)")
        return
    race(f"PyTorch-{peer}", lambda model, batch: torch_peer(model, batch, peer), 0.15, rounds, steps)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--peer", choices=("jet", "func"), default="jet")
    args = parser.parse_args()
    main(args.rounds, args.steps, args.peer)
    sys.exit(0)
