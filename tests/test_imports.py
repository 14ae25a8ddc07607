"""What the pipeline's jobs import (issue 29): each Snakemake job is a fresh process, so a heavy
module imported without need costs its import time in every job (scipy.stats 0.8 CPU-s,
scipy.special 0.2, Numba 0.2, pandas 0.4, NumPy 0.13, Matplotlib 0.1-0.45). Such a regression is silent:
these tests import a job's modules, and run its computation, in a fresh interpreter and list
the heavy modules loaded (benchmarks/job_imports.md gives the times)."""

from __future__ import annotations

import ast
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from uqval.stats.intervals import t_interval
from uqval.validation.rules import t_test_p_value

HEAVY = ("numpy", "scipy.stats", "scipy.special", "scipy.optimize", "numba", "pandas", "matplotlib",
         "sklearn")


def loaded_heavy(code: str) -> list[str]:
    """The modules of :data:`HEAVY` loaded after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport sys\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return ast.literal_eval(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("code", "allowed"),
    [
        # fetch_raw_file (23 jobs): the registry checks quantities without the predictive classes
        ("import uqval.pipeline.fetch", []),
        ("import uqval.pipeline.registry, uqval.pipeline.quantities, uqval.predictive.columns", []),
        # validate_dataset (19 jobs) screens with the robust statistics, without the KS fits
        ("import uqval.validation.flowchart, uqval.calibration.screening",
         ["numpy", "pandas", "numba", "scipy.special"]),
        # reading a report's tables (verdicts_table, datasets_table) draws no figure
        ("import uqval.report.content", ["numpy", "pandas"]),
    ],
)
def test_light_modules_import_no_heavy_dependency(code, allowed):
    assert [m for m in loaded_heavy(code) if m not in allowed] == []


@pytest.mark.parametrize(
    ("code", "allowed"),
    [
        # simref_appb_chunk (10 jobs): draws and bin sums (compiled sort and running sums)
        ("from uqval.papers.simref.appendix_b import ence_zmse_reference_grid_point as f\n"
         "f(60, [3, 6], 4.0, 'T6IG', 8, 1); f(60, [3, 6], 4.0, 'NIG', 8, 1)",
         ["numpy", "pandas", "numba"]),
        # heavytails_pval_chunk (4 jobs): bootstrap (Numba kernel, scipy.special for BCa)
        ("from uqval.papers.heavytails.montecarlo import pval_repeats, tig_fixed_uncertainties\n"
         "pval_repeats('TIG', [4.0], [0], 40, 30, 1, fixed_uE=tig_fixed_uncertainties(40, 1))",
         ["numpy", "pandas", "numba", "scipy.special"]),
        # adaptivity_random_order_chunk (3 jobs): binning and the local bootstrap
        ("import numpy as np\nfrom uqval.papers.adaptivity.random_order import random_order_fv\n"
         "r = np.random.default_rng(0); u = r.uniform(0.5, 1, 200)\n"
         "random_order_fv(u * r.normal(size=200), u, r.integers(0, 4, 200), 5, [0], 3, 50)",
         ["numpy", "pandas", "numba", "scipy.special"]),
        # simref_references (2 jobs per dataset): the N and T simulations of every statistic
        ("import numpy as np\nfrom uqval import simref\n"
         "u = np.random.default_rng(0).uniform(0.5, 1, 300)\n"
         "simref.simulated_references(u, ['ZMS', 'CC', 'ENCE20', 'ZMSE20'], ('t', 6), 20, 1)",
         ["numpy", "pandas", "numba", "scipy.special"]),
        # simref_set (1 job per dataset): references and intervals into zeta schemes, ZMSE
        # extrapolation (the t fit of the z-scores is in simref_bootstrap)
        ("import numpy as np\nfrom uqval import simref\n"
         "from uqval.papers.simref import statistics as ps\n"
         "r = np.random.default_rng(0); u = r.uniform(0.5, 1, 2000); e = u * r.normal(size=2000)\n"
         "refs = {d: simref.simulated_references(u, ['ENCE20'], s, 20, 1)[0]\n"
         "        for d, s in (('N', 'normal'), ('T', ('t', 6)))}\n"
         "bs = simref.validation_bootstrap(e, u, 'ENCE20', n_boot=50, seed=2)\n"
         "simref.validate_statistic(e, u, 'ENCE20', n_boot=50, n_mc=20, seed=2, all_schemes=True,\n"
         "                          references=refs, bootstrap=bs)\n"
         "ps.zmse_extrapolation(e, u, range(10, 60, 10), 20, 20)",
         ["numpy", "pandas", "numba", "scipy.special"]),
    ],
)
def test_monte_carlo_jobs_run_without_scipy_stats(code, allowed):
    """The chunk jobs import and compute without scipy.stats (their modules import it on first
    use by the functions that need it)."""
    assert [m for m in loaded_heavy(code) if m not in allowed] == []


def test_t_interval_quantile_is_scipy_stats_t_ppf():
    """stats.intervals uses special.stdtrit(df, q) for stats.t.ppf(q, df): bit-identical,
    NaN for df = 0 (a single point) alike."""
    rng = np.random.default_rng(3)
    n = np.array([1.0, 2.0, 3.0, 5.0, 10.0, 31.0, 100.0, 1e4, 1e7, np.inf])
    mean, sd = rng.normal(size=n.size), rng.uniform(0.1, 3.0, n.size)
    for confidence in (0.5, 0.68, 0.9, 0.95, 0.99, 0.999999):
        got = t_interval(mean, sd, n, confidence)
        se = sd / np.sqrt(n)
        half = stats.t.ppf(0.5 * (1.0 + confidence), df=n - 1.0) * se
        np.testing.assert_array_equal(got.ci_low, mean - half)
        np.testing.assert_array_equal(got.ci_high, mean + half)


def test_t_test_p_value_is_scipy_stats_t_sf():
    """validation.rules uses special.stdtr(df, -x) for stats.t.sf(x, df): bit-identical."""
    rng = np.random.default_rng(4)
    for n in (1, 2, 3, 5, 30, 1000, 10**6):
        for mean in (*rng.normal(size=5), 0.0, 1e-300, -1e6):
            se = float(rng.uniform(1e-3, 2.0))
            expected = float(2.0 * stats.t.sf(abs(mean) / se, df=n - 1))
            got = t_test_p_value(float(mean), se, n)
            assert got == expected or (np.isnan(got) and np.isnan(expected)), (n, mean, se)
