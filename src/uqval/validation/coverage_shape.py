"""The coverage and shape stages of a predictive (ensembles, quantiles, intervals, distributions).

Coverage (primer P000 Sect. II.2.2, interval-based validation; Pernot's coverage-based
validation), for each nominal level L of a central interval:

* observed coverage ν_L = k/n (k rows with low <= y <= high; for ensembles, τ_low <= PIT <=
  τ_high with the randomised PIT, exact for any number of members), its exact Clopper-Pearson
  95 % interval and the exact two-sided binomial p-value of ν_L = L; Holm's adjustment runs over
  the levels (and, for :class:`~uqval.predictive.Quantiles`, over the per-level quantile
  calibration rows: frequency of y <= q_τ against τ, the same binomial test);
* effect: the practical tolerance t of the variance stages, translated into coverage: the band
  [2Φ(q/(1 + t)) - 1, 2Φ(q(1 + t)) - 1], q = Φ^-1((1 + L)/2), is the coverage of a normal
  interval 1 + t times too narrow or too wide (L = 0.9, t = 0.1: [86.5 %, 93.0 %]);
  ``negligible`` when the interval of ν_L lies inside, ``relevant`` when the test fails and
  ν_L lies outside. For a quantile level τ the band also admits a shift of ±t sd;
* what to do: the factor k_L by which the intervals should be widened about their midpoints
  c = (low + high)/2 so that L of the rows are covered, k_L = the L-quantile of
  r_i = abs(y_i - c_i)/h_i (h_i the half-width), with its distribution-free order-statistic 95 %
  interval (ranks from the Binomial(n, L) quantiles). Not given for ensembles at levels above
  (m - 1)/(m + 1), where their central interval is the range of the members;
* for unweighted ensembles, also the coverage of the intervals users build from them,
  mean ± q·sd·√(1 + 1/m) with q the (1 + L)/2 quantile of t(m - 1) (exact L for a perfect
  normal ensemble of any m), with the same test and a factor k_L on q
  (:func:`built_interval_rows`; Holm over all the levels' rows);
* conditional coverage (local coverage probabilities, LCP; P000 Sect. III): the 0/1 indicator
  of coverage is binned along the interval width at that level and along each feature
  (equal-count, tie-aware bins of :func:`uqval.binning.tie_aware_bins`), and the between-bin spread
  T = Σ n_b (ν_b - ν)² is tested by the exact permutation test of
  :mod:`uqval.validation.permutation` (the statistic T_Z applied to the indicator). Holm runs
  over levels × variables. A variable whose bins hold fewer than 30 rows is ``inconclusive``;
  a constant width (split-conformal intervals) is not a binning variable. Ensembles and
  samples are binned along the standard deviation of the m members *and y* instead of their
  interval width: with few members the width is itself noisy, and a perfect 10-member ensemble
  covers less where its members happen to lie close together, which the test along the width
  would flag; the rank of y is independent of any symmetric function of (members, y) when y is
  exchangeable with the members, so the test along the pooled spread has its exact size and
  still says in which range of spread the coverage is wrong.

Shape (Dawid 1984; Gneiting, Balabdaoui and Raftery 2007; Czado, Gneiting and Held 2009): the
PIT u_i = F_i(y_i) is U(0, 1) when every predictive is right. Test: Cramér-von Mises
W² = 1/(12 n) + Σ (u_(i) - (2i - 1)/(2n))² against the fully specified uniform
(``scipy.stats.cramervonmises``: Csörgő and Faraway 1996 distribution, no simulation);
docs/choices.md ("Shape of a predictive") says why. PITs of ensembles and of quantile sets are
randomised within their steps, so they are exactly uniform under the null and the continuous
test applies. The decision is one row; what is wrong is said by three shares with
Clopper-Pearson intervals: rows in the central 50 % (PIT in [0.25, 0.75], expected 50 %), in
the outer 10 % (PIT < 0.05 or > 0.95, expected 10 %) and in the outer 1 % (expected 1 %), and
the share below the predictive median (expected 50 %). Their tolerance bands are those of the
coverage at 0.5, 0.9 and 0.99 (and ±t sd for the median).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import special, stats

from uqval._internal.seeding import seed_sequence
from uqval._internal.types import FloatArray, SeedLike
from uqval.binning import Bins, default_n_bins, tie_aware_bins
from uqval.predictive import Ensemble, Predictive, Quantiles
from uqval.stats.binomial import binomial_p_value, clopper_pearson_interval
from uqval.stats.cluster_cvm import cluster_cvm_uniform
from uqval.stats.cluster_proportion import cluster_proportion, gaussian_indicator_icc
from uqval.stats.groups import GroupIndex, icc_oneway
from uqval.validation import rules
from uqval.validation.bin_tables import bins_for_groups
from uqval.validation.permutation import grouped_heterogeneity_tests, heterogeneity_tests

__all__ = [
    "BUILT",
    "WIDTH",
    "CoverageCheck",
    "ShapeCheck",
    "built_interval_rows",
    "coverage_band",
    "coverage_effect",
    "coverage_share",
    "coverage_rows",
    "latent_icc",
    "normal_scores",
    "quantile_band",
    "shape_check",
]

WIDTH = "interval width"
"""Name of the interval width as a binning variable of the conditional coverage."""

POOLED_SPREAD = "spread of members and y"
"""Binning variable of the conditional coverage of ensembles (module docstring)."""


def coverage_band(level: float, tolerance: float) -> tuple[float, float]:
    """Coverage at ``level`` of a normal central interval 1 + t times too narrow and too wide.

    >>> [round(x, 3) for x in coverage_band(0.9, 0.1)]
    [0.865, 0.93]
    """
    q = float(special.ndtri(0.5 * (1.0 + level)))
    return (float(2 * special.ndtr(q / (1 + tolerance)) - 1),
            float(2 * special.ndtr(q * (1 + tolerance)) - 1))


def quantile_band(tau: float, tolerance: float) -> tuple[float, float]:
    """Frequencies of y <= q_τ within tolerance: normal quantile rescaled by 1 + t or shifted
    by ±t sd.

    >>> [round(x, 3) for x in quantile_band(0.5, 0.1)]
    [0.46, 0.54]
    """
    q = float(special.ndtri(tau))
    cands = [q / (1 + tolerance), q * (1 + tolerance), q - tolerance, q + tolerance]
    values = [float(special.ndtr(c)) for c in cands]
    return min(values), max(values)


def _inside(low: float, high: float, band: tuple[float, float]) -> bool:
    return band[0] <= low and high <= band[1]


def coverage_effect(value: float, low: float, high: float, failed: bool,
                    band: tuple[float, float]) -> str:
    """``negligible`` when the interval [low, high] lies inside the tolerance band,
    ``relevant`` when the test failed and the coverage lies outside it, else
    ``undetermined`` (module docstring).

    >>> coverage_effect(0.80, 0.77, 0.83, True, (0.865, 0.93))
    'relevant'
    """
    if _inside(low, high, band):
        return "negligible"
    if failed and not band[0] <= value <= band[1]:
        return "relevant"
    return "undetermined"


def _widen_factor(ratios: FloatArray, level: float) -> tuple[float, float, float]:
    """L-quantile of |y - c|/h with its order-statistic 95 % interval (module docstring)."""
    n = ratios.size
    r = np.sort(ratios)
    k = min(n, max(1, math.ceil(n * level)))
    lo = int(stats.binom.ppf(0.025, n, level))
    hi = int(stats.binom.ppf(0.975, n, level)) + 1
    return float(r[k - 1]), float(r[max(lo, 1) - 1]), float(r[min(hi, n) - 1])


def coverage_share(hit: NDArray[np.bool_], p0: float, groups: GroupIndex | None,
                   indicator_icc: float = 0.0) -> tuple[int, float, float, float]:
    """(k, ci_low, ci_high, p_value) of the share of ``hit``: Clopper-Pearson and the exact
    binomial test, or with ``groups`` the Korn-Graubard interval and test over the groups
    with the variance floor of ``indicator_icc``
    (:func:`uqval.stats.cluster_proportion.cluster_proportion`)."""
    n, k = hit.size, int(hit.sum())
    if groups is None:
        lo, hi = clopper_pearson_interval(k, n)
        return k, float(lo), float(hi), binomial_p_value(k, n, p0)
    r = cluster_proportion(hit, groups, p0, indicator_icc=indicator_icc)
    return k, r.ci_low, r.ci_high, r.p_value


def latent_icc(scores: FloatArray, groups: GroupIndex | None) -> float:
    """Intra-class correlation (one-way ANOVA, at least 0) of the rows' normal scores
    Φ^-1(PIT) (or, without a PIT, the standardised position in the interval): the
    dependence from which the floors of the grouped shares' variances follow
    (:mod:`uqval.stats.cluster_proportion`); 0 without groups."""
    if groups is None:
        return 0.0
    finite = np.isfinite(scores)
    if finite.sum() < 3 or not finite.all():
        scores = np.where(finite, scores, 0.0)
    value = icc_oneway(scores, groups)
    return float(max(0.0, value)) if np.isfinite(value) else 0.0


def normal_scores(y: FloatArray, pred: Predictive, levels: Sequence[float],
                   seed: SeedLike) -> FloatArray:
    """Φ^-1(PIT) of the rows, or for intervals (no PIT) the position of y in the widest
    interval, (y - centre)/half-width times its normal quantile."""
    if pred.has_shape:
        return np.asarray(special.ndtri(np.clip(pred.pit(y, seed=seed), 1e-12, 1 - 1e-12)))
    level = max(levels)
    low, high = pred.interval(level)
    half = np.maximum(0.5 * (high - low), np.finfo(float).tiny)
    return (y - 0.5 * (low + high)) / half * float(special.ndtri(0.5 * (1.0 + level)))


def _test_name(groups: GroupIndex | None) -> str:
    return ("exact binomial test, Clopper-Pearson interval" if groups is None else
            f"Korn-Graubard test and interval over {groups.n_groups} groups")


def _verdict_row(stage: str, feature: str, statistic: str, value: float,
                 ci: tuple[float, float], target: float, p: float, note: str) -> dict:
    return {"stage": stage, "feature": feature, "scaled": False, "verdict": "", "effect": "",
            "statistic": statistic, "value": value, "ci_low": ci[0], "ci_high": ci[1],
            "target": target, "p_value": p, "p_adjusted": np.nan, "note": note}


@dataclass(frozen=True)
class CoverageCheck:
    """The coverage stage (module docstring).

    Attributes:
        levels: one row per nominal level: level, n, covered, value (observed coverage),
            ci_low, ci_high (Clopper-Pearson), p_value, p_adjusted (Holm), verdict, effect,
            band_low, band_high (tolerance band), deficit_pp (100 (L - value): > 0 too few
            covered), widen, widen_low, widen_high (factor k_L about the midpoints).
        quantiles: for quantile sets, one row per level τ: n, below (rows with y <= q_τ),
            value, ci_low, ci_high, p_value, p_adjusted, verdict, effect; else empty.
        conditional: one row per (level, variable): spread ratio T/E(T), p_value,
            p_adjusted, verdict, effect, worst bin (low, high, value, ci).
        bins: per variable, one row per (level, bin): level, low, high, n, value, ci_low,
            ci_high, valid (interval contains the level).
        rows: the verdict rows (stage ``coverage``).
        built: for unweighted ensembles, the intervals users build from them,
            mean ± q·sd·√(1 + 1/m) with q the (1 + L)/2 quantile of t(m - 1) (the exact
            interval of a perfect normal ensemble; :func:`built_interval_rows`): the columns
            of ``levels`` plus ``quantile`` (q when every row has the same m, else NaN);
            else empty.
    """

    levels: pd.DataFrame
    quantiles: pd.DataFrame
    conditional: pd.DataFrame
    bins: dict[str, pd.DataFrame] = field(default_factory=dict)
    rows: list[dict] = field(default_factory=list, repr=False)
    built: pd.DataFrame = field(default_factory=pd.DataFrame)


_LEVEL_COLUMNS = ["level", "n", "covered", "value", "ci_low", "ci_high", "p_value", "band_low",
                  "band_high", "deficit_pp", "widen", "widen_low", "widen_high"]


def _level_rows(y: FloatArray, pred: Predictive, levels: Sequence[float], seed: SeedLike,
                tolerance: float, groups: GroupIndex | None = None, rho: float = 0.0
                ) -> tuple[pd.DataFrame, dict[float, NDArray[np.bool_]]]:
    covered: dict[float, NDArray[np.bool_]] = {}
    out = []
    children = seed_sequence(seed).spawn(len(levels))
    for level, child in zip(levels, children, strict=True):
        hit = pred.covered(y, level, seed=child)
        covered[level] = hit
        n = hit.size
        k, lo, hi, p = coverage_share(hit, level, groups, gaussian_indicator_icc(rho, level))
        low, high = pred.interval(level)
        mid, half = 0.5 * (low + high), 0.5 * (high - low)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(half > 0, np.abs(y - mid) / half,
                             np.where(np.abs(y - mid) > 0, np.inf, 0.0))
        widen = _widen_factor(ratio, level)
        if isinstance(pred, Ensemble):  # beyond (m - 1)/(m + 1) the interval is the range
            fewest = int(pred.n_members.min())
            if level > (fewest - 1) / (fewest + 1):
                widen = (np.nan, np.nan, np.nan)
        band = coverage_band(level, tolerance)
        out.append({"level": level, "n": n, "covered": k, "value": k / n, "ci_low": lo,
                    "ci_high": hi, "p_value": p, "band_low": band[0], "band_high": band[1],
                    "deficit_pp": 100.0 * (level - k / n), "widen": widen[0],
                    "widen_low": widen[1], "widen_high": widen[2]})
    return pd.DataFrame(out, columns=_LEVEL_COLUMNS), covered


BUILT = "mean ± t·sd·√(1+1/m)"
"""Name of the intervals users build from an ensemble (:func:`built_interval_rows`)."""


def built_interval_rows(y: FloatArray, pred: Ensemble, levels: Sequence[float],
                        tolerance: float, groups: GroupIndex | None = None,
                        rho: float = 0.0) -> pd.DataFrame:
    """Coverage of the intervals users build from an ensemble: x̄ ± q_i·s_i·√(1 + 1/m_i), q_i the
    (1 + L)/2 quantile of t(m_i - 1) (x̄, s the mean and sample sd of the m_i finite members),
    with the exact binomial test and the factor k_L on q (the L-quantile of
    abs(y - x̄)/(q_i s_i √(1 + 1/m_i)), order-statistic interval). For members and y drawn from
    one normal law the coverage is exactly L for any m (y - x̄ over s√(1 + 1/m) is t(m - 1));
    rows with zero spread are covered only when y equals the mean. With ``groups``, the
    Korn-Graubard interval and test over the groups instead."""
    m = pred.n_members.astype(np.float64)
    sd = np.sqrt(np.where(np.isfinite(pred.variance), pred.variance, 0.0))
    dev = np.abs(y - pred.point)
    same_m = bool(np.all(m == m[0]))
    out = []
    for level in levels:
        q = stats.t.ppf(0.5 * (1.0 + level), m - 1.0)
        half = q * sd
        hit = dev <= half
        n = hit.size
        k, lo, hi, p = coverage_share(hit, level, groups, gaussian_indicator_icc(rho, level))
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(half > 0, dev / half, np.where(dev > 0, np.inf, 0.0))
        widen = _widen_factor(ratio, level)
        band = coverage_band(level, tolerance)
        out.append({"level": level, "n": n, "covered": k, "value": k / n, "ci_low": lo,
                    "ci_high": hi, "p_value": p,
                    "band_low": band[0], "band_high": band[1],
                    "deficit_pp": 100.0 * (level - k / n), "widen": widen[0],
                    "widen_low": widen[1], "widen_high": widen[2],
                    "quantile": float(q[0]) if same_m else np.nan})
    return pd.DataFrame(out, columns=[*_LEVEL_COLUMNS, "quantile"])


def _quantile_rows(y: FloatArray, pred: Quantiles, tolerance: float,
                   groups: GroupIndex | None = None, rho: float = 0.0) -> pd.DataFrame:
    out = []
    values = pred.values
    for j, tau in enumerate(pred.levels):
        n = y.size
        icc = gaussian_indicator_icc(rho, float(tau), central=False)
        below, lo, hi, p = coverage_share(y <= values[:, j], float(tau), groups, icc)
        band = quantile_band(float(tau), tolerance)
        out.append({"level": float(tau), "n": n, "below": below, "value": below / n,
                    "ci_low": lo, "ci_high": hi, "p_value": p,
                    "band_low": band[0], "band_high": band[1]})
    return pd.DataFrame(out)


def _bin_table(hit: NDArray[np.bool_], labels: NDArray[np.int32], low: FloatArray,
               high: FloatArray, level: float, groups: GroupIndex | None = None,
               indicator_icc: float = 0.0) -> pd.DataFrame:
    k = np.bincount(labels, weights=hit.astype(np.float64)).astype(np.int64)
    n = np.bincount(labels)
    if groups is None:
        lo, hi = clopper_pearson_interval(k, n)
    else:  # Korn-Graubard over the bin's groups ([0, 1] for a bin inside one group)
        lo, hi = np.zeros(n.size), np.ones(n.size)
        for b in range(n.size):
            rows = np.flatnonzero(labels == b)
            sub = groups.subset(rows)
            if sub.n_groups >= 2:
                r = cluster_proportion(hit[rows], sub, indicator_icc=indicator_icc)
                lo[b], hi[b] = r.ci_low, r.ci_high
    return pd.DataFrame({"level": level, "bin": np.arange(n.size), "low": low, "high": high,
                         "n": n, "value": k / n, "ci_low": lo, "ci_high": hi,
                         "valid": (lo <= level) & (level <= hi)})


def coverage_rows(
    y: FloatArray,
    pred: Predictive,
    features: Mapping[str, FloatArray],
    *,
    levels: Sequence[float],
    seed: SeedLike,
    alpha: float,
    tolerance: float,
    n_permutations: int,
    n_bins: int | None,
    n_workers: int = 1,
    groups: GroupIndex | None = None,
) -> CoverageCheck:
    """The coverage stage on clean inputs (finite y, usable rows only; module docstring).
    With ``groups`` (rows in groups whose errors share a part): Korn-Graubard intervals and
    tests over the groups for every share, and the conditional coverage tests of
    :func:`uqval.validation.permutation.grouped_heterogeneity_tests` (groups exchanged along a
    variable constant inside groups, rows permuted inside groups otherwise)."""
    level_seed, perm_seed, pit_seed = seed_sequence(seed).spawn(3)
    rho = 0.0 if groups is None else latent_icc(
        normal_scores(y, pred, levels, pit_seed), groups)
    table, covered = _level_rows(y, pred, levels, level_seed, tolerance, groups, rho)
    quant = (_quantile_rows(y, pred, tolerance, groups, rho) if isinstance(pred, Quantiles)
             else pd.DataFrame())
    built = (built_interval_rows(y, pred, levels, tolerance, groups, rho)
             if isinstance(pred, Ensemble) and not pred.weighted else pd.DataFrame())
    p_all = np.concatenate([table["p_value"].to_numpy(),
                            quant["p_value"].to_numpy() if not quant.empty else [],
                            built["p_value"].to_numpy() if not built.empty else []])
    adjusted = rules.holm(p_all)
    rows: list[dict] = []
    n_t, n_q = len(table), len(quant)
    for frame, adj in ((table, adjusted[:n_t]), (quant, adjusted[n_t:n_t + n_q]),
                       (built, adjusted[n_t + n_q:])):
        if frame.empty:
            continue
        frame["p_adjusted"] = adj
        frame["verdict"] = [rules.verdict(p, alpha, False) for p in adj]
        frame["effect"] = [
            coverage_effect(r.value, r.ci_low, r.ci_high, r.verdict == "fail", (r.band_low, r.band_high))
            for r in frame.itertuples()]
    for r in table.itertuples():
        note = f"{r.covered} of {r.n} rows covered; {_test_name(groups)}"
        if np.isfinite(r.widen):
            note += (f"; factor {r.widen:.3g} [{r.widen_low:.3g}, {r.widen_high:.3g}] about the "
                     "midpoints would cover the level")
        row = _verdict_row("coverage", "", f"coverage {r.level:g}", r.value,
                           (r.ci_low, r.ci_high), r.level, r.p_value, note)
        row.update(verdict=r.verdict, effect=r.effect, p_adjusted=r.p_adjusted)
        rows.append(row)
    for r in quant.itertuples():
        note = (f"{r.below} of {r.n} rows at or below the {r.level:g} quantile; "
                f"{_test_name(groups)}")
        row = _verdict_row("coverage", "", f"P(y <= q{r.level:g})", r.value,
                           (r.ci_low, r.ci_high), r.level, r.p_value, note)
        row.update(verdict=r.verdict, effect=r.effect, p_adjusted=r.p_adjusted)
        rows.append(row)
    for r in built.itertuples():
        q = f"{r.quantile:.3g}" if np.isfinite(r.quantile) else "t(m - 1) quantile"
        note = (f"{r.covered} of {r.n} rows within mean ± {q}·sd·sqrt(1 + 1/m) (the intervals "
                f"built from the members; {_test_name(groups)})")
        if np.isfinite(r.widen):
            note += f"; factor {r.widen:.3g} [{r.widen_low:.3g}, {r.widen_high:.3g}] on the sd"
        row = _verdict_row("coverage", "", f"coverage {r.level:g} of {BUILT}", r.value,
                           (r.ci_low, r.ci_high), r.level, r.p_value, note)
        row.update(verdict=r.verdict, effect=r.effect, p_adjusted=r.p_adjusted)
        rows.append(row)
    conditional, bins, cond_rows = _conditional(y, pred, features, covered, table, perm_seed,
                                                alpha, tolerance, n_permutations, n_bins,
                                                n_workers, groups, rho)
    return CoverageCheck(table, quant, conditional, bins, rows + cond_rows, built)


def _bins_along(x: FloatArray, k: int, groups: GroupIndex | None) -> Bins:
    """Tie-aware bins of x: k, or at most G/5 along a variable constant inside groups (as
    the variance stages: :func:`uqval.validation.bin_tables.bins_for_groups`)."""
    return tie_aware_bins(x, k if groups is None else bins_for_groups(x, k, groups))


def _conditional(y, pred, features, covered, table, seed, alpha, tolerance, n_permutations,
                 n_bins, n_workers, groups=None, rho=0.0):
    m = y.size
    k = int(n_bins) if n_bins is not None else default_n_bins(m)
    feature_bins = {name: _bins_along(x, k, groups) for name, x in features.items()}
    out, bins_tables = [], {}
    children = seed_sequence(seed).spawn(max(1, len(covered)))
    pooled = None
    if isinstance(pred, Ensemble):
        pooled = np.nanstd(np.column_stack([pred.members, y]), axis=1)
    for (level, hit), child in zip(covered.items(), children, strict=False):
        if pooled is not None:
            width, width_name = pooled, POOLED_SPREAD
        else:
            low, high = pred.interval(level)
            width, width_name = high - low, WIDTH
        variables, values = {}, {}
        if np.ptp(width) > 0:
            variables[width_name] = _bins_along(width, k, groups)
            values[width_name] = width
        variables.update(feature_bins)
        values.update(features)
        if not variables:
            continue
        names = list(variables)
        labels = [variables[n].labels for n in names]
        if groups is None:
            tests = heterogeneity_tests(hit.astype(np.float64), labels,
                                        n_permutations=n_permutations, seed=child,
                                        n_workers=n_workers)
        else:
            tests, _ = grouped_heterogeneity_tests(
                hit.astype(np.float64), labels, groups, variables=[values[n] for n in names],
                n_permutations=n_permutations, seed=child, n_workers=n_workers)
        band = coverage_band(level, tolerance)
        for name, (_, test_t) in zip(names, tests, strict=True):
            b = variables[name]
            t = _bin_table(hit, b.labels, b.low, b.high, level, groups,
                           gaussian_indicator_icc(rho, level))
            bins_tables.setdefault(name, []).append(t)
            sig = (t["ci_low"] > level) | (t["ci_high"] < level)
            worst = int(np.argmax(np.abs(t["value"].to_numpy() - level)))
            out.append({"level": level, "variable": name, "n_bins": b.n_bins,
                        "ratio": test_t.ratio, "p_value": test_t.p_value,
                        "few": int(b.counts.min()) < rules.MIN_BIN_COUNT,
                        "all_inside": bool(np.all((t["ci_low"] >= band[0])
                                                  & (t["ci_high"] <= band[1]))),
                        "outside": bool(np.any(sig & ((t["value"] < band[0])
                                                      | (t["value"] > band[1])))),
                        "worst_low": float(t["low"].iloc[worst]),
                        "worst_high": float(t["high"].iloc[worst]),
                        "worst_value": float(t["value"].iloc[worst]),
                        "worst_ci_low": float(t["ci_low"].iloc[worst]),
                        "worst_ci_high": float(t["ci_high"].iloc[worst]),
                        "worst_n": int(t["n"].iloc[worst])})
    cond = pd.DataFrame(out)
    rows = []
    if not cond.empty:
        cond["p_adjusted"] = rules.holm(cond["p_value"].to_numpy())
        cond["verdict"] = [rules.verdict(p, alpha, few)
                           for p, few in zip(cond["p_adjusted"], cond["few"], strict=True)]
        cond["effect"] = ["negligible" if r.all_inside else
                          "relevant" if r.verdict == "fail" and r.outside else "undetermined"
                          for r in cond.itertuples()]
        for r in cond.itertuples():
            note = (f"spread of the coverage over {r.n_bins} bins (T = sum n_b (nu_b - nu)^2, "
                    f"{n_permutations} permutations), ratio {r.ratio:.3g}; value: the bin "
                    f"farthest from {r.level:g} ({r.worst_n} rows, {r.variable} in "
                    f"[{r.worst_low:.4g}, {r.worst_high:.4g}])")
            if r.few:
                note += f"; a bin holds fewer than {rules.MIN_BIN_COUNT} rows"
            row = _verdict_row("coverage", r.variable, f"LCP {r.level:g}", r.worst_value,
                               (r.worst_ci_low, r.worst_ci_high), r.level, r.p_value, note)
            row.update(verdict=r.verdict, effect=r.effect, p_adjusted=r.p_adjusted)
            rows.append(row)
    return cond, {k: pd.concat(v, ignore_index=True) for k, v in bins_tables.items()}, rows


@dataclass(frozen=True)
class ShapeCheck:
    """The shape stage (module docstring).

    Attributes:
        statistic: Cramér-von Mises W² of the PIT against U(0, 1).
        p_value: its p-value (Csörgő-Faraway distribution).
        verdict: pass | fail (p <= alpha).
        effect: negligible | relevant | undetermined (module docstring).
        shares: one row per share (central 50 %, outer 10 %, outer 1 %, below the median):
            expected, value, ci_low, ci_high (Clopper-Pearson), band_low, band_high.
        diagnosis: what the shares say (one sentence, empty when the test passes).
        pit: the PIT values.
    """

    statistic: float
    p_value: float
    verdict: str
    effect: str
    shares: pd.DataFrame
    diagnosis: str
    pit: FloatArray = field(repr=False)
    p_method: str = ""

    def row(self) -> dict:
        """The verdict row (stage ``shape``)."""
        s = self.shares.set_index("share")
        note = "; ".join(f"{name}: {100 * r.value:.3g} % [{100 * r.ci_low:.3g}, "
                         f"{100 * r.ci_high:.3g}] (expected {100 * r.expected:g} %)"
                         for name, r in s.iterrows())
        row = _verdict_row("shape", "", "PIT Cramer-von Mises W2", self.statistic,
                           (np.nan, np.nan), 1.0 / 6.0, self.p_value,
                           "W2 expected 1/6 for a uniform PIT; "
                           + (f"{self.p_method}; " if self.p_method else "") + note)
        row.update(verdict=self.verdict, effect=self.effect, p_adjusted=self.p_value)
        return row


_SHARES = (
    ("central 50 %", 0.5, lambda u: (u >= 0.25) & (u <= 0.75)),
    ("outer 10 %", 0.1, lambda u: (u < 0.05) | (u > 0.95)),
    ("outer 1 %", 0.01, lambda u: (u < 0.005) | (u > 0.995)),
    ("below the median", 0.5, lambda u: u < 0.5),
)


def _diagnosis(s: pd.DataFrame) -> str:
    """What the shares say: the width or tails (central 50 %, outer 10 %, outer 1 %) and,
    separately, the centre (below the median). A median that is off is a bias of the point
    predictions whatever the width does, so it is said next to a width or tail finding when
    its share lies outside its band (intervals too narrow *and* too high are two faults)."""
    def side(name: str) -> int:
        r = s.loc[name]
        return 1 if r.ci_low > r.expected else -1 if r.ci_high < r.expected else 0

    centre, outer10, outer1, below = (side(n) for n in
                                      ("central 50 %", "outer 10 %", "outer 1 %",
                                       "below the median"))
    median = s.loc["below the median"]
    where = "below" if below > 0 else "above"
    off_centre = (f"the predictions are off-centre: too many observations lie {where} the "
                  "predictive median; correct the point predictions' bias")
    width = ""
    if outer1 > 0 and (centre > 0 or outer10 < 0):
        width = ("the tails are heavier than declared: too many observations near the centre "
                 "or far out and too few in between; declare a heavier-tailed family (Student t "
                 "with fewer degrees of freedom, Laplace) rather than rescaling every interval")
    elif outer1 < 0 and (centre < 0 or outer10 > 0):
        width = ("the tails are lighter than declared: declare a lighter-tailed family (e.g. "
                 "normal instead of Student t or Laplace)")
    elif centre < 0 and outer10 > 0:
        width = ("the predictive distributions are too narrow (too few observations in the "
                 "centre, too many in the tails): widen them (the coverage stage says by how "
                 "much at each level)")
    elif centre > 0 and outer10 < 0:
        width = ("the predictive distributions are too wide (too many observations in the "
                 "centre, too few in the tails): narrow them (the coverage stage says by how "
                 "much at each level)")
    if width:
        outside = not median.band_low <= median.value <= median.band_high
        return f"{width}; and {off_centre}" if below != 0 and outside else width
    if below != 0:
        return off_centre
    return ("the PIT departs from uniform in a way the shares do not summarise: see the PIT "
            "histogram")


def shape_check(pit: FloatArray, *, alpha: float, tolerance: float,
                groups: GroupIndex | None = None, n_boot: int = 999,
                seed: SeedLike = 0) -> ShapeCheck:
    """The PIT uniformity test with its shares and diagnosis (module docstring). With
    ``groups``: the p-value of the multiplier bootstrap over the groups
    (:func:`uqval.stats.cluster_cvm.cluster_cvm_uniform`, ``n_boot`` replicates from
    ``seed``) and Korn-Graubard intervals of the shares."""
    res = stats.cramervonmises(pit, "uniform")
    p = float(min(1.0, max(0.0, res.pvalue)))
    method = ""
    if groups is not None:
        grouped = cluster_cvm_uniform(pit, groups, n_boot=n_boot, seed=seed)
        p = grouped.p_value
        method = (f"p: multiplier bootstrap over the {groups.n_groups} groups ({n_boot} "
                  f"replicates, W2 on {grouped.grid} grid points)")
    n = pit.size
    rows = []
    rho = 0.0 if groups is None else latent_icc(
        np.asarray(special.ndtri(np.clip(pit, 1e-12, 1 - 1e-12))), groups)
    for name, expected, select in _SHARES:
        # the indicator's correlation: central 50 %, the outer 10 % and 1 % (complements of
        # the central 90 % and 99 %), and below the median (a quantile level)
        icc = (gaussian_indicator_icc(rho, 0.5, central=False) if name == "below the median"
               else gaussian_indicator_icc(rho, expected if name == "central 50 %"
                                           else 1.0 - expected))
        k, lo, hi, _ = coverage_share(select(pit), expected, groups, icc)
        if name == "below the median":
            band = quantile_band(0.5, tolerance)
        else:
            cov = coverage_band(1.0 - expected if name != "central 50 %" else 0.5, tolerance)
            band = cov if name == "central 50 %" else (1.0 - cov[1], 1.0 - cov[0])
        rows.append({"share": name, "expected": expected, "n": n, "count": k, "value": k / n,
                     "ci_low": lo, "ci_high": hi, "band_low": band[0],
                     "band_high": band[1]})
    shares = pd.DataFrame(rows)
    verdict = rules.verdict(p, alpha, False)
    inside = all(_inside(r.ci_low, r.ci_high, (r.band_low, r.band_high))
                 for r in shares.itertuples())
    outside = any((r.ci_low > r.expected or r.ci_high < r.expected)
                  and not r.band_low <= r.value <= r.band_high for r in shares.itertuples())
    effect = ("negligible" if inside else "relevant" if verdict == "fail" and outside
              else "undetermined")
    diagnosis = _diagnosis(shares.set_index("share")) if verdict == "fail" else ""
    return ShapeCheck(float(res.statistic), p, verdict, effect, shares, diagnosis, pit, method)
