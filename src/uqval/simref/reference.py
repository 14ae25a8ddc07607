"""Simulated reference values of a statistic with the user's own uncertainties (simref paper P002
Sect. II.D.2, App. A).

E*_i = uE_i eps_i with eps ~ D(0, 1) and the *actual* uE; theta_D,ref = mean of theta over
N_MC sets, u = sd/sqrt(N_MC), and the Monte Carlo 95 % interval I_D = type-7 quantiles
2.5/97.5 % of the simulated sample (docs/choices.md, "Sim2 intervals"). Replicates are drawn
in the fixed stream blocks of :mod:`uqval._internal.streams`, so results depend on
(seed, M, N_MC) only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from uqval._internal.checks import MAX_RESAMPLES, errors_uncertainties, integer
from uqval._internal.seeding import seed_sequence
from uqval._internal.streams import run_jobs, stream_blocks, value_generator
from uqval._internal.types import FloatArray, SeedLike
from uqval.simref.statistics import SimRefStatistic, SortedFrame, as_statistic, sorted_batch_table
from uqval.stats.synthetic import GenerativeDistribution, as_distribution

__all__ = [
    "DEFAULT_N_BINS_SENSITIVITY",
    "DEFAULT_N_MC",
    "SimulatedReference",
    "reference_from_values",
    "reference_sensitivity",
    "reference_table",
    "sensitivity_statistics",
    "simulated_error_samples",
    "simulated_reference",
    "simulated_references",
]

DistSpec = GenerativeDistribution | Literal["normal"] | tuple[Literal["t"], float]


DEFAULT_N_MC = 10_000  # Sect. III.C, Figs 4-7


DEFAULT_N_BINS_SENSITIVITY = 50  # Figs 4-5




def _distribution_label(dist: GenerativeDistribution) -> str:
    if dist.name == "normal" or dist.nu is None or math.isinf(dist.nu):
        return "N(0,1)"
    return f"t_s({dist.nu:g})"


@dataclass(frozen=True)
class SimulatedReference:
    """Monte Carlo reference of a statistic for one generative distribution D.

    Attributes:
        statistic: label of the statistic; distribution: label of D.
        n_mc: number N_MC of synthetic sets.
        mean: theta_D,ref = mean of the simulated values.
        sd: their standard deviation (ddof = 1); u: u(theta_D,ref) = sd/sqrt(N_MC).
        ci_low, ci_high: I_D, type-7 2.5 % and 97.5 % quantiles of the simulated values
            (for the default level 0.95; docs/choices.md, "Sim2 intervals").
        values: the N_MC simulated values.

    Examples:
        The simulated reference of ZMS recovers its known value 1:

        >>> import numpy as np
        >>> from uqval import simulated_reference
        >>> u = np.random.default_rng(0).uniform(0.5, 2.0, 1000)
        >>> ref = simulated_reference(u, "ZMS", "normal", n_mc=500, seed=0)
        >>> ref.n_mc, ref.values.shape, round(ref.mean, 3), round(ref.u, 4)
        (500, (500,), 1.001, 0.002)
        >>> round(ref.ci_low, 3), round(ref.ci_high, 3)
        (0.922, 1.086)
    """

    statistic: str
    distribution: str
    n_mc: int
    mean: float
    sd: float
    u: float
    ci_low: float
    ci_high: float
    values: FloatArray = field(repr=False, compare=False)


def simulated_references(
    uncertainties: ArrayLike,
    statistics: Sequence[SimRefStatistic | str],
    distribution: DistSpec,
    n_mc: int = DEFAULT_N_MC,
    seed: SeedLike = None,
    chunk: int | None = None,
    *,
    confidence: float = 0.95,
    n_workers: int = 1,
) -> list[SimulatedReference]:
    """Simulated references of several statistics from the same N_MC synthetic sets.

    E*_i = uE_i eps_i, eps ~ D(0, 1) (P002 Eq. A2, App. A; §3.14). Streams: fixed blocks of
    ``max(1, 2**20 // M)`` sets, block j drawn from child j of ``SeedSequence(seed)``, so the
    values depend only on (seed, M, N_MC) and not on ``chunk`` (max sets per evaluation,
    memory knob), nor on ``n_workers`` (threads, one stream block each at a time), nor on
    which statistics are requested together.

    Returns:
        One :class:`SimulatedReference` per statistic, in order.
    """
    ue = errors_uncertainties(np.zeros_like(uncertainties, dtype=float), uncertainties)[1]
    stats_ = [as_statistic(s) for s in statistics]
    if not stats_:
        raise ValueError("statistics must not be empty")
    n_mc = integer(n_mc, "n_mc", minimum=2, maximum=MAX_RESAMPLES)
    if chunk is not None:
        chunk = integer(chunk, "chunk", minimum=1)
    dist = as_distribution(distribution)
    n_workers = integer(n_workers, "n_workers", minimum=1)
    frame = SortedFrame(ue)
    frame.prepare(stats_)
    values = np.empty((len(stats_), n_mc))
    blocks = stream_blocks(seed, n_mc, frame.m)

    def work(job: tuple[int, np.random.SeedSequence]) -> None:
        block = blocks[job[0]]
        e_s = frame.u * dist.draw(block.values(), (block.size, frame.m))
        step = block.size if chunk is None else chunk
        for lo in range(0, block.size, step):
            sub = e_s[lo : lo + step]
            at = slice(block.start + lo, block.start + lo + sub.shape[0])
            values[:, at] = sorted_batch_table(stats_, sub, frame)

    run_jobs(work, [(j, b.seed) for j, b in enumerate(blocks)], n_workers)
    return [reference_from_values(stat, dist, v, confidence=confidence)
            for stat, v in zip(stats_, values, strict=True)]


def reference_from_values(
    statistic: SimRefStatistic | str,
    distribution: DistSpec,
    values: ArrayLike,
    *,
    confidence: float = 0.95,
) -> SimulatedReference:
    """The :class:`SimulatedReference` of N_MC simulated values of a statistic: mean, sd
    (ddof = 1), u = sd/sqrt(N_MC) and the type-7 quantiles (1 - confidence)/2 and
    (1 + confidence)/2 (P002 Sect. II.D.2). :func:`simulated_references` summarises its
    values with it; a pipeline job that stored the values gets the same reference back.

    >>> ref = reference_from_values("ZMS", "normal", [0.9, 1.0, 1.1, 1.2])
    >>> ref.statistic, ref.distribution, round(ref.mean, 3), round(ref.ci_high, 4)
    ('ZMS', 'N(0,1)', 1.05, 1.1925)
    """
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 1 or v.size < 2:
        raise ValueError(f"values must be a 1-D array of at least 2 simulated values, got shape {v.shape}")
    n_mc = v.size
    alpha = 1.0 - confidence
    sd = float(np.std(v, ddof=1))
    lo, hi = np.quantile(v, [alpha / 2.0, 1.0 - alpha / 2.0], method="linear")
    return SimulatedReference(
        statistic=as_statistic(statistic).label,
        distribution=_distribution_label(as_distribution(distribution)),
        n_mc=n_mc,
        mean=float(v.mean()),
        sd=sd,
        u=sd / math.sqrt(n_mc),
        ci_low=float(lo),
        ci_high=float(hi),
        values=v,
    )


def simulated_reference(
    uncertainties: ArrayLike,
    statistic: SimRefStatistic | str,
    distribution: DistSpec,
    n_mc: int = DEFAULT_N_MC,
    seed: SeedLike = None,
    chunk: int | None = None,
    *,
    confidence: float = 0.95,
    n_workers: int = 1,
) -> SimulatedReference:
    """theta_D,ref, u(theta_D,ref) = sd/sqrt(N_MC) and I_D of one statistic (P002 Sect. II.D.2).

    See :func:`simulated_references` (same values with the same seed).

    Examples:
        ENCE has no known reference: its value for calibrated errors with these uE, 20 bins,
        depends on the generative distribution D:

        >>> import numpy as np
        >>> from uqval import simulated_reference
        >>> u = np.random.default_rng(0).uniform(0.5, 2.0, 1000)
        >>> ref = simulated_reference(u, "ENCE20", "normal", n_mc=500, seed=0)
        >>> ref.statistic, ref.distribution, round(ref.mean, 3)
        ('ENCE(N=20)', 'N(0,1)', 0.081)
        >>> ref = simulated_reference(u, "ENCE20", ("t", 6), n_mc=500, seed=0)
        >>> ref.distribution, round(ref.mean, 3)
        ('t_s(6)', 0.115)
    """
    return simulated_references(
        uncertainties, [statistic], distribution, n_mc, seed, chunk, confidence=confidence,
        n_workers=n_workers,
    )[0]


def reference_sensitivity(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    distribution: DistSpec,
    n_mc: int = DEFAULT_N_MC,
    seed: SeedLike = None,
    *,
    n_bins: int = DEFAULT_N_BINS_SENSITIVITY,
    chunk: int | None = None,
    n_workers: int = 1,
) -> pd.DataFrame:
    """Simulated references of ZMS, CC, ENCE and ZMSE (N bins) from the same synthetic sets,
    with the estimates on the data (P002 Figs 4-5: N_MC = 10^4, N = 50).

    Returns:
        :func:`reference_table` of the four statistics.
    """
    e, ue = errors_uncertainties(errors, uncertainties)
    stats_ = sensitivity_statistics(n_bins)
    refs = simulated_references(ue, stats_, distribution, n_mc, seed, chunk,
                                n_workers=n_workers)
    return reference_table(e, ue, stats_, refs)


def sensitivity_statistics(n_bins: int = DEFAULT_N_BINS_SENSITIVITY) -> list[SimRefStatistic]:
    """ZMS, CC, ENCE(n_bins), ZMSE(n_bins): the statistics of P002 Figs 4-5."""
    return [SimRefStatistic("ZMS"), SimRefStatistic("CC"), SimRefStatistic("ENCE", n_bins),
            SimRefStatistic("ZMSE", n_bins)]


def reference_table(
    errors: ArrayLike,
    uncertainties: ArrayLike,
    statistics: Sequence[SimRefStatistic | str],
    references: Sequence[SimulatedReference],
) -> pd.DataFrame:
    """The estimate of each statistic on the data beside its simulated reference.

    ``references[k]`` is the reference of ``statistics[k]`` (e.g. several of the statistics
    of one :func:`simulated_references` call: a page simulates each distribution once for
    all its statistics and bin counts).

    Returns:
        One row per statistic: statistic (name), n_bins, distribution, nu (inf for the
        normal), M, estimate, ref_mean, ref_u, ref_sd, I_low, I_high, n_mc.

    Examples:
        >>> import numpy as np
        >>> from uqval.simref import reference_table, simulated_references
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 1000)
        >>> e = u * rng.standard_normal(1000)
        >>> refs = simulated_references(u, ["ZMS", "ENCE20"], ("t", 6), n_mc=200, seed=1)
        >>> table = reference_table(e, u, ["ZMS", "ENCE20"], refs)
        >>> table["statistic"].tolist(), table["distribution"].tolist(), table["nu"].tolist()
        (['ZMS', 'ENCE'], ['t_s(6)', 't_s(6)'], [6.0, 6.0])
        >>> bool((table["I_low"] < table["ref_mean"]).all()), table["n_mc"].tolist()
        (True, [200, 200])
    """
    e, ue = errors_uncertainties(errors, uncertainties)
    stats_ = [as_statistic(s) for s in statistics]
    if len(stats_) != len(references):
        raise ValueError(f"{len(stats_)} statistics but {len(references)} references")
    rows = []
    for st, ref in zip(stats_, references, strict=True):
        if ref.statistic != st.label:
            raise ValueError(f"reference of {ref.statistic} given for {st.label}")
        rows.append({
            "statistic": st.name,
            "n_bins": st.n_bins,
            "distribution": ref.distribution,
            "nu": _distribution_nu(ref.distribution),
            "M": e.size,
            "estimate": st.value(e, ue),
            "ref_mean": ref.mean,
            "ref_u": ref.u,
            "ref_sd": ref.sd,
            "I_low": ref.ci_low,
            "I_high": ref.ci_high,
            "n_mc": ref.n_mc,
        })
    return pd.DataFrame.from_records(rows)


def _distribution_nu(label: str) -> float:
    """nu of a distribution label of :func:`_distribution_label` (inf for the normal)."""
    return math.inf if label == "N(0,1)" else float(label[len("t_s(") : -1])


def simulated_error_samples(
    uncertainties: ArrayLike, distribution: DistSpec, n_rep: int = 100, seed: SeedLike = None
) -> FloatArray:
    """Pooled errors of ``n_rep`` synthetic sets E* = uE eps, eps ~ D (P002 Fig. 3 [code]: 100).

    Returns shape (n_rep * M,), in the original order of ``uncertainties`` (uE) within each
    replicate.
    """
    ue = np.asarray(uncertainties, dtype=np.float64)
    rng = value_generator(seed_sequence(seed))
    return (ue * as_distribution(distribution).draw(rng, (n_rep, ue.size))).ravel()

