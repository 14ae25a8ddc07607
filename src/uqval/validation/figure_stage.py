"""The numbers of the validation report's figures, computed by the engine.

:func:`figure_records` runs once in :func:`uqval.validate` and returns a
:class:`FigureRecords`: every curve, band, per-bin value and thinned point set the report's
figures draw (numbers only, no matplotlib). Saving the report
(:mod:`uqval.report.validation`) then only draws these records and the ``bins`` tables
(:mod:`uqval.plots.drawing`): it bins, resamples, simulates and fits nothing. Two
consequences:

* the per-bin figures draw the bins of the verdicts: the LZMS and LZM figures draw the
  ``bins`` tables themselves (tie-aware bins, :func:`uqval.binning.tie_aware_bins`), and the
  reliability diagram is computed on the same tie-aware bins of the uncertainty as the
  consistency table (a binary feature shows its two bins, at 0 and 1);
* every other number is the one the one-call plots of :mod:`uqval.plots.diagnostics` give
  with the same arguments and seed (the report's figures before the records existed).

Up to :data:`FIGURE_FULL_ROWS` rows every figure uses every row; above, the curves and
scatter plots (calibration curve, isotonic reliability with its 300 pool-adjacent-violators
fits, z-scores along each feature, confidence curve, UCC) are computed on a seeded uniform
subsample of :data:`FIGURE_SUBSAMPLE` rows (:func:`figure_subsample`; the figures' titles
say so), the per-bin figures (reliability diagram, LZMS, LZM) on all rows, like the
``bins_<name>.csv`` tables. No figure draws more than
:data:`uqval.plots.records.MAX_SCATTER` points.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from uqval._internal.checks import unit_scaled
from uqval._internal.seeding import derive_seed
from uqval._internal.streams import value_generator
from uqval.binning import Bins, equal_count_bins
from uqval.calibration.curves import P_GRID_DEFAULT, CalibrationCurve, calibration_curve
from uqval.calibration.isotonic import isotonic_reliability
from uqval.calibration.local import global_zmean, global_zms, reliability_diagram
from uqval.plots.records import (
    ConfidenceRecord,
    IsotonicRecord,
    UCCRecord,
    ZAlongRecord,
    confidence_record,
    isotonic_record,
    log_axis,
    ucc_record,
    z_along_record,
)

__all__ = [
    "FIGURE_FULL_ROWS",
    "FIGURE_SUBSAMPLE",
    "ISOTONIC_BOOT",
    "ISOTONIC_SIM",
    "FigureRecords",
    "figure_records",
    "figure_subsample",
]

FIGURE_FULL_ROWS = 200_000
"""Up to this many rows every figure uses every row; above, the curves and scatter plots
use the seeded subsample of :func:`figure_subsample` (module docstring): at 10^6 rows their
300 isotonic fits and sorts of all rows cost about 10 CPU-s, for curves and bands that a
200 000-row subsample already draws narrower than a line at the figures' size."""
FIGURE_SUBSAMPLE = 200_000
"""Rows of the seeded subsample of the curves and scatter plots above FIGURE_FULL_ROWS."""
ISOTONIC_SIM = 200
"""Sets simulated as calibrated for the isotonic figure's consistency band."""
ISOTONIC_BOOT = 100
"""Bootstrap resamples of the isotonic figure's interval of the fit."""
RELIABILITY_FALLBACK_BINS = 15
"""Reliability-diagram bins when the uncertainty has no bins of its own (not testable):
equal-count bins, M // 150 of them (at least 2, at most this many), as
:func:`uqval.plots.diagnostics.reliability_diagram_plot`."""


def figure_subsample(m: int, seed: int) -> NDArray[np.intp] | None:
    """Sorted row positions of the figures' subsample, None when they use all rows:
    :data:`FIGURE_SUBSAMPLE` rows drawn without replacement from the value stream of
    ``derive_seed(seed, "figure subsample")``.

    >>> figure_subsample(1000, 0) is None
    True
    >>> idx = figure_subsample(FIGURE_FULL_ROWS + 1, 0)
    >>> idx.size == FIGURE_SUBSAMPLE, bool((np.diff(idx) > 0).all())
    (True, True)
    """
    if m <= FIGURE_FULL_ROWS:
        return None
    rng = value_generator(np.random.SeedSequence(derive_seed(seed, "figure subsample")))
    return np.sort(rng.choice(m, size=FIGURE_SUBSAMPLE, replace=False))


