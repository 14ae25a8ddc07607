"""Independent ground truth for ``benchmarks/real_outputs.py`` (does not import uqval).

What would a statistician advise for each (dataset, model) output file, from first
principles? Only numpy, scipy and pandas (reading the CSV files) are used; every random step
is seeded. The file's columns tell the kind of output: ``sd`` (a normal predictive or
errors with standard uncertainties), ``member_*`` (an ensemble), ``q_*`` (quantiles),
``lo_0.9``/``hi_0.9`` (a 90 % interval); ``f_*`` are the features, ``y`` the observations
and ``pred`` the point predictions.

The vocabulary of findings (several may hold; none of them: ``none``):

``scale``  all uncertainties should be multiplied by one factor.
``bias``   the errors are offset.
``local:V`` some range of the variable V (``uncertainty``, or a feature) needs a different
           factor (or has a different coverage) than the rest.
``bias:V`` the errors are offset in some range of V (relative to the global offset).
``coverage`` the intervals cover too much or too little on average.

Rules (tolerance t = 10 %, alpha = 5 %, B = 2000 percentile-bootstrap replicates, K = 5
equal-count bins; a factor is "beyond the tolerance" outside [1/(1 + t), 1 + t]):

Standard deviations (sd columns and ensembles), z = (y - pred)/sd:

1. ``bias`` if |mean z|/sqrt(mean z^2) > 0.1 and its 95 % bootstrap interval excludes 0: the
   offset in units of the errors' actual spread (for uncertainties that are right on
   average this is mean z; for uncertainties 4 times too small an offset of 0.3 z is a
   small one).
2. Global factor f = sqrt(mean z^2), or sd(z) when ``bias`` holds (the spread once the offset
   is corrected, so that an offset is not advised twice). ``scale`` if the 95 % bootstrap
   interval of f excludes 1 and f is beyond the tolerance.
Bootstrap: rows drawn with replacement, or, when the file has a ``group`` column (the
compounds' Bemis-Murcko scaffolds), whole groups: compounds of one scaffold have correlated
errors, and treating them as independent would make every interval too narrow. With G
groups the percentile interval's two arms about the estimate are stretched by
c = sqrt(G/(G - 1)) t_(G-1)(p)/Phi^-1(p), p = 1 - (1 - level)/2, on the log scale for factors
and ratios (the few-cluster correction; c = 1.02 at the 95 % level for 110 groups, 1.12 for
16): with the 16 makes of ``cars`` the plain percentile intervals found a false range in
16-24 % of the draws with the uncertainties right by construction, the stretched ones in
4-8 % (``real_outputs_nulls.md``).

3. Along each variable V (the sd itself unless it is constant, and each feature): K
   equal-count bins of V; the ratio r_k = f_k/f of the bin's factor to the global one, both
   recomputed in each bootstrap replicate; Bonferroni-adjusted percentile intervals at level 1 - alpha/(K n_V), n_V the
   number of variables. ``local:V`` if at least one bin's interval lies entirely beyond
   the tolerance band. Relative to the global factor: a scale error alone is not local.
   Rule 3b: when ``local:uncertainty`` holds, the features are judged (rule 3 and the
   offsets below) after recalibrating along the uncertainty, each of its bins by its own
   ratio: a statistician fixes the uncertainty's own trend first, and a feature's range that
   departs only because it holds many small (or large) uncertainties needs nothing more.
   ``bias:V`` if at least one bin's offset, mean z in the bin minus the global mean z in
   units of the global sqrt(mean z^2) (same replicates and level), has its
   interval entirely beyond +-0.1.
4. Ensembles of m members: sd^2 = (1 + 1/m) s^2 with s^2 the unbiased member variance. Even
   a perfect ensemble (y and members i.i.d. normal) then has z ~ t_(m-1) and
   E(z^2) = (m - 1)/(m - 3) (1.4 for m = 8): the finite-member floor, not a miscalibration.
   The ensemble's z is divided by sqrt((m - 1)/(m - 3)) before rules 1-3. Along the
   ensemble's own sd, binning on a noisy s puts the rows whose s came out small into the low
   bins, where even a perfect ensemble has large z: each bin's ratio is divided by its
   expected value for a perfect ensemble (simulated, 200 replicates, the given sd taken as
   the true one) before rule 3.

Intervals (a 90 % interval, or the 5 %-95 % quantiles sorted per row):

5. Coverage c = share of y inside (with a ``group`` column: cluster-bootstrap intervals
   instead of Clopper-Pearson ones, here and below); the tolerance band is the coverage of a normal interval
   whose width is off by the factor 1 + t either way: [2 Phi(q/(1 + t)) - 1,
   2 Phi(q (1 + t)) - 1] with q = Phi^-1(0.95), i.e. [0.866, 0.930]. ``coverage`` if the
   Clopper-Pearson 95 % interval of c excludes 0.9 and c is outside the band.
6. Quantiles: the share below the median, target 0.5, band [Phi(-0.1), Phi(0.1)] (a shift of
   a tenth of a sd); ``bias`` if its Clopper-Pearson interval excludes 0.5 and it is outside
   the band.
7. Along each variable V (interval width hi - lo, called ``uncertainty``, and each feature),
   K equal-count bins: ``local:V`` if the coverage differs between bins (chi-square test of
   homogeneity, p < alpha/n_V; with a ``group`` column the statistic is divided by the
   design effect of the coverage, the cluster-bootstrap variance of c over c(1 - c)/n, the
   first-order correction of Rao and Scott 1981 for clustered rows) and at least one bin's
   Clopper-Pearson interval at level 1 - alpha/(K n_V) lies entirely outside the band
   around the overall coverage c: [2 Phi(q_c/(1 + t)) - 1, 2 Phi(q_c (1 + t)) - 1] with
   q_c = Phi^-1((1 + c)/2), i.e. the bin needs a width factor beyond the tolerance relative
   to the rest, as rule 3 asks of the sd (for c = 0.9 it is the band of rule 5). A bin
   judged against the nominal band would count the global miss once more in every bin.

Equal-count bins: cut at the K-quantiles of V with tied values kept in one bin (so a variable
with many ties, e.g. precipitation with 60 % dry days, gets fewer, larger bins).

Usage: ``python benchmarks/real_outputs_truth.py [FOLDER]`` prints the findings of every
``*.csv`` output file in FOLDER (default ``benchmarks/results/real_outputs``) and writes
``truth.csv`` there; ``python benchmarks/real_outputs_truth.py --seeds 10 [FOLDER]`` prints
the files whose findings change with the seed of the truth's own bootstrap.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

TOL = 0.10
ALPHA = 0.05
B = 2000
K = 5
Q90 = stats.norm.ppf(0.95)
FACTOR_BAND = (1 / (1 + TOL), 1 + TOL)
COVERAGE_BAND = (2 * stats.norm.cdf(Q90 / (1 + TOL)) - 1, 2 * stats.norm.cdf(Q90 * (1 + TOL)) - 1)
MEDIAN_BAND = (stats.norm.cdf(-TOL), stats.norm.cdf(TOL))


def equal_count_bins(v: np.ndarray, k: int = K) -> list[np.ndarray]:
    """Rows in k bins cut at the quintiles of v, ties kept together (fewer bins if needed)."""
    codes = pd.qcut(v, k, labels=False, duplicates="drop")
    return [np.flatnonzero(codes == c) for c in np.unique(codes)]


def _clopper_pearson(x: int, n: int, level: float) -> tuple[float, float]:
    a = 1 - level
    lo = stats.beta.ppf(a / 2, x, n - x + 1) if x > 0 else 0.0
    hi = stats.beta.ppf(1 - a / 2, x + 1, n - x) if x < n else 1.0
    return float(lo), float(hi)


def _band_around(c: float) -> tuple[float, float]:
    """The coverages of a central normal interval covering c whose width is off by the
    factor 1 + t either way: [2 Phi(q_c/(1 + t)) - 1, 2 Phi(q_c (1 + t)) - 1] with
    q_c = Phi^-1((1 + c)/2) (COVERAGE_BAND for c = 0.9)."""
    q = stats.norm.ppf((1 + min(max(c, 1e-9), 1 - 1e-9)) / 2)
    return 2 * stats.norm.cdf(q / (1 + TOL)) - 1, 2 * stats.norm.cdf(q * (1 + TOL)) - 1


def outside(lo: float, hi: float, band: tuple[float, float]) -> bool:
    """The interval [lo, hi] lies entirely on one side of the band."""
    return hi < band[0] or lo > band[1]


def _variables(df: pd.DataFrame, unc: np.ndarray) -> dict[str, np.ndarray]:
    out = {}
    if np.ptp(unc) > 1e-12 * np.abs(unc).max():
        out["uncertainty"] = unc
    for c in df.columns:
        if c.startswith("f_") and np.ptp(df[c].to_numpy()) > 0:
            out[c[2:]] = df[c].to_numpy(float)
    return out


def ensemble_null_ratios(sd: np.ndarray, m: int, seed: int = 0, reps: int = 200) -> np.ndarray:
    """Expected bin ratios along the ensemble's own sd for a perfect m-member ensemble.

    Rows are binned on the estimated sd, whose chi-square noise puts the rows whose s^2 came
    out small into the low bins: their z^2 is large even for a perfect ensemble. Simulated
    with the given sd as the true one: E ~ N(0, sd^2 (1 + 1/m)), s^2 ~ sd^2 chi2_(m-1)/(m-1).
    """
    rng = np.random.default_rng(seed)
    c = (m - 1) / (m - 3)
    out = np.zeros(len(equal_count_bins(sd)))
    for _ in range(reps):
        e = sd * np.sqrt(1 + 1 / m) * rng.standard_normal(sd.size)
        s2 = sd**2 * rng.chisquare(m - 1, sd.size) / (m - 1)
        u = np.sqrt((1 + 1 / m) * s2)
        z = e / u / np.sqrt(c)
        f = np.sqrt(np.mean(z**2))
        out += [np.sqrt(np.mean(z[b] ** 2)) / f for b in equal_count_bins(u)]
    return out / reps


def bootstrap_weights(n: int, groups: np.ndarray | None, rng) -> np.ndarray:
    """B x n replicate weights: rows drawn with replacement, or whole groups when given."""
    if groups is None:
        return np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(B)])
    codes, inverse = np.unique(groups, return_inverse=True)
    draws = np.stack([np.bincount(rng.integers(0, codes.size, codes.size), minlength=codes.size)
                      for _ in range(B)])
    return draws[:, inverse]


def _wmean(a: np.ndarray, w: np.ndarray) -> np.ndarray:
    return (w * a).sum(-1) / np.maximum(w.sum(-1), 1)


def judge_sd(df: pd.DataFrame, z: np.ndarray, sd: np.ndarray, seed: int = 0,
             null: np.ndarray | None = None):
    rng = np.random.default_rng(seed)
    groups = df["group"].to_numpy() if "group" in df else None
    w = bootstrap_weights(z.size, groups, rng)
    found, info = [], {}
    n_groups = None if groups is None else np.unique(groups).size

    def q(a, lev, est, log=False):
        """Percentile interval of the replicates a; with G groups its two arms about the
        estimate stretched by c = sqrt(G/(G-1)) t_(G-1)(p)/Phi^-1(p), p = 1 - (1 - lev)/2
        (on the log scale for factors and ratios): the few-cluster correction of the
        percentile cluster bootstrap, 1 for many groups."""
        lo, hi = np.percentile(a, [50 * (1 - lev), 100 - 50 * (1 - lev)])
        if n_groups is None:
            return lo, hi
        p = 1 - (1 - lev) / 2
        c = np.sqrt(n_groups / (n_groups - 1)) * stats.t.ppf(p, n_groups - 1) / stats.norm.ppf(p)
        if log:
            if not (est > 0 and lo > 0):
                return 0.0, np.exp(np.log(est) + c * (np.log(hi) - np.log(est))) if est > 0 \
                    else np.inf
            e = np.log(est)
            return np.exp(e - c * (e - np.log(lo))), np.exp(e + c * (np.log(hi) - e))
        return est - c * (est - lo), est + c * (hi - est)

    def rms(zz, ww=None):
        return np.sqrt(np.mean(zz**2)) if ww is None else np.sqrt(_wmean(zz**2, ww))

    def spread(zz, ww=None):  # sd(z) once the offset is corrected, else sqrt(mean z^2)
        if not biased:
            return rms(zz, ww)
        if ww is None:
            return zz.std()
        return np.sqrt(np.maximum(_wmean(zz**2, ww) - _wmean(zz, ww) ** 2, 0))

    mz = z.mean() / rms(z)
    mz_lo, mz_hi = q(_wmean(z, w) / rms(z, w), 0.95, z.mean() / rms(z))
    info["mean_z/rms_z"] = f"{mz:.3f} [{mz_lo:.3f}, {mz_hi:.3f}]"
    biased = bool(abs(mz) > 0.1 and (mz_lo > 0 or mz_hi < 0))
    if biased:
        found.append("bias")
    f = float(spread(z))
    f_lo, f_hi = q(spread(z, w), 0.95, f, log=True)
    info["factor"] = f"{f:.3f} [{f_lo:.3f}, {f_hi:.3f}]"
    if (f_lo > 1 or f_hi < 1) and (f < FACTOR_BAND[0] or f > FACTOR_BAND[1]):
        found.append("scale")
    variables = _variables(df, sd)
    level = 1 - ALPHA / (K * max(len(variables), 1))
    for name, v in variables.items():
        bins = equal_count_bins(v)
        g, gm, gs = spread(z, w), _wmean(z, w), rms(z, w)
        worst, flagged = (np.inf, ""), False
        ref = null if (null is not None and name == "uncertainty") else np.ones(len(bins))
        for b, r0 in zip(bins, ref, strict=True):
            ratio = spread(z[b]) / f / r0
            lo, hi = q(spread(z[b], w[:, b]) / g / r0, level, ratio, log=True)
            # how far the interval clears the band (> 0) or reaches into it (< 0)
            gap = lo - FACTOR_BAND[1] if ratio > 1 else FACTOR_BAND[0] - hi
            text = f"{v[b].min():.3g}..{v[b].max():.3g}: ratio {ratio:.2f} [{lo:.2f}, {hi:.2f}]"
            if outside(lo, hi, FACTOR_BAND):
                flagged = True
            if -gap < worst[0]:
                worst = (-gap, text)
        if flagged:
            found.append(f"local:{name}")
        info[f"{'local' if flagged else 'nearest local'}:{name}"] = worst[1]
        # local offsets: bin mean of z minus the global mean, in units of the global rms
        worst, flagged = (np.inf, ""), False
        for b in bins:
            d = (z[b].mean() - z.mean()) / rms(z)
            lo, hi = q((_wmean(z[b], w[:, b]) - gm) / gs, level, d)
            gap = lo - 0.1 if d > 0 else -0.1 - hi
            text = (f"{v[b].min():.3g}..{v[b].max():.3g}: mean z - global {d:.2f} "
                    f"[{lo:.2f}, {hi:.2f}]")
            if outside(lo, hi, (-0.1, 0.1)):
                flagged = True
            if -gap < worst[0]:
                worst = (-gap, text)
        if flagged:
            found.append(f"bias:{name}")
        info[f"{'bias' if flagged else 'nearest bias'}:{name}"] = worst[1]
        if name == "uncertainty" and f"local:{name}" in found:
            # rule 3b: recalibrate along the uncertainty first (each sd bin by its own factor,
            # beyond the finite-member expectation for ensembles), then judge the features
            z = z.copy()
            for b, r0 in zip(bins, ref, strict=True):
                z[b] = z[b] / (spread(z[b]) / f / r0)
            f = float(spread(z))
            info["features judged after"] = "recalibration along the uncertainty"
    if groups is not None:
        info["bootstrap"] = f"over {np.unique(groups).size} groups"
    return found, info


def judge_interval(df: pd.DataFrame, lo: np.ndarray, hi: np.ndarray, median=None):
    y = df["y"].to_numpy(float)
    n = y.size
    found, info = [], {}
    w = (bootstrap_weights(n, df["group"].to_numpy(), np.random.default_rng(0))
         if "group" in df else None)

    def share_interval(ind: np.ndarray, level: float, rows=None) -> tuple[float, float]:
        """Clopper-Pearson, or with groups (scaffolds) a cluster-bootstrap percentile one."""
        rows = np.arange(n) if rows is None else rows
        if w is None:
            return _clopper_pearson(int(ind[rows].sum()), rows.size, level)
        a = _wmean(ind[rows].astype(float), w[:, rows])
        return tuple(np.percentile(a, [50 * (1 - level), 100 - 50 * (1 - level)]))

    cov = (y >= lo) & (y <= hi)
    c = cov.mean()
    c_lo, c_hi = share_interval(cov, 0.95)
    info["coverage"] = f"{c:.3f} [{c_lo:.3f}, {c_hi:.3f}]"
    if (c_lo > 0.9 or c_hi < 0.9) and not COVERAGE_BAND[0] <= c <= COVERAGE_BAND[1]:
        found.append("coverage")
    if median is not None:
        below = y <= median
        m = below.mean()
        m_lo, m_hi = share_interval(below, 0.95)
        info["below_median"] = f"{m:.3f} [{m_lo:.3f}, {m_hi:.3f}]"
        if (m_lo > 0.5 or m_hi < 0.5) and not MEDIAN_BAND[0] <= m <= MEDIAN_BAND[1]:
            found.append("bias")
    variables = _variables(df, hi - lo)
    level = 1 - ALPHA / (K * max(len(variables), 1))
    # the design effect of the coverage indicator: 1 without groups; with groups the cluster
    # bootstrap variance of the coverage over its binomial variance (Rao and Scott 1981: the
    # chi-square statistic of clustered rows divided by it is again about chi-square)
    deff = 1.0
    if w is not None and 0 < c < 1:
        deff = max(1.0, float(np.var(_wmean(cov.astype(float), w))) / (c * (1 - c) / n))
    info["design_effect"] = f"{deff:.2f}"
    band = _band_around(c)
    for name, v in variables.items():
        bins = equal_count_bins(v)
        counts = np.array([[cov[b].sum(), (~cov[b]).sum()] for b in bins])
        p = 1.0
        if (counts.sum(0) > 0).all():
            chi2 = stats.chi2_contingency(counts, correction=False)[0] / deff
            p = float(stats.chi2.sf(chi2, len(bins) - 1))
        bad = []
        for b, (x, _) in zip(bins, counts, strict=True):
            lo_b, hi_b = share_interval(cov, level, b)
            if outside(lo_b, hi_b, band):
                bad.append(f"{v[b].min():.3g}..{v[b].max():.3g}: {x / b.size:.2f} "
                           f"[{lo_b:.2f}, {hi_b:.2f}]")
        if p < ALPHA / len(variables) and bad:
            found.append(f"local:{name}")
            info[f"local:{name}"] = f"chi2 p={p:.2g}; " + "; ".join(bad)
    return found, info


def judge(df: pd.DataFrame, seed: int = 0) -> tuple[str, list[str], dict[str, str]]:
    """(kind, findings, details) of one output file; ``seed``: of the bootstrap of rules 1-3."""
    y = df["y"].to_numpy(float)
    members = [c for c in df.columns if c.startswith("member_")]
    quant = sorted((c for c in df.columns if c.startswith("q_")), key=lambda c: float(c[2:]))
    if "sd" in df:
        sd = df["sd"].to_numpy(float)
        kind, (found, info) = "normal", judge_sd(df, (y - df["pred"].to_numpy(float)) / sd, sd,
                                                  seed=seed)
    elif members:
        x = df[members].to_numpy(float)
        m = x.shape[1]
        sd = np.sqrt((1 + 1 / m) * x.var(1, ddof=1))
        z = (y - x.mean(1)) / sd / np.sqrt((m - 1) / (m - 3))
        kind, (found, info) = "ensemble", judge_sd(df, z, sd, seed=seed,
                                                null=ensemble_null_ratios(sd, m))
        info["floor"] = f"E(z^2) target {(m - 1) / (m - 3):.3f} for m = {m}"
    elif quant:
        q = np.sort(df[quant].to_numpy(float), axis=1)
        taus = [float(c[2:]) for c in quant]
        kind = "quantiles"
        found, info = judge_interval(df, q[:, taus.index(0.05)], q[:, taus.index(0.95)],
                                     median=q[:, taus.index(0.5)])
    else:
        kind = "intervals"
        found, info = judge_interval(df, df["lo_0.9"].to_numpy(float),
                                     df["hi_0.9"].to_numpy(float))
    return kind, sorted(found), info


def main(folder: Path) -> pd.DataFrame:
    rows = []
    for path in sorted(folder.glob("*__*.csv")):
        if path.name.endswith(".advice.csv"):
            continue
        dataset, model = path.stem.split("__")
        kind, found, info = judge(pd.read_csv(path))
        rows.append({"dataset": dataset, "model": model, "kind": kind,
                     "truth": ";".join(found) or "none",
                     "details": "; ".join(f"{k} {v}" for k, v in info.items())})
    table = pd.DataFrame(rows)
    table.to_csv(folder / "truth.csv", index=False)
    return table


def seed_flips(folder: Path, seeds: int) -> pd.DataFrame:
    """How the truth's findings of each sd or ensemble file vary with the seed of its own
    bootstrap (seeds 0 .. seeds - 1): the files whose findings are not the same under every
    seed, with the count of each set of findings (a truth that flips sits at the edge)."""
    rows = []
    for path in sorted(folder.glob("*__*.csv")):
        df = pd.read_csv(path) if not path.name.endswith(".advice.csv") else None
        if df is None or not ("sd" in df or any(c.startswith("member_") for c in df.columns)):
            continue
        found = pd.Series([";".join(judge(df, seed=s)[1]) or "none" for s in range(seeds)])
        counts = found.value_counts()
        if len(counts) > 1:
            rows.append({"file": path.stem, "findings": "; ".join(
                f"{k} ({v} of {seeds})" for k, v in counts.items())})
    return pd.DataFrame(rows, columns=["file", "findings"])


if __name__ == "__main__":
    here = Path(__file__).resolve().parent / "results" / "real_outputs"
    args = sys.argv[1:]
    if args[:1] == ["--seeds"]:  # python benchmarks/real_outputs_truth.py --seeds 10 [FOLDER]
        n = int(args[1])
        out = seed_flips(Path(args[2]) if len(args) > 2 else here, n)
    else:
        out = main(Path(args[0]) if args else here)
    with pd.option_context("display.width", 250, "display.max_colwidth", 120):
        print(out.to_string(index=False))
