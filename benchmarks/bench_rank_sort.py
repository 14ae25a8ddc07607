"""Benchmark: the row sort of ``uqval.stats.rank_kernel`` (ns per value), before and after.

The row sort ``rank_kernel._sort_row`` is the inner loop of the CC references (ranks of
abs(E*) of every simulated set, ``rank_weight_sums``) and of the App. B references
(``sorted_prefix_sums``). This script times it on rows of M values for two distributions:

* ``|N| x lognormal``: abs(uE eps) with uE ~ lognormal(0, 1), eps ~ N(0, 1) (abs(E*) of a
  simulated set, P002);
* ``1/Gamma(1.5)``: inverse-gamma draws (the uE^2 of the App. B references, heavy tail);

at M = 2 000, 27 000, 130 000 and 10^6, for the kernel of the working tree and the kernel of
a baseline git revision (``--baseline``, loaded from ``git show``), next to NumPy's
``argsort(kind="stable")`` of the same rows. Each cell is the best of ``--repeat`` runs over
about ``--values`` values (rows of M), CPU time of this process, the kernels taking turns. A second table times the
public functions as their callers use them: ``rank_weight_sums`` (the CC references of a
dataset page, M = 27 000) and ``sorted_prefix_sums`` (the App. B references: uE^2 ~
1/Gamma(1.5) redrawn per set, M = 8000, the boundaries of 10..50 equal-count bins).
``--sizes`` picks other row lengths. Usage::

    nice -n 10 python benchmarks/bench_rank_sort.py --baseline c97ba2a \
        --out benchmarks/rank_kernel_sort.md

Results: ``benchmarks/rank_kernel_sort.md``.
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import numba
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SIZES = (2_000, 27_000, 130_000, 1_000_000)
SEED = 20261126


def load_kernel(rev: str | None) -> ModuleType:
    """The rank kernel of the working tree (rev None) or of a git revision."""
    if rev is None:
        sys.path.insert(0, str(ROOT / "src"))
        from uqval.stats import rank_kernel

        return rank_kernel
    text = subprocess.run(["git", "show", f"{rev}:src/uqval/stats/rank_kernel.py"], cwd=ROOT,
                          check=True, capture_output=True, text=True).stdout
    where = Path(tempfile.mkdtemp(prefix="rank_kernel_")) / "rank_kernel_base.py"
    where.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("rank_kernel_base", where)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_driver(kernel: ModuleType):
    """A compiled loop sorting every row of a 2-D array with ``kernel._sort_row``."""
    sort_row = kernel._sort_row
    work_arrays = kernel._work_arrays

    @numba.njit(nogil=True)
    def drive(a, payload):  # pragma: no cover - compiled
        n, m = a.shape
        order, vals, tmp_v, tmp_i, start = work_arrays(m)
        tied = 0
        check = 0.0
        for r in range(n):
            tied += sort_row(a[r], payload, order, vals, tmp_v, tmp_i, start)
            check += vals[m // 2] + order[m // 3]
        return tied, check

    return drive


def make_rows(dist: str, m: int, n: int, rng: np.random.Generator) -> np.ndarray:
    if dist == "normal":
        return np.abs(rng.lognormal(0.0, 1.0, m)[None, :] * rng.standard_normal((n, m)))
    return 1.0 / rng.standard_gamma(1.5, (n, m))


def best_of(repeat: int, calls: dict[str, tuple[Any, tuple[Any, ...]]]) -> dict[str, float]:
    """Least CPU time of ``repeat`` calls of each fn(*args) in ``calls`` (name: (fn, args)),
    the kernels taking turns so that they share the machine's load alike."""
    best = dict.fromkeys(calls, np.inf)
    for _ in range(repeat):
        for name, (fn, fn_args) in calls.items():
            t0 = time.process_time()
            fn(*fn_args)
            best[name] = min(best[name], time.process_time() - t0)
    return best


def same(x: object, y: object) -> bool:
    """Equal bit for bit (arrays, or tuples of arrays)."""
    xs = x if isinstance(x, tuple) else (x,)
    ys = y if isinstance(y, tuple) else (y,)
    return all(np.asarray(u).tobytes() == np.asarray(v).tobytes()
               for u, v in zip(xs, ys, strict=True))


