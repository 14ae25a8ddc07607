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

import math
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from uqval._internal.checks import (
    MAX_RESAMPLES,
    integer,
    probability,
    seed_value,
    unit_scaled,
)
from uqval._internal.seeding import seed_sequence
from uqval.binning import default_n_bins
from uqval.predictive import Predictive
from uqval.stats.groups import MIN_GROUPS, GroupIndex
from uqval.stats.serial_groups import serial_blocks
from uqval.validation import binfree as binfree_module
from uqval.validation import rules, stages
from uqval.validation.advice import AdviceInputs
from uqval.validation.all_rows import AllRows
from uqval.validation.degenerate import check_errors_not_all_zero
from uqval.validation.figure_stage import figure_records
from uqval.validation.grouping import (
    group_summary,
    id_like_columns,
    id_like_warning,
    serial_warning,
    unequal_groups_warning,
)
from uqval.validation.inputs import CleanInputs, Features, clean_inputs
from uqval.validation.judgement import judge
from uqval.validation.result import ValidationResult
from uqval.validation.stages import (
    HETEROGENEITY_EXCEEDANCES,
    VERDICT_COLUMNS,
    Seeds,
    average_stage,
    conditional_stage,
    joint_stage,
    paper_stage,
    ranking_stage,
)
from uqval.validation.ucc_gain import UCC_EXCEEDANCES

__all__ = ["run_engine", "validate"]

Rule = Literal["uqval", "paper"]


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
    groups: ArrayLike | str | None = None,
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
    :class:`~uqval.validation.result.ValidationResult` as below (``levels`` is then unused).

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
    (docs/explanations/error-rates.md, ``benchmarks/validation_error_rates.py``). ``rule="paper"`` gives the verdicts
    of the adaptivity paper's flowchart (:mod:`uqval.validation.flowchart`; f_v with target 0.95,
    which flags good uncertainties too often, see docs/explanations/decision-rules.md).

    Bins: equal-count bins that keep ties together (:func:`uqval.binning.tie_aware_bins`), by
    default ``round(min(sqrt(M), M/100))`` clipped to [2, 50] (:func:`default_n_bins`);
    with ``groups``, by default at most as many along each variable as hold 30 effective
    rows a bin on average (a bin of n rows whose groups put m of their rows in it on average
    is worth n / (1 + (m - 1) ICC(Z^2)) rows: Kish's design effect,
    :func:`uqval.stats.groups.effective_bin_count`), and at most G/5 along a variable
    constant inside groups. The per-bin tables (``.bins``) use the scaled uncertainties, with BCa intervals of
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
            Above :data:`~uqval.validation.stages.SEQUENTIAL_ROWS` rows each permutation
            test (binned, cumulative, isotonic MCB, the joint test's halves) stops at its
            20th exceedance (Besag-Clifford, on the fixed rule's first permutations;
            ``parameters["permutation_rule"]``); above
            :data:`~uqval.validation.stages.LARGE_ROWS` the per-bin intervals of <Z^2> are
            Student-t intervals (``parameters["bin_intervals"]``) and the bin-free and
            joint tests run on a seeded subsample (``parameters["subsample"]``).
        n_bins: number of bins of every binning variable (default above; a number given
            here is kept, except the G/5 limit with groups).
        n_ucc_permutations: most permutations of the UCC-gain test (:class:`~uqval.validation.ucc_gain.UCCGain`); the
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
        levels: interval levels of a predictive object (above).
        groups: the group of every row (any labels, or a column name of ``data``) when rows
            come in groups whose errors share a part (force components of one structure,
            conformers of one molecule, frames of one trajectory). Every interval then
            resamples whole groups (the scale factor by a studentized bootstrap with the
            cluster-robust se in every resample, never narrower than the cluster-robust
            t(G - 1) interval; the per-bin <Z^2> by BCa whose acceleration leaves one group
            out), <Z> overall and per bin gets a cluster-robust t interval and test, the
            permutation tests exchange whole groups
            along a variable constant inside groups and permute Z inside groups along a
            variable that varies inside them, the joint test splits and permutes by group,
            and ``result.groups`` says what the groups change (ICC of Z and Z^2, design
            effect, effective rows; docs/choices.md, "Rows that come in groups"). The
            isotonic MCB test permutes Z inside groups (not run when uE is constant inside
            groups), the UCC ranking test swaps whole groups and the robust factor's blocks
            hold whole groups. Groups of one row give the numbers of ``groups=None`` bit
            for bit. With a predictive object: the variance stages as above, the coverage
            and PIT shares by Korn-Graubard intervals and tests over the groups, the
            conditional coverage tests by group-respecting permutations, the PIT uniformity
            test by a multiplier bootstrap over the groups, the scores' standard errors
            cluster-robust, and an unweighted ensemble's perfect-ensemble reference picks
            one member per group (:mod:`uqval.validation.predictive_engine`).

    Returns:
        A :class:`~uqval.validation.result.ValidationResult`.

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
            drop_invalid=drop_invalid, n_workers=n_workers, progress=progress, groups=groups)
    n_boot, n_permutations, n_ucc_permutations, n_bins = _options(
        features, rule, alpha, tolerance, n_boot, n_permutations, n_ucc_permutations, n_bins,
        progress)
    seed = seed_value(seed)
    if isinstance(seed, np.random.SeedSequence):  # recorded as the int every stream comes from
        seed = int(seed.generate_state(1, np.uint64)[0] >> np.uint64(1))
    say = progress or (lambda _: None)
    inputs = clean_inputs(errors, uncertainties, features, data=data, variance=variance,
                          drop_invalid=drop_invalid, uncertainty_name=uncertainty_name,
                          groups=groups)
    return run_engine(inputs, rule=rule, seed=seed, n_boot=n_boot,
                      n_permutations=n_permutations, n_bins=n_bins,
                      n_ucc_permutations=n_ucc_permutations, alpha=alpha, tolerance=tolerance,
                      variance=variance, n_workers=n_workers, say=say,
                      id_warnings=_id_warning(data, groups, errors, uncertainties, features))


