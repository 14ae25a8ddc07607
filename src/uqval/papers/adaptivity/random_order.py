"""The adaptivity paper's own analyses (P003): rank correlations between features, errors and
uncertainties (Table 1), and f_v of LZM/LZMS after random orderings of tied feature values
("Random order" and "Random + Binomial", Fig. 4).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from uqval import binning
from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import value_generator
from uqval.calibration.adaptivity import local_analysis

# scipy.stats (0.8 s per job) is imported by rank_correlations on first use: the permutation
# jobs (adaptivity_random_order_chunk) do not need it.


def rank_correlations(columns: Mapping[str, ArrayLike]) -> pd.DataFrame:
    """Spearman rank correlation matrix of the given columns (P003 Table II).

    Works for any number of columns >= 1 (one column gives [[1]]); raises ValueError naming
    the columns when there are none, when lengths differ or when fewer than 2 values are given.
    """
    names = list(columns)
    if not names:
        raise ValueError("columns is empty: give at least one named column")
    arrays = [np.asarray(columns[n], dtype=float).ravel() for n in names]
    lengths = {n: a.size for n, a in zip(names, arrays, strict=True)}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"columns have different lengths: {lengths}")
    if arrays[0].size < 2:
        raise ValueError(f"columns hold {arrays[0].size} value(s); a rank correlation needs at least 2")
    if len(names) == 1:
        rho = np.ones((1, 1))
    else:
        from scipy import stats

        rho = np.asarray(stats.spearmanr(np.column_stack(arrays)).statistic, dtype=float)
        if rho.ndim == 0:  # SciPy returns a scalar for exactly two columns
            rho = np.array([[1.0, float(rho)], [float(rho), 1.0]])
    return pd.DataFrame(rho, index=names, columns=names)


def random_order_fv(
    E: ArrayLike, uE: ArrayLike, x: ArrayLike, n_bins: int, permutations: Sequence[int], base_seed: int,
    n_boot_min: int = 1500,
) -> pd.DataFrame:
    """f_v of LZM and LZMS for equal-count bins built after random permutations of the data
    (P003 Fig. 4 "random order": ties within strata are broken in a random order).

    Permutation r uses ``SeedSequence([base_seed, r])`` for both the order and the bootstrap,
    so splitting the permutations into jobs never changes results. Returns one row per
    permutation: perm, fv_zm, fv_zms.
    """
    rows = []
    for r in permutations:
        order_seed, boot_seed = np.random.SeedSequence([base_seed, r]).spawn(2)
        bins = binning.random_order_bins(x, n_bins, value_generator(order_seed))
        a = local_analysis(E, uE, x, bins, boot_seed, n_boot_min)
        rows.append({"perm": r, "fv_zm": a.fv_zm.value, "fv_zms": a.fv_zms.value})
    return pd.DataFrame(rows)


def random_order_summary(perm: pd.DataFrame, n_bins: int, seed: int, confidence: float = 0.95) -> dict:
    """Mean and central interval of f_v over permutations ("Random order"), and the same after
    adding binomial noise f' = Binomial(N_bins, f)/N_bins to each value ("Random + Binomial")."""
    rng = value_generator(seed_sequence(seed))
    lo, hi = 100 * (1 - confidence) / 2, 100 * (1 + confidence) / 2
    out = {}
    for stat in ("fv_zm", "fv_zms"):
        f = perm[stat].to_numpy()
        noisy = rng.binomial(n_bins, f) / n_bins
        out[stat] = {
            "random_mean": float(f.mean()), "random_low": float(np.percentile(f, lo)),
            "random_high": float(np.percentile(f, hi)),
            "binomial_mean": float(noisy.mean()), "binomial_low": float(np.percentile(noisy, lo)),
            "binomial_high": float(np.percentile(noisy, hi)),
        }
    return out

