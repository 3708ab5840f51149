"""Independent truths the checks compare with (closed forms, finite differences, no learner code), and the
inputs the checks try answers on.

In a notebook the inputs are seeded, so a hint can be reproduced.  The grader's judge sets SALT, a random number
it never sends to the learner's kernel: inputs are drawn from (SALT, seed), test chains get random masses and
lengths, fixed cases come in a random order, so no memorised table of inputs can stand in for an answer."""
import numpy as np

from lesson_lib.facts import QD_MAX
from lesson_lib.physics.chain import PlanarChain, double_pendulum

SALT = None         # set by the grader's judge (lesson_tools.grading.clean): inputs no one can predict


def grading():
    """True while the grader's judge runs the checks (SALT set)."""
    return SALT is not None


def rng(seed):
    """The generator a check draws its inputs from: `seed` alone in a notebook, (SALT, seed) when grading."""
    return np.random.default_rng(seed if SALT is None else (SALT, seed))


def shuffled(items, seed):
    """`items` as they are in a notebook; in a random order when grading."""
    items = list(items)
    return items if SALT is None else [items[k] for k in rng(seed).permutation(len(items))]


def random_chain(n, generator):
    """A planar chain of n links with random masses, lengths, centres of mass and inertias."""
    m, l = generator.uniform(0.5, 2.0, n), generator.uniform(0.5, 1.5, n)
    return PlanarChain(m=m, l=l, lc=l * generator.uniform(0.3, 0.7, n), I=m * l**2 / 12 * generator.uniform(0.5, 2, n))


def two_link():
    """The double pendulum of the lesson in a notebook; a random 2-link chain when grading."""
    return double_pendulum() if SALT is None else random_chain(2, rng(1002))


def closed_form_mass_matrix(chain, q):
    """Textbook M(q) of a planar 2-link chain (q1 from the downward vertical, q2 relative), no RNEA involved."""
    (m1, m2), (l1, _), (c1, c2), (I1, I2) = chain.m, chain.l, chain.lc, chain.I
    cos2 = np.cos(q[1])
    M11 = I1 + I2 + m1 * c1**2 + m2 * (l1**2 + c2**2 + 2 * l1 * c2 * cos2)
    M12 = I2 + m2 * (c2**2 + l1 * c2 * cos2)
    return np.array([[M11, M12], [M12, I2 + m2 * c2**2]])


def mass_matrix_derivative_fd(chain, q, h=1e-5):
    """dM/dq of the truth by central differences, indexed [k, i, j] = dM_ij / dq_k (error ~ 1e-10)."""
    q = np.asarray(q, dtype=float)
    E = np.eye(chain.n_dof) * h
    return np.stack([(chain.mass_matrix(q + e) - chain.mass_matrix(q - e)) / (2 * h) for e in E])


def uniform_rods(m, l, g, nodes=4):
    """A PlanarChain of uniform rods (m, l) under gravity g, lc = (1/m) ∫ x dm and I = ∫ (x - lc)^2 dm computed by
    Gauss-Legendre quadrature (exact here): no rod formula is written here."""
    m, l = np.asarray(m, dtype=float), np.asarray(l, dtype=float)
    t, w = np.polynomial.legendre.leggauss(nodes)                  # nodes and weights on [-1, 1]
    x = (t[None, :] + 1) / 2 * l[:, None]                          # points along each rod, (links, nodes)
    dm = w[None, :] / 2 * m[:, None]                               # the mass each node stands for
    lc = np.sum(x * dm, axis=1) / m
    inertia = np.sum((x - lc[:, None]) ** 2 * dm, axis=1)
    return PlanarChain(m=m, l=l, lc=lc, I=inertia, g=g)


def three_link():
    """A 3-link chain with unequal links, to catch code that only works for 2 joints (random ones when grading)."""
    if SALT is not None:
        return random_chain(3, rng(1003))
    # pragma: no mutate block (any three unequal links serve: every check compares with this chain's own RNEA)
    return PlanarChain(m=[1.5, 0.8, 0.4], l=[1.1, 0.7, 0.5], lc=[0.6, 0.2, 0.35], I=[0.12, 0.05, 0.01])


def random_states(n, count, seed, qd_max=QD_MAX):
    """`count` seeded states (q, qd), each (count, n): q on the whole circle, |qd| <= qd_max."""
    generator = rng(seed)
    return generator.uniform(-np.pi, np.pi, (count, n)), generator.uniform(-qd_max, qd_max, (count, n))
