"""Compare the stage values of two ``bench_simref_page.py --json`` runs (before/after).

Prints, per stage, the largest absolute difference of the recorded numbers (reference means and
95 % ranges, BCa intervals, zeta, extrapolation fit) and whether they are bit-identical.
Usage: ``python benchmarks/compare_simref_values.py before.json after.json``
"""

from __future__ import annotations

import json
import sys


def numbers(x):
    if isinstance(x, dict):
        for v in x.values():
            yield from numbers(v)
    elif isinstance(x, list):
        for v in x:
            yield from numbers(v)
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield float(x)


def main(before: str, after: str) -> None:
    a = json.load(open(before, encoding="utf-8"))["stages"]
    b = json.load(open(after, encoding="utf-8"))["stages"]
    print(f"{'stage':<14} {'numbers':>7}  identical  max |diff|")
    for name in a:
        if name not in b:
            continue
        x, y = list(numbers(a[name]["value"])), list(numbers(b[name]["value"]))
        diff = max((abs(p - q) for p, q in zip(x, y, strict=True)), default=0.0)
        print(f"{name:<14} {len(x):>7}  {x == y!s:>9}  {diff:.3g}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
