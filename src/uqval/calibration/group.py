"""Adversarial group calibration (Zhao, Ma and Ermon 2020, "Individual calibration with
randomized forecasting", ICML; as implemented in uncertainty-toolbox
``metrics_calibration.adversarial_group_calibration``).

For each group fraction r in ``linspace(0, 1, n_group_sizes)`` the group size is
g = max(round(M r), 2). In each of ``n_trials`` trials, ``n_draws`` random groups of g points
are drawn (without replacement by default) and the calibration error of each group is
measured (MACE or RMSCE of the central-interval calibration curve,
:mod:`uqval.scores.curves`); the trial keeps the worst (largest) one. The curve reports the
mean of the worst errors over the trials and their standard error (toolbox: sd with ddof=1,
named "stderr"). Small groups have large errors by chance alone, so the curve is only
readable against a reference: here the same procedure is run on ``n_ref`` calibrated sets
E* = uE·ε (ε ~ D, the user's own uE), giving the reference mean and 95 % band of the worst
error at each group size (an addition to the toolbox).

Randomness: child 0 of ``SeedSequence(seed).spawn(1 + n_ref)`` draws the groups of the data,
child k the k-th reference set and its groups.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from uqval._internal.checks import errors_uncertainties
from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import value_generator
from uqval._internal.types import FloatArray, SeedLike
from uqval.calibration.curves import N_PROPORTIONS, observed_proportions
from uqval.stats.synthetic import DistributionName, GenerativeDistribution, predictive

__all__ = ["GroupCalibration", "adversarial_group_calibration"]

Kind = Literal["mace", "rmsce"]
_CHUNK_ELEMENTS = 1 << 20


@dataclass(frozen=True)
class GroupCalibration:
    """Worst-group calibration error against group size.

    Attributes:
        fraction: group fractions r (0..1).
        size: group sizes g = max(round(M r), 2).
        worst_mean: mean over trials of the worst group error.
        worst_se: sd over trials (ddof=1) of the worst group error (toolbox "score_stderr").
        ref_mean, ref_low, ref_high: mean and 95 % band of ``worst_mean`` over calibrated
            sets simulated with the same uE (NaN when n_ref = 0).
        kind: "mace" or "rmsce".

    Examples:
        >>> import numpy as np
        >>> from uqval import adversarial_group_calibration
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> g = adversarial_group_calibration(
        ...     e, u, kind="rmsce", n_group_sizes=3, n_trials=5, n_draws=5, n_ref=0
        ... )
        >>> g.kind, g.size.tolist(), bool(np.isnan(g.ref_mean).all())  # n_ref=0: no reference
        ('rmsce', [2, 500, 1000], True)
        >>> g.to_frame().columns.tolist()
        ['fraction', 'size', 'worst_mean', 'worst_se', 'ref_mean', 'ref_low', 'ref_high']
    """

    fraction: FloatArray
    size: np.ndarray
    worst_mean: FloatArray
    worst_se: FloatArray
    ref_mean: FloatArray
    ref_low: FloatArray
    ref_high: FloatArray
    kind: str

    def to_frame(self) -> pd.DataFrame:
        """One row per group size."""
        return pd.DataFrame(
            {k: getattr(self, k) for k in ("fraction", "size", "worst_mean", "worst_se",
                                            "ref_mean", "ref_low", "ref_high")}
        )


def _errors_of_groups(
    e: FloatArray, u: FloatArray, idx: np.ndarray, D: GenerativeDistribution, kind: Kind
) -> FloatArray:
    expected = np.linspace(0.0, 1.0, N_PROPORTIONS)
    out = np.empty(idx.shape[0])
    rows = max(1, _CHUNK_ELEMENTS // idx.shape[1])
    for lo in range(0, idx.shape[0], rows):
        sub = idx[lo : lo + rows]
        diff = observed_proportions(e[sub], u[sub], D, expected) - expected
        out[lo : lo + rows] = (
            np.mean(np.abs(diff), axis=-1) if kind == "mace" else np.sqrt(np.mean(diff**2, -1))
        )
    return out


def _worst_curve(
    e: FloatArray,
    u: FloatArray,
    sizes: np.ndarray,
    D: GenerativeDistribution,
    kind: Kind,
    n_trials: int,
    n_draws: int,
    replace: bool,
    rng: np.random.Generator,
) -> tuple[FloatArray, FloatArray]:
    m = e.size
    mean, se = np.empty(sizes.size), np.empty(sizes.size)
    for j, g in enumerate(sizes):
        n = n_trials * n_draws
        if replace:
            idx = rng.integers(0, m, size=(n, g))
        else:
            idx = rng.permuted(np.tile(np.arange(m), (n, 1)), axis=1)[:, :g]
        worst = _errors_of_groups(e, u, idx, D, kind).reshape(n_trials, n_draws).max(axis=1)
        mean[j] = worst.mean()
        se[j] = worst.std(ddof=1) if n_trials > 1 else np.nan
    return mean, se


def adversarial_group_calibration(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    *,
    kind: Kind = "mace",
    n_group_sizes: int = 10,
    n_trials: int = 10,
    n_draws: int = 10,
    replace: bool = False,
    n_ref: int = 10,
    distribution: DistributionName = "normal",
    nu: float | None = None,
    seed: SeedLike = 0,
) -> GroupCalibration:
    """Worst-group calibration error against group size, with a calibrated reference.

    Defaults as uncertainty-toolbox (10 group sizes, 10 trials of 10 draws, 100 expected
    proportions, without replacement); see the module doc.

    Examples:
        Uncertainties half too small: beyond the smallest groups, the worst group error stays
        far above the band of calibrated sets simulated with the same uE:

        >>> import numpy as np
        >>> from uqval import adversarial_group_calibration
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> g = adversarial_group_calibration(
        ...     e, u / 2, n_group_sizes=5, n_trials=5, n_draws=5, n_ref=5, seed=0
        ... )
        >>> g.size.tolist()
        [2, 250, 500, 750, 1000]
        >>> g.worst_mean.round(2), g.ref_high.round(2)
        (array([0.4 , 0.23, 0.22, 0.22, 0.22]), array([0.38, 0.04, 0.03, 0.02, 0.02]))
    """
    e, u = errors_uncertainties(errors, uncertainties, min_size=2)
    if kind not in ("mace", "rmsce"):
        raise ValueError(f"kind must be 'mace' or 'rmsce', got {kind!r}")
    for name, value, least in (("n_group_sizes", n_group_sizes, 2), ("n_trials", n_trials, 1),
                               ("n_draws", n_draws, 1), ("n_ref", n_ref, 0)):
        if int(value) != value or value < least:
            raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")
    D = predictive(distribution, nu)
    fraction = np.linspace(0.0, 1.0, int(n_group_sizes))
    sizes = np.maximum(np.rint(e.size * fraction).astype(int), 2)
    children = seed_sequence(seed).spawn(1 + int(n_ref))
    args = (sizes, D, kind, int(n_trials), int(n_draws), replace)
    mean, se = _worst_curve(e, u, *args, value_generator(children[0]))
    refs = []
    for child in children[1:]:
        rng = value_generator(child)
        refs.append(_worst_curve(u * D.draw(rng, u.size), u, *args, rng)[0])
    if refs:
        ref = np.array(refs)
        ref_mean = ref.mean(axis=0)
        ref_low, ref_high = np.quantile(ref, [0.025, 0.975], axis=0)
    else:
        ref_mean = ref_low = ref_high = np.full(sizes.size, np.nan)
    return GroupCalibration(
        fraction=fraction,
        size=sizes,
        worst_mean=mean,
        worst_se=se,
        ref_mean=ref_mean,
        ref_low=ref_low,
        ref_high=ref_high,
        kind=kind,
    )
