"""``uqval validate FILE --y-true COL`` with predictive outputs: distributions, members, samples,
quantiles, intervals; one-line errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from uqval.cli import main

FAST = ["--n-boot", "200", "--n-permutations", "99"]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(3)
    m = 800
    mu, sd, t = rng.normal(size=m), rng.uniform(0.5, 2.0, m), rng.uniform(size=m)
    frame = pd.DataFrame({"y": mu + sd * rng.standard_normal(m), "mu": mu, "sd": sd, "T": t,
                          "nu": 6.0})
    for k in range(12):
        frame[f"tree_{k}"] = mu + sd * rng.standard_normal(m)
    for tau in (0.05, 0.5, 0.95):
        frame[f"q{round(100 * tau):02d}"] = mu + sd * stats.norm.ppf(tau)
    frame.loc[4, "q05"] = frame.loc[4, "q95"] + 1.0  # crossing
    frame["lo"], frame["hi"] = mu - 1.645 * sd, mu + 1.645 * sd
    frame.loc[[9, 20], "lo"] = frame.loc[[9, 20], "hi"] + 1.0  # low > high
    frame.loc[2, "tree_3"] = np.nan
    path = tmp_path_factory.mktemp("data") / "pred.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize(("options", "kind", "expected"), [
    (["--y-pred", "mu", "--uncertainty", "sd", "--distribution", "normal"], "normal", "shape"),
    (["--y-pred", "mu", "--uncertainty", "sd", "--distribution", "t:nu"], "t", "shape"),
    (["--members", "tree_*"], "ensemble", "1 row with NaN members (row 3)"),
    (["--samples", "tree_0,tree_1,tree_2,tree_4"], "samples", "shape"),
    (["--quantiles", "0.05:q05,0.5:q50,0.95:q95"], "quantiles",
     "1 row with crossing quantiles (row 5)"),
    (["--interval", "0.9:lo:hi"], "intervals", "2 rows with low > high at level 0.9 (rows 10, 21)"),
])
def test_every_kind_runs_and_reports(table, tmp_path, capsys, options, kind, expected):
    out = tmp_path / "out"
    code = main(["validate", str(table), "--y-true", "y", *options, "--feature", "T",
                 "--out", str(out), *FAST])
    assert code == 0
    printed = capsys.readouterr().out
    assert f"kind `{kind}`" in printed and expected in printed
    verdicts = pd.read_csv(out / "verdicts.csv")
    assert "coverage" in set(verdicts["stage"])
    scores = pd.read_csv(out / "scores.csv")
    # no CRPS of intervals or a few quantiles (2 x their check score is no CRPS)
    assert ("crps" in set(scores["score"])) == (kind not in ("intervals", "quantiles"))


@pytest.mark.parametrize(("options", "message"), [
    (["--members", "tree_*", "--interval", "0.9:lo:hi"], "give exactly one of"),
    (["--quantiles", "0.05:q05,0.5:nope"], "no column 'nope'"),
    (["--quantiles", "5:q05,0.5:q50"], "level '5' must be a number between 0 and 1"),
    (["--interval", "0.9:lo"], "expected LEVEL:LOW:HIGH"),
    (["--members", "zzz_*"], "needs at least 2 columns, found 0"),
    (["--y-pred", "mu", "--uncertainty", "sd", "--distribution", "t:2"], "nu must be > 2"),
    (["--y-pred", "mu", "--uncertainty", "sd", "--distribution", "gamma"], "expected normal"),
    (["--distribution", "normal"], "needs --y-pred COL (mean) and --uncertainty COL (sd)"),
])
def test_bad_predictive_options_give_one_line_errors(table, tmp_path, capsys, options, message):
    code = main(["validate", str(table), "--y-true", "y", *options, "--out",
                 str(tmp_path / "o"), *FAST])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.count("\n") == 1


def test_error_column_is_refused_with_a_predictive(table, tmp_path, capsys):
    code = main(["validate", str(table), "--error", "mu", "--members", "tree_*", "--out",
                 str(tmp_path / "o")])
    assert code == 2 and "need --y-true" in capsys.readouterr().err


def test_help_shows_the_predictive_examples(capsys):
    code = main(["validate", "--help"])
    text = capsys.readouterr().out
    assert code == 0
    assert "--members 'tree_*'" in text and "--interval 0.9:lo90:hi90" in text


def test_compare_models_of_different_kinds(table, tmp_path, capsys):
    out = tmp_path / "cmp"
    code = main(["compare", str(table), "--y-true", "y", "--model", "RF:members=tree_*",
                 "--model", "NGB:normal=mu,sd", "--model",
                 "QGB:quantiles=0.05:q05,0.5:q50,0.95:q95", "--model", "T:t=mu,sd,nu",
                 "--out", str(out), "--n-boot", "100"])
    assert code == 0
    printed = capsys.readouterr().out  # plain text on the terminal; summary.md keeps the bold
    assert "check_score" in printed and "**" not in printed
    assert "**check_score**" in (out / "summary.md").read_text()
    scores = pd.read_csv(out / "comparison.csv")
    assert set(scores["model"]) == {"RF", "NGB", "QGB", "T"}
    assert {"check_score", "interval_score_0.9"} <= set(scores["score"])
    assert "crps" not in set(scores["score"])  # a quantile set is among the models
    assert {"pairwise.csv", "coverage.csv", "report.html"} <= {p.name for p in out.iterdir()}


@pytest.mark.parametrize(("models", "message"), [
    (["RF:members=tree_*", "NGB:gamma=mu,sd"], "unknown kind 'gamma'"),
    (["RF:members=tree_*", "NGB:normal=mu"], "normal needs MEAN,SD"),
    (["RF:members=tree_*", "CP:interval=0.9:lo"], "is not LEVEL:LOW:HIGH"),
])
def test_compare_bad_predictive_models(table, tmp_path, capsys, models, message):
    args = ["compare", str(table), "--y-true", "y", "--out", str(tmp_path / "c")]
    for m in models:
        args += ["--model", m]
    assert main(args) == 2
    assert message in capsys.readouterr().err
