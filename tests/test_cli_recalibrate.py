"""``uqval validate --recalibrate``: validation of cross-validated recalibrated uncertainties."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from uqval.cli import main
from uqval.validation.recalibrated import parse_method

FAST = ["--n-boot", "200", "--n-permutations", "199"]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """Errors 1.5x larger than the uncertainties everywhere (err_global), or 2.5x larger
    where T > 350 only (err_local, a third of the rows)."""
    rng = np.random.default_rng(5)
    m = 1500
    u = rng.lognormal(0, 0.5, m)
    t = rng.uniform(250, 400, m)
    eps = rng.normal(size=m)
    path = tmp_path_factory.mktemp("data") / "preds.csv"
    pd.DataFrame({"err_global": 1.5 * u * eps, "err_local": np.where(t > 350, 2.5, 1.0) * u * eps,
                  "sigma": u, "T": t}).to_csv(path, index=False)
    return path


def _verdicts(out) -> pd.DataFrame:
    return pd.read_csv(out / "verdicts.csv")


def _stage(v: pd.DataFrame, stage: str, feature: str = "") -> set[str]:
    rows = v[(v["stage"] == stage) & (v["feature"].fillna("") == feature)]
    if stage != "average":
        rows = rows[rows["scaled"]]
    return set(rows["verdict"])


def test_sigma_recalibration_fixes_a_global_error(table, tmp_path, capsys):
    plain, recal = tmp_path / "plain", tmp_path / "recal"
    base = ["validate", str(table), "--error", "err_global", "--uncertainty", "sigma", *FAST]
    assert main([*base, "--out", str(plain)]) == 0
    assert main([*base, "--out", str(recal), "--recalibrate", "sigma"]) == 0
    printed = capsys.readouterr().out
    assert "fail" in _stage(_verdicts(plain), "average")
    v = _verdicts(recal)
    assert _stage(v, "average") == {"pass"}
    assert "uncertainties" not in _verdicts(plain).columns
    assert v["uncertainties"].str.contains("5-fold cross-validation").all()
    assert v["uncertainties"].str.contains("sigma scaling").all()
    text = "recalibrated by 5-fold cross-validation (sigma scaling"
    assert text in printed
    assert text in (recal / "summary.md").read_text()
    page = (recal / "report.html").read_text()
    assert "not the given ones" in page and "sigma scaling" in page


def test_binned_recalibration_fixes_a_local_error(table, tmp_path):
    plain, recal = tmp_path / "plain", tmp_path / "recal"
    base = ["validate", str(table), "--error", "err_local", "--uncertainty", "sigma",
            "--feature", "T", *FAST]
    assert main([*base, "--out", str(plain)]) == 0
    assert main([*base, "--out", str(recal), "--recalibrate", "binned:T"]) == 0
    assert "fail" in _stage(_verdicts(plain), "adaptivity", "T")
    assert _stage(_verdicts(recal), "adaptivity", "T") == {"pass"}
    assert _stage(_verdicts(recal), "average") == {"pass"}
    assert "one scale factor per range of T" in (recal / "summary.md").read_text()


def test_recalibrated_row_counts_keep_the_input_rows(table, tmp_path):
    df = pd.read_csv(table)
    df.loc[[3, 9], "sigma"] = np.nan
    bad = tmp_path / "bad.csv"
    df.to_csv(bad, index=False)
    out = tmp_path / "o"
    assert main(["validate", str(bad), "--error", "err_global", "--uncertainty", "sigma",
                 "--drop-invalid", "--recalibrate", "isotonic", "--out", str(out), *FAST]) == 0
    summary = (out / "summary.md").read_text()
    assert summary.startswith("# Are the uncertainties right?\n\n1498 predictions (2 of 1500")
    assert "isotonic regression" in summary


@pytest.mark.parametrize(
    ("method", "message"),
    [
        ("platt", "--recalibrate: recalibration method must be one of sigma, isotonic, "
         "binned:FEATURE, got 'platt'"),
        ("binned", "got 'binned'"),
        ("sigma:T", "got 'sigma:T'"),
        ("binned:nope", "no column 'nope'"),
    ],
)
def test_bad_method_exits_two_with_one_line(table, tmp_path, capsys, method, message):
    code = main(["validate", str(table), "--error", "err_global", "--uncertainty", "sigma",
                 "--recalibrate", method, "--out", str(tmp_path), *FAST])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("uqval: error: ")
    assert message in err


def test_parse_method():
    assert parse_method("sigma") == ("sigma", None)
    assert parse_method("isotonic") == ("isotonic", None)
    assert parse_method("binned:x:y") == ("binned", "x:y")
    with pytest.raises(ValueError, match="binned:FEATURE"):
        parse_method("binned:")
