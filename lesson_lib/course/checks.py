"""Checks for the course's exercises: each prints exactly one deterministic line.

A check takes what the learner wrote (usually a function), runs it on cases whose answer comes from an
independent source (the RNEA in lesson_lib.physics.chain, a closed form, or a formula written out here), and prints:

    PASS: <exercise>
    FAIL: <exercise>: <what is wrong, numbers rounded>. Hint: <what to try>
    NOT ATTEMPTED: <exercise>: fill in the cell above, then run this cell again.

NOT ATTEMPTED is printed when the learner's code raises NotImplementedError (the stub left in place).
A check never raises: an exception from the learner's code becomes a FAIL line naming its type and message.
Anything the learner's code prints, and any warning, is swallowed, so the line stays the cell's only output
(nbval compares it, and the grader compares it with the teachers' PASS line).  The check returns None (nothing
is displayed under the cell); the outcome is kept in RESULTS[<exercise>] as "pass", "fail" or "not attempted".

Writing a new check (the lead's notebooks 03 and 04 can add theirs here):

    def my_exercise(fn):
        '''Tolerance: ... (state it).'''
        def test():
            got = call(fn, 1.0)                      # run the learner's code: errors become FAIL lines
            if abs(got - 2.0) > 1e-9:
                raise Fail(f"fn(1.0) returned {num(got)}, expected 2.0", "double the input")
        run_check("my exercise", test)

Tolerances are stated in each check's docstring.
"""
import contextlib
import io
import time
import warnings

import numpy as np

from ..physics.chain import PlanarChain, double_pendulum

RESULTS = {}
DETAILS = {}     # extra numbers a check measured (e.g. training time), for a later cell to show

NOT_ATTEMPTED = "fill in the cell above, then run this cell again."


class Fail(Exception):
    """Raised inside a check's test: what is wrong (numbers rounded) and a specific hint."""

    def __init__(self, what, hint):
        super().__init__(what)
        self.what, self.hint = what, hint


class _LearnerError(Exception):
    """An exception raised by the learner's code (kept apart from a bug in the check itself)."""

    def __init__(self, exc):
        super().__init__(str(exc))
        self.exc = exc


def _short(exc, limit=150):
    """'Type: message' on one line, cut to `limit` characters."""
    msg = " ".join(str(exc).split())
    if len(msg) > limit:
        msg = msg[:limit - 3] + "..."
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


@contextlib.contextmanager
def _quiet():
    """Swallow prints and warnings from the learner's code so the check's line stays alone."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
            warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def call(fn, *args, **kwargs):
    """Call the learner's fn quietly; NotImplementedError passes through, any other error is wrapped."""
    if not callable(fn):
        raise Fail(f"expected a function, got {type(fn).__name__}",
                   "pass the function itself, without calling it: check(my_function), not check(my_function())")
    try:
        with _quiet():
            return fn(*args, **kwargs)
    except NotImplementedError:
        raise
    except Exception as exc:                      # noqa: BLE001 -- every learner error becomes a FAIL line
        raise _LearnerError(exc) from exc


def num(x, digits=3):
    """A number or array as short rounded text: 3.142, 2.1e-05, [0.300, -1.200]."""
    a = np.asarray(x)
    if a.dtype.kind not in "iufbc":
        return repr(x)
    a = np.real(a).astype(float)
    if a.ndim == 0:
        v = float(a)
        if v != 0 and abs(v) < 10.0 ** -digits:
            return f"{v:.2g}"
        return f"{round(v, digits) + 0.0:.{digits}f}"          # + 0.0 turns -0.0 into 0.0
    return "[" + ", ".join(num(row, digits) for row in a) + "]"


