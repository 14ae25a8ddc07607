"""The ensemble rows of ``benchmarks/real_outputs.py`` only (issue 37, finite ensembles).

Fits the models of ``benchmarks/real_outputs_data.py`` (same seeds; the outputs are those of
the full benchmark), keeps the two ensembles per dataset (``mlp_ensemble`` and the simulated
``ensemble_perfect``), runs the ground truth of ``benchmarks/real_outputs_truth.py`` and
``uqval.validate`` on them as the full benchmark does, and prints the agreement rows.

    nice -n 10 python benchmarks/real_outputs_ensembles.py [folder]
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import real_outputs as full  # noqa: E402
import real_outputs_data as data  # noqa: E402
import real_outputs_truth as truth  # noqa: E402

ENSEMBLES = ("mlp_ensemble", "ensemble_perfect")


def main() -> None:
    warnings.filterwarnings("ignore")
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "results" / "real_outputs_ensembles"
    out.mkdir(parents=True, exist_ok=True)
    for make in data.DATASETS:
        name = make.__name__
        if all((out / f"{name}__{m}.csv").exists() for m in ENSEMBLES):
            continue
        t = time.time()
        ds = make()
        models = data.fit_models(ds)
        for model in ENSEMBLES:
            data.to_frame(models[model], ds["features"], ds.get("groups")).to_csv(
                out / f"{name}__{model}.csv", index=False)
        print(f"{name}: fitted in {time.time() - t:.0f} s", flush=True)
    truth_table = truth.main(out).set_index(["dataset", "model"])
    rows = []
    for path in sorted(out.glob("*__*.csv")):
        if path.name.endswith(".advice.csv"):
            continue
        dataset, model = path.stem.split("__")
        frame = pd.read_csv(path)
        res = full.run_uqval(frame)
        res.advice.to_csv(out / f"{path.stem}.advice.csv", index=False)
        feats = {c[2:] for c in frame.columns if c.startswith("f_")}
        tr = truth_table.loc[(dataset, model)]
        found, listed = full.vocabulary(res.advice, tr["kind"], feats)
        uq = ";".join(found) or "none"
        s = res.variance.scale_factor
        rows.append({"dataset": dataset, "model": model, "truth": tr["truth"], "uqval": uq,
                     "agree": "yes" if uq == tr["truth"] else "no",
                     "factor": f"{s.value:.3f} [{s.ci_low:.3f}, {s.ci_high:.3f}]",
                     "not compared": ";".join(listed)})
    table = pd.DataFrame(rows)
    table.to_csv(out / "agreement.csv", index=False)
    with pd.option_context("display.width", 250, "display.max_colwidth", 80):
        print(table.to_string(index=False))


if __name__ == "__main__":
    main()
