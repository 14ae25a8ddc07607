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
   sd, with ``groups=`` the file's ``group`` column when it has one (the compounds' scaffolds,
   which the truth resamples as clusters); ensembles: ``uqval.Ensemble``; quantiles:
   ``uqval.Quantiles``; intervals: ``uqval.Intervals``: uqval does not take groups with
   predictive objects yet, so these rows are treated as independent) and keeps its advice
   (``<pair>.advice.csv``).
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
    if "sd" in frame:
        # rows in groups (the compounds' scaffolds): resampled and permuted as groups, as the
        # truth's cluster bootstrap does (uqval takes groups= on this route only)
        groups = frame["group"].to_numpy() if "group" in frame else None
        return uqval.validate(y - frame["pred"].to_numpy(float), frame["sd"].to_numpy(float),
                              feats, groups=groups, **SETTINGS)
    if members:
        pred = uqval.Ensemble(frame[members].to_numpy(float))
    elif quant:
        pred = uqval.Quantiles([float(c[2:]) for c in quant], frame[quant].to_numpy(float))
    else:
        pred = uqval.Intervals({0.9: (frame["lo_0.9"].to_numpy(float),
                                      frame["hi_0.9"].to_numpy(float))})
    return uqval.validate(y, pred, feats, **SETTINGS)


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
# findings have changed since is reported as needing a new diagnosis.
_FLOOR = ("uqval is wrong: the ensemble is perfect by construction (y and the 8 members drawn "
          "from one normal), yet uqval advises a global factor ({f}) and per-range factors "
          "along the members' sd. A perfect m-member ensemble with variance (1 + 1/m) s^2 has "
          "z ~ t_(m-1) and E(z^2) = (m-1)/(m-3) = 1.4, i.e. a factor 1.18 that no recalibration "
          "of a calibrated model should remove; and binning on the members' own noisy sd puts "
          "the rows whose s came out small into the low bins, where z is large for a perfect "
          "ensemble too. The truth tests against both finite-member references and finds "
          "nothing.")
