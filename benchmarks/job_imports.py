"""Import CPU time of every Snakemake job script, before and after a change (issue 29).

Each job of the paper rebuild is a fresh Python process running one script of ``scripts/``;
run outside Snakemake, a script stops with NameError on ``snakemake`` right after its imports,
so its CPU time (user + system, the minimum of ``--runs`` runs: the machine is shared) is the
import cost every job of its rule pays. The sum is weighted by the number of jobs of each rule
in the full rebuild. Writes benchmarks/job_imports.md.

    python benchmarks/job_imports.py --before dcb290a --runs 3
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

JOBS = {  # jobs of each script's rule in the full rebuild (`snakemake -n`: 163 jobs with `all`)
    "fetch": 23,  # rule fetch_raw_file
    "prepare": 19,  # rule prepare_dataset
    "validate_dataset": 19,
    "ucc_dataset": 19,
    "screen_dataset": 17,
    "average_calibration": 17,
    "simref_appb_chunk": 10,
    "simref_set": 9,
    "heavytails_pval_chunk": 4,
    "adaptivity_random_order_chunk": 3,
    "dataset_page": 0,  # the `validate` target's pages, not part of the rebuild
    "datasets_index": 0,
    "heavytails_jacobs": 0,  # not in the default rebuild (`snakemake -n` lists no such job)
}

NOTES = {  # where the import moved to first use but the job's run still needs the module
    "screen_dataset": "shape_fits imports the KS fits (scipy.stats, optimize) when it runs",
}


def import_cpu(script: Path, src: Path, runs: int) -> float:
    """Minimum over ``runs`` of the CPU seconds (user + system) of ``python script``."""
    best = float("inf")
    env = dict(os.environ, PYTHONPATH=str(src))
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, str(script)], env=env, cwd=ROOT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return best


def source_at(revision: str, into: Path) -> Path:
    """The ``src`` folder of ``revision``, extracted into ``into``."""
    archive = into / "src.tar"
    with archive.open("wb") as fh:
        subprocess.run(["git", "archive", revision, "src"], cwd=ROOT, stdout=fh, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="dcb290a", help="git revision to compare with")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "job_imports.md")
    args = parser.parse_args()
    scripts = sorted((ROOT / "scripts").glob("*.py"))
    with tempfile.TemporaryDirectory() as tmp:
        old_src = source_at(args.before, Path(tmp))
        rows = []
        for script in scripts:
            name = script.stem
            old = import_cpu(script, old_src, args.runs)
            new = import_cpu(script, ROOT / "src", args.runs)
            rows.append((name, JOBS.get(name, 1), old, new))
            print(f"{name:32s} {old:5.2f} {new:5.2f}", flush=True)
    rows.sort(key=lambda r: -r[1] * (r[2] - r[3]))
    total_old = sum(n * o for _, n, o, _ in rows)
    total_new = sum(n * w for _, n, _, w in rows)
    jobs = sum(n for _, n, _, _ in rows)
    lines = [
        "# Import CPU time of the pipeline's jobs (issue 29)",
        "",
        f"CPU seconds (user + system, minimum of {args.runs} runs on the shared 2-core machine) "
        "that each job script spends importing, before (`" + args.before + "`) and after; "
        "`benchmarks/job_imports.py` measures them (a script run outside Snakemake stops on the "
        "missing `snakemake` object after its imports). Weighted by the jobs of each rule in "
        f"the full rebuild ({jobs} jobs).",
        "",
        "| script | jobs | before (s) | after (s) | saved × jobs (s) | note |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name, n, old, new in rows:
        lines.append(f"| {name} | {n} | {old:.2f} | {new:.2f} | {n * (old - new):.1f} | "
                     f"{NOTES.get(name, '')} |")
    lines += [
        f"| **all jobs** | **{jobs}** | **{total_old:.0f}** | **{total_new:.0f}** | "
        f"**{total_old - total_new:.0f}** | |",
        "",
    ]
    kept = ""  # the hand-written sections (## ...) after the table are kept
    if args.out.exists():
        text = args.out.read_text(encoding="utf-8")
        kept = text[text.index("\n## ") + 1:] if "\n## " in text else ""
    args.out.write_text("\n".join(lines) + "\n" + kept, encoding="utf-8")


if __name__ == "__main__":
    main()
