"""Third held-out set of ``benchmarks/real_outputs.py --set holdout3`` (no uqval here).

Three more regression tasks from data that ships inside packages, chosen, split and fitted
(the nine models of ``real_outputs_data.fit_models`` plus a perfect ensemble of 5 members)
before uqval or the ground truth was run on any of them (2026-12-07), to measure the
agreement on data that no rule was changed for:

* ``melting_point``: melting points (K) of the Open Notebook table in ``chemicals``
  (``Tm_ON_data``), SMILES from its bundled identifier database, 3000 compounds drawn with
  the seed; the Bemis-Murcko scaffold split, fingerprints and features (Tanimoto distance to
  the nearest training compound, molecular weight) of ``real_outputs_holdout2_data``;
  groups: the scaffolds.
* ``refractive_index``: refractive indices (dimensionless, about 1.3-1.8) of the organic
  compounds of the CRC table in ``chemicals`` (``RI_data_CRC_organic``); the same split,
  fingerprints, features and groups.
* ``diamonds``: prices (US$) of round diamonds (``diamonds`` of ggplot2, shipped in
  ``pydataset``) from carat, cut, colour, clarity (ordinal codes), depth, table and the three
  dimensions; a distance split: k-means clusters (k = 12) of the standardised inputs are
  shuffled into training, calibration and test; features: the distance to the nearest
  training row and the carat.
"""

from __future__ import annotations

import numpy as np
from real_outputs_holdout2_data import (
    _chemicals_smiles,
    _cluster_task,
    _pydataset_rows,
    _scaffold_task,
)


def melting_point(seed: int = 0) -> dict:
    from chemicals import phase_change

    mols, y = _chemicals_smiles(phase_change.Tm_ON_data, "Tm", seed)
    return _scaffold_task("melting_point", mols, y, seed)


def refractive_index(seed: int = 0) -> dict:
    from chemicals import refractivity

    mols, y = _chemicals_smiles(refractivity.RI_data_CRC_organic, "RI", seed)
    return _scaffold_task("refractive_index", mols, y, seed)


def diamonds(seed: int = 0) -> dict:
    d = _pydataset_rows("diamonds", seed)
    order = {"cut": ["Fair", "Good", "Very Good", "Premium", "Ideal"],
             "color": list("JIHGFED"),
             "clarity": ["I1", "SI2", "SI1", "VS2", "VS1", "VVS2", "VVS1", "IF"]}
    codes = {c: d[c].map({v: i for i, v in enumerate(levels)}).to_numpy(float)
             for c, levels in order.items()}
    x = np.column_stack([d.carat, codes["cut"], codes["color"], codes["clarity"], d.depth,
                         d.table, d.x, d.y, d.z]).astype(float)
    return _cluster_task("diamonds", x, d.price.to_numpy(float),
                         {"carat": d.carat.to_numpy(float)}, seed)


DATASETS = (melting_point, refractive_index, diamonds)
