"""The command line shared by the simulation scripts of ``benchmarks/``: ``--sets N`` seeded
sets of ``--rows M`` rows each."""

from __future__ import annotations

import argparse


def sets_and_rows(doc: str | None, rows: int, sets: int = 40) -> argparse.Namespace:
    """Parse ``--sets`` and ``--rows`` with the script's first docstring line as help."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n")[0])
    parser.add_argument("--sets", type=int, default=sets, help="seeded sets per case")
    parser.add_argument("--rows", type=int, default=rows, help="rows per set")
    return parser.parse_args()
