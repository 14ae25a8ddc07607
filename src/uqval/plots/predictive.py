"""Figures of predictive validation: PIT histogram, coverage by level, local coverage.

Drawing only: every function takes ``ax=None`` and returns the Axes.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from numpy.typing import ArrayLike
from scipy import stats

from uqval.plots.panels import GUIDE
from uqval.plots.style import CALIBRATED, UNCALIBRATED, figure

__all__ = ["coverage_levels_plot", "local_coverage_levels_plot", "pit_histogram_plot"]


def _axes(ax: Axes | None) -> Axes:
    if ax is not None:
        return ax
    _, new = figure(1, 1, width=3.6, height=3.0)
    return new


def pit_histogram_plot(pit: ArrayLike, *, n_bins: int | None = None, confidence: float = 0.95,
                       ax: Axes | None = None) -> Axes:
    """Histogram of the PIT values (density; flat at 1 when the predictive is right) with the
    band of a uniform PIT: in each of K bins the count is Binomial(M, 1/K), and the shaded band
    spans its (1 ∓ confidence)/2 quantiles divided by M/K (pointwise, not simultaneous).

    Default K = min(20, max(5, M // 50)). A U shape means too narrow predictive
    distributions (or heavier tails), a hump too wide ones, a slope a bias.

    >>> import numpy as np
    >>> ax = pit_histogram_plot(np.random.default_rng(0).random(1000))
    >>> ax.get_xlabel()
    'PIT = F(y)'
    """
    u = np.asarray(pit, dtype=np.float64)
    u = u[np.isfinite(u)]
    m = u.size
    k = n_bins or int(min(20, max(5, m // 50)))
    ax = _axes(ax)
    counts, edges = np.histogram(u, bins=k, range=(0.0, 1.0))
    scale = k / max(m, 1)
    lo = stats.binom.ppf((1 - confidence) / 2, m, 1 / k) * scale
    hi = stats.binom.ppf((1 + confidence) / 2, m, 1 / k) * scale
    ax.axhspan(lo, hi, color=GUIDE, alpha=0.25, lw=0,
               label=f"{100 * confidence:g} % band of a uniform PIT")
    outside = (counts * scale < lo) | (counts * scale > hi)
    colours = [UNCALIBRATED if o else CALIBRATED for o in outside]
    ax.bar(edges[:-1], counts * scale, width=1 / k, align="edge", color=colours,
           edgecolor="white", lw=0.5)
    ax.axhline(1.0, color="0.2", lw=0.8)
    ax.set_xlim(0, 1)
    ax.set_xlabel("PIT = F(y)")
    ax.set_ylabel("density")
    ax.legend(loc="upper center")
    return ax


def coverage_levels_plot(levels: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Observed coverage against nominal level with Clopper-Pearson intervals (table
    ``levels`` of :class:`uqval.validation.coverage_shape.CoverageCheck`), the identity and
    the tolerance band (grey).

    >>> import pandas as pd
    >>> t = pd.DataFrame({"level": [0.5, 0.9], "value": [0.48, 0.84], "ci_low": [0.45, 0.82],
    ...                   "ci_high": [0.51, 0.86], "band_low": [0.46, 0.865],
    ...                   "band_high": [0.54, 0.929], "verdict": ["pass", "fail"]})
    >>> coverage_levels_plot(t).get_ylabel()
    'observed coverage'
    """
    ax = _axes(ax)
    t = levels.sort_values("level")
    lv = t["level"].to_numpy()
    ax.fill_between(lv, t["band_low"], t["band_high"], color=GUIDE, alpha=0.25, lw=0,
                    label="tolerance band")
    ax.plot([0, 1], [0, 1], color="0.2", lw=0.8)
    for r in t.itertuples():
        colour = UNCALIBRATED if r.verdict == "fail" else CALIBRATED
        ax.errorbar([r.level], [r.value], yerr=[[r.value - r.ci_low], [r.ci_high - r.value]],
                    fmt="o", color=colour, ms=4, capsize=2)
    low = max(0.0, float(min(lv.min(), t["ci_low"].min())) - 0.05)
    ax.set_xlim(low, 1.0)
    ax.set_ylim(low, 1.0)
    ax.set_xlabel("nominal level L")
    ax.set_ylabel("observed coverage")
    ax.legend(loc="upper left")
    return ax


def local_coverage_levels_plot(bins: pd.DataFrame, *, x_name: str,
                               ax: Axes | None = None) -> Axes:
    """Coverage per bin of a variable for each level (table ``bins[name]`` of the coverage
    check: level, low, high, value, ci_low, ci_high), with Clopper-Pearson intervals; dotted
    lines at the nominal levels.

    >>> import pandas as pd
    >>> b = pd.DataFrame({"level": [0.9, 0.9], "low": [0.0, 1.0], "high": [1.0, 2.0],
    ...                   "value": [0.85, 0.93], "ci_low": [0.8, 0.9], "ci_high": [0.9, 0.96]})
    >>> local_coverage_levels_plot(b, x_name="x").get_xlabel()
    'x (bin mid-range)'
    """
    ax = _axes(ax)
    for j, (level, t) in enumerate(bins.groupby("level", sort=True)):
        x = 0.5 * (t["low"].to_numpy() + t["high"].to_numpy())
        colour = f"C{j}"
        ax.axhline(level, color=colour, lw=0.8, ls=":")
        ax.errorbar(x, t["value"], yerr=[t["value"] - t["ci_low"], t["ci_high"] - t["value"]],
                    fmt="o-", color=colour, ms=3, lw=0.8, capsize=1.5, label=f"L = {level:g}")
    ax.set_xlabel(f"{x_name} (bin mid-range)")
    ax.set_ylabel("coverage in the bin")
    ax.legend(loc="lower right", ncol=2)
    return ax
