"""False alarms of every stage on calibrated normal sets (M = 500, 120 sets; the limit is the
99.9 % quantile of Binomial(120, 0.05): 11.7 %); full scale: docs/explanations/error-rates.md."""

from __future__ import annotations

from rate_sets import assert_false_alarms_at_most_five_percent


def test_false_alarm_rate_per_stage_normal_errors():
    assert_false_alarms_at_most_five_percent(500, "normal", 120)
