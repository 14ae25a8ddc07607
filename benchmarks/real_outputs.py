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
   ``uqval.Intervals``) and keeps its advice (``<pair>.advice.csv``).
3. Runs the ground truth of ``benchmarks/real_outputs_truth.py`` (no uqval inside).
4. Maps uqval's advice onto the truth's vocabulary (scale / bias / local:V / coverage / none)
   and writes the agreement table to ``benchmarks/real_outputs.md``.

Mapping: ``scale`` -> scale; ``correct_bias`` of the average stage -> bias, of a range of
V -> bias:V, of a joint region over several features -> listed only (the truth has no joint
stage); ``recalibrate_per_range`` and
``recalibrate_monotone`` along V -> local:V (the interval width of intervals and quantiles
is ``uncertainty``); ``widen``/``narrow`` of the whole set -> coverage, of a range of V ->
local:V; ``fix_shape`` -> shape (listed, never compared: the truth does not judge
the PIT's shape); ``inspect_rows`` and ``none`` -> nothing. For ensembles the truth judges the
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
        path.write_text(json.dumps(notes, indent=1))
    return json.loads(path.read_text()) if path.exists() else {}


def run_uqval(frame: pd.DataFrame):
    y = frame["y"].to_numpy(float)
    feats = {c[2:]: frame[c].to_numpy(float) for c in frame.columns if c.startswith("f_")}
    members = [c for c in frame.columns if c.startswith("member_")]
    quant = [c for c in frame.columns if c.startswith("q_")]
    if "sd" in frame:
        return uqval.validate(y - frame["pred"].to_numpy(float), frame["sd"].to_numpy(float),
                              feats, **SETTINGS)
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
    t0 = time.time()
    notes = generate(args.refit)
    t_fit = time.time() - t0
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
        f"scipy {v('scipy')}, scikit-learn {v('scikit-learn')}, ngboost {v('ngboost')}, "
        f"rdkit {v('rdkit')}, statsmodels {v('statsmodels')}, vega_datasets {v('vega_datasets')}.",
        f"Model fitting {t_fit:.0f} s (0 when the outputs were already written), "
        f"total {total:.0f} s.",
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
    lines += ["", "## Disagreements", "", "DISAGREEMENTS", ""]
    REPORT.write_text("\n".join(lines) + "\n")
    print(f"{k} of {n} pairs agree; wrote {REPORT}")


if __name__ == "__main__":
    main()