EXPLAIN: dict[tuple[str, str], tuple[str, str, str]] = {
    ("chembl_met", "constant"): (
        "scale", "bias:mol_weight;scale",
        "At the edge, the truth preferred: the heaviest compounds (522-630 Da) have mean z "
        "+0.53 sd above the rest, but its scaffold-cluster bootstrap interval [0.02, 0.98] "
        "does not clear the +-0.1 band; uqval resamples compounds as independent although the "
        "298 test compounds come in 158 scaffolds, so its intervals are too narrow."),
    ("chembl_met", "ensemble_perfect"): ("none", "local:uncertainty;scale",
                                         _FLOOR.format(f="1.27")),
    ("chembl_met", "gp"): (
        "bias:uncertainty", "bias:mol_weight",
        "Both sides find a local offset of the GP's predictions but on different variables; "
        "neither is clearly wrong. The truth's is one middle bin of the sd (0.615-0.683, mean z "
        "-0.54 [-0.91, -0.20] with scaffold clusters resampled), which uqval's 3 bins at 298 "
        "rows dilute; uqval's mol_weight range (384-470 Da, -0.37) is at the edge for the "
        "truth (-0.25 [-0.60, 0.06]) once scaffolds are resampled as clusters."),
    ("chembl_met", "gp_latent"): (
        "bias:uncertainty", "bias:mol_weight",
        "As for gp (same predictions; the fitted noise is tiny, so the latent sd is almost the "
        "full one): bin resolution on the sd against clustering on mol_weight, neither clearly "
        "wrong."),
    ("chembl_met", "gp_recal"): (
        "bias:uncertainty", "bias:mol_weight",
        "As for gp (same predictions, sd times 1.04)."),
    ("chembl_met", "mlp_ensemble"): (
        "bias;scale", "bias;bias:mol_weight;local:uncertainty;scale",
        "The truth preferred on both extras. local:uncertainty: uqval bins on the members' "
        "noisy sd with no finite-member reference (see ensemble_perfect); against that "
        "reference the most extreme sd bin is 0.81 [0.56, 1.10]. bias:mol_weight: -0.30 "
        "[-0.65, 0.02] with scaffold clusters resampled, at the edge."),
    ("chembl_met", "quantile_gb"): (
        "bias;coverage;local:distance;local:uncertainty",
        "coverage;local:distance;local:mol_weight;local:uncertainty",
        "uqval misses an offset and over-reports a range. 69 % of the observations lie below the "
        "predicted median ([0.63, 0.76]): the quantiles are too high. uqval's shape stage says "
        "'off-centre' for such a median when the width is right, but here the intervals are "
        "also too narrow and its single shape row reports only that. Its 'recalibrate per "
        "range' along mol_weight covers 384-630 Da, i.e. 100 % of the rows: the global "
        "under-coverage restated as a range, not a local finding."),
    ("randhie", "ensemble_perfect"): (
        "none", "local:disea;local:uncertainty;scale",
        _FLOOR.format(f="1.19") + " The disea range is 53 rows tied at disea = 0 with a factor "
        "1.59: a false alarm on a perfect ensemble, probably the t_7 tails of its z (kurtosis 5) "
        "making the mean z^2 of 53 rows far noisier than uqval's interval allows."),
    ("randhie", "mlp_ensemble"): (
        "local:uncertainty;scale", "bias:uncertainty;local:uncertainty;scale",
        "The truth preferred: uqval's extra offset is 'predictions too high by 0.11 "
        "uncertainties' for sd 0.28-0.93, a point estimate just beyond the 0.1 tolerance; the "
        "truth's bin offset is -0.02 [-0.17, 0.13]."),
    ("randhie", "ngboost"): (
        "none", "local:distance",
        "At the edge, uqval preferred: uqval isolates the sixth of the rows farthest from the "
        "training set (distance 0.36-2.67) with a factor 1.22; the truth's coarser top quintile "
        "(0.27-2.67) has 1.17 [1.03, 1.31] with Bonferroni over 20 bins, reaching into the band. "
        "Too-small sds far from the training data are what NGBoost is expected to give."),
    ("seattle_weather", "constant"): (
        "local:precipitation", "local:precipitation;local:temp_min",
        "At the edge, uqval preferred: the coldest fifth of the days has the ratio 0.77 "
        "[0.62, 0.91] for the truth, its upper limit just inside the band (0.909 up); uqval merges "
        "adjacent bins (-7.1 to 8.3 degrees, factor 0.78) and gains the power to clear it. A "
        "constant sd on temperatures whose spread changes with the season is the failure it "
        "is there to show."),
    ("seattle_weather", "ensemble_perfect"): ("none", "local:uncertainty;scale",
                                              _FLOOR.format(f="1.16")),
    ("seattle_weather", "gp"): (
        "local:precipitation", "local:precipitation;local:temp_min",
        "At the edge, uqval preferred, as for constant: the truth's coldest fifth is 0.76 "
        "[0.61, 0.92]."),
    ("seattle_weather", "gp_latent"): (
        "local:precipitation;local:uncertainty;scale",
        "local:precipitation;local:temp_min;local:uncertainty;scale",
        "At the edge, as for gp: the truth's coldest fifth is 0.76 [0.61, 0.92] after the "
        "recalibration along the sd."),
    ("seattle_weather", "gp_recal"): (
        "local:precipitation", "local:precipitation;local:temp_min",
        "At the edge, as for gp (same predictions, sd times 1.02)."),
    ("seattle_weather", "mlp_ensemble"): (
        "local:distance;local:precipitation;scale",
        "local:distance;local:precipitation;local:uncertainty;scale",
        "The truth preferred: the extra range along the members' sd has no finite-member "
        "reference in uqval (see ensemble_perfect); against it the most extreme sd bin is 0.84 "
        "[0.60, 1.07]."),
    ("seattle_weather", "ngboost"): (
        "scale", "bias:temp_min;bias:uncertainty;scale",
        "The truth preferred, a rule difference: uqval advises local offsets from point "
        "estimates beyond 0.1 (0.39 sd where temp_min is 8.9-11.7, 0.30 where sd is 2.75-4.30); "
        "the truth asks, as both do for factors, that the simultaneous interval clear the band: "
        "0.29 [-0.04, 0.59] and 0.27 [0.04, 0.48] do not."),
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
- On the controls: neither side gives the recalibrated GP a global factor, nor CQR a coverage
  finding, on any dataset but one: CQR on randhie, where both say 'coverage' (95.5 %):
  log(1 + visits) is discrete, the conformal offset is 0 and ties make the intervals cover more
  than 90 %; both are right. (One global factor leaves the GP's per-range failures in place:
  both find precipitation on seattle_weather for gp and gp_recal alike.) The constant sd is
  caught where the spread depends on a feature (seattle_weather: precipitation, temperature)
  and scaled where it is the GP's in-sample RMSE (chembl_met: the GP interpolates its training
  compounds, factor 4.8).
- Defect 1 (all three perfect ensembles): uqval has no finite-member reference for ensembles.
  A perfect 8-member ensemble gets 'scale' (1.16-1.27) and per-range factors along its sd;
  the same artefact adds a range along the sd of the MLP ensembles.
- Defect 2 (chembl_met quantile_gb): a predictive median that is clearly off (69 % below it) is
  not advised when the intervals are also too narrow (the shape stage gives one reason, and
  'too narrow' wins over 'off-centre'); and a 'recalibrate per range' row may cover 100 % of
  the rows.
- Limitation: uqval resamples rows as independent; with a scaffold split (158 scaffolds for 298
  compounds) its intervals are too narrow, which decides the chembl_met edge cases.
- The rest are edge cases of bin resolution and rules: uqval's adjacent-bin merging finds
  ranges the truth's fixed quintiles just miss (temp_min, distance), and uqval advises local
  offsets from point estimates where the truth asks for a simultaneous interval beyond the band.
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
