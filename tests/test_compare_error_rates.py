"""Small-scale simulation of the paired tests of ``uqval.compare`` (full scale and the
measured numbers: benchmarks/compare_error_rates.py and docs/explanations/error-rates.md)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from uqval.comparison import compare

M, N_DATA, N_BOOT = 300, 30, 200


def _rejections(case: str) -> pd.DataFrame:
    """Per dataset, whether each difference A − B is significant at 5 %: its paired
    bootstrap interval excludes 0 (the ranking's rule), or the AUUCC test has p < 0.05."""
    rows = []
    for seed in range(N_DATA):
        rng = np.random.default_rng([seed, 7])
        u = rng.lognormal(0.0, 0.5, M)
        e = u * rng.normal(size=M)
        if case == "twins":  # identical quality: independent noise on the same uE
            models = {"A": (e, u * rng.lognormal(0, 0.3, M)), "B": (e, u * rng.lognormal(0, 0.3, M))}
        else:  # B's uncertainties blurred by strong noise
            models = {"A": (e, u), "B": (e, u * rng.lognormal(0.0, 0.7, M))}
        d = compare(models, n_boot=N_BOOT, n_sim=10, seed=seed,
                    validate_models=False).differences.loc[("A", "B")]
        flags = (d["ci_low"] > 0) | (d["ci_high"] < 0)
        flags["auucc"] = d.loc["auucc", "p_value"] < 0.05
        rows.append(flags)
    return pd.DataFrame(rows)


SCORES = ["zms", "rce", "ence", "zmse", "uce", "nll", "crps", "interval_score", "check_score",
          "miscalibration_area", "rank_correlation", "auucc"]


@pytest.fixture(scope="module")
def null_rates():
    return _rejections("twins")[SCORES].mean()


def test_false_alarm_rate_of_identical_quality_models(null_rates):
    # 5 % expected; with 30 datasets, 6 or more false alarms has probability 1.6 %.
    assert null_rates.max() <= 0.2
    assert null_rates.mean() <= 0.1


def test_power_on_clearly_worse_uncertainties():
    rates = _rejections("noisy")[SCORES].mean()
    for score in ("nll", "crps", "interval_score", "zmse", "rank_correlation", "auucc"):
        assert rates[score] >= 0.9, score
