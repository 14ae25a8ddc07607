"""False alarms and power of uqval with groups that follow one another, with and without the
blocks of :mod:`uqval.stats.serial_groups`.

Design (120 groups of 24 rows, like hourly readings of 120 days; seeds 0..n-1 per cell):
``x_within`` varies inside groups (the hour, 0..23), ``x_between`` is constant inside groups
(a slow drift: the day of the season plus noise); u = exp(N(0, 0.3^2)) per row. Errors
E = u * a_g * N(0, 1) with E(a_g^2) = 1 and log a_g of sd 0.6:

* ``independent``: log a_g independent over the groups;
* ``persistent 0.4`` / ``persistent 0.7``: log a_g an AR(1) over the groups in file order;
* ``sorted, planted``: independent a_g, the groups sorted by x_between, and u too small by
  1.6 for the 20 % of groups with the largest x_between (a real finding whose trend along the
  file looks like dependence to the test: the cost of the blocks);
* ``persistent 0.7, planted``: persistent a_g and u 1.6 too small for the hours 18-23;
* ``extrapolated last, planted``: independent a_g, the first 60 % of the groups with
  x_between uniform on [0, 0.6] and the last 40 % on [0.6, 1] (the in-distribution structures
  first, the extrapolated ones last: Spearman about 0.8 with the order, not a sorted file),
  and u 1.6 too small for the last 40 %.

Per cell: the share of sets whose groups were blocked, and of sets with any advised finding
and with a range finding (``local:V`` or ``bias:V``, from ``real_outputs.vocabulary``), with
the blocks (uqval as shipped) and without (the test switched off). In the first three cells
every finding is false; in the planted cells the share with the planted range is the power.

Usage: ``nice -n 10 python benchmarks/serial_groups_rates.py [--n 60]``; writes
``benchmarks/serial_groups_rates.md``.
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

import uqval  # noqa: E402
import uqval.validation.engine as engine  # noqa: E402
from uqval.stats import serial_groups  # noqa: E402

G, SIZE, LOG_SD = 120, 24, 0.6
CELLS = ("independent", "persistent 0.4", "persistent 0.7", "sorted, planted",
         "persistent 0.7, planted", "extrapolated last, planted")
PLANTED = {"sorted, planted": "x_between", "persistent 0.7, planted": "x_within",
           "extrapolated last, planted": "x_between"}
LAST = 0.4
SHIPPED = serial_groups.serial_blocks


def _never(z, groups, **_):
    return SHIPPED(z, groups, alpha=0.0)


def draw(cell: str, seed: int) -> tuple[np.ndarray, np.ndarray, dict, np.ndarray]:
    rng = np.random.default_rng(seed)
    codes = np.repeat(np.arange(G), SIZE)
    rho = 0.7 if "0.7" in cell else 0.4 if "0.4" in cell else 0.0
    log_a = np.empty(G)
    log_a[0] = LOG_SD * rng.standard_normal()
    for i in range(1, G):
        log_a[i] = rho * log_a[i - 1] + LOG_SD * np.sqrt(1 - rho**2) * rng.standard_normal()
    between = np.linspace(0, 1, G) + 0.3 * rng.standard_normal(G)
    if cell.startswith("sorted"):
        between = np.sort(between)
    if cell.startswith("extrapolated"):
        first = int(round((1 - LAST) * G))
        between = np.r_[rng.uniform(0, 1 - LAST, first), rng.uniform(1 - LAST, 1, G - first)]
    u = np.exp(0.3 * rng.standard_normal(codes.size))
    e = u * np.exp(log_a - LOG_SD**2)[codes] * rng.standard_normal(codes.size)
    hour = np.tile(np.arange(SIZE, dtype=float), G)
    if cell == "sorted, planted":
        e = e * np.where(between[codes] >= np.quantile(between, 0.8), 1.6, 1.0)
    elif cell == "persistent 0.7, planted":
        e = e * np.where(hour >= 18, 1.6, 1.0)
    elif cell == "extrapolated last, planted":
        e = e * np.where(between[codes] >= 1 - LAST, 1.6, 1.0)
    return e, u, {"x_within": hour, "x_between": between[codes]}, codes


def one(args: tuple[str, int, bool]) -> dict:
    cell, seed, blocks = args
    warnings.filterwarnings("ignore")
    # the test switched off (alpha = 0): the groups as given
    engine.serial_blocks = SHIPPED if blocks else _never  # type: ignore[assignment]
    e, u, feats, codes = draw(cell, seed)
    res = uqval.validate(e, u, feats, groups=codes, **ro.SETTINGS)
    found, _ = ro.vocabulary(res.advice, "normal", set(feats))
    planted = PLANTED.get(cell)
    return {"cell": cell, "seed": seed, "blocks": blocks,
            "blocked": "blocks of" in res.parameters.get("serial_groups", ""),
            "any": bool(found),
            "range": any(f.startswith(("local:", "bias:")) for f in found),
            "planted found": planted is not None and f"local:{planted}" in found,
            "findings": ";".join(found)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--cells", nargs="*", default=list(CELLS), choices=CELLS,
                    help="cells to run (default: all; the table is written only for all)")
    args = ap.parse_args()
    n, cells = args.n, args.cells
    t0 = time.time()
    jobs = [(c, s, b) for c in cells for b in (True, False) for s in range(n)]
    with Pool(2, maxtasksperchild=20) as pool:
        df = pd.DataFrame(pool.map(one, jobs, chunksize=5))
    (HERE / "results").mkdir(exist_ok=True)
    df.to_csv(HERE / "results" / "serial_groups_rates.csv", index=False)
    if cells != list(CELLS):
        print(df.groupby(["cell", "blocks"])[["blocked", "any", "range", "planted found"]]
              .mean().mul(100).round(0).to_string())
        return
    lines = ["# Groups that follow one another: false alarms and power with and without blocks",
             "", f"Run {datetime.date.today().isoformat()}, `python benchmarks/"
             f"serial_groups_rates.py --n {n}` ({time.time() - t0:.0f} s on 2 cores), uqval "
             f"{uqval.__version__}; design in the script's docstring. Percent of {n} sets.", "",
             "| cell | blocked | with blocks: any | a range | planted range found "
             "| groups as given: any | a range | planted range found |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for cell in CELLS:
        a = df[(df.cell == cell) & df.blocks]
        b = df[(df.cell == cell) & ~df.blocks]

        def pct(s: pd.Series) -> str:
            return f"{100 * s.mean():.0f}"

        planted_a = pct(a["planted found"]) if cell in PLANTED else "-"
        planted_b = pct(b["planted found"]) if cell in PLANTED else "-"
        lines.append(f"| {cell} | {pct(a.blocked)} | {pct(a['any'])} | {pct(a['range'])} | "
                     f"{planted_a} | {pct(b['any'])} | {pct(b['range'])} | {planted_b} |")
    (HERE / "serial_groups_rates.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
