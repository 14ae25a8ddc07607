"""The record of a comparison of several models: :class:`ModelComparison`.

Every number its tables, figures and summary need (scores with their references, paired
differences, ranks, each model's validation record, the Murphy diagram); the report
(:mod:`uqval.report.comparison`) only reads it: ``.summary()``, ``.save()`` and
``.to_html()`` are thin calls through :func:`uqval._internal.lazy.report_call`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from uqval._internal.lazy import report_call
from uqval._internal.types import FloatArray
from uqval.scores.murphy import MurphyDiagram
from uqval.validation.result import ValidationResult

__all__ = ["ModelComparison"]


@dataclass(frozen=True)
class ModelComparison:
    """Result of :func:`compare` (tables described in the module doc).

    Examples:
        >>> import numpy as np
        >>> from uqval import compare
        >>> rng = np.random.default_rng(0)
        >>> u = rng.uniform(0.5, 2.0, 500)
        >>> e = u * rng.standard_normal(500)
        >>> res = compare({"good": (e, u), "too small": (e, u / 2)}, n_boot=200, n_sim=200,
        ...               n_permutations=200, validate_models=False)
        >>> d = res.differences.loc[("good", "too small", "crps")]  # CRPS(good) - CRPS(too small)
        >>> [round(float(d[k]), 3) for k in ("delta", "ci_low", "ci_high")], d["better"]
        ([-0.047, -0.063, -0.032], 'good')
        >>> s = res.scores.loc[("too small", "crps")]  # far above its calibrated reference
        >>> [round(float(s[k]), 3) for k in ("value", "ref_low", "ref_high")], bool(s["inside"])
        ([0.736, 0.344, 0.394], False)
    """

    scores: pd.DataFrame
    differences: pd.DataFrame
    ranking: pd.DataFrame
    n_boot: int
    confidence: float
    validations: dict[str, ValidationResult] = field(default_factory=dict, repr=False)
    data: dict[str, tuple[FloatArray, FloatArray]] = field(
        default_factory=dict, repr=False, compare=False
    )
    features: dict[str, FloatArray] = field(default_factory=dict, repr=False, compare=False)
    parameters: dict[str, Any] = field(default_factory=dict, repr=False)
    input_sha256: str | None = None
    murphy: MurphyDiagram | None = None

    @property
    def verdicts(self) -> pd.DataFrame:
        """One row per model: the scale factor sqrt(ZMS) with its interval and the verdict of
        each stage of :func:`uqval.validate` (empty without validations)."""
        rows = []
        for name, res in self.validations.items():
            s = res.scale_factor
            rows.append({"model": name, "scale_factor": s.value, "scale_low": s.ci_low,
                         "scale_high": s.ci_high, **res.stage_verdicts})
        return pd.DataFrame(rows).set_index("model") if rows else pd.DataFrame()

    def summary(self) -> str:
        """Plain-language summary (Markdown): overall ranking and each model's verdicts."""
        return str(report_call("comparison", "comparison_summary_markdown", self))

    def save(self, directory: str | Path) -> list[Path]:
        """Write comparison.csv, verdicts.csv, pairwise.csv, ranking.csv, summary.md, the
        overlay figures (PNG) and report.html to ``directory``; returns the written paths."""
        return list(report_call("comparison", "save_all", self, Path(directory)))

    def to_html(self, path: str | Path) -> Path:
        """Write the self-contained HTML report (figures embedded) to ``path``."""
        return Path(report_call("comparison", "write_html", self, Path(path)))

    def __repr__(self) -> str:
        table = self.ranking.to_string(max_cols=12)
        return (
            f"ModelComparison({len(self.ranking)} models, n_boot={self.n_boot}, "
            f"{self.confidence:.0%} intervals); ranks (1 = best, ties = not significantly "
            f"different):\n{table}"
        )
