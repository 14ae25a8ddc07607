"""Held-out datasets of ``benchmarks/real_outputs.py --holdout`` (no uqval here).

Four more regression datasets that ship inside installed packages, chosen, split and fitted
(with the nine models of ``real_outputs_data.fit_models`` and a perfect ensemble of 5
members) before uqval or the ground truth had been run on any of them; no rule of either was
changed after seeing them. They test whether the agreement of the first three datasets
carries over to data the rules were not tuned on:

* ``mol_logp``: the molecules shipped in RDKit's SD files and SMILES tables other than the
  ChEMBL set of ``chembl_met`` (the NIBR hit-triaging PubChem examples, the EGFR and CDK2
  ligands, the first 200 NCI compounds), de-duplicated by canonical SMILES; the target is
  Crippen's logP (a computed property, as in most surrogate-model datasets of chemistry)
  from 1024-bit Morgan fingerprints (radius 2); a Bemis-Murcko scaffold split; features: the
  Tanimoto distance to the nearest training compound and the molecular weight; groups: the
  scaffolds.
* ``cars``: miles per gallon of 392 cars 1970-1982 (vega_datasets' local data) from
  cylinders, displacement, horsepower, weight, acceleration, model year and origin; split by
  manufacturer (whole makes are held out); features: distance and weight; groups: the make.
* ``seattle_temps``: hourly temperature in Seattle in 2010 (vega_datasets), from the hour,
  the season and the temperature 24 hours before; split by whole days (a random 30 % of the
  days are tested); features: distance and hour; groups: the day (the 24 hours of a day have
  correlated errors).
* ``fair``: time spent in extramarital affairs, log(1 + affairs), 2000 of the 6366 women of
  the 1974 Redbook survey (statsmodels), from marriage rating, age, years married,
  children, religiousness, education and occupations; a distance split: k-means clusters
  (k = 12) of the standardised inputs are shuffled into training, calibration and test, so
  that the test rows lie in regions the model has not seen; features: distance and age.
  Two thirds of the answers are 0: errors far from normal.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from real_outputs_data import _euclid_distance

M_PERFECT_SMALL = 5


def _group_split(groups: np.ndarray, rng: np.random.Generator, fit=0.55, cal=0.15):
    """Whole groups, shuffled, into fit / calibration / test by their cumulative row share."""
    uniq, counts = np.unique(groups, return_counts=True)
    order = rng.permutation(len(uniq))
    share = np.cumsum(counts[order]) / counts.sum()
    part = np.where(share <= fit, 0, np.where(share <= fit + cal, 1, 2))
    which = dict(zip(uniq[order], part, strict=True))
    lab = np.array([which[g] for g in groups])
    return tuple(np.flatnonzero(lab == k) for k in range(3))


def _standardised(x, tr):
    mu, sd = x[tr].mean(0), x[tr].std(0) + 1e-12
    return (x - mu) / sd


def _grouped_tabular(name, x, y, groups, feats, split_kind, seed, fit=0.55, cal=0.15) -> dict:
    rng = np.random.default_rng(seed)
    tr, ca, te = _group_split(groups, rng, fit, cal)
    xs = _standardised(x, tr)
    features = {"distance": _euclid_distance(xs[tr], xs[te])}
    features.update({k: v[te] for k, v in feats.items()})
    codes = pd.factorize(groups)[0]
    return {"name": name, "x": xs, "y": y, "split": (tr, ca, te), "scaled": True,
            "features": features, "groups": codes[te], "split_kind": split_kind}


def mol_logp(seed: int = 0) -> dict:
    from rdkit import Chem, DataStructs, RDConfig, RDLogger
    from rdkit.Chem import Crippen, Descriptors, rdFingerprintGenerator
    from rdkit.Chem.Scaffolds import MurckoScaffold

    RDLogger.DisableLog("rdApp.*")
    contrib, data_dir = Path(RDConfig.RDContribDir), Path(RDConfig.RDDataDir)
    smiles: list[str] = []
    table = pd.read_csv(contrib / "NIBRSubstructureFilters"
                        / "SubstructureFilter_HitTriaging_wPubChemExamples.csv")
    for col in [c for c in table.columns if c.startswith("EX")]:
        smiles += [s for s in table[col].dropna().astype(str)]
    mols = [Chem.MolFromSmiles(s) for s in smiles]
    for sdf in (contrib / "PBF" / "testData" / "egfr.sdf",
                contrib / "Fastcluster" / "testdata" / "cdk2.sdf",
                data_dir / "NCI" / "first_200.props.sdf"):
        mols += list(Chem.SDMolSupplier(str(sdf)))
    seen: dict[str, object] = {}
    for m in mols:
        if m is None or m.GetNumHeavyAtoms() < 6:
            continue
        seen.setdefault(Chem.MolToSmiles(m), m)
    keys = sorted(seen)
    mols = [seen[k] for k in keys]
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=1024)
    fps = [gen.GetFingerprint(m) for m in mols]
    x = np.array([np.array(list(fp), dtype=np.float64) for fp in fps])
    y = np.array([Crippen.MolLogP(m) for m in mols])
    mw = np.array([Descriptors.MolWt(m) for m in mols])
    scaf = np.array([MurckoScaffold.MurckoScaffoldSmiles(mol=m) for m in mols], dtype=object)
    tr, ca, te = _group_split(scaf, np.random.default_rng(seed))
    train_fps = [fps[i] for i in tr]
    dist = np.array([1 - max(DataStructs.BulkTanimotoSimilarity(fps[i], train_fps)) for i in te])
    return {"name": "mol_logp", "x": x, "y": y, "split": (tr, ca, te), "scaled": False,
            "features": {"distance": dist, "mol_weight": mw[te]},
            "groups": pd.factorize(scaf)[0][te], "split_kind": "Bemis-Murcko scaffold"}


_MAKES = {"chevy": "chevrolet", "chevroelt": "chevrolet", "vw": "volkswagen",
          "vokswagen": "volkswagen", "toyouta": "toyota", "maxda": "mazda",
          "mercedes-benz": "mercedes", "hi": "ih"}


def cars(seed: int = 0) -> dict:
    from vega_datasets import local_data

    d = local_data("cars").dropna(subset=["Miles_per_Gallon", "Horsepower"]).reset_index(drop=True)
    make = d.Name.str.split().str[0].replace(_MAKES).to_numpy()
    year = pd.to_datetime(d.Year).dt.year.to_numpy(float)
    origin = pd.get_dummies(d.Origin).to_numpy(float)
    x = np.column_stack([d.Cylinders, d.Displacement, d.Horsepower, d.Weight_in_lbs,
                         d.Acceleration, year, origin])
    return _grouped_tabular("cars", x, d.Miles_per_Gallon.to_numpy(float), make,
                            {"weight": d.Weight_in_lbs.to_numpy(float)}, "by manufacturer",
                            seed, fit=0.5, cal=0.15)


def seattle_temps(seed: int = 0) -> dict:
    from vega_datasets import local_data

    t = local_data("seattle-temps")
    t = t.assign(date=pd.to_datetime(t.date)).set_index("date").temp
    lag = t.shift(freq="24h").reindex(t.index)
    keep = lag.notna().to_numpy()
    idx = t.index[keep]
    hour = idx.hour.to_numpy(float)
    doy = idx.dayofyear.to_numpy(float)
    x = np.column_stack([np.sin(2 * np.pi * hour / 24), np.cos(2 * np.pi * hour / 24),
                         np.sin(2 * np.pi * doy / 365.25), np.cos(2 * np.pi * doy / 365.25),
                         lag.to_numpy()[keep]])
    day = idx.normalize().strftime("%Y-%m-%d").to_numpy()
    return _grouped_tabular("seattle_temps", x, t.to_numpy()[keep].astype(float), day,
                            {"hour": hour}, "by day", seed, fit=0.55, cal=0.15)


def fair(seed: int = 0) -> dict:
    import statsmodels.api as sm
    from sklearn.cluster import KMeans

    d = sm.datasets.fair.load_pandas().data
    d = d.iloc[np.random.default_rng(seed).permutation(len(d))[:2000]].reset_index(drop=True)
    cols = ["rate_marriage", "age", "yrs_married", "children", "religious", "educ",
            "occupation", "occupation_husb"]
    x = d[cols].to_numpy(float)
    xs = (x - x.mean(0)) / x.std(0)
    clusters = KMeans(12, n_init=10, random_state=seed).fit_predict(xs)
    ds = _grouped_tabular("fair", x, np.log1p(d.affairs.to_numpy(float)), clusters,
                          {"age": d.age.to_numpy(float)}, "k-means clusters (distance)", seed)
    ds.pop("groups")  # the clusters make the split, not a dependence between rows
    return ds


DATASETS = (mol_logp, cars, seattle_temps, fair)


def perfect_small_ensemble(mean: np.ndarray, sd: np.ndarray, seed: int) -> dict:
    """Control: y and 5 members drawn from one normal per row (a perfect 5-member ensemble)."""
    sim = np.random.default_rng(seed + 5000)
    return {"kind": "ensemble", "y": mean + sd * sim.standard_normal(len(mean)),
            "members": mean[:, None] + sd[:, None] * sim.standard_normal((len(mean), M_PERFECT_SMALL)),
            "note": "simulated y and 5 members from N(gp mean, gp sd^2)"}
