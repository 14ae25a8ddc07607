"""More Monte Carlo draws where a decision sits within their noise of the level (issue 37).

A permutation p-value p = (1 + k)/(B + 1) from B permutations estimates the p-value of all
permutations, q, with a binomial error: at B = 999 a Holm-adjusted p-value near 0.05 whose
raw value is near 0.05/8 rests on about six exceedances, and two seeds put it on either side
of the level (measured: a cumulative test at p = 0.007 and 0.006, adjusted 0.056 and 0.048,
``benchmarks/seed_stability.md``). The decision then hangs on the seed, not on the data.

The rule (in the spirit of Gandy 2009, "Sequential implementation of Monte Carlo tests with
uniformly bounded resampling risk", JASA 104: 1504): a stage whose decision is **near the
level** is tested again with :data:`REFINE_FACTOR` times as many permutations (9999 for the
default 999), from a stream of its own (:func:`refined_seed`), and those p-values replace the
first ones. Near means that the Clopper-Pearson interval at :data:`NEAR_CONFIDENCE` of q,
from k exceedances in B permutations, times the row's Holm multiplier h = p_adjusted /
p_value, contains alpha (:func:`near_level`). Elsewhere the first B permutations decide, as
before: a refined stage costs ten times its permutation tests, on the few sets near the level.

The ZMS test of the average stage takes its p-value from the bootstrap's n_boot replicates;
one near the level (the same rule, B = n_boot) is run again with REFINE_FACTOR times the
replicates, which also give the scale factor's interval.

The joint test's p-value is twice the median of its splits' p-values (Meinshausen, Meier &
Bühlmann 2009); its seed noise comes from the splits, not the permutations. A joint test (spread
or bias) whose adjusted p-value lies within a factor :data:`JOINT_NEAR_FACTOR` of alpha is run
again with :data:`JOINT_REFINED_SPLITS` splits (``near_joint``), whose median moves less with
the seed; the other test keeps its first splits (nothing is fitted for it again).

All three apply up to ``SEQUENTIAL_ROWS`` (10⁵) rows; above, the sequential rule of the
large-set mode decides (:mod:`uqval.validation.stages`), and the cost of a large set is
unchanged.

All are decisions made twice on the same data, so the size of the combined rule is not
exactly alpha; it is measured by simulation with the others
(``benchmarks/seed_stability.md``, ``docs/explanations/error-rates.md``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
from scipy import special

__all__ = [
    "JOINT_NEAR_FACTOR",
    "JOINT_REFINED_SPLITS",
    "NEAR_CONFIDENCE",
    "REFINE_FACTOR",
    "near_joint",
    "near_level",
    "refined_permutations",
    "refined_seed",
    "stage_near_level",
]

REFINE_FACTOR = 10
"""A stage near the level is tested again with (B + 1) x REFINE_FACTOR - 1 permutations."""
NEAR_CONFIDENCE = 0.99
"""Confidence of the Clopper-Pearson interval of the all-permutations p-value."""
JOINT_NEAR_FACTOR = 3.0
"""A joint adjusted p-value in [alpha / 3, 3 alpha] is near the level."""
JOINT_REFINED_SPLITS = 40
"""Random splits of a joint test near the level (10 otherwise)."""


def near_level(p_value: float, p_adjusted: float, n_permutations: int, alpha: float) -> bool:
    """Whether alpha lies in h [lo, hi]: [lo, hi] the Clopper-Pearson interval at
    :data:`NEAR_CONFIDENCE` of the all-permutations p-value from k = p (B + 1) - 1
    exceedances in B permutations, h = p_adjusted / p the row's Holm multiplier.

    >>> near_level(0.007, 0.056, 999, 0.05), near_level(0.001, 0.008, 999, 0.05)
    (True, False)
    >>> near_level(0.30, 0.30, 999, 0.05)
    False
    """
    if not (np.isfinite(p_value) and np.isfinite(p_adjusted)) or p_value <= 0.0:
        return False
    b = float(n_permutations)
    k = max(0.0, round(p_value * (b + 1.0)) - 1.0)
    tail = 0.5 * (1.0 - NEAR_CONFIDENCE)
    lo = float(special.betaincinv(k, b - k + 1.0, tail)) if k > 0 else 0.0
    hi = float(special.betaincinv(k + 1.0, b - k, 1.0 - tail)) if k < b else 1.0
    h = max(1.0, p_adjusted / p_value)
    return bool(h * lo <= alpha <= min(1.0, h * hi))


def stage_near_level(rows: Iterable[Mapping], n_permutations: int, alpha: float) -> bool:
    """Whether any scaled row of the conditional stages (the rows the labels judge) has a
    p-value near the level (:func:`near_level`)."""
    return any(near_level(float(r["p_value"]), float(r["p_adjusted"]), n_permutations, alpha)
               for r in rows if r.get("scaled") and r.get("verdict") in ("pass", "fail"))


def near_joint(rows: Iterable[Mapping], alpha: float) -> tuple[str, ...]:
    """The statistics of the scaled joint rows whose adjusted p-value lies in
    [alpha/f, f alpha], f = :data:`JOINT_NEAR_FACTOR` (empty: no joint test near the level).

    >>> rows = [{"scaled": True, "statistic": "spread", "p_adjusted": 0.04},
    ...         {"scaled": True, "statistic": "bias", "p_adjusted": 0.6},
    ...         {"scaled": False, "statistic": "spread", "p_adjusted": 0.05}]
    >>> near_joint(rows, 0.05)
    ('spread',)
    """
    return tuple(str(r["statistic"]) for r in rows
                 if r.get("scaled") and np.isfinite(float(r["p_adjusted"]))
                 and alpha / JOINT_NEAR_FACTOR <= float(r["p_adjusted"])
                 <= JOINT_NEAR_FACTOR * alpha)


def refined_permutations(n_permutations: int) -> int:
    """(B + 1) REFINE_FACTOR - 1: 9999 for 999.

    >>> refined_permutations(999), refined_permutations(199)
    (9999, 1999)
    """
    return (n_permutations + 1) * REFINE_FACTOR - 1


def refined_seed(seed: np.random.SeedSequence) -> np.random.SeedSequence:
    """The stream of a refined test: ``seed``'s entropy with one more spawn key, independent
    of the first draws and of how many children ``seed`` has spawned."""
    return np.random.SeedSequence(entropy=seed.entropy,
                                  spawn_key=(*seed.spawn_key, 2**31 - 37))
