"""``uqval compare``: files, ranking, self-contained report, one-line errors."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from uqval.cli import main

FAST = ["--n-boot", "200"]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """One set of errors E = u·ε and three uncertainty columns: right (u), globally too
    small (u/1.5) and noisy (u times lognormal noise, which blurs the ranking of errors)."""
    rng = np.random.default_rng(11)
    m = 1000
    u = rng.lognormal(0, 0.5, m)
    e = u * rng.normal(size=m)
    path = tmp_path_factory.mktemp("data") / "models.csv"
    pd.DataFrame({"y": 10.0 + e, "pred": 10.0, "err": e, "u_good": u, "u_small": u / 1.5,
                  "u_noisy": u * rng.lognormal(0, 0.5, m),
                  "T": rng.uniform(250, 400, m)}).to_csv(path, index=False)
    return path


MODELS = ["--model", "good:err:u_good", "--model", "small:err:u_small",
          "--model", "noisy:err:u_noisy"]


@pytest.fixture(scope="module")
def out(table, tmp_path_factory):
    directory = tmp_path_factory.mktemp("cmp") / "out"
    assert main(["compare", str(table), *MODELS, "--feature", "T", "--out", str(directory),
                 "--seed", "4", *FAST]) == 0
    return directory


def test_files_exist(out):
    names = {p.name for p in out.iterdir()}
    assert {"comparison.csv", "verdicts.csv", "pairwise.csv", "ranking.csv", "summary.md",
            "report.html", "calibration_curves.png", "ucc.png", "lzms_uE.png",
            "lzms_T.png", "murphy.png", "murphy.csv", "murphy_dominance.csv"} <= names
    scores = pd.read_csv(out / "comparison.csv")
    assert set(scores["model"]) == {"good", "small", "noisy"}
    assert {"value", "ci_low", "ci_high", "ref_low", "ref_high", "inside"} <= set(scores.columns)
    assert "zmse[T]" in set(scores["score"])
    pairs = pd.read_csv(out / "pairwise.csv")
    assert len(pairs[pairs["score"] == "auucc"]) == 3  # every pair of three models


def test_the_good_model_ranks_first(out):
    ranking = pd.read_csv(out / "ranking.csv", index_col="model")
    assert ranking.index[0] == "good"
    assert ranking.loc["good", "overall"] == 1
    assert ranking.loc[["small", "noisy"], "overall"].min() > 1
    for score in ("nll", "crps", "interval_score", "uce"):
        assert ranking.loc["good", score] == 1
        assert ranking.loc["noisy", score] > 1
    verdicts = pd.read_csv(out / "verdicts.csv", index_col="model")
    assert verdicts.loc["good", "average"] == "pass"
    assert verdicts.loc["small", "average"] == "fail"
    assert 1.3 < verdicts.loc["small", "scale_factor"] < 1.7


def test_report_is_one_self_contained_page(out, capsys):
    page = (out / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page.lower()
    assert not re.search(r"""(src|href)\s*=\s*["'](?!data:|#)""", page)
    assert page.count('src="data:image/png;base64,') == 5  # 4 overlays and the Murphy diagram
    assert "Which model has the better uncertainties?" in page
    assert "rank 1: <strong>good</strong>" in page


def test_y_true_with_predictions_matches_errors(table, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    common = ["--seed", "1", "--n-boot", "50"]
    assert main(["compare", str(table), "--model", "good:err:u_good", "--model",
                 "small:err:u_small", "--out", str(a), *common]) == 0
    assert main(["compare", str(table), "--y-true", "y", "--model", "good:pred:u_good",
                 "--model", "small:pred:u_small", "--out", str(b), *common]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(a / "comparison.csv"),
                                  pd.read_csv(b / "comparison.csv"), rtol=1e-9)


@pytest.mark.parametrize(
    ("models", "message"),
    [
        (["--model", "good:err", "--model", "b:err:u_small"],
         "--model 'good:err': expected NAME:ERRCOL:UNCCOL"),
        (["--model", "good:err:u_good:x", "--model", "b:err:u_small"], "expected NAME:ERRCOL"),
        (["--model", "good:err:u_good"], "compare needs at least 2 --model options"),
        (["--model", "a:err:u_good", "--model", "a:err:u_small"], "model names must differ"),
        (["--model", "a:err:nope", "--model", "b:err:u_small"], "no column 'nope'"),
    ],
)
def test_bad_model_spec_exits_two_with_one_line(table, tmp_path, capsys, models, message):
    code = main(["compare", str(table), *models, "--out", str(tmp_path), *FAST])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("uqval: error: ")
    assert message in err


def test_non_positive_uncertainty_names_model_and_column(table, tmp_path, capsys):
    df = pd.read_csv(table)
    df.loc[7, "u_small"] = 0.0
    bad = tmp_path / "bad.csv"
    df.to_csv(bad, index=False)
    code = main(["compare", str(bad), "--model", "a:err:u_good", "--model", "b:err:u_small",
                 "--out", str(tmp_path / "o"), *FAST])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "model 'b': column 'u_small'" in err
