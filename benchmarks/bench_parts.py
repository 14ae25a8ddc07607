"""Benchmark: ``uqval validate FOLDER/`` on test sets in Parquet parts (issue 41).

Data (seeded, written part by part to ``--data`` (default a temporary folder), never
committed): the table of ``bench_large_validate.py`` (x1 ~ U(0, 1), x2 ~ N(0, 1), x3 ~ Exp(1),
uE = 0.1 exp(N(0, 0.5^2)) (1 + x1), E = uE N(0, 1): calibrated) cut into parts of
``--part-rows`` rows, part k drawn from its own seed (SEED, M, k), so that no process ever
holds more than one part.

Each run is a child process: ``uqval validate FOLDER/ --error error --uncertainty uncertainty
--feature x1 --feature x2 --feature x3 --jobs J`` (default n_boot, permutation counts and
subsample of 10^6 rows). CPU time (user + sys of the child and its threads) and peak resident
memory come from ``os.wait4``; wall time from the clock. With ``--one-file`` the same rows
are also written as one Parquet file and validated by the one-process path, for the 1.2x
comparison of the issue.

Usage::

    nice -n 5 python benchmarks/bench_parts.py --rows 1e7 --part-rows 1e6 --jobs 2 [--one-file]

Results: printed as a Markdown row, appended to ``benchmarks/parts.md`` with ``--record``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_large_validate import SEED, cell, run_child  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
COLUMNS = ["--error", "error", "--uncertainty", "uncertainty",
           "--feature", "x1", "--feature", "x2", "--feature", "x3"]


def write_parts(m: int, part_rows: int, folder: Path) -> float:
    """Write the seeded set of ``m`` rows in parts of ``part_rows``; seconds taken."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    start = time.perf_counter()
    folder.mkdir(parents=True, exist_ok=True)
    for k, lo in enumerate(range(0, m, part_rows)):
        n = min(part_rows, m - lo)
        rng = np.random.default_rng([SEED, m, k])
        x1, x2, x3 = rng.uniform(0, 1, n), rng.normal(0, 1, n), rng.exponential(1.0, n)
        u = 0.1 * np.exp(rng.normal(0, 0.5, n)) * (1 + x1)
        table = pa.table({"error": u * rng.standard_normal(n), "uncertainty": u,
                          "x1": x1, "x2": x2, "x3": x3})
        pq.write_table(table, folder / f"part-{k:05d}.parquet")
    return time.perf_counter() - start


def one_file(folder: Path, target: Path) -> None:
    """The parts concatenated into one Parquet file (for the one-process comparison)."""
    import pyarrow.parquet as pq

    files = sorted(folder.glob("*.parquet"))
    schema = pq.read_schema(files[0])
    with pq.ParquetWriter(target, schema) as writer:
        for f in files:
            writer.write_table(pq.read_table(f))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--part-rows", type=float, default=1e6)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--subsample", type=int, default=1_000_000)
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--one-file", action="store_true")
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    m, part_rows = int(args.rows), int(args.part_rows)
    tmp = Path(tempfile.mkdtemp(prefix="uqval-parts-"))
    data = args.data or tmp / "parts"
    try:
        if not data.exists():
            written = write_parts(m, part_rows, data)
            print(f"wrote {m} rows in {data} ({written:.0f} s)", file=sys.stderr)
        cmd = [sys.executable, "-m", "uqval", "validate", str(data), *COLUMNS,
               "--jobs", str(args.jobs), "--subsample", str(args.subsample),
               "--out", str(tmp / "report")]
        os.environ["PYTHONPATH"] = str(ROOT / "src")
        parts = run_child(cmd, None)
        rows = [("parts", parts)]
        if args.one_file:
            single = tmp / "one.parquet"
            one_file(data, single)
            whole = run_child([sys.executable, "-m", "uqval", "validate", str(single), *COLUMNS,
                               "--jobs", str(args.jobs), "--out", str(tmp / "one")], None)
            rows.append(("one file", whole))
        load = os.getloadavg()[0]
        lines = []
        for route, r in rows:
            lines.append(f"| {m:.0e} | {part_rows:.0e} | {route} | {args.jobs} | "
                         f"{cell(r, None)} | {load:.1f} |")
        text = "\n".join(lines)
        print(text)
        verdicts = (tmp / "report" / "verdicts.csv")
        if verdicts.exists():
            print(verdicts.read_text().splitlines()[0:3], file=sys.stderr)
        if args.record:
            with open(ROOT / "benchmarks" / "parts.md", "a", encoding="utf-8") as out:
                out.write(text + "\n")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
