"""Checks for 06_mastery_and_project: the triple pendulum project."""
import re
import time

import numpy as np

from lesson_lib import facts
from lesson_lib.physics.chain import PlanarChain

from .diagnosis import UNITS, Raised
from .framework import DETAILS, Fail, LearnerError, Tolerance, call, close, exception_line, num, read_as, register
from .independent import rng, uniform_rods

TRIPLE_LENGTHS = (1.0, 0.8, 0.6)
TRIPLE_MASS = 1.0
TRIPLE_TEST_POINTS = 2000


def reference_triple_pendulum():
    """The project's triple pendulum: three uniform 1 kg rods of lengths 1.0, 0.8 and 0.6 m, g = 9.81 (each rod's
    centre of mass and inertia integrated from its mass distribution, independent.uniform_rods)."""
    return uniform_rods(np.full(3, TRIPLE_MASS), TRIPLE_LENGTHS, g=9.81)


TOLERANCE = Tolerance(0.0, 1e-9)         # relative, on each parameter and on the torque that holds the rods


def _wrong_part(chain, ref):
    """(what, hint key) for the first of the chain's parameters that differs from the reference, or None."""
    def inertia_key():
        ratio = chain.I / ref.I
        if close(chain.I, ref.I + ref.m * ref.lc**2, TOLERANCE):                    # parallel axes
            return "I about end", ""
        if close(chain.I, ref.m * ref.l / 12, TOLERANCE):
            return "square", ""
        if close(chain.I, ratio[0] * ref.I, TOLERANCE):
            return "inertia factor", f" ({num(ratio[0])} times m l^2 / 12 each)"
        return "inertia", ""

    parts = [("masses m", chain.m, ref.m, lambda: ("masses", "")),
             ("lengths l", chain.l, ref.l,
              lambda: ("order" if np.allclose(np.sort(chain.l), np.sort(ref.l)) else "lengths", "")),
             ("centres of mass lc", chain.lc, ref.lc,
              lambda: ("lc at end" if close(chain.lc, ref.l, TOLERANCE) else
                       "lc from pivot" if close(chain.lc, np.cumsum(ref.l) - ref.l + ref.lc, TOLERANCE) else "lc",
                       "")),
             ("inertias I", chain.I, ref.I, inertia_key),
             ("gravity g", np.atleast_1d(chain.g), np.atleast_1d(ref.g), lambda: ("g", ""))]
    for label, got, want, key in parts:
        if not close(got, want, TOLERANCE):
            unit = _unit(got, want)
            named, detail = ("unit", f" ({unit})") if unit else key()
            return f"{label} are {num(got)}, expected {num(want)}{detail}", named
    return None


def _unit(got, want):
    """'100 times the right ones: ...' when `got` is `want` times a unit's factor (cm for m, g for kg), else ''."""
    got, want = np.atleast_1d(np.asarray(got, dtype=float)), np.atleast_1d(np.asarray(want, dtype=float))
    for factor, text in UNITS:
        if close(got, factor * want, TOLERANCE):
            return f"{text.split(':')[0]} the right ones:{text.split(':')[1]}"
    return ""


def _rebuilt(chain):
    """A PlanarChain made afresh from the learner's chain's parameters (checked as any chain's are): what the
    check judges is the physics those parameters give, not methods a subclass may have changed."""
    try:
        return PlanarChain(*(np.array(getattr(chain, k), dtype=float) for k in ("m", "l", "lc", "I")),
                           g=float(chain.g))
    except (TypeError, ValueError, AttributeError) as exc:
        raise Fail(f"its parameters do not make a chain ({exception_line(exc)})", "type") from None


