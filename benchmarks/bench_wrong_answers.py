"""Hints on wrong answers no test has seen (issue 57 item 2): every check is run on plausible wrong answers written as
a learner writes them, each labelled with the mistake a teacher would name, and each FAIL line's hint is sorted:

    named       the hint names the mistake the answer made (below: how that is judged)
    located     the hint names no mechanism but says, truly, which part of the computation is wrong and how it
                behaves (a property the answer breaks: which term, which input it ignores, how it scales)
    generic     a hint that names no mistake but says what differs (lesson_course.checks.diagnosis.GENERIC)
    misleading  any other hint: it names a mistake, and not this one
    passed      the check said PASS (or NOT ATTEMPTED)

How a hint is judged.  A hint that claims what the function computes (a mistake computed as a variation of the right
answer, a pattern such as "the right value times a factor", a property such as "linear where it must be
quadratic") is a claim about behaviour, so it is tried where it was not made: the same answer is checked again on
the inputs of three judges' salts (fresh chains, states and matrices, lesson_course.checks.independent.SALT).  The
claim holds when every one of them gives the same hint; it is then named (or located), else misleading, whatever
its words.  Any other hint (one a check deduces from how the function called the library, a training's verdict, an
error's line) is named when it holds one of the answer's words (a teacher's words for that mistake, written with
the answers, before the diagnosis was tuned), else misleading; for an answer that raises, the FAIL line must also
quote the learner's line that raised (with the general hint of an error, it is the line, the error's message
included, that must hold the words).  The first sets (ANSWERS to FOURTH) were measured with the words alone, which
called a right hint in other words misleading (four of the fifth set's blind answers, e.g. "M is -M: the unit
vector must be 1 in place j" for a unit vector of -1).

The answers are not tests/check_cases.py's (tests/test_checks_diagnosis.py checks that no answer here returns what
a test's answer returns on the check's inputs).  Goal: at least 80 % named, none misleading, none passing.

Sets, each written before the changes it led to and measured once as written (the comment above each says what it
gave): ANSWERS before any diagnosis (the issue's goal is measured on it), then SECOND, THIRD and FOURTH, each after
the changes the set before led to; FIFTH, SIXTH and SEVENTH written blind (from the learners' notebooks alone).  Their first
measurements are the honest estimate of how the hints do on answers no one has seen.

Run:  python benchmarks/bench_wrong_answers.py             (about 1 min: some answers train a DeLaN)
      python benchmarks/bench_wrong_answers.py --list      (every answer's FAIL line)
      python benchmarks/bench_wrong_answers.py --words     (judged by the words alone, as the first sets were)
      python benchmarks/bench_wrong_answers.py --time DIR  (every check's time on right and wrong answers, this
                                                            checkout against the one in DIR, interleaved)
"""
import argparse
import json
import linecache
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]


class Answer(NamedTuple):
    check: str          # the registered check
    mistake: str        # what a teacher would call it
    words: tuple        # a hint that names it holds one of these (case-insensitive)
    source: str         # the learner's cell


