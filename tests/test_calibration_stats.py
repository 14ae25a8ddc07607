"""Tests for the average-calibration statistics (P001 Sect. II.1; P002 Eqs. 14-16)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from uqval._internal.checks import errors_uncertainties
from uqval.stats import zscore_statistics as cal

E_SMALL = np.array([1.0, -2.0, 3.0])
UE_SMALL = np.array([1.0, 2.0, 1.0])  # Z = [1, -1, 3]


def test_hand_computed_values():
    ln2pi = math.log(2 * math.pi)
    assert cal.mean_z(E_SMALL, UE_SMALL) == pytest.approx(1.0)
    assert cal.var_z(E_SMALL, UE_SMALL) == pytest.approx(4.0)  # (0 + 4 + 4)/2
    assert cal.zms_rows(E_SMALL, UE_SMALL) == pytest.approx(11 / 3)
    assert cal.mse(E_SMALL) == pytest.approx(14 / 3)
    assert cal.mv(UE_SMALL) == pytest.approx(2.0)
    assert cal.rmse_rows(E_SMALL) == pytest.approx(math.sqrt(14 / 3))
    assert cal.rmv(UE_SMALL) == pytest.approx(math.sqrt(2.0))
    assert cal.rce_rows(E_SMALL, UE_SMALL) == pytest.approx(1 - math.sqrt(7 / 3))
    assert cal.rce2_rows(E_SMALL, UE_SMALL) == pytest.approx(-4 / 3)
    assert cal.gaussian_nll_rows(E_SMALL, UE_SMALL) == pytest.approx(0.5 * (11 / 3 + math.log(4) / 3 + ln2pi))
    assert cal.nll_ref_rows(UE_SMALL) == pytest.approx(0.5 * (1 + math.log(4) / 3 + ln2pi))


@pytest.fixture
def sample():
    rng = np.random.default_rng(42)
    ue = np.sqrt(1 / rng.gamma(3, 1 / 3, size=400))
    return ue * rng.standard_t(5, size=400), ue


def test_closed_form_identities(sample):
    e, ue = sample
    m = e.size
    z = e / ue
    assert cal.var_z(e, ue) == pytest.approx(
        m / (m - 1) * (cal.zms_rows(e, ue) - cal.mean_z(e, ue) ** 2)
    )
    # 1 - RCE2 = MSE/MV = (1 - RCE)^2
    assert 1 - cal.rce2_rows(e, ue) == pytest.approx((1 - cal.rce_rows(e, ue)) ** 2)
    assert cal.gaussian_nll_rows(e, ue) - cal.nll_ref_rows(ue) == pytest.approx((cal.zms_rows(e, ue) - 1) / 2)
    assert cal.zms_rows(e, ue) == pytest.approx(np.sum(z**2) / m)
    # scale invariance of ZMS, RCE, RCE2
    for f in (cal.zms_rows, cal.rce_rows, cal.rce2_rows):
        assert f(7.5 * e, 7.5 * ue) == pytest.approx(f(e, ue))


def test_constant_uncertainty_identities(sample):
    e, _ = sample
    ue = np.full_like(e, 0.7)
    assert cal.zms_rows(e, ue) == pytest.approx(cal.mse(e) / 0.49)
    assert cal.rce2_rows(e, ue) == pytest.approx(1 - cal.zms_rows(e, ue))


def test_statistics_reduce_over_last_axis(sample):
    e, ue = sample
    stacked_e, stacked_ue = np.stack([e, e[::-1] * 2]), np.stack([ue, ue[::-1]])
    for f in (cal.mean_z, cal.var_z, cal.zms_rows, cal.rce_rows, cal.rce2_rows, cal.gaussian_nll_rows):
        rows = f(stacked_e, stacked_ue)
        assert rows.shape == (2,)
        assert rows[0] == pytest.approx(f(e, ue))
        assert rows[1] == pytest.approx(f(stacked_e[1], stacked_ue[1]))


@pytest.mark.parametrize(
    ("mean_stat", "func"),
    [
        (cal.ZMS, cal.zms_rows),
        (cal.RCE, cal.rce_rows),
        (cal.RCE2, cal.rce2_rows),
        (cal.NLL, cal.gaussian_nll_rows),
        (cal.MEAN_Z, cal.mean_z),
    ],
)
def test_mean_statistics_equal_plain_functions(sample, mean_stat, func):
    e, ue = sample
    assert mean_stat(e, ue) == pytest.approx(func(e, ue), rel=1e-12)
    stacked = mean_stat(np.stack([e, -e]), np.stack([ue, ue]))
    assert stacked == pytest.approx(np.array([func(e, ue), func(-e, ue)]), rel=1e-12)


def test_check_returns_float_arrays():
    e, ue = errors_uncertainties([1, 2], [1, 3])
    assert e.dtype == np.float64 and ue.dtype == np.float64
    assert list(ue) == [1.0, 3.0]


@pytest.mark.parametrize(
    ("e", "ue", "pattern"),
    [
        ([], [], "errors needs at least 1 value"),
        ([1.0, 2.0], [1.0], "different lengths"),
        ([[1.0]], [[1.0]], "errors must be 1-D"),
        (
            [1.0, np.nan, 2.0, np.inf],
            [1.0] * 4,
            r"errors has 2 NaN or infinite value\(s\) \(rows 2, 4\)",
        ),
        ([1.0, 2.0], [1.0, np.nan], r"uncertainties has 1 NaN or infinite value\(s\) \(row 2\)"),
        (
            [1.0] * 3,
            [0.0, 1.0, -2.0],
            r"uncertainties has 2 non-positive value\(s\) \(rows 1, 3\)",
        ),
    ],
)
def test_check_rejects_bad_input(e, ue, pattern):
    with pytest.raises(ValueError, match=pattern):
        errors_uncertainties(e, ue)


def test_check_lists_only_the_first_rows():
    ue = -np.ones(20)
    with pytest.raises(
        ValueError,
        match=r"20 non-positive value\(s\) \(rows 1, 2, 3, 4, 5, \.\.\.\)",
    ):
        errors_uncertainties(np.ones(20), ue)