def run_check(name, test, error_hint="read the error message, fix the cell above, run it, then run this cell"):
    """Run test(); print the one line for exercise `name` and record the outcome in RESULTS."""
    try:
        test()
    except NotImplementedError:
        status, line = "not attempted", f"NOT ATTEMPTED: {name}: {NOT_ATTEMPTED}"
    except Fail as f:
        status, line = "fail", f"FAIL: {name}: {f.what}. Hint: {f.hint}"
    except _LearnerError as e:
        status, line = "fail", f"FAIL: {name}: your code raised {_short(e.exc)}. Hint: {error_hint}"
    except Exception as exc:                      # noqa: BLE001 -- a check never raises
        status = "fail"
        line = (f"FAIL: {name}: the check could not run ({_short(exc)}). Hint: make sure the cell above "
                f"defines the function the instructions ask for, with the same arguments")
    else:
        status, line = "pass", f"PASS: {name}"
    RESULTS[name] = status
    print(line)


def _array(got, shape, what, shape_hint="check which axis you sum over and that you return the final result"):
    """The learner's result as a float array of the expected shape, or a Fail saying why not."""
    if got is None:
        raise Fail(f"{what} returned None", "end your function with `return ...`")
    try:
        a = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        raise Fail(f"{what} returned {type(got).__name__}, not numbers", "return a number or a numpy array")
    if a.shape != tuple(shape):
        raise Fail(f"{what} returned shape {a.shape}, expected {tuple(shape)}", shape_hint)
    if not np.all(np.isfinite(a)):
        raise Fail(f"{what} returned NaN or inf", "look for a division by zero or an uninitialised array")
    return a


# ---------------------------------------------------------------------- independent truths
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


def _three_link():
    """A 3-link chain with unequal links, to catch code that only works for 2 joints."""
    return PlanarChain(m=[1.5, 0.8, 0.4], l=[1.1, 0.7, 0.5], lc=[0.6, 0.2, 0.35], I=[0.12, 0.05, 0.01])


def _states(n, count, seed, qd_max=3.0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-np.pi, np.pi, (count, n)), rng.uniform(-qd_max, qd_max, (count, n))


# ---------------------------------------------------------------------- 01 challenge
def is_valid_inertia(fn):
    """Exercise 01: fn(M) -> True iff M is symmetric (to 1e-9) and positive-definite (every eigenvalue > 0).

    Cases: true mass matrices (2 and 3 links), SPD matrices with negative entries, an indefinite matrix with
    positive entries, a singular one, an asymmetric one, a negative-definite one.
    """
    A = np.array
    cases = [
        ("the true M at q = (0.3, -1.2)", double_pendulum().mass_matrix([0.3, -1.2]), True,
         "a real mass matrix is valid: check the eigenvalue line, e.g. np.linalg.eigvalsh(M).min()"),
        ("M = [[1, -0.5], [-0.5, 1]]", A([[1.0, -0.5], [-0.5, 1.0]]), True,
         "its eigenvalues are 0.5 and 1.5, so it is positive-definite even though one entry is negative: "
         "look at the eigenvalues (np.linalg.eigvalsh), not at the entries"),
        ("M = [[1, 2], [2, 1]]", A([[1.0, 2.0], [2.0, 1.0]]), False,
         "every entry is positive but its eigenvalues are 3 and -1: positive-definite is about eigenvalues, "
         "so take the smallest eigenvalue with np.linalg.eigvalsh(M).min()"),
        ("M = [[1, 1], [1, 1]]", A([[1.0, 1.0], [1.0, 1.0]]), False,
         "its eigenvalues are 0 and 2; positive-definite needs every eigenvalue strictly above 0, so a "
         "zero eigenvalue must give False"),
        ("M = [[2, 0.5], [-0.5, 2]]", A([[2.0, 0.5], [-0.5, 2.0]]), False,
         "it is not symmetric (M[0, 1] = 0.5 but M[1, 0] = -0.5): keep the given asymmetry test in the return"),
        ("M = -(true M)", -double_pendulum().mass_matrix([0.3, -1.2]), False,
         "every eigenvalue is negative here: the test must be on the smallest eigenvalue"),
        ("the true 3x3 M of a 3-link chain", _three_link().mass_matrix([0.4, -0.9, 2.0]), True,
         "your function must work for n x n matrices of any size, not only 2 x 2"),
    ]

    def test():
        for label, M, expected, hint in cases:
            got = call(fn, M.copy())
            if not isinstance(got, (bool, np.bool_)):
                raise Fail(f"for {label} it returned {type(got).__name__} {num(got) if got is not None else ''}"
                           .rstrip() + ", expected True or False", "return a bool, e.g. bool(... and ...)")
            if bool(got) != expected:
                raise Fail(f"for {label} it returned {bool(got)}, expected {expected}", hint)
    run_check("is_valid_inertia", test)


