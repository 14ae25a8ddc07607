"""Benchmark: a user's dataset page (``snakemake validate``) beside ``uqval validate`` on the
same data, in one run (issue 29).

For each size M (27 000 and 10^6 rows by default) a seeded CSV is written into a temporary
working directory (never committed): ``y_true``, ``y_pred``, ``sigma`` and three features
(x1 ~ U(0, 1), x2 ~ N(0, 1), x3 ~ Exp(1)); sigma = 0.1 exp(N(0, 0.5^2)) (1 + x1) and
y_true = y_pred + sigma N(0, 1) (calibrated). Then, one after the other:

* **command line**: ``uqval validate data.csv --y-true y_true --y-pred y_pred
  --uncertainty sigma --feature x1 --feature x2 --feature x3 --jobs 2 --out cli/``;
* **dataset page**: a dataset YAML in ``config/datasets/`` of the working directory pointing
  at the same CSV (same quantities and features), then ``snakemake -s <repo>/Snakefile
  --cores 2 validate --config datasets=<id>`` from that directory: every job of the page
  (preparation, validation, heavy-tail screening, simulated references, UCC gain, page).

Each is a child process; its CPU time (user + sys, children included) and peak resident memory
of the largest process come from ``os.wait4``; wall time from the clock. Per-job times of the
page come from the rules' ``benchmark:`` files (``results/benchmarks/<stage>/<id>.tsv``:
wall s and CPU s per job). The ratio page/CLI is given for wall and CPU time. The machine may
be shared: the load average is printed beside each run.

Usage::

    python benchmarks/bench_page_vs_cli.py [--sizes 27000,1e6] [--out benchmarks/page_vs_cli.md]
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261125


def write_data(m: int, path: Path) -> None:
    """The seeded calibrated table of ``m`` rows (module docstring) as CSV."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    rng = np.random.default_rng([SEED, m])
    x1, x2, x3 = rng.uniform(0, 1, m), rng.normal(0, 1, m), rng.exponential(1.0, m)
    sigma = 0.1 * np.exp(rng.normal(0, 0.5, m)) * (1 + x1)
    y_pred = 2.0 * x1 + x2
    table = pa.table({"y_true": y_pred + sigma * rng.standard_normal(m), "y_pred": y_pred,
                      "sigma": sigma, "x1": x1, "x2": x2, "x3": x3})
    pacsv.write_csv(table, path)


def dataset_yaml(ident: str, csv_path: Path) -> str:
    """The dataset family YAML of the page route for ``csv_path``."""
    return (f"family: BENCH\ncitation: benchmark\nfiles:\n  - local: {csv_path}\n"
            f"datasets:\n  - id: {ident}\n    units: eV\n"
            f"    sources: [{{file: {csv_path}}}]\n"
            "    quantities: {E: y_true - y_pred, uE: sigma}\n"
            "    features: {x1: x1, x2: x2, x3: x3}\n")


def timed(cmd: list[str], cwd: Path, log: Path) -> dict[str, float]:
    """Run ``cmd`` in ``cwd``; wall s, CPU s (user + sys of the child and its children) and
    the largest peak RSS (MiB) among them; stdout/stderr into ``log``."""
    load = os.getloadavg()[0]
    start = time.perf_counter()
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: see {log}")
    # wait4 gives the child's own rusage; its children (Snakemake's jobs) are in
    # RUSAGE_CHILDREN of this process once reaped.
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss_mib": usage.ru_maxrss / 1024.0, "load": load}


def page_jobs(work: Path, ident: str) -> list[tuple[str, float, float]]:
    """(stage, wall s, CPU s) of each benchmarked job of the page."""
    rows = []
    bench = work / "results" / "benchmarks"
    for tsv in sorted(bench.rglob(f"{ident}*.tsv")):
        if tsv.stem != ident and not tsv.stem.startswith(ident + "_"):
            continue
        with tsv.open() as f:
            rec = next(csv.DictReader(f, delimiter="\t"))
        stage = tsv.parent.relative_to(bench).as_posix() + tsv.stem[len(ident):].replace("_", " ")
        rows.append((stage, float(rec["s"]), float(rec["cpu_time"])))
    return rows


def run_size(m: int, base: Path) -> dict:
    work = base / f"m{m}"
    (work / "config" / "datasets").mkdir(parents=True)
    data = work / "data.csv"
    write_data(m, data)
    ident = f"bench_rows_{m // 1000}k"  # dataset ids refuse more than 3 repeated characters
    (work / "config" / "datasets" / "BENCH.yaml").write_text(dataset_yaml(ident, data))
    uqval = str(Path(sys.executable).with_name("uqval"))
    before = os.times()
    cli = timed([uqval, "validate", str(data), "--y-true", "y_true", "--y-pred", "y_pred",
                 "--uncertainty", "sigma", "--feature", "x1", "--feature", "x2",
                 "--feature", "x3", "--jobs", "2", "--out", str(work / "cli")],
                work, work / "cli.log")
    mid = os.times()
    cli["cpu"] = (mid.children_user - before.children_user
                  + mid.children_system - before.children_system)
    snakemake = str(Path(sys.executable).with_name("snakemake"))
    page = timed([snakemake, "-s", str(ROOT / "Snakefile"), "--cores", "2", "validate",
                  "--config", f"datasets={ident}"], work, work / "page.log")
    after = os.times()
    page["cpu"] = (after.children_user - mid.children_user
                   + after.children_system - mid.children_system)
    return {"m": m, "cli": cli, "page": page, "jobs": page_jobs(work, ident)}


def markdown(results: list[dict]) -> str:
    lines = ["| rows | `uqval validate` (wall s / CPU s / MiB) | dataset page (wall s / CPU s) "
             "| page / CLI, wall | page / CLI, CPU | load (1 min) |",
             "|---|---|---|---|---|---|"]
    for r in results:
        c, p = r["cli"], r["page"]
        lines.append(f"| {r['m']:,} | {c['wall']:.1f} / {c['cpu']:.1f} / {c['rss_mib']:.0f} "
                     f"| {p['wall']:.1f} / {p['cpu']:.1f} | {p['wall'] / c['wall']:.2f} "
                     f"| {p['cpu'] / c['cpu']:.2f} | {c['load']:.1f}, {p['load']:.1f} |")
    lines += ["", "Jobs of the page (wall s / CPU s, from the rules' benchmark files):", "",
              "| rows | " + " | ".join(j[0] for j in results[0]["jobs"]) + " |",
              "|---|" + "---|" * len(results[0]["jobs"])]
    for r in results:
        lines.append(f"| {r['m']:,} | "
                     + " | ".join(f"{w:.1f} / {c:.1f}" for _, w, c in r["jobs"]) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="27000,1e6")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--keep", type=Path, default=None,
                        help="working directory to keep (default: a temporary one)")
    args = parser.parse_args()
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="uqval-page-") as tmp:
        base = args.keep or Path(tmp)
        results = []
        for m in sizes:
            print(f"M = {m:,} ...", file=sys.stderr, flush=True)
            results.append(run_size(m, base))
            print(markdown(results[-1:]), file=sys.stderr, flush=True)
    text = markdown(results)
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
