"""False alarms of every stage on calibrated sets with unit-variance t(6) errors (M = 2000,
100 sets; the limit is the 99.9 % quantile of Binomial(100, 0.05): 13 %); full scale:
docs/explanations/error-rates.md."""

from __future__ import annotations

from rate_sets import assert_false_alarms_at_most_five_percent


def test_false_alarm_rate_per_stage_t6_errors():
    assert_false_alarms_at_most_five_percent(2000, "t6", 100)
