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
import platform
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
import real_outputs_truth as truth  # noqa: E402

import uqval  # noqa: E402

OUT = HERE / "results" / "real_outputs"
REPORT = HERE / "real_outputs.md"
SETTINGS = dict(seed=0, n_boot=500)


def generate(refit: bool) -> dict[str, str]:
    notes: dict[str, str] = {}
    t_start = time.time()
    OUT.mkdir(parents=True, exist_ok=True)
    for make in data.DATASETS:
        name = make.__name__
        if not refit and list(OUT.glob(f"{name}__*.csv")):
            continue
        t = time.time()
        ds = make()
        models = data.fit_models(ds)
        for model, out in models.items():
            data.to_frame(out, ds["features"], ds.get("groups")).to_csv(OUT / f"{name}__{model}.csv", index=False)
            if "note" in out:
                notes[f"{name}__{model}"] = out["note"]
        print(f"{name}: {[len(s) for s in ds['split']]} rows (train, calibration, test), "
              f"{ds['split_kind']} split, fitted in {time.time() - t:.0f} s", flush=True)
    path = OUT / "notes.json"
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
_GP_DIP = (
    "Along the sd, at the edge, a matter of bin resolution. The truth's offset is one middle "
    "quintile of the sd (0.615-0.683: mean z - global -0.54 [-0.91, -0.20], scaffolds "
    "resampled), between quintiles at +0.12, -0.03, +0.23 and +0.22: a single non-monotone dip. "
    "uqval's 3 bins of ~100 rows (its default at 298 rows) split that quintile across two bins "
    "(-0.23, -0.18, +0.19 in units of the scaled sd); its cumulative test of Z along the sd "
    "fails (adjusted p = 0.005, scaffolds exchanged by size) but no range of its bins is "
    "clear by a simultaneous interval, so it advises no correction there and says so. An "
    "offset confined to one fifth of the sd range with no trend is weak ground for correcting "
    "the predictions there.")
_TEMP_MIN = (
    "uqval preferred. The cold days are a finding of their own, not precipitation leaking "
    "through a correlated feature (Spearman -0.18 between them): the days with temp_min <= 3.9 "
    "have the factor 0.75 of the constant sd whether dry (74 days) or wet (25 days: 0.74), and "
    "after recalibrating the wet days (precipitation >= 2.3) the cold days still need 0.84 and "
    "the warm ones (>= 12.2) 1.13. The truth's coldest quintile is {q}: its upper end misses "
    "the band's edge 1/1.1 = 0.909 by a hair; uqval's permutation test fails and its range "
    "merges adjacent bins.")
_MOL_WEIGHT = (
    "uqval preferred: the predictions' offset depends on mol_weight, the same for every sd "
    "given with these predictions: mean z -0.36 [-0.54, -0.18], -0.10, +0.28 [-0.01, 0.56] in "
    "uqval's three bins from light to heavy (cluster-robust intervals over the scaffolds), the "
    "binned <Z> test and the cumulative test along mol_weight fail (adjusted p = 0.008 and "
    "0.014, the scaffolds exchanged by size: most hold one compound). The truth sees the same "
    "trend (its heaviest quintile +0.53 [0.02, 0.98] beyond the global offset) but asks the "
    "whole Bonferroni interval over its 15 bins to clear +-0.1. ")
