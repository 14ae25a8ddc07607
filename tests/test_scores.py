"""Scores of uqval.scores against independent computations written here."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import uncertainty_toolbox as uct
from scipy import integrate, stats

from uqval import scores

NU = 5.0
T_SCALE = math.sqrt((NU - 2.0) / NU)


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(11)
    u = np.sqrt(1.0 / rng.gamma(3.0, 1.0 / 3.0, 37))
    e = 1.3 * u * rng.standard_normal(37) + 0.1
    return e, u


def _cdf(distribution):
    if distribution == "normal":
        return lambda x, u: stats.norm.cdf(x, scale=u)
    return lambda x, u: stats.t.cdf(x, NU, scale=u * T_SCALE)


@pytest.mark.parametrize("distribution", ["normal", "t"])
def test_crps_equals_numerical_integral_of_the_squared_cdf_difference(small, distribution):
    e, u = small
    cdf = _cdf(distribution)
    total = 0.0
    for ei, ui in zip(e[:8], u[:8], strict=True):
        left = integrate.quad(lambda x, ui=ui: cdf(x, ui) ** 2, -np.inf, ei, limit=200)[0]
        right = integrate.quad(lambda x, ui=ui: (cdf(x, ui) - 1.0) ** 2, ei, np.inf, limit=200)[0]
        total += left + right
    nu = NU if distribution == "t" else None
    assert scores.crps(e[:8], u[:8], distribution, nu) == pytest.approx(total / 8, rel=1e-7)


def test_interval_score_equals_the_definition_with_bounds(small):
    e, u = small
    for coverage in (0.5, 0.9, 0.95):
        alpha = 1 - coverage
        total = 0.0
        for ei, ui in zip(e, u, strict=True):
            lo, hi = stats.norm.ppf(alpha / 2, scale=ui), stats.norm.ppf(1 - alpha / 2, scale=ui)
            s = hi - lo
            if ei < lo:
                s += 2 / alpha * (lo - ei)
            if ei > hi:
                s += 2 / alpha * (ei - hi)
            total += s
        assert scores.interval_score(e, u, coverage) == pytest.approx(total / e.size, rel=1e-12)
    with pytest.raises(ValueError, match="coverage"):
        scores.interval_score(e, u, 1.0)


@pytest.mark.parametrize("distribution", ["normal", "t"])
def test_check_score_equals_pinball_loops(small, distribution):
    e, u = small
    taus = [0.05, 0.3, 0.5, 0.77, 0.95]
    total = 0.0
    for tau in taus:
        for ei, ui in zip(e, u, strict=True):
            if distribution == "normal":
                q = stats.norm.ppf(tau, scale=ui)
            else:
                q = stats.t.ppf(tau, NU, scale=ui * T_SCALE)
            r = ei - q
            total += r * (tau - (1.0 if r < 0 else 0.0))
    nu = NU if distribution == "t" else None
    value = scores.check_score(e, u, taus, distribution, nu)
    assert value == pytest.approx(total / (len(taus) * e.size), rel=1e-12)


def test_nll_equals_scipy_logpdf(small):
    e, u = small
    assert scores.nll(e, u) == pytest.approx(-np.mean(stats.norm.logpdf(e, scale=u)), rel=1e-12)
    expected_t = -np.mean(stats.t.logpdf(e, NU, scale=u * T_SCALE))
    assert scores.nll(e, u, "t", NU) == pytest.approx(expected_t, rel=1e-12)
    with pytest.raises(ValueError, match="nu > 2"):
        scores.nll(e, u, "t", 2.0)


def _bins(m, n):
    bounds = [math.floor(m * i / n + 0.5) for i in range(n + 1)]
    return [list(range(bounds[i], bounds[i + 1])) for i in range(n)]


def test_binned_errors_equal_plain_loops_over_bins():
    rng = np.random.default_rng(3)
    m = 103
    u = rng.uniform(0.5, 2.0, m)
    x = rng.normal(size=m)
    e = u * rng.standard_normal(m) * (1 + (x > 0))
    for by in (None, x):
        key = u if by is None else x
        order = sorted(range(m), key=lambda i, key=key: key[i])
        n = round(math.sqrt(m))
        ence = zmse = uce = 0.0
        for b in _bins(m, n):
            idx = [order[k] for k in b]
            mv = sum(u[i] ** 2 for i in idx) / len(idx)
            mse = sum(e[i] ** 2 for i in idx) / len(idx)
            zms = sum((e[i] / u[i]) ** 2 for i in idx) / len(idx)
            ence += abs(math.sqrt(mv) - math.sqrt(mse)) / math.sqrt(mv)
            zmse += abs(math.log(zms))
            uce += abs(mv - mse)
        assert scores.ence(e, u, by=by) == pytest.approx(ence / n, rel=1e-12)
        assert scores.zmse(e, u, by=by) == pytest.approx(zmse / n, rel=1e-12)
        assert scores.uce(e, u, by=by) == pytest.approx(uce / n, rel=1e-12)
    assert scores.uce(e, u, n_bins=1) == pytest.approx(abs(np.mean(u**2) - np.mean(e**2)))


def test_curve_scores_equal_loops_and_a_fine_integral(small):
    e, u = small
    p = np.linspace(0, 1, 100)
    obs = []
    for pk in p:
        half = stats.norm.ppf(0.5 + pk / 2)
        obs.append(sum(1 for ei, ui in zip(e, u, strict=True) if abs(ei / ui) <= half) / e.size)
    obs = np.array(obs)
    assert scores.mean_absolute_calibration_error(e, u) == pytest.approx(np.mean(np.abs(obs - p)))
    assert scores.rms_calibration_error(e, u) == pytest.approx(np.sqrt(np.mean((obs - p) ** 2)))
    fine = np.linspace(0, 1, 2_000_001)
    area = np.mean(np.abs(np.interp(fine, p, obs) - fine))
    assert scores.miscalibration_area(e, u) == pytest.approx(area, abs=1e-6)
    assert scores.sharpness(u) == pytest.approx(math.sqrt(sum(v * v for v in u) / u.size))


def test_curve_scores_match_uncertainty_toolbox():
    """uncertainty-toolbox takes (y_pred, y_std, y_true); y_true - y_pred = E."""
    rng = np.random.default_rng(2024)
    m = 2000
    u = np.sqrt(1.0 / rng.gamma(3.0, 1.0 / 3.0, m))
    e = 1.2 * u * rng.standard_t(6, m) / math.sqrt(1.5)
    y_pred = rng.normal(size=m)
    y_true = y_pred + e
    utb = uct.metrics.get_all_metrics(y_pred, u, y_true, verbose=False)
    pairs = {
        "miscalibration_area": (scores.miscalibration_area(e, u), utb["avg_calibration"]["miscal_area"]),
        "rms_calibration_error": (scores.rms_calibration_error(e, u), utb["avg_calibration"]["rms_cal"]),
        "mean_absolute_calibration_error": (
            scores.mean_absolute_calibration_error(e, u), utb["avg_calibration"]["ma_cal"]),
        "sharpness": (scores.sharpness(u), utb["sharpness"]["sharp"]),
        "nll": (scores.nll(e, u), utb["scoring_rule"]["nll"]),
        "crps": (scores.crps(e, u), utb["scoring_rule"]["crps"]),
        "check_score": (scores.check_score(e, u), utb["scoring_rule"]["check"]),
        "mae": (scores.mae(e), utb["accuracy"]["mae"]),
        "rmse": (scores.rmse(e), utb["accuracy"]["rmse"]),
        "mdae": (scores.mdae(e), utb["accuracy"]["mdae"]),
        "r2": (scores.r2(y_true, y_pred), utb["accuracy"]["r2"]),
    }
    for name, (ours, theirs) in pairs.items():
        assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12), name


def test_accuracy_scores_and_rank_correlation():
    y_true = pd.Series([1.0, 2.0, 4.0, 3.5, 0.0])
    y_pred = pd.Series([1.5, 1.0, 4.0, 3.0, 1.0])
    e = scores.errors_from(y_true, y_pred)
    assert list(e) == [-0.5, 1.0, 0.0, 0.5, -1.0]
    assert scores.mae(e) == pytest.approx(0.6)
    assert scores.rmse(e) == pytest.approx(math.sqrt(2.5 / 5))
    assert scores.mdae(e) == pytest.approx(0.5)
    ss_tot = sum((v - 2.1) ** 2 for v in y_true)
    assert scores.r2(y_true, y_pred) == pytest.approx(1 - 2.5 / ss_tot)
    # |E| = 0.5, 1, 0, 0.5, 1 -> ranks 2.5, 4.5, 1, 2.5, 4.5; uE ranks 1..5
    u = [0.1, 0.4, 0.2, 0.3, 0.5]
    ra, ru = np.array([2.5, 4.5, 1, 2.5, 4.5]) - 3, np.array([1, 4, 2, 3, 5]) - 3
    rho = (ra @ ru) / math.sqrt((ra @ ra) * (ru @ ru))
    assert scores.rank_correlation(e, u) == pytest.approx(rho)


@pytest.mark.parametrize(
    ("errors", "uncertainties", "match"),
    [
        ([1.0, np.nan, 2.0], [1.0, 1.0, 1.0], "errors has 1 NaN"),
        ([1.0, 2.0, 3.0], [1.0, 0.0, 1.0], "uncertainties has 1 non-positive"),
        ([1.0, 2.0], [1.0, 1.0, 1.0], "different lengths"),
        ([1.0], [1.0], "at least 2"),
        ([1.0, 2.0, 3.0], [1.0, np.inf, 1.0], "uncertainties has 1 NaN or infinite"),
    ],
)
def test_bad_input_raises_naming_the_argument(errors, uncertainties, match):
    for fn in (scores.nll, scores.crps, scores.ence, scores.miscalibration_area,
               scores.calibration_scores):
        with pytest.raises(ValueError, match=match):
            fn(errors, uncertainties)


def test_references_of_calibrated_data_contain_the_value_in_about_95_percent_of_seeds():
    rng = np.random.default_rng(99)
    m, n_seeds = 300, 100
    u = np.sqrt(1.0 / rng.gamma(4.0, 1.0 / 4.0, m))
    inside = {name: 0 for name in scores.SCORES}
    for s in range(n_seeds):
        e = u * np.random.default_rng(1000 + s).standard_normal(m)
        result = scores.calibration_scores(e, u, n_sim=400, seed=s)
        for row in result:
            inside[row.name] += row.inside
    # 99 % binomial band of the count for p = 0.95 (discrete curve scores: p >= 0.95)
    low = stats.binom.ppf(0.005, n_seeds, 0.95)
    for name, count in inside.items():
        assert count >= low, (name, count)
        assert count <= n_seeds
    assert inside["sharpness"] == n_seeds


def test_references_flag_planted_miscalibration_and_are_reproducible():
    rng = np.random.default_rng(5)
    u = np.sqrt(1.0 / rng.gamma(4.0, 1.0 / 4.0, 1000))
    e = 1.5 * u * rng.standard_normal(u.size)
    a = scores.calibration_scores(e, u, n_sim=200, seed=3)
    b = scores.calibration_scores(pd.Series(e), pd.Series(u), n_sim=200, seed=3)
    assert a.to_frame().equals(b.to_frame())
    for name in ("zms", "nll", "crps", "interval_score", "miscalibration_area", "zmse"):
        assert not a[name].inside, name
    assert a["zms"].ref_mean == pytest.approx(1.0, abs=0.01)
    assert a["crps"].ref_mean == pytest.approx(np.mean(u) / math.sqrt(math.pi), rel=0.01)
    assert "outside" in repr(a)
