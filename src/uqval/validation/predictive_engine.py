"""``validate(y_true, predictive, ...)``: the validation of ensembles, samples, quantile sets,
intervals and parametric predictive distributions (:mod:`uqval.predictive`).

Stages, each a family of tests at level alpha:

* **variance** stages (average, consistency, adaptivity of :func:`uqval.validate`), wherever a
  variance exists (parametric families, ensembles, samples): errors E = y - point and
  uncertainties uE = sqrt(variance); rows without a positive variance (ensembles with zero
  spread) are left out of these stages only. Unweighted ensembles and samples are judged
  against the reference of a perfect ensemble with the observed values, not against 1
  (:mod:`uqval.validation.ensemble_reference`: the average ZMS row and scale factor are the
  factor net of the finite-member floor, the consistency stage along the sd uses
  exchangeability replicates; rows with fewer than 4 members are left out);
* **coverage** (:mod:`uqval.validation.coverage_shape`): per nominal level (the given central
  levels of quantile sets and intervals, else ``levels`` or 0.5/0.8/0.9/0.95), the observed
  coverage with its exact binomial test, Holm over levels; per-level quantile calibration of
  quantile sets; conditional coverage along the interval width (the pooled spread for
  ensembles) and along each feature;
* **shape**: the PIT uniformity test (Cramér-von Mises) with what the PIT shares say (not for
  intervals).

Scores (``scores``): every score of :mod:`uqval.predictive.scores` that applies, mean over the
rows with its standard error.

**Rows in groups** (``groups=``; docs/choices.md, "Rows that come in groups"): the variance
stages get the groups (:func:`uqval.validate`); every share (coverage per level, quantile
calibration, the intervals built from an ensemble, the PIT shares) gets the Korn-Graubard
interval and test over the groups (:mod:`uqval.stats.cluster_proportion`); the conditional
coverage tests exchange whole groups along a variable constant inside groups and permute the
coverage indicator inside groups otherwise
(:func:`uqval.validation.permutation.grouped_heterogeneity_tests`), with Korn-Graubard
per-bin intervals; the PIT uniformity test takes its p-value from a multiplier bootstrap over
the groups (:mod:`uqval.stats.cluster_cvm`); the scores' standard errors are cluster-robust;
an unweighted ensemble's perfect-ensemble reference picks one member per group
(:mod:`uqval.validation.ensemble_reference`). Groups of one row give the numbers without
groups bit for bit.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from uqval._internal.checks import probability
from uqval._internal.lazy import report_call
from uqval._internal.seeding import seed_sequence
from uqval.predictive import Ensemble, Predictive, Quantiles
from uqval.predictive.scores import score_rows
from uqval.stats.groups import MIN_GROUPS, GroupIndex, cluster_mean_se
from uqval.stats.serial_groups import serial_blocks
from uqval.validation import rules
from uqval.validation.coverage_shape import (
    BUILT,
    CoverageCheck,
    ShapeCheck,
    coverage_rows,
    shape_check,
)
from uqval.validation.ensemble_reference import ensemble_reference, rejudge
from uqval.validation.grouping import (
    UNEQUAL_GROUPS,
    serial_warning,
    unequal_groups_warning,
)
from uqval.validation.inputs import Features, clean_predictive_inputs
from uqval.validation.predictive_judgement import (
    INTERVALS,
    PREDICTIVE_ADVICE_COLUMNS,
    factor_scope,
    no_action,
    predictive_advice,
)
from uqval.validation.scaled_coverage import scaled_interval_coverage

if TYPE_CHECKING:
    from uqval.validation.result import ValidationResult

__all__ = ["FEW_MEMBERS", "PredictiveValidation", "validate_predictive"]

FEW_MEMBERS = 30
"""Members below which an ensemble's variance stages are noisy (E(Z²) = (m - 1)/(m - 3))."""


