"""Right and wrong answers for every registered check, keyed by check name (tests/test_checks.py uses them).

They live here, not in lesson_lib, because learners can read lesson_lib.  RIGHT[name] is a correct answer;
WRONG[name] maps hint keys to a plausible wrong answer (or a list of them) that must get exactly that hint: every
hint a check writes by hand (its hints and raised hints) is reached by one; its variations (the mistakes it
names by computing them, lesson_course.checks.diagnosis) are tried as answers themselves, by
tests/test_checks_diagnosis.py, and drilled here where an issue named an example.  It may also drill a general
hint (framework.GENERAL_HINTS: an exception of a kind the framework names, a pattern, a non-finite result).  An
answer that raises is written as a def whose raising line is what its FAIL line must quote.  A registered check
without cases here, or a hand-written hint without a wrong answer, fails tests/test_checks.py.  None of these is
one of benchmarks/bench_wrong_answers.py's answers (tests/test_checks_diagnosis.py checks).
"""
import numpy as np

from lesson_course import checks
from lesson_lib import DeLaN, PlanarChain, double_pendulum, facts
from lesson_lib.control.laws import KD, KP


# ---------------------------------------------------------------------- helpers that write answers
def valid_inertia(smallest, symmetric=True, at_least_zero=False, either=False):
    """is_valid_inertia as the notebook's template writes it, with `smallest` computed the learner's way (either:
    the final line joins the two tests with `or`)."""
    def answer(M, tol=1e-9):
        M = np.asarray(M, dtype=float)
        asymmetry = np.max(np.abs(M - M.T))
        s = smallest(M)
        positive = s >= 0 if at_least_zero else s > 0
        if either:
            return bool(asymmetry <= tol or positive)
        return bool((asymmetry <= tol or not symmetric) and positive)
    return answer


def mass_matrix_by(call_rnea, store="column", columns=None):
    """mass_matrix_from_rnea with the RNEA called as call_rnea(chain, q, j, n) for j in `columns`."""
    def answer(chain, q):
        n = chain.n_dof
        M = np.zeros((n, n))
        for j in (columns(n) if columns else range(n)):
            tau = call_rnea(chain, q, j, n)
            if store == "column":
                M[:, j] = tau
            else:
                M[j, j] = tau[j]
        return M
    return answer


def unit(j, n, value=1.0):
    e = np.zeros(n)
    e[j] = value
    return e


def christoffel(dM, qd, a=0.5, b=0.5, c=-0.5):
    """c_i = sum_jk (a dM[k, i, j] + b dM[j, i, k] + c dM[i, j, k]) qd_j qd_k; (0.5, 0.5, -0.5) is right."""
    return (a * np.einsum("kij,j,k->i", dM, qd, qd) + b * np.einsum("jik,j,k->i", dM, qd, qd)
            + c * np.einsum("ijk,j,k->i", dM, qd, qd))


def derivative_index_last(dM, qd):
    """The Christoffel sum of a learner who reads dM_ij/dq_k as dM[i, j, k]."""
    n = len(qd)
    return np.array([sum(0.5 * (dM[i, j, k] + dM[i, k, j] - dM[j, k, i]) * qd[j] * qd[k]
                         for j in range(n) for k in range(n)) for i in range(n)])


def jet_layer(z=lambda W, b, h: h @ W.T + b, rows=lambda W, b, h, dh, s, ds, z: ds(z)[:, None, :] * (dh @ W.T)):
    """layer_jet with the pre-activation z(W, b, h) and the derivative rows rows(W, b, h, dh, s, ds, z)."""
    def answer(W, b, h, dh, s, ds):
        z_ = z(W, b, h)
        return s(z_), rows(W, b, h, dh, s, ds, z_)
    return answer


def errors(err, lam):
    """errors_at returning err(M_hat, M) and lam(M_hat, M)."""
    def answer(model, chain, q):
        M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
        return err(M_hat, M), lam(M_hat, M)
    return answer


def triple(m=1.0, l=(1.0, 0.8, 0.6), lc=lambda l: l / 2, I=lambda m, l: m * l**2 / 12, g=9.81):
    def answer():
        length, mass = np.array(l), np.full(len(l), m)
        return PlanarChain(m=mass, l=length, lc=lc(length), I=I(mass, length), g=g)
    return answer


class FakeTrainedDeLaN(DeLaN):
    """A 'trained' 3-joint DeLaN whose M is the truth plus `offset` I (so the check runs without training)."""

    def __init__(self, offset, n_dof=3, step=1000):
        super().__init__(n_dof=n_dof)
        self.step, self._offset, self._chain = step, offset, checks.reference_triple_pendulum()

    def mass_matrix(self, q):
        return self._chain.mass_matrix(q) + self._offset * np.eye(3)


