"""Benchmark: ``uqval validate`` on 10^5, 10^6 and 10^7 rows x 3 features (issue 29), beside
uncertainty-toolbox's ``get_all_metrics`` on the same data.

Data (seeded, written to a temporary folder, never committed): x1 ~ U(0, 1), x2 ~ N(0, 1),
x3 ~ Exp(1), uE = 0.1 exp(N(0, 0.5^2)) (1 + x1), E = uE N(0, 1) (calibrated), as Parquet
(and CSV with ``--csv``) with columns error, uncertainty, x1, x2, x3.

Each run is a child process (``uqval validate FILE --error error --uncertainty uncertainty
--feature x1 --feature x2 --feature x3 --jobs 2``, default n_boot and permutation counts);
its CPU time (user + sys) and peak resident memory come from ``os.wait4`` (the child's own
``rusage``), its wall time from the clock. The machine may be shared: CPU time and peak
memory are what to compare; wall time depends on the other jobs. uncertainty-toolbox gets
y_pred = x2, y_true = y_pred + E, y_std = uE (``uct.get_all_metrics(..., verbose=False)``,
its defaults) in a child with a time limit (``--toolbox-limit``, 300 s by default); a run
that does not finish is reported as such, and the larger sets are then not tried.

Usage::

    nice -n 10 python benchmarks/bench_large_validate.py [--sizes 1e5,1e6,1e7] [--csv]

Results: printed as a Markdown table and written to ``benchmarks/large_validate.md``
(``--out``).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SEED = 20261125

TOOLBOX = """
import sys, numpy as np, pyarrow.parquet as pq, uncertainty_toolbox as uct
t = pq.read_table(sys.argv[1]).to_pandas()
y_pred = t["x2"].to_numpy(); y_true = y_pred + t["error"].to_numpy()
m = uct.get_all_metrics(y_pred, t["uncertainty"].to_numpy(), y_true, verbose=False)
print("miscalibration area", m["avg_calibration"]["miscal_area"])
"""


def write_data(m: int, folder: Path, csv: bool, planted: float = 1.0) -> dict[str, Path]:
    """The seeded table of ``m`` rows (module docstring) as Parquet (and CSV); ``planted``:
    the errors multiplied by this factor where x1 > 0.8 (uE too small there; every
    conditional test then runs all its permutations)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    rng = np.random.default_rng([SEED, m])
    x1, x2, x3 = rng.uniform(0, 1, m), rng.normal(0, 1, m), rng.exponential(1.0, m)
    u = 0.1 * np.exp(rng.normal(0, 0.5, m)) * (1 + x1)
    e = u * rng.standard_normal(m) * np.where(x1 > 0.8, planted, 1.0)
    table = pa.table({"error": e, "uncertainty": u, "x1": x1, "x2": x2, "x3": x3})
    paths = {"parquet": folder / f"d{m}.parquet"}
    pq.write_table(table, paths["parquet"])
    if csv:
        paths["csv"] = folder / f"d{m}.csv"
        pacsv.write_csv(table, paths["csv"])
    return paths


def run_child(argv: list[str], limit: float | None) -> dict:
    """Run ``argv``; wall time, CPU time (user + sys) and peak RSS of the child."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    timed_out = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if limit is not None and time.perf_counter() - start > limit:
            os.killpg(proc.pid, signal.SIGKILL)
            pid, status, usage = os.wait4(proc.pid, 0)
            timed_out = True
            break
        time.sleep(0.2)
    wall = time.perf_counter() - start
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    ok = not timed_out and os.waitstatus_to_exitcode(status) in (0, 1)
    return {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
            "rss_mib": usage.ru_maxrss / 1024.0, "ok": ok, "timed_out": timed_out,
            "stderr": stderr.strip().splitlines()[-1:] if not ok else []}


def cell(r: dict | None, limit: float | None) -> str:
    if r is None:
        return "not run (a smaller set did not finish)"
    if r["timed_out"]:
        return f"not finished in {limit:.0f} s"
    if not r["ok"]:
        return "failed: " + " ".join(r["stderr"])[:60]
    return f"{r['cpu_s']:.0f} / {r['wall_s']:.0f} / {r['rss_mib']:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1e5,1e6,1e7")
    parser.add_argument("--csv", action="store_true", help="also time the CSV input")
    parser.add_argument("--toolbox-limit", type=float, default=300.0)
    parser.add_argument("--no-toolbox", action="store_true")
    parser.add_argument("--planted", type=float, default=1.0,
                        help="errors times this factor where x1 > 0.8 (default 1: calibrated)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "large_validate.md")
    args = parser.parse_args()
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    os.environ.update(env)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for m in sizes:
            paths = write_data(m, folder, args.csv, args.planted)
            results = {}
            for kind, path in paths.items():
                argv = [sys.executable, "-m", "uqval", "validate", str(path), "--error", "error",
                        "--uncertainty", "uncertainty", "--feature", "x1", "--feature", "x2",
                        "--feature", "x3", "--jobs", "2", "--out", str(folder / f"r{m}{kind}")]
                results[kind] = run_child(argv, None)
                print(m, kind, results[kind], flush=True)
            skip = args.no_toolbox or any(r[2] is not None and r[2]["timed_out"] for r in rows)
            toolbox = None if skip else run_child(  # not again once a smaller set timed out
                [sys.executable, "-c", TOOLBOX, str(paths["parquet"])], args.toolbox_limit)
            print(m, "uncertainty-toolbox", toolbox, flush=True)
            rows.append((m, results, toolbox))
            for path in paths.values():
                path.unlink()
    header = ("| rows | uqval validate, Parquet | "
              + ("uqval validate, CSV | " if args.csv else "")
              + "uncertainty-toolbox get_all_metrics |")
    lines = [header, "|---|---|" + ("---|" if args.csv else "") + "---|"]
    for m, results, toolbox in rows:
        lines.append(f"| {m:.0e} | {cell(results['parquet'], None)} | "
                     + (f"{cell(results['csv'], None)} | " if args.csv else "")
                     + f"{cell(toolbox, args.toolbox_limit)} |")
    table = "\n".join(lines)
    note = ("Each cell: CPU time (user + sys, s) / wall time (s) / peak resident memory (MiB) "
            "of the child process; `uqval validate --jobs 2`, 3 features, default n_boot = "
            "1000 and permutation counts. Machine shared with other jobs: wall times are "
            "indicative only.")
    text = f"# uqval validate on large test sets\n\n{note}\n\n{table}\n"
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