@dataclass(frozen=True, repr=False)
class PredictiveValidation:
    """Outcome of ``validate(y_true, predictive, ...)`` (module docstring).

    Attributes:
        verdicts: one row per test, the columns of :class:`uqval.ValidationResult`'s verdicts;
            stages average, consistency, adaptivity (variance stages, when a variance exists),
            coverage (one row per level overall with ``value`` the observed coverage, per
            quantile level for quantile sets, and one per level and variable: ``LCP``), shape.
        coverage: the coverage stage (:class:`~uqval.validation.coverage_shape.CoverageCheck`).
        shape: the shape stage (None for intervals).
        variance: the validation of E = y - point with uE = sqrt(variance) (None without a
            variance).
        scores: score, value (mean over the rows), se (standard error), n.
        data_issues: the predictive's data problems (1-based input rows, rule applied).
        advice: the actions, one row each (advice.csv): data problems first, then the
            variance stages' advice (:mod:`uqval.validation.judgement`), then coverage and
            shape (:mod:`uqval.validation.predictive_judgement`); column ``level`` for the
            coverage rows.
        scaled_coverage: when the variance stages advise one factor f for every sd, the
            coverage at each level of the judged intervals widened by f about their midpoints
            (:func:`uqval.validation.scaled_coverage.scaled_interval_coverage`); else empty.
        row_counts: rows in input, removed (and why), used.
        kind: kind of predictive (normal, t, laplace, ensemble, samples, quantiles, intervals).
        parameters: seed, alpha, tolerance, levels, permutations, ...
        names: feature names.
        warnings: input warnings.
        input_sha256: SHA-256 of the input file (command line).

    Examples:
        >>> import numpy as np
        >>> from uqval import Normal, validate
        >>> rng = np.random.default_rng(0)
        >>> mu, sd = rng.normal(size=600), rng.uniform(0.5, 2.0, 600)
        >>> y = mu + sd * rng.standard_t(3, 600) / np.sqrt(3)  # t(3) errors, right variance
        >>> res = validate(y, Normal(mu, sd), n_boot=200, n_permutations=199,
        ...                n_ucc_permutations=99)
        >>> res.stage_verdicts["shape"], res.shape.diagnosis[:35]
        ('fail', 'the tails are heavier than declared')
    """

    verdicts: pd.DataFrame
    coverage: CoverageCheck
    shape: ShapeCheck | None
    variance: ValidationResult | None
    scores: pd.DataFrame
    data_issues: Any
    row_counts: dict[str, int]
    kind: str
    parameters: dict[str, Any]
    names: dict[str, Any]
    y_true: NDArray[np.float64] = field(compare=False)
    point: NDArray[np.float64] = field(compare=False)
    features: dict[str, NDArray[np.float64]] = field(compare=False)
    warnings: tuple[str, ...] = ()
    input_sha256: str | None = None
    advice: pd.DataFrame = field(default_factory=pd.DataFrame, compare=False)
    scaled_coverage: pd.DataFrame = field(default_factory=pd.DataFrame, compare=False)

    @property
    def stage_verdicts(self) -> dict[str, str]:
        """One verdict per stage: fail if any test fails, else inconclusive, else pass
        (variance stages as in :class:`uqval.ValidationResult`)."""
        out = dict(self.variance.stage_verdicts) if self.variance is not None else {}
        v = self.verdicts
        for stage in ("coverage", "shape"):
            values = set(v.loc[v["stage"] == stage, "verdict"])
            if values:
                out[stage] = next(x for x in ("fail", "inconclusive", "pass") if x in values)
        return out

    @property
    def miscalibrated(self) -> bool:
        """True when any test fails."""
        return bool((self.verdicts["verdict"] == "fail").any())

    def summary(self) -> str:
        """Plain-language summary (Markdown)."""
        return str(report_call("predictive", "predictive_summary", self))

    def save(self, directory: str | Path) -> list[Path]:
        """Write report.html, verdicts.csv, scores.csv, coverage.csv, summary.md and the
        figures to ``directory``; returns the written paths."""
        return list(report_call("predictive", "save_predictive", self, Path(directory)))

    def to_html(self, path: str | Path) -> Path:
        """Write the self-contained HTML report to ``path``."""
        return Path(report_call("predictive", "write_predictive_html", self, Path(path)))

    def __repr__(self) -> str:
        stages = ", ".join(f"{k}={v}" for k, v in self.stage_verdicts.items())
        return f"PredictiveValidation({self.kind}, M={self.row_counts['rows used']}, {stages})"


