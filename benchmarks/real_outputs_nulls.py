"""Who is right where uqval and the truth disagree? Their false alarms on the real designs.

For a real output file (its features, uncertainties and groups kept), the observations are
replaced by draws from a model in which the uncertainties are right everywhere, so that every
finding of either side is a false alarm:

* ``independent``: y = pred + sd·N(0, 1), rows independent;
* ``group scale``: y = pred + sd·a_g·N(0, 1), one factor a_g per group with log a_g ~
  N(0, s^2) and E(a_g^2) = 1 (the errors of one group share their size: one day's weather,
  one make of car); right on average and along every variable, in distribution;
* ``persistent groups``: the same, log a_g an AR(1) over the groups in their order (rho =
  0.7: consecutive days, or neighbouring makes, resemble each other), which no group-level
  resampling captures;
* ``permuted z``: y = pred + sd·z_pi, z_pi a random permutation of the file's own z-scores:
  their distribution exactly (heavy tails, the zeros of ``fair``), their average too (a
  ``scale`` or ``bias`` finding may be true), no dependence on any variable (every range
  finding is false).

Both uqval (settings of ``real_outputs.py``: seed, ``n_boot=500``; ``groups=`` given) and
the truth (``real_outputs_truth.judge``) judge every draw; the table gives the share of draws
with any finding and with a range finding (``local:V`` or ``bias:V``) per side.

Usage: ``nice -n 10 python benchmarks/real_outputs_nulls.py [--n 60]`` (after
``real_outputs.py --holdout`` wrote the files); writes ``benchmarks/real_outputs_nulls.md``.
The second held-out set's designs: ``--files critical_temp__gp,critical_temp__ngboost,
boiling_point__gp,computer_prices__gp --out benchmarks/real_outputs_nulls_holdout2.md``.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
import warnings
from multiprocessing import Pool
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import real_outputs as ro  # noqa: E402
import real_outputs_truth as truth  # noqa: E402

FILES = {"cars__gp": ro.OUT_HOLDOUT, "seattle_temps__gp": ro.OUT_HOLDOUT,
         "mol_logp__gp": ro.OUT_HOLDOUT, "fair__gp": ro.OUT_HOLDOUT,
         "fair__ngboost": ro.OUT_HOLDOUT, "chembl_met__gp": ro.OUT,
         "critical_temp__gp": ro.OUT_HOLDOUT2, "critical_temp__ngboost": ro.OUT_HOLDOUT2,
         "boiling_point__gp": ro.OUT_HOLDOUT2, "computer_prices__gp": ro.OUT_HOLDOUT2}
NULLS = ("independent", "group scale", "persistent groups", "permuted z")
LOG_SD = 0.6  # sd of log a_g: ICC(Z^2) about 0.2-0.3, what the real files show
RHO = 0.7
GROUPED = ("cars", "seattle_temps", "mol_logp", "chembl_met", "critical_temp", "boiling_point")


def draw(frame: pd.DataFrame, null: str, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sd = frame["sd"].to_numpy(float)
    noise = rng.standard_normal(len(frame))
    if null == "permuted z":
        noise = rng.permutation((frame["y"].to_numpy(float) - frame["pred"].to_numpy(float)) / sd)
    elif null != "independent" and "group" in frame:
        codes = pd.factorize(frame["group"], sort=True)[0]
        g = codes.max() + 1
        if null == "group scale":
            log_a = LOG_SD * rng.standard_normal(g)
        else:
            log_a = np.empty(g)
            log_a[0] = LOG_SD * rng.standard_normal()
            for i in range(1, g):
                log_a[i] = RHO * log_a[i - 1] + LOG_SD * np.sqrt(1 - RHO**2) * rng.standard_normal()
        noise = noise * np.exp(log_a - LOG_SD**2)[codes]  # E(a^2) = 1
    out = frame.copy()
    out["y"] = frame["pred"].to_numpy(float) + sd * noise
    return out


def one(args: tuple[str, str, int, bool]) -> dict:
    name, null, seed, truth_only = args
    warnings.filterwarnings("ignore")
    frame = pd.read_csv(FILES[name] / f"{name}.csv")
    sim = draw(frame, null, seed)
    feats = {c[2:] for c in sim.columns if c.startswith("f_")}
    uq = [] if truth_only else ro.vocabulary(ro.run_uqval(sim).advice, "normal", feats)[0]
    _, tr, _ = truth.judge(sim, seed=seed)

    def ranged(found: list[str]) -> bool:
        return any(f.startswith(("local:", "bias:")) for f in found)

    return {"file": name, "null": null, "seed": seed, "uqval any": bool(uq),
            "uqval range": ranged(uq), "truth any": bool(tr), "truth range": ranged(tr),
            "uqval": ";".join(uq), "truth": ";".join(tr)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--files", default=",".join(FILES), help="comma-separated subset of FILES")
    ap.add_argument("--out", default=str(HERE / "real_outputs_nulls.md"))
    ap.add_argument("--truth-only", action="store_true", help="judge the draws by the truth only")
    args = ap.parse_args()
    n, names = args.n, args.files.split(",")
    t0 = time.time()
    # the group nulls only where the file has groups
    jobs = [(name, null, seed, args.truth_only) for name in names for null in NULLS
            for seed in range(n)
            if "group" not in null or name.split("__")[0] in GROUPED]
    with Pool(2) as pool:
        df = pd.DataFrame(pool.map(one, jobs, chunksize=4))
    (HERE / "results").mkdir(exist_ok=True)
    df.to_csv(HERE / "results" / (Path(args.out).stem + ".csv"), index=False)
    cols = ["uqval any", "truth any", "uqval range", "truth range"]
    table = (df.groupby(["file", "null"], sort=False)[cols].mean() * 100).round(0).reset_index()
    folders = {FILES[name] for name in names}
    titles = {ro.OUT_HOLDOUT: ", held-out set", ro.OUT_HOLDOUT2: ", second held-out set"}
    title = titles.get(next(iter(folders)), "") if len(folders) == 1 else ""
    lines = ["# False alarms of uqval and of the truth on the real designs" + title, "",
             f"Run {datetime.date.today().isoformat()}, `python benchmarks/real_outputs_nulls.py "
             f"{' '.join(sys.argv[1:])}` ({time.time() - t0:.0f} s on 2 cores); design in the script's "
             "docstring. Percent of the draws with a finding (every finding is false).", "",
             "| file | null | uqval: any | truth: any | uqval: a range | truth: a range |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in table.itertuples(index=False):
        lines.append(f"| {r.file} | {r.null} | {r[2]:g} | {r[3]:g} | {r[4]:g} | {r[5]:g} |")
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