# ---------------------------------------------------------------------- 02 model
def kinetic_energy(fn):
    """Exercise 02.1: fn(M, qd) -> T = 1/2 qd^T M qd, a number.

    Truth: the chain's kinetic energy summed over the links' velocities (not from M). Tolerance 1e-9 (relative).
    """
    def test():
        for chain, seed in ((double_pendulum(), 1), (_three_link(), 2)):
            Q, QD = _states(chain.n_dof, 4, seed)
            for q, qd in zip(Q, QD):
                truth = float(chain.kinetic_energy(q, qd))
                got = _array(call(fn, chain.mass_matrix(q), qd.copy()), (), "kinetic_energy",
                             "T is one number: multiply Mqd by qd once more, qd @ Mqd")
                if abs(got - truth) > 1e-9 * max(1.0, abs(truth)):
                    if abs(got - 2 * truth) < 1e-9 * max(1.0, abs(truth)):
                        hint = "your value is exactly twice the truth: the factor 1/2 is missing"
                    elif abs(got + truth) < 1e-9 * max(1.0, abs(truth)):
                        hint = "your value has the wrong sign: kinetic energy is never negative"
                    else:
                        hint = "T = 0.5 * qd @ (M @ qd): one number, qd on both sides of M"
                    raise Fail(f"for {chain.n_dof} joints, q = {num(q)}, qd = {num(qd)} it returned {num(got)}, "
                               f"expected {num(truth)}", hint)
    run_check("kinetic_energy", test)


class _RneaOnly:
    """A chain that offers only n_dof and rnea: the exercise is to build M from the RNEA."""

    def __init__(self, chain):
        self.n_dof, self._chain = chain.n_dof, chain

    def rnea(self, q, qd, qdd, gravity=True):
        return self._chain.rnea(q, qd, qdd, gravity=gravity)

    def __getattr__(self, name):
        raise AttributeError(f"in this exercise the chain only offers chain.rnea and chain.n_dof "
                             f"(chain.{name} is not available): build M from RNEA columns")


def mass_matrix_from_rnea(fn):
    """Exercise 02.2: fn(chain, q) -> M (n, n), column j = chain.rnea(q, 0, e_j, gravity=False).

    Truth: the textbook closed-form M of the double pendulum (no RNEA involved), and the library's M for a
    3-link chain. Tolerance 1e-9.
    """
    def test():
        dp = double_pendulum()
        for q in ([0.3, -1.2], [2.5, 0.7], [-1.0, 3.0]):
            q = np.array(q)
            truth = closed_form_mass_matrix(dp, q)
            got = _array(call(fn, _RneaOnly(dp), q.copy()), (2, 2), "mass_matrix_from_rnea")
            if np.max(np.abs(got - truth)) > 1e-9:
                diff = got - truth
                gvec = dp.gravity(q)
                if np.allclose(diff, gvec[:, None], atol=1e-9):
                    hint = "every column is off by the same vector g(q): pass gravity=False to chain.rnea"
                elif np.allclose(got, np.stack([dp.rnea(q, e, np.zeros(2), gravity=False) for e in np.eye(2)], 1),
                                 atol=1e-9) or np.allclose(got, 0, atol=1e-9):
                    hint = "put the unit vector e_j in the ACCELERATION slot (third argument), with zero velocity"
                else:
                    hint = "column j is chain.rnea(q, np.zeros(n), e_j, gravity=False): store it with M[:, j] = ..."
                raise Fail(f"at q = {num(q)} it returned {num(got)}, expected {num(truth)}", hint)
        chain = _three_link()
        q = np.array([0.4, -0.9, 2.0])
        got = _array(call(fn, _RneaOnly(chain), q.copy()), (3, 3), "mass_matrix_from_rnea (3 links)")
        if np.max(np.abs(got - chain.mass_matrix(q))) > 1e-9:
            raise Fail(f"for a 3-link chain at q = {num(q)} the largest error is "
                       f"{num(np.max(np.abs(got - chain.mass_matrix(q))))}",
                       "loop over every column j in range(chain.n_dof): do not assume 2 joints")
    run_check("mass_matrix_from_rnea", test)


