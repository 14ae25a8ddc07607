"""A :class:`~uqval.stats.bootstrap.BootstrapResult` as JSON-ready values and back: a
pipeline job bootstraps while others simulate, and the job that compares reads its result.

Floats are written as Python floats (JSON keeps their 17 significant digits), so a result
read back is equal, replicates included. Strict JSON (``uqval._internal.atomic.write_json``)
holds a non-finite field (z0 of a degenerate distribution, an undefined limit) as null: it
is read back as NaN.

>>> import numpy as np
>>> from uqval.stats.bootstrap import bca_bootstrap
>>> res = bca_bootstrap((np.arange(20.0),), lambda x: x.mean(axis=-1), n_boot=50, seed=1)
>>> again = result_from_dict(result_to_dict(res))
>>> again == res, bool((again.replicates == res.replicates).all())
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from uqval.stats.bootstrap import BootstrapResult

__all__ = ["result_from_dict", "result_to_dict"]

_SCALARS = ("estimate", "bias", "se", "ci_low", "ci_high", "n_boot", "confidence", "z0",
            "acceleration")


def result_to_dict(result: BootstrapResult) -> dict[str, Any]:
    """The fields of ``result`` as plain values, replicates as a list."""
    return {f: getattr(result, f) for f in _SCALARS} | {"replicates": result.replicates.tolist()}


def result_from_dict(fields: Mapping[str, Any]) -> BootstrapResult:
    """The :class:`BootstrapResult` of :func:`result_to_dict`'s values.

    Raises:
        ValueError: if a field is missing or the replicates are not n_boot numbers.
    """
    missing = [f for f in (*_SCALARS, "replicates") if f not in fields]
    if missing:
        raise ValueError(f"bootstrap result lacks {missing}")
    replicates = np.asarray(fields["replicates"], dtype=np.float64)
    n_boot = int(fields["n_boot"])
    if replicates.shape != (n_boot,):
        raise ValueError(f"replicates must hold n_boot = {n_boot} values, got shape {replicates.shape}")
    values = {f: math.nan if fields[f] is None else float(fields[f]) for f in _SCALARS
              if f != "n_boot"}
    return BootstrapResult(n_boot=n_boot, replicates=replicates, **values)
