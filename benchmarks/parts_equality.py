"""The parts route against the one-process path at 10^5 and 10^6 rows (issue 41).

Each set (seeded; x1 ~ U(0, 1), x2 ~ N(0, 1), uE lognormal, E = uE N(0, 1), times 1.5 where
x1 > 0.8 in the planted case) is written as 10 Parquet parts and validated by
:func:`uqval.validate_parts` with a subsample of a tenth of the rows (so that the second pass
and the sums of all rows are used), and by :func:`uqval.validate` on all rows at once, with
the same seed and default counts. Compared: ZMS and <Z> (relative difference; exact sums
against NumPy's pairwise sums), the label of every stage (``stage_verdicts``), and the advice
(action and variable of each row, and the factor of each range).

Usage::

    nice -n 5 python benchmarks/parts_equality.py [--sizes 1e5,1e6] [--cases calibrated,planted]
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from uqval import PartColumns, validate, validate_parts


def draw(m: int, planted: bool, seed: int = 11) -> pd.DataFrame:
    rng = np.random.default_rng([seed, m])
    x1, x2 = rng.uniform(size=m), rng.normal(size=m)
    u = rng.lognormal(0.0, 0.5, m)
    e = u * rng.standard_normal(m) * np.where(planted & (x1 > 0.8), 1.5, 1.0)
    return pd.DataFrame({"e": e, "u": u, "x1": x1, "x2": x2})


def advice(res) -> list[str]:
    out = []
    for _, r in res.advice.iterrows():
        factor = "" if not np.isfinite(r["factor"]) else f" {r['factor']:.2f}"
        out.append(f"{r['action']}:{r['variable']}{factor}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1e5,1e6")
    parser.add_argument("--cases", default="calibrated,planted")
    args = parser.parse_args()
    print("| rows | case | ZMS rel. diff | <Z> diff | same stage labels | advice, parts | "
          "advice, one process | seconds, parts / one process |")
    print("|---|---|---|---|---|---|---|---|")
    for m in (int(float(s)) for s in args.sizes.split(",")):
        for case in args.cases.split(","):
            frame = draw(m, case == "planted")
            with tempfile.TemporaryDirectory() as tmp:
                for k, chunk in enumerate(np.array_split(np.arange(m), 10)):
                    frame.iloc[chunk].to_parquet(Path(tmp) / f"part-{k:02d}.parquet")
                start = time.perf_counter()
                parts = validate_parts(tmp, PartColumns("u", error="e", features=("x1", "x2")),
                                       subsample=m // 10, n_jobs=2, n_workers=2)
                t_parts = time.perf_counter() - start
            start = time.perf_counter()
            whole = validate(frame["e"], frame["u"], {"x1": frame["x1"], "x2": frame["x2"]},
                             uncertainty_name="u", n_workers=2)
            t_whole = time.perf_counter() - start
            zms_p, zms_w = parts.scale_factor.value**2, whole.scale_factor.value**2
            mz = [r.verdicts.set_index("statistic").loc["<Z>", "value"] for r in (parts, whole)]
            same = parts.stage_verdicts == whole.stage_verdicts
            print(f"| {m:.0e} | {case} | {abs(zms_p - zms_w) / zms_w:.1e} | "
                  f"{abs(mz[0] - mz[1]):.1e} | {'yes' if same else 'no: ' + str(parts.stage_verdicts)} | "
                  f"{'; '.join(advice(parts)) or 'none'} | {'; '.join(advice(whole)) or 'none'} | "
                  f"{t_parts:.0f} / {t_whole:.0f} |", flush=True)
            assert math.isfinite(zms_p)


if __name__ == "__main__":
    main()
