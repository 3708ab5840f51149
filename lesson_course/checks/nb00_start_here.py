"""Checks for 00_start_here: the warm-up exercise."""
import numpy as np

from lesson_lib.physics.chain import PlanarChain

from .diagnosis import Case, Property, Raised, Variation, grew, judge, read_like, same, scaling
from .framework import Tolerance, num, register
from .independent import grading, random_chain, rng, three_link, two_link

TOLERANCE = Tolerance(1e-12)

# What else a chain holds, and what a learner who adds it up gets instead of the mass
OTHER_PARTS = {"l": "the lengths chain.l (in m)", "lc": "the distances to the centres of mass chain.lc (in m)",
               "I": "the inertias chain.I (in kg m^2)"}

VARIATIONS = (
    *(Variation(f"sum of {part}", f"you added up {meaning}, not the masses: a chain keeps its links' masses in chain.m",
                lambda chain, part=part: float(np.sum(getattr(chain, part))))
      for part, meaning in OTHER_PARTS.items()),
    Variation("weight", "that is the weight m g (in N), the force gravity pulls the links down with: the total mass is "
                        "the sum of chain.m alone, in kg", lambda chain: float(np.sum(chain.m) * chain.g)),
    Variation("mean", "you returned the links' mean mass: the total adds them up (a sum, not an average)",
              lambda chain: float(np.mean(chain.m))),
    Variation("heaviest", "you returned the heaviest link's mass (the largest entry of chain.m): the total adds up "
                          "every link's", lambda chain: float(np.max(chain.m))),
    Variation("lightest", "you returned the lightest link's mass (the smallest entry of chain.m): the total adds up "
                          "every link's", lambda chain: float(np.min(chain.m))),
    *(Variation(f"link {k}", "you returned the mass of one link: the total adds up the masses of every link in "
                             "chain.m", lambda chain, k=k: float(chain.m[k])) for k in (0, -1)),
    *(Variation(f"one link for all {k}", "you multiplied one link's mass by the number of links, as if every link "
                                         "weighed the same: they do not, so add up every entry of chain.m",
                lambda chain, k=k: float(chain.n_dof * chain.m[k])) for k in (0, -1)),
    Variation("count", "you returned how many links there are (len(chain.m)): the total adds up their masses, the "
                       "entries of chain.m", lambda chain: float(chain.n_dof)),
    *(Variation(f"first {k}", "your total adds up a fixed number of links (the first ones): it must add every "
                              "link's mass, however many links the chain has",
                lambda chain, k=k: float(np.sum(chain.m[:k]))) for k in (2,)),
    *(Variation(f"link {k} missing", "a link's mass is missing from your total: it must add up every link's, however "
                                     "many there are (a slice or a range that stops early, or a fixed number of "
                                     "terms, leaves one out)", lambda chain, k=k: float(np.sum(np.delete(chain.m, k))))
      for k in (0, -1)),
)


def _with(chain, **parts):
    """A copy of `chain` with some of its parameters replaced (m, l, lc, I as arrays, g as a number)."""
    now = {k: np.array(getattr(chain, k), dtype=float) for k in ("m", "l", "lc", "I")}
    now.update({k: np.asarray(v, dtype=float) for k, v in parts.items() if k != "g"})
    return PlanarChain(now["m"], now["l"], now["lc"], now["I"], g=float(parts.get("g", chain.g)))


def _mass_power(ask, case):
    """Doubling every mass doubles the total."""
    chain = case.args()[0]
    found = scaling(lambda m: ask(_with(chain, m=m)), [chain.m], 0, 2.0, 1, TOLERANCE)
    return found and f"{grew(found[0], 2.0, 'every mass')} (the total doubles)"


def _masses_alone(ask, case):
    """The total depends on the masses alone: changing any other parameter of the chain leaves it as it was."""
    chain = case.args()[0]
    before = ask(chain)
    for part, meaning in (*OTHER_PARTS.items(), ("g", "gravity g")):
        changed = ask(_with(chain, **{part: 1.25 * (getattr(chain, part) if part != "g" else chain.g)}))
        if before is not None and changed is not None and not same(changed, before, TOLERANCE):
            return (f"a quarter more on {meaning} changed your result from {_kg(before)} to {_kg(changed)}, while "
                    f"the total mass stays the same")
    return None