def public_table(kernels: dict[str, ModuleType], rng: np.random.Generator,
                 args: argparse.Namespace) -> str:
    """ns per value of the public functions (sort and sums) for each kernel."""
    m_cc, m_b = 27_000, 8000
    a = make_rows("normal", m_cc, max(2, int(round(args.values / m_cc))), rng)
    w = rng.integers(-m_cc, m_cc, m_cc)
    keys = make_rows("invgamma", m_b, max(2, int(round(args.values / m_b))), rng)
    eps2 = np.square(rng.standard_normal(keys.shape))
    positions = np.unique(np.concatenate(
        [np.round(np.arange(n + 1) * m_b / n).astype(np.intp) for n in (10, 20, 30, 40, 50)]))
    cases = {
        f"`rank_weight_sums`, M = {m_cc:,} (CC)": lambda k: k.rank_weight_sums(a, w),
        f"`sorted_prefix_sums`, M = {m_b:,} (App. B)":
            lambda k: k.sorted_prefix_sums(keys, eps2, positions),
    }
    names = list(kernels)
    lines = ["| function | rows | " + " | ".join(f"{k} ns/value" for k in names) + " |",
             "|" + "---|" * (2 + len(names))]
    for label, call in cases.items():
        outs = [call(k) for k in kernels.values()]  # also compiles
        assert all(same(outs[0], o) for o in outs[1:]), label  # bit for bit
        size = a.size if "rank" in label else keys.size
        times = best_of(args.repeat, {name: (call, (k,)) for name, k in kernels.items()})
        cells = [times[name] / size * 1e9 for name in names]
        rows = a.shape[0] if "rank" in label else keys.shape[0]
        lines.append(f"| {label} | {rows} | " + " | ".join(f"{c:.1f}" for c in cells) + " |")
        print(lines[-1], flush=True)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default=None, help="git revision of the 'before' kernel")
    parser.add_argument("--values", type=float, default=3e6, help="values per cell")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="row lengths M")
    parser.add_argument("--out", type=Path, default=None, help="Markdown table to write")
    args = parser.parse_args()

    kernels = {"after": load_kernel(None)}
    if args.baseline:
        kernels = {"before": load_kernel(args.baseline), **kernels}
    drivers = {name: make_driver(k) for name, k in kernels.items()}
    rng = np.random.default_rng(SEED)
    rows = []
    for dist, label in (("normal", "\\|N\\| x lognormal(0, 1)"), ("invgamma", "1/Gamma(1.5)")):
        for m in [int(x) for x in args.sizes.split(",")]:
            n = max(2, int(round(args.values / m)))
            a = make_rows(dist, m, n, rng)
            payload = np.arange(m)
            results = []
            for drive in drivers.values():
                drive(a[:1], payload)  # compile
                results.append(drive(a, payload))
            assert all(r == results[0] for r in results), results
            calls: dict[str, tuple[Any, tuple[Any, ...]]] = {
                name: (drive, (a, payload)) for name, drive in drivers.items()}
            calls["argsort"] = (np.argsort, (a, 1, "stable"))
            cells = {k: t / a.size * 1e9 for k, t in best_of(args.repeat, calls).items()}
            rows.append((label, m, n, cells))
            print(label, m, n, {k: round(v, 2) for k, v in cells.items()}, flush=True)

    names = list(drivers) + ["argsort"]
    head = ["values", "M", "rows"] + [f"{k} ns/value" for k in names]
    if "before" in cells:
        head.append("speed-up")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, m, n, cells in rows:
        out = [label, f"{m:,}", str(n)] + [f"{cells[k]:.1f}" for k in names]
        if "before" in cells:
            out.append(f"{cells['before'] / cells['after']:.2f}x")
        lines.append("| " + " | ".join(out) + " |")
    table = "\n".join(lines) + "\n\n" + public_table(kernels, rng, args)
    print(table)
    if args.out:
        intro = (
            "# Row sort of the rank kernel (`uqval.stats.rank_kernel._sort_row`)\n\n"
            "`python benchmarks/bench_rank_sort.py"
            + (f" --baseline {args.baseline}" if args.baseline else "")
            + "` (under `nice -n 10`), CPU time per value, best of "
            f"{args.repeat} runs over about {args.values:.0e} values per cell; "
            f"{platform.processor() or platform.machine()}, numba {numba.__version__}, "
            f"NumPy {np.__version__}. `before`: the kernel of revision `{args.baseline}`; "
            "`after`: the working tree; `argsort`: `np.argsort(kind=\"stable\")` of the same "
            "rows (NumPy's radix/timsort, for scale). Sorted values and payloads are checked "
            "equal between the kernels.\n\n"
        )
        args.out.write_text(intro + table + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
