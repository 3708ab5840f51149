"""Checks for 00_start_here: the warm-up exercise."""
import numpy as np

from lesson_lib.physics.chain import PlanarChain

from .diagnosis import Case, Raised, Variation, judge, read_like
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


@register("00_start_here", variations=VARIATIONS, tolerance=TOLERANCE, hints={
    "shape": "the total mass is one number, in kg",
    "not finite": "adding masses cannot give NaN or inf: a placeholder (np.nan, np.empty) is still in your code",
}, raised=(
    Raised("attribute", "attribute", "a chain keeps its links' masses in chain.m (one entry per link, in kg)",
           lambda message, line: "PlanarChain" in message),
    Raised("uncalled", "uncalled", "chain.m.sum without parentheses is the method, not the total: call it, with ()",
           lambda message, line: ".sum" in line and ".sum(" not in line),
))
def total_mass(fn):
    """Warm-up: fn(chain) -> the chain's total mass in kg (the sum of chain.m), for two triple pendulums and a
    double one.  Unequal masses first: a mean, a link's mass or one link's times the count is no total there.
    Tolerance 1e-12."""
    cases = [Case(f"a {chain.n_dof}-link chain", lambda chain=chain: (chain,), float(np.sum(chain.m)))
             for chain in (*_triples(), two_link())]
    judge(fn, cases, lambda raw, case: read_like(raw, case.truth, "total_mass", TOLERANCE), TOLERANCE, VARIATIONS,
          describe=lambda case, got: f"for {case.label} it returned {_kg(got)}, expected {_kg(case.truth)}")


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
