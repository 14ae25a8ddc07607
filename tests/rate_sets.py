"""Simulated sets of the small-scale rate tests (tests/test_rates_*.py): calibrated or with a
planted local error, and the share of sets in which each stage of ``uqval.validate`` fails.

Each rate file runs on its own pytest-xdist worker (``--dist loadfile``); the full-scale
measurements are benchmarks/validation_error_rates.py (docs/explanations/error-rates.md).
"""

from __future__ import annotations

import numpy as np
from scipy import stats

import uqval

FAST = {"n_boot": 200, "n_permutations": 199}
"""Fewer draws than the defaults; the decisions near the level are drawn again (refinement)."""


def rate_set(m: int, seed: int, errors: str, case: str) -> tuple:
    """E = uE·D with uE lognormal(0, 0.5), D normal or unit-variance t(6), features x1 ~ U(0, 1)
    and x2 ~ N(0, 1) unrelated to uE; ``case="local"``: errors 2.5x where x1 > 0.75."""
    rng = np.random.default_rng(seed)
    u = rng.lognormal(0.0, 0.5, m)
    x1, x2 = rng.uniform(0, 1, m), rng.normal(size=m)
    d = rng.normal(size=m) if errors == "normal" else rng.standard_t(6, m) * np.sqrt(4 / 6)
    e = u * d
    if case == "local":
        e = np.where(x1 > 0.75, 2.5 * e, e)
    return e, u, {"x1": x1, "x2": x2}


def stage_fail_rates(m: int, errors: str, case: str, seeds: range) -> dict[str, float]:
    """Share of the sets ``seeds`` in which each stage's verdict is ``fail``."""
    fails: dict[str, int] = {}
    for seed in seeds:
        e, u, feats = rate_set(m, seed, errors, case)
        verdicts = uqval.validate(e, u, feats, seed=seed, **FAST).stage_verdicts
        for stage, v in verdicts.items():
            fails[stage] = fails.get(stage, 0) + (v == "fail")
    return {k: v / len(seeds) for k, v in fails.items()}


def binomial_limit(n_sets: int, rate: float = 0.05, quantile: float = 0.999) -> float:
    """The ``quantile`` of Binomial(n_sets, rate) as a share: a true rate of at most ``rate``
    exceeds it in at most 0.1 % of the runs."""
    return float(stats.binom.ppf(quantile, n_sets, rate)) / n_sets


def assert_false_alarms_at_most_five_percent(m: int, errors: str, n_sets: int) -> None:
    """Calibrated sets: every stage fails in at most 5 % of them, up to the binomial noise."""
    rates = stage_fail_rates(m, errors, "null", range(n_sets))
    assert set(rates) == {"average", "consistency", "adaptivity: x1", "adaptivity: x2", "joint"}
    limit = binomial_limit(n_sets)
    for stage, rate in rates.items():
        assert rate <= limit, (stage, rate, limit)
