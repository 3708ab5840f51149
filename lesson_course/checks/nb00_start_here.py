"""Checks for 00_start_here: the warm-up exercise."""
import numpy as np

from .framework import Fail, as_number, call, close, num, register
from .independent import three_link, two_link


@register("00_start_here", hints={
    "one link": "you returned the mass of one link: the total adds up the masses of every link in chain.m",
    "mean": "you returned the links' mean mass: the total adds them up (a sum, not an average)",
    "shape": "the total mass is one number, but you returned one mass per link: add them up",
    "sum": "the total mass is the sum of every link's mass, chain.m (in kg)",
    "not finite": "adding masses cannot give NaN or inf: a placeholder (np.nan, np.empty) is still in your code",
    "attribute": "a chain keeps its links' masses in chain.m (one entry per link, in kg)",
    "uncalled": "chain.m.sum without parentheses is the method, not the total: call it, with ()",
})
def total_mass(fn):
    """Warm-up: fn(chain) -> the chain's total mass in kg (the sum of chain.m), for 2 and 3 links.
    Tolerance 1e-12."""
    for chain in (three_link(), two_link()):        # unequal masses first: a mean is no link's mass there
        got = as_number(call(fn, chain), "total_mass")
        want = float(np.sum(chain.m))
        if not close(got, want, 1e-12):
            key = ("mean" if np.isclose(got, np.mean(chain.m)) else "one link" if np.any(np.isclose(got, chain.m))
                   else "sum")
            raise Fail(f"for a {chain.n_dof}-link chain it returned {num(got)} kg, expected {num(want)} kg", key)
