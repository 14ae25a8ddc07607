"""Primer Table 1 diagnostics recovered by the library on fresh synthetic cases A-F.

Calibration: the 95 % interval of Var(Z) (Cho formula) contains 1. Conditional tests use
15 equal-count bins (of uE for consistency, of X for adaptivity) and the fraction f_v of bins
whose interval contains the target: a case passes with f_v >= 0.7 (for 15 bins at the nominal
0.95 a lower value has probability < 1 %) and fails clearly with f_v <= 0.2.
"""

import numpy as np
import pytest

from uqval import binning
from uqval.calibration.coverage import interval_half_widths, local_coverage
from uqval.calibration.fraction_valid import fraction_valid
from uqval.calibration.local import global_zvar, local_zisd
from uqval.papers.primer.cases import synthetic_cases

PASS, FAIL = 0.7, 0.2


def calibrated(c) -> bool:
    v = global_zvar(c["E"], c["uE"], method="cho").iloc[0]
    return bool(v["ci_low"] <= 1.0 <= v["ci_high"])


def lzisd_fv(c, variable: str) -> float:
    bins = binning.equal_count_bins(c[variable], 15)
    local = local_zisd(c["E"], c["uE"], c[variable], bins, method="cho")
    return fraction_valid(local).value


def lcp_fv(c, variable: str, prob: float = 0.5) -> float:
    bins = binning.equal_count_bins(c[variable], 15)
    half = interval_half_widths(c["uE"], [prob])
    local = local_coverage(c["E"], half, c[variable], bins, [prob])
    return fraction_valid(local).value


@pytest.fixture(scope="module", params=[1, 2, 3])
def cases(request):
    return synthetic_cases(np.random.default_rng(1000 + request.param))


def test_case_a_passes_everything(cases):
    a = cases["A"]
    assert calibrated(a)
    assert lzisd_fv(a, "uE") >= PASS and lzisd_fv(a, "X") >= PASS
    assert lcp_fv(a, "uE") >= PASS and lcp_fv(a, "X") >= PASS


def test_case_b_fails_consistency_and_adaptivity(cases):
    b = cases["B"]
    assert calibrated(b)
    assert lcp_fv(b, "uE") <= FAIL  # errors within a uE bin are not uE * N(0, 1)
    assert lzisd_fv(b, "X") <= FAIL


@pytest.mark.parametrize("name", ["C", "D"])
def test_cases_c_d_fail_consistency_and_adaptivity(cases, name):
    assert lzisd_fv(cases[name], "uE") <= FAIL
    assert lzisd_fv(cases[name], "X") <= FAIL


def test_case_d_fails_calibration_and_f_passes(cases):
    assert not calibrated(cases["D"])
    assert calibrated(cases["F"])
    assert lzisd_fv(cases["F"], "X") >= PASS  # authors' recipe: fresh homoscedastic errors


def test_case_e_is_calibrated_and_consistent_in_variance(cases):
    e = cases["E"]
    assert calibrated(e)
    assert lzisd_fv(e, "uE") >= PASS
    assert lcp_fv(e, "uE") <= FAIL  # normal intervals misfit t_4 errors (primer Fig. 6e)
