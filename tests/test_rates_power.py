"""Power on a localised error and no spill-over (full scale: docs/explanations/error-rates.md)."""

from __future__ import annotations

from rate_sets import binomial_limit, stage_fail_rates


def test_power_on_a_localised_error_and_no_spill_over():
    """Uncertainties 2.5x too small where x1 > 0.75 (t(6) errors, M = 1000, 40 sets):
    adaptivity along x1 fails in (nearly) every set, while the unrelated feature and the
    consistency test (run after the global scaling) keep their false-alarm rate."""
    n_sets = 40
    rates = stage_fail_rates(1000, "t6", "local", range(n_sets))
    assert rates["adaptivity: x1"] >= 0.95
    assert rates["adaptivity: x2"] <= binomial_limit(n_sets)
    assert rates["consistency"] <= binomial_limit(n_sets)