def _scores(y: NDArray[np.float64], pred: Predictive, levels: Sequence[float],
            groups: NDArray[np.intp] | None = None) -> pd.DataFrame:
    """Mean of each score over the rows with its standard error: s/sqrt(n), or with
    ``groups`` the cluster-robust (CR1) se over the groups of the rows with a finite score
    (:func:`uqval.stats.groups.cluster_mean_se`); the rmse's by the delta method."""
    rows = []
    for name, values in score_rows(y, pred, levels).items():
        finite = np.isfinite(values)
        v = values[finite]
        if groups is None:
            se = float(np.std(v, ddof=1) / math.sqrt(v.size))
        else:
            se = cluster_mean_se(v, GroupIndex.from_codes(groups[finite]))[1]
        if name == "sq_error":
            mean = float(np.mean(v))
            # delta method; every squared error 0 (predictions equal to the observations):
            # the rmse is 0 with se 0
            rmse_se = se / (2 * math.sqrt(mean)) if mean > 0 else 0.0
            rows.append({"score": "rmse", "value": math.sqrt(mean), "se": rmse_se,
                         "n": v.size})
            continue
        name = "mae" if name == "abs_error" else name
        rows.append({"score": name, "value": float(np.mean(v)), "se": se, "n": v.size})
    return pd.DataFrame(rows)


def _global_factor(variance: ValidationResult | None) -> float | None:
    """The factor of the variance stages' ``scale`` advice (one factor for every sd), or
    None when they advise none."""
    if variance is None or variance.advice.empty:
        return None
    scale = variance.advice[variance.advice["action"] == "scale"]
    return float(scale["factor"].iloc[0]) if not scale.empty else None


def _levels(pred: Predictive, levels: Sequence[float] | None) -> tuple[float, ...]:
    if isinstance(pred, Quantiles):
        given = pred.central_levels
        if levels is None:
            return given
        missing = [x for x in levels if all(abs(x - g) > 1e-9 for g in given)]
        if missing:
            raise ValueError(f"levels: no central interval at {', '.join(map(str, missing))} "
                             f"(given: {', '.join(f'{g:g}' for g in given) or 'none'})")
        return tuple(float(x) for x in levels)
    chosen = pred.default_levels if levels is None else tuple(levels)
    return tuple(probability(float(x), "levels") for x in chosen)