@register("06_mastery_and_project", function="make_triple_pendulum", computed_by=(
    "lesson_course.checks.nb06_mastery_and_project.reference_triple_pendulum",
    "lesson_course.checks.independent.uniform_rods",
), hints={
    "type": "return the chain itself, a PlanarChain built from the rods' masses, lengths, centres of mass and "
            "inertias",
    "links": "give m, l, lc and I three entries each, one per rod",
    "masses": "each rod weighs 1 kg",
    "order": "the rods are 1.0, 0.8 and 0.6 m long in that order, from the pivot outwards",
    "lengths": "the rods are 1.0, 0.8 and 0.6 m long",
    "lc at end": "you put each centre of mass at the rod's far end: a uniform rod's centre of mass is in its "
                 "middle",
    "lc": "lc is measured from each rod's own joint to its centre of mass, halfway along a uniform rod",
    "I about end": "that is the inertia about the rod's END (m l^2 / 3); the model wants it about the centre of "
                   "mass",
    "inertia factor": "your inertias are a constant multiple of a uniform rod's m l^2 / 12 (the factor is above): "
                      "a rod's inertia about its centre of mass is m l^2 / 12, with l its whole length",
    "lc from pivot": "you measured each centre of mass from the pivot: lc is measured from each rod's own joint, "
                     "halfway along that rod",
    "inertia": "the model wants each rod's inertia about its own centre of mass, for a uniform rod m l^2 / 12",
    "g": "gravity is 9.81 m/s^2, pointing down",
    "unit": "your values are the right ones in another unit (above): the course works in kilograms, metres and "
            "seconds, so give lengths in m (not cm or mm) and masses in kg (not g), and the rest follows from them",
    "square": "a rod's inertia grows with the square of its length: m l^2 / 12, not m l / 12",
    "sequence": "arithmetic on a tuple or list of lengths repeats or joins it: make the lengths a numpy array "
                "first, np.array(...), then compute lc and I from it",
}, raised=(
    Raised("arguments", "chain arguments", "PlanarChain takes m, l, lc and I (one entry per rod each) and g: "
                                           "help(PlanarChain) shows the names",
           lambda message, line: "PlanarChain" in line),
), tolerance=TOLERANCE)
def triple_pendulum(fn):
    """Project step 1: fn() -> PlanarChain of three uniform rods (1 kg; 1.0, 0.8, 0.6 m; g = 9.81).

    Truth: the static torque that holds all three rods horizontal, tau_1 = g sum_i m_i x_ci, worked out by hand,
    then the uniform-rod formulas (lc = l/2, I = m l^2 / 12) for what statics cannot see. Tolerance 1e-9, relative.
    """
    chain = _rebuilt(read_as(call(fn), PlanarChain, "make_triple_pendulum", "type"))
    if chain.n_dof != 3:
        raise Fail(f"the chain has {chain.n_dof} links, expected 3", "links")
    ref = reference_triple_pendulum()
    x_c = np.cumsum(ref.l) - ref.l + ref.lc          # all rods horizontal, q = (pi/2, 0, 0): lever arms by hand
    tau1 = ref.g * np.sum(ref.m * x_c)
    got = chain.rnea([np.pi / 2, 0, 0], [0, 0, 0], [0, 0, 0])[0]
    wrong = _wrong_part(chain, ref)
    if not close(got, tau1, TOLERANCE):
        raise Fail(f"holding the rods horizontal needs tau_1 = {num(tau1)} N m, your chain needs {num(got)} "
                   f"({wrong[0] if wrong else 'the parameters look right'})", wrong[1] if wrong else "order")
    if wrong:
        raise Fail(*wrong)


PLATEAU = 0.05         # a training loss that settles above this fraction of the torques' variance explains little


def _settled(model):
    """The mean training loss over the last quarter of the model's steps when it has settled there (it improved by
    less than a tenth on the quarter before), else None (it was still learning, or kept no history).  The loss is
    a fraction of the torques' variance: about 1 for a model that explains nothing."""
    history = np.asarray(getattr(model, "loss_history", []) or [], dtype=float)
    k = len(history) // 4
    if k < 10 or not np.all(np.isfinite(history)):
        return None
    last, before = float(history[-k:].mean()), float(history[-2 * k:-k].mean())
    return last if last > 0.9 * before else None


