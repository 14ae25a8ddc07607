"""Do the uncertainties rank the errors better than a constant band? The UCC gain of the
validation engine (P004 Sect. 2-4; :mod:`uqval.ucc`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from uqval.ucc import (
    PredictionIntervals,
    auucc,
    auucc_gain,
    auucc_permutation_test,
    constant_band,
    ucc_curve,
)

__all__ = ["UCC_EXCEEDANCES", "UCCGain", "ucc_gain"]


UCC_EXCEEDANCES = 20
"""Exceedances h of the sequential (Besag-Clifford) permutation p-value of the UCC gain."""


@dataclass(frozen=True)
class UCCGain:
    """Do the uncertainties rank the errors better than a constant band? (P004 Sect. 2-4).

    Uncertainty Characteristics Curves in excess-deficit coordinates of the band
    ±k·uE and of a constant band ±k (both scaled by every k > 0), their areas (AUUCC, in
    units of sd(E)), the gain 100 (A_constant - A_model)/A_constant (P004 Eq. 6; > 0: the
    uncertainties sort the errors better than no uncertainty information at all) and the
    two-sided paired permutation p-value of the difference (sequential, h = 20
    exceedances, at most ``max_permutations``; :func:`uqval.ucc.auucc_permutation_test`;
    rows in groups: the bands swapped on whole groups).
    The gain is unchanged by a global rescaling of uE: it judges how uE *ranks* the errors,
    which average calibration does not.
    """

    auucc: float
    auucc_constant: float
    gain_percent: float
    p_value: float
    n_permutations: int
    max_permutations: int


def ucc_gain(e: NDArray[np.float64], u: NDArray[np.float64], max_permutations: int,
              seed: np.random.SeedSequence, n_workers: int,
              groups: NDArray[np.intp] | None = None) -> UCCGain:
    """The :class:`UCCGain` of bands ±uE against a constant band; ``groups`` (a code per
    row): the permutations swap the two bands on whole groups."""
    zero = np.zeros_like(e)
    model = PredictionIntervals.from_uncertainty(zero, u)
    const = constant_band(zero)
    a_model = auucc(ucc_curve(e, model, "excess", "deficit", normalize="std"))
    a_const = auucc(ucc_curve(e, const, "excess", "deficit", normalize="std"))
    test = auucc_permutation_test(
        e, model, const, "excess", "deficit", normalize="std",
        n_permutations=max_permutations, seed=seed, exceedances=UCC_EXCEEDANCES,
        n_workers=n_workers, groups=groups,
    )
    return UCCGain(a_model, a_const, auucc_gain(a_model, a_const), float(test.p_value),
                   int(test.n_permutations), int(max_permutations))