def coriolis_from_dM(fn):
    """Exercise 02.3: fn(dM, qd) -> c (n,) with c_i = sum_jk Gamma_ijk qd_j qd_k, where
    Gamma_ijk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i) and dM[k, i, j] = dM_ij / dq_k.

    Truth: the RNEA's Coriolis and centrifugal torque chain.coriolis(q, qd); dM from central differences of
    the true M. Tolerance 1e-6.
    """
    def test():
        for chain, seed in ((double_pendulum(), 3), (_three_link(), 4)):
            Q, QD = _states(chain.n_dof, 3, seed)
            for q, qd in zip(Q, QD):
                dM = mass_matrix_derivative_fd(chain, q)
                truth = chain.coriolis(q, qd)
                got = _array(call(fn, dM.copy(), qd.copy()), (chain.n_dof,), "coriolis_from_dM")
                if np.max(np.abs(got - truth)) <= 1e-6:
                    continue
                Mdot_qd = np.einsum("kij,k,j->i", dM, qd, qd)
                half = 0.5 * np.einsum("kij,i,j->k", dM, qd, qd)
                known = [(2 * truth, "your result is twice the truth: the factor 1/2 in the Christoffel symbol "
                                     "is missing"),
                         (-truth, "your result has the wrong sign: check the signs of the three dM terms"),
                         (Mdot_qd, "you have only Mdot qd: the last term, -dM[i, j, k] (the derivative of M_jk "
                                   "with respect to q_i), is missing"),
                         (Mdot_qd + half, "the last term must be SUBTRACTED: - dM[i, j, k]"),
                         (Mdot_qd - 2 * half, "the factor 1/2 must multiply all three terms")]
                hint = next((h for v, h in known if np.max(np.abs(got - v)) < 1e-6),
                            "remember the index order: dM[k, i, j] is dM_ij/dq_k, so dM_ij/dq_k is dM[k, i, j], "
                            "dM_ik/dq_j is dM[j, i, k] and dM_jk/dq_i is dM[i, j, k]")
                raise Fail(f"for {chain.n_dof} joints, q = {num(q)}, qd = {num(qd)} it returned {num(got)}, "
                           f"expected {num(truth)} (from the RNEA)", hint)
    run_check("coriolis_from_dM", test)