def run_engine(inputs: CleanInputs, *, rule: Rule, seed: int, n_boot: int,
               n_permutations: int, n_bins: int | None, n_ucc_permutations: int, alpha: float,
               tolerance: float, variance: bool, n_workers: int, say: Callable[[str], None],
               id_warnings: tuple[str, ...] = (), all_rows: AllRows | None = None,
               row_counts: dict[str, int] | None = None,
               parts_note: str | None = None) -> ValidationResult:
    """The stages, judgement and result of :func:`validate` on checked inputs (options
    already checked). With ``all_rows`` the inputs are the seeded subsample of a set read in
    parts (:mod:`uqval.validation.parts`): the average stage and the per-bin tables are those
    of all rows (:class:`uqval.validation.all_rows.AllRows`), ``row_counts`` those of all
    rows, and ``parts_note`` says so in the parameters."""
    group_index = None if inputs.groups is None else GroupIndex.from_codes(inputs.groups)
    if group_index is not None and group_index.singleton:
        group_index = None  # groups of one row: exactly the computation without groups
    if group_index is not None and group_index.n_groups < MIN_GROUPS:
        raise ValueError(f"groups: {group_index.n_groups} groups; at least {MIN_GROUPS} are "
                         "needed to resample and permute groups")
    e, u = inputs.errors, inputs.uncertainties
    check_errors_not_all_zero(e, u)
    given_index = group_index
    serial = None if group_index is None else serial_blocks(
        e / u, group_index, variables={inputs.uncertainty_name: u, **inputs.features})
    if group_index is not None and serial is not None and serial.block_size > 1:
        # dependent consecutive groups: blocks of them are the units (uqval.stats.serial_groups)
        group_index = GroupIndex.nested(serial.codes, group_index.codes)
    e_unit, u_unit, _ = unit_scaled(e, u)  # for the statistics that square E or uE
    m = e.size
    k = _bin_count(n_bins, m if all_rows is None else all_rows.m)
    if all_rows is not None:
        k = min(k, max(2, m // rules.MIN_BIN_COUNT))
    seeds = Seeds.of(seed)
    candidates = [("consistency", inputs.uncertainty_name, u)] + [
        ("adaptivity", name, x) for name, x in inputs.features.items()]
    average = average_stage(e, u, e_unit, u_unit, n_boot=n_boot, alpha=alpha, seeds=seeds,
                            n_workers=n_workers, say=say, groups=group_index,
                            all_rows=all_rows)
    conditional = conditional_stage(e, u, candidates, n_bins=k, average=average,
                                    run_tests=rule == "uqval", alpha=alpha, n_boot=n_boot,
                                    n_permutations=n_permutations, seeds=seeds,
                                    n_workers=n_workers, say=say, groups=group_index,
                                    all_rows=all_rows, effective_bins=n_bins is None)
    group_record = None if given_index is None else group_summary(
        e / u, given_index, conditional.procedures, serial)
    if rule == "uqval":
        rows = average.rows + conditional.rows
        joint, joint_rows, joint_note = joint_stage(
            e, u, inputs.features, average=average, alpha=alpha, tolerance=tolerance,
            n_permutations=n_permutations, seeds=seeds, n_workers=n_workers, say=say,
            groups=group_index, large=all_rows is not None)
    else:  # the paper's flowchart: its own rows, per-bin tables scaled by sqrt(ZMS)
        rows = paper_stage(e, u, inputs.features, n_boot=n_boot, seed=seed, n_bins=n_bins,
                           u_name=inputs.uncertainty_name)
        joint, joint_rows, joint_note = None, [], "skipped: fewer than 2 features"
        if len(inputs.features) >= 2:
            joint_note = "skipped: the paper's rule has no joint stage"
    ucc, dominant, ucc_without = ranking_stage(
        e, u, e_unit, u_unit, average, n_permutations=n_ucc_permutations, seeds=seeds,
        n_workers=n_workers, say=say, groups=group_index)
    say("figures: curves, bands and per-bin values")
    figures = figure_records(e, u, inputs.features, conditional.bins,
                             scaling=average.reference, seed=seed)
    parameters: dict[str, Any] = {
        "rule": rule, "seed": seed, "alpha": alpha, "n_boot": n_boot,
        "n_permutations": conditional.n_permutations, "variance_input": variance,
        **binfree_module.large_parameters(m, stages.LARGE_ROWS, rule, n_boot,
                                          HETEROGENEITY_EXCEEDANCES, stages.SEQUENTIAL_ROWS,
                                          stages.JOINT_ROWS),
        "ucc_permutations": f"{ucc.n_permutations} of at most {n_ucc_permutations} "
        f"(sequential, h = {UCC_EXCEEDANCES})",
        "n_bins": {name: b.n_bins for name, b in conditional.bins.items()},
        "min_bin_count": rules.MIN_BIN_COUNT,
        "tolerance": tolerance,
        "conditional_scaling": average.reference,
        "not_testable": conditional.untestable,
        "joint": joint_note,
    }
    if conditional.refined_permutations:
        parameters["refinement"] = (
            f"a conditional decision lay within the Monte Carlo noise of the level with "
            f"{conditional.n_permutations} permutations: the tests were run again with "
            f"{conditional.refined_permutations} (per-bin tables unchanged)")
    if all_rows is not None:  # a set in parts: its subsample follows the large-set rules
        parameters.update(binfree_module.large_parameters(
            all_rows.m, stages.LARGE_ROWS, rule, n_boot, HETEROGENEITY_EXCEEDANCES))
        parameters["subsample"] = "every test on the parts' subsample (parameter parts)" + (
            f"; the joint test on a seeded subsample of {stages.JOINT_ROWS} of its rows"
            if m > stages.JOINT_ROWS else "")
        parameters["bin_intervals"] = "Student t, all rows (parameter parts)"
    if parts_note is not None:
        parameters["parts"] = parts_note
    if group_record is not None:
        parameters["groups"] = group_record.describe()
    if serial is not None:
        parameters["serial_groups"] = serial.describe()
        parameters["group_tests"] = (
            "intervals resample groups (scale factor: studentized, never narrower than the "
            "cluster-robust t(G-1) interval; per-bin <Z>: cluster-robust t over the bin's "
            "groups); permutations exchange groups (variables constant inside groups) or "
            "permute inside groups and exchange groups of equal size (the others, and the "
            "isotonic MCB test, not run when uE is constant inside groups); the UCC ranking "
            "test swaps whole groups; the robust "
            "factor's blocks hold whole groups; the heavy-tail screening and the tail shares "
            "are per row (descriptive)")
    names = {"uncertainty": inputs.uncertainty_name, "features": list(inputs.features)}
    verdicts = pd.DataFrame(rows + joint_rows, columns=VERDICT_COLUMNS)
    advice_inputs = None if rule == "paper" else AdviceInputs(
        verdicts=verdicts, bins=conditional.tables, scale=(
            average.scale.value, average.scale.ci_low, average.scale.ci_high),
        reference=average.reference, robust=average.robust, tails=average.tails,
        dominant=dominant, errors=e, uncertainties=u, features=inputs.features,
        uncertainty_name=inputs.uncertainty_name, tolerance=tolerance,
        zms_reliable=average.screening.zms_reliable, joint=joint,
        rows=None if all_rows is None else all_rows.m, fine_bins=conditional.fine_tables,
        groups=group_index, n_boot=n_boot,
        seed=seed_sequence(seed).spawn(8)[7])  # an eighth stream: the seven of Seeds unchanged
    judged = judge(verdicts, conditional.tables, advice_inputs, parameters, names,
                   reference=average.reference, m=m if all_rows is None else all_rows.m)
    return ValidationResult(
        verdicts=judged.verdicts, scale_factor=average.scale, bins=conditional.tables,
        screening=average.screening, parameters=parameters,
        row_counts=inputs.row_counts if row_counts is None else row_counts,
        names=names, errors=e, uncertainties=u, features=inputs.features, ucc=ucc,
        tail_shares=average.tails, robust_scale=average.robust, dominant_rows=dominant,
        ucc_without_dominant=ucc_without, joint=joint, figures=figures, advice=judged.advice,
        stages=judged.stages,
        warnings=(*inputs.warnings, *rules.input_warnings(e_unit, average.reference),
                  *id_warnings, *serial_warning(serial),
                  *([] if given_index is None or inputs.groups is None
                    else unequal_groups_warning(given_index, inputs.groups, inputs.group_names))),
        groups=group_record)


def _id_warning(data: pd.DataFrame | None, groups: object, *used: object) -> tuple[str, ...]:
    """The warning of :func:`uqval.validation.grouping.id_like_warning` for ``data``
    without ``groups``."""
    if data is None or groups is not None or not isinstance(data, pd.DataFrame):
        return ()
    names: list[object] = []
    for item in used:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, list | tuple):
            names += [i for i in item if isinstance(i, str)]
    warning = id_like_warning(id_like_columns(data, names))
    return () if warning is None else (warning,)


def _options(features: Features, rule: str, alpha: float, tolerance: float, n_boot: int,
             n_permutations: int | None, n_ucc_permutations: int, n_bins: int | None,
             progress: object) -> tuple[int, int, int, int | None]:
    """The options of :func:`validate` checked, with the default permutation count."""
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
    return n_boot, n_permutations, n_ucc_permutations, n_bins


def _bin_count(n_bins: int | None, m: int) -> int:
    """The bins per variable: ``n_bins`` or the default, at most M // MIN_BIN_COUNT."""
    k = int(n_bins) if n_bins is not None else default_n_bins(m)
    most = max(2, m // rules.MIN_BIN_COUNT)
    if k > most:
        raise ValueError(f"n_bins = {k}: the {m} rows give at most {most} bins of "
                         f"{rules.MIN_BIN_COUNT} rows (a bin needs at least "
                         f"{rules.MIN_BIN_COUNT} rows for a verdict)")
    return k