EXPLAIN: dict[tuple[str, str], tuple[str, str, str]] = {
    ("chembl_met", "constant"): ("scale", "bias:mol_weight;scale", _MOL_WEIGHT),
    ("chembl_met", "gp"): ("bias:uncertainty", "bias:mol_weight", _MOL_WEIGHT + _GP_DIP),
    ("chembl_met", "gp_latent"): ("bias:uncertainty", "bias:mol_weight",
                                  _MOL_WEIGHT + _GP_DIP
                                  + " Same predictions as gp, the sd almost the same."),
    ("chembl_met", "gp_recal"): ("bias:uncertainty", "bias:mol_weight",
                                 _MOL_WEIGHT + _GP_DIP + " Same predictions as gp, sd times 1.04."),
    ("chembl_met", "mlp_ensemble"): (
        "bias;scale", "bias;bias:mol_weight;scale",
        "At the edge, the same trend along mol_weight as the other models of these compounds: "
        "mean z -0.59, -0.28, +0.07 in uqval's three bins around the global -0.26 (the "
        "binned <Z> test fails, adjusted p = 0.008, scaffolds exchanged by size); uqval states "
        "the light range's offset against 0 next to the global correction it advises (-0.33 "
        "beyond the global one), the truth's lightest quintile is -0.30 [-0.65, 0.02] beyond "
        "the global offset and reaches 0 by a hair."),
    ("chembl_met", "cqr"): (
        "coverage;local:uncertainty", "none",
        "At the edge for the coverage, uqval preferred for the range. The 90 % conformal "
        "intervals cover 93.6 %, just above the tolerance band's 93.0 %; with the 158 "
        "scaffolds as groups uqval's Korn-Graubard interval is [88.8, 96.8] % (p = 0.14), the "
        "truth's percentile cluster bootstrap [90.4, 96.4] %, narrower. Its local finding is "
        "the widest intervals' bin covering 100 % of its rows by a row-level chi-square (p = "
        "0.0096) that ignores the scaffolds the truth resamples elsewhere; uqval's test along "
        "the width, scaffolds respected, gives p = 0.89: over-coverage of the widest conformal "
        "intervals is expected of a constant conformal offset, not a finding."),
    ("chembl_met", "quantile_gb"): (
        "bias;coverage;local:distance;local:uncertainty", "bias;coverage",
        "At the edge. Both find the global under-coverage (70.5 %) and the median off (69 % "
        "below it); both see the coverage vary with the width and with distance (uqval's LCP "
        "tests fail, adjusted p = 0.045 each, scaffolds respected). With the scaffolds as "
        "groups no range lies below the overall 70.5 % by a simultaneous Korn-Graubard "
        "interval (57 % [42, 71] where the intervals are narrowest but one), so uqval names no "
        "range beyond the global miss; the truth counts every bin outside the tolerance band "
        "once its row-level chi-square fails, which with a global miss of 20 points means any "
        "difference at all."),
    ("randhie", "mlp_ensemble"): (
        "local:uncertainty;scale", "bias:uncertainty;local:uncertainty;scale",
        "The truth preferred, at the edge: uqval's offset 'predictions too high by 0.11 "
        "uncertainties' for sd 0.28-0.93 is a point estimate just beyond the 0.1 tolerance and "
        "only 0.05 beyond the global mean z (-0.055, not advised); the truth's bin offset is "
        "-0.02 [-0.17, 0.13]."),
    ("randhie", "ngboost"): (
        "none", "local:distance",
        "At the edge, uqval preferred: uqval isolates the sixth of the rows farthest from the "
        "training set (distance 0.36-2.67) with a factor 1.22; the truth's coarser top quintile "
        "(0.27-2.67) has 1.17 [1.03, 1.31] with Bonferroni over 20 bins, reaching into the band. "
        "Too-small sds far from the training data are what NGBoost is expected to give."),
    ("seattle_weather", "constant"): ("local:precipitation", "local:precipitation;local:temp_min",
                                      _TEMP_MIN.format(q="0.77 [0.62, 0.91]")),
    ("seattle_weather", "gp"): ("local:precipitation", "local:precipitation;local:temp_min",
                                _TEMP_MIN.format(q="0.76 [0.61, 0.92]")),
    ("seattle_weather", "gp_latent"): (
        "local:precipitation;local:uncertainty;scale",
        "local:precipitation;local:temp_min;local:uncertainty;scale",
        _TEMP_MIN.format(q="0.76 [0.61, 0.92] after the recalibration along the sd")),
    ("seattle_weather", "gp_recal"): ("local:precipitation", "local:precipitation;local:temp_min",
                                      _TEMP_MIN.format(q="0.76 [0.61, 0.92]")),
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
    ("seattle_weather", "ngboost"): (
        "scale", "bias:temp_min;bias:uncertainty;scale",
        "At the edge, a rule difference; uqval preferred. Both sides see the offsets: uqval's "
        "binned <Z> tests fail along the sd (adjusted p = 0.017, cumulative 0.008) and along "
        "temp_min (0.020), with +0.30 [0.14, 0.46] where the sd is 2.75-4.30 and +0.39 [0.17, "
        "0.62] where temp_min is 8.9-11.7; the truth's intervals are 0.27 [0.04, 0.48] and 0.29 "
        "[-0.04, 0.59]. The truth asks the whole simultaneous interval to clear +-0.1, uqval a "
        "significant departure whose estimate does (the rule it uses for every effect)."),
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
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    notes = generate(args.refit)
    t_fit = float(notes.pop("_fit_seconds", "nan"))
    t0 = time.time()
    truth_table = truth.main(OUT).set_index(["dataset", "model"])
    rows = []
    for path in sorted(OUT.glob("*__*.csv")):
        if path.name.endswith(".advice.csv"):
            continue
        dataset, model = path.stem.split("__")
        frame = pd.read_csv(path)
        t = time.time()
        res = run_uqval(frame)
        advice = res.advice
        advice.to_csv(OUT / f"{path.stem}.advice.csv", index=False)
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
    table.to_csv(OUT / "agreement.csv", index=False)
    write_report(table, notes, t_fit, time.time() - t0)


SUMMARY = """\
- Controls: no perfect 8-member ensemble and no CQR interval gets a factor or a range from
  uqval, and no recalibrated GP a global factor, on any dataset. CQR on randhie is 'coverage'
  for both sides (95.5 %: log(1 + visits) is discrete, the conformal offset is 0 and ties make
  the intervals cover more than 90 %); both are right. One global factor leaves the GP's
  per-range failures in place: on seattle_weather gp_recal gets the same per-range factors as
  gp (precipitation, which the truth finds too, and temp_min), a real finding, not a false one.
- Fixed since the first table (10 of 27): perfect ensembles are judged against the reference of
  a perfect m-member ensemble (all three now agree, and the members' noisy sd no longer adds a
  range to the MLP ensembles); the shape stage says 'off-centre' next to 'too narrow' (69 % of
  the observations below the quantiles' median); a coverage range next to a global miss is one
  that misses by more than all rows do, not the global miss restated; the chembl_met sd outputs
  are validated with the scaffolds as groups, as the truth resamples them.
- Fixed since the table of 2026-11-28 (13 of 27): every route takes groups= (the ensemble,
  quantile and interval outputs of chembl_met are validated with the scaffolds as groups), and
  the tests along a variable that varies inside groups also exchange whole groups of equal
  size, so a scaffold of one compound is permuted freely: chembl_met ngboost now agrees (its
  offset along mol_weight, which permuting inside scaffolds alone could not see: p 0.87 ->
  0.008), and the same trend is found for the other models of these compounds, where the
  truth's Bonferroni intervals over 15 bins reach into the tolerance (six pairs, at the edge;
  this, not a new error, is why the count fell by one). The models were refitted in this
  environment (scikit-learn 1.6.1, pandas 2.3.3 against 1.9.1 and 3.1.1 before), which moved
  chembl_met CQR's coverage from 93.0 to 93.6 % and seattle_weather's quantile boosting from
  none to coverage (both sides agree there).
- Where uqval is wrong (the truth preferred): randhie mlp_ensemble (an offset 0.11 just beyond
  the tolerance, at the edge).
- Where the truth misses what uqval finds (uqval preferred): the cold days of seattle_weather
  (four pairs: the truth's interval misses the band by 0.001; the effect is not precipitation's),
  NGBoost's too-small sds far from training on randhie, NGBoost's local offsets on
  seattle_weather (significant, estimated 3-4 times the tolerance; the truth asks the whole
  interval to clear it).
- Attribution: a range of a feature that the strongest feature's recalibration explains is
  not advised (seattle_weather mlp_ensemble: distance, correlated with precipitation, is
  attributed to it; the truth judges each feature alone).
- Resolution: the chembl_met GPs' offset in one middle fifth of the sd (truth) is split across
  uqval's three 100-row bins; the chembl_met quantiles' coverage along distance differs between
  bins but no range is clearly worse than the global 70.5 %.
- Rule: uqval advises a range whose test fails and whose estimate clears the tolerance; the
  truth asks its whole simultaneous interval to clear it. Six of the 15 disagreements are this
  difference on the same trend (chembl_met's mol_weight offset, seattle_weather NGBoost).
"""


def write_report(table: pd.DataFrame, notes: dict[str, str], t_fit: float, total: float) -> None:
    def v(pkg: str) -> str:
        try:
            return metadata.version(pkg)
        except metadata.PackageNotFoundError:
            return "-"

    k, n = int((table.agree == "yes").sum()), len(table)
    kc = int((table["agree (kinds)"] == "yes").sum())
    lines = [
        "# Real outputs: uqval's advice against an independent ground truth",
        "",
        f"Run {datetime.date.today().isoformat()}, `python benchmarks/real_outputs.py`; "
        f"Python {platform.python_version()}, uqval {uqval.__version__}, numpy {v('numpy')}, "
        f"scipy {v('scipy')}, pandas {v('pandas')}, scikit-learn {v('scikit-learn')}, ngboost {v('ngboost')}, "
        f"rdkit {v('rdkit')}, statsmodels {v('statsmodels')}, vega_datasets {v('vega_datasets')}.",
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
        "Datasets, models and rules: docstrings of `benchmarks/real_outputs_data.py` and "
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
    for _, r in table[table.agree == "no"].iterrows():
        key = (r.dataset, r.model)
        if key in EXPLAIN and EXPLAIN[key][:2] == (r.truth, r.uqval):
            text = EXPLAIN[key][2]
        else:
            text = "not diagnosed for these findings (the run changed): re-diagnose."
        lines.append(f"- **{r.dataset} / {r.model}** (truth {r.truth}; uqval {r.uqval}): {text}")
    lines += ["", "## What this says about uqval", "", SUMMARY, ""]
    REPORT.write_text("\n".join(lines) + "\n")
    print(f"{k} of {n} pairs agree; wrote {REPORT}")


if __name__ == "__main__":
    main()