def train_two_joints(chain, data):
    """train_triple_delan with n_dof left at its default, 2: fit refuses the 3-joint data."""
    model = DeLaN(seed=0, lr=1e-2, batch_size=96)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=10)
    return model


def passes(criterion):
    """lesson_passes from a criterion on (e, lam, T), T the current threshold (read when called)."""
    return lambda e, lam: criterion(e, lam, facts.PASS_MAX_ERROR)


def step_of(update):
    """symplectic_euler_step from update(f, q, qd, dt) -> (q_new, qd_new)."""
    return lambda f, q, qd, dt: update(f, q, qd, dt)


smallest_eig = lambda M: np.linalg.eigvalsh(M).min()        # noqa: E731
right_rnea = lambda chain, q, j, n: chain.rnea(q, np.zeros(n), unit(j, n), gravity=False)     # noqa: E731
right_err = lambda M_hat, M: np.abs(M_hat - M).max()        # noqa: E731
right_lam = lambda M_hat, M: np.linalg.eigvalsh(M_hat).min()  # noqa: E731


def control_law(commanded=lambda qdd_d, e, e_dot, kp, kd: qdd_d + kd * e_dot + kp * e,
                torque=lambda M, a, c, g: M @ a + c + g, error=lambda want, have: want - have):
    """computed_torque from the commanded acceleration and the torque written the learner's way."""
    def answer(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
        a = commanded(qdd_d, error(q_d, q), error(qd_d, qd), kp, kd)
        return torque(model.mass_matrix(q), a, model.coriolis(q, qd), model.gravity(q))
    return answer


def symplectic(f, q, qd, dt):
    qd_new = qd + dt * f(q, qd)
    return q + dt * qd_new, qd_new


# ---------------------------------------------------------------------- answers that raise, or give NaN
def total_mass_by_name(chain):
    return chain.mass.sum()                                    # a chain's masses are chain.m


def smallest_uncalled(M, tol=1e-9):
    M = np.asarray(M, dtype=float)
    smallest = np.linalg.eigvalsh(M).min                       # .min without ()
    return bool(np.max(np.abs(M - M.T)) <= tol and smallest > 0)


def kinetic_misspelled(M, qd):
    Mqd = M @ qd                                               # noqa: F841 -- the template's line
    return 0.5 * qd @ Mdq                                      # noqa: F821 -- a typo


def mass_matrix_asked(chain, q):
    return chain.mass_matrix(q)                                # offered: rnea only


def mass_matrix_unfilled(chain, q):
    n = chain.n_dof
    M = np.full((n, n), np.nan)
    for j in range(n - 1):                                     # the last column never filled
        M[:, j] = right_rnea(chain, q, j, n)
    return M


def mass_matrix_shifted(chain, q):
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        M[:, j - 1] = right_rnea(chain, q, j, n)               # column j - 1
    return M


def jet_unfilled(W, b, h, dh, s, ds):
    z = h @ W.T + b
    da = np.full(dh.shape[:2] + (len(b),), np.nan)
    da[:, 0] = ds(z) * (dh[:, 0] @ W.T)                        # joint 0 only
    return s(z), da


def jet_over_units(W, b, h, dh, s, ds):
    z = h @ W.T + b
    da = np.zeros(dh.shape[:2] + (len(b),))
    for k in range(len(b)):                                    # k over the units, not the joints
        da[:, k] = ds(z) * (dh[:, k] @ W.T)
    return s(z), da


def jet_over_inputs(W, b, h, dh, s, ds):
    """One output unit at a time, the loop running over h's units (the inputs) instead of W's rows: right for a
    square layer, output units past the inputs left at 0 in a wider one."""
    a, da = np.zeros((len(h), len(b))), np.zeros(dh.shape[:2] + (len(b),))
    for j in range(h.shape[1]):
        z = h @ W[j] + b[j]
        a[:, j], da[:, :, j] = s(z), ds(z)[:, None] * (dh @ W[j])
    return a, da


def jet_rows_over_inputs(W, b, h, dh, s, ds):
    """The value right, the derivative rows one output unit at a time over h's units (the inputs)."""
    z = h @ W.T + b
    da = np.zeros(dh.shape[:2] + (len(b),))
    for j in range(h.shape[1]):
        da[:, :, j] = ds(z[:, j])[:, None] * (dh @ W[j])
    return s(z), da


def coriolis_assigned(dM, qd):
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                c[i] = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k]) * qd[j] * qd[k]    # = for +=
    return c


def coriolis_one_loop(dM, qd):
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for k in range(n):                                     # the loop over j left out
            c[i] += 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k]) * qd[j] * qd[k]   # noqa: F821
    return c


def errors_uncalled(model, chain, q):
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.abs(M_hat - M).max, np.linalg.eigvalsh(M_hat).min()      # .max without ()


def errors_uncalled_raising(model, chain, q):
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return float(np.abs(M_hat - M).max), float(np.linalg.eigvalsh(M_hat).min())      # float() of the method


