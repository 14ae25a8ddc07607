"""Local coverage probabilities (LCP) of prediction intervals U_P = k_P uE per bin (primer P000
Sect. III, ErrViewLib ``plotLCP``) with Wilson binomial intervals.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from uqval._internal.types import FloatArray
from uqval.calibration.local import DistributionSpec, bin_layout, bin_table
from uqval.stats.binomial import wilson_interval
from uqval.stats.intervals import Interval
from uqval.stats.synthetic import as_distribution

__all__ = [
    "global_coverage",
    "interval_half_widths",
    "local_coverage",
]

def interval_half_widths(
    uncertainties: ArrayLike, probs: Sequence[float], distribution: DistributionSpec = "normal"
) -> FloatArray:
    """Half-widths U_P,i = uE_i Q_D((1 + P)/2) of symmetric prediction intervals.

    P000 Sect. III.3.5: intervals built from uE and a generative distribution D (normal,
    or unit-variance Student t, e.g. ``("t", 4)`` for Case E). Returns shape (M, len(probs)).
    """
    u = np.asarray(uncertainties, dtype=np.float64)
    p = _probabilities(probs)
    factors = as_distribution(distribution).quantile(0.5 * (1.0 + p))
    return u[:, None] * factors[None, :]


def _probabilities(probs: Sequence[float]) -> FloatArray:
    p = np.atleast_1d(np.asarray(probs, dtype=np.float64))
    if p.ndim != 1 or p.size == 0 or not np.all((p > 0.0) & (p < 1.0)):
        raise ValueError("probs must be a non-empty sequence of probabilities in (0, 1)")
    return p


def _coverage(
    E: ArrayLike,
    half_widths: ArrayLike,
    probs: Sequence[float],
    x: ArrayLike | None,
    bins: Sequence[ArrayLike] | None,
    confidence: float,
) -> pd.DataFrame:
    p = _probabilities(probs)
    e = np.asarray(E, dtype=np.float64)
    u = np.asarray(half_widths, dtype=np.float64)
    u = u[:, None] if u.ndim == 1 else u
    if e.ndim != 1 or u.shape != (e.size, p.size):
        raise ValueError(
            f"half_widths must have shape ({e.size}, {p.size}) (one column per P), got {u.shape}"
        )
    if not (np.all(np.isfinite(e)) and np.all(np.isfinite(u)) and np.all(u >= 0.0)):
        raise ValueError("E must be finite and half_widths finite and non-negative")
    segments, pos = bin_layout(e.size, x, bins, 1)
    hits = segments.sums((np.abs(e)[:, None] <= u).astype(np.int64))  # (n_bins, n_P)
    counts = segments.counts[:, None]
    low, high = wilson_interval(hits, counts, confidence)
    picp = hits / counts
    se = np.sqrt(picp * (1.0 - picp) / counts)
    tables = []
    for j, prob in enumerate(p):
        interval = Interval(picp[:, j], low[:, j], high[:, j], se[:, j])
        table = bin_table(segments, interval, prob, pos)
        table.insert(0, "prob", prob)
        tables.append(table)
    return pd.concat(tables, ignore_index=True)


def local_coverage(
    errors: ArrayLike,
    half_widths: ArrayLike,
    x: ArrayLike,
    bins: Sequence[ArrayLike],
    probs: Sequence[float],
    *,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Local coverage probability (LCP) analysis (P000 Sects. II.2.2, III.3.5, III.4.4).

    Per bin and probability P: PICP nu_P = (1/n) sum_i 1(abs(E_i) <= U_P,i), i.e. the
    fraction of error-centred intervals [E_i - U_P,i, E_i + U_P,i] containing 0, with a
    Wilson binomial CI (ErrViewLib ``plotLCP`` default); the target is P.

    Args:
        errors: errors E (length M).
        half_widths: U_P,i, shape (M,) for one P or (M, len(probs)): given directly for
            interval datasets (e.g. HU2022), or :func:`interval_half_widths` from uE.
        x: conditioning variable, bins: index arrays (as in :func:`local_zvar`).
        probs: the coverage probabilities P of the columns of ``half_widths``.

    Returns:
        One row per (P, bin), sorted by P then bin: prob, bin, x, n, value, ci_low,
        ci_high, target (= P), valid.

    Examples:
        95 % intervals ±1.96 uE of normal errors cover about 95 % of the errors in every bin:

        >>> import numpy as np
        >>> from uqval import equal_count_bins, local_coverage
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> table = local_coverage(e, 1.96 * u, u, equal_count_bins(u, 5), [0.95])
        >>> table["value"].tolist(), table["valid"].tolist()
        ([0.97, 0.935, 0.93, 0.96, 0.95], [True, True, True, True, True])
    """
    return _coverage(errors, half_widths, probs, x, bins, confidence)


def global_coverage(
    errors: ArrayLike, half_widths: ArrayLike, probs: Sequence[float], *, confidence: float = 0.95
) -> pd.DataFrame:
    """Average PICP of the whole set per P with its Wilson CI (LCP right margin)."""
    return _coverage(errors, half_widths, probs, None, None, confidence)

