"""Decision rules of the validation engine (rule ``"uqval"``).

Every verdict comes from a test with a stated false-alarm rate alpha (default 5 %):

Average calibration (one family of two tests)
    * ZMS = <Z^2> = 1: the BCa bootstrap interval of the scale factor sqrt(ZMS) (P001 Sect.
      II.3) inverted into a two-sided p-value (:func:`bca_p_value`).
    * <Z> = 0 (no bias): one-sample Student t test (P003 Sect. III.B.1).

    The two p-values are adjusted by Holm's step-down method (:func:`holm`). When the heavy-
    tail screening says that ZMS intervals are unreliable (beta_GM(Z^2) > 0.8, P001 Table 2),
    the interval may be far too narrow (BCa p <= 0.05 in 21 % of calibrated datasets with
    t(3) errors, M = 10^3..10^4), but on one side only: the mean of a right-skewed Z^2 is
    underestimated far more often than overestimated (the samples that miss the tail), so
    an interval wholly *below* 1 is the unreliable one (its upper limit under 1 in 7-37 % of
    calibrated heavy-flagged datasets with t(4) to t(2.5) errors, M = 150..2000), an interval
    wholly *above* 1 is not (its lower limit above 1 in 0-1.6 % with t(3) and t(2.5), 4.7-9 %
    of the heavy-flagged t(4) sets, 0.3-3 % of all t(4) sets;
    ``benchmarks/heavy_tail_average.md``). The ZMS then fails when its interval lies wholly
    above 1 (and the adjusted p-value is below alpha), or when its zeta-score (P001 Eq. 14)
    exceeds :data:`HEAVY_TAIL_ZETA` in absolute value, i.e. when 1 lies three interval
    half-widths away (measured on calibrated data, 100 datasets each: 0-1 % with t(3), 4-6 %
    with t(2.5) errors), and is ``inconclusive`` otherwise.

    The downward side is held to the same abs(zeta) rule whenever beta_GM(Z^2) exceeds
    :func:`downward_tail_limit` (0.8 lowered by one standard error of the sample beta_GM,
    0.735 at M = 150), even when the screening passes: a small sample of a heavy tail that
    misses the tail looks light and has a low ZMS at once (calibrated t(3) sets of 150 rows
    were advised a factor below 1 in 15-19 %). An interval wholly below 1 from such a sample
    is ``inconclusive``; with a few dominant rows, the robust factor is advised downward only
    when the rows left without them pass the same limit.

Consistency (binning variable uE) and adaptivity (each feature)
    Permutation tests of the between-bin spread of <Z^2> and of <Z>
    (:mod:`uqval.validation.permutation`), exact size for any error distribution.
    Beside them, without bins (:mod:`uqval.validation.binfree`): the cumulative Kuiper tests
    of Z² − 1 (spread) and of Z (bias) along every binning variable (Arrieta-Ibarra et al.
    2022), and, along uE, the isotonic MCB test (the QLIKE miscalibration of the PAV fit of E²
    on uE² beyond one global factor). All are permutation tests of exact size. They are run
    once and reported twice:

    * ``scaled=True``: are the uncertainties right across the variable once multiplied by
      the global scale factor? The statistics do not change when uE is rescaled, so this
      is the permutation p-value itself. **Within a stage** (consistency: 5 tests;
      adaptivity: 4 tests per feature, all features together) the p-values are adjusted by
      Holm's method, so a stage's false-alarm rate stays at alpha however many tests and
      features it holds (Holm is valid under any dependence: the tests share the data, and
      the cumulative tests of all variables share one permutation null).
    * ``scaled=False``: are the uncertainties *as given* right in every bin / along the
      variable? That hypothesis is the intersection of "right on average" and "no change
      along the variable", tested by min(1, 2 min(p_average, p_adjusted)) with p_adjusted the
      Holm-adjusted p-value of the scaled test: rejecting any as-given row of a stage needs
      p_average <= alpha/2 or some p_adjusted <= alpha/2, each of probability <= alpha/2 when
      the average is right (and when it is not, every as-given hypothesis is false), so the
      stage's family-wise error stays <= alpha. These p-values are already adjusted.

    A binned test is ``inconclusive`` when a bin holds fewer than :data:`MIN_BIN_COUNT` rows
    (its bins cannot localise anything). A stage fails when any of its tests fails.
    Measured (``benchmarks/joint_error_rates.py``): the table "Bin-free and joint tests" of
    docs/explanations/error-rates.md.

Joint (all features together; :mod:`uqval.validation.joint_stage`)
    Two tests of whether Z² (spread) and Z (bias) depend on the features jointly
    (:func:`uqval.calibration.joint.joint_calibration`): a gradient-boosting learner fitted
    on a random half predicts them on the other half; the out-of-sample correlation is tested
    by permuting the held-out Z² (or Z) against the fixed predictions (exact size conditional
    on the first half), roles swapped, p = min(1, 2 min(p_AB, p_BA)). The two tests are
    Holm-adjusted together (the stage's false-alarm rate is alpha), on the globally scaled
    uncertainties, and the ``scaled=False`` rows pair the adjusted p-value with the average
    test as above. ``effect`` and the advice come from the two regions the stage describes
    (largest and smallest local factor, held-out estimate with a 97.5 % interval); skipped
    with fewer than two features. The stage is a separate family: a dataset checked by
    consistency, adaptivity and joint can raise a false alarm in any of the three (about
    3 alpha at most in total), as with the existing stages.

Verdict of a test: ``fail`` when its Holm-adjusted p-value is <= alpha, else ``pass``.

Effect sizes (:mod:`uqval.validation.effects`)
    A practical tolerance t (:data:`DEFAULT_TOLERANCE`, ``--tolerance``) separates departures
    that matter from those that do not: the band [1/(1 + t), 1 + t] on a scale factor (global
    or per bin), abs(<Z>) <= t on a mean z-score in units of the uncertainties after the
    global factor (the set's <Z>/k, k the factor the conditional stages use: an offset
    relative to the errors' actual spread). Every verdict row gets ``effect``:
    ``negligible`` (the interval lies inside the band: "right within ±10 %" whatever the
    p-value), ``relevant`` (the test fails and the estimate lies outside the band) or
    ``undetermined``. Only ``relevant`` departures are advised.

A few rows deciding the average (:mod:`uqval.calibration.robust_scale`)
    The share of sum(Z^2) carried by the top 0.1 % and 1 % of the rows, and a robust scale
    factor (median of means over blocks of 50 rows) with a distribution-free interval, are
    reported beside sqrt(ZMS). The average is *dominated* when sqrt(ZMS) lies above the
    robust interval and either the top 1 % carry more than :data:`DOMINANT_SHARE` of sum(Z^2)
    or the dominant rows (below) are at most :data:`FEW_ROWS` of the rows (at least one) and
    carry more than :data:`FEW_ROWS_SUM_SHARE` of it (one row at z = 35 among 2500 carries 27 %
    while the top 1 % carry 39 %: the first rule alone missed it). How often either rule
    holds on calibrated z-scores (200 datasets per cell, unit uE; first rule alone → both):
    normal 0 → 0 at M = 300 to 10^4; unit-variance t(4) 1.5 → 4 % at M = 300, 0.5 → 1 % at
    10^3 and 2500, 0 → 0 at 10^4; t(3) 7 → 17 %, 5.5 → 7 %, 1.5 → 2.5 %, 2 → 4.5 %. Naming
    a row that carries a quarter of sum(Z^2) is not a factor: the advice on calibrated data
    is measured in docs/explanations/error-rates.md. Then the
    first advice is ``inspect_rows`` (the fewest largest-Z^2 rows without which the ZMS agrees
    with the robust interval, at most 1 % of the rows, in dominant_rows.csv), a global scale is
    advised only when the robust interval lies outside the tolerance band (with the robust
    factor), and the UCC gain is also given without those rows.

Advice (:mod:`uqval.validation.advice`)
    The actions follow the relevant effects: ``scale`` (global factor), ``correct_bias``
    (<Z> on average or in ranges of a variable: the predictions are offset, the uncertainties
    are not at fault), ``recalibrate_per_range`` (ranges of adjacent bins whose 95 % <Z^2>
    intervals lie on the same side of the global factor advised, at least 1 % of the rows).
    A range is advised only when it departs beyond the tolerance *with confidence*: its
    pooled interval, simultaneous (Bonferroni) over the bins of every variable of the stage
    (:func:`uqval.validation.bin_ranges.problem_ranges`), lies wholly outside the band: the
    factor relative to the global factor advised for a spread, the mean z beyond ±t of the
    global offset advised (0 when none) for a bias. A significant departure whose estimate
    merely lies outside the band ("relevant") is reported with its size but not advised
    range by range ("no range departs beyond the tolerance with confidence"). A lone bin of
    a bias range is not advised when the heavy-tail screening finds intervals unreliable.
    When the consistency stage has a relevant spread departure, a feature range is first
    re-judged with every row's uncertainty multiplied by its uE bin's factor
    (:func:`uqval.validation.advice.consistency_factors`); a range then right within the
    band is not advised (one ``none`` row for the variable: fix consistency first).
    A bin-free test that fails leads to ranges only through the per-bin intervals (the same
    simultaneous rule): it is never advised without a located range and its effect size.
    Because E[Z²] = Var(Z) + <Z>², a bias alone moves the tests of Z² − 1; when a variable
    has a relevant bias, its spread ranges are advised only if the binned LZMS test fails.
    Beside the set's own offset, the global factor is sd(Z) = sqrt(ZMS − <Z>²), advised when
    its 95 % interval from the rows (delta method, or a studentized bootstrap of the groups or
    blocks: :func:`uqval.validation.rest_scale.spread_factor`; for an ensemble or a set in
    parts, [ZMS_low − max <Z>², ZMS_high − min <Z>²] over the stage's two intervals,
    :func:`uqval.validation.rest_scale.sd_after_offset`) excludes 1 and sd(Z) lies beyond
    the band, whatever the ZMS test says (an offset can hide uncertainties too large); not
    when heavy tails leave ZMS inconclusive. When sqrt(ZMS) fails but sd(Z) is not advised,
    a ``none`` row says that the offset accounts for the average miss.

Guards
    Errors whose mean is large against their spread (abs(mean)/sd > :data:`GUARD_MEAN_SD`) or a
    scale factor beyond :data:`GUARD_SCALE` (either way) get a warning that the error column
    may hold predictions or references instead of errors.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special  # not scipy.stats (0.8 s per job): t.sf(x, df) is stdtr(df, -x)

from uqval.stats.bootstrap import BootstrapResult

__all__ = [
    "DEFAULT_TOLERANCE",
    "DOMINANT_SHARE",
    "FEW_ROWS",
    "FEW_ROWS_SUM_SHARE",
    "GUARD_MEAN_SD",
    "GUARD_SCALE",
    "OFF_CENTRE_WARNING",
    "BETA_GM_NOISE",
    "HEAVY_TAIL_ZETA",
    "MIN_BIN_COUNT",
    "bca_p_value",
    "bonferroni_pair",
    "combine_families",
    "downward_tail_limit",
    "holm",
    "input_warnings",
    "t_test_p_value",
    "verdict",
]

MIN_BIN_COUNT = 30
"""Fewest rows per bin for a conditional verdict (fewer: ``inconclusive``)."""

DEFAULT_TOLERANCE = 0.10
"""Practical tolerance t: factors within [1/1.1, 1.1] and abs(<Z>) <= 0.1 do not matter."""

DOMINANT_SHARE = 0.5
"""Share of sum(Z^2) in the top 1 % of rows above which a few rows may decide the average."""

FEW_ROWS = 0.001
"""Share of the rows (at least one row) that may be named as dominant by the second rule of
:func:`uqval.validation.advice.is_dominated`."""

FEW_ROWS_SUM_SHARE = 0.25
"""Share of sum(Z^2) above which at most :data:`FEW_ROWS` of the rows decide the average."""

GUARD_MEAN_SD = 0.5
"""abs(mean(E))/sd(E) above which the error column is suspect (errors are centred near 0)."""

OFF_CENTRE_WARNING = "the errors are far from centred"
"""Start of the warning of errors whose mean is large against their spread: a question about
the error column, moot where the errors are y - prediction by construction (the command
line's --y-true and --y-pred, a predictive's variance stages; the average stage reports and
advises the offset itself)."""

GUARD_SCALE = 5.0
"""Scale factor above which (or below whose inverse) the error column is suspect."""

HEAVY_TAIL_ZETA = 3.0
"""abs(zeta) above which a ZMS below 1 fails although its downward side is not trusted
(:func:`downward_tail_limit`)."""

BETA_GM_NOISE = 0.8
"""sd(beta_GM(Z^2)) * sqrt(M) of a sample of M rows whose z-scores are unit-variance
Student t(4), the tail at which ZMS intervals start to fail (0.73-0.80 measured at
M = 150-2000): the sampling noise of the screening statistic near its limit."""


def downward_tail_limit(m: int, limit: float = 0.8) -> float:
    """beta_GM(Z^2) above which a ZMS interval wholly below 1 is not trusted: the screening's
    limit (P001 Table 2) lowered by one standard error of the sample beta_GM,
    ``limit - BETA_GM_NOISE / sqrt(m)`` (0.735, 0.764, 0.782 at m = 150, 500, 2000).

    A sample of a heavy tail that misses the tail looks lighter (a smaller beta_GM) and has a
    low ZMS at once, so it passes the screening and its interval lies below 1: with
    unit-variance t(3) errors and m = 150 the BCa upper limit is under 1 in 21 % of the
    calibrated sets, 19 % of them with beta_GM <= 0.8. Below this limit such an interval
    fails as usual; above it only when abs(zeta) > :data:`HEAVY_TAIL_ZETA`
    (``benchmarks/heavy_tail_average.md``).

    >>> round(downward_tail_limit(150), 3), round(downward_tail_limit(2000), 3)
    (0.735, 0.782)
    """
    return limit - BETA_GM_NOISE / math.sqrt(max(m, 1))



def holm(p_values: ArrayLike) -> NDArray[np.float64]:
    """Holm's step-down adjusted p-values (Holm 1979).

    With the p-values sorted increasingly p_(1) <= ... <= p_(k), the adjusted value is
    max_{j <= i} min(1, (k - j + 1) p_(j)); rejecting the adjusted p-values <= alpha keeps
    the family-wise error rate <= alpha under any dependence between the tests.
    """
    p = np.asarray(p_values, dtype=np.float64)
    if p.size == 0:
        return p
    order = np.argsort(p, kind="stable")
    k = p.size
    scaled = np.minimum(1.0, (k - np.arange(k)) * p[order])
    adjusted = np.empty(k)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def bca_p_value(result: BootstrapResult, target: float) -> float:
    """Two-sided p-value of ``statistic = target`` by inverting the BCa interval.

    The BCa endpoint at level beta is the quantile G^-1(Phi(z0 + (z0 + z_beta)/(1 - a (z0 +
    z_beta)))) of the bootstrap distribution G (P001 Sect. II.3). Setting it equal to the
    target, w = Phi^-1(G(target)) - z0 gives z_beta = w/(1 + a w) - z0, and the p-value is
    2 min(Phi(z_beta), 1 - Phi(z_beta)): the target lies outside the (1 - p) BCa interval.
    G counts the estimate and the replicates (as the interval does); G(target) is kept in
    [1/(R + 2), 1 - 1/(R + 2)], so p >= about 2/R.
    """
    if not np.isfinite(result.z0):
        return float("nan")
    dist = np.concatenate([[result.estimate], result.replicates])
    r = dist.size
    g = float(np.count_nonzero(dist < target) + 0.5 * np.count_nonzero(dist == target)) / r
    g = min(max(g, 1.0 / (r + 1.0)), 1.0 - 1.0 / (r + 1.0))
    w = float(special.ndtri(g)) - result.z0
    denominator = 1.0 + result.acceleration * w
    if denominator <= 0.0:
        return float("nan")
    beta = float(special.ndtr(w / denominator - result.z0))
    return float(min(1.0, 2.0 * min(beta, 1.0 - beta)))


def t_test_p_value(mean: float, se: float, n: int) -> float:
    """Two-sided one-sample t-test p-value of mean = 0: 2 P(t_{n-1} > abs(mean)/se)."""
    if se <= 0.0:
        return 0.0 if mean != 0.0 else 1.0
    return float(2.0 * special.stdtr(n - 1, -(abs(mean) / se)))


def verdict(adjusted_p: float, alpha: float, inconclusive: bool) -> str:
    """``inconclusive`` if asked, else ``fail`` when adjusted p <= alpha, else ``pass``."""
    if inconclusive or not np.isfinite(adjusted_p):
        return "inconclusive"
    return "fail" if adjusted_p <= alpha else "pass"


def input_warnings(errors: NDArray[np.float64], scale: float) -> list[str]:
    """Warnings for an error column that may not hold errors (module docstring, "Guards").

    ``scale`` is the global factor the conditional stages use: sqrt(ZMS), or the robust
    factor when a few rows decide sqrt(ZMS) (those rows get their own advice instead)."""
    out = []
    sd = float(np.std(errors, ddof=1))
    ratio = abs(float(np.mean(errors))) / sd if sd > 0 else float("inf")
    if ratio > GUARD_MEAN_SD:
        out.append(f"{OFF_CENTRE_WARNING} (mean = {ratio:.2g} standard deviations): "
                   "does the error column hold errors (reference - prediction)? If it holds "
                   "predictions or references, give --y-true and --y-pred instead")
    if scale > GUARD_SCALE or scale < 1.0 / GUARD_SCALE:
        out.append(f"the scale factor is {scale:.3g}: errors and uncertainties differ by more "
                   f"than {GUARD_SCALE:g}x; check that they are in the same units and that the "
                   "error column holds errors (and the uncertainty column standard deviations, "
                   "or variances with --variance)")
    return out


def bonferroni_pair(p_first: float, p_second: float) -> float:
    """min(1, 2 min(p1, p2)): a valid p-value of the intersection of two null hypotheses."""
    return float(min(1.0, 2.0 * min(p_first, p_second)))


def combine_families(families: Sequence[Sequence[int]], p: NDArray[np.float64]) -> NDArray:
    """Holm-adjust ``p`` within each family of row positions; returns the adjusted array."""
    out = np.full(p.size, np.nan)
    for rows in families:
        idx = np.asarray(rows, dtype=np.intp)
        if idx.size:
            out[idx] = holm(p[idx])
    return out
