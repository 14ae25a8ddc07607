"""The variance stages' factor against the intervals: the coverage of the judged intervals
widened by it (``uqval.validation.scaled_coverage``) and the advice row that says which
intervals the factor is not for (``predictive_judgement.factor_scope``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import uqval
from uqval.stats.groups import GroupIndex
from uqval.validation.scaled_coverage import scaled_interval_coverage

SCOPE = "is the sd's as a standard deviation"


def test_widened_normal_intervals_cover_the_closed_form():
    # y ~ N(0, 1), intervals of N(0, 1) widened by f: coverage 2 Phi(f q_L) - 1
    rng = np.random.default_rng(3)
    n = 20000
    y = rng.standard_normal(n)
    pred = uqval.Normal(np.zeros(n), np.ones(n))
    levels = [0.5, 0.8, 0.9]
    t = scaled_interval_coverage(y, pred, levels, 1.25, alpha=0.05, tolerance=0.1)
    q = stats.norm.ppf(0.5 * (1 + np.array(levels)))
    expected = 2 * stats.norm.cdf(1.25 * q) - 1
    assert np.allclose(t["value"], expected, atol=0.01)
    # and each row's counts are the brute-force ones
    brute = [(np.abs(y) <= 1.25 * qq).sum() for qq in q]
    assert list(t["covered"]) == brute
    # exact binomial interval of the count
    lo, hi = stats.binomtest(int(brute[2]), n).proportion_ci(0.95, method="exact")
    assert t["ci_low"].iloc[2] == pytest.approx(lo) and t["ci_high"].iloc[2] == pytest.approx(hi)


def test_ensemble_uses_the_intervals_users_build():
    # mean +- q_t sd sqrt(1 + 1/m), written here without uqval, widened by f
    rng = np.random.default_rng(4)
    n, m = 3000, 5
    members = rng.standard_normal((n, m))
    y = rng.standard_normal(n)
    f = 0.8
    t = scaled_interval_coverage(y, uqval.Ensemble(members), [0.9], f, alpha=0.05,
                                 tolerance=0.1)
    mean, sd = members.mean(1), members.std(1, ddof=1) * np.sqrt(1 + 1 / m)
    half = stats.t.ppf(0.95, m - 1) * sd
    assert int(t["covered"].iloc[0]) == int((np.abs(y - mean) <= f * half).sum())
    # a perfect ensemble's built intervals cover exactly 90 %: narrowed by 0.8, too few
    assert t["value"].iloc[0] < 0.86 and t["effect"].iloc[0] == "relevant"


def test_groups_widen_the_interval():
    rng = np.random.default_rng(5)
    g = np.repeat(np.arange(150), 8)
    y = rng.standard_normal(150)[g] * 0.8 + 0.6 * rng.standard_normal(g.size)
    pred = uqval.Normal(np.zeros(g.size), np.ones(g.size))
    plain = scaled_interval_coverage(y, pred, [0.9], 1.0, alpha=0.05, tolerance=0.1)
    grouped = scaled_interval_coverage(y, pred, [0.9], 1.0, alpha=0.05, tolerance=0.1,
                                       groups=GroupIndex.from_codes(g))
    assert plain["value"].iloc[0] == grouped["value"].iloc[0]
    width = grouped["ci_high"] - grouped["ci_low"]
    assert (width > 1.5 * (plain["ci_high"] - plain["ci_low"])).all()


def _advice(y, mu, sd, **kw):
    res = uqval.validate(y, uqval.Normal(mu, sd), seed=0, n_boot=200, n_permutations=199,
                         n_ucc_permutations=99, **kw)
    return res, res.advice


def test_heavy_tails_the_factor_is_not_for_the_intervals():
    # 95 % of the errors N(0, 1), 5 % N(0, 4^2), sd = 1: sqrt(E z^2) = sqrt(1.75) = 1.32,
    # while the 50-90 % intervals cover 48-87 %: widened by 1.32 they would cover 61 %
    # and 94 % (computed here: 0.95 (2 Phi(1.32 q) - 1) + 0.05 (2 Phi(1.32 q / 4) - 1))
    rng = np.random.default_rng(11)
    n = 2000
    wide = rng.random(n) < 0.05
    y = rng.standard_normal(n) * np.where(wide, 4.0, 1.0)
    res, advice = _advice(y, np.zeros(n), np.ones(n))
    scale = advice[advice["action"] == "scale"]
    assert len(scale) == 1 and scale["factor"].iloc[0] > 1.15
    row = advice[(advice["stage"] == "coverage") & advice["reason"].str.contains(SCOPE)]
    assert len(row) == 1 and row["action"].iloc[0] == "none"
    f = float(scale["factor"].iloc[0])
    q = stats.norm.ppf(0.95)
    closed = 0.95 * (2 * stats.norm.cdf(f * q) - 1) + 0.05 * (2 * stats.norm.cdf(f * q / 4) - 1)
    got = res.scaled_coverage.set_index("level").loc[0.9, "value"]
    assert got == pytest.approx(closed, abs=0.015)
    assert "outside the central 99 % interval" in row["reason"].iloc[0]
    # the sigma route's variance advice is the same (the row is the predictive's own)
    plain = uqval.validate(y, np.ones(n), seed=0, n_boot=200, n_permutations=199,
                           n_ucc_permutations=99)
    assert list(plain.advice["action"]) == list(res.variance.advice["action"])
    # and the page says it in the predictive's next steps
    next_steps = res.summary().split("## Next step")[-1]
    assert SCOPE in next_steps


def test_too_small_sd_gets_the_factor_without_the_row():
    # normal errors 1.3 x the stated sd: the factor fits the intervals too
    rng = np.random.default_rng(12)
    n = 2000
    y = 1.3 * rng.standard_normal(n)
    _, advice = _advice(y, np.zeros(n), np.ones(n))
    assert (advice["action"] == "scale").any()
    assert not advice["reason"].str.contains(SCOPE).any()


def test_command_line_writes_the_widened_coverage(tmp_path):
    from uqval.cli import main

    rng = np.random.default_rng(13)
    n = 1500
    wide = rng.random(n) < 0.05
    y = rng.standard_normal(n) * np.where(wide, 4.0, 1.0)
    pd.DataFrame({"y": y, "mu": 0.0, "sd": 1.0}).to_csv(tmp_path / "p.csv", index=False)
    out = tmp_path / "out"
    code = main(["validate", str(tmp_path / "p.csv"), "--y-true", "y", "--y-pred", "mu",
                 "--uncertainty", "sd", "--distribution", "normal", "--out", str(out),
                 "--n-boot", "200", "--n-permutations", "199"])
    assert code == 0
    scaled = pd.read_csv(out / "coverage_scaled.csv")
    advice = pd.read_csv(out / "advice.csv")
    assert (scaled["value"] > scaled["level"]).all()
    assert advice["reason"].str.contains(SCOPE).sum() == 1