# ---------------------------------------------------------------------- 05 retrieve and space
def symplectic_euler_step(fn):
    """Exercise 05: fn(f, q, qd, dt) -> (q_new, qd_new), semi-implicit (symplectic) Euler:
    qd_new = qd + dt f(q, qd), then q_new = q + dt qd_new.  The other symplectic variant (q first with the old
    qd, then qd with f at the new q) is accepted too.  Tolerance 1e-12.
    """
    chain = double_pendulum()

    def f(q, qd):
        return chain.forward_dynamics(q, qd, np.zeros(2))

    def test():
        Q, QD = _states(2, 3, 5)
        dt = 0.01
        for q, qd in zip(Q, QD):
            got = call(fn, f, q.copy(), qd.copy(), dt)
            if not isinstance(got, (tuple, list)) or len(got) != 2:
                raise Fail(f"it returned {type(got).__name__}, expected a pair (q_new, qd_new)",
                           "end with `return q_new, qd_new`")
            q1, qd1 = (_array(g, (2,), "symplectic_euler_step") for g in got)
            qd_a = qd + dt * f(q, qd)
            q_a = q + dt * qd_a
            q_b = q + dt * qd
            qd_b = qd + dt * f(q_b, qd)
            ok = any(np.max(np.abs(q1 - a)) < 1e-12 and np.max(np.abs(qd1 - b)) < 1e-12
                     for a, b in ((q_a, qd_a), (q_b, qd_b)))
            if ok:
                continue
            if np.max(np.abs(q1 - q_b)) < 1e-12 and np.max(np.abs(qd1 - qd_a)) < 1e-12:
                hint = ("that is explicit Euler (q moved with the OLD velocity): update qd first, then move q "
                        "with the NEW qd")
            elif np.max(np.abs(q1 - qd_a)) < 1e-12 or np.max(np.abs(qd1 - q_a)) < 1e-12:
                hint = "return the pair in the order (q_new, qd_new)"
            else:
                hint = "qd_new = qd + dt * f(q, qd); q_new = q + dt * qd_new"
            raise Fail(f"from q = {num(q)}, qd = {num(qd)} with dt = {dt} it returned q_new = {num(q1, 5)}, "
                       f"qd_new = {num(qd1, 5)}; expected {num(q_a, 5)}, {num(qd_a, 5)}", hint)
    run_check("symplectic_euler_step", test)


# ---------------------------------------------------------------------- 06 mastery and project
TRIPLE_LENGTHS = (1.0, 0.8, 0.6)
TRIPLE_MASS = 1.0


def reference_triple_pendulum():
    """The project's triple pendulum: three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81."""
    l = np.array(TRIPLE_LENGTHS)
    m = np.full(3, TRIPLE_MASS)
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 12, g=9.81)


def triple_pendulum(fn):
    """Project step 1: fn() -> PlanarChain of three uniform rods (1 kg; 1.0, 0.8, 0.6 m; g = 9.81).

    Truth: the uniform-rod formulas (lc = l/2, I = m l^2 / 12) and, independently, the static torque that holds
    all three rods horizontal, tau_1 = g sum_i m_i x_ci, worked out by hand. Tolerance 1e-9.
    """
    def test():
        chain = call(fn)
        if not isinstance(chain, PlanarChain):
            raise Fail(f"it returned {type(chain).__name__}, expected a PlanarChain",
                       "return PlanarChain(m=[...], l=[...], lc=[...], I=[...], g=9.81)")
        if chain.n_dof != 3:
            raise Fail(f"the chain has {chain.n_dof} links, expected 3", "give m, l, lc and I three entries each")
        ref = reference_triple_pendulum()
        checks = [("masses m", chain.m, ref.m, "each rod weighs 1 kg"),
                  ("lengths l", chain.l, ref.l, "the rods are 1.0, 0.8 and 0.6 m long, in that order"),
                  ("centres of mass lc", chain.lc, ref.lc,
                   "a uniform rod's centre of mass is in its middle: lc = l / 2"
                   if np.allclose(chain.lc, ref.l) else "lc is measured from each rod's own joint: lc = l / 2"),
                  ("inertias I", chain.I, ref.I,
                   "that is the inertia about the rod's END (m l^2 / 3); the model wants it about the centre of "
                   "mass: m l^2 / 12" if np.allclose(chain.I, ref.m * ref.l**2 / 3) else
                   "a uniform rod about its centre of mass has I = m l^2 / 12")]
        for label, got, want, hint in checks:
            if np.max(np.abs(got - want)) > 1e-9:
                raise Fail(f"{label} are {num(got)}, expected {num(want)}", hint)
        if abs(chain.g - 9.81) > 1e-9:
            raise Fail(f"g is {num(chain.g)}, expected 9.81", "pass g=9.81 (m/s^2, gravity pointing down)")
        # statics by hand: all rods horizontal (q = (pi/2, 0, 0)), joint 1 carries every rod's weight
        x_c = np.cumsum(ref.l) - ref.l + ref.lc
        tau1 = ref.g * np.sum(ref.m * x_c)
        got = chain.rnea([np.pi / 2, 0, 0], [0, 0, 0], [0, 0, 0])[0]
        if abs(got - tau1) > 1e-9:
            raise Fail(f"holding the rods horizontal needs tau_1 = {num(tau1)} N m, your chain says {num(got)}",
                       "check the order of the links")
    run_check("triple_pendulum", test)


