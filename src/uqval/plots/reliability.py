"""Bin-free reliability plots: the isotonic fit of E² on uE² and cumulative differences along x.

=============================  ===========================================================
function                       what it shows
=============================  ===========================================================
isotonic_reliability_plot      PAV fit of E² on uE² against the diagonal, with the band
                               where fits of calibrated sets with the same uE lie and the
                               bootstrap interval of the fit
                               (:func:`~uqval.calibration.isotonic.isotonic_reliability`)
cumulative_plot                cumulative sum of Z² − 1 (or Z) along x with the chord and
                               a simultaneous band
                               (:func:`~uqval.calibration.cumulative.cumulative_test`)
=============================  ===========================================================

Both take ``(errors, uncertainties, ...)``, draw on ``ax`` (a new figure in the project style
when None) and return the Axes. Lines with more than :data:`MAX_VERTICES` points are drawn
through that many points at evenly spaced ranks (both ends kept); statistics use every row.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from uqval._internal.checks import probability
from uqval._internal.types import SeedLike
from uqval.calibration.cumulative import Kind, Statistic, cumulative_test
from uqval.calibration.isotonic import isotonic_reliability
from uqval.plots import panels
from uqval.plots.drawing import draw_isotonic_reliability
from uqval.plots.records import LOG_DECADES, MAX_VERTICES, isotonic_record
from uqval.plots.style import CALIBRATED, REFERENCE, UNCALIBRATED, figure
from uqval.stats.synthetic import DistributionName

__all__ = ["MAX_VERTICES", "cumulative_plot", "isotonic_reliability_plot"]


def _axes(ax: Axes | None, width: float = 3.6, height: float = 3.2) -> Axes:
    if ax is not None:
        return ax
    _, new = figure(1, 1, width=width, height=height)
    return new


def _shown(n: int) -> NDArray[np.intp]:
    """min(n, MAX_VERTICES) positions evenly spaced over 0..n-1, both ends included."""
    if n <= MAX_VERTICES:
        return np.arange(n, dtype=np.intp)
    return np.unique(np.rint(np.linspace(0, n - 1, MAX_VERTICES)).astype(np.intp))


def _spans_decades(values: NDArray[np.float64]) -> bool:
    """Whether positive values span more than :data:`LOG_DECADES` decades."""
    return bool((values > 0).all() and np.log10(values.max() / values.min()) > LOG_DECADES)


def _log_x(values: NDArray[np.float64]) -> bool:
    """Log x for values spanning more than two decades that also spread more evenly on a log
    scale: the largest gap between their 2 %, 4 %, ..., 98 % quantiles, relative to the
    quantiles' range, is smaller in log x than in x (a skewed uE yes, a uniform feature whose
    smallest value happens to be near 0 no)."""
    if not _spans_decades(values):
        return False
    q = np.quantile(values, np.linspace(0.02, 0.98, 49))

    def largest_gap(t: NDArray[np.float64]) -> float:
        span = t[-1] - t[0]
        return float(np.diff(t).max() / span) if span > 0 else np.inf

    return largest_gap(np.log(q)) < largest_gap(q)


def isotonic_reliability_plot(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    *,
    ax: Axes | None = None,
    seed: SeedLike = 0,
    n_sim: int = 500,
    n_boot: int = 200,
    distribution: DistributionName = "normal",
    nu: float | None = None,
    confidence: float = 0.95,
    units: str | None = None,
) -> Axes:
    """Isotonic (PAV) fit of E² on uE² with its consistency band and confidence interval.

    The fit estimates E[E² | uE²] without bins; calibrated uncertainties put it on the
    diagonal. Shaded: the pointwise ``confidence`` band of the fits of ``n_sim`` sets simulated
    as calibrated with the same uE (E* = uE·D, D ``distribution``); thin lines: the pointwise
    bootstrap interval of the fit (``n_boot`` resamples). A fit above the band marks a range
    of uE² whose uncertainties are too small, below it too large. The legend gives the CORP
    miscalibration MCB of the QLIKE score with its p-value and the discrimination DSC
    (:func:`uqval.calibration.isotonic.isotonic_reliability`). Both axes are in uE² units
    (``units`` are those of E and uE) and logarithmic when uE² spans more than two decades
    (:func:`uqval.plots.records.isotonic_record`; drawn by
    :func:`uqval.plots.drawing.draw_isotonic_reliability`).

    >>> rng = np.random.default_rng(0)
    >>> u = rng.uniform(0.5, 2.0, 1000)
    >>> e = u * rng.standard_normal(u.size)
    >>> ax = isotonic_reliability_plot(e, u, n_sim=50, n_boot=50)
    >>> ax.get_xlabel()
    '$u_E^2$'
    """
    probability(confidence)
    res = isotonic_reliability(errors, uncertainties, n_sim=n_sim, n_boot=n_boot,
                               distribution=distribution, nu=nu, confidence=confidence,
                               seed=seed)
    return draw_isotonic_reliability(isotonic_record(res, MAX_VERTICES), ax=_axes(ax),
                                     units=units)


def cumulative_plot(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    x: ArrayLike | None = None,
    *,
    kind: Kind = "spread",
    statistic: Statistic = "kuiper",
    x_name: str = "uncertainty",
    units: str | None = None,
    ax: Axes | None = None,
    n_permutations: int = 999,
    seed: SeedLike = 0,
    confidence: float = 0.95,
) -> Axes:
    """Cumulative differences C_k = (1/M) sum_{j<=k} d_(j) along x, d = Z² − 1 or Z.

    The curve is drawn against x in its own units (x defaults to uE; a feature is named by
    ``x_name``, e.g. "temperature (K)"); its slope is the local mean of d, so a rising stretch
    is a range of x with uncertainties too small (spread; for bias: errors E > 0) and a
    falling one with uncertainties too large (E < 0). The dashed chord is the curve expected
    when the mean of d is the same everywhere; the shaded band around it is the simultaneous
    ``confidence`` band of the departure from the chord: chord ± q·σ with q the permutation
    quantile of the KS statistic when ``statistic="ks"``, else the Kolmogorov quantile of the
    Brownian-bridge approximation (1.358 at 95 %). The legend gives the statistic and its
    permutation p-value (:func:`uqval.calibration.cumulative.cumulative_test`). Log x when
    positive x span more than two decades and spread
    more evenly on a log scale (a skewed uE, not a uniform feature).

    >>> rng = np.random.default_rng(0)
    >>> u = rng.uniform(0.5, 2.0, 1000)
    >>> e = u * rng.standard_normal(u.size)
    >>> ax = cumulative_plot(e, u, n_permutations=99)
    >>> ax.get_xlabel()
    'uncertainty $u_E$'
    """
    confidence = probability(confidence)
    test = cumulative_test(errors, uncertainties, x, kind=kind, statistic=statistic,
                           n_permutations=n_permutations, seed=seed)
    ax = _axes(ax, width=4.0)
    m = test.cumulative.size
    idx = _shown(m)
    xs = np.r_[test.x_sorted[0], test.x_sorted[idx]]
    curve = np.r_[0.0, test.cumulative[idx]]
    chord = np.r_[0.0, test.chord[idx]]
    if statistic == "ks":
        q = float(np.quantile(test.null, confidence))
        source = "permutations"
    else:
        q = float(stats.kstwobign.ppf(confidence))
        source = "Brownian bridge"
    level = f"{100 * confidence:.0f} %"
    ax.fill_between(xs, chord - q * test.scale, chord + q * test.scale, color=CALIBRATED,
                    alpha=0.22, lw=0, label=f"{level} simultaneous band ({source})")
    ax.plot(xs, chord, "--", color=REFERENCE, lw=0.8, label="same mean everywhere (chord)")
    name = "Kuiper" if statistic == "kuiper" else "KS"
    ax.plot(xs, curve, color=UNCALIBRATED, lw=1.2,
            label=f"{name} {test.value:.2f}, p = {test.p_value:.2g} "
            f"({test.n_permutations} permutations)")
    ax.axhline(0.0, color=REFERENCE, lw=0.5)
    if _log_x(test.x_sorted):
        ax.set_xscale("log")
        panels.readable_log_ticks(ax)
    if kind == "spread":
        ylabel = r"$\frac{1}{M}\sum_{j \leq k}\,(Z_j^2 - 1)$"
        hint = "rising: uncertainties too small there\nfalling: uncertainties too large there"
    else:
        ylabel = r"$\frac{1}{M}\sum_{j \leq k}\,Z_j$"
        hint = "rising: errors E > 0 (predictions too low)\nfalling: errors E < 0 (too high)"
    xlabel = (rf"uncertainty $u_E$ ({units})" if units else r"uncertainty $u_E$") \
        if x is None else x_name
    ax.set(xlabel=xlabel, ylabel=ylabel)
    ax.legend(loc="upper left", fontsize=6.5)
    ax.text(0.98, 0.03, hint, transform=ax.transAxes, ha="right", va="bottom", fontsize=6.5,
            color=REFERENCE)
    low, top = ax.get_ylim()
    ax.set_ylim(low - 0.15 * (top - low), top + 0.35 * (top - low))  # room for legend and hint
    return ax