def passes_without_else(max_error, min_eig):
    if max_error < facts.PASS_MAX_ERROR and min_eig > 0:
        return True                                            # and None otherwise


def passes_misspelled(max_error, min_eig):
    return max_error < PASS_MAX_ERRROR and min_eig > 0         # noqa: F821


def euler_unbound(f, q, qd, dt):
    q_new = q + dt * qd_new                                    # noqa: F821 -- used before it is set
    qd_new = qd + dt * f(q, qd)
    return q_new, qd_new


def euler_uncalled(f, q, qd, dt):
    qd_new = qd + dt * f                                       # f not called
    return q + dt * qd_new, qd_new


def triple_by_keyword():
    return PlanarChain(masses=np.ones(3), lengths=np.array([1.0, 0.8, 0.6]))


def triple_from_tuple():
    l = (1.0, 0.8, 0.6)                                        # noqa: E741
    return PlanarChain(m=np.ones(3), l=np.array(l), lc=np.array(l) / 2, I=1.0 * l**2 / 12)


def delan_not_returned(chain, data):
    model = DeLaN(n_dof=3)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=10)     # trained, but not returned


def delan_learning_rate(chain, data):
    # the learning rate's keyword is lr
    model = DeLaN(n_dof=3, learning_rate=1e-2)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=10)
    return model


def torque_coriolis_of_q(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    a = qdd_d + kd * (qd_d - qd) + kp * (q_d - q)
    return model.mass_matrix(q) @ a + model.coriolis(q) + model.gravity(q)   # no qd


def second_difference_past_the_end(q, h):
    out = np.zeros((len(q) - 2, q.shape[1]))
    for k in range(1, len(q)):                                 # up to the last sample
        out[k - 1] = (q[k + 1] - 2 * q[k] + q[k - 1]) / h**2
    return out


def second_difference_of_joint_0(q, h):
    out = np.zeros((len(q) - 2, q.shape[1]))
    for j in range(q.shape[1]):
        out[:, j] = (q[2:, 0] - 2 * q[1:-1, 0] + q[:-2, 0]) / h**2      # 0 where j belongs
    return out


def second_difference_unfilled(q, h):
    out = np.full((len(q) - 2, q.shape[1]), np.nan)
    for k in range(1, len(q) - 2):                             # the last inner sample left out
        out[k - 1] = (q[k + 1] - 2 * q[k] + q[k - 1]) / h**2
    return out


def smallest_2x2(M):
    """The smaller eigenvalue by the 2 x 2 formula, tr/2 - sqrt(tr^2/4 - det): right for 2 x 2 matrices only."""
    tr, det = np.trace(M), np.linalg.det(M)
    return tr / 2 - np.sqrt(max(tr**2 / 4 - det, 0.0))


def mass_matrix_in_degrees(chain, q):
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        M[:, j] = chain.rnea(np.degrees(q), np.zeros(n), unit(j, n), gravity=False)     # degrees for radians
    return M


def jet_W_at_h(W, b, h, dh, s, ds):
    # h has one row per sample, so h @ W.T: W @ h raises
    z = W @ h + b
    return s(z), ds(z)[:, None, :] * (dh @ W.T)


def coriolis_from_one(dM, qd):
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(1, n):                              # k from 1
                c[i] += 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k]) * qd[j] * qd[k]
    return c


def coriolis_below_i(dM, qd):
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(i):                                     # j below i only
            for k in range(n):
                c[i] += 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k]) * qd[j] * qd[k]
    return c


def euler_in_place(f, q, qd, dt):
    qd += dt * f(q, qd)                                        # the caller's arrays, changed
    q += dt * qd
    return q, qd


def delan_fit_tau_for_qdd(chain, data):
    model = DeLaN(n_dof=3, seed=0, lr=1e-2, batch_size=96, hidden=(16, 16))
    model.fit(data["q"], data["qd"], data["tau"], data["qdd"], steps=600)      # tau and qdd swapped
    return model


def kinetic_stopped_early(M, qd):
    Mqd = M @ qd
    return sum(0.5 * qd[i] * Mqd[i] for i in range(len(qd) - 1))      # the last joint left out


def jet_value_from_rows(W, b, h, dh, s, ds):
    z = dh[:, 0] @ W.T + b                                     # joint 0's rows where h belongs
    return s(z), ds(z)[:, None, :] * (dh @ W.T)


def jet_rows_reshaped(W, b, h, dh, s, ds):
    z = h @ W.T + b
    rows = (dh.transpose(1, 0, 2) @ W.T).reshape(dh.shape[0], dh.shape[1], -1)   # joints first, then read back
    return s(z), ds(z)[:, None, :] * rows                                          # as samples first


def coriolis_product(dM, qd):
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                c[i] += 0.5 * (dM[k, i, j] * dM[j, i, k] - dM[i, j, k]) * qd[j] * qd[k]    # * for +
    return c


