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


def test_no_global_widening_when_the_rows_outside_the_ranges_are_right():
    """Errors 2x where x > 0.8, declared Normal(0, sd): every level misses overall, but the
    rows outside the advised range along x are right, so the coverage advice widens only
    the range (as the variance stages say "no global factor"); the rest's coverage is the
    share of those rows inside their central interval, counted here. With every row 1.25x
    too narrow as well, the global widening stays."""
    from uqval.predictive import Normal

    rng = np.random.default_rng(0)
    n = 3000
    x = rng.uniform(0, 1, n)
    sd = rng.uniform(0.5, 2.0, n)
    e = sd * np.where(x > 0.8, 2.0, 1.0) * rng.standard_normal(n)
    res = uqval.validate(e, Normal(np.zeros(n), sd), {"x": x}, seed=0, n_boot=200,
                         n_permutations=199)
    cov = res.advice[res.advice["stage"] == "coverage"]
    assert not (cov["action"] == "widen").any()
    ranges = cov[(cov["action"] == "recalibrate_per_range") & (cov["variable"] == "x")]
    rests = cov[cov["reason"].str.startswith("no global widening")]
    assert set(rests["level"]) == {0.5, 0.8, 0.9, 0.95}
    for level in (0.5, 0.9):
        at = ranges[ranges["level"] == level]
        assert 0.75 < at["low"].min() < 0.85
        rest = np.ones(n, dtype=bool)
        for r in at.itertuples():
            rest &= (x < r.low) | (x > r.high)
        q = stats.norm.ppf(0.5 + level / 2)
        share = np.mean(np.abs(e[rest]) <= q * sd[rest])
        (reason,) = rests[rests["level"] == level]["reason"]
        assert f"they cover {100 * share:.3g} %" in reason
    # the page says the ranges of x in one line, each level's coverage that of its row
    steps = res.summary().split("## Next step")[-1]
    lines = [line for line in steps.splitlines() if "per range of x" in line]
    assert len(lines) == 1 and "widen them there" in lines[0]
    for r in ranges.itertuples():
        share = r.reason.split(" cover ")[1].split(" %")[0]
        assert f"{share} % covered at {100 * r.level:g} %" in lines[0]
    both = uqval.validate(e * 1.25, Normal(np.zeros(n), sd), {"x": x}, seed=0, n_boot=200,
                          n_permutations=199)
    cov = both.advice[both.advice["stage"] == "coverage"]
    assert (cov["action"] == "widen").any()
    assert not cov["reason"].str.startswith("no global").any()
