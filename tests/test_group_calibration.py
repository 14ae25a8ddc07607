"""Adversarial group calibration (Zhao et al. 2020, as in uncertainty-toolbox)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from uqval import scores
from uqval.calibration.group import adversarial_group_calibration
from uqval.plots.group_calibration import group_calibration


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(12)
    u = np.sqrt(1.0 / rng.gamma(4.0, 1.0 / 4.0, 1500))
    e = u * rng.standard_normal(u.size)
    planted = e.copy()
    planted[:150] *= 3.0  # 10 % of the points with errors 3x their uncertainty
    return e, u, planted


def test_group_sizes_and_the_whole_set_equal_the_mace(data):
    e, u, _ = data
    res = adversarial_group_calibration(e, u, n_ref=0, seed=1)
    assert list(res.size) == [max(round(1500 * r), 2) for r in np.linspace(0, 1, 10)]
    # without replacement, a group of all M points is the whole set: no variation
    assert res.worst_mean[-1] == pytest.approx(scores.mean_absolute_calibration_error(e, u))
    assert res.worst_se[-1] == pytest.approx(0.0, abs=1e-15)
    rms = adversarial_group_calibration(e, u, kind="rmsce", n_ref=0, seed=1)
    assert rms.worst_mean[-1] == pytest.approx(scores.rms_calibration_error(e, u))
    assert np.all(np.isnan(res.ref_mean))


def test_calibrated_data_follow_the_reference_and_planted_errors_leave_it(data):
    e, u, planted = data
    ok = adversarial_group_calibration(e, u, n_ref=10, seed=2)
    bad = adversarial_group_calibration(planted, u, n_ref=10, seed=2)
    large = ok.fraction >= 0.3
    assert np.mean((ok.worst_mean >= ok.ref_low) & (ok.worst_mean <= ok.ref_high)) >= 0.7
    assert np.all(bad.worst_mean[large] > bad.ref_high[large])
    frame = bad.to_frame()
    assert list(frame.columns)[:3] == ["fraction", "size", "worst_mean"]
    again = adversarial_group_calibration(planted, u, n_ref=10, seed=2)
    assert np.array_equal(again.worst_mean, bad.worst_mean)


def test_plot_returns_the_axes(data):
    e, u, _ = data
    fig, ax = plt.subplots()
    out = group_calibration(e, u, ax=ax, n_ref=3, n_trials=3, n_draws=3)
    assert out is ax
    assert "MACE" in ax.get_ylabel()
    plt.close(fig)
    with pytest.raises(ValueError, match="kind"):
        adversarial_group_calibration(e, u, kind="ece")
