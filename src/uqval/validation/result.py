"""The record of a validation: every number its tables, figures, sentences and actions need.

:class:`ValidationResult` is what :func:`uqval.validate` returns. Its fields are numbers
(verdict rows with their statistics and p-values, per-bin tables, the scale factor with its
interval, screening, tail shares, the joint test, the UCC gain) and the one judgement made of
them (:attr:`ValidationResult.stages` and :attr:`ValidationResult.advice`,
:mod:`uqval.validation.judgement`). The report (:mod:`uqval.report`) sits above and only
reads it: ``.summary()``, ``.save()`` and ``.to_html()`` are thin calls through
:func:`uqval._internal.lazy.report_call`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from uqval._internal.lazy import report_call
from uqval.calibration.joint import JointCalibration
from uqval.calibration.robust_scale import RobustScale, TailShares
from uqval.calibration.screening import Screening
from uqval.validation.figure_stage import FigureRecords
from uqval.validation.grouping import GroupSummary
from uqval.validation.judgement import stage_verdicts
from uqval.validation.ucc_gain import UCCGain

__all__ = ["ScaleFactor", "ValidationResult"]


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
        stages: the judgement, one row per stage and variable (stages.csv; columns
            :data:`uqval.validation.judgement.STAGE_COLUMNS`): label (right, right within
            the tolerance, not right, inconclusive, not testable), effect, the range of the
            factors with their intervals, the smallest adjusted p-value, the number of
            actions and a one-line reason. The summary, the page and advice.csv are written
            from it (:mod:`uqval.validation.judgement`).
        figures: every number the report's figures draw, computed by :func:`validate`
            (:mod:`uqval.validation.figure_stage`); saving the report only draws them.
        groups: what the groups of dependent rows change (``groups=``; number, rows per
            group, ICC of Z and Z^2, design effect, effective rows and the permutation
            procedure of each variable, :class:`~uqval.validation.grouping.GroupSummary`);
            None without groups or with groups of one row.

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
    stages: pd.DataFrame = field(default_factory=pd.DataFrame, compare=False)
    figures: FigureRecords | None = field(default=None, compare=False, repr=False)
    groups: GroupSummary | None = None

    @property
    def stage_verdicts(self) -> dict[str, str]:
        """One verdict per stage (per feature for adaptivity), judged after scaling for the
        conditional stages: fail if any test fails, else inconclusive if any is, else pass
        (:func:`uqval.validation.judgement.stage_verdicts`)."""
        return stage_verdicts(self.verdicts, str(self.parameters.get("rule", "uqval")))

    @property
    def stage_labels(self) -> dict[str, str]:
        """The judgement's label per stage (per feature for adaptivity), keyed as
        :attr:`stage_verdicts`: the words of the summary (right, right within the tolerance,
        not right, inconclusive, not testable), from :attr:`stages`. A stage whose test fails
        beyond chance by an amount that cannot be told from the tolerance is ``fail`` in
        :attr:`stage_verdicts` and ``inconclusive`` here."""
        st = self.stages
        return {(stage if stage != "adaptivity" else f"adaptivity: {var}"): str(label)
                for stage, var, label in zip(st["stage"], st["variable"], st["label"],
                                             strict=True)}

    @property
    def miscalibrated(self) -> bool:
        """True when any test fails."""
        return bool((self.verdicts["verdict"] == "fail").any())

    def summary(self) -> str:
        """Plain-language summary (Markdown) for a reader who has not read the papers, written
        from :attr:`stages` and :attr:`advice` (:func:`uqval.report.summary.summary_markdown`)."""
        return str(report_call("summary", "summary_markdown", self))

    def save(self, directory: str | Path) -> list[Path]:
        """Write report.html, verdicts.csv, stages.csv, summary.md, bins_<name>.csv and the
        figures (PNG) to ``directory``; returns the written paths
        (:func:`uqval.report.validation.save_all`: it reads this record, computes nothing)."""
        return list(report_call("validation", "save_all", self, Path(directory)))

    def to_html(self, path: str | Path) -> Path:
        """Write the self-contained HTML report (figures embedded) to ``path``."""
        return Path(report_call("validation", "write_html", self, Path(path)))

    def __repr__(self) -> str:
        s = self.scale_factor
        labels = self.stage_labels or self.stage_verdicts
        stages = ", ".join(f"{k}={v}" for k, v in labels.items())
        return (
            f"ValidationResult(M={self.row_counts['rows used']}, scale_factor={s.value:.3g} "
            f"[{s.ci_low:.3g}, {s.ci_high:.3g}], {stages})"
        )