TRIPLE_MAX_ERROR = 0.3
TRIPLE_TEST_POINTS = 2000


def triple_delan(fn):
    """Project step 2: fn(chain, data) -> a DeLaN(n_dof=3) trained on data (a sample_uniform dict).

    The check calls fn with the reference triple pendulum and sample_uniform(chain, 4096, seed=0), then
    measures on 2000 random configurations (seed 7): PASS when max |M_hat - M| < 0.3 kg m^2 (the true entries
    reach about 6.8) and the learned M's smallest eigenvalue is > 0 everywhere.
    """
    from ..data import sample_uniform
    from ..model.delan import DeLaN

    def test():
        chain = reference_triple_pendulum()
        data = sample_uniform(chain, 4096, seed=0)
        DETAILS.pop("triple_delan", None)
        start = time.perf_counter()
        model = call(fn, chain, {k: v.copy() for k, v in data.items()})
        seconds = time.perf_counter() - start
        if not isinstance(model, DeLaN):
            raise Fail(f"it returned {type(model).__name__}, expected a trained DeLaN",
                       "create model = DeLaN(n_dof=3, ...), call model.fit(...), then return model")
        if model.n_dof != 3:
            raise Fail(f"the model has n_dof = {model.n_dof}, expected 3", "create it with DeLaN(n_dof=3)")
        if model.step == 0:
            raise Fail("the model was never trained (model.step is 0)",
                       "call model.fit(data['q'], data['qd'], data['qdd'], data['tau'], steps=...) before returning")
        q = np.random.default_rng(7).uniform(-np.pi, np.pi, (TRIPLE_TEST_POINTS, 3))
        err = float(np.max(np.abs(model.mass_matrix(q) - chain.mass_matrix(q))))
        lam = float(np.linalg.eigvalsh(model.mass_matrix(q)).min())
        DETAILS["triple_delan"] = {"seconds": seconds, "steps": model.step, "max_error": err, "min_eig": lam}
        if not lam > 0:
            raise Fail(f"the learned M has smallest eigenvalue {num(lam)}", "keep the DeLaN's default eps")
        if err >= TRIPLE_MAX_ERROR:
            raise Fail(f"after {model.step} steps max |M_hat - M| = {num(err)} kg m^2 (needs < {TRIPLE_MAX_ERROR})",
                       "train longer (about 3000 steps) or with a larger learning rate, e.g. DeLaN(n_dof=3, "
                       "lr=1e-2, batch_size=96)")
    run_check("triple_delan", test)


# ---------------------------------------------------------------------- the lesson's own criterion
def lesson_pass(model, chain=None):
    """The lesson's PASS criterion on a trained model (an object, not a function): max |M_hat - M| < 0.2 over
    the 41 x 41 whole-torus grid and smallest eigenvalue > 0 there (lesson_lib.evaluation.metrics.lesson_check).
    A model that is None, or a stub that raises NotImplementedError when called, counts as not attempted."""
    from ..evaluation.metrics import PASS_MAX_ERROR, lesson_check

    def test():
        m = call(model) if callable(model) and not hasattr(model, "mass_matrix") else model
        if m is None:
            raise NotImplementedError
        result = lesson_check(m, chain or double_pendulum())
        if not result["min_eig"] > 0:
            raise Fail(f"the learned M has smallest eigenvalue {num(result['min_eig'])} on the grid",
                       "use the DeLaN, whose M = L L^T + eps I is positive-definite for any weights")
        if not result["passed"]:
            raise Fail(f"max |M_hat - M| over the whole torus is {num(result['max_error'])} "
                       f"(needs < {PASS_MAX_ERROR})", "train more: run model.fit(...) again for 2000 steps")
    run_check("learned mass matrix", test)


