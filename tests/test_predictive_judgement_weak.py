"""A coverage whose interval excludes the level while its test passes only after Holm's
adjustment is weak evidence on the page and in the advice, never "compatible with" it."""

from __future__ import annotations

import numpy as np
from scipy import stats

import uqval


def test_coverage_interval_without_the_level_is_weak_evidence_not_agreement():
    # 1000 rows, 50 % and 90 % intervals, y on a grid so that exactly k rows fall in the
    # 90 % interval; k chosen here (exact binomial test, Holm over the two levels, written
    # without uqval) so that p < 0.05 alone and > 0.05 after Holm
    n = 1000
    k = next(k for k in range(900, 800, -1)
             if stats.binomtest(k, n, 0.9).pvalue < 0.05
             and 2 * stats.binomtest(k, n, 0.9).pvalue > 0.06)
    y = np.arange(n, dtype=float)
    i = np.arange(n)
    # nested intervals: the 50 % one holds y in rows < 500, the 90 % one in rows < k;
    # where they miss, both lie above y
    lo50, hi50 = np.where(i < 500, y - 0.25, y + 0.1), y + 0.25
    lo90, hi90 = np.where(i < k, y - 0.5, y + 0.05), y + 0.5
    iv = uqval.Intervals({0.5: (lo50, hi50), 0.9: (lo90, hi90)})
    res = uqval.validate(y, iv, seed=0, n_boot=100)
    row = res.coverage.levels.set_index("level").loc[0.9]
    assert row["ci_high"] < 0.9 and row["verdict"] == "pass"
    summary = res.summary()
    line = next(s for s in summary.splitlines() if "The 90 % intervals cover" in s)
    assert "compatible with 90 %" not in line and "weak evidence of too few" in line
