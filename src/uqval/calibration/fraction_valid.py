"""Fraction f_v of bins whose interval contains the target (adaptivity paper P003 Sect. III.B.1).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from uqval.stats.binomial import wilson_cc_interval

__all__ = [
    "FractionValid",
    "fraction_valid",
]

@dataclass(frozen=True)
class FractionValid:
    """Fraction of valid bins f_v with its binomial interval (P003 Sect. III.B.2).

    Attributes:
        value: f_v = n_valid / n_bins.
        ci_low, ci_high: Wilson interval with continuity correction.
        n_valid: bins whose CI contains the target.
        n_bins: number of bins.

    Examples:
        >>> import pandas as pd
        >>> from uqval import fraction_valid
        >>> fv = fraction_valid(pd.DataFrame({"valid": [True] * 18 + [False] * 2}))
        >>> fv.value, fv.n_valid, fv.n_bins
        (0.9, 18, 20)
        >>> fv.ci_low <= 0.95 <= fv.ci_high  # consistent with the target 0.95
        True
    """

    value: float
    ci_low: float
    ci_high: float
    n_valid: int
    n_bins: int


def fraction_valid(local: pd.DataFrame, confidence: float = 0.95) -> FractionValid:
    """f_v = (bins whose CI contains the target)/N_bins with a Wilson-cc interval.

    P003 Sect. III.B.2 (target value 0.95 for 95% CIs); the interval is
    ``DescTools::BinomCI(method = "wilsoncc")`` with successes = valid bins and
    trials = N_bins, as in the authors' code.

    Args:
        local: a table of a ``local_*`` function (column ``valid``). A coverage table
            must hold a single P (select ``local[local.prob == P]``).

    Examples:
        18 valid bins out of 20 (e.g. the ``valid`` column of :func:`local_zms`):

        >>> import pandas as pd
        >>> from uqval import fraction_valid
        >>> fv = fraction_valid(pd.DataFrame({"valid": [True] * 18 + [False] * 2}))
        >>> fv.value, round(fv.ci_low, 3), round(fv.ci_high, 3)
        (0.9, 0.669, 0.982)
    """
    if "prob" in local.columns and local["prob"].nunique() > 1:
        raise ValueError("the table holds several coverage probabilities; select one P")
    valid = local["valid"].to_numpy(dtype=bool)
    if valid.size == 0:
        raise ValueError("the table holds no bins")
    n_valid = int(valid.sum())
    low, high = wilson_cc_interval(n_valid, valid.size, confidence)
    return FractionValid(n_valid / valid.size, float(low), float(high), n_valid, valid.size)

