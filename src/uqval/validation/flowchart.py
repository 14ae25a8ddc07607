"""The validation flowchart of the adaptivity paper (P003 Fig. 1) for any dataset.

1. Average calibration: heavy-tail screening (P001 Table 2), then ZMS with a BCa interval and
   its zeta-score (P001) and the mean z-score <Z> (bias) with a Student-t interval.
2. Consistency: conditional calibration in equal-count bins of uE: fraction f_v of bins whose
   LZMS (and LZM) interval contains the target, with its binomial interval.
3. Adaptivity: the same in bins of each input feature X.

For interval-based datasets (prediction intervals U_P, no uE) the statistics are coverages:
average coverage of each U_P, and local coverage (LCP) in bins of U_P and of each feature.
A conditional test passes when the binomial 95 % interval of f_v reaches 0.95 (P003 Sect.
III.B.2); the default number of bins is sqrt(M) (rule of thumb, P003 Sect. III.B.3), and f_v is
flagged as unreliable for M < 10^4, where the paper advises against it.

A binning variable whose tied values cannot be kept together in two bins of at least
:data:`~uqval.validation.rules.MIN_BIN_COUNT` rows (one uncertainty for every row: a model with
a global sigma) is *not testable*: equal-count bins would cut the ties in input order, and
f_v would judge arbitrary subsets, so the variable gets one check ``"not testable"`` with the
reason (:func:`uqval.validation.degenerate.untestable_reason`, the same rule as
:func:`uqval.validate`) instead of a "pass".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from uqval import binning
from uqval._internal.checks import integer
from uqval.calibration.adaptivity import local_analysis
from uqval.calibration.average import calibration_tests
from uqval.calibration.coverage import global_coverage, local_coverage
from uqval.calibration.fraction_valid import FractionValid, fraction_valid
from uqval.calibration.local import global_zmean
from uqval.calibration.screening import SkewnessLimits, screen
from uqval.report.markdown import md_code, md_text
from uqval.validation.degenerate import NOT_TESTABLE, untestable_reason
from uqval.validation.rules import MIN_BIN_COUNT

FV_TARGET = 0.95
FV_MIN_M = 10_000


@dataclass(frozen=True)
class Check:
    """One test of the flowchart."""

    stage: str          # average | consistency | adaptivity
    conditioning: str   # "-" for average tests, else the binning variable
    test: str
    value: float
    ci_low: float
    ci_high: float
    target: float
    passed: bool
    note: str = ""
    testable: bool = True  # False: the variable cannot be binned (note gives the reason)


def _untestable(stage: str, variable: str, x: np.ndarray, what: str) -> Check | None:
    """The "not testable" check of ``variable`` when its ties cannot be binned, else None."""
    reason = untestable_reason(np.asarray(x, dtype=np.float64), MIN_BIN_COUNT, what)
    if reason is None:
        return None
    return Check(stage, variable, NOT_TESTABLE, np.nan, np.nan, np.nan, FV_TARGET, False,
                 f"{NOT_TESTABLE}: {reason}", testable=False)


def _fv_check(stage: str, variable: str, test: str, fv: FractionValid, note: str) -> Check:
    return Check(stage, variable, test, fv.value, fv.ci_low, fv.ci_high, FV_TARGET,
                 fv.ci_high >= FV_TARGET, note)


def _bins(x: np.ndarray, n_bins: int) -> list[np.ndarray]:
    return binning.equal_count_bins(x, n_bins)


def _require_columns(table: pd.DataFrame, columns: Sequence[str], function: str) -> None:
    """ValueError naming the missing columns of ``table`` (instead of a bare KeyError)."""
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(
            f"{function}: table has no column(s) {', '.join(missing)} (columns: "
            f"{', '.join(map(str, table.columns))})"
        )


def _n_bins(n_bins: int | None, M: int) -> int:
    """sqrt(M) bins when n_bins is None; any other value is used as given (0 is an error)."""
    return binning.sqrt_bin_count(M) if n_bins is None else integer(n_bins, "n_bins", minimum=1)


def validate_variance(
    table: pd.DataFrame, features: Sequence[str], n_boot: int, seed: int,
    limits: SkewnessLimits | None = None, n_bins: int | None = None,
) -> list[Check]:
    """Flowchart for errors E with standard uncertainties uE (columns E, uE, X_<feature>).

    ``n_bins=None`` means sqrt(M) bins. Raises ValueError naming missing columns.
    """
    _require_columns(table, ["E", "uE", *(f"X_{f}" for f in features)], "validate_variance")
    E, uE = table["E"].to_numpy(), table["uE"].to_numpy()
    M = E.size
    n_bins = _n_bins(n_bins, M)
    small = f"M = {M} < {FV_MIN_M}: f_v is indicative only (P003)" if M < FV_MIN_M else ""
    seeds = np.random.SeedSequence(seed).spawn(2 + len(features))
    sc = screen(E, uE, limits or SkewnessLimits())
    zms = next(t for t in calibration_tests(E, uE, n_boot, seeds[0]) if t.statistic == "ZMS")
    mz = global_zmean(E, uE).iloc[0]
    checks = [
        Check("average", "-", "ZMS", zms.estimate, zms.ci_low, zms.ci_high, 1.0, zms.valid,
              "" if sc.zms_reliable else "; ".join(r for r in sc.reasons if "ZMS" in r)),
        Check("average", "-", "<Z>", mz["value"], mz["ci_low"], mz["ci_high"], 0.0, bool(mz["valid"])),
    ]
    for stage, name, x, s in [("consistency", "uE", uE, seeds[1])] + [
        ("adaptivity", f, table[f"X_{f}"].to_numpy(), seeds[2 + i]) for i, f in enumerate(features)
    ]:
        untestable = _untestable(stage, name, x, "uncertainty value" if stage == "consistency"
                                 else "value")
        if untestable is not None:
            checks.append(untestable)
            continue
        a = local_analysis(E, uE, x, _bins(x, n_bins), s)
        checks.append(_fv_check(stage, name, f"f_v(LZMS), {n_bins} bins", a.fv_zms, small))
        checks.append(_fv_check(stage, name, f"f_v(LZM), {n_bins} bins", a.fv_zm, small))
    return checks


def validate_intervals(
    table: pd.DataFrame, levels: Sequence[float], features: Sequence[str], n_bins: int | None = None,
) -> list[Check]:
    """Flowchart for prediction intervals (columns E, U_<P>, X_<feature>): coverages.

    ``n_bins=None`` means sqrt(M) bins. Raises ValueError naming missing columns.
    """
    _require_columns(
        table, ["E", *(f"U_{level:g}" for level in levels), *(f"X_{f}" for f in features)],
        "validate_intervals",
    )
    E = table["E"].to_numpy()
    M = E.size
    n_bins = _n_bins(n_bins, M)
    small = f"M = {M} < {FV_MIN_M}: f_v is indicative only (P003)" if M < FV_MIN_M else ""
    checks = []
    for level in levels:
        prob = level / 100
        half = table[[f"U_{level:g}"]].to_numpy()
        g = global_coverage(E, half, [prob]).iloc[0]
        checks.append(Check("average", "-", f"coverage U_{level:g}", g["value"], g["ci_low"], g["ci_high"],
                            prob, bool(g["valid"])))
        for stage, name, x in [("consistency", f"U_{level:g}", half[:, 0])] + [
            ("adaptivity", f, table[f"X_{f}"].to_numpy()) for f in features
        ]:
            untestable = _untestable(stage, name, x, "interval half-width" if
                                     stage == "consistency" else "value")
            if untestable is not None:
                checks.append(untestable)
                continue
            lcp = local_coverage(E, half, x, _bins(x, n_bins), [prob])
            checks.append(_fv_check(stage, name, f"f_v(LCP {level:g} %), {n_bins} bins",
                                    fraction_valid(lcp), small))
    return checks


def check_verdict(c: Check) -> str:
    """"pass", "fail" or "not testable" (module docstring) for one check."""
    return NOT_TESTABLE if not c.testable else "pass" if c.passed else "fail"


_ORDER = ("fail", "pass", NOT_TESTABLE)  # a stage's verdict: the first present, as uqval.validate


def verdicts(checks: Sequence[Check]) -> dict[str, str]:
    """One verdict per stage (and per feature for adaptivity): 'fail' when a test fails,
    else 'pass' when a test passes, else 'not testable' (its variable cannot be binned).

    >>> verdicts([Check("consistency", "uE", NOT_TESTABLE, np.nan, np.nan, np.nan, 0.95,
    ...                 False, "not testable: one uncertainty value (1) in every row", False)])
    {'consistency': 'not testable'}
    """
    out: dict[str, str] = {}
    for c in checks:
        key = c.stage if c.stage != "adaptivity" else f"adaptivity:{c.conditioning}"
        out[key] = min(out.get(key, NOT_TESTABLE), check_verdict(c), key=_ORDER.index)
    return out


def checks_table(checks: Sequence[Check]) -> pd.DataFrame:
    return pd.DataFrame([asdict(c) for c in checks])


def flowchart_summary_markdown(dataset: str, report: dict, checks: Sequence[Check]) -> str:
    """One-page diagnostic summary: dataset facts, the verdict per stage with reasons, and
    the table of tests."""
    v = verdicts(checks)
    lines = [
        f"# Validation of {md_code(dataset)}",
        "",
        f"{md_text(report.get('title', dataset))} — M = {report['M']} ({report['n_raw']} raw "
        f"rows), units {md_text(report.get('units') or 'n/a')}. Source: "
        f"{md_text(report.get('citation', ''))}",
        "",
        "## Verdicts (average calibration → consistency → adaptivity)",
        "",
    ]
    for stage, verdict in v.items():
        mine = [c for c in checks if c.stage == stage or f"{c.stage}:{c.conditioning}" == stage]
        if verdict == NOT_TESTABLE:
            other = ("the average and the features are still tested" if stage == "consistency"
                     else "the other stages are still tested")
            reason = "; ".join(
                f"{md_text(c.conditioning)}: {md_text(c.note.removeprefix(NOT_TESTABLE + ': '))}"
                for c in mine) + f"; {other}"
        else:
            reason = "; ".join(f"{c.test} = {c.value:.3g} [{c.ci_low:.3g}, {c.ci_high:.3g}] vs "
                               f"{c.target:g}" for c in mine if c.testable and not c.passed)
        lines.append(f"- **{md_text(stage)}**: {verdict}" + (f" — {reason}" if reason else ""))
    if v.get("average") == "fail":
        lines += ["", "Average calibration fails: conditional tests are reported but cannot validate "
                  "the uncertainties (P003 Fig. 1)."]
    shown = {k for k, x in v.items() if x == NOT_TESTABLE}  # the reason is in the verdict line
    notes = sorted({c.note for c in checks if c.note and c.testable}
                   | {f"{c.conditioning}: {c.note}" for c in checks if not c.testable
                      and c.stage not in shown and f"{c.stage}:{c.conditioning}" not in shown})
    if notes:
        lines += ["", "Notes:", *[f"- {md_text(n)}" for n in notes]]
    lines += ["", "## Tests", "", "| stage | conditioning | test | value | 95 % interval | target | pass |",
              "|---|---|---|---|---|---|---|"]
    for c in checks:
        if not c.testable:
            lines.append(f"| {c.stage} | {md_text(c.conditioning)} | {c.test} | - | - | - | "
                         f"{NOT_TESTABLE} |")
            continue
        lines.append(f"| {c.stage} | {md_text(c.conditioning)} | {c.test} | {c.value:.4g} | "
                     f"[{c.ci_low:.4g}, {c.ci_high:.4g}] | {c.target:g} | {'yes' if c.passed else 'no'} |")
    return "\n".join(lines) + "\n"
