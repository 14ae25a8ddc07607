"""Benchmark: reading the table of ``uqval validate`` before (the whole table in memory,
``uqval._internal.tables.read_table``) and after (only the used columns, in batches:
``uqval._internal.batched.read_columns``), on the data of ``bench_large_validate.py``
(10^7 rows x 5 float64 columns by default: error, uncertainty, x1, x2, x3; all five are used,
as by ``--error error --uncertainty uncertainty --feature x1 --feature x2 --feature x3``;
``--unused N`` adds N columns the command does not use).

Each reading is a child process (``python -c``) that imports uqval, reads the file and
builds one float64 Series per used column (what the command line then hands to
``uqval.validate``); its CPU time (user + sys) comes from ``os.wait4``, its peak resident memory from its own
``VmHWM`` (``/proc/self/status``, Linux), its wall time from the clock, and a child that only imports the same modules
gives the baseline memory. The data are written to a temporary folder (never committed).

Usage::

    nice -n 10 python benchmarks/bench_read_columns.py [--rows 1e7] [--repeat 2] [--folder DIR]
        [--unused N]

Results: printed as Markdown table rows (rows: median over the repeats).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

COLUMNS = ["error", "uncertainty", "x1", "x2", "x3"]
IMPORTS = "import sys; import numpy, pandas, pyarrow.parquet; import uqval._internal.batched\n"
# the child's own high-water mark (ru_maxrss would carry the parent's over fork and exec)
PEAK = ("print(next(int(line.split()[1]) for line in open('/proc/self/status') "
        "if line.startswith('VmHWM')))\n")
READERS = {
    "baseline": "",
    "before": ("from uqval._internal.tables import read_table\n"
               "t = read_table(sys.argv[1]); cols = [t[c] for c in COLUMNS]\n"),
    "after": ("from uqval._internal.batched import read_columns\n"
              "t = read_columns(sys.argv[1], COLUMNS); cols = [t[c] for c in COLUMNS]\n"),
}


# the whole command, with the batched reader ("after") or the former reader ("before")
VALIDATE = """
import sys
from uqval._internal import batched
from uqval._internal.batched import ColumnTable
from uqval._internal.tables import read_table
from uqval.cli import main

def former(path, columns, *, batch_rows=None):
    table = read_table(path)
    return ColumnTable(path, tuple(table.columns), len(table),
                       {c: table[c] for c in dict.fromkeys(columns) if c in table.columns})

if sys.argv[2] == "before":
    batched.read_columns = former
code = main(["validate", sys.argv[1], "--error", "error", "--uncertainty", "uncertainty",
             "--feature", "x1", "--feature", "x2", "--feature", "x3", "--jobs", "2",
             "--out", sys.argv[3]])
assert code == 0, code
"""


def child(kind: str, path: Path, out: Path | None = None) -> dict[str, float]:
    if out is not None:
        code = VALIDATE + PEAK
        argv = [sys.executable, "-c", code, str(path), kind, str(out)]
    else:
        code = IMPORTS + f"COLUMNS = {COLUMNS!r}\n" + READERS[kind] + PEAK
        argv = [sys.executable, "-c", code, str(path)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, text=True)
    printed = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise RuntimeError(f"{kind} on {path} failed ({status})")
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall,
            "rss": int(printed.strip().splitlines()[-1]) / 1024}  # VmHWM in KiB


def write_tables(m: int, unused: int, folder: Path) -> dict[str, Path]:
    """``write_data``'s table of ``m`` rows, with ``unused`` more seeded N(0, 1) columns
    (``u1``, ``u2``, ...) that the command does not use, as Parquet and CSV."""
    import numpy as np
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq
    from bench_large_validate import SEED, write_data

    name = f"d{m}w{unused}" if unused else f"d{m}"
    paths = {kind: folder / f"{name}.{kind}" for kind in ("parquet", "csv")}
    if all(p.exists() for p in paths.values()):
        return paths
    base = write_data(m, folder, csv=not unused)
    if not unused:
        return base
    table = pq.read_table(base["parquet"])
    rng = np.random.default_rng([SEED, m, unused])
    for j in range(1, unused + 1):
        table = table.append_column(f"u{j}", [rng.standard_normal(m)])
    pq.write_table(table, paths["parquet"])
    pacsv.write_csv(table, paths["csv"])
    return paths


def validate_both(paths: dict[str, Path], folder: Path) -> None:
    """``uqval validate`` with each reader on each file: CPU, wall, peak and whether the
    written CSV and Markdown files are byte-identical."""
    print("| file | reader | CPU-s | wall s | peak RSS MiB | outputs |")
    print("|---|---|---|---|---|---|")
    for kind, path in paths.items():
        files = {}
        for reader in ("after", "before"):
            out = folder / f"{kind}-{reader}"
            run = child(reader, path, out)
            files[reader] = {p.name: p.read_bytes() for p in out.iterdir()
                             if p.suffix in {".csv", ".md"}}
            same = ("" if reader == "after" else
                    f"{len(files['after'])} files byte-identical" if files["after"] == files[
                        "before"] else "DIFFERENT")
            print(f"| {kind} | {reader} | {run['cpu']:.1f} | {run['wall']:.1f} | "
                  f"{run['rss']:.0f} | {same} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--folder", type=Path, default=None,
                        help="keep the data here (written once, reused); default: a "
                             "temporary folder, removed at the end")
    parser.add_argument("--unused", type=int, default=0,
                        help="columns in the table beside the 5 used ones")
    parser.add_argument("--validate", action="store_true",
                        help="run the whole `uqval validate` (--jobs 2) once with each reader "
                             "and compare its written CSV and Markdown files")
    args = parser.parse_args()
    m = int(args.rows)
    with tempfile.TemporaryDirectory(dir="/tmp") as temporary:
        folder = args.folder or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        paths = write_tables(m, args.unused, folder)
        if args.validate:
            validate_both(paths, Path(temporary))
            return
        print(f"| file ({m} rows x {5 + args.unused} columns) | reader | CPU-s | wall s | "
              "peak RSS MiB "
              "| above the baseline MiB |")
        print("|---|---|---|---|---|---|")
        for kind, path in paths.items():
            size = path.stat().st_size / 2**20
            base = statistics.median(child("baseline", path)["rss"] for _ in range(2))
            for reader in ("before", "after"):
                runs = [child(reader, path) for _ in range(args.repeat)]
                cpu = statistics.median(r["cpu"] for r in runs)
                wall = statistics.median(r["wall"] for r in runs)
                rss = statistics.median(r["rss"] for r in runs)
                print(f"| {kind}, {size:.0f} MiB | {reader} | {cpu:.1f} | {wall:.1f} | "
                      f"{rss:.0f} | {rss - base:.0f} |", flush=True)


if __name__ == "__main__":
    main()