@register("06_mastery_and_project", function="train_triple_delan", points=2,
          tolerance=Tolerance(facts.TRIPLE_MAX_ERROR), raised=(
    Raised("arguments", "fit arguments",
           "DeLaN(...) or model.fit(...) got arguments it does not take: fit wants the four "
           "arrays q, qd, qdd and tau of data, each by itself (help(DeLaN.fit) lists them)",
           lambda message, line: "DeLaN" in line or "fit" in line),
), hints={
    "settled": "your model stopped improving while it still explains little of the data it was trained on: a DeLaN "
               "can only learn data that obey the equations of motion, so give fit the four arrays each as its "
               "own argument, in the order (q, qd, qdd, tau), not another array or the same one twice",
    "type": "return the trained DeLaN itself",
    "n_dof": "the model needs one joint per rod: n_dof=3",
    "untrained": "train the model (model.fit) before returning it",
    "spd": "keep the DeLaN's default eps: it keeps the smallest eigenvalue above 0",
    "longer": "train longer, or with a larger learning rate and a smaller batch (see the instructions)",
    "not finite": "the learned M holds NaN or inf: the training diverged; use a smaller learning rate",
})
def triple_delan(fn):
    """Project step 2: fn(chain, data) -> a DeLaN(n_dof=3) trained on data (a sample_uniform dict).

    The check calls fn with the reference triple pendulum and sample_uniform(chain, N_SAMPLES, seed=SEED), then
    measures on 2000 random configurations (seed 7): PASS when max |M_hat - M| < facts.TRIPLE_MAX_ERROR kg m^2
    (the true entries reach about 6.8) and the learned M's smallest eigenvalue is > 0 everywhere.  A model short
    of that is told to train longer while it was still learning; one whose training settled explaining little of
    its data was given data no arm obeys: the arrays in other slots of fit.
    """
    from lesson_lib.data import sample_uniform
    from lesson_lib.model.delan import DeLaN

    chain = reference_triple_pendulum()
    data = sample_uniform(chain, facts.N_SAMPLES, seed=facts.SEED)
    DETAILS.pop("triple_delan", None)
    start = time.perf_counter()
    try:
        model = call(fn, chain, {k: v.copy() for k, v in data.items()})
    except LearnerError as err:
        if re.search(r"expected \(\d+,\) for one state or \(B, (?!3\))\d+\)", str(err.exc)):
            raise Fail(f"your model was built for another number of joints, so fit refused the triple "
                       f"pendulum's data ({type(err.exc).__name__}: {str(err.exc)[:90]}...)", "n_dof") from None
        raise
    seconds = time.perf_counter() - start
    read_as(model, DeLaN, "train_triple_delan", "type")
    if model.n_dof != 3:
        raise Fail(f"the model has n_dof = {model.n_dof}, expected 3", "n_dof")
    if model.step == 0:
        raise Fail("the model was never trained (model.step is 0)", "untrained")
    q = rng(7).uniform(-np.pi, np.pi, (TRIPLE_TEST_POINTS, 3))
    M_hat = np.asarray(model.mass_matrix(q), dtype=float)
    if M_hat.shape != (TRIPLE_TEST_POINTS, 3, 3) or not np.all(np.isfinite(M_hat)):
        raise Fail(f"the learned M is not a finite 3 x 3 matrix at every configuration (shape {M_hat.shape})",
                   "not finite")
    err = float(np.max(np.abs(M_hat - chain.mass_matrix(q))))
    lam = float(np.linalg.eigvalsh(M_hat).min())
    DETAILS["triple_delan"] = {"seconds": seconds, "steps": model.step, "max_error": err, "min_eig": lam}
    if not lam > 0:
        raise Fail(f"the learned M has smallest eigenvalue {num(lam)}", "spd")
    if not err < facts.TRIPLE_MAX_ERROR:
        what = (f"after {model.step} steps max |M_hat - M| = {num(err)} kg m^2 (needs < "
                f"{facts.text('TRIPLE_MAX_ERROR')})")
        settled = _settled(model)
        if settled is None or settled < PLATEAU:
            raise Fail(what, "longer")
        raise Fail(f"{what}; its training loss settled at {num(settled)} of the torques' variance, where a DeLaN "
                   f"given a real arm's data goes below {PLATEAU:g}", "settled")
