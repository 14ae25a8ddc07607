"""Numbers of all rows of a test set read in parts, for the validation engine (records only).

When a test set is read in parts (:mod:`uqval.validation.parts`), the engine runs on a seeded
uniform subsample of the rows, and :class:`AllRows` carries what sums over *all* rows give
exactly (docs/choices.md, "Ten million predictions and beyond"):

* the average stage: M, <Z> = sum Z / M with its Student-t interval and test (sd from
  sum Z^2), ZMS = sum Z^2 / M, the scale factor sqrt(ZMS) with a BCa interval from the Poisson
  bootstrap replicates sqrt(sum w Z^2 / sum w) (Efron 1987; acceleration a = sum U^3 /
  (6 (sum U^2)^(3/2)) with U = Z^2 - ZMS per row, the jackknife acceleration of a mean,
  or U_g = sum_g Z^2 - ZMS n_g per group), and the shares of sum Z^2 carried by the
  ceil(0.1 % M) and ceil(1 % M) largest Z^2;
* the per-bin tables of the conditional stages (P003 Eq. 5-6) at the subsample's bin edges:
  n_b, <Z^2>_b with the Student-t interval of a mean of Z^2 (sd from sum Z^4), <Z>_b with its
  Student-t interval, after the engine's scaling of uE (the scaled values are the unscaled
  ones divided by s^2 and s);
* with groups: G, and the cluster-robust standard error of <Z>, sqrt(sum_g (sum_g Z -
  <Z> n_g)^2) / M with a t(G - 1) reference (as the in-memory engine's).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import special

from uqval._internal.types import FloatArray
from uqval.calibration.robust_scale import TailShares
from uqval.stats.bca import bca_limits
from uqval.stats.bootstrap import BootstrapResult
from uqval.stats.intervals import t_interval
from uqval.stats.part_sums import BinSums

__all__ = ["AllRows", "MeanZ", "bin_table_from_sums"]


@dataclass(frozen=True)
class MeanZ:
    """<Z> with its standard error, the degrees of freedom of its t reference and a note."""

    value: float
    se: float
    dof: int
    note: str

    def interval(self, confidence: float = 0.95) -> tuple[float, float]:
        half = float(special.stdtrit(self.dof, 0.5 * (1.0 + confidence))) * self.se
        return self.value - half, self.value + half


@dataclass(frozen=True)
class AllRows:
    """Sums over all rows of a test set read in parts (module docstring).

    Attributes:
        m: rows; n_parts: parts; subsample: rows the engine's tests and figures use.
        sum_z, sum_z2: exact sums of Z and Z^2.
        boot: (n_boot, 2) Poisson-bootstrap sums (sum w, sum w Z^2).
        acceleration: BCa acceleration of the scale factor (module docstring).
        tails: shares of sum Z^2 of the largest rows.
        bins: per binning variable (the engine's name) its :class:`BinSums`.
        mean_z_se: cluster-robust se of <Z> with groups (None without).
        n_groups: groups (None without).
        parts_note: how the parts were read, for the report's parameters.
    """

    m: int
    n_parts: int
    subsample: int
    sum_z: float
    sum_z2: float
    boot: FloatArray = field(repr=False)
    acceleration: float
    tails: TailShares
    bins: Mapping[str, BinSums] = field(repr=False)
    mean_z_se: float | None = None
    n_groups: int | None = None

    @property
    def zms(self) -> float:
        """ZMS = sum Z^2 / M (P002 Eq. 14)."""
        return self.sum_z2 / self.m

    def scale_bootstrap(self, confidence: float = 0.95) -> BootstrapResult:
        """The scale factor sqrt(ZMS) with its Poisson-bootstrap BCa interval."""
        t0 = math.sqrt(self.zms)
        with np.errstate(invalid="ignore", divide="ignore"):
            reps = np.sqrt(self.boot[:, 1] / self.boot[:, 0])
        reps = reps[np.isfinite(reps)]
        lim = bca_limits(np.array([t0]), reps[None, :], np.array([self.acceleration]),
                         confidence)
        return BootstrapResult(
            estimate=t0, bias=float(lim.bias[0]), se=float(lim.se[0]),
            ci_low=float(lim.ci_low[0]), ci_high=float(lim.ci_high[0]), n_boot=reps.size,
            confidence=confidence, z0=float(lim.z0[0]), acceleration=float(lim.acceleration[0]),
            replicates=reps)

    def mean_z(self) -> MeanZ:
        """<Z> with its se: Student t with M - 1 degrees of freedom, or cluster-robust with
        G - 1 (groups)."""
        mean = self.sum_z / self.m
        if self.mean_z_se is not None and self.n_groups is not None:
            return MeanZ(mean, self.mean_z_se, self.n_groups - 1,
                         f"cluster-robust t interval and test ({self.n_groups} groups, "
                         f"{self.n_groups - 1} degrees of freedom), all {self.m} rows")
        var = max(self.sum_z2 - self.sum_z * mean, 0.0) / (self.m - 1)
        return MeanZ(mean, math.sqrt(var / self.m), self.m - 1,
                     f"Student t interval and test, all {self.m} rows")


def bin_table_from_sums(sums: BinSums, scale: float) -> pd.DataFrame:
    """The engine's per-bin table (columns of ``bin_tables.bin_table``) from per-bin sums, for
    uncertainties multiplied by ``scale``: <Z^2>_b = sum Z^2 / (n s^2) with the Student-t
    interval of a mean of Z^2 (its sd from sum Z^4), <Z>_b = sum Z / (n s) with its Student-t
    interval; empty bins are dropped."""
    keep = sums.counts > 0
    n = sums.counts[keep].astype(np.float64)
    s1, s2, s4 = (v[keep] for v in sums.moments())
    mean2 = s2 / n
    with np.errstate(invalid="ignore", divide="ignore"):
        sd2 = np.sqrt(np.maximum(s4 - s2 * mean2, 0.0) / (n - 1.0))
        mean1 = s1 / n
        sd1 = np.sqrt(np.maximum(s2 - s1 * mean1, 0.0) / (n - 1.0))
    zms = t_interval(mean2 / scale**2, sd2 / scale**2, n, 0.95)
    zm = t_interval(mean1 / scale, sd1 / scale, n, 0.95)
    low, high = np.asarray(zms.ci_low), np.asarray(zms.ci_high)
    value = np.asarray(zms.value)
    return pd.DataFrame({
        "low": sums.low[keep], "high": sums.high[keep], "n": sums.counts[keep],
        "value": value, "ci_low": low, "ci_high": high, "valid": (low <= 1.0) & (1.0 <= high),
        "factor": np.sqrt(value), "factor_low": np.sqrt(low), "factor_high": np.sqrt(high),
        "mean_z": np.asarray(zm.value), "mean_z_low": np.asarray(zm.ci_low),
        "mean_z_high": np.asarray(zm.ci_high),
        "mean_z_valid": (np.asarray(zm.ci_low) <= 0.0) & (0.0 <= np.asarray(zm.ci_high)),
    })
