"""The one-page summary of the adaptivity paper's flowchart for one dataset (P003 Fig. 1).

Reads the checks of :func:`uqval.validation.flowchart.validate_variance` or
:func:`~uqval.validation.flowchart.validate_intervals` and their verdicts; computes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from uqval.report.markdown import md_code, md_text
from uqval.validation.degenerate import NOT_TESTABLE
from uqval.validation.flowchart import Check, verdicts

__all__ = ["flowchart_summary_markdown"]


def _test(name: str) -> str:
    """A test's name (``<Z>``, ``f_v(LZM)``) as Markdown text: ``<`` as ``&lt;``, else
    ``<Z>`` would be an HTML tag (and vanish) in CommonMark renderers."""
    return name.replace("<", "&lt;")


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
            reason = "; ".join(f"{_test(c.test)} = {c.value:.3g} [{c.ci_low:.3g}, {c.ci_high:.3g}] vs "
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
            lines.append(f"| {c.stage} | {md_text(c.conditioning)} | {_test(c.test)} | - | - | - | "
                         f"{NOT_TESTABLE} |")
            continue
        lines.append(f"| {c.stage} | {md_text(c.conditioning)} | {_test(c.test)} | {c.value:.4g} | "
                     f"[{c.ci_low:.4g}, {c.ci_high:.4g}] | {c.target:g} | {'yes' if c.passed else 'no'} |")
    return "\n".join(lines) + "\n"