def _link_weights(ask, case):
    """What 1 kg more on each link in turn adds to the learner's result (1 kg each, for the total), or None."""
    chain = case.args()[0]
    before = ask(chain)
    if before is None:
        return None
    added = []
    for k in range(chain.n_dof):
        after = ask(_with(chain, m=chain.m + np.eye(chain.n_dof)[k]))
        if after is None or np.shape(after) != np.shape(before):
            return None
        added.append(float(np.asarray(after) - np.asarray(before)))
    return np.array(added)


def _link_missing(ask, case):
    added = _link_weights(ask, case)
    if added is not None and np.any(np.abs(added) < 1e-9):
        return f"1 kg more on each link in turn adds {_kg(added)} to your result (1 kg each for a total)"
    return None


def _links_counted(ask, case):
    added = _link_weights(ask, case)
    if added is not None and not np.allclose(added, 1.0, rtol=0, atol=1e-9):
        return f"1 kg more on each link in turn adds {_kg(added)} to your result (1 kg each for a total)"
    return None


PROPERTIES = (
    Property("mass power", "the total mass doubles when every mass doubles: yours grows otherwise (above), so the "
                           "masses are multiplied together or squared rather than added", _mass_power),
    Property("not masses alone", "the total mass depends on the masses alone, chain.m: your result changes with "
                                 "another of the chain's parameters (above), so that one enters your sum",
             _masses_alone),
    Property("link missing", "a link's mass does not count in your result (above: 1 kg more on it changes nothing): "
                             "the total adds every link's mass, however many links there are", _link_missing),
    Property("links weighted", "the links' masses do not each count once in your result (above, what 1 kg more on "
                               "each adds): the total adds every mass once, as it is, with no weight, power or count",
             _links_counted),
)


@register("00_start_here", variations=VARIATIONS, tolerance=TOLERANCE, properties=PROPERTIES, hints={
    "shape": "the total mass is one number, in kg",
    "not finite": "adding masses cannot give NaN or inf: a placeholder (np.nan, np.empty) is still in your code",
}, raised=(
    Raised("attribute", "chain.m", "a chain keeps its links' masses in chain.m (one entry per link, in kg)",
           lambda message, line: "PlanarChain" in message),
    Raised("uncalled", "sum uncalled", "chain.m.sum without parentheses is the method, not the total: call it, with ()",
           lambda message, line: ".sum" in line and ".sum(" not in line),
))
def total_mass(fn):
    """Warm-up: fn(chain) -> the chain's total mass in kg (the sum of chain.m), for two triple pendulums and a
    double one.  Unequal masses first: a mean, a link's mass or one link's times the count is no total there.
    Tolerance 1e-12."""
    cases = [Case(f"a {chain.n_dof}-link chain", lambda chain=chain: (chain,), float(np.sum(chain.m)), chain.n_dof)
             for chain in (*_triples(), two_link())]
    judge(fn, cases, lambda raw, case: read_like(raw, case.truth, "total_mass", TOLERANCE), TOLERANCE, VARIATIONS,
          describe=lambda case, got: f"for {case.label} it returned {_kg(got)}, expected {_kg(case.truth)}",
          properties=PROPERTIES)


def _triples():
    """Two triple pendulums, the heaviest link first and the lightest last in one, the heaviest in the middle and the
    lightest first in the other: no single link's mass, nor a mean or a count, gives the total, nor looks like
    another of these in every case.  When grading, random links with their masses in the same orders."""
    if not grading():
        # pragma: no mutate block (any three masses in this order serve: the truth is their sum)
        return three_link(), PlanarChain(m=[0.8, 1.5, 1.1], l=[1.0, 0.9, 0.7], lc=[0.5, 0.45, 0.35],
                                          I=[0.07, 0.1, 0.045])
    out = []
    for seed, ranks in ((1004, [2, 1, 0]), (1005, [0, 2, 1])):      # the rank of each link's mass, 0 the lightest
        chain = random_chain(3, rng(seed))
        m = np.sort(chain.m)[ranks]
        out.append(PlanarChain(m=m, l=chain.l, lc=chain.lc, I=chain.I * m / chain.m))
    return tuple(out)


def _kg(x):
    return f"{num(x)} kg"