def torque_feed_forward_at_the_plan(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    feedback = kd * (qd_d - qd) + kp * (q_d - q)
    return (model.mass_matrix(q_d) @ qdd_d + model.mass_matrix(q) @ feedback    # M(q_d) for the feed-forward
            + model.coriolis(q, qd) + model.gravity(q))


def second_difference_from_linspace(q, h):
    t = np.linspace(0, len(q) * h, len(q))                     # T samples over T h: one step too long
    dt = t[1] - t[0]
    return (q[2:] - 2 * q[1:-1] + q[:-2]) / dt**2


def second_difference_ends_copied(q, h):
    out = (q[2:] - 2 * q[1:-1] + q[:-2]) / h**2
    out[0], out[-1] = out[1], out[-2]                          # the ends smoothed with their neighbours
    return out


def second_difference_normalised(q, h):
    q = q / np.abs(q).max(axis=0)                              # each joint scaled to at most 1 first
    return (q[2:] - 2 * q[1:-1] + q[:-2]) / h**2


def torque_in_parts(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    a = qdd_d + kd * (qd_d - qd) + kp * (q_d - q)
    M, c, g = model.mass_matrix(q), model.coriolis(q, qd), model.gravity(q)
    return M @ a, c, g                                         # three terms, never added


# ---------------------------------------------------------------------- the cases
RIGHT = {
    "total_mass": lambda chain: chain.m.sum(),
    "is_valid_inertia": valid_inertia(smallest_eig),
    "kinetic_energy": lambda M, qd: 0.5 * qd @ (M @ qd),
    "mass_matrix_from_rnea": mass_matrix_by(right_rnea),
    "layer_jet": jet_layer(),
    "coriolis_from_dM": christoffel,
    "errors_at": errors(right_err, right_lam),
    "lesson_passes": passes(lambda e, lam, T: e < T and lam > 0),
    "symplectic_euler_step": step_of(symplectic),
    "triple_pendulum": triple(),
    "triple_delan": lambda chain, data: FakeTrainedDeLaN(0.01),
    "computed_torque": control_law(),
    "second_difference": lambda q, h: (q[2:] - 2 * q[1:-1] + q[:-2]) / h**2,
}

WRONG = {
    "total_mass": {
        "link 0": lambda chain: chain.m[0],
        "not summed": lambda chain: chain.m,
        "wrapped": lambda chain: [chain.m.sum()],                       # issue 57: a list for a number
        "shape": lambda chain: np.stack([chain.m, chain.l]),
        "count": lambda chain: float(len(chain.m)),                     # counts the links
        "mean": lambda chain: float(np.mean(chain.m)),
        "mass power": lambda chain: chain.m.sum() + chain.m[0] * chain.m[-1],   # a product of masses
        "link missing": lambda chain: chain.m[0] + chain.m[-1],         # the end links only
        "links weighted": [lambda chain: np.sum(chain.m) + chain.m[0],  # total = chain.m[0], then += every m
                           lambda chain: np.cumsum(chain.m).sum()],     # the running totals added up
        "not masses alone": lambda chain: np.sum(chain.m * chain.l),     # m read as a mass per metre
        "not finite": lambda chain: np.nan,                             # a placeholder left in
        "chain.m": total_mass_by_name,
        "uncalled": lambda chain: chain.m.sum,                          # the method, not the total
        "sum uncalled": lambda chain: float(chain.m.sum),               # the same, raising in float()
    },
    "is_valid_inertia": {
        "bool": lambda M: np.linalg.eigvalsh(M).min(),
        "entries": valid_inertia(lambda M: M.min()),
        "largest": valid_inertia(lambda M: np.linalg.eigvalsh(M)[-1]),
        "zero": valid_inertia(smallest_eig, at_least_zero=True),
        "symmetry": valid_inertia(smallest_eig, symmetric=False),
        "size": valid_inertia(smallest_2x2),                            # the 2 x 2 formula on a 3 x 3 matrix
        "sign lost": valid_inertia(lambda M: np.linalg.norm(M)),        # the size of M
        "not eigenvalues": valid_inertia(lambda M: np.min(2 * np.diag(M) - np.abs(M).sum(axis=1))),   # Gershgorin
        "not the smallest": valid_inertia(lambda M: np.median(np.linalg.eigvalsh(M))),    # the typical one
        "differs": valid_inertia(lambda M: np.linalg.eigh(M)[1].min()),  # eigh's eigenvectors, not its eigenvalues
        "determinant": valid_inertia(lambda M: np.linalg.det(M)),
        "diagonal": valid_inertia(lambda M: np.diag(M).min()),
        "min uncalled": smallest_uncalled,
        "or": valid_inertia(smallest_eig, either=True),                 # `or` in the final line
    },
    "kinetic_energy": {
        "shape": lambda M, qd: M @ qd,
        "not summed": lambda M, qd: 0.5 * qd * (M @ qd),               # entry by entry, never summed
        "half": lambda M, qd: qd @ M @ qd,
        "sign": lambda M, qd: -0.5 * qd @ M @ qd,
        "no M": lambda M, qd: 0.5 * qd @ qd,
        "qd power": lambda M, qd: 0.5 * qd @ M @ qd + qd[0],
        "M power": lambda M, qd: 0.5 * qd @ np.linalg.solve(M, qd),      # M^-1 qd for M qd
        "joint ignored": kinetic_stopped_early,
        "differs": lambda M, qd: 0.5 * np.sum(M * qd**2),                # 1/2 m v^2 entry by entry
        "not finite": lambda M, qd: np.full((), np.nan),
        "undefined": kinetic_misspelled,
    },
    "mass_matrix_from_rnea": {
        "reshaped": lambda chain, q: np.concatenate([right_rnea(chain, q, j, chain.n_dof)
                                                     for j in range(chain.n_dof)]),
        "shape": lambda chain, q: mass_matrix_by(right_rnea)(chain, q)[:, :1],
        "no rnea": lambda chain, q: np.eye(chain.n_dof),
        "gravity": mass_matrix_by(lambda chain, q, j, n: chain.rnea(q, np.zeros(n), unit(j, n))),
        "degrees": mass_matrix_in_degrees,                              # issue 57's example
        "configuration": mass_matrix_by(lambda chain, q, j, n: chain.rnea(q + 0.1, np.zeros(n), unit(j, n),
                                                                          gravity=False)),
        "slots": mass_matrix_by(lambda chain, q, j, n: chain.rnea(q, unit(j, n), np.zeros(n), gravity=False)),
        "velocity": [mass_matrix_by(lambda chain, q, j, n: chain.rnea(q, np.ones(n), unit(j, n), gravity=False)),
                     mass_matrix_by(lambda chain, q, j, n: chain.rnea(q, unit(j, n), unit(j, n), gravity=False))],
        "unit": [mass_matrix_by(lambda chain, q, j, n: chain.rnea(q, np.zeros(n), unit(j, n, value=j),
                                                                  gravity=False)),
                 mass_matrix_by(lambda chain, q, j, n: chain.rnea(q, np.zeros(n), np.zeros(n), gravity=False))],
        "stopped early": mass_matrix_by(right_rnea, columns=lambda n: range(n - 1)),
        "repeated": mass_matrix_by(lambda chain, q, j, n: right_rnea(chain, q, n - 1, n)),   # a stale j = n - 1
        "columns": mass_matrix_by(right_rnea, columns=lambda n: [n - 1]),     # the last column alone asked for
        "unit scaled": mass_matrix_by(lambda chain, q, j, n: chain.rnea(q, np.zeros(n), np.degrees(unit(j, n)),
                                                                        gravity=False)),
        "store": mass_matrix_by(right_rnea, store="diagonal"),
        "shifted": mass_matrix_shifted,
        "differs": lambda chain, q: mass_matrix_by(right_rnea)(chain, q) * (1 + np.eye(chain.n_dof)),
        "not finite": mass_matrix_unfilled,
        "not offered": mass_matrix_asked,
    },
    "layer_jet": {
        "pair": lambda W, b, h, dh, s, ds: jet_layer()(W, b, h, dh, s, ds)[1],
        "shape": jet_layer(rows=lambda W, b, h, dh, s, ds, z: np.swapaxes(ds(z)[:, None, :] * (dh @ W.T), 1, 2)),
        "transpose": [lambda W, b, h, dh, s, ds: (s(h @ W + b), ds(h @ W + b)[:, None, :] * (dh @ W)),
                      jet_layer(rows=lambda W, b, h, dh, s, ds, z: ds(z)[:, None, :] * (dh @ W))],   # rows only
        "value": lambda W, b, h, dh, s, ds: (h @ W.T + b, jet_layer()(W, b, h, dh, s, ds)[1]),      # s forgotten
        "s for slope": jet_layer(rows=lambda W, b, h, dh, s, ds, z: s(z)[:, None, :] * (dh @ W.T)),
        "no slope": jet_layer(rows=lambda W, b, h, dh, s, ds, z: dh @ W.T),
        "slope without bias": jet_layer(rows=lambda W, b, h, dh, s, ds, z: ds(h @ W.T)[:, None, :] * (dh @ W.T)),
        "bias in rows": jet_layer(rows=lambda W, b, h, dh, s, ds, z: ds(z)[:, None, :] * (dh @ W.T + b)),
        "through s": jet_layer(rows=lambda W, b, h, dh, s, ds, z: s(dh @ W.T)),
        "order": jet_layer(rows=lambda W, b, h, dh, s, ds, z: (ds(z)[:, None, :] * dh) @ W.T),
        "no W": jet_layer(rows=lambda W, b, h, dh, s, ds, z: ds(z)[:, None, :] * dh),
        "differs": [jet_layer(rows=lambda W, b, h, dh, s, ds, z: ds(z)[:, None, :] ** 2 * (dh @ W.T)),  # slope twice
                    jet_layer(rows=lambda W, b, h, dh, s, ds, z: ds(z[0]) * (dh @ W.T))],  # the first sample's slope
        "joint axis": jet_layer(rows=lambda W, b, h, dh, s, ds, z: ds(z) * (dh @ W.T)),  # no joint axis on s'(z)
        "shapes": jet_W_at_h,                                           # issue 57: W @ h raising on that line
        "not finite": jet_unfilled,
        "joint index": jet_over_units,
        "units": [jet_over_inputs, jet_rows_over_inputs],
        "value from rows": jet_value_from_rows,
        "rows not linear": jet_layer(rows=lambda W, b, h, dh, s, ds, z: ds(dh @ W.T + b)),    # s' of W dh + b
        "joints mixed": jet_rows_reshaped,
    },
    "coriolis_from_dM": {
        "summed away": lambda dM, qd: christoffel(dM, qd).sum(),          # summed over i as well
        "shape": lambda dM, qd: christoffel(dM, qd)[:-1],
        "twice": lambda dM, qd: christoffel(dM, qd, 1.0, 1.0, -1.0),
        "third term missing": lambda dM, qd: christoffel(dM, qd, 0.5, 0.5, 0.0),
        "third term sign": lambda dM, qd: christoffel(dM, qd, 0.5, 0.5, 0.5),
        "third term no half": lambda dM, qd: christoffel(dM, qd, 0.5, 0.5, -1.0),
        "index": derivative_index_last,
        "added term missing": lambda dM, qd: christoffel(dM, qd, 0.5, 0.0, -0.5),
        "assigned": coriolis_assigned,
        "no velocity": lambda dM, qd: christoffel(dM, np.ones_like(qd)),   # the Christoffel symbols summed alone
        "first j or k": coriolis_from_one,                              # a loop mistake: range(1, n)
        "j up to i": coriolis_below_i,                                  # a loop mistake: range(i)
        "qd power": lambda dM, qd: christoffel(dM, qd) + 0.01 * qd,
        "dM power": coriolis_product,
        "differs": lambda dM, qd: christoffel(dM, qd, 0.5, 0.0, 0.5),     # a term dropped and another's sign
        "loop variable": coriolis_one_loop,
    },
    "errors_at": {
        "none": lambda model, chain, q: None,
        "pair": lambda model, chain, q: np.abs(model.mass_matrix(q) - chain.mass_matrix(q)).max(),
        "mean": errors(lambda M_hat, M: np.abs(M_hat - M).mean(), right_lam),
        "error": errors(lambda M_hat, M: np.abs(M_hat).max(), right_lam),
        "truth": errors(right_err, lambda M_hat, M: np.linalg.eigvalsh(M).min()),
        "ascending": errors(right_err, lambda M_hat, M: np.linalg.eigvalsh(M_hat)[:, -1].min()),
        "mean eigenvalue": errors(right_err, lambda M_hat, M: np.linalg.eigvalsh(M_hat).mean()),
        "differs": errors(right_err, lambda M_hat, M: np.linalg.eigvalsh(M_hat).min() + 0.1),
        "pair order": lambda model, chain, q: errors(right_err, right_lam)(model, chain, q)[::-1],
        "per column": errors(right_err, lambda M_hat, M: np.linalg.eigvalsh(M_hat).min(axis=0)),
        "per axis": errors(lambda M_hat, M: np.abs(M_hat - M).max(axis=(1, 2)), right_lam),
        "uncalled": errors_uncalled,
        "max uncalled": errors_uncalled_raising,
        "batch order": [lambda model, chain, q: errors(right_err, right_lam)(model, chain, q[:10]),   # a few only
                        # slices that hold the worst rows: right on the check's batch, wrong in another order
                        lambda model, chain, q: errors(right_err, right_lam)(model, chain, q[:len(q) // 2 + 1]),
                        lambda model, chain, q: errors(right_err, right_lam)(model, chain, q[::2]),
                        lambda model, chain, q: errors(right_err, right_lam)(model, chain, q[:-1]),    # range(B - 1)
                        lambda model, chain, q: errors(right_err, right_lam)(model, chain, q[1:])],
        "not an eigenvalue": errors(right_err, lambda M_hat, M: np.linalg.eigh(M_hat)[1].min()),   # eigenvectors
        "every entry": [errors(lambda M_hat, M: np.abs(np.diagonal(M_hat - M, axis1=1, axis2=2)).max(), right_lam),
                        errors(lambda M_hat, M: np.abs(M_hat - M)[:, 0].max(), right_lam)],     # the first row only
    },
    "lesson_passes": {
        "none": passes_without_else,
        "non-negative": passes(lambda e, lam, T: e < T and lam >= 0),
        "error only": passes(lambda e, lam, T: e < T),
        "eigenvalue only": passes(lambda e, lam, T: lam > 0),
        "inverted": passes(lambda e, lam, T: not (e < T and lam > 0)),
        "threshold": [passes(lambda e, lam, T: e < 1.25 * T and lam > 0),    # a threshold of its own
                      passes(lambda e, lam, T: e < 0.99 * T and lam > 0)],   # a safety margin below it
        "eigenvalue margin": passes(lambda e, lam, T: e < T and lam > 1e-3),   # a margin on the eigenvalue
        "differs": passes(lambda e, lam, T: (e < T) == (lam > 0)),           # compared with ==, not joined
        "error above": passes(lambda e, lam, T: e > T and lam > 0),           # the comparison turned round
        "arguments swapped": passes(lambda e, lam, T: lam < T and e > 0),
        "undefined": passes_misspelled,
        "not a bool": passes(lambda e, lam, T: "PASS" if e < T and lam > 0 else "FAIL"),
        "several": passes(lambda e, lam, T: [bool(e < T), bool(lam > 0), "both needed"]),    # a list of verdicts
    },
    "symplectic_euler_step": {
        "pair": step_of(lambda f, q, qd, dt: symplectic(f, q, qd, dt)[0]),
        "explicit": step_of(lambda f, q, qd, dt: (q + dt * qd, qd + dt * f(q, qd))),
        "pair order": step_of(lambda f, q, qd, dt: symplectic(f, q, qd, dt)[::-1]),
        "no dt": step_of(lambda f, q, qd, dt: (q + dt * (qd + f(q, qd)), qd + f(q, qd))),
        "minus": step_of(lambda f, q, qd, dt: (q + dt * (qd - dt * f(q, qd)), qd - dt * f(q, qd))),
        "trapezoid": step_of(lambda f, q, qd, dt: (q + dt * (qd + (qd + dt * f(q, qd))) / 2, qd + dt * f(q, qd))),
        "position update": step_of(lambda f, q, qd, dt: (symplectic(f, q, qd, dt)[0] + 0.5 * dt**2 * f(q, qd),
                                                         symplectic(f, q, qd, dt)[1])),
        "velocity update": step_of(lambda f, q, qd, dt: symplectic(               # f averaged over q and the
            lambda q, qd: (f(q, qd) + f(q + dt * qd, qd)) / 2, q, qd, dt)),       # moved q, as in Heun's step
        "differs": step_of(lambda f, q, qd, dt: (q + dt * qd + 0.5 * dt**2 * f(q, qd),            # Taylor, then
                                                 qd + dt * f(q + dt * qd + 0.5 * dt**2 * f(q, qd), qd))),  # f there
        "changed input": euler_in_place,                                # issue 57: qd += ...; q += ...
        "new velocity first": euler_unbound,
        "f uncalled": euler_uncalled,
        "q unchanged": step_of(lambda f, q, qd, dt: (q, symplectic(f, q, qd, dt)[1])),
    },
    "triple_pendulum": {
        "type": lambda: (np.ones(3), np.array([1.0, 0.8, 0.6])),
        "links": double_pendulum,
        "masses": triple(m=2.0),
        "order": triple(l=(0.6, 0.8, 1.0)),
        "lengths": triple(l=(1.0, 1.0, 1.0)),
        "lc at end": triple(lc=lambda l: l),
        "lc from pivot": triple(lc=lambda l: np.cumsum(l) - l / 2, I=lambda m, l: m * l**2 / 3),   # all from the ends
        "lc": triple(lc=lambda l: l / 3),
        "I about end": triple(I=lambda m, l: m * l**2 / 3, g=9.8),         # and g rounded (named after I)
        "inertia factor": triple(I=lambda m, l: m * l**2),
        "inertia": triple(I=lambda m, l: m * l**2 / 12 + 0.01 * l),
        "g": triple(g=9.8),
        "unit": triple(m=1000.0),                                         # masses in g
        "square": triple(I=lambda m, l: m * l / 12, g=9.8),               # and g rounded (named after I)
        "chain arguments": triple_by_keyword,
        "sequence": triple_from_tuple,
    },
    "triple_delan": {
        "type": [lambda chain, data: "model", delan_not_returned],
        "n_dof": train_two_joints,                                      # DeLaN() then fit on 3-joint data
        "untrained": lambda chain, data: DeLaN(n_dof=3),
        "spd": lambda chain, data: FakeTrainedDeLaN(-10.0),
        "longer": lambda chain, data: FakeTrainedDeLaN(0.5),
        "settled": delan_fit_tau_for_qdd,                               # issue 57: fit(q, qd, tau, qdd)
        "not finite": lambda chain, data: FakeTrainedDeLaN(np.nan),     # a diverged training
        "fit arguments": delan_learning_rate,
    },
    "computed_torque": {
        "not summed": torque_in_parts,                                  # issue 57: return M @ a, c, g
        "shape": control_law(torque=lambda M, a, c, g: M * a + c + g),
        "sign": control_law(error=lambda want, have: have - want),
        "feed-forward": control_law(commanded=lambda qdd_d, e, e_dot, kp, kd: kd * e_dot + kp * e),
        "gains": control_law(commanded=lambda qdd_d, e, e_dot, kp, kd: qdd_d + kp * e_dot + kd * e),
        "notebook's gains": control_law(commanded=lambda qdd_d, e, e_dot, kp, kd: qdd_d + KD * e_dot + KP * e),
        "damping from kp": control_law(commanded=lambda qdd_d, e, e_dot, kp, kd: qdd_d + 2 * np.sqrt(kp) * e_dot
                                       + kp * e),
        "no M": control_law(torque=lambda M, a, c, g: a + c + g),
        "outside M": lambda model, q, qd, q_d, qd_d, qdd_d, kp, kd: (
            model.mass_matrix(q) @ qdd_d + kp * (q_d - q) + kd * (qd_d - qd) + model.coriolis(q, qd)
            + model.gravity(q)),
        "no c": control_law(torque=lambda M, a, c, g: M @ a + g),
        "no g": control_law(torque=lambda M, a, c, g: M @ a + c),
        "no c, g": control_law(torque=lambda M, a, c, g: M @ a),
        "minus c, g": control_law(torque=lambda M, a, c, g: M @ a - c - g),
        "c through M": control_law(torque=lambda M, a, c, g: M @ (a + c) + g),
        "through M": control_law(torque=lambda M, a, c, g: M @ a + c + g + a),
        "gravity part": control_law(torque=lambda M, a, c, g: M @ a + c + 9.81 * g),     # g times 9.81 again
        "coriolis part": control_law(torque=lambda M, a, c, g: M @ a + 0.5 * c + g),      # a 1/2 as in T
        "desired part": lambda model, q, qd, q_d, qd_d, qdd_d, kp, kd: (                   # qdd_d outside M
            qdd_d + model.mass_matrix(q) @ (kd * (qd_d - qd) + kp * (q_d - q)) + model.coriolis(q, qd)
            + model.gravity(q)),
        "feedback part": control_law(error=lambda want, have: np.abs(want - have)),        # errors as distances
        "parts": lambda model, q, qd, q_d, qd_d, qdd_d, kp, kd: (                          # c at the velocity error
            model.mass_matrix(q) @ (qdd_d + kd * (qd_d - qd) + kp * (q_d - q)) + model.coriolis(q, qd_d - qd)
            + model.gravity(q)),
        "differs": torque_feed_forward_at_the_plan,
        "no feedback": control_law(commanded=lambda qdd_d, e, e_dot, kp, kd: qdd_d),
        "g sign": control_law(torque=lambda M, a, c, g: M @ a + c - g),
        "c sign": control_law(torque=lambda M, a, c, g: M @ a - c + g),
        "model arguments": torque_coriolis_of_q,
    },
    "second_difference": {
        "axis": lambda q, h: np.diff(q, 2) / h**2,                          # along the joints
        "first": lambda q, h: np.diff(q, axis=0) / h,
        "rows": lambda q, h: np.gradient(np.gradient(q, h, axis=0), h, axis=0),
        "rows lost": lambda q, h: np.array([(q[k + 1] - 2 * q[k] + q[k - 1]) / h**2 for k in range(1, len(q) - 3)]),
        "h": lambda q, h: (q[2:] - 2 * q[1:-1] + q[:-2]) / h,
        "middle": lambda q, h: (q[2:] + 2 * q[1:-1] + q[:-2]) / h**2,
        "order": lambda q, h: ((q[2:] - 2 * q[1:-1] + q[:-2]) / h**2)[::-1],
        "straight line": lambda q, h: (q[2:] - q[1:-1]) / h**2 - (q[1:-1] - q[:-2]) / h,   # h twice on one side
        "ends": second_difference_ends_copied,
        "h power": lambda q, h: (q[2:] - 2 * q[1:-1] + q[:-2]) / (2 * h),     # the first difference's 2 h
        "not linear": second_difference_normalised,
        "differs": second_difference_from_linspace,
        "one joint": second_difference_of_joint_0,
        "no middle": [lambda q, h: (q[2:] - q[:-2]) / h**2, lambda q, h: (q[2:] + q[:-2]) / h**2],
        "not finite": second_difference_unfilled,
        "neighbour index": second_difference_past_the_end,
        "transposed": lambda q, h: ((q[2:] - 2 * q[1:-1] + q[:-2]) / h).T,     # (h once too: named later)
        "quarter": lambda q, h: (q[2:] - 2 * q[1:-1] + q[:-2]) / (2 * h)**2,
    },
}