@dataclass(frozen=True)
class FigureRecords:
    """Every number the validation report's figures draw (:func:`figure_records`).

    Attributes:
        rows: rows of the validation (M).
        subsample_rows: rows of the curves' seeded subsample (:func:`figure_subsample`),
            None when they use all rows.
        unit: common unit of E and uE in the figures that draw them (1 unless their values
            would under- or overflow on squaring: :func:`uqval._internal.checks.unit_scaled`).
        scaling: the conditional scaling factor the uncertainties of the LZMS, LZM and
            z-score figures are multiplied by (``parameters["conditional_scaling"]``).
        seed: the validation's seed (every seeded figure draws from it as before).
        uncertainty_name: name of the uncertainty among the binned variables, None when it
            has no bins (not testable).
        calibration: the calibration curve eta_p on p = 0.005, ..., 0.995 with the 95 %
            Wilson band around the identity and the miscalibration area (P000
            Sect. III.2.1, Eq. 17), uncertainties as given.
        reliability: the reliability diagram, one row per bin (x = RMV_b, value = RMSE_b,
            ci_low, ci_high: delta method on Cho's variance from 200 rows, BCa bootstrap
            below, seeded; P000 Sect. III.3.3), uncertainties as given, on the tie-aware bins
            of the uncertainty of the consistency table (the same rows per bin); on
            equal-count bins when the uncertainty has no bins.
        reliability_bins: how those bins were made (the figure's legend).
        isotonic: the isotonic reliability of E² on uE² (PAV fit, band of 200 calibrated
            sets, 100 bootstrap resamples, seeded; :mod:`uqval.calibration.isotonic`),
            uncertainties as given.
        whole_zms, whole_zmean: (value, ci_low, ci_high) of <Z²> (Student t from 200 rows,
            BCa below, seeded) and <Z> (Student t) of all rows with the scaled uncertainties:
            the "all points" line of the LZMS and LZM figures (P003 Sect. III.B.1).
        log_x: per binned variable, whether its LZMS and LZM figures use a log x axis
            (:func:`uqval.plots.records.log_axis` of all its values).
        z_along: per binned feature, the running 2.5/97.5 % quantiles of the scaled Z and
            the scatter subset (P000 Sect. III.4.1, P003 Fig. 2).
        confidence: the confidence curve with its probabilistic reference of 500 simulated
            sets (P000 Sect. III.3.6, Eqs. 18-21), uncertainties as given.
        ucc: the UCCs (excess-deficit) of the band ±k uE and of a constant band with their
            AUUCCs and gain (P004 Sect. 2.3, Eq. 6; App. 9), uncertainties as given.
    """

    rows: int
    subsample_rows: int | None
    unit: float
    scaling: float
    seed: int
    uncertainty_name: str | None
    calibration: CalibrationCurve
    reliability: pd.DataFrame
    reliability_bins: str
    isotonic: IsotonicRecord
    whole_zms: tuple[float, float, float]
    whole_zmean: tuple[float, float, float]
    log_x: dict[str, bool]
    z_along: dict[str, ZAlongRecord]
    confidence: ConfidenceRecord
    ucc: UCCRecord

    @property
    def subsample_note(self) -> str:
        """" (s of the M rows, drawn at random)" for the titles of the figures drawn from the
        subsample, "" when they use all rows."""
        if self.subsample_rows is None:
            return ""
        return f" ({self.subsample_rows} of the {self.rows} rows, drawn at random)"


def _triple(row: pd.Series) -> tuple[float, float, float]:
    return float(row["value"]), float(row["ci_low"]), float(row["ci_high"])


def figure_records(
    errors: NDArray[np.float64],
    uncertainties: NDArray[np.float64],
    features: Mapping[str, NDArray[np.float64]],
    bins: Mapping[str, Bins],
    *,
    scaling: float,
    seed: int,
) -> FigureRecords:
    """The :class:`FigureRecords` of a validation.

    Args:
        errors, uncertainties: the rows used (finite, uE > 0), uncertainties as given.
        features: the features by name (the binned ones get their figures).
        bins: the tie-aware bins (:func:`uqval.binning.tie_aware_bins`) of each
            binned variable by name: the uncertainty first (its name is not a feature's),
            then the features; a variable that is not testable has none.
        scaling: the conditional scaling factor (the uncertainties of the LZMS, LZM and
            z-score figures are multiplied by it, as for the conditional verdicts).
        seed: the validation's seed: the reliability diagram's bootstraps, the isotonic
            simulations and bootstrap, the whole-set <Z²> bootstrap (below 200 rows), the
            confidence-curve reference and the subsample draw from it as the one-call plots
            do with ``seed=seed``.
    """
    e, u, unit = unit_scaled(np.asarray(errors, np.float64), np.asarray(uncertainties, np.float64))
    m = e.size
    us = u * scaling
    sub = figure_subsample(m, seed)
    es, usub = (e, u) if sub is None else (e[sub], u[sub])
    names = [name for name in bins if name not in features]
    if len(names) > 1:
        raise ValueError(f"bins: {names} are not features; only the uncertainty may be")
    u_name = names[0] if names else None
    if u_name is not None:
        rd_bins = bins[u_name].index_lists()
        rd_note = f"{len(rd_bins)} bins of $u_E$ (those of the consistency table)"
    else:
        k = max(min(m // 150, RELIABILITY_FALLBACK_BINS), 2)
        rd_bins = equal_count_bins(u, k)
        rd_note = f"{k} equal-count bins of $u_E$"
    z_along = {
        name: z_along_record(es / (usub * scaling), x if sub is None else x[sub])
        for name, x in features.items() if name in bins
    }
    log_x = {name: log_axis(np.asarray(uncertainties if name == u_name else features[name]))
             for name in bins}
    return FigureRecords(
        rows=m,
        subsample_rows=None if sub is None else int(sub.size),
        unit=unit,
        scaling=float(scaling),
        seed=int(seed),
        uncertainty_name=u_name,
        calibration=calibration_curve(es, usub, p=P_GRID_DEFAULT),
        reliability=reliability_diagram(e, u, rd_bins, method="auto", seed=seed),
        reliability_bins=rd_note,
        isotonic=isotonic_record(isotonic_reliability(es, usub, n_sim=ISOTONIC_SIM,
                                                      n_boot=ISOTONIC_BOOT, seed=seed)),
        whole_zms=_triple(global_zms(e, us, seed=seed).iloc[0]),
        whole_zmean=_triple(global_zmean(e, us).iloc[0]),
        log_x=log_x,
        z_along=z_along,
        confidence=confidence_record(es, usub, seed=seed),
        ucc=ucc_record(es, usub),
    )
