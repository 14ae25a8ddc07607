"""One validation engine for a user's own predictions: average, consistency, adaptivity.

:func:`validate` runs the three stages of the adaptivity paper's flowchart (P003 Fig. 1):
average calibration, consistency (calibration conditional on the uncertainty uE) and
adaptivity (conditional on each input feature), with decision rules whose false-alarm rate
is stated and measured (:mod:`uqval.validation.rules`; ``benchmarks/validation_error_rates.py``),
or with the paper's own rules (``rule="paper"``, :mod:`uqval.validation.flowchart`).

The conditional stages are judged on the *globally scaled* uncertainties uE·s, s = sqrt(ZMS)
(the factor that makes them right on average), so that one global error does not make every
bin fail and hide where the uncertainties are really wrong. Both views are reported
(column ``scaled``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import MAX_RESAMPLES, integer, probability, seed_value, unit_scaled
from uqval._internal.seeding import seed_sequence
from uqval.calibration.joint import JointCalibration, joint_calibration
from uqval.calibration.local import local_zmean
from uqval.calibration.robust_scale import (
    RobustScale,
    TailShares,
    dominant_rows,
    robust_scale_factor,
    z2_tail_shares,
)
from uqval.calibration.screening import Screening, screen
from uqval.predictive import Predictive
from uqval.report.summary import summary_markdown
from uqval.report.validation import save_all, write_html
from uqval.stats.binomial import wilson_interval
from uqval.stats.bootstrap import MeanStatistic, bca_bootstrap
from uqval.stats.intervals import mean_t_interval
from uqval.stats.zeta import zeta_score
from uqval.validation import binfree as binfree_module
from uqval.validation import flowchart, rules
from uqval.validation.advice import AdviceInputs, advice_table, is_dominated
from uqval.validation.bins import Bins, default_n_bins, tie_aware_bins
from uqval.validation.degenerate import NOT_TESTABLE, check_errors_not_all_zero, untestable_reason
from uqval.validation.effects import row_effects
from uqval.validation.figure_stage import FigureRecords, figure_records
from uqval.validation.inputs import Features, clean_inputs
from uqval.validation.joint_stage import joint_rows
from uqval.validation.permutation import HeterogeneityTest, heterogeneity_tests
from uqval.validation.ucc_gain import UCC_EXCEEDANCES, UCCGain, ucc_gain

__all__ = ["ScaleFactor", "UCCGain", "ValidationResult", "validate"]

Rule = Literal["uqval", "paper"]
STAGES = ("average", "consistency", "adaptivity", "joint")
JOINT_MIN_ROWS = 200
"""Fewest rows for the joint stage (each half fits a learner)."""
JOINT_PERMUTATIONS = 999
"""Most permutations per half of the joint test (its two p-values are Holm-adjusted only
against each other, so 1/1000 is far below the strictest threshold alpha/2)."""
VERDICT_COLUMNS = [
    "stage", "feature", "scaled", "verdict", "effect", "statistic", "value", "ci_low", "ci_high",
    "target", "p_value", "p_adjusted", "note",
]

SQRT_ZMS = MeanStatistic(
    columns=lambda E, uE: (np.square(np.divide(E, uE)),),
    combine=lambda means: np.sqrt(means[..., 0]),
)
"""sqrt(<Z^2>), the global scale factor, as a mean statistic (column Z^2)."""

_MEAN_SQUARE = MeanStatistic(columns=lambda z: (np.square(z),), combine=lambda m: m[..., 0])


@dataclass(frozen=True)
class ScaleFactor:
    """Factor s = sqrt(ZMS) by which all uncertainties should be multiplied to be right on
    average, with its BCa bootstrap interval (P001 Sect. II.3) and the replicate count."""

    value: float
    ci_low: float
    ci_high: float
    n_boot: int

    def __repr__(self) -> str:
        return f"ScaleFactor({self.value:.4g} [{self.ci_low:.4g}, {self.ci_high:.4g}])"


LARGE_ROWS = 1_000_000
"""Above this many rows the permutation tests stop at h = HETEROGENEITY_EXCEEDANCES exceedances,
per-bin intervals of <Z^2> are Student t, and the bin-free and joint tests run on a seeded
subsample (binfree.BINFREE_ROWS); up to it every seeded number is unchanged (docs/choices.md)."""
HETEROGENEITY_EXCEEDANCES = 20
"""Exceedances h of the sequential permutation tests of the conditional stages (large sets)."""


@dataclass(frozen=True, repr=False)
class ValidationResult:
    """Outcome of :func:`validate`.

    Attributes:
        verdicts: one row per test; columns stage (average | consistency | adaptivity),
            feature (binning variable, "" for average), scaled (False: uncertainties as
            given; True: after multiplying them by the scale factor), verdict (pass | fail |
            inconclusive), statistic, value, ci_low, ci_high, target, p_value, p_adjusted
            (Holm within the stage), note.
        scale_factor: sqrt(ZMS) with its BCa interval.
        bins: per binning variable (the uncertainty first, then the features), a table of
            its bins: low, high (range of the variable), n, value (<Z^2> with the scaled
            uncertainties, target 1), ci_low, ci_high (BCa; Student t above LARGE_ROWS
            rows), valid (interval contains 1),
            factor, factor_low, factor_high (sqrt of value and interval: how much the
            scaled uncertainties are too small (> 1) or too large (< 1) in the bin),
            mean_z, mean_z_low, mean_z_high (Student-t), mean_z_valid.
        screening: heavy-tail screening (P001 Table 2).
        parameters: seed, n_boot, n_permutations, n_bins per variable, rule, alpha, ...
        row_counts: rows in input, removed (and why), used.
        names: names of the error, uncertainty and feature variables.
        input_sha256: SHA-256 of the input file when read from a file (command line).
        ucc: the UCC gain of the uncertainties over a constant band with its permutation
            test (:class:`UCCGain`).
        advice: the recommended actions, one row each (:mod:`uqval.validation.advice`); the
            summary's "Next step" is written from it.
        tail_shares: share of sum(Z^2) carried by the top 0.1 % and 1 % of the rows.
        robust_scale: median-of-means scale factor with its interval
            (:mod:`uqval.calibration.robust_scale`).
        dominant_rows: 0-based positions (in the rows used) of the few rows that decide the
            average, largest Z^2 first (empty unless the average is dominated).
        ucc_without_dominant: the UCC gain without the dominant rows (None without them).
        warnings: input warnings (an error column that may not hold errors, ...).
        joint: the joint test over all features with its regions (:mod:`uqval.calibration.
            joint`, :mod:`uqval.validation.joint_stage`; None with fewer than 2 features).
        figures: every number the report's figures draw, computed by :func:`validate`
            (:mod:`uqval.validation.figure_stage`); saving the report only draws them.

    Examples:
        >>> import numpy as np
        >>> from uqval import validate
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 500)
        >>> e = u * rng.standard_normal(500)
        >>> res = validate(e, u, n_boot=200, n_permutations=199, n_ucc_permutations=199)
        >>> res.miscalibrated, res.row_counts
        (False, {'rows in input': 500, 'rows used': 500})
        >>> s = res.scale_factor
        >>> round(s.value, 2), round(s.ci_low, 2), round(s.ci_high, 2)
        (0.94, 0.88, 1.0)
        >>> res.verdicts[["stage", "statistic", "verdict"]].head(2).values.tolist()
        [['average', 'ZMS', 'pass'], ['average', '<Z>', 'pass']]
    """

    verdicts: pd.DataFrame
    scale_factor: ScaleFactor
    bins: dict[str, pd.DataFrame]
    screening: Screening
    parameters: dict[str, Any]
    row_counts: dict[str, int]
    names: dict[str, Any]
    errors: NDArray[np.float64] = field(compare=False)
    uncertainties: NDArray[np.float64] = field(compare=False)
    features: dict[str, NDArray[np.float64]] = field(compare=False)
    input_sha256: str | None = None
    ucc: UCCGain | None = None
    advice: pd.DataFrame = field(default_factory=pd.DataFrame, compare=False)
    tail_shares: TailShares | None = None
    robust_scale: RobustScale | None = None
    dominant_rows: NDArray[np.intp] = field(
        default_factory=lambda: np.empty(0, dtype=np.intp), compare=False
    )
    ucc_without_dominant: UCCGain | None = None
    warnings: tuple[str, ...] = ()
    joint: JointCalibration | None = None
    figures: FigureRecords | None = field(default=None, compare=False, repr=False)

    @property
    def stage_verdicts(self) -> dict[str, str]:
        """One verdict per stage (per feature for adaptivity), judged after scaling for the
        conditional stages: fail if any test fails, else inconclusive if any is, else pass."""
        v = self.verdicts
        # the paper's rule has one row per test (its f_v values are not rescaled)
        rows = v if self.parameters.get("rule") == "paper" else v[(v["stage"] == "average")
                                                                   | v["scaled"]]
        out: dict[str, str] = {}
        for (stage, feature), group in rows.groupby(["stage", "feature"], sort=False):
            key = stage if stage != "adaptivity" else f"adaptivity: {feature}"
            values = set(group["verdict"])
            out[key] = next(x for x in ("fail", "inconclusive", "pass", NOT_TESTABLE)
                            if x in values)
        return out

    @property
    def miscalibrated(self) -> bool:
        """True when any test fails."""
        return bool((self.verdicts["verdict"] == "fail").any())

    def summary(self) -> str:
        """Plain-language summary (Markdown) for a reader who has not read the papers."""
        return summary_markdown(self)

    def save(self, directory: str | Path) -> list[Path]:
        """Write report.html, verdicts.csv, summary.md, bins_<name>.csv and the figures
        (PNG) to ``directory``; returns the written paths."""
        return save_all(self, Path(directory))

    def to_html(self, path: str | Path) -> Path:
        """Write the self-contained HTML report (figures embedded) to ``path``."""
        return write_html(self, Path(path))

    def __repr__(self) -> str:
        s = self.scale_factor
        stages = ", ".join(f"{k}={v}" for k, v in self.stage_verdicts.items())
        return (
            f"ValidationResult(M={self.row_counts['rows used']}, scale_factor={s.value:.3g} "
            f"[{s.ci_low:.3g}, {s.ci_high:.3g}], {stages})"
        )


def _row(stage: str, feature: str, scaled: bool, statistic: str, value: float,
         ci: tuple[float, float], target: float, p: float, note: str = "") -> dict:
    return {"stage": stage, "feature": feature, "scaled": scaled, "verdict": "", "effect": "",
            "statistic": statistic, "value": value, "ci_low": ci[0], "ci_high": ci[1],
            "target": target, "p_value": p, "p_adjusted": np.nan, "note": note}


def _bin_table(
    e: NDArray[np.float64], u_scaled: NDArray[np.float64], x: NDArray[np.float64], bins: Bins,
    n_boot: int, seed: np.random.SeedSequence, n_workers: int, student: bool = False,
) -> pd.DataFrame:
    """Per-bin <Z^2> (BCa, n_boot replicates per bin; with ``student`` the Student-t
    interval of the mean of Z^2, as the authors' ZMSCI for bins of 200 points or more) and
    <Z> (Student t), scaled uE."""
    z = e / u_scaled
    index_lists = bins.index_lists()
    children = seed.spawn(len(index_lists))
    value, low, high = (np.empty(len(index_lists)) for _ in range(3))
    for i, (idx, child) in enumerate(zip(index_lists, children, strict=True)):
        if student:
            ci = mean_t_interval(np.square(z[idx]))
            value[i], low[i], high[i] = float(ci.value), float(ci.ci_low), float(ci.ci_high)
            continue
        res = bca_bootstrap((z[idx],), _MEAN_SQUARE, n_boot=n_boot, seed=child,
                            n_workers=n_workers)
        value[i], low[i], high[i] = res.estimate, res.ci_low, res.ci_high
    zm = local_zmean(e, u_scaled, x, index_lists)
    return pd.DataFrame({
        "low": bins.low, "high": bins.high, "n": bins.counts,
        "value": value, "ci_low": low, "ci_high": high, "valid": (low <= 1.0) & (1.0 <= high),
        "factor": np.sqrt(value), "factor_low": np.sqrt(low), "factor_high": np.sqrt(high),
        "mean_z": zm["value"].to_numpy(), "mean_z_low": zm["ci_low"].to_numpy(),
        "mean_z_high": zm["ci_high"].to_numpy(), "mean_z_valid": zm["valid"].to_numpy(),
    })


def _fv_note(table: pd.DataFrame, zms: float, scaled: bool) -> str:
    """f_v of the LZMS intervals, with the scaled or unscaled uncertainties (indicative);
    ``zms`` is the square of the factor the bins were scaled by."""
    factor = 1.0 if scaled else zms  # BCa intervals of <Z^2> scale exactly with uE^-2
    valid = (table["ci_low"] * factor <= 1.0) & (1.0 <= table["ci_high"] * factor)
    k, n = int(valid.sum()), len(table)
    lo, hi = wilson_interval(k, n)
    return f"f_v = {k / n:.2f} [{lo:.2f}, {hi:.2f}] of {n} bins (indicative)"


def _average_rows(
    e: NDArray[np.float64], u: NDArray[np.float64], boot, scr: Screening, alpha: float
) -> tuple[list[dict], float, float]:
    z = e / u
    m = z.size
    zms_p = rules.bca_p_value(boot, 1.0)
    ci = mean_t_interval(z)
    mean_z, se = float(ci.value), float(ci.sd)
    z_p = rules.t_test_p_value(mean_z, se, m)
    adjusted = rules.holm([zms_p, z_p])
    note = "" if scr.zms_reliable else "; ".join(r for r in scr.reasons if "ZMS" in r)
    zms_row = _row("average", "", False, "ZMS", boot.estimate**2,
                   (boot.ci_low**2, boot.ci_high**2), 1.0, zms_p,
                   note + ("; " if note else "")
                   + "interval: square of the BCa interval of sqrt(ZMS)")
    if scr.zms_reliable:
        zms_row["verdict"] = rules.verdict(adjusted[0], alpha, False)
    else:
        zeta = float(zeta_score(boot.estimate, 1.0, boot.ci_low, boot.ci_high))
        gross = abs(zeta) > rules.HEAVY_TAIL_ZETA
        zms_row["verdict"] = "fail" if gross else "inconclusive"
        zms_row["note"] += (f"; heavy tails: fails only if |zeta| > "
                            f"{rules.HEAVY_TAIL_ZETA:g} (zeta = {zeta:.2f})")
    z_row = _row("average", "", False, "<Z>", mean_z, (float(ci.ci_low), float(ci.ci_high)),
                 0.0, z_p, "Student t interval and test")
    z_row["verdict"] = rules.verdict(adjusted[1], alpha, False)
    zms_row["p_adjusted"], z_row["p_adjusted"] = adjusted
    return [zms_row, z_row], zms_p, z_p


def _conditional_rows(
    variables: Sequence[tuple[str, str, Bins]], tests: Sequence[tuple[HeterogeneityTest, ...]],
    tables: Mapping[str, pd.DataFrame], zms: float, p_average: tuple[float, float], alpha: float,
    binfree: tuple[list[tuple[float, float, float, float]], tuple[float, float, int, int]],
    n_permutations: int,
) -> list[dict]:
    """Binned and bin-free rows of the conditional stages (:mod:`uqval.validation.rules`).

    The scaled rows are Holm-adjusted over all the tests of their stage; the row of the same
    test for the uncertainties as given combines that adjusted p-value with the average
    test's, min(1, 2 min(p_average, p_adjusted))."""
    rows: list[dict] = []  # the scaled rows, then their twins as given
    pairs: list[float] = []
    families: dict[str, list[int]] = {}
    inconclusive: list[bool] = []
    cumulative, (mcb, mcb_p, n_mcb, used_rows) = binfree

    def add(stage: str, name: str, statistic: str, value: float, p_raw: float,
            p_avg: float, note: str, few: bool, target: float = 1.0) -> None:
        families.setdefault(stage, []).append(len(rows))
        inconclusive.append(few)
        pairs.append(p_avg)
        rows.append(_row(stage, name, True, statistic, value, (np.nan, np.nan), target, p_raw,
                         note))

    for (stage, name, b), pair, cum in zip(variables, tests, cumulative, strict=True):
        few = int(b.counts.min()) < rules.MIN_BIN_COUNT
        for test, label, p_avg in zip(pair, ("LZMS", "LZM"), p_average, strict=True):
            base = "spread of <Z^2> (T_ZMS)" if label == "LZMS" else "spread of <Z> (T_Z)"
            base += f" over {b.n_bins} bins, {test.n_permutations} permutations"
            if few:
                base += f"; a bin holds fewer than {rules.MIN_BIN_COUNT} rows"
            add(stage, name, f"{label} spread ratio", test.ratio, test.p_value, p_avg, base, few)
        for statistic, value, p, p_avg, what in (
            (binfree_module.CUMULATIVE_SPREAD, cum[0], cum[1], p_average[0], "Z^2 - 1"),
            (binfree_module.CUMULATIVE_BIAS, cum[2], cum[3], p_average[1], "Z"),
        ):
            add(stage, name, statistic, value, p, p_avg,
                f"no bins: Kuiper range of the cumulative sum of {what} along {name} about "
                f"its chord, in units of its sd (calibrated: 95 % below about 1.75), "
                f"{n_permutations} permutations"
                + binfree_module.rows_note(b.counts.sum(), used_rows), False, np.nan)
        if stage == "consistency":
            add(stage, name, binfree_module.ISOTONIC_MCB, mcb, mcb_p, p_average[0],
                "no bins: QLIKE miscalibration of the PAV fit of E^2 on uE^2 beyond one "
                f"global factor, {n_mcb} permutations of Z against uE"
                f"{binfree_module.rows_note(b.counts.sum(), used_rows)}", False, 0.0)
    p_values = np.array([r["p_value"] for r in rows])
    adjusted = rules.combine_families(list(families.values()), p_values)
    given = []
    for r, adj, few, p_avg in zip(rows, adjusted, inconclusive, pairs, strict=True):
        r["p_adjusted"] = adj
        r["verdict"] = rules.verdict(adj, alpha, few)
        twin = dict(r, scaled=False)
        twin["p_value"] = twin["p_adjusted"] = rules.bonferroni_pair(p_avg, adj)
        twin["verdict"] = rules.verdict(twin["p_adjusted"], alpha, few)
        twin["note"] += "; as given: p = 2 min(p_average, p_adjusted of the scaled test)"
        given.append(twin)
        if str(r["statistic"]).startswith("LZMS"):
            r["note"] += "; " + _fv_note(tables[r["feature"]], zms, True)
            twin["note"] += "; " + _fv_note(tables[r["feature"]], zms, False)
    out = []
    for stage, name, _ in variables:  # per variable: as given, then scaled (as before)
        out += [r for r in given if (r["stage"], r["feature"]) == (stage, name)]
        out += [r for r in rows if (r["stage"], r["feature"]) == (stage, name)]
    return out


def _paper_rows(
    e: NDArray[np.float64], u: NDArray[np.float64], features: Mapping[str, NDArray[np.float64]],
    n_boot: int, seed: int, n_bins: int | None, u_name: str = "uE",
) -> list[dict]:
    """The adaptivity paper's flowchart checks (P003 Fig. 1) as verdict rows (consistency
    rows named after the uncertainty, ``u_name``)."""
    table = pd.DataFrame({"E": e, "uE": u, **{f"X_{k}": v for k, v in features.items()}})
    checks = flowchart.validate_variance(table, list(features), n_boot, seed, n_bins=n_bins)
    return [
        {**_row(c.stage, "" if c.conditioning == "-" else u_name if c.stage == "consistency"
                else c.conditioning, False, c.test,
                c.value, (c.ci_low, c.ci_high), c.target, np.nan,
                "paper rule (P003 Fig. 1)" + (f"; {c.note}" if c.note else "")),
         "verdict": flowchart.check_verdict(c)}
        for c in checks
    ]


def _feature_count(features: Features) -> int:
    if features is None:
        return 0
    if isinstance(features, str):
        return 1
    if isinstance(features, pd.DataFrame):
        return features.shape[1]
    return len(features)


def validate(
    errors: ArrayLike | str,
    uncertainties: ArrayLike | str | Predictive,
    features: Features = None,
    *,
    data: pd.DataFrame | None = None,
    variance: bool = False,
    seed: int | np.random.SeedSequence | None = 0,
    n_boot: int = 1000,
    n_permutations: int | None = None,
    n_bins: int | None = None,
    n_ucc_permutations: int = 1999,
    rule: Rule = "uqval",
    alpha: float = 0.05,
    tolerance: float = rules.DEFAULT_TOLERANCE,
    drop_invalid: bool = False,
    uncertainty_name: str | None = None,
    n_workers: int = 1,
    progress: Callable[[str], None] | None = None,
    levels: Sequence[float] | None = None,
) -> Any:
    """Validate uncertainties on average, along the uncertainty and along each feature.

    **Predictive outputs.** ``validate(y_true, predictive, features, ...)`` with a
    :class:`uqval.Normal`, :class:`uqval.StudentT`, :class:`uqval.Laplace`,
    :class:`uqval.Ensemble`, :class:`uqval.Samples`, :class:`uqval.Quantiles` or
    :class:`uqval.Intervals` as second argument validates it without reducing it to a sd:
    the variance stages below on E = y - point and uE = sqrt(variance) wherever a variance
    exists, plus the ``coverage`` stage (central intervals at ``levels``, default the given
    levels of quantile sets and intervals, else 0.5/0.8/0.9/0.95; exact binomial tests; local
    coverage along the interval width and each feature) and the ``shape`` stage (PIT
    uniformity), and returns a :class:`~uqval.validation.predictive_engine.PredictiveValidation`
    (:mod:`uqval.validation.predictive_engine`). With (errors, uncertainties) it returns a
    :class:`ValidationResult` as below (``levels`` is then unused).

    Errors E (reference minus prediction) and standard uncertainties uE should satisfy
    E ~ uE·D(0, 1) (P000 Sect. II). Three stages (P003 Fig. 1):

    1. **Average**: ZMS = <Z^2> (target 1, Z = E/uE) with the BCa interval of the scale
       factor s = sqrt(ZMS) (P001 Sect. II.3), and <Z> (target 0). s is the factor by which
       every uncertainty should be multiplied to be right on average.
    2. **Consistency**: in equal-count bins of uE, does <Z^2> (and <Z>) stay the same
       (P003 Sect. III.B)?
    3. **Adaptivity**: the same in bins of each feature.

    Decision rules (``rule="uqval"``, :mod:`uqval.validation.rules`): Holm-adjusted tests at
    level ``alpha``; conditional stages by exact permutation tests of the between-bin
    spread of <Z^2> and <Z> (:mod:`uqval.validation.permutation`), reported for the
    uncertainties as given (``scaled=False``) and after multiplying them by s
    (``scaled=True``). Measured false-alarm rates on calibrated data are <= 5 % per stage
    (README, ``benchmarks/validation_error_rates.py``). ``rule="paper"`` gives the verdicts
    of the adaptivity paper's flowchart (:mod:`uqval.validation.flowchart`; f_v with target 0.95,
    which flags good uncertainties too often, see README).

    Bins: equal-count bins that keep ties together (:mod:`uqval.validation.bins`), by
    default ``round(min(sqrt(M), M/100))`` clipped to [2, 50] (:func:`default_n_bins`).
    The per-bin tables (``.bins``) use the scaled uncertainties, with BCa intervals of
    <Z^2> from ``n_boot`` replicates per bin.

    Args:
        errors: errors E (array or Series), or a column name of ``data``.
        uncertainties: standard uncertainties uE (or variances with ``variance=True``), or
            a column name of ``data``.
        features: input features: a mapping name -> values, a DataFrame, or column names of
            ``data``. Numeric, not constant.
        data: optional DataFrame holding the named columns.
        variance: ``uncertainties`` are variances uE^2.
        seed: seed of every random step (bootstrap, permutations): an integer >= 0, a
            ``SeedSequence``, or None to draw one (recorded in ``parameters["seed"]``, so the
            run can be repeated).
        n_boot: bootstrap replicates of the scale factor and of each bin's interval (1000
            by default: enough for 95 % BCa limits; at M = 10^6 each 1000 replicates of the
            scale factor cost about 10^9 random reads).
        n_permutations: permutations of each conditional test (smallest p-value
            1/(n_permutations + 1)); default max(999, ceil(20 F/alpha)) for F features, so
            that the smallest p-value stays 5 times below Holm's strictest threshold
            alpha/(4F) (four tests per feature: binned and cumulative, spread and bias).
            Above :data:`LARGE_ROWS` rows each binned test stops at its 20th exceedance
            (Besag-Clifford; ``parameters["permutation_rule"]``) and the per-bin intervals
            of <Z^2> are Student-t intervals (``parameters["bin_intervals"]``).
        n_bins: number of bins of every binning variable (default above).
        n_ucc_permutations: most permutations of the UCC-gain test (:class:`UCCGain`); the
            sequential rule stops at 20 exceedances, so only clear gains use them all, and
            their p-value is then 1/2000, far below any usual level.
        rule: ``"uqval"`` (default) or ``"paper"``.
        alpha: false-alarm rate of each stage.
        tolerance: practical tolerance t: a scale factor within [1/(1 + t), 1 + t] (globally
            or in a bin) and a mean z-score within ±t do not matter (column ``effect`` of the
            verdicts; only relevant departures are advised).
        drop_invalid: remove (and count) rows with NaN/infinite values or non-positive
            uncertainties instead of raising.
        uncertainty_name: name of the uncertainty as a binning variable (default: the
            column or Series name, else "uncertainty").
        n_workers: threads for the bootstrap and the permutations (no effect on results).
        progress: called with a short message before each long step.

    Returns:
        A :class:`ValidationResult`.

    Raises:
        ValueError: naming the argument, for mismatched lengths, non-numeric, NaN or
            infinite values, non-positive uncertainties, errors that are all 0, a row whose
            (E/uE)^2 overflows, fewer than 60 usable rows, or bad options (a seed that is
            not an integer >= 0, a SeedSequence or None).

    Degenerate inputs (:mod:`uqval.validation.degenerate`): a variable that cannot be split
    into two bins of 30 rows without separating equal values (one uncertainty for every
    row, a feature with one value in almost every row) gets the verdict ``"not testable"``
    with the reason (``parameters["not_testable"]``); the other stages are still tested.
    Values near 1e-300 or 1e300 are handled by a common change of unit.

    Examples:
        Small ``n_boot`` and permutation counts keep the example fast; keep the defaults for
        real data.

        >>> import numpy as np
        >>> from uqval import validate
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 500)
        >>> e = u * rng.standard_normal(500)
        >>> fast = dict(n_boot=200, n_permutations=199, n_ucc_permutations=199)
        >>> validate(e, u, **fast).stage_verdicts
        {'average': 'pass', 'consistency': 'pass'}
        >>> res = validate(e, u / 2, **fast)  # uE half too small: fails on average
        >>> res.stage_verdicts, round(res.scale_factor.value, 2)
        ({'average': 'fail', 'consistency': 'pass'}, 1.88)

        Errors 1.26 times as large as uE says for x > 0.5 and 0.63 times as large below:
        right on average and along uE, wrong along the feature x:

        >>> x = rng.uniform(0.0, 1.0, 500)
        >>> e_x = e * np.where(x > 0.5, np.sqrt(1.6), np.sqrt(0.4))
        >>> res = validate(e_x, u, {"x": x}, **fast)
        >>> res.stage_verdicts
        {'average': 'pass', 'consistency': 'pass', 'adaptivity: x': 'fail'}
        >>> res.bins["x"]["factor"].round(2).tolist()  # per-bin factor sqrt(<Z^2>), x ascending
        [0.66, 0.59, 0.92, 1.38, 1.21]
    """
    if isinstance(uncertainties, Predictive):
        from uqval.validation.predictive_engine import validate_predictive

        if rule != "uqval" or variance or uncertainty_name is not None:
            raise ValueError("with a predictive object, rule='paper', variance=True and "
                             "uncertainty_name do not apply")
        return validate_predictive(
            errors, uncertainties, features, variance_engine=validate, data=data, levels=levels,
            seed=seed_value(seed), n_boot=n_boot, n_permutations=n_permutations, n_bins=n_bins,
            n_ucc_permutations=n_ucc_permutations, alpha=alpha, tolerance=tolerance,
            drop_invalid=drop_invalid, n_workers=n_workers, progress=progress)
    if rule not in ("uqval", "paper"):
        raise ValueError(f"rule must be 'uqval' or 'paper', got {rule!r}")
    probability(alpha, "alpha")
    probability(tolerance, "tolerance")
    if n_permutations is None:
        n_permutations = max(999, math.ceil(20 * _feature_count(features) / alpha))
        if n_permutations > MAX_RESAMPLES:
            raise ValueError(f"alpha = {alpha:g} needs {n_permutations:.3g} permutations (20 x "
                             f"features / alpha), more than {MAX_RESAMPLES}; use alpha >= "
                             f"{20 * _feature_count(features) / MAX_RESAMPLES:g}")
    n_boot, n_permutations, n_ucc_permutations = (
        integer(value, name, minimum=1, maximum=MAX_RESAMPLES) for name, value in (
            ("n_boot", n_boot), ("n_permutations", n_permutations),
            ("n_ucc_permutations", n_ucc_permutations)))
    if n_bins is not None:
        n_bins = integer(n_bins, "n_bins", minimum=2)
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a function of one message (or None), got "
                         f"{type(progress).__name__}")
    seed = seed_value(seed)
    if isinstance(seed, np.random.SeedSequence):  # recorded as the int every stream comes from
        seed = int(seed.generate_state(1, np.uint64)[0] >> np.uint64(1))
    say = progress or (lambda _: None)
    inputs = clean_inputs(errors, uncertainties, features, data=data, variance=variance,
                          drop_invalid=drop_invalid, uncertainty_name=uncertainty_name)
    e, u = inputs.errors, inputs.uncertainties
    check_errors_not_all_zero(e, u)
    e_unit, u_unit, _ = unit_scaled(e, u)  # for the statistics that square E or uE
    m = e.size
    k = int(n_bins) if n_bins is not None else default_n_bins(m)
    most = max(2, m // rules.MIN_BIN_COUNT)
    if k > most:
        raise ValueError(f"n_bins = {k}: the {m} rows give at most {most} bins of "
                         f"{rules.MIN_BIN_COUNT} rows (a bin needs at least "
                         f"{rules.MIN_BIN_COUNT} rows for a verdict)")
    (boot_seed, perm_seed, bins_seed, ucc_seed, robust_seed, binfree_seed,
     joint_seed) = seed_sequence(seed).spawn(7)

    scr = screen(e_unit, u_unit)
    say(f"bootstrap of the scale factor ({n_boot} replicates of {m} rows)")
    boot = bca_bootstrap((e, u), SQRT_ZMS, n_boot=n_boot, seed=boot_seed, n_workers=n_workers)
    scale = ScaleFactor(boot.estimate, boot.ci_low, boot.ci_high, n_boot)
    tails = z2_tail_shares(e, u)
    robust = robust_scale_factor(e, u, seed=robust_seed)
    dominated = is_dominated(tails, scale.value, robust)
    # the conditional stages look at the uncertainties after the global factor; when a few
    # rows decide sqrt(ZMS), that factor is the robust one (rules: "A few rows ...")
    reference = robust.value if dominated else scale.value

    candidates = [("consistency", inputs.uncertainty_name, u)] + [
        ("adaptivity", name, x) for name, x in inputs.features.items()
    ]
    untestable = {name: reason for stage, name, x in candidates if (reason := untestable_reason(
        x, rules.MIN_BIN_COUNT, "uncertainty value" if stage == "consistency" else "value"))}
    variables = [(stage, name, x) for stage, name, x in candidates if name not in untestable]
    binned = [(stage, name, tie_aware_bins(x, k)) for stage, name, x in variables]
    u_scaled = u * reference
    tables = {}
    children = bins_seed.spawn(len(variables))
    for (_, name, x), (_, _, b), child in zip(variables, binned, children, strict=True):
        say(f"per-bin intervals along {name}")
        tables[name] = _bin_table(e, u_scaled, x, b, n_boot, child, n_workers,
                                  student=m > LARGE_ROWS)

    if rule == "paper":
        rows = _paper_rows(e, u, inputs.features, n_boot, seed, n_bins, inputs.uncertainty_name)
        used_perm = 0
    else:
        average, zms_p, z_p = _average_rows(e, u, boot, scr, alpha)
        say(f"{'at most ' if m > LARGE_ROWS else ''}{n_permutations} permutations for "
            f"{len(binned)} binning variable(s)")
        sequential = HETEROGENEITY_EXCEEDANCES if m > LARGE_ROWS else None
        tests = heterogeneity_tests(e / u, [b.labels for _, _, b in binned],
                                    n_permutations=n_permutations, seed=perm_seed,
                                    n_workers=n_workers, exceedances=sequential) if binned else []
        say("cumulative and isotonic tests (no bins)")
        rows = list(average)
        if binned:
            binfree = binfree_module.binfree_tests(
                e / u, u, [x for _, _, x in variables], n_permutations=n_permutations,
                seed=binfree_seed, n_workers=n_workers, exceedances=sequential,
                max_rows=sequential and binfree_module.BINFREE_ROWS)
            rows += _conditional_rows(binned, tests, tables, reference**2, (zms_p, z_p),
                                      alpha, binfree, n_permutations)
        rows += [{**_row(stage, name, True, NOT_TESTABLE, np.nan, (np.nan, np.nan), np.nan,
                         np.nan, f"not testable: {untestable[name]}"), "verdict": NOT_TESTABLE}
                 for stage, name, _ in candidates if name in untestable]
        used_perm = n_permutations
    verdicts = pd.DataFrame(rows, columns=VERDICT_COLUMNS)
    verdicts["effect"] = row_effects(verdicts, tables, reference, tolerance)
    joint, joint_note = None, "skipped: fewer than 2 features"
    if len(inputs.features) >= 2 and m < JOINT_MIN_ROWS:
        joint_note = f"skipped: fewer than {JOINT_MIN_ROWS} rows (halves too small to learn from)"
    elif rule == "uqval" and len(inputs.features) >= 2:
        say("joint test over all features (cross-fitted gradient boosting)")
        joint = joint_calibration(e, u * reference, inputs.features,
                                  n_permutations=min(n_permutations, JOINT_PERMUTATIONS),
                                  seed=joint_seed, n_workers=n_workers,
                                  max_rows=sequential and binfree_module.BINFREE_ROWS)
        extra = pd.DataFrame(joint_rows(joint, (zms_p, z_p), alpha, reference, tolerance, _row),
                             columns=VERDICT_COLUMNS)
        verdicts = pd.concat([verdicts, extra], ignore_index=True)
        joint_note = (f"cross-fitted gradient boosting on {len(joint.features)} features, "
                      f"{joint.spread.n_permutations} permutations per half")
    say("UCC gain over a constant band (permutation test)")
    ucc = ucc_gain(e_unit, u_unit, n_ucc_permutations, ucc_seed, n_workers)
    dominant = dominant_rows(e, u, robust) if dominated else np.empty(0, dtype=np.intp)
    ucc_without = None
    if dominant.size:
        keep = np.ones(m, dtype=bool)
        keep[dominant] = False
        say("UCC gain without the dominant rows")
        ucc_without = ucc_gain(e_unit[keep], u_unit[keep], n_ucc_permutations, ucc_seed,
                                n_workers)
    parameters: dict[str, Any] = {
        "rule": rule, "seed": seed, "alpha": alpha, "n_boot": n_boot,
        "n_permutations": used_perm, "variance_input": variance,
        **binfree_module.large_parameters(m, LARGE_ROWS, rule, n_boot, HETEROGENEITY_EXCEEDANCES),
        "ucc_permutations": f"{ucc.n_permutations} of at most {n_ucc_permutations} "
        f"(sequential, h = {UCC_EXCEEDANCES})",
        "n_bins": {name: b.n_bins for _, name, b in binned},
        "min_bin_count": rules.MIN_BIN_COUNT,
        "tolerance": tolerance,
        "conditional_scaling": reference,
        "not_testable": untestable,
        "joint": joint_note,
    }
    names = {"uncertainty": inputs.uncertainty_name, "features": list(inputs.features)}
    say("figures: curves, bands and per-bin values")
    figures = figure_records(e, u, inputs.features, {name: b for _, name, b in binned},
                             scaling=reference, seed=seed)
    result = ValidationResult(
        verdicts=verdicts, scale_factor=scale, bins=tables, screening=scr,
        parameters=parameters, row_counts=inputs.row_counts, names=names,
        errors=e, uncertainties=u, features=inputs.features, ucc=ucc, tail_shares=tails,
        robust_scale=robust, dominant_rows=dominant, ucc_without_dominant=ucc_without,
        joint=joint, figures=figures,
        warnings=tuple(rules.input_warnings(e_unit, reference)),
    )
    if rule == "paper":
        return result
    advice = advice_table(AdviceInputs(
        verdicts=verdicts, bins=tables, stages=result.stage_verdicts,
        scale=(scale.value, scale.ci_low, scale.ci_high), reference=reference,
        robust=robust, tails=tails,
        dominant=dominant, errors=e, uncertainties=u, features=inputs.features,
        uncertainty_name=inputs.uncertainty_name, tolerance=tolerance,
        zms_reliable=scr.zms_reliable, joint=joint,
    ))
    return dataclasses.replace(result, advice=advice)