A = Answer
ANSWERS = [
    # ------------------------------------------------------------------ 00 total_mass
    A("total_mass", "summed the lengths, not the masses", ("chain.l", "length"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return sum(chain.l)
'''),
    A("total_mass", "the heaviest link only", ("heaviest", "largest", "one link", "every link"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return chain.m.max()
'''),
    A("total_mass", "the first two links only (a term dropped)", ("missing", "every link", "left out"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return chain.m[0] + chain.m[1]
'''),
    A("total_mass", "the weight (times g), not the mass", ("weight", "times g", "gravity"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return np.sum(chain.m) * chain.g
'''),
    A("total_mass", "one link's mass for every link", ("one link", "first link", "every link", "for all"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return len(chain.m) * chain.m[0]
'''),
    # ------------------------------------------------------------------ 01 is_valid_inertia
    A("is_valid_inertia", "the trace instead of the smallest eigenvalue", ("trace", "sum of the eigenvalues"), '''
def is_valid_inertia(M, tol=1e-09):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.trace(M)
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "a matrix (the Cholesky factor) where one number belongs",
      ("one number", "an array", "ambiguous"), '''
def is_valid_inertia(M, tol=1e-09):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(M)
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "the top-left 2 x 2 corner only", ("2 x 2", "size", "corner", "whole matrix"), '''
def is_valid_inertia(M, tol=1e-09):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(M[:2, :2]).min()
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "singular values (their sizes), not the eigenvalues",
      ("absolute", "singular value", "sign"), '''
def is_valid_inertia(M, tol=1e-09):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.svd(M)[1].min()
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "the eigenvalues of -M", ("opposite", "-M", "sign", "negative"), '''
def is_valid_inertia(M, tol=1e-09):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(-M).min()
    return bool(asymmetry <= tol and smallest > 0)
'''),
    # ------------------------------------------------------------------ 02 kinetic_energy
    A("kinetic_energy", "M qd on both sides (M twice)", ("qd on the left", "twice", "qd on both sides", "qd^T"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * Mqd @ Mqd
    return T
'''),
    A("kinetic_energy", "the diagonal of M only (the coupling dropped)", ("diagonal", "off-diagonal", "coupling"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.sum(np.diag(M) * qd**2)
    return T
'''),
    A("kinetic_energy", "a factor 1/4 instead of 1/2", ("1/4", "quarter", "half", "factor"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.25 * qd @ Mqd
    return T
'''),
    A("kinetic_energy", "every term of the double sum, never added up", ("add", "sum"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.outer(qd, qd) * M
    return T
'''),
    A("kinetic_energy", "a matrix product with a number (one @ too many)",
      ("a number", "scalar", "0-d", "dimension"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * qd @ Mqd @ qd
    return T
'''),
    # ------------------------------------------------------------------ 02 mass_matrix_from_rnea
    A("mass_matrix_from_rnea", "the unit vector made of ones", ("unit", "e_j", "1 in place j"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.ones(n)
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "e_j made once and never reset (ones pile up)", ("unit", "e_j", "1 in place j"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    e_j = np.zeros(n)
    for j in range(n):
        e_j[j] = 1.0
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "one entry of the torque stored in the whole column", ("every row", "whole column",
                                                                                      "one entry", "column j"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False)[j]
    return M
'''),
    A("mass_matrix_from_rnea", "every torque added to every row (M += tau)", ("column j", "store", "every row"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        M += chain.rnea(q, np.zeros(n), e_j, gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "q passed as the velocity too", ("velocity", "zero", "second argument"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        M[:, j] = chain.rnea(q, q, e_j, gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "a zero velocity written as the number 0", ("shape", "np.zeros", "one per joint"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        M[:, j] = chain.rnea(q, 0, e_j, gravity=False)
    return M
'''),
    # ------------------------------------------------------------------ 02 layer_jet
    A("layer_jet", "the slope taken at a = s(z), not at z", ("at z", "s'(z)", "slope", "ds(z)"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(a)[:, None, :] * (dh @ W.T)
    return (a, da)
'''),
    A("layer_jet", "the bias added after the activation", ("bias", "inside", "z = W h + b"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T
    a = s(z) + b
    da = ds(z)[:, None, :] * (dh @ W.T)
    return (a, da)
'''),
    A("layer_jet", "tanh's slope 1 - a^2 for the course's activation", ("ds", "s'(z)", "slope", "activation"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = (1 - a**2)[:, None, :] * (dh @ W.T)
    return (a, da)
'''),
    A("layer_jet", "the bias subtracted", ("bias", "sign", "+ b"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T - b
    a = s(z)
    da = ds(z)[:, None, :] * (dh @ W.T)
    return (a, da)
'''),
    A("layer_jet", "the joint axis put last on s'(z)", ("shape", "axis"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(z)[:, :, None] * (dh @ W.T)
    return (a, da)
'''),
    A("layer_jet", "the derivative rows returned first", ("order", "other order", "swapped", "first"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(z)[:, None, :] * (dh @ W.T)
    return (da, a)
'''),
    # ------------------------------------------------------------------ 02 coriolis_from_dM (loops, indices)
    A("coriolis_from_dM", "qd_j twice where qd_j qd_k belongs", ("qd[k]", "qd_k", "index k"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[j] * qd[j]
    return c
'''),
    A("coriolis_from_dM", "one velocity factor only (linear in qd)", ("quadratic", "qd_k", "qd[k]", "both"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[j]
    return c
'''),
    A("coriolis_from_dM", "j only up to i (a triangle of the sum)", ("every j", "range", "all", "j <"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(i + 1):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[j] * qd[k]
    return c
'''),
    A("coriolis_from_dM", "c reset inside the loop over i", ("reset", "zeros", "inside", "last entry", "only c["), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    for i in range(n):
        c = np.zeros(n)
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[j] * qd[k]
    return c
'''),
    A("coriolis_from_dM", "the last k left out of the loop", ("range", "every k", "last", "n - 1"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n - 1):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[j] * qd[k]
    return c
'''),
    A("coriolis_from_dM", "return inside the loop over i", ("return", "first entry", "indent", "only c["), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[j] * qd[k]
        return c
'''),
    A("coriolis_from_dM", "the first and third terms' indices swapped", ("first term", "third term", "index",
                                                                        "indices"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[i, j, k] + dM[j, i, k] - dM[k, i, j])
                c[i] += gamma * qd[j] * qd[k]
    return c
'''),
    # ------------------------------------------------------------------ 03 errors_at
    A("errors_at", "the norm of the whole difference, not its largest entry", ("norm", "largest entry", "entry"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = (model.mass_matrix(q), chain.mass_matrix(q))
    return np.linalg.norm(M_hat - M), np.linalg.eigvalsh(M_hat).min()
'''),
    A("errors_at", "the smallest eigenvalue per configuration, not over the batch", ("whole batch", "one number",
                                                                                    "single number"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = (model.mass_matrix(q), chain.mass_matrix(q))
    return np.abs(M_hat - M).max(), np.linalg.eigvalsh(M_hat).min(axis=1)
'''),
    A("errors_at", "the determinant for the eigenvalue", ("determinant",), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = (model.mass_matrix(q), chain.mass_matrix(q))
    return np.abs(M_hat - M).max(), np.linalg.det(M_hat).min()
'''),
    A("errors_at", "the smallest diagonal entry for the smallest eigenvalue", ("diagonal",), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = (model.mass_matrix(q), chain.mass_matrix(q))
    return np.abs(M_hat - M).max(), np.diagonal(M_hat, axis1=1, axis2=2).min()
'''),
    A("errors_at", "the most negative difference, not the largest size", ("absolute", "negative", "size"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = (model.mass_matrix(q), chain.mass_matrix(q))
    return (M_hat - M).min(), np.linalg.eigvalsh(M_hat).min()
'''),
    A("errors_at", "a relative error (divided by the largest |M|)", ("relative", "divided"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = (model.mass_matrix(q), chain.mass_matrix(q))
    return np.abs(M_hat - M).max() / np.abs(M).max(), np.linalg.eigvalsh(M_hat).min()
'''),
    A("errors_at", "a dict instead of a pair", ("pair", "tuple"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = (model.mass_matrix(q), chain.mass_matrix(q))
    return {"max_error": np.abs(M_hat - M).max(), "min_eig": np.linalg.eigvalsh(M_hat).min()}
'''),
    # ------------------------------------------------------------------ 04 lesson_passes
    A("lesson_passes", "both boundaries let through (<= and >=)", ("strict", "exactly"), '''
def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error <= PASS_MAX_ERROR and min_eig >= 0
'''),
    A("lesson_passes", "either condition enough, written with ifs", ("both", "and", "one condition"), '''
def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    if max_error < PASS_MAX_ERROR:
        return True
    if min_eig > 0:
        return True
    return False
'''),
    A("lesson_passes", "the size of the eigenvalue, not its sign", ("absolute", "negative", "sign"), '''
def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return abs(max_error) < PASS_MAX_ERROR and abs(min_eig) > 0
'''),
    A("lesson_passes", "the eigenvalue compared the other way", ("eigenvalue", "above 0", "other way", "positive"), '''
def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < PASS_MAX_ERROR and min_eig < 0
'''),
    A("lesson_passes", "printed instead of returned", ("return",), '''
def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    if max_error < PASS_MAX_ERROR and min_eig > 0:
        print("PASS")
    else:
        print("FAIL")
'''),
    A("lesson_passes", "half the threshold", ("threshold", "PASS_MAX_ERROR", "half"), '''
def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < PASS_MAX_ERROR / 2 and min_eig > 0
'''),
    # ------------------------------------------------------------------ 05 symplectic_euler_step
    A("symplectic_euler_step", "dt left out of the position update", ("dt",), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(q, qd)
    q_new = q + qd_new
    return (q_new, qd_new)
'''),
    A("symplectic_euler_step", "q_new started from the velocity (a typo)", ("from q", "position", "q_new", "old q"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(q, qd)
    q_new = qd + dt * qd_new
    return (q_new, qd_new)
'''),
    A("symplectic_euler_step", "dt squared in the velocity update", ("dt",), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt**2 * f(q, qd)
    q_new = q + dt * qd_new
    return (q_new, qd_new)
'''),
    A("symplectic_euler_step", "the old velocity left out of the new one", ("old velocity", "qd +", "change",
                                                                          "qd_new = qd"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = dt * f(q, qd)
    q_new = q + dt * qd_new
    return (q_new, qd_new)
'''),
    A("symplectic_euler_step", "f called with its arguments swapped", ("f(q, qd)", "swapped", "order"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(qd, q)
    q_new = q + dt * qd_new
    return (q_new, qd_new)
'''),
    A("symplectic_euler_step", "the old velocity returned", ("qd_new", "old velocity", "old qd"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(q, qd)
    q_new = q + dt * qd_new
    return (q_new, qd)
'''),
    A("symplectic_euler_step", "q moved in place (the caller's array changed)", ("changed", "in place", "caller"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(q, qd)
    q += dt * qd_new
    return (q, qd_new)
'''),
    # ------------------------------------------------------------------ 06 make_triple_pendulum
    A("triple_pendulum", "gravity given as -9.81 (a direction, not a size)", ("g", "magnitude", "down"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.array([1.0, 1.0, 1.0])
    l = np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 12, g=-9.81)
'''),
    A("triple_pendulum", "the inertia with half the length (l/2)^2 / 12", ("quarter", "1/4", "inertia", "l^2"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.array([1.0, 1.0, 1.0])
    l = np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * (l / 2)**2 / 12, g=9.81)
'''),
    A("triple_pendulum", "one mass for three rods", ("one entry per link", "one per rod", "three entries",
                                                     "lengths"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    l = np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=1.0, l=l, lc=l / 2, I=l**2 / 12, g=9.81)
'''),
    A("triple_pendulum", "the lengths copied into the masses", ("mass", "1 kg"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.array([1.0, 0.8, 0.6])
    l = np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 12, g=9.81)
'''),
    A("triple_pendulum", "the inertia m l^2 / 2", ("inertia", "12", "/ 2"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.array([1.0, 1.0, 1.0])
    l = np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 2, g=9.81)
'''),
    A("triple_pendulum", "each centre of mass measured from the pivot, not its own joint", ("own joint", "pivot",
                                                                                            "from the base"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.array([1.0, 1.0, 1.0])
    l = np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=np.cumsum(l) - l / 2, I=m * l**2 / 12, g=9.81)
'''),
    # ------------------------------------------------------------------ 06 train_triple_delan
    A("triple_delan", "q and qd swapped in fit", ("swapped", "order", "argument"), '''
def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=chain.n_dof, seed=0, lr=1e-2, batch_size=96)
    model.fit(data["qd"], data["q"], data["qdd"], data["tau"], steps=3000)
    return model
'''),
    A("triple_delan", "qdd given for both qd and qdd", ("qd", "argument", "data[", "same array"), '''
def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=chain.n_dof, seed=0, lr=1e-2, batch_size=96)
    model.fit(data["q"], data["qdd"], data["qdd"], data["tau"], steps=3000)
    return model
'''),
    A("triple_delan", "far too few steps", ("longer", "steps", "more"), '''
def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=chain.n_dof, seed=0, lr=1e-2, batch_size=96)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=100)
    return model
'''),
    A("triple_delan", "fit's result returned instead of the model", ("model", "return the trained", "DeLaN"), '''
def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=chain.n_dof, seed=0, lr=1e-2, batch_size=96)
    return model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=20)
'''),
    # ------------------------------------------------------------------ 07 computed_torque
    A("computed_torque", "c(q, qd) multiplied by qd again", ("already", "c(q, qd)", "qd again", "times qd"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) * qd + model.gravity(q)
'''),
    A("computed_torque", "the model evaluated at the desired state", ("desired", "actual", "q_d"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q_d) @ a + model.coriolis(q_d, qd_d) + model.gravity(q_d)
'''),
    A("computed_torque", "M's inverse (solve) instead of M", ("inverse", "solve", "multiply"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    M = model.mass_matrix(q)
    return np.linalg.solve(M, a) + model.coriolis(q, qd) + model.gravity(q)
'''),
    A("computed_torque", "sqrt(kp) for the damping gain", ("kd", "gain"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + np.sqrt(kp) * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    A("computed_torque", "gravity at the desired configuration", ("desired", "actual", "q_d", "g(q)"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q_d)
'''),
    A("computed_torque", "c(q, qd) @ qd: a number added to every joint", ("already", "c(q, qd)", "qd again",
                                                                          "a number"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) @ qd + model.gravity(q)
'''),
    A("computed_torque", "the velocity error from positions (a typo)", ("e_dot", "velocity error", "qd_d - qd"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, q_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    # ------------------------------------------------------------------ 08 second_difference
    A("second_difference", "/ 2*h**2: multiplied by h^2/2", ("parenthes", "h squared", "divide", "h^2", "h²"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - 2 * q[1:-1] + q[:-2]) / 2*h**2
'''),
    A("second_difference", "slices of different lengths", ("shape", "slice", "length", "rows"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - 2 * q[1:] + q[:-2]) / h**2
'''),
    A("second_difference", "multiplied by h^2 instead of divided", ("divide", "h squared", "h^2", "h²"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return np.diff(q, n=2, axis=0) * h**2
'''),
    A("second_difference", "/ h*h in a loop: not divided at all", ("parenthes", "h squared", "divide", "h^2", "h²"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    out = np.zeros((len(q) - 2, q.shape[1]))
    for k in range(1, len(q) - 1):
        out[k - 1] = (q[k + 1] - 2 * q[k] + q[k - 1]) / h*h
    return out
'''),
    A("second_difference", "the last neighbour subtracted", ("sign", "minus", "neighbour"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - 2 * q[1:-1] - q[:-2]) / h**2
'''),
    A("second_difference", "only the last term divided by h^2", ("parenthes", "whole", "numerator", "every term"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return q[2:] - 2 * q[1:-1] + q[:-2] / h**2
'''),
]

# Written after the diagnosis was tuned on the answers above, and measured once as they were (17 of 29 named, 12 what
# differs, none misleading, none passing): the checks then gained the systematic families these showed missing (an
# axis summed away, every entry the sum, qd_i for qd_j, k tied to j, another norm or reduction order, dt scaled, g
# through M, c's arguments, a sample shifted), so they are no longer unseen.
SECOND = [
    A("total_mass", "the inertias added up", ("chain.I", "inertia"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return sum(chain.I)
'''),
    A("total_mass", "a running total returned", ("one number", "last", "cumulative"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return np.cumsum(chain.m)
'''),
    A("is_valid_inertia", "the row sums for the eigenvalues", ("row", "eigenvalue"), '''
def is_valid_inertia(M, tol=1e-09):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.min(M @ np.ones(len(M)))
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "the sum of the eigenvalues", ("trace", "sum of the eigenvalues"), '''
def is_valid_inertia(M, tol=1e-09):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(M).sum()
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("kinetic_energy", "divided by 1/2 instead of multiplied", ("factor", "1/2", "divide"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = (qd @ Mqd) / 0.5
    return T
'''),
    A("kinetic_energy", "M times qd entry by entry, all summed", ("left", "dot", "qd^T"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.sum(M * qd)
    return T
'''),
    A("mass_matrix_from_rnea", "rows, with gravity left on", ("gravity",), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        M[j] = chain.rnea(q, np.zeros(n), np.eye(n)[j])
    return M
'''),
    A("mass_matrix_from_rnea", "an acceleration of 2 instead of 1", ("unit", "1 in place j", "e_j"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        M[:, j] = chain.rnea(q, np.zeros(n), 2 * np.eye(n)[:, j], gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "the loop starting at 1", ("every j", "column", "from 0"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(1, n):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False)
    return M
'''),
    A("layer_jet", "the bias given a column axis", ("shape", "b"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b[:, None]
    a = s(z)
    da = ds(z)[:, None, :] * (dh @ W.T)
    return (a, da)
'''),
    A("layer_jet", "the rows summed over the joints", ("joint", "each k", "every joint"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(z)[:, None, :] * (dh @ W.T).sum(axis=1, keepdims=True)
    return (a, da)
'''),
    A("coriolis_from_dM", "qd_i where qd_j belongs", ("qd[j]", "qd_j", "index"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[i] * qd[k]
    return c
'''),
    A("coriolis_from_dM", "k tied to j (one loop for both)", ("every k", "loop", "both"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            k = j
            gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
            c[i] += gamma * qd[j] * qd[k]
    return c
'''),
    A("coriolis_from_dM", "the whole vector added to, not c[i]", ("c[i]", "entry", "index i"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c = c + gamma * qd[j] * qd[k]
    return c
'''),
    A("errors_at", "the eigenvalues of the difference", ("M_hat - M", "difference", "learned M_hat"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = (model.mass_matrix(q), chain.mass_matrix(q))
    return np.abs(M_hat - M).max(), np.linalg.eigvalsh(M_hat - M).min()
'''),
    A("errors_at", "a root-mean-square error", ("rms", "root", "largest"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = (model.mass_matrix(q), chain.mass_matrix(q))
    return np.sqrt(((M_hat - M) ** 2).mean()), np.linalg.eigvalsh(M_hat).min()
'''),
    A("errors_at", "the largest of the per-configuration smallest eigenvalues", ("whole batch", "smallest", "max"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = (model.mass_matrix(q), chain.mass_matrix(q))
    return float(np.abs(M_hat - M).max()), float(np.linalg.eigvalsh(M_hat)[:, 0].max())
'''),
    A("lesson_passes", "the eigenvalue compared with the threshold", ("eigenvalue", "0", "threshold"), '''
def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < PASS_MAX_ERROR and min_eig > PASS_MAX_ERROR
'''),
    A("lesson_passes", "a tiny slack on the threshold", ("strict", "exactly", "threshold"), '''
def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < PASS_MAX_ERROR + 1e-9 and min_eig > 0
'''),
    A("symplectic_euler_step", "the pair stacked into one array", ("pair", "tuple"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(q, qd)
    q_new = q + dt * qd_new
    return np.array([q_new, qd_new])
'''),
    A("symplectic_euler_step", "half a step for the velocity", ("dt", "half"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt / 2 * f(q, qd)
    q_new = q + dt * qd_new
    return (q_new, qd_new)
'''),
    A("triple_pendulum", "the inertia about the end, by parallel axes", ("end", "centre of mass"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.array([1.0, 1.0, 1.0])
    l = np.array([1.0, 0.8, 0.6])
    lc = l / 2
    return PlanarChain(m=m, l=l, lc=lc, I=m * l**2 / 12 + m * lc**2, g=9.81)
'''),
    A("triple_pendulum", "weights (m g) for masses", ("mass", "1 kg"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.ones(3) * 9.81
    l = np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 12, g=9.81)
'''),
    A("computed_torque", "g(q) through M", ("g(q)", "torque", "outside", "after"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ (a + model.gravity(q)) + model.coriolis(q, qd)
'''),
    A("computed_torque", "gains multiplied with @", ("a number", "scalar", "*", "0 dimensions"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd @ e_dot + kp @ e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    A("computed_torque", "c asked at (q, q_d)", ("qd", "velocity", "coriolis(q, qd)"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, q_d) + model.gravity(q)
'''),
    A("second_difference", "divided by 2 h^2", ("2", "factor", "h squared", "half")   , '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - 2 * q[1:-1] + q[:-2]) / (h**2 * 2)
'''),
    A("second_difference", "the middle sample one step early", ("middle", "sample k", "q_k"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[1:-1] - 2 * q[:-2] + q[2:]) / h**2
'''),
    A("second_difference", "differences of differences, never divided", ("divide", "h squared", "h^2", "h²"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    d = np.diff(q, axis=0)
    return d[1:] - d[:-1]
'''),
]

# Written after the changes the second set led to, and measured once as they were (15 of 27 named, 10 what differs,
# 1 misleading: eigvalsh(M @ M), whose squares lose the sign, named as sizes; 1 passed: -q for q, right in value and
# since left out): the checks then gained the families these showed missing (a reversal along any axis, a feedback
# term dropped, one error for both, squares among what loses a sign), so they are no longer unseen either.
THIRD = [
    A('total_mass', 'the sum times the number of links', ('number of links', 'count'), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return chain.m.sum() * len(chain.m)
'''),
    A('total_mass', 'the product of the masses', ('product', 'add', 'sum'), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return np.prod(chain.m)
'''),
    A('is_valid_inertia', 'the eigenvalues of M squared', ('square', 'M @ M', 'sign'), '''
def is_valid_inertia(M, tol=1e-09):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(M @ M).min()
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A('is_valid_inertia', 'the middle eigenvalue by index', ('index', 'ascending', 'smallest'), '''
def is_valid_inertia(M, tol=1e-09):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(M)[len(M) // 2]
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A('kinetic_energy', 'the product of two norms', ('dot', 'norm', 'qd^T'), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.linalg.norm(Mqd) * np.linalg.norm(qd)
    return T
'''),
    A('kinetic_energy', 'the product of two sums', ('dot', 'sum', 'entry by entry'), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.sum(Mqd) * np.sum(qd)
    return T
'''),
    A('mass_matrix_from_rnea', 'the 1 one place early', ('column j', 'place', 'shifted', 'unit'), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j - 1] = 1.0
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False)
    return M
'''),
    # (here was `chain.rnea(-q, ...)`: measured once, it passed, and rightly: a planar chain's M depends on its
    # angles through cosines only, so M(-q) = M(q), and the answer is right in value)
    A('mass_matrix_from_rnea', 'gravity subtracted with a second call that has it on', ('gravity',), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False) - chain.rnea(q, np.zeros(n), np.zeros(n))
    return M
'''),
    A('layer_jet', 'a matrix product with the slope', ('shape', '@', 'entry by entry'), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(z) @ (dh @ W.T)
    return (a, da)
'''),
    A('layer_jet', 'the value transposed', ('transpose', 'rows', 'samples'), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(z)[:, None, :] * (dh @ W.T)
    return (a.T, da)
'''),
    A('layer_jet', 'W @ dh for the rows', ('shape', 'W', 'dh'), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(z)[:, None, :] * (W @ dh)
    return (a, da)
'''),
    A('coriolis_from_dM', 'an extra 1/2 on each term', ('1/2', 'half', 'factor'), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[j] * qd[k] * 0.5
    return c
'''),
    A('coriolis_from_dM', 'k from j onwards', ('every k', 'range', 'from 0'), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(j, n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[j] * qd[k]
    return c
'''),
    A('coriolis_from_dM', 'subtracted from c', ('sign', 'add', '+='), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] -= gamma * qd[j] * qd[k]
    return c
'''),
    A('errors_at', 'the difference of the sizes', ('absolute', '|M_hat - M|', 'difference'), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = (model.mass_matrix(q), chain.mass_matrix(q))
    return np.max(np.abs(M_hat) - np.abs(M)), np.linalg.eigvalsh(M_hat).min()
'''),
    A('errors_at', "the first configuration's eigenvalues", ('one configuration', 'whole batch'), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = (model.mass_matrix(q), chain.mass_matrix(q))
    return np.abs(M_hat - M).max(), min(np.linalg.eigvalsh(M_hat[0]))
'''),
    A('lesson_passes', 'any eigenvalue but zero', ('negative', 'positive', 'sign'), '''
def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < PASS_MAX_ERROR and min_eig != 0
'''),
    A('symplectic_euler_step', 'q moved by the change of velocity', ('new velocity', 'qd_new', 'change'), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(q, qd)
    q_new = q + dt * (qd_new - qd)
    return (q_new, qd_new)
'''),
    A('symplectic_euler_step', 'f at a predicted position', ('current state', 'f(q, qd)'), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(q + dt * qd, qd)
    q_new = q + dt * qd_new
    return (q_new, qd_new)
'''),
    A('triple_pendulum', 'inertias m l / 12 written out', ('square', 'l^2'), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    return PlanarChain(m=[1, 1, 1], l=[1.0, 0.8, 0.6], lc=[0.5, 0.4, 0.3], I=[1 / 12, 0.8 / 12, 0.6 / 12])
'''),
    A('triple_pendulum', 'centres of mass a quarter along', ('halfway', 'middle'), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.ones(3)
    l = np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 4, I=m * l**2 / 12, g=9.81)
'''),
    A('computed_torque', 'the position error always zero (a typo)', ('position error', 'q_d - q', 'K_p e'), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q_d, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    A('computed_torque', 'the velocity error in both feedback terms', ('position error', 'K_p e', 'kp'), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e_dot
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    A('second_difference', 'computed on q transposed', ('transpose', 'rows', 'time'), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    q = q.T
    return ((q[:, 2:] - 2 * q[:, 1:-1] + q[:, :-2]) / h**2)
'''),
    A('second_difference', 'times -1 at the end', ('sign', 'minus'), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[:-2] - 2 * q[1:-1] + q[2:]) / h**2 * -1
'''),
    A('second_difference', 'the joints in reverse order', ('joint', 'column', 'order'), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return ((q[2:] - 2 * q[1:-1] + q[:-2]) / h**2)[:, ::-1]
'''),
]

# Written after the changes the third set led to, and measured once as they were: 8 of 25 named, 14 what differs,
# 1 misleading (M + M^T for M, named as a factor 2), 2 passed, both right (and since left out, below): the checks then
# gained the families these showed missing (a term of the law doubled or negated, M, c or g asked at the desired
# state in any combination, one configuration's error, a sum for a product, the input for the value, the position
# moved by the acceleration, the two bounds swapped), so none of the four sets is unseen any more.
FOURTH = [
    A('total_mass', 'the mass of every link but the first', ('missing', 'every link', 'first'), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return chain.m[1:].sum()
'''),
    A('total_mass', 'masses weighted by their lengths', ('chain.l', 'length', 'mass'), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return float(chain.m @ chain.l)
'''),
    A('is_valid_inertia', 'the smallest entry of the diagonal of the eigenvector matrix', ('eigenvalue', 'eigh'), '''
def is_valid_inertia(M, tol=1e-09):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigh(M)[1].min()
    return bool(asymmetry <= tol and smallest > 0)
'''),
    # (here was `smallest = eigvalsh(M).min() - tol` with `>= 0`: measured once, it passed, and fairly: a margin
    # of the learner's own tol, 1e-9, lies inside what the check allows, TOLERANCE.atol)
    A('kinetic_energy', 'qd on the right only', ('qd on the left', 'qd^T', 'left'), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.sum(Mqd)
    return T
'''),
    A('kinetic_energy', 'the trace of M times |qd|^2 / 2', ('trace', 'whole of M', 'qd^T M qd'), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.trace(M) * (qd @ qd)
    return T
'''),
    A('mass_matrix_from_rnea', 'the velocity set to the unit vector too', ('velocity', 'zero'), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        M[:, j] = chain.rnea(q, e_j, e_j, gravity=False)
    return M
'''),
    A('mass_matrix_from_rnea', 'the torque of e_j stored as row j plus column j', ('column j', 'store', 'row'), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        tau = chain.rnea(q, np.zeros(n), e_j, gravity=False)
        M[:, j] += tau
        M[j, :] += tau
    return M
'''),
    A('layer_jet', 'the slope and the rows added, not multiplied', ('multipl', 'times', 'chain rule'), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(z)[:, None, :] + (dh @ W.T)
    return (a, da)
'''),
    A('layer_jet', 'the value of the previous layer returned', ('value', 's(z)', 'activation'), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    da = ds(z)[:, None, :] * (dh @ W.T)
    return (h, da)
'''),
    A('coriolis_from_dM', 'c[i] divided by n at the end', ('factor', 'divide', 'n'), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[j] * qd[k]
        c[i] /= n
    return c
'''),
    # (here was `0.5 * (2 * dM[k, i, j] - dM[i, j, k])`: measured once, it passed, and rightly: the two added terms
    # are equal in the sum over j and k)
    A('errors_at', 'the largest error of the first configuration', ('whole batch', 'one configuration'), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = (model.mass_matrix(q), chain.mass_matrix(q))
    return np.abs(M_hat[0] - M[0]).max(), np.linalg.eigvalsh(M_hat).min()
'''),
    A('errors_at', 'the eigenvalues of M_hat + M', ('M_hat', 'learned', 'true M'), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = (model.mass_matrix(q), chain.mass_matrix(q))
    return np.abs(M_hat - M).max(), np.linalg.eigvalsh(M_hat + M).min()
'''),
    A('lesson_passes', 'the threshold and zero swapped', ('swapped', '0', 'threshold', 'argument'), '''
def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < 0 and min_eig > PASS_MAX_ERROR
'''),
    A('lesson_passes', 'returned as text', ('True or False', 'bool', 'text'), '''
def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return str(max_error < PASS_MAX_ERROR and min_eig > 0)
'''),
    A('symplectic_euler_step', 'the position moved by the acceleration', ('velocity', 'qd_new', 'position'), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(q, qd)
    q_new = q + dt * f(q, qd)
    return (q_new, qd_new)
'''),
    A('symplectic_euler_step', 'two explicit half steps', ('explicit', 'new velocity', 'old'), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_half = qd + dt / 2 * f(q, qd)
    q_new = q + dt * qd
    qd_new = qd_half + dt / 2 * f(q, qd)
    return (q_new, qd_new)
'''),
    A('triple_pendulum', 'the lengths in cm', ('length', 'm', 'metre'), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.ones(3)
    l = np.array([100.0, 80.0, 60.0])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 12, g=9.81)
'''),
    A('triple_pendulum', 'two rods only', ('three', 'rod', 'links'), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.ones(2)
    l = np.array([1.0, 0.8])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 12, g=9.81)
'''),
    A('computed_torque', 'the desired acceleration through M, the rest outside', ('feedback', 'M(q)', 'through M'), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    return model.mass_matrix(q) @ qdd_d + kd * e_dot + kp * e + model.coriolis(q, qd) + model.gravity(q)
'''),
    A('computed_torque', 'c and g at the desired state', ('desired', 'actual', 'q_d'), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q_d, qd_d) + model.gravity(q_d)
'''),
    A('computed_torque', 'the acceleration error fed back too', ('feedback', 'qdd_d', 'commanded'), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = 2 * qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    A('second_difference', 'a forward second difference (rows shifted)', ('sample', 'row', 'k + 1', 'shift'), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - 2 * q[1:-1] + q[:-2])[:-1].tolist() + [((q[-1] - 2 * q[-2] + q[-3]) / h**2).tolist()]
'''),
    A('second_difference', 'divided by h^2 for the first joint only', ('joint', 'column', 'h'), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    out = (q[2:] - 2 * q[1:-1] + q[:-2])
    out[:, 0] = out[:, 0] / h**2
    return out
'''),
]

# Written blind (before reading lesson_course/checks/diagnosis.py, tests/check_cases.py or the sets above: only the
# learners' notebooks, their stubs and text): 162 answers, of which the 60 that return what one of the tests' wrong
# answers returns (tests/test_checks_diagnosis.py's fingerprint) were left out before any measurement, so that these
# are answers the tests do not contain.  Measured once as written: see the comment after the list.
FIFTH = [
    # ------------------------------------------------------------------ 00 total_mass
    A("total_mass", "the last link only", ("last", "one link", "only one", "every link"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return chain.m[-1]
'''),
    A("total_mass", "each mass weighted by its centre's distance (a first moment, not a mass)",
      ("lc", "centre", "weighted", "moment", "distance"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return np.sum(chain.m * chain.lc)
'''),
    A("total_mass", "the weight in newtons, not the mass in kg", ("weight", "9.81", "newton", "gravity", " g "), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return np.sum(chain.m) * 9.81
'''),
    A("total_mass", "the loop's range stops one link short", ("last", "range", "off-by-one", "one link"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    total = 0.0
    for i in range(len(chain.m) - 1):
        total += chain.m[i]
    return total
'''),
    A("total_mass", "the running sum (an array), not the total", ("cumsum", "cumulative", "running", "one number"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return np.cumsum(chain.m)
'''),
    # ------------------------------------------------------------------ 01 is_valid_inertia
    A("is_valid_inertia", "only the top-left 2 x 2 block's eigenvalues",
      ("block", "2 × 2", "2 x 2", "top-left", "size"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(M[:2, :2])[0]
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "the eigenvalues' sizes, so a negative one counts as positive",
      ("absolute", "abs", "sign", "negative"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.min(np.abs(np.linalg.eigvals(M)))
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "the trace (the sum of the eigenvalues) for the smallest one", ("trace", "sum"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.trace(M)
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "a Cholesky factorisation that raises on a matrix that is not positive-definite",
      ("cholesky", "linalgerror", "not positive"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.min(np.diag(np.linalg.cholesky(M)))
    return bool(asymmetry <= tol and smallest > 0)
'''),
    # ------------------------------------------------------------------ 02 kinetic_energy
    A("kinetic_energy", "half of M qd, a vector: the product with qd is missing",
      ("vector", "dot", "one number", "qd @", "scalar"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * Mqd
    return T
'''),
    A("kinetic_energy", "summed M qd instead of taking its dot product with qd", ("qd", "dot", "sum"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.sum(Mqd)
    return T
'''),
    A("kinetic_energy", "M qd with itself, not with qd", ("with itself", "twice", "squared", "qd"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * Mqd @ Mqd
    return T
'''),
    A("kinetic_energy", "the first joint's term only",
      ("first joint", "one joint", "joint 0", "every joint", "sum"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * qd[0] * Mqd[0]
    return T
'''),
    A("kinetic_energy", "the norm of qd instead of its square (a square root too few)",
      ("norm", "square", "squared"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.sqrt(qd @ Mqd)
    return T
'''),
    # ------------------------------------------------------------------ 02 mass_matrix_from_rnea
    A("mass_matrix_from_rnea", "the RNEA asked at zero angles, not at q",
      ("configuration", "zero angles", "given q", "at q"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        M[:, j] = chain.rnea(np.zeros(n), np.zeros(n), e_j, gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "the unit vector always has its 1 at joint 0", ("e_j", "unit", "column 0", "same column",
                                                                             "every column"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[0] = 1.0
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "a vector of ones for the unit vector", ("ones", "unit", "e_j", "sum"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        M[:, j] = chain.rnea(q, np.zeros(n), np.ones(n), gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "added the torque to every row instead of storing column j",
      ("+=", "column j", "store", "every row", "add"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.eye(n)[j]
        M += chain.rnea(q, np.zeros(n), e_j, gravity=False)
    return M
'''),
    # ------------------------------------------------------------------ 02 layer_jet
    A("layer_jet", "the slope taken at a = s(z) instead of at z", ("at z", "ds(a)", "s'(z)", "s′(z)", "slope at"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(a)[:, None, :] * (dh @ W.T)
    return a, da
'''),
    A("layer_jet", "the new axis put first (None on the wrong axis)", ("none", "axis", "broadcast"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(z)[None] * (dh @ W.T)
    return a, da
'''),
    A("layer_jet", "the chain rule's product left out: the slope only times dh summed", ("w", "chain rule", "weights"),
      '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(z)[:, None, :] * np.sum(dh, axis=2, keepdims=True)
    return a, da
'''),
    # ------------------------------------------------------------------ 02 coriolis_from_dM
    A("coriolis_from_dM", "only the terms with j = k (the cross terms missing)",
      ("j = k", "cross", "both j and k", "only"),
      '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            gamma = 0.5 * (dM[j, i, j] + dM[j, i, j] - dM[i, j, j])
            c[i] += gamma * qd[j] ** 2
    return c
'''),
    A("coriolis_from_dM", "qd_j squared for qd_j qd_k", ("qd[k]", "qd_k", "twice", "both"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[j] * qd[j]
    return c
'''),
    A("coriolis_from_dM", "the k loop stops one short", ("range", "every", "last", "off-by-one"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n - 1):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[j] * qd[k]
    return c
'''),
    # ------------------------------------------------------------------ 03 errors_at
    A("errors_at", "the largest signed error, no absolute value", ("abs", "absolute", "sign"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(M_hat - M), np.linalg.eigvalsh(M_hat).min()
'''),
    A("errors_at", "each state's smallest eigenvalue, not the smallest over the batch",
      ("batch", "every state", "one number", "over the"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(np.abs(M_hat - M)), np.linalg.eigvalsh(M_hat)[:, 0]
'''),
    A("errors_at", "the eigenvalues of the difference M_hat - M", ("difference", "m_hat - m", "m_hat"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.abs(M_hat - M).max(), np.linalg.eigvalsh(M_hat - M).min()
'''),
    A("errors_at", "each state's matrix norm of the error, not the largest entry", ("norm", "entry", "frobenius"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(np.linalg.norm(M_hat - M, axis=(1, 2))), np.linalg.eigvalsh(M_hat).min()
'''),
    A("errors_at", "the first configuration only", ("first", "one state", "batch", "every"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(np.abs(M_hat[0] - M[0])), np.linalg.eigvalsh(M_hat[0]).min()
'''),
    # ------------------------------------------------------------------ 04 lesson_passes
    A("lesson_passes", "an error equal to the threshold passes (<= for <)",
      ("boundary", "<=", "below", "strict", "equal"),
      '''
def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error <= PASS_MAX_ERROR and min_eig > 0
'''),
    A("lesson_passes", "or for and", (" or", "and", "both"), '''
def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < PASS_MAX_ERROR or min_eig > 0
'''),
    A("lesson_passes", "the threshold typed in as 0.2 instead of PASS_MAX_ERROR",
      ("pass_max_error", "hard", "typed", "0.2", "threshold"), '''
def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < 0.2 and min_eig > 0
'''),
    A("lesson_passes", "the eigenvalue's size, so a negative one passes", ("abs", "negative", "sign"), '''
def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < PASS_MAX_ERROR and abs(min_eig) > 0
'''),
    # ------------------------------------------------------------------ 05 symplectic_euler_step
    A("symplectic_euler_step", "qd changed in place: the caller's array changes", ("in place", "caller", "+=", "modif",
                                                                                  "change"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd += dt * f(q, qd)
    q_new = q + dt * qd
    return q_new, qd
'''),
    A("symplectic_euler_step", "the old velocity returned (a stale variable)",
      ("old", "qd_new", "stale", "velocity"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(q, qd)
    q_new = q + dt * qd_new
    return q_new, qd
'''),
    # ------------------------------------------------------------------ 06 triple_pendulum
    A("triple_pendulum", "the inertia about the joint, m l^2/3, not about the centre",
      ("inertia", "centre", "/3", "12"),
      '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m, l = np.ones(3), np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 3, g=9.81)
'''),
    A("triple_pendulum", "g given as -9.81", ("sign", "gravity", "g ", "-9.81"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m, l = np.ones(3), np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 12, g=-9.81)
'''),
    A("triple_pendulum", "the length not squared in the inertia", ("square", "l²", "l**2", "inertia"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m, l = np.ones(3), np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l / 12, g=9.81)
'''),
    A("triple_pendulum", "masses proportional to the lengths, not 1 kg each", ("mass", "1 kg", "m "), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    l = np.array([1.0, 0.8, 0.6])
    m = l.copy()
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 12, g=9.81)
'''),
    A("triple_pendulum", "the double pendulum's two masses kept", ("mass", "three", "shape", "two", "entries"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m, l = np.array([1.0, 1.0]), np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 12, g=9.81)
'''),
    A("triple_pendulum", "the inertia with the half length (lc for l)", ("inertia", "l²", "length", "lc"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m, l = np.ones(3), np.array([1.0, 0.8, 0.6])
    lc = l / 2
    return PlanarChain(m=m, l=l, lc=lc, I=m * lc**2 / 12, g=9.81)
'''),
    # ------------------------------------------------------------------ 06 triple_delan
    A("triple_delan", "a DeLaN for two joints (n_dof left at its default)",
      ("n_dof", "three", "3 joints", "joints"), '''
def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(seed=0, lr=1e-2, batch_size=96)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=3000)
    return model
'''),
    A("triple_delan", "far too few steps", ("steps", "longer", "train"), '''
def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=3, seed=0)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=50)
    return model
'''),
    A("triple_delan", "the trained model not returned", ("return", "none"), '''
def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=3, seed=0, lr=1e-2, batch_size=96)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=3000)
'''),
    # ------------------------------------------------------------------ 07 computed_torque
    A("computed_torque", "M times a entry by entry", ("@", "matrix product", "entry by entry", "element"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return np.sum(model.mass_matrix(q) * a, axis=0) + model.coriolis(q, qd) + model.gravity(q)
'''),
    A("computed_torque", "the Coriolis torque at the desired state", ("desired", "actual", "q_d", "state"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q_d, qd_d) + model.gravity(q)
'''),
    A("computed_torque", "the torque computed but not returned", ("return", "none"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    tau = model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    A("computed_torque", "the velocity error's sign flipped (qd - qd_d)",
      ("sign", "e_dot", "velocity error", "qd_d - qd"),
      '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e = q_d - q
    e_dot = qd - qd_d
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    # ------------------------------------------------------------------ 08 second_difference
    A("second_difference", "the slices shifted by one sample", ("shift", "slice", "one sample", "shape", "t - 2"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[3:] - 2 * q[2:-1] + q[1:-2]) / h**2
'''),
    A("second_difference", "np.gradient twice: a stencil two steps wide, one-sided at the ends",
      ("gradient", "stencil", "2h", "neighbour", "wide"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return np.gradient(np.gradient(q, h, axis=0), h, axis=0)[1:-1]
'''),
    A("second_difference", "the later first difference subtracted from the earlier (a sign)",
      ("sign", "minus", "order"),
      '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    forward = (q[2:] - q[1:-1]) / h
    backward = (q[1:-1] - q[:-2]) / h
    return (backward - forward) / h
'''),
    # ------------------------------------------------------------------ more of them, written blind too
    A("total_mass", "the first link left out (the slice starts at 1)", ("first", "slice", "[1:]", "one link"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return sum(chain.m[1:])
'''),
    A("total_mass", "the sum of the squared masses", ("square", "m @ m", "m**2"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return float(chain.m @ chain.m)
'''),
    A("total_mass", "the product of the masses", ("product", "prod", "multipl"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return np.prod(chain.m)
'''),
    A("total_mass", "the masses added into the chain's own array (it changes the chain), two links only",
      ("change", "in place", "chain's", "caller", "modif"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    m = chain.m
    m[0] += m[1]
    return m[0]
'''),
    A("is_valid_inertia", "the second eigenvalue (index 1 for the first)", ("[0]", "first", "second", "index"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(M)[1]
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "the eigenvalues of M^T M (never negative)",
      ("m.t @ m", "square", "singular", "never negative"),
      '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(M.T @ M)[0]
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "the smallest singular value (never negative)", ("singular", "svd", "never negative"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.svd(M, compute_uv=False).min()
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "an eigenvector's entry, not an eigenvalue", ("eigenvector", "eigh", "[1]"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigh(M)[1][0, 0]
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "the eigenvalues of |M| (every entry made positive)",
      ("abs", "entries", "negative entry"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(np.abs(M))[0]
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "the smallest row sum", ("row", "sum"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.min(np.sum(M, axis=1))
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("kinetic_energy", "the quadratic form squared", ("square", "**2"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * (qd @ Mqd) ** 2
    return T
'''),
    A("kinetic_energy", "M's diagonal only (the coupling left out)", ("diagonal", "off-diagonal", "coupling"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.sum(np.diag(M) * qd**2)
    return T
'''),
    A("kinetic_energy", "the mean over joints, not the sum", ("mean", "number of joints", "len", "divided"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = np.sum(0.5 * Mqd * qd) / len(qd)
    return T
'''),
    A("kinetic_energy", "rounded to three decimals", ("round", "decimal"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = round(0.5 * qd @ Mqd, 3)
    return T
'''),
    A("kinetic_energy", "a list holding the number", ("list", "one number"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = [0.5 * qd @ Mqd]
    return T
'''),
    A("mass_matrix_from_rnea", "gravity taken off with the torque at rest computed with gravity on (so -g remains)",
      ("gravity",), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False) - chain.rnea(q, np.zeros(n), np.zeros(n))
    return M
'''),
    A("mass_matrix_from_rnea", "return inside the loop: only column 0 is filled",
      ("return", "inside the loop", "indent",
                                                                                  "first column", "column 0"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False)
        return M
    return M
'''),
    A("mass_matrix_from_rnea", "the diagonal entry stored in the whole column",
      ("[j]", "diagonal", "whole column", "column"),
      '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False)[j]
    return M
'''),
    A("mass_matrix_from_rnea", "a unit vector of -1", ("sign", "-1", "minus"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j] = -1.0
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False)
    return M
'''),
    A("layer_jet", "W h written literally: W @ h.T, states as columns", ("transpose", "h.t", "shape", "rows"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = W @ h.T + b
    a = s(z)
    da = ds(z)[:, None, :] * (dh @ W.T)
    return a, da
'''),
    A("layer_jet", "the bias added outside the activation", ("bias", "inside", "s("), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T
    a = s(z) + b
    da = ds(z)[:, None, :] * (dh @ W.T)
    return a, da
'''),
    A("layer_jet", "the pair returned in the other order", ("order", "swap", "pair"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(z)[:, None, :] * (dh @ W.T)
    return da, a
'''),
    A("coriolis_from_dM", "one velocity only: C's row summed over k times qd_k, linear in qd",
      ("quadratic", "qd[j]", "both", "linear"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[k]
    return c
'''),
    A("coriolis_from_dM", "the matrix C returned, not c = C qd", ("matrix", "c qd", "vector", "shape"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    C = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            for k in range(n):
                C[i, j] += 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k]) * qd[k]
    return C
'''),
    A("coriolis_from_dM", "k only from j on: the cross terms counted once",
      ("range(j", "cross", "both orders", "k >= j",
                                                                           "once"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(j, n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[j] * qd[k]
    return c
'''),
    A("coriolis_from_dM", "vectorised, the second term with the wrong index (Mdot qd again)",
      ("term", "index", "dm/dq_i",
                                                                                          "half"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    c = np.einsum("kij,j,k->i", dM, qd, qd) - 0.5 * np.einsum("kij,j,k->i", dM, qd, qd)
    return c
'''),
    A("errors_at", "the largest error per entry, an array (the axis of the batch only)",
      ("axis", "one number", "every entry", "array"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(np.abs(M_hat - M), axis=0), np.linalg.eigvalsh(M_hat).min()
'''),
    A("errors_at", "the sizes' difference |M_hat| - |M|, not the size of the difference", ("abs", "difference"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(np.abs(M_hat) - np.abs(M)), np.linalg.eigvalsh(M_hat).min()
'''),
    A("errors_at", "the root-mean-square error, not the largest", ("rms", "root", "mean", "largest"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.sqrt(np.mean((M_hat - M) ** 2)), np.linalg.eigvalsh(M_hat).min()
'''),
    A("errors_at", "the smallest entry of M_hat, not its smallest eigenvalue", ("eigenvalue", "entry"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(np.abs(M_hat - M)), np.min(M_hat)
'''),
    A("errors_at", "a relative error (divided by the largest entry of M)", ("relative", "divide", "scale"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(np.abs(M_hat - M)) / np.max(np.abs(M)), np.linalg.eigvalsh(M_hat).min()
'''),
    A("lesson_passes", "both boundaries let through (not > and not <)", ("boundary", "equal", "<=", ">=", "strict"), '''
def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return not (max_error > PASS_MAX_ERROR or min_eig < 0)
'''),
    A("symplectic_euler_step", "both orders mixed: velocity at the moved position, then the position moved again",
      ("both", "twice", "variant", "mix", "order"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    q_new = q + dt * qd
    qd_new = qd + dt * f(q_new, qd)
    q_new = q + dt * qd_new
    return q_new, qd_new
'''),
    A("symplectic_euler_step", "f's arguments in the other order", ("argument", "order", "f(q, qd)", "swap"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(qd, q)
    q_new = q + dt * qd_new
    return q_new, qd_new
'''),
    A("symplectic_euler_step", "dt missing in the position update", ("dt", "time step"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(q, qd)
    q_new = q + qd_new
    return q_new, qd_new
'''),
    A("symplectic_euler_step", "half the acceleration (a factor 1/2)", ("half", "factor", "1/2"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(q, qd) / 2
    q_new = q + dt * qd_new
    return q_new, qd_new
'''),
    A("triple_pendulum", "every inertia as a 1 m rod's (the length left out)", ("inertia", "length", "l**2", "l²"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m, l = np.ones(3), np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m / 12, g=9.81)
'''),
    A("triple_pendulum", "the lengths in centimetres", ("unit", "cm", "centimetre", "metre"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m, l = np.ones(3), np.array([100.0, 80.0, 60.0])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 12, g=9.81)
'''),
    A("triple_delan", "qd and qdd passed in the other order", ("argument", "order", "swap", "qd", "qdd"), '''
def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=3, seed=0, lr=1e-2, batch_size=96)
    model.fit(data["q"], data["qdd"], data["qd"], data["tau"], steps=3000)
    return model
'''),
    A("triple_delan", "a learning rate far too large (training diverges)", ("learning rate", "lr", "diverge"), '''
def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=3, seed=0, lr=5.0, batch_size=96)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=3000)
    return model
'''),
    A("computed_torque", "the mass matrix at the desired angles", ("desired", "actual", "q_d", "mass matrix"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q_d) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    A("computed_torque", "gravity at the desired angles", ("desired", "actual", "q_d", "gravity"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q_d)
'''),
    A("computed_torque", "np.diag(kp) for the gains: raises on one number",
      ("scalar", "one number", "one gain", "diag"),
      '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + np.diag(kd) @ e_dot + np.diag(kp) @ e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    A("computed_torque", "the Coriolis torque at the desired velocity", ("desired", "actual", "qd_d", "velocity"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd_d) + model.gravity(q)
'''),
    A("computed_torque", "M's inverse for M (solve)", ("inverse", "solve", "m @"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return np.linalg.solve(model.mass_matrix(q), a) + model.coriolis(q, qd) + model.gravity(q)
'''),
    A("computed_torque", "c dotted with qd again (c is already C qd)", ("c @ qd", "coriolis", "already", "c qd"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) @ qd + model.gravity(q)
'''),
    A("second_difference", "brackets missing: / h * h divides by nothing", ("bracket", "parenth", "precedence", "h²",
                                                                          "h**2"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - 2 * q[1:-1] + q[:-2]) / h * h
'''),
    A("second_difference", "the result transposed", ("transpose", "shape", "(t - 2, n)"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return ((q[2:] - 2 * q[1:-1] + q[:-2]) / h**2).T
'''),
    A("second_difference", "no division at all", ("h²", "h**2", "divide"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return q[2:] - 2 * q[1:-1] + q[:-2]
'''),
    A("second_difference", "every sample, the ends padded (shape T, not T - 2)",
      ("shape", "ends", "t - 2", "inner"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return np.diff(q, n=2, axis=0, prepend=q[:1], append=q[-1:]) / h**2
'''),
    A("second_difference", "an extra factor 2 (from the central difference's 2h)", ("factor", "2h", "half", "2"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - 2 * q[1:-1] + q[:-2]) / (2 * h**2)
'''),
]
# Measured once as written, on the diagnosis of commit 861ed31 (the words rule, as the sets before): 76 named (75 %),
# 21 what differs, 4 misleading, 1 passed (lesson_passes with 0.2 typed for PASS_MAX_ERROR: right for today's
# threshold).  Judged the way the module's text says (claims about behaviour tried on fresh inputs), the same run:
# 77 named, 21 what differs, 3 misleading, 1 passed.  The 60 answers left out (a test's): 55 named by the words, 59 by
# the fair rule.

# Written blind (before reading lesson_course/checks/diagnosis.py, the checks, tests/check_cases.py or the sets above:
# only the learners' notebooks, their stubs and text, and lesson_lib), as a class of learners would write them: 153
# answers, of which the 59 that return what one of the tests' wrong answers returns (tests/test_checks_diagnosis.py's
# fingerprint) were left out before any measurement.  Measured once as written: see the comment after the list.
SIXTH = [
    # ------------------------------------------------------------------ 00 total_mass
    A("total_mass", "the product of the masses, not their sum", ("product", "multipl", "prod"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return np.prod(chain.m)
'''),
    A("total_mass", "the lengths summed, not the masses", ("length", "chain.l", "metre"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return np.sum(chain.l)
'''),
    A("total_mass", "grams, not kilograms", ("gram", "1000", "unit", "kg"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return 1000 * np.sum(chain.m)
'''),
    A("total_mass", "the inertias added to the masses", ("inertia", "chain.I", "extra", "I"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return float(np.sum(chain.m + chain.I))
'''),
    A("total_mass", "the heaviest link only", ("largest", "max", "one link", "heaviest"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return chain.m.max()
'''),
    A("total_mass", "half the sum", ("half", "factor", "2", "0.5"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return sum(chain.m) / 2
'''),
    A("total_mass", "the first link left out ([1:])", ("first", "one link", "[1:]", "slice", "every link"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return np.sum(chain.m[1:])
'''),
    # ------------------------------------------------------------------ 01 is_valid_inertia
    A("is_valid_inertia", "the eigenvalues' sizes: the absolute value loses the sign",
      ("absolute", "abs", "sign", "negative"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.min(np.abs(np.linalg.eigvalsh(M)))
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "the trace (the sum of the eigenvalues) for the smallest one", ("trace", "sum"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.trace(M)
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "a Cholesky factor, which raises on a matrix that is not positive-definite",
      ("cholesky", "raise", "linalgerror", "not positive"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.cholesky(M)[0, 0]
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "the second eigenvalue ([1]), not the first", ("second", "index", "[0]", "first", "smallest"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(M)[1]
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "all the eigenvalues, an array, not the smallest one: bool of an array raises",
      ("array", "one number", "[0]", "min", "truth value", "ambiguous"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(M)
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "the smallest singular value (never negative) for the smallest eigenvalue",
      ("singular", "svd", "sign", "negative"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = min(np.linalg.svd(M)[1])
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "an eigenvector's entry (eigh's second output) for the eigenvalue",
      ("eigenvector", "eigh", "vector", "values"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigh(M)[1][0, 0]
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "the smallest eigenvalue squared: the sign lost", ("square", "sign", "negative"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.min(np.linalg.eigvalsh(M)) ** 2
    return bool(asymmetry <= tol and smallest > 0)
'''),
    # ------------------------------------------------------------------ 02 kinetic_energy
    A("kinetic_energy", "only the diagonal of M (the cross terms dropped)",
      ("diagonal", "off-diagonal", "cross"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.sum(np.diag(M) * qd**2)
    return T
'''),
    A("kinetic_energy", "|M qd|²: M applied twice", ("twice", "m twice", "m^2", "m²", "squared", "mqd"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * Mqd @ Mqd
    return T
'''),
    A("kinetic_energy", "the entries of M qd summed: qd left out of the second factor",
      ("qd", "velocity", "sum", "missing", "linear"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 1 / 2 * np.sum(Mqd)
    return T
'''),
    A("kinetic_energy", "a square root taken", ("sqrt", "square root", "quadratic", "scale", "linear"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.sqrt(qd @ Mqd)
    return T
'''),
    A("kinetic_energy", "the product of the norms, not the dot product",
      ("norm", "dot", "angle", "cauchy"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.linalg.norm(Mqd) * np.linalg.norm(qd)
    return T
'''),
    A("kinetic_energy", "the outer product (a matrix) for the dot product",
      ("one number", "outer", "shape", "matrix"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.outer(qd, Mqd)
    return T
'''),
    A("kinetic_energy", "M qd's entries reversed against qd", ("reverse", "order", "index", "[::-1]"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * qd @ Mqd[::-1]
    return T
'''),
    # ------------------------------------------------------------------ 02 mass_matrix_from_rnea
    A("mass_matrix_from_rnea", "a vector of ones, not a unit vector: every column the row sums",
      ("unit", "ones", "sum", "e_j"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.ones(n)
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "the 1 always in place 0: every column is column 0",
      ("e_0", "same column", "index", "place j", "column 0", "first column"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[0] = 1.0
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "the configuration ignored (M at q = 0)",
      ("configuration", "q = 0", "zero angles", "ignores q", "angles"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        M[:, j] = chain.rnea(np.zeros(n), np.zeros(n), e_j, gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "the 1 one place early (j - 1): the columns shifted",
      ("shift", "off-by-one", "index", "j - 1", "j-1", "order", "roll"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j - 1] = 1.0
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "the unit vector's size hard-coded to 2 joints",
      ("n_dof", "2", "size", "three joints", "3", "shape"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(2)
        e_j[j] = 1.0
        M[:, j] = chain.rnea(q, np.zeros(2), e_j, gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "the torque at rest subtracted, but with gravity on there and off in the column: "
      "the column minus g(q)", ("gravity", "g(q)", "subtract", "rest"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False) - chain.rnea(q, np.zeros(n), np.zeros(n))
    return M
'''),
    # ------------------------------------------------------------------ 02 layer_jet
    A("layer_jet", "the slope taken at the activation a, not at z", ("z", "pre-activation", "s(z)", "ds(a)"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(a)[:, None] * (dh @ W.T)
    return a, da
'''),
    A("layer_jet", "the bias left out of z", ("bias", "b"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T
    a = s(z)
    da = ds(z)[:, None] * (dh @ W.T)
    return a, da
'''),
    A("layer_jet", "a loop over k that uses dh[:, 0] every time (a stale index)",
      ("k", "index", "q_0", "first", "every k", "same"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = np.zeros((h.shape[0], dh.shape[1], W.shape[0]))
    for k in range(dh.shape[1]):
        da[:, k] = ds(z) * (dh[:, 0] @ W.T)
    return a, da
'''),
    A("layer_jet", "a loop over k that stops one short: the last derivative row stays 0",
      ("last", "range", "off-by-one", "zero", "k"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = np.zeros((h.shape[0], dh.shape[1], W.shape[0]))
    for k in range(dh.shape[1] - 1):
        da[:, k] = ds(z) * (dh[:, k] @ W.T)
    return a, da
'''),
    A("layer_jet", "the value and the derivative returned in the wrong order", ("order", "swap", "return"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(z)[:, None] * (dh @ W.T)
    return da, a
'''),
    A("layer_jet", "tanh's slope 1 - a² hard-coded instead of the given ds",
      ("ds", "tanh", "activation", "slope", "given"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = (1 - a**2)[:, None] * (dh @ W.T)
    return a, da
'''),
    # ------------------------------------------------------------------ 02 coriolis_from_dM
    A("coriolis_from_dM", "q̇_j q̇_j for q̇_j q̇_k", ("qd_k", "qd[k]", "qd_j", "square", "index", "k"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[j] * qd[j]
    return c
'''),
    A("coriolis_from_dM", "the sum over k stops one short", ("range", "off-by-one", "last", "k", "one short"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n - 1):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[j] * qd[k]
    return c
'''),
    A("coriolis_from_dM", "the sign of c flipped", ("sign", "minus", "negative"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] -= gamma * qd[j] * qd[k]
    return c
'''),
    A("coriolis_from_dM", "q̇ indexed as a matrix (q̇_jk): raises", ("index", "qd", "vector", "too many"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[j, k]
    return c
'''),
    A("coriolis_from_dM", "the third term's derivative index misplaced (dM[k, j, i]): ½ Ṁ q̇",
      ("index", "third term", "dm[i, j, k]", "derivative index", "christoffel"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[k, j, i])
                c[i] += gamma * qd[j] * qd[k]
    return c
'''),
    A("coriolis_from_dM", "only one q̇: Γ_ijk q̇_k (linear in q̇, not quadratic)",
      ("qd_j", "qd[j]", "velocity", "quadratic", "linear"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[k]
    return c
'''),
    A("coriolis_from_dM", "the matrix C built, then Cᵀ q̇ for C q̇", ("transpose", "c.t", "c^t", "index"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    C = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            for k in range(n):
                C[i, j] += 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k]) * qd[k]
    c = C.T @ qd
    return c
'''),
    A("coriolis_from_dM", "the notebook's dM_true used for the argument dM (a stale global)",
      ("dm_true", "argument", "global", "nameerror", "not defined"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM_true[k, i, j] + dM_true[j, i, k] - dM_true[i, j, k])
                c[i] += gamma * qd[j] * qd[k]
    return c
'''),
    # ------------------------------------------------------------------ 03 errors_at
    A("errors_at", "the absolute value left out of the error", ("abs", "absolute", "sign", "negative"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(M_hat - M), np.min(np.linalg.eigvalsh(M_hat))
'''),
    A("errors_at", "the eigenvalues of the error M_hat - M, not of M_hat",
      ("m_hat", "difference", "learned", "error matrix"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(np.abs(M_hat - M)), np.min(np.linalg.eigvalsh(M_hat - M))
'''),
    A("errors_at", "the largest eigenvalue, not the smallest", ("smallest", "largest", "max", "min"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(np.abs(M_hat - M)), np.max(np.linalg.eigvalsh(M_hat))
'''),
    A("errors_at", "the smallest eigenvalue of the first configuration only",
      ("first", "one configuration", "batch", "every configuration", "[0]"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(np.abs(M_hat - M)), np.linalg.eigvalsh(M_hat)[0].min()
'''),
    A("errors_at", "the Frobenius norm of each error matrix, not its largest entry",
      ("norm", "frobenius", "entry", "entry-wise"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(np.linalg.norm(M_hat - M, axis=(1, 2))), np.min(np.linalg.eigvalsh(M_hat))
'''),
    A("errors_at", "a relative error (divided by |M|)", ("relative", "divided", "absolute", "|m|"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(np.abs(M_hat - M) / np.abs(M)), np.min(np.linalg.eigvalsh(M_hat))
'''),
    A("errors_at", "the smallest diagonal entry of M_hat for its smallest eigenvalue",
      ("diagonal", "eigenvalue", "entries"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(np.abs(M_hat - M)), np.min(np.diagonal(M_hat, axis1=1, axis2=2))
'''),
    # ------------------------------------------------------------------ 04 lesson_passes
    A("lesson_passes", "<= for <: the threshold itself passes", ("boundary", "<=", "strict", "below", "equal"), '''
from lesson_lib.facts import PASS_MAX_ERROR      # the lesson's threshold on max |M_hat - M|


def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error <= PASS_MAX_ERROR and min_eig > 0
'''),
    A("lesson_passes", "or for and", ("and", "or", "both"), '''
from lesson_lib.facts import PASS_MAX_ERROR      # the lesson's threshold on max |M_hat - M|


def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < PASS_MAX_ERROR or min_eig > 0
'''),
    A("lesson_passes", "the eigenvalue's absolute value: a negative one passes",
      ("abs", "sign", "negative"), '''
from lesson_lib.facts import PASS_MAX_ERROR      # the lesson's threshold on max |M_hat - M|


def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < PASS_MAX_ERROR and abs(min_eig) > 0
'''),
    A("lesson_passes", "the threshold typed as 0.02", ("0.2", "threshold", "pass_max_error", "typo", "hard-coded"), '''
from lesson_lib.facts import PASS_MAX_ERROR      # the lesson's threshold on max |M_hat - M|


def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < 0.02 and min_eig > 0
'''),
    A("lesson_passes", "a tuple of the two conditions, not one bool (always truthy)",
      ("tuple", "and", "both", "one bool", "bool"), '''
from lesson_lib.facts import PASS_MAX_ERROR      # the lesson's threshold on max |M_hat - M|


def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < PASS_MAX_ERROR, min_eig > 0
'''),
    # ------------------------------------------------------------------ 05 symplectic_euler_step
    A("symplectic_euler_step", "half a step for the velocity", ("half", "1/2", "dt", "factor", "0.5"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + 0.5 * dt * f(q, qd)
    q_new = q + dt * qd_new
    return q_new, qd_new
'''),
    A("symplectic_euler_step", "f's arguments swapped", ("argument", "order", "swap", "f(q, qd)"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(qd, q)
    q_new = q + dt * qd_new
    return q_new, qd_new
'''),
    A("symplectic_euler_step", "dt² for dt in the velocity update", ("dt²", "dt**2", "square", "dt"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt**2 * f(q, qd)
    q_new = q + dt * qd_new
    return q_new, qd_new
'''),
    A("symplectic_euler_step", "a leapfrog (velocity Verlet) step, not symplectic Euler",
      ("verlet", "leapfrog", "half", "semi-implicit", "formula", "two evaluations"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_half = qd + 0.5 * dt * f(q, qd)
    q_new = q + dt * qd_half
    qd_new = qd_half + 0.5 * dt * f(q_new, qd_half)
    return q_new, qd_new
'''),
    A("symplectic_euler_step", "the acceleration taken at the new velocity (one fixed-point pass)",
      ("velocity", "current state", "f(q, qd)", "new velocity", "implicit"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(q, qd)
    qd_new = qd + dt * f(q, qd_new)
    q_new = q + dt * qd_new
    return q_new, qd_new
'''),
    A("symplectic_euler_step", "the position moved by the acceleration, not the velocity",
      ("velocity", "acceleration", "position", "qd_new"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(q, qd)
    q_new = q + dt * f(q, qd)
    return q_new, qd_new
'''),
    A("symplectic_euler_step", "the position update without dt", ("dt", "step", "position", "units"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(q, qd)
    q_new = q + qd_new
    return q_new, qd_new
'''),
    # ------------------------------------------------------------------ 06 triple_pendulum
    A("triple_pendulum", "the inertia about the rod's end, m l²/3, not about its centre",
      ("12", "3", "end", "centre", "center", "parallel axis"), '''
from lesson_lib import PlanarChain


def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m, l = np.ones(3), np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 3, g=9.81)
'''),
    A("triple_pendulum", "the inertia with l, not l²", ("square", "l²", "l**2", "l^2"), '''
from lesson_lib import PlanarChain


def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m, l = np.ones(3), np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l / 12, g=9.81)
'''),
    A("triple_pendulum", "g negative (gravity as a downward vector)", ("sign", "g", "negative", "gravity", ">= 0"), '''
from lesson_lib import PlanarChain


def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m, l = np.ones(3), np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 12, g=-9.81)
'''),
    A("triple_pendulum", "a list, not an array: l / 2 raises", ("list", "array", "np.array", "divide", "/"), '''
from lesson_lib import PlanarChain


def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m, l = [1.0, 1.0, 1.0], [1.0, 0.8, 0.6]
    return PlanarChain(m=m, l=l, lc=l / 2, I=[1.0 * x**2 / 12 for x in l], g=9.81)
'''),
    A("triple_pendulum", "the 1 kg split over the three rods (1/3 kg each)",
      ("mass", "1 kg", "each", "1/3", "third"), '''
from lesson_lib import PlanarChain


def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m, l = np.ones(3) / 3, np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 12, g=9.81)
'''),
    A("triple_pendulum", "the lengths in centimetres", ("unit", "cm", "centimetre", "metre", "100"), '''
from lesson_lib import PlanarChain


def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m, l = np.ones(3), np.array([100.0, 80.0, 60.0])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 12, g=9.81)
'''),
    A("triple_pendulum", "the inertia from lc, not l (a factor 4 too small)",
      ("lc", "length", "4", "factor", "l²"), '''
from lesson_lib import PlanarChain


def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m, l = np.ones(3), np.array([1.0, 0.8, 0.6])
    lc = l / 2
    return PlanarChain(m=m, l=l, lc=lc, I=m * lc**2 / 12, g=9.81)
'''),
    # ------------------------------------------------------------------ 06 triple_delan
    A("triple_delan", "a DeLaN for two joints (n_dof left at its default)",
      ("n_dof", "3", "three", "joints", "two"), '''
from lesson_lib import DeLaN


def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(seed=0, lr=1e-2, batch_size=96)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=3000)
    return model
'''),
    A("triple_delan", "the model never trained", ("fit", "train", "steps", "untrained"), '''
from lesson_lib import DeLaN


def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=3, seed=0, lr=1e-2, batch_size=96)
    return model
'''),
    A("triple_delan", "fit's losses returned, not the model", ("return", "model", "losses", "fit returns"), '''
from lesson_lib import DeLaN


def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=3, seed=0, lr=1e-2, batch_size=96)
    return model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=3000)
'''),
    A("triple_delan", "the velocities passed as the accelerations",
      ("qdd", "acceleration", "qd", "data", "argument"), '''
from lesson_lib import DeLaN


def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=3, seed=0, lr=1e-2, batch_size=96)
    model.fit(data["q"], data["qd"], data["qd"], data["tau"], steps=3000)
    return model
'''),
    A("triple_delan", "far too few steps", ("steps", "more", "longer", "training", "under"), '''
from lesson_lib import DeLaN


def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=3, seed=0, lr=1e-2, batch_size=96)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=20)
    return model
'''),
    A("triple_delan", "q and tau swapped in fit", ("order", "swap", "tau", "argument"), '''
from lesson_lib import DeLaN


def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=3, seed=0, lr=1e-2, batch_size=96)
    model.fit(data["tau"], data["qd"], data["qdd"], data["q"], steps=3000)
    return model
'''),
    A("triple_delan", "a learning rate far too large: training diverges",
      ("learning rate", "lr", "diverge"), '''
from lesson_lib import DeLaN


def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=3, seed=0, lr=10.0, batch_size=96)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=3000)
    return model
'''),
    # ------------------------------------------------------------------ 07 computed_torque
    A("computed_torque", "the Coriolis torque at the desired state", ("desired", "actual", "q_d", "state", "coriolis"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q_d, qd_d) + model.gravity(q)
'''),
    A("computed_torque", "M at the desired angles", ("desired", "actual", "q_d", "mass matrix"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q_d) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    A("computed_torque", "the gains applied with @ (a number has no matrix product)",
      ("@", "scalar", "number", "per joint", "gain"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd @ e_dot + kp @ e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    A("computed_torque", "the damping term K_d ė left out", ("kd", "damping", "e_dot", "velocity error", "derivative"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e = q_d - q
    a = qdd_d + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    A("computed_torque", "the Coriolis torque at the actual angles but the desired velocity",
      ("desired", "actual", "qd_d", "velocity", "coriolis"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd_d) + model.gravity(q)
'''),
    A("computed_torque", "gravity at the desired angles", ("desired", "actual", "q_d", "gravity"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q_d)
'''),
    A("computed_torque", "a typo in the position error: q_d - qd", ("e", "position error", "qd", "typo", "velocity"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - qd, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    A("computed_torque", "M⁻¹ a (solve) for M a", ("inverse", "solve", "m^-1", "m⁻¹", "mass matrix"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return np.linalg.solve(model.mass_matrix(q), a) + model.coriolis(q, qd) + model.gravity(q)
'''),
    A("computed_torque", "two mistakes: the errors reversed and gravity left out",
      ("sign", "gravity", "desired minus actual", "reversed", "g(q)"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q - q_d, qd - qd_d
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd)
'''),
    A("computed_torque", "K_p applied to the whole feedback: K_p (e + K_d ė)", ("gain", "kp", "kd", "product"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e, e_dot = q_d - q, qd_d - qd
    a = qdd_d + kp * (e + kd * e_dot)
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    # ------------------------------------------------------------------ 08 second_difference
    A("second_difference", "the factor 2 on the middle sample left out",
      ("2", "factor", "middle", "-2 q", "twice"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - q[1:-1] + q[:-2]) / h**2
'''),
    A("second_difference", "the middle slice q[1:] one sample too long: the shapes do not match",
      ("slice", "shape", "length", "1:-1", "broadcast"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - 2 * q[1:] + q[:-2]) / h**2
'''),
    A("second_difference", "the central difference taken twice (a step of 2h, T - 4 samples)",
      ("twice", "central", "2h", "shape", "t - 4", "length"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    qd = (q[2:] - q[:-2]) / (2 * h)
    return (qd[2:] - qd[:-2]) / (2 * h)
'''),
    A("second_difference", "divided by 2 h²", ("2", "half", "factor", "h²"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - 2 * q[1:-1] + q[:-2]) / (2 * h**2)
'''),
    A("second_difference", "one difference only, over h²", ("first", "once", "second", "twice", "shape"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return np.diff(q, axis=0) / h**2
'''),
    A("second_difference", "the sign flipped", ("sign", "minus", "negative"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (2 * q[1:-1] - q[2:] - q[:-2]) / h**2
'''),
    A("second_difference", "/ h * h: the precedence cancels the division",
      ("parenthes", "precedence", "h²", "h**2", "brackets"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - 2 * q[1:-1] + q[:-2]) / h * h
'''),
    A("second_difference", "the notebook's step 0.002 hard-coded for h", ("h", "step", "0.002", "hard-coded", "argument"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - 2 * q[1:-1] + q[:-2]) / 0.002**2
'''),
    A("second_difference", "the input modified in place (shifted to start at 0)",
      ("in place", "in-place", "modif", "input", "copy", "changed"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    q -= q[0]
    return (q[2:] - 2 * q[1:-1] + q[:-2]) / h**2
'''),
]
# Measured once as written, on the diagnosis of commit 1e5e7b9 (judged as the module's text says): 81 named (86 %),
# 4 located, 5 what differs, 4 misleading, 0 passed.  Misleading: e_j with its 1 always in place 0 (every column
# column 0), told to call the RNEA for every j; the notebook's dM_true for the argument dM (a NameError), told a loop
# variable is used outside its loop; a tuple of the two conditions, told to return True or False, not a text or a
# number; the central difference taken twice (T - 4 rows), told to return T - 2 rows.  The 59 left out (a test's) were
# not measured.

# Written blind (from the learners' notebooks 0*.ipynb and lesson_lib alone, by a helper that read neither the
# checks, their diagnosis, tests/ nor the sets above, and ran no check): 174 answers, of which the 70 that return
# what one of the tests' wrong answers returns (tests/test_checks_diagnosis.py's fingerprint) were left out before
# any measurement.  Measured once as written, on commit 33772ee: see the comment after the list.
SEVENTH = [
    A("total_mass", "the product of the masses, not their sum", ("product", "multipl", "prod"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return np.prod(chain.m)
'''),
    A("total_mass", "hard-coded two links: adds m[0] and m[1] only, so a third link is left out",
      ("two links", "first two", "third", "hard-coded", "n_dof", "every link", "last link"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return chain.m[0] + chain.m[1]
'''),
    A("total_mass", "in grams: multiplied the kilograms by 1000", ("gram", "1000", "unit", "kg"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    total = np.sum(chain.m)
    return total * 1000     # in g
'''),
    A("total_mass", "the weight in newtons (m g), not the mass", ("weight", "newton", "gravity", "chain.g", "9.81"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return np.sum(chain.m) * chain.g
'''),
    A("total_mass", "the running (cumulative) sums, an array, not one number", ("cumsum", "cumulative", "array", "one number", "running"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return np.cumsum(chain.m)
'''),
    A("total_mass", "skipped the first link: sums m[1:]", ("first link", "m[1:]", "skip", "off by one", "leaves out"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return np.sum(chain.m[1:])
'''),
    A("total_mass", "returned the list of masses (chain.params['m']), not their sum", ("list", "params", "sum", "one number"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return chain.params["m"]
'''),
    A("total_mass", "a string (an f-string with the unit), not a number", ("string", "str", "number", "text", "f-string"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return f"{np.sum(chain.m)} kg"
'''),
    A("total_mass", "summed the inertias I, not the masses", ("inertia", "chain.i", "moment"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    return sum(chain.I)
'''),
    A("total_mass", "a loop over range(n_dof - 1): the last link's mass is left out",
      ("last link", "range", "off by one", "n_dof - 1", "leaves out", "every link"), '''
def total_mass(chain):
    """The chain's total mass in kg."""
    total = 0.0
    for i in range(chain.n_dof - 1):
        total += chain.m[i]
    return total
'''),
    A("is_valid_inertia", "the eigenvalue smallest in absolute value: a negative-definite matrix passes",
      ("absolute", "abs", "magnitude", "negative"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.abs(np.linalg.eigvalsh(M)).min()
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "only the top-left 2x2 block's eigenvalues: a 3x3 matrix is judged by its corner",
      ("2x2", "2 × 2", "block", "corner", "size", "any n", "3x3", "3 × 3", "hard-coded"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(M[:2, :2]).min()
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "all the eigenvalues, not the smallest: the comparison of an array is ambiguous and raises",
      ("ambiguous", "array", "truth value", "min", "smallest", "one number"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(M)
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "eigvalsh of M^T M (squares of the singular values): never negative, so every invertible matrix passes",
      ("m.t @ m", "mᵀm", "transpose", "square", "singular", "never negative"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(M.T @ M).min()
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "a Cholesky factorisation in place of the eigenvalue: raises LinAlgError on a matrix that is not positive-definite",
      ("cholesky", "linalgerror", "raise", "not positive"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.cholesky(M).diagonal().min()
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "the second-smallest eigenvalue (index 1, off by one): for 2x2 the largest",
      ("index", "[1]", "second", "off by one", "largest", "[0]"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.sort(np.linalg.eigvalsh(M))[1]
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("is_valid_inertia", "the sum of the eigenvalues (the trace), not the smallest",
      ("sum", "trace", "smallest"), '''
def is_valid_inertia(M, tol=1e-9):
    """True when M is symmetric (to within tol) and positive-definite (every eigenvalue > 0)."""
    M = np.asarray(M, dtype=float)
    asymmetry = np.max(np.abs(M - M.T))
    smallest = np.linalg.eigvalsh(M).sum()
    return bool(asymmetry <= tol and smallest > 0)
'''),
    A("kinetic_energy", "returned the vector 1/2 M qd, not the number qd^T M qd / 2", ("vector", "one number", "scalar", "dot", "shape"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * Mqd
    return T
'''),
    A("kinetic_energy", "1/2 |M qd|^2: the product with itself, M applied twice", ("m twice", "twice", "|m qd|", "norm", "squared", "mqd @ mqd"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.linalg.norm(Mqd) ** 2
    return T
'''),
    A("kinetic_energy", "only the diagonal of M: drops the cross terms M_ij qd_i qd_j", ("diagonal", "diag", "cross", "off-diagonal", "coupling"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.sum(np.diag(M) * qd**2)
    return T
'''),
    A("kinetic_energy", "integer division 1 // 2 is 0: T is always zero", ("1 // 2", "//", "integer division", "zero", "0"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 1 // 2 * qd @ Mqd
    return T
'''),
    A("kinetic_energy", "halved the caller's qd in place (qd *= 0.5): the value is right but the learner's array is changed",
      ("in place", "in-place", "modif", "changes", "caller", "qd *="), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    qd *= 0.5
    T = qd @ Mqd
    return T
'''),
    A("kinetic_energy", "the square root of the quadratic form", ("sqrt", "square root", "root"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.sqrt(qd @ Mqd)
    return T
'''),
    A("kinetic_energy", "written out for two joints only: a third joint's terms are missing",
      ("two joints", "2 joints", "hard-coded", "third", "3 joints", "n joints"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * (M[0, 0] * qd[0]**2 + 2 * M[0, 1] * qd[0] * qd[1] + M[1, 1] * qd[1]**2)
    return T
'''),
    A("kinetic_energy", "the outer product: a matrix, not a number", ("outer", "matrix", "one number", "scalar", "shape"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.outer(qd, Mqd)
    return T
'''),
    A("kinetic_energy", "the sum of the entries of M qd, never dotted with qd (linear in qd)", ("sum", "linear", "dot", "qd once", "quadratic"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.sum(Mqd)
    return T
'''),
    A("kinetic_energy", "the trace of M times |qd|^2, as if M were a scalar mass", ("trace", "scalar", "diagonal", "cross"), '''
def kinetic_energy(M, qd):
    """T = 1/2 qd^T M qd (J) for one state: M of shape (n, n), qd of shape (n,)."""
    Mqd = M @ qd
    T = 0.5 * np.trace(M) * np.dot(qd, qd)
    return T
'''),
    A("mass_matrix_from_rnea", "q and the unit vector swapped in the call: rnea(e_j, 0, q)",
      ("swap", "order", "argument", "configuration", "q"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.eye(n)[j]
        M[:, j] = chain.rnea(e_j, np.zeros(n), q, gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "a vector of ones, not the unit vector: every column is M times ones (the row sums)",
      ("ones", "unit vector", "e_j", "row sum", "every column"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.ones(n)
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "the 1 one place early (e_j[j - 1]): columns shifted round by one",
      ("off by one", "shift", "j - 1", "j-1", "index", "place j", "column"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j - 1] = 1.0
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "return inside the loop: only column 0 is filled, the rest stay zero",
      ("return", "loop", "indent", "first column", "only column", "zero"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False)
        return M
    return M
'''),
    A("mass_matrix_from_rnea", "one unit vector made before the loop and never reset: column j is the sum of columns 0..j",
      ("reset", "accumulat", "cumulative", "sum of columns", "unit vector", "before the loop", "reuse"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    e_j = np.zeros(n)
    for j in range(n):
        e_j[j] = 1.0
        M[:, j] = chain.rnea(q, np.zeros(n), e_j, gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "the whole identity passed as qdd inside the loop: a batch of n torques into one column (shape mismatch)",
      ("shape", "broadcast", "np.eye", "identity", "batch", "unit vector"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        M[:, j] = chain.rnea(q, np.zeros(n), np.eye(n), gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "hard-coded 2 joints in the unit vector: fails on the 3-joint chain",
      ("hard-coded", "2 joints", "n_dof", "three", "3 joints", "zeros(2)", "shape"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(2)
        e_j[j] = 1
        M[:, j] = chain.rnea(q, np.zeros(2), e_j, gravity=False)
    return M
'''),
    A("mass_matrix_from_rnea", "the notebook's global velocity qd instead of zero velocity (a name undefined in a fresh kernel)",
      ("qd", "velocity", "global", "not defined", "nameerror", "zero velocity"), '''
def mass_matrix_from_rnea(chain, q):
    """M(q), shape (n, n), built column by column from inverse dynamics."""
    n = chain.n_dof
    M = np.zeros((n, n))
    for j in range(n):
        e_j = np.zeros(n)
        e_j[j] = 1.0
        M[:, j] = chain.rnea(q, qd, e_j, gravity=False)
    return M
'''),
    A("layer_jet", "the slope taken at the output a = s(z), not at z", ("ds(a)", "at a", "at z", "slope", "output"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(a)[:, None, :] * (dh @ W.T)
    return a, da
'''),
    A("layer_jet", "returned (da, a): value and derivative swapped", ("order", "swap", "(a, da)", "return"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = (dh @ W.T) * ds(z)[:, None, :]
    return da, a
'''),
    A("layer_jet", "a loop over k that stops one short: the last derivative row stays zero",
      ("last", "range", "off by one", "n - 1", "zero", "loop"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    B, n, _ = dh.shape
    da = np.zeros((B, n, W.shape[0]))
    for k in range(n - 1):
        da[:, k] = ds(z) * (dh[:, k] @ W.T)
    return a, da
'''),
    A("layer_jet", "the slope by a forward finite difference instead of ds: off by about 1e-5",
      ("finite difference", "ds", "numerical", "exact", "step"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    eps = 1e-4
    slope = (s(z + eps) - s(z)) / eps
    da = slope[:, None, :] * (dh @ W.T)
    return a, da
'''),
    A("layer_jet", "the derivative rows summed over k (keepdims) before the layer: every row the same",
      ("sum", "every row", "same", "k axis", "axis"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(z)[:, None, :] * (np.sum(dh, axis=1, keepdims=True) @ W.T)
    da = np.repeat(da, dh.shape[1], axis=1)
    return a, da
'''),
    A("layer_jet", "W applied from the left to the columns: a comes out transposed, (H_out, B)",
      ("transpose", "shape", "(h_out, b)", "rows", "w @ h"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = W @ h.T + b[:, None]
    a = s(z)
    da = ds(z.T)[:, None, :] * (dh @ W.T)
    return a, da
'''),
    A("layer_jet", "the new axis in the wrong place: s'(z)[:, :, None] against (B, n, H)",
      ("none", "axis", "broadcast", "shape", "[:, none"), '''
def layer_jet(W, b, h, dh, s, ds):
    """One layer a = s(W h + b) on the jet (h, dh): h (B, H_in), dh (B, n, H_in) with dh[:, k] = dh/dq_k.
    Returns a (B, H_out) and da (B, n, H_out) with da[:, k] = da/dq_k."""
    z = h @ W.T + b
    a = s(z)
    da = ds(z)[:, :, None] * (dh @ W.T)
    return a, da
'''),
    A("coriolis_from_dM", "one velocity factor only: linear in qd, not quadratic", ("linear", "quadratic", "qd_j", "once", "velocit"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                c[i] += 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k]) * qd[k]
    return c
'''),
    A("coriolis_from_dM", "the loops stop one short (range(n - 1)): the last joint is never summed",
      ("range", "off by one", "last joint", "n - 1", "n-1", "loop"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n - 1):
            for k in range(n - 1):
                gamma = 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k])
                c[i] += gamma * qd[j] * qd[k]
    return c
'''),
    A("coriolis_from_dM", "return inside the loop over i: only c[0] is computed", ("return", "loop", "indent", "first", "c[0]", "only"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                c[i] += 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k]) * qd[j] * qd[k]
        return c
'''),
    A("coriolis_from_dM", "returned the matrix C(q, qd), not c = C qd", ("matrix", "c qd", "c @ qd", "shape", "vector"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            for k in range(n):
                c[i, j] += 0.5 * (dM[k, i, j] + dM[j, i, k] - dM[i, j, k]) * qd[k]
    return c
'''),
    A("coriolis_from_dM", "only the centrifugal terms j = k (qd_j^2): the cross Coriolis terms dropped",
      ("centrifugal", "cross", "j = k", "j == k", "squared", "coriolis"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            gamma = 0.5 * (dM[j, i, j] + dM[j, i, j] - dM[i, j, j])
            c[i] += gamma * qd[j] ** 2
    return c
'''),
    A("coriolis_from_dM", "the library's batched definition.coriolis called on one state: raises on the missing batch axis",
      ("batch", "axis", "[none]", "definition.coriolis", "dimension", "shape"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    from lesson_lib.model import definition
    n = len(qd)
    c = definition.coriolis(dM, qd)
    return c
'''),
    A("coriolis_from_dM", "the overall sign flipped: -c", ("sign", "minus", "negative", "-c"), '''
def coriolis_from_dM(dM, qd):
    """c = C(q, qd) qd (N m) from dM[k, i, j] = dM_ij / dq_k and the velocity qd."""
    n = len(qd)
    c = np.zeros(n)
    for i in range(n):
        for j in range(n):
            for k in range(n):
                gamma = 0.5 * (dM[i, j, k] - dM[k, i, j] - dM[j, i, k])
                c[i] += gamma * qd[j] * qd[k]
    return c
'''),
    A("errors_at", "no absolute value: max(M_hat - M) misses errors where M_hat is too small",
      ("absolute", "abs", "negative", "sign"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    max_error = np.max(M_hat - M)
    min_eig = np.linalg.eigvalsh(M_hat).min()
    return max_error, min_eig
'''),
    A("errors_at", "the largest eigenvalue, not the smallest", ("largest", "max", "smallest", "min"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(np.abs(M_hat - M)), np.max(np.linalg.eigvalsh(M_hat))
'''),
    A("errors_at", "the eigenvalues of the first configuration only ([0] picks a state, not the smallest eigenvalue)",
      ("first", "[0]", "one configuration", "every configuration", "over the batch", "state"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    eig = np.linalg.eigvalsh(M_hat)
    return np.max(np.abs(M_hat - M)), eig[0].min()
'''),
    A("errors_at", "the smallest eigenvalue per configuration, an array, not the minimum over the batch",
      ("array", "per configuration", "each", "over the batch", "one number", "shape"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(np.abs(M_hat - M)), np.linalg.eigvalsh(M_hat)[:, 0]
'''),
    A("errors_at", "the smallest entry of M_hat, not its smallest eigenvalue", ("entry", "entries", "eigenvalue", "eigvalsh"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.max(np.abs(M_hat - M)), np.min(M_hat)
'''),
    A("errors_at", "the Frobenius norm of all the differences, not the largest entry", ("norm", "frobenius", "largest entry", "sqrt", "sum of squares"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    return np.linalg.norm(M_hat - M), np.linalg.eigvalsh(M_hat).min()
'''),
    A("errors_at", "the library's metrics called without q: measured on the whole-torus grid, not at the given configurations",
      ("grid", "ignores q", "torus", "given configurations", "not at q", "q="), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    from lesson_lib import mass_matrix_error, min_eigenvalue
    return mass_matrix_error(model, chain), min_eigenvalue(model)
'''),
    A("errors_at", "the eigenvalue of the error M_hat - M, not of M_hat", ("difference", "error", "m_hat - m", "learned"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    diff = M_hat - M
    return np.abs(diff).max(), np.linalg.eigvalsh(diff).min()
'''),
    A("errors_at", "the relative error |M_hat - M| / |M|, not the absolute one", ("relative", "divid", "absolute", "/ |m|", "ratio"), '''
def errors_at(model, chain, q):
    """Largest |M_hat - M| entry and smallest eigenvalue of M_hat over the configurations q (B, 2)."""
    M_hat, M = model.mass_matrix(q), chain.mass_matrix(q)
    rel = np.abs(M_hat - M) / np.abs(M)
    return rel.max(), np.linalg.eigvalsh(M_hat).min()
'''),
    A("symplectic_euler_step", "dt squared in the position update", ("dt**2", "dt²", "squared", "dt ** 2", "position"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(q, qd)
    q_new = q + dt**2 * qd_new
    return q_new, qd_new
'''),
    A("symplectic_euler_step", "f called with its arguments swapped: f(qd, q)", ("swap", "argument", "order", "f(qd, q)"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(qd, q)
    q_new = q + dt * qd_new
    return q_new, qd_new
'''),
    A("symplectic_euler_step", "the library's RK4 step instead of symplectic Euler", ("rk4", "runge", "fourth", "method", "integrator"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    from lesson_lib.physics import rk4_step
    q_new, qd_new = rk4_step(f, q, qd, dt)
    return q_new, qd_new
'''),
    A("symplectic_euler_step", "both variants at once: q moved with the old velocity, then again with the new one",
      ("twice", "both", "double", "old velocity", "two steps"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    q_new = q + dt * qd
    qd_new = qd + dt * f(q_new, qd)
    q_new = q_new + dt * qd_new
    return q_new, qd_new
'''),
    A("symplectic_euler_step", "a half step for the velocity (dt/2), the start of leapfrog without the rest",
      ("half", "dt / 2", "dt/2", "0.5", "leapfrog", "factor"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + 0.5 * dt * f(q, qd)
    q_new = q + dt * qd_new
    return q_new, qd_new
'''),
    A("symplectic_euler_step", "one array np.concatenate([q_new, qd_new]), not the pair", ("pair", "tuple", "concatenat", "shape", "two"), '''
def symplectic_euler_step(f, q, qd, dt):
    """One semi-implicit Euler step of qdd = f(q, qd): returns (q_new, qd_new)."""
    qd_new = qd + dt * f(q, qd)
    q_new = q + dt * qd_new
    return np.concatenate([q_new, qd_new])
'''),
    A("triple_pendulum", "the inertia about the rod's end, m l^2/3, not about its centre (m l^2/12)",
      ("inertia", "/3", "/ 3", "/12", "/ 12", "end", "centre", "center"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.array([1.0, 1.0, 1.0])
    l = np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 3, g=9.81)
'''),
    A("triple_pendulum", "the lengths in centimetres", ("cm", "centimet", "unit", "metre", "100"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.ones(3)
    l = np.array([100.0, 80.0, 60.0])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 12, g=9.81)
'''),
    A("triple_pendulum", "gravity given as -9.81 (pointing down), which the chain refuses", ("g", "gravity", "negative", "sign", "magnitude", "-9.81"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.ones(3)
    l = np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 12, g=-9.81)
'''),
    A("triple_pendulum", "the lengths as a Python list: l / 2 raises TypeError", ("list", "array", "np.array", "typeerror", "operand"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = [1.0, 1.0, 1.0]
    l = [1.0, 0.8, 0.6]
    return PlanarChain(m=m, l=l, lc=l / 2, I=[1.0 * x**2 / 12 for x in l], g=9.81)
'''),
    A("triple_pendulum", "the inertia without the square: m l / 12", ("square", "l**2", "l²", "inertia"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.ones(3)
    l = np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=m * l / 12, g=9.81)
'''),
    A("triple_pendulum", "the inertia of a 1 m rod (1/12) copied for all three links", ("inertia", "1/12", "length", "each rod", "copied"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    l = np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=[1.0, 1.0, 1.0], l=l, lc=l / 2, I=[1 / 12] * 3, g=9.81)
'''),
    A("triple_pendulum", "positional arguments in the wrong order: I passed where lc goes and lc where I goes",
      ("order", "swap", "lc", "inertia", "argument", "keyword"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.ones(3)
    l = np.array([1.0, 0.8, 0.6])
    I = m * l**2 / 12
    lc = l / 2
    return PlanarChain(m, l, I, lc, 9.81)
'''),
    A("triple_pendulum", "built the chain and forgot to return it", ("return", "none", "nothing"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.ones(3)
    l = np.array([1.0, 0.8, 0.6])
    triple = PlanarChain(m=m, l=l, lc=l / 2, I=m * l**2 / 12, g=9.81)
'''),
    A("triple_pendulum", "a point mass at each rod's middle: I = 0", ("inertia", "point mass", "zero", "i = 0", "uniform rod"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.ones(3)
    l = np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=l / 2, I=np.zeros(3), g=9.81)
'''),
    A("triple_pendulum", "lc = 0.5 m for every rod (copied from the 1 m double pendulum)", ("lc", "centre of mass", "center of mass", "half", "l/2", "0.5"), '''
def make_triple_pendulum():
    """Three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 m/s^2."""
    m = np.ones(3)
    l = np.array([1.0, 0.8, 0.6])
    return PlanarChain(m=m, l=l, lc=[0.5, 0.5, 0.5], I=m * l**2 / 12, g=9.81)
'''),
    A("triple_delan", "DeLaN() left at its default of two joints: fit refuses three-joint data",
      ("n_dof", "three joints", "3 joints", "two joints", "n_dof=3", "default"), '''
def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(lr=1e-2, batch_size=96)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=3000)
    return model
'''),
    A("triple_delan", "far too few steps (50): the model is still almost untrained", ("steps", "more steps", "longer", "train", "too few"), '''
def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=3)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=50)
    return model
'''),
    A("triple_delan", "a learning rate of 10: training diverges", ("learning rate", "lr", "diverg", "too large", "smaller"), '''
def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=3, lr=10.0)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=200)
    return model
'''),
    A("triple_delan", "returned what fit returns (the losses), not the model", ("return", "model", "losses", "fit returns", "list"), '''
def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=3, lr=1e-2, batch_size=96)
    return model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=1500)
'''),
    A("triple_delan", "trained on the first 64 samples only", ("samples", "data", "all", "few", "64", "subset"), '''
def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=3, lr=1e-2, batch_size=32)
    few = {k: v[:64] for k, v in data.items()}
    model.fit(few["q"], few["qd"], few["qdd"], few["tau"], steps=1000)
    return model
'''),
    A("triple_delan", "qd and qdd swapped in the call to fit", ("swap", "order", "qd", "qdd", "argument"), '''
def train_triple_delan(chain, data):
    """A DeLaN(n_dof=3) trained on data; returns the model."""
    model = DeLaN(n_dof=3, lr=1e-2, batch_size=96)
    model.fit(data["q"], data["qdd"], data["qd"], data["tau"], steps=1500)
    return model
'''),
    A("computed_torque", "the Coriolis torque evaluated at the desired velocity qd_d, not the actual qd",
      ("desired", "qd_d", "actual", "coriolis", "measured"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e = q_d - q
    e_dot = qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q_d, qd_d) + model.gravity(q)
'''),
    A("computed_torque", "M, c and g at the desired state (q_d, qd_d) instead of the measured one",
      ("desired", "q_d", "actual", "measured", "state"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e = q_d - q
    e_dot = qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.mass_matrix(q_d) @ a + model.coriolis(q_d, qd_d) + model.gravity(q_d)
'''),
    A("computed_torque", "solved M x = a (M^-1 a) instead of multiplying by M", ("inverse", "solve", "m^-1", "m⁻¹", "divid"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e = q_d - q
    e_dot = qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return np.linalg.solve(model.mass_matrix(q), a) + model.coriolis(q, qd) + model.gravity(q)
'''),
    A("computed_torque", "model.inverse_dynamics, which the model offered here does not have", ("inverse_dynamics", "attribute", "mass_matrix", "offers", "only"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e = q_d - q
    e_dot = qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    return model.inverse_dynamics(q, qd, a)
'''),
    A("computed_torque", "c taken for the matrix C and multiplied by qd again (c * qd)", ("c * qd", "c @ qd", "coriolis", "times qd", "already", "vector"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e = q_d - q
    e_dot = qd_d - qd
    a = qdd_d + kd * e_dot + kp * e
    C = model.coriolis(q, qd)
    return model.mass_matrix(q) @ a + C * qd + model.gravity(q)
'''),
    A("computed_torque", "np.dot of per-joint gains with the errors: one number where each joint needs its own gain",
      ("dot", "per joint", "elementwise", "each joint", "gain", "sum"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e = q_d - q
    e_dot = qd_d - qd
    a = qdd_d + np.dot(kd, e_dot) + np.dot(kp, e)
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    A("computed_torque", "the velocity error's gain applied to the position error (kd * e twice, e_dot unused)",
      ("e_dot", "velocity error", "derivative", "unused", "kd"), '''
def computed_torque(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
    """tau = M(q) a + c(q, qd) + g(q) with a = qdd_d + K_d e_dot + K_p e, e = q_d - q, e_dot = qd_d - qd."""
    e = q_d - q
    e_dot = qd_d - qd
    a = qdd_d + kd * e + kp * e
    return model.mass_matrix(q) @ a + model.coriolis(q, qd) + model.gravity(q)
'''),
    A("second_difference", "the middle sample once, not twice: q[k+1] - q[k] + q[k-1]", ("2 q", "twice", "middle", "factor 2", "-2"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - q[1:-1] + q[:-2]) / h**2
'''),
    A("second_difference", "the last sample subtracted: q[k+1] - 2 q[k] - q[k-1]", ("sign", "minus", "+ q[k-1]", "q[:-2]"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - 2 * q[1:-1] - q[:-2]) / h**2
'''),
    A("second_difference", "np.gradient twice, trimmed to the inner samples: a 2h-wide stencil, wrong next to the ends",
      ("gradient", "2h", "wide", "ends", "first and last", "neighbour", "stencil"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    qdd = np.gradient(np.gradient(q, h, axis=0), h, axis=0)
    return qdd[1:-1]
'''),
    A("second_difference", "the central first difference applied twice: shape (T - 4, n)", ("central", "t - 4", "shape", "twice", "two samples"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return central_difference(central_difference(q, h), h)


def central_difference(q, h):
    return (q[2:] - q[:-2]) / (2 * h)
'''),
    A("second_difference", "slices shifted by one: q[3:] - 2 q[2:-1] + q[1:-2], one sample short and a step late",
      ("slice", "shift", "off by one", "t - 3", "one sample"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[3:] - 2 * q[2:-1] + q[1:-2]) / h**2
'''),
    A("second_difference", "slices of different lengths (q[1:] in the middle): shapes do not broadcast",
      ("shape", "broadcast", "slice", "q[1:-1]", "length"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - 2 * q[1:] + q[:-2]) / h**2
'''),
    A("second_difference", "the central first difference (a velocity), not the second", ("velocity", "first difference", "first derivative", "central", "q̇"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - q[:-2]) / (2 * h)
'''),
    A("second_difference", "doubled the caller's middle samples in place: the value is right, the learner's q is changed",
      ("in place", "in-place", "modif", "caller", "changes", "*="), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    q[1:-1] *= 2
    return (q[2:] - q[1:-1] + q[:-2]) / h**2
'''),
    A("second_difference", "the notebook's global step H = 0.002 instead of the argument h", ("h", "argument", "global", "0.002", "step"), '''
H = 0.002


def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    return (q[2:] - 2 * q[1:-1] + q[:-2]) / H**2
'''),
    A("second_difference", "a loop (against the instructions) that stops one short: the last inner sample is missing",
      ("loop", "range", "last", "one short", "off by one", "t - 3"), '''
def second_difference(q, h):
    """q̈ at every inner sample of positions q (T, n) sampled every h s: shape (T - 2, n)."""
    out = []
    for k in range(1, len(q) - 2):
        out.append((q[k + 1] - 2 * q[k] + q[k - 1]) / h**2)
    return np.array(out)
'''),
    A("lesson_passes", "<= at the threshold: an error of exactly PASS_MAX_ERROR passes", ("<=", "boundary", "strict", "below", "equal"), '''
from lesson_lib.facts import PASS_MAX_ERROR      # the lesson's threshold on max |M_hat - M|


def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error <= PASS_MAX_ERROR and min_eig > 0
'''),
    A("lesson_passes", "or where and belongs: either condition alone passes", ("or", "and", "both"), '''
from lesson_lib.facts import PASS_MAX_ERROR      # the lesson's threshold on max |M_hat - M|


def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < PASS_MAX_ERROR or min_eig > 0
'''),
    A("lesson_passes", "the threshold put on the eigenvalue too: min_eig > PASS_MAX_ERROR", ("min_eig", "threshold", "eigenvalue", "positive", "> 0"), '''
from lesson_lib.facts import PASS_MAX_ERROR      # the lesson's threshold on max |M_hat - M|


def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < PASS_MAX_ERROR and min_eig > PASS_MAX_ERROR
'''),
    A("lesson_passes", "& for and: precedence makes it PASS_MAX_ERROR & min_eig, a TypeError on floats", ("&", "precedence", "and", "parenthes", "typeerror", "bitwise"), '''
from lesson_lib.facts import PASS_MAX_ERROR      # the lesson's threshold on max |M_hat - M|


def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < PASS_MAX_ERROR & min_eig > 0
'''),
    A("lesson_passes", "computed the verdict and never returned it", ("return", "none"), '''
from lesson_lib.facts import PASS_MAX_ERROR      # the lesson's threshold on max |M_hat - M|


def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    passed = max_error < PASS_MAX_ERROR and min_eig > 0
'''),
    A("lesson_passes", "early returns: True as soon as one condition holds (an or in disguise)", ("return", "early", "or", "both", "and"), '''
from lesson_lib.facts import PASS_MAX_ERROR      # the lesson's threshold on max |M_hat - M|


def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    if max_error < PASS_MAX_ERROR:
        return True
    if min_eig > 0:
        return True
    return False
'''),
    A("lesson_passes", "min_eig != 0: a negative eigenvalue passes", ("!=", "nonzero", "negative", "positive", "> 0"), '''
from lesson_lib.facts import PASS_MAX_ERROR      # the lesson's threshold on max |M_hat - M|


def lesson_passes(max_error, min_eig):
    """True when max_error is below PASS_MAX_ERROR and min_eig is positive."""
    return max_error < PASS_MAX_ERROR and min_eig != 0
'''),
]
# Measured once as written, on the diagnosis of commit 33772ee (judged as the module's text says): 93 named (89 %),
# 2 located, 9 what differs, 0 misleading, 0 passed.  The 70 left out (a test's) were not measured.

# ---------------------------------------------------------------------- running them
def define(answer, number):
    """The answer's function, defined as a notebook cell defines it (its source readable by linecache; `number`
    names the cell)."""
    import numpy as np

    import lesson_lib
    from lesson_lib import facts
    filename = f"/tmp/ipykernel_0/{number}.py"                      # as IPython names a cell
    linecache.cache[filename] = (len(answer.source), None, answer.source.splitlines(keepends=True), filename)
    namespace = {"np": np, **{n: getattr(lesson_lib, n) for n in lesson_lib.__all__},
                 "PASS_MAX_ERROR": facts.PASS_MAX_ERROR}
    exec(compile(answer.source, filename, "exec"), namespace)          # noqa: S102 -- the benchmark's own answers
    return next(v for k, v in namespace.items() if callable(v) and getattr(v, "__code__", None)
                and v.__code__.co_filename == filename)


# Keys of the hints that claim what the function computes, for a checkout whose diagnosis does not list them
PATTERNS = {"sign", "factor", "offset", "zeros", "stopped early", "wiped", "transposed", "reversed", "whole array",
            "not summed", "wrapped", "reshaped", "pair order", "summed away"}
SALTS = (2**40 + 11, 2**41 + 13, 2**42 + 17)          # three judges' inputs, none of them a notebook's


def holds_elsewhere(spec, fn, key):
    """True when the check gives hint `key` to `fn` again on the inputs of every judge's salt in SALTS."""
    from lesson_course.checks import framework, independent
    try:
        for salt in SALTS:
            independent.SALT = salt
            if framework.outcome(spec, fn).hint != key:
                return False
        return True
    finally:
        independent.SALT = None


def verdict(answer, result, generic, behavioural=(), locating=(), holds=lambda: False, words_only=False):
    """'named', 'located', 'generic', 'misleading' or 'passed' for one answer's outcome (see the module's text):
    `behavioural` the keys whose claim is tried elsewhere by `holds()`, `locating` those of them that locate."""
    if result.status != "fail":
        return "passed"
    line = result.line
    what, _, hint = line.partition(". Hint: ")
    said = lambda text: any(w.lower() in text.lower() for w in answer.words)      # noqa: E731
    if "your code raised" in what and result.hint in generic:   # the general hint: the line and its message
        return "named" if "`" in what and said(line) else "generic"
    if result.hint in generic:
        return "generic"
    if result.hint in behavioural and not words_only:
        return ("located" if result.hint in locating else "named") if holds() else "misleading"
    quoted = "your code raised" not in what or "`" in what            # an error: the learner's line is named
    return "named" if quoted and said(hint) else "misleading"


def run(answers, show=False, words_only=False):
    sys.path.insert(0, str(ROOT))
    from lesson_course.checks import diagnosis, framework
    GENERIC = getattr(diagnosis, "GENERIC", set())
    BEHAVIOURAL = getattr(diagnosis, "BEHAVIOURAL", PATTERNS)
    counts, rows = {"named": 0, "located": 0, "generic": 0, "misleading": 0, "passed": 0}, []
    for number, answer in enumerate(answers):
        spec, fn = framework.REGISTRY[answer.check], define(answer, f"{number}-{id(answers)}")
        result = framework.outcome(spec, fn)
        probes = getattr(spec, "probes", ())                     # the properties a check tries (none before them)
        behavioural = {v.key for v in spec.variations} | {p.key for p in probes} | set(BEHAVIOURAL)
        locating = {p.key for p in probes if p.locates}
        kind = verdict(answer, result, GENERIC, behavioural, locating,
                       lambda spec=spec, fn=fn, key=result.hint: holds_elsewhere(spec, fn, key), words_only)
        counts[kind] += 1
        rows.append((kind, answer, result.line))
    if show:
        for kind, answer, line in rows:
            print(f"[{kind}] {answer.check}: {answer.mistake}\n    {line}")
    return counts, rows


TIMED = """
import json, sys, time
sys.path[:0] = [sys.argv[1], sys.argv[2] + "/tests", sys.argv[2] + "/benchmarks"]
import bench_wrong_answers as bench
from check_cases import RIGHT
from lesson_course.checks import framework
assert framework.__file__.startswith(sys.argv[1]), framework.__file__
names = sorted(framework.REGISTRY)
wrong = [(a.check, bench.define(a, i)) for i, a in enumerate(bench.ANSWERS) if a.check != "triple_delan"]
for name in names:
    framework.outcome(framework.REGISTRY[name], RIGHT[name])                    # imports and caches warm
out = {}
for name in names:
    start = time.perf_counter()
    framework.outcome(framework.REGISTRY[name], RIGHT[name])
    out[name] = time.perf_counter() - start
start = time.perf_counter()
for name, answer in wrong:
    framework.outcome(framework.REGISTRY[name], answer)
out["wrong"] = (time.perf_counter() - start) / len(wrong)
print(json.dumps(out))
"""


def timing(other, repeats=7):
    """Every check's time on its right answer (a check cell's cost in a learner's kernel) and the mean time on one
    of the benchmark's wrong answers (06's trainings left out), this checkout against the one in `other`, each in
    its own process, alternating, `repeats` times; medians."""
    runs = {"this": [], "other": []}
    for _ in range(repeats):
        for label, root in (("this", ROOT), ("other", Path(other).resolve())):
            done = subprocess.run([sys.executable, "-c", TIMED, str(root), str(ROOT)], capture_output=True, text=True,
                                  check=True)
            runs[label].append(json.loads(done.stdout.strip().splitlines()[-1]))
    median = lambda label, key: sorted(r[key] for r in runs[label])[repeats // 2]        # noqa: E731
    names = sorted(k for k in runs["this"][0] if k != "wrong")
    print(f"{'check':24s} {'this (ms)':>10s} {'other (ms)':>11s}")
    for name in names:
        print(f"{name:24s} {median('this', name) * 1e3:10.1f} {median('other', name) * 1e3:11.1f}")
    total = {label: sorted(sum(r[n] for n in names) for r in runs[label])[repeats // 2] for label in runs}
    print(f"every check on its right answer: {total['this'] * 1e3:.0f} ms here against {total['other'] * 1e3:.0f} ms "
          f"in {other} (medians of {repeats}, interleaved); one wrong answer {median('this', 'wrong') * 1e3:.1f} "
          f"against {median('other', 'wrong') * 1e3:.1f} ms")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print every answer's FAIL line")
    parser.add_argument("--words", action="store_true", help="judge by the words alone (as the first sets were)")
    parser.add_argument("--time", metavar="DIR", help="time the checks against the checkout in DIR")
    args = parser.parse_args()
    if args.time:
        timing(args.time)
        return
    start = time.perf_counter()
    sets = (("unseen wrong answers", ANSWERS), ("second answers (the families they showed added)", SECOND),
            ("third answers (the families they showed added)", THIRD),
            ("fourth answers (the families they showed added)", FOURTH),
            ("fifth answers (written blind)", FIFTH), ("sixth answers (written blind)", SIXTH),
            ("seventh answers (written blind)", SEVENTH))
    for label, answers in sets:
        counts, rows = run(answers, show=args.list, words_only=args.words)
        total = len(rows)
        print(f"{total} {label} over {len({a.check for a in answers})} checks: {counts['named']} named "
              f"({100 * counts['named'] / total:.0f} %), {counts['located']} located, {counts['generic']} what "
              f"differs, {counts['misleading']} misleading, {counts['passed']} passed "
              f"({time.perf_counter() - start:.0f} s)")
        for kind in ("misleading", "passed"):
            for k, answer, line in rows:
                if k == kind:
                    print(f"  {kind}: {answer.check}: {answer.mistake}: {line}")


if __name__ == "__main__":
    main()
