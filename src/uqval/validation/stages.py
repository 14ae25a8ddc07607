"""The stages of :func:`uqval.validate`, each a function of the cleaned inputs returning a record.

The inputs are checked once, at the entrance (:func:`uqval.validation.inputs.clean_inputs`);
the stages run the statistics on those arrays and return numbers: verdict rows (one per
test: statistic, value, interval, p-value, Holm-adjusted p-value and its pass/fail at level
alpha), per-bin tables, the scale factor, the joint test, the UCC gain. Labels, effects and
actions are made of them by :mod:`uqval.validation.judgement`.

1. :func:`average_stage`: ZMS with the BCa interval of sqrt(ZMS) (P001 Sect. II.3) and <Z>
   (P003 Eqs. 2-3), the heavy-tail screening (P001 Table 2), the tail shares and the robust
   factor; the global factor the conditional stages use (``reference``).
2. :func:`conditional_stage`: consistency (bins of uE) and adaptivity (bins of each feature),
   P003 Sect. III.B: per-bin tables, permutation tests of the between-bin spread and the
   bin-free cumulative and isotonic tests (:mod:`uqval.validation.binfree`).
3. :func:`joint_stage`: all features together (:mod:`uqval.validation.joint_stage`).
4. :func:`ranking_stage`: the UCC gain over a constant band (P004).
5. :func:`paper_stage`: the adaptivity paper's flowchart (``rule="paper"``, P003 Fig. 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from uqval._internal.seeding import seed_sequence
from uqval.binning import Bins
from uqval.calibration.joint import N_SPLITS, JointCalibration, Kind, joint_calibration
from uqval.calibration.robust_scale import (
    RobustScale,
    TailShares,
    dominant_rows_unchecked,
    robust_scale_factor_unchecked,
    z2_tail_shares_unchecked,
)
from uqval.calibration.screening import Screening, screen_unchecked
from uqval.stats.binomial import wilson_interval
from uqval.stats.bootstrap import BootstrapResult, MeanStatistic, bca_bootstrap
from uqval.stats.groups import (
    GroupIndex,
    cluster_mean_se,
    cluster_t_bootstrap,
    icc_oneway,
)
from uqval.stats.intervals import mean_t_interval
from uqval.stats.zeta import zeta_score
from uqval.validation import bin_tables, flowchart, refinement, rules
from uqval.validation import binfree as binfree_module
from uqval.validation.advice import is_dominated
from uqval.validation.all_rows import AllRows, MeanZ, bin_table_from_sums
from uqval.validation.degenerate import NOT_TESTABLE
from uqval.validation.joint_stage import JOINT_BIAS, JOINT_SPREAD, joint_rows
from uqval.validation.permutation import (
    HeterogeneityTest,
    grouped_heterogeneity_tests,
    heterogeneity_tests,
)
from uqval.validation.result import ScaleFactor
from uqval.validation.ucc_gain import UCCGain, ucc_gain

__all__ = [
    "HETEROGENEITY_EXCEEDANCES",
    "JOINT_MIN_ROWS",
    "JOINT_PERMUTATIONS",
    "JOINT_ROWS",
    "LARGE_ROWS",
    "SEQUENTIAL_ROWS",
    "SQRT_ZMS",
    "VERDICT_COLUMNS",
    "AverageStage",
    "ConditionalStage",
    "Seeds",
    "average_stage",
    "conditional_stage",
    "joint_stage",
    "paper_stage",
    "ranking_stage",
]

Say = Callable[[str], None]


JOINT_MIN_ROWS = 200
"""Fewest rows for the joint stage (each half fits a learner)."""
JOINT_ROWS = 200_000
"""Most rows of the joint test: above, its halves split a seeded subsample of this many rows.
Each of its 40 learners (10 splits x 2 halves x Z² and Z) is fitted on one half and predicts
the other, whose permutations then run against those predictions; at 10^6 rows the fits and
predictions alone cost about 100 CPU-s (predicting 30 trees costs about 50 ns per row and
tree, in scikit-learn as in a compiled loop). Effects beyond the ±10 % tolerance on 2 % of
the rows are found at this size (benchmarks/large_validate.md)."""
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



SEQUENTIAL_ROWS = 100_000
"""Above this many rows every permutation test of the conditional and joint stages (binned,
cumulative, isotonic MCB, the joint test's halves) follows the sequential rule: it stops at
its h = HETEROGENEITY_EXCEEDANCES-th exceedance on the first permutations of the fixed rule
(Besag & Clifford 1991; the statistics and the rows are unchanged, docs/choices.md). Up to
it every seeded number is that of the fixed rule."""
LARGE_ROWS = 1_000_000
"""Above this many rows, besides the sequential rule of SEQUENTIAL_ROWS, per-bin intervals of
<Z^2> are Student t and the bin-free and joint tests run on a seeded subsample
(binfree.BINFREE_ROWS) (docs/choices.md)."""
HETEROGENEITY_EXCEEDANCES = 20
"""Exceedances h of the sequential permutation tests of the conditional stages (large sets)."""


def _row(stage: str, feature: str, scaled: bool, statistic: str, value: float,
         ci: tuple[float, float], target: float, p: float, note: str = "") -> dict:
    return {"stage": stage, "feature": feature, "scaled": scaled, "verdict": "", "effect": "",
            "statistic": statistic, "value": value, "ci_low": ci[0], "ci_high": ci[1],
            "target": target, "p_value": p, "p_adjusted": np.nan, "note": note}


def _fv_note(table: pd.DataFrame, zms: float, scaled: bool) -> str:
    """f_v of the LZMS intervals, with the scaled or unscaled uncertainties (indicative);
    ``zms`` is the square of the factor the bins were scaled by."""
    factor = 1.0 if scaled else zms  # BCa intervals of <Z^2> scale exactly with uE^-2
    valid = (table["ci_low"] * factor <= 1.0) & (1.0 <= table["ci_high"] * factor)
    k, n = int(valid.sum()), len(table)
    lo, hi = wilson_interval(k, n)
    return f"f_v = {k / n:.2f} [{lo:.2f}, {hi:.2f}] of {n} bins (indicative)"


@dataclass(frozen=True)
class _SqrtInterval:
    """sqrt(ZMS) with its interval and the p-value of ZMS = 1 from the studentized cluster
    bootstrap (rows in groups), in the fields the average rows read."""

    estimate: float
    ci_low: float
    ci_high: float
    p_value: float


def mean_z_record(e: NDArray[np.float64], u: NDArray[np.float64],
                  groups: GroupIndex | None = None) -> MeanZ:
    """<Z> with its se and t reference: Student t with M - 1 degrees of freedom, or the
    cluster-robust se with G - 1 (rows in groups)."""
    z = e / u
    if groups is None:
        ci = mean_t_interval(z)
        return MeanZ(float(ci.value), float(ci.sd), z.size - 1, "Student t interval and test")
    mean_z, se = cluster_mean_se(z, groups)
    return MeanZ(mean_z, se, groups.n_groups - 1,
                 f"cluster-robust t interval and test ({groups.n_groups} groups, "
                 f"{groups.n_groups - 1} degrees of freedom)")


def _average_rows(
    mean: MeanZ, boot, scr: Screening, alpha: float, interval_note: str,
) -> tuple[list[dict], float, float]:
    zms_p = boot.p_value if isinstance(boot, _SqrtInterval) else rules.bca_p_value(boot, 1.0)
    mean_z = mean.value
    z_p = rules.t_test_p_value(mean_z, mean.se, mean.dof + 1)
    z_ci, z_note = mean.interval(), mean.note
    adjusted = rules.holm([zms_p, z_p])
    note = "" if scr.zms_reliable else "; ".join(r for r in scr.reasons if "ZMS" in r)
    zms_row = _row("average", "", False, "ZMS", boot.estimate**2,
                   (boot.ci_low**2, boot.ci_high**2), 1.0, zms_p,
                   note + ("; " if note else "") + interval_note)
    downward_limit = rules.downward_tail_limit(scr.M)
    downward_trusted = scr.beta_Z2 <= downward_limit
    if scr.zms_reliable and (downward_trusted or boot.ci_high >= 1.0):
        zms_row["verdict"] = rules.verdict(adjusted[0], alpha, False)
    else:
        zeta = float(zeta_score(boot.estimate, 1.0, boot.ci_low, boot.ci_high))
        gross = abs(zeta) > rules.HEAVY_TAIL_ZETA
        # the mean of a right-skewed Z^2 is underestimated far more often than overestimated:
        # an interval wholly above 1 stands, one wholly below needs |zeta| > 3 (rules)
        upward = boot.ci_low > 1.0 and adjusted[0] <= alpha
        zms_row["verdict"] = "fail" if gross or upward else "inconclusive"
        why = ("heavy tails" if not scr.zms_reliable else
               f"beta_GM(Z^2) = {scr.beta_Z2:.2f} > {downward_limit:.2f}, a tail "
               "the sample may have missed")
        zms_row["note"] += (f"; {why}: an interval wholly above 1 fails, one below 1 "
                            f"only if |zeta| > {rules.HEAVY_TAIL_ZETA:g} (zeta = {zeta:.2f})")
    z_row = _row("average", "", False, "<Z>", mean_z, z_ci, 0.0, z_p, z_note)
    z_row["verdict"] = rules.verdict(adjusted[1], alpha, False)
    zms_row["p_adjusted"], z_row["p_adjusted"] = adjusted
    return [zms_row, z_row], zms_p, z_p


def _conditional_rows(
    variables: Sequence[tuple[str, str, Bins]], tests: Sequence[tuple[HeterogeneityTest, ...]],
    tables: Mapping[str, pd.DataFrame], zms: float, p_average: tuple[float, float], alpha: float,
    binfree: tuple[list[tuple[float, float, float, float]], tuple[float, float, int, int]],
    n_permutations: int, procedures: Mapping[str, str] | None = None,
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
        if stage == "consistency" and n_mcb > 0:
            add(stage, name, binfree_module.ISOTONIC_MCB, mcb, mcb_p, p_average[0],
                "no bins: QLIKE miscalibration of the PAV fit of E^2 on uE^2 beyond one "
                f"global factor, {n_mcb} permutations of Z against uE"
                f"{binfree_module.rows_note(b.counts.sum(), used_rows)}", False, 0.0)
    if procedures:  # rows in groups: say how the permutations respected them
        for r in rows:
            r["note"] += f"; groups: {procedures[r['feature']]}"
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


@dataclass(frozen=True)
class Seeds:
    """The seven independent streams of a validation, children of ``SeedSequence(seed)`` in
    this order (the order fixes every seeded number of a run)."""

    boot: np.random.SeedSequence
    permutations: np.random.SeedSequence
    bins: np.random.SeedSequence
    ucc: np.random.SeedSequence
    robust: np.random.SeedSequence
    binfree: np.random.SeedSequence
    joint: np.random.SeedSequence

    @classmethod
    def of(cls, seed: int) -> Seeds:
        return cls(*seed_sequence(seed).spawn(7))


@dataclass(frozen=True)
class AverageStage:
    """Record of :func:`average_stage`: the verdict rows (ZMS, <Z>) with their raw p-values,
    the scale factor, the screening, the tail shares, the robust factor, whether a few rows
    decide sqrt(ZMS) and the global factor the conditional stages use (``reference``: the
    robust factor when a few rows decide, else sqrt(ZMS))."""

    rows: list[dict]
    p_values: tuple[float, float]
    scale: ScaleFactor
    screening: Screening
    tails: TailShares
    robust: RobustScale
    dominated: bool
    reference: float


def average_stage(e: NDArray[np.float64], u: NDArray[np.float64], e_unit: NDArray[np.float64],
                  u_unit: NDArray[np.float64], *, n_boot: int, alpha: float, seeds: Seeds,
                  n_workers: int, say: Say, groups: GroupIndex | None = None,
                  all_rows: AllRows | None = None) -> AverageStage:
    """Average calibration (module docstring, 1); ``e_unit``, ``u_unit``: the same arrays in a
    common unit, for the statistics that square E or uE. With ``groups`` (rows in groups of
    dependent errors) the interval of sqrt(ZMS) and the ZMS test come from the studentized
    bootstrap of half samples of the groups (:func:`uqval.stats.groups.cluster_t_bootstrap`, never
    narrower than the cluster-robust t(G - 1) interval), the robust factor from blocks of
    whole groups, and <Z> has a cluster-robust t test. With ``all_rows`` (a set read in
    parts, the arrays being its subsample) ZMS, <Z>, the scale factor's interval and the tail
    shares are those of all rows (:class:`uqval.validation.all_rows.AllRows`); the screening
    and the robust factor use the subsample. Up to SEQUENTIAL_ROWS rows, a ZMS test within the
    Monte Carlo noise of the level is run again with ten times the replicates
    (:mod:`uqval.validation.refinement`)."""
    scr = screen_unchecked(e_unit, u_unit)
    boot: BootstrapResult | _SqrtInterval
    if all_rows is not None:
        boot = all_rows.scale_bootstrap()
        mean = all_rows.mean_z()
        tails = all_rows.tails
        interval_note = (f"interval: square of the BCa interval of sqrt(ZMS) from "
                         f"{boot.n_boot} Poisson-bootstrap replicates of all {all_rows.m} rows"
                         + ("" if all_rows.n_groups is None else
                            f" (one weight per group, {all_rows.n_groups} groups)"))
    else:
        boot, interval_note = _scale_bootstrap(e, u, n_boot, seeds.boot, n_workers, say,
                                               groups)
        mean = mean_z_record(e, u, groups)
        tails = z2_tail_shares_unchecked(e, u)
    rows, zms_p, z_p = _average_rows(mean, boot, scr, alpha, interval_note)
    used = n_boot if all_rows is None else int(all_rows.boot.shape[0])
    if all_rows is None and e.size <= SEQUENTIAL_ROWS and refinement.near_level(
            rows[0]["p_value"], rows[0]["p_adjusted"], n_boot, alpha):
        used = n_boot * refinement.REFINE_FACTOR
        boot, interval_note = _scale_bootstrap(e, u, used, refinement.refined_seed(seeds.boot),
                                               n_workers, say, groups)
        interval_note += (f"; {used} replicates: with {n_boot} the test lay within their "
                          "noise of the level")
        rows, zms_p, z_p = _average_rows(mean, boot, scr, alpha, interval_note)
    scale = ScaleFactor(boot.estimate, boot.ci_low, boot.ci_high, used)
    robust = robust_scale_factor_unchecked(e, u, seed=seeds.robust, groups=groups)
    dominated = is_dominated(tails, scale.value, robust, e, u)
    # the conditional stages look at the uncertainties after the global factor; when a few
    # rows decide sqrt(ZMS), that factor is the robust one (rules: "A few rows ...")
    reference = robust.value if dominated else scale.value
    return AverageStage(rows, (zms_p, z_p), scale, scr, tails, robust, dominated, reference)


def _scale_bootstrap(e: NDArray[np.float64], u: NDArray[np.float64], n_boot: int,
                     seed: np.random.SeedSequence, n_workers: int, say: Say,
                     groups: GroupIndex | None) -> tuple[BootstrapResult | _SqrtInterval, str]:
    """The bootstrap of sqrt(ZMS) of :func:`average_stage` and its note: BCa of the rows, or
    with ``groups`` the studentized bootstrap of half samples of the groups."""
    say(f"bootstrap of the scale factor ({n_boot} replicates of {e.size} rows)")
    if groups is None:
        return (bca_bootstrap((e, u), SQRT_ZMS, n_boot=n_boot, seed=seed, n_workers=n_workers),
                "interval: square of the BCa interval of sqrt(ZMS)")
    # studentized cluster bootstrap of ZMS (docs/choices.md, "Rows in groups")
    ct = cluster_t_bootstrap(np.square(e / u), groups, n_boot=n_boot, seed=seed)
    return (_SqrtInterval(math.sqrt(ct.estimate), math.sqrt(max(ct.ci_low, 0.0)),
                          math.sqrt(ct.ci_high), ct.p_value(1.0)),
            f"interval and test: studentized bootstrap of ZMS resampling half of the "
            f"{groups.n_groups} groups (cluster-robust se in every resample), never "
            f"narrower than the cluster-robust t({groups.n_groups - 1}) interval")


@dataclass(frozen=True)
class ConditionalStage:
    """Record of :func:`conditional_stage`: per binned variable (the uncertainty first, then
    the features) its bins and per-bin table (scaled uncertainties), the verdict rows, the
    variables that cannot be binned with the reason, the permutation count asked for, and
    the count of the tests run again because a decision lay near the level (0 when not;
    :mod:`uqval.validation.refinement`)."""

    bins: dict[str, Bins]
    tables: dict[str, pd.DataFrame]
    rows: list[dict]
    untestable: dict[str, str]
    n_permutations: int
    procedures: dict[str, str] = field(default_factory=dict)
    refined_permutations: int = 0
    fine_tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    """Per-bin tables of the advice's finer grid (:func:`uqval.validation.bin_tables.fine_bin_count` bins, same columns as
    ``tables``), for the variables where it has more bins than the stage's grid: a departure
    confined to half a bin is diluted by half in its bin (:mod:`uqval.validation.advice`)."""


def conditional_stage(e: NDArray[np.float64], u: NDArray[np.float64],
                      candidates: Sequence[tuple[str, str, NDArray[np.float64]]], *, n_bins: int,
                      average: AverageStage, run_tests: bool, alpha: float, n_boot: int,
                      n_permutations: int, seeds: Seeds, n_workers: int,
                      say: Say, groups: GroupIndex | None = None,
                      all_rows: AllRows | None = None,
                      effective_bins: bool = False) -> ConditionalStage:
    """Consistency and adaptivity (module docstring, 2). ``candidates``: (stage, name,
    values) of the uncertainty and each feature; per-bin tables with the uncertainties
    multiplied by ``average.reference``; ``run_tests=False`` (the paper's rule): the tables
    only. ``effective_bins`` (the default bin count, not one the user chose): with
    ``groups``, at most as many bins along each variable as hold MIN_BIN_COUNT effective
    rows on average (:func:`uqval.stats.groups.effective_bin_count`). With ``groups`` every test and interval respects the groups
    (:func:`uqval.validation.permutation.grouped_heterogeneity_tests`,
    :func:`uqval.validation.binfree.grouped_binfree_tests`; per-bin intervals resample
    the groups of the bin); the isotonic MCB test permutes Z inside groups, and is not run
    when uE is constant inside every group (no permutation inside groups changes it). With
    ``all_rows`` (a set read in parts) the per-bin tables are those of all rows at the bins
    of the subsample (:func:`uqval.validation.all_rows.bin_table_from_sums`). Up to
    SEQUENTIAL_ROWS rows, a stage whose decision lies within the Monte Carlo noise of the
    level is tested again with ten times the permutations
    (:mod:`uqval.validation.refinement`); the per-bin tables are not recomputed."""
    m = e.size
    # with rows in groups, a bin holds MIN_BIN_COUNT effective rows on average (the ICC of
    # Z^2, the statistic of the bins; it does not depend on a common factor of uE)
    icc = icc_oneway(np.square(e / u), groups) if groups is not None and effective_bins else None
    untestable, variables, binned = bin_tables.bin_variables(candidates, n_bins, groups, icc)
    large = m > LARGE_ROWS or all_rows is not None  # the large-set rules (module LARGE_ROWS)
    sequential = HETEROGENEITY_EXCEEDANCES if large or m > SEQUENTIAL_ROWS else None
    reference = average.reference
    u_scaled = u * reference
    tables = {}
    children = seeds.bins.spawn(len(variables))
    for (_, name, x), (_, _, b), child in zip(variables, binned, children, strict=True):
        if all_rows is not None:
            tables[name] = bin_table_from_sums(all_rows.bins[name], reference)
            continue
        say(f"per-bin intervals along {name}")
        tables[name] = bin_tables.bin_table(e, u_scaled, x, b, n_boot, child, n_workers,
                                  student=large, groups=groups)
    bins = {name: b for _, name, b in binned}
    if not run_tests:
        return ConditionalStage(bins, tables, [], untestable, 0)
    fine_tables = {} if all_rows is not None or large else bin_tables.fine_tables(
        e, u_scaled, variables, binned, n_boot, seeds.bins, n_workers, groups, say, icc)

    def tested(n_perm: int, test_seeds: Seeds) -> tuple[list[dict], dict[str, str]]:
        say(f"{'at most ' if sequential else ''}{n_perm} permutations for "
            f"{len(binned)} binning variable(s)")
        if groups is not None and binned:
            return _grouped_conditional(e, u, variables, binned, tables, average, alpha,
                                        n_perm, test_seeds, n_workers, say, groups)
        rows: list[dict] = []
        if binned:
            tests = heterogeneity_tests(e / u, [b.labels for _, _, b in binned],
                                        n_permutations=n_perm, seed=test_seeds.permutations,
                                        n_workers=n_workers, exceedances=sequential)
            say("cumulative and isotonic tests (no bins)")
            binfree = binfree_module.binfree_tests(
                e / u, u, [x for _, _, x in variables], n_permutations=n_perm,
                seed=test_seeds.binfree, n_workers=n_workers, exceedances=sequential,
                max_rows=binfree_module.BINFREE_ROWS if large else None)
            rows += _conditional_rows(binned, tests, tables, reference**2, average.p_values,
                                      alpha, binfree, n_perm)
        return rows, {}

    rows, procedures = tested(n_permutations, seeds)
    used = n_permutations
    if sequential is None and refinement.stage_near_level(rows, n_permutations, alpha):
        used = refinement.refined_permutations(n_permutations)
        say(f"a decision near the level: the tests again with {used} permutations")
        rows, procedures = tested(used, replace(
            seeds, permutations=refinement.refined_seed(seeds.permutations),
            binfree=refinement.refined_seed(seeds.binfree)))
    rows += _untestable_rows(candidates, untestable)
    return ConditionalStage(bins, tables, rows, untestable, n_permutations, procedures,
                            refined_permutations=0 if used == n_permutations else used,
                            fine_tables=fine_tables)


def _untestable_rows(candidates: Sequence[tuple[str, str, NDArray[np.float64]]],
                     untestable: Mapping[str, str]) -> list[dict]:
    return [{**_row(stage, name, True, NOT_TESTABLE, np.nan, (np.nan, np.nan), np.nan,
                    np.nan, f"not testable: {untestable[name]}"), "verdict": NOT_TESTABLE}
            for stage, name, _ in candidates if name in untestable]


def _grouped_conditional(
    e: NDArray[np.float64], u: NDArray[np.float64],
    variables: Sequence[tuple[str, str, NDArray[np.float64]]],
    binned: Sequence[tuple[str, str, Bins]], tables: dict[str, pd.DataFrame],
    average: AverageStage, alpha: float, n_permutations: int, seeds: Seeds, n_workers: int,
    say: Say, groups: GroupIndex,
) -> tuple[list[dict], dict[str, str]]:
    """The tests of :func:`conditional_stage` with rows in groups (its docstring): the rows
    and each variable's permutation procedure."""
    z = e / u
    xs = [x for _, _, x in variables]
    say(f"group-respecting permutations for {len(binned)} variable(s)")
    tests, levels = grouped_heterogeneity_tests(
        z, [b.labels for _, _, b in binned], groups, variables=xs,
        n_permutations=n_permutations, seed=seeds.permutations, n_workers=n_workers)
    procedures = {name: level for (_, name, _), level in zip(variables, levels, strict=True)}
    mcb = any(stage == "consistency" and procedures[name] == "permuted within groups"
              for stage, name, _ in variables)
    say("cumulative " + ("and isotonic " if mcb else "")
        + "tests (no bins), group-respecting permutations")
    binfree = binfree_module.grouped_binfree_tests(
        z, u, xs, groups, levels, mcb=mcb, n_permutations=n_permutations, seed=seeds.binfree,
        n_workers=n_workers)
    rows = _conditional_rows(binned, tests, tables, average.reference**2, average.p_values,
                             alpha, binfree, n_permutations, procedures=procedures)
    return rows, procedures


KINDS: tuple[Kind, ...] = ("spread", "bias")
"""The two joint tests, in the order of the joint rows."""


def joint_stage(e: NDArray[np.float64], u: NDArray[np.float64],
                features: Mapping[str, NDArray[np.float64]], *, average: AverageStage,
                alpha: float, tolerance: float, n_permutations: int, seeds: Seeds,
                n_workers: int, say: Say, groups: GroupIndex | None = None,
                large: bool = False) -> tuple[JointCalibration | None, list[dict], str]:
    """All features together (module docstring, 3): the joint test, its verdict rows and a
    note (why it was skipped, or what ran); ``large``: the large-set rules whatever M (the
    subsample of a set in parts)."""
    m = e.size
    if len(features) < 2:
        return None, [], "skipped: fewer than 2 features"
    if m < JOINT_MIN_ROWS:
        return None, [], (f"skipped: fewer than {JOINT_MIN_ROWS} rows (halves too small to "
                          "learn from)")
    say("joint test over all features (cross-fitted gradient boosting)")
    large = large or m > LARGE_ROWS
    sequential = HETEROGENEITY_EXCEEDANCES if large or m > SEQUENTIAL_ROWS else None
    def run(n_splits: int, seed: np.random.SeedSequence, kinds: tuple[Kind, ...] = KINDS,
            reuse: JointCalibration | None = None) -> JointCalibration:
        return joint_calibration(e, u * average.reference, features,
                                 n_permutations=min(n_permutations, JOINT_PERMUTATIONS),
                                 seed=seed, n_workers=n_workers, max_rows=JOINT_ROWS,
                                 exceedances=sequential, n_splits=n_splits,
                                 groups=None if groups is None else groups.codes,
                                 kinds=kinds, reuse=reuse)

    joint = run(N_SPLITS, seeds.joint)
    rows = joint_rows(joint, average.p_values, alpha, average.reference, tolerance, _row)
    near = refinement.near_joint(rows, alpha) if sequential is None else ()
    refined = tuple(kind for kind, statistic in zip(KINDS, (JOINT_SPREAD, JOINT_BIAS),
                                                    strict=True) if statistic in near)
    if refined:  # a decision near the level: more splits (uqval.validation.refinement)
        say(f"joint test near the level: again with {refinement.JOINT_REFINED_SPLITS} splits")
        joint = run(refinement.JOINT_REFINED_SPLITS, refinement.refined_seed(seeds.joint),
                    refined, joint)
        rows = joint_rows(joint, average.p_values, alpha, average.reference, tolerance, _row)
    splits = ", ".join(f"{test.kind} {test.n_splits}" for test in (joint.spread, joint.bias))
    note = (f"cross-fitted gradient boosting on {len(joint.features)} features"
            + (f" (a seeded subsample of {JOINT_ROWS} of the {m} rows)" if m > JOINT_ROWS
               else "") + ", "
            f"random splits (p-values aggregated as twice their median): {splits}"
            + (f" (run again with more splits: the first {N_SPLITS} gave a p-value near the "
               "level)" if refined else "") + ", "
            f"{joint.spread.n_permutations} permutations per half")
    if groups is not None:
        note += (f"; halves of the {groups.n_groups} groups, signs of the group scores "
                 "flipped (wild cluster randomization)")
    return joint, rows, note


def ranking_stage(e: NDArray[np.float64], u: NDArray[np.float64],
                  e_unit: NDArray[np.float64], u_unit: NDArray[np.float64],
                  average: AverageStage, *, n_permutations: int, seeds: Seeds, n_workers: int,
                  say: Say, groups: GroupIndex | None = None,
                  ) -> tuple[UCCGain, NDArray[np.intp], UCCGain | None]:
    """Whether the uncertainties rank the errors (module docstring, 4): the UCC gain with
    all rows, the rows that decide the average (when a few do) and the gain without them;
    with ``groups`` the permutations swap the bands on whole groups."""
    say("UCC gain over a constant band (permutation test)")
    codes = None if groups is None else groups.codes
    ucc = ucc_gain(e_unit, u_unit, n_permutations, seeds.ucc, n_workers, codes)
    if not average.dominated:
        return ucc, np.empty(0, dtype=np.intp), None
    dominant = dominant_rows_unchecked(e, u, average.robust)
    if not dominant.size:
        return ucc, dominant, None
    keep = np.ones(e_unit.size, dtype=bool)
    keep[dominant] = False
    say("UCC gain without the dominant rows")
    return ucc, dominant, ucc_gain(e_unit[keep], u_unit[keep], n_permutations, seeds.ucc,
                                   n_workers, None if codes is None else codes[keep])


def paper_stage(e: NDArray[np.float64], u: NDArray[np.float64],
                features: Mapping[str, NDArray[np.float64]], *, n_boot: int, seed: int,
                n_bins: int | None, u_name: str) -> list[dict]:
    """The adaptivity paper's flowchart as verdict rows (module docstring, 5)."""
    return _paper_rows(e, u, features, n_boot, seed, n_bins, u_name)