def validate_predictive(
    y_true: ArrayLike | str,
    predictive: Predictive,
    features: Features = None,
    *,
    variance_engine: Callable[..., ValidationResult],
    data: pd.DataFrame | None = None,
    levels: Sequence[float] | None = None,
    seed: int | np.random.SeedSequence = 0,
    n_boot: int = 1000,
    n_permutations: int | None = None,
    n_bins: int | None = None,
    n_ucc_permutations: int = 1999,
    alpha: float = 0.05,
    tolerance: float = 0.10,
    drop_invalid: bool = False,
    n_workers: int = 1,
    progress: Callable[[str], None] | None = None,
    groups: ArrayLike | str | None = None,
) -> PredictiveValidation:
    """The engine of ``validate(y_true, predictive, ...)`` (module docstring);
    ``variance_engine`` is :func:`uqval.validate` itself (passed in, not imported, so that the
    two engines do not import each other). ``groups``: module docstring, "Rows in groups"."""
    probability(alpha, "alpha")
    probability(tolerance, "tolerance")
    say = progress or (lambda _: None)
    inputs = clean_predictive_inputs(y_true, predictive, features, data=data,
                                     drop_invalid=drop_invalid, groups=groups)
    y, pred = inputs.y, inputs.predictive
    codes = inputs.groups
    group_index = None if codes is None else GroupIndex.from_codes(codes)
    if group_index is not None and group_index.singleton:
        group_index, codes = None, None  # groups of one row: the numbers without groups
    if group_index is not None and group_index.n_groups < MIN_GROUPS:
        raise ValueError(f"groups: {group_index.n_groups} groups; at least {MIN_GROUPS} are "
                         "needed to resample and permute groups")
    levels_used = _levels(pred, levels)
    serial = None
    if group_index is not None:
        near_90 = min(levels_used, key=lambda a: abs(a - 0.9))
        low, high = pred.interval(near_90)
        serial = serial_blocks(pred.standardized(y, near_90), group_index,
                               variables={"interval width": high - low, **inputs.features})
    if group_index is not None and serial is not None and serial.block_size > 1:
        # dependent consecutive groups: blocks of them are the units of the predictive stages
        # (the variance stages get the groups as given and decide on them alike)
        group_index = GroupIndex.nested(serial.codes, group_index.codes)
    n_vars = len(inputs.features) + 1
    variance_permutations = n_permutations  # None: the variance engine's own default
    ensemble_replicates = n_permutations
    if n_permutations is None:
        n_permutations = max(999, math.ceil(10 * n_vars * max(1, len(levels_used)) / alpha))
    # the variance stages get the caller's seed and permutation count unchanged, so that
    # validate(y - mu, sd, seed=s) and validate(y, Normal(mu, sd), seed=s) judge the variance
    # alike (same numbers, same advice); coverage and shape draw from children 1 and 2,
    # the perfect-ensemble reference from child 3
    _, cov_seed, shape_seed, ref_seed, cvm_seed, scaled_seed = seed_sequence(seed).spawn(6)
    warnings: list[str] = list(serial_warning(serial))
    if group_index is not None and codes is not None:
        warnings += unequal_groups_warning(GroupIndex.from_codes(codes), codes,
                                           inputs.group_names)
    variance_result = None
    point = pred.point
    variance = pred.variance
    reference = None
    if variance is not None:
        has = np.isfinite(variance) & (variance > 0)
        exchangeable = isinstance(pred, Ensemble) and not pred.weighted
        if exchangeable and isinstance(pred, Ensemble):
            say("perfect-ensemble reference of the variance stages")
            # the units of the other stages: the groups, or their blocks when dependent
            units = codes if serial is None or serial.block_size <= 1 else serial.codes
            reference = ensemble_reference(y, pred, seed=ref_seed,
                                           n_replicates=ensemble_replicates or 999,
                                           groups=units)
            has = reference.rows
            for why, count in reference.left_out.items():
                warnings.append(f"{count} rows left out of the variance stages: {why}")
        if int(has.sum()) >= 60:
            say("variance stages on E = y - point, uE = sqrt(variance)")
            variance_result = variance_engine(
                (y - point)[has], np.sqrt(variance[has]),
                {k: v[has] for k, v in inputs.features.items()},
                seed=seed, n_boot=n_boot, n_permutations=variance_permutations, n_bins=n_bins,
                n_ucc_permutations=n_ucc_permutations, alpha=alpha, tolerance=tolerance,
                uncertainty_name="sd", n_workers=n_workers, progress=progress,
                groups=None if codes is None else codes[has])
            if reference is not None:
                variance_result = rejudge(variance_result, reference, seed=ref_seed,
                                          alpha=alpha)
            # E = y - point by construction: no question about the error column; the
            # warnings about the groups stand once, at the top of the page
            variance_result = dataclasses.replace(variance_result, warnings=tuple(
                w for w in variance_result.warnings
                if not w.startswith((rules.OFF_CENTRE_WARNING, UNEQUAL_GROUPS))
                and w not in warnings))
            warnings += list(variance_result.warnings)
        else:
            reason = (" (rows with fewer than 4 members are left out: a perfect ensemble of 3 "
                      "or fewer normal members has an infinite E(Z^2))"
                      if reference is not None and reference.left_out else "")
            warnings.append(f"only {int(has.sum())} rows have a positive variance (at least 60 "
                            f"are needed): the variance stages were not run{reason}")
        if isinstance(pred, Ensemble) and not exchangeable:
            fewest = int(pred.n_members.min())
            if fewest < FEW_MEMBERS:
                warnings.append(
                    f"rows with as few as {fewest} members: the ensemble sd is noisy, so even a "
                    f"perfect ensemble has E(Z^2) = (m - 1)/(m - 3) = "
                    f"{(fewest - 1) / max(fewest - 3, 1):.2f} and a sd-dependent Z^2; a "
                    "weighted ensemble is judged against 1: trust the coverage and shape "
                    "stages (exact for any m) over the variance stages")
    say("coverage at each level, overall and along each variable")
    cov = coverage_rows(y, pred, inputs.features, levels=levels_used, seed=cov_seed,
                        alpha=alpha, tolerance=tolerance, n_permutations=n_permutations,
                        n_bins=n_bins, n_workers=n_workers, groups=group_index)
    shape = None
    if pred.has_shape:
        say("shape: PIT uniformity")
        shape = shape_check(pred.pit(y, seed=shape_seed), alpha=alpha, tolerance=tolerance,
                            groups=group_index, n_boot=n_permutations, seed=cvm_seed)
    rows = list(cov.rows) + ([shape.row()] if shape is not None else [])
    frames = [pd.DataFrame(rows)]
    if variance_result is not None:
        frames.insert(0, variance_result.verdicts)
    verdicts = pd.concat(frames, ignore_index=True)
    parameters: dict[str, Any] = {
        "seed": seed, "alpha": alpha, "tolerance": tolerance, "levels": list(levels_used),
        "n_permutations": n_permutations, "n_boot": n_boot, "predictive": repr(predictive),
        "rule": "uqval",
    }
    if group_index is not None:
        sizes = group_index.counts
        parameters["groups"] = (f"{group_index.n_groups} groups of {int(sizes.min())} to "
                                f"{int(sizes.max())} rows (median {float(np.median(sizes)):g})")
        parameters["group_tests"] = (
            "coverage and PIT shares: Korn-Graubard intervals and tests over the groups; "
            "conditional coverage: groups exchanged (variables constant inside groups) or "
            "rows permuted inside groups; PIT uniformity: multiplier bootstrap over the "
            "groups; scores: cluster-robust standard errors; variance stages: as "
            "uqval.validate with groups (an unweighted ensemble's reference picks one member "
            "per group)")
    if serial is not None:
        parameters["serial_groups"] = serial.describe()
    intervals = INTERVALS.get(predictive.kind, "central intervals (quantiles of the "
                              f"{predictive.kind} distribution)")
    own = predictive_advice(cov, shape, predictive.data_issues.sentences()
                            if predictive.data_issues else [], int(y.size), intervals)
    scaled = pd.DataFrame()
    factor = _global_factor(variance_result)
    if factor is not None:
        say("coverage of the intervals widened by the variance stages' factor")
        scaled = scaled_interval_coverage(y, pred, levels_used, factor, alpha=alpha,
                                          tolerance=tolerance, groups=group_index,
                                          seed=scaled_seed)
        given = cov.built if not cov.built.empty else cov.levels
        scope = factor_scope(scaled, given, shape, int(y.size),
                             f"intervals {BUILT}" if not cov.built.empty else intervals)
        own = pd.DataFrame(own.to_dict("records") + scope, columns=PREDICTIVE_ADVICE_COLUMNS)
    variance_advice = (variance_result.advice if variance_result is not None
                       else pd.DataFrame(columns=PREDICTIVE_ADVICE_COLUMNS))
    parts = [own[own["stage"] == "data"], variance_advice.assign(level=math.nan),
             own[own["stage"] != "data"]]
    records = [r for part in parts for r in part.to_dict("records")]
    advice = (pd.DataFrame(records, columns=PREDICTIVE_ADVICE_COLUMNS) if records
              else no_action(cov, shape, int(y.size), intervals))
    result = PredictiveValidation(
        verdicts=verdicts, coverage=cov, shape=shape, variance=variance_result, advice=advice,
        scaled_coverage=scaled,
        scores=_scores(y, pred, levels_used, None if group_index is None else group_index.codes),
        data_issues=predictive.data_issues,
        row_counts=inputs.row_counts, kind=predictive.kind, parameters=parameters,
        names={"features": list(inputs.features)}, y_true=y, point=point,
        features=inputs.features, warnings=tuple(warnings),
    )
    return dataclasses.replace(result)