# ---------------------------------------------------------------------- 00 start here: a demo of the three lines
def total_mass(fn):
    """Demo check for 00_start_here: fn(chain) -> the chain's total mass in kg (sum of chain.m). Tolerance 1e-12."""
    def test():
        for chain in (double_pendulum(), _three_link()):
            got = _array(call(fn, chain), (), "total_mass")
            want = float(np.sum(chain.m))
            if abs(got - want) > 1e-12:
                hint = ("you returned the mass of one link: add them all up with chain.m.sum()"
                        if np.any(np.isclose(got, chain.m)) else "add up the masses: chain.m.sum()")
                raise Fail(f"for a {chain.n_dof}-link chain it returned {num(got)} kg, expected {num(want)} kg", hint)
    run_check("total_mass", test)


# ---------------------------------------------------------------------- 03 guided practice and 04 feedback
def errors_at(fn):
    """03: fn(model, chain, q) -> (largest |M_hat - M| entry over the batch, smallest eigenvalue of M_hat over
    the batch), checked on an untrained DeLaN (large errors) at 200 seeded configurations against
    lesson_lib.evaluation.metrics. Tolerance 1e-9."""
    from ..model.delan import DeLaN
    from ..evaluation.metrics import mass_matrix_error, min_eigenvalue

    def test():
        chain, model = double_pendulum(), DeLaN(seed=5)
        q = np.random.default_rng(11).uniform(-np.pi, np.pi, (200, 2))
        got = call(fn, model, chain, q)
        if got is None:
            raise Fail("errors_at returned None", "return both numbers: `return max_error, min_eig`")
        try:
            err, lam = (float(v) for v in got)
        except (TypeError, ValueError):
            raise Fail(f"errors_at returned {num(got) if np.ndim(got) else got!r}, expected two numbers",
                       "return a pair: `return max_error, min_eig`, each a single number")
        M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
        want_err, want_lam = mass_matrix_error(model, chain, q), min_eigenvalue(model, q)
        if abs(err - want_err) > 1e-9:
            hint = ("take the absolute value before the maximum: np.abs(M_hat - M).max()"
                    if abs(err - (M_hat - M).max()) < 1e-9 else
                    "the largest entry over ALL configurations and entries: np.abs(M_hat - M).max(), not a mean")
            raise Fail(f"max error {num(err)}, expected {num(want_err)}", hint)
        if abs(lam - want_lam) > 1e-9:
            raise Fail(f"smallest eigenvalue {num(lam)}, expected {num(want_lam)}",
                       "np.linalg.eigvalsh(M_hat) gives the eigenvalues of each matrix (B, 2); take .min() of "
                       "all of them, of the learned M_hat, not of the true M")
    run_check("errors_at", test)


def lesson_passes(fn):
    """04: fn(max_error, min_eig) -> True exactly when max_error < 0.2 and min_eig > 0 (boundaries included
    in the cases)."""
    cases = [(0.05, 0.07, True), (0.199, 1e-6, True), (0.2, 0.5, False), (0.35, 0.1, False),
             (0.1, 0.0, False), (0.1, -0.01, False), (0.25, -1.0, False)]

    def test():
        for max_error, min_eig, want in cases:
            got = call(fn, max_error, min_eig)
            if got is None:
                raise Fail("lesson_passes returned None", "return the condition: `return ... and ...`")
            if bool(got) != want:
                if max_error == 0.2:
                    hint = "'below 0.2' means max_error < 0.2, strictly: 0.2 itself does not pass"
                elif min_eig == 0.0:
                    hint = "positive means > 0: an eigenvalue of exactly 0 is a singular mass matrix"
                else:
                    hint = "both conditions must hold: join them with `and`"
                raise Fail(f"lesson_passes({max_error}, {min_eig}) returned {got!r}, expected {want}", hint)
    run_check("lesson_passes", test)
