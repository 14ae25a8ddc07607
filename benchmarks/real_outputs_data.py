"""Datasets and models of ``benchmarks/real_outputs.py`` (no uqval here).

Three regression datasets that ship inside installed packages (nothing is downloaded):

* ``chembl_met``: 1017 compounds of ChEMBL document CHEMBL2321810 with their measured
  potency (pIC50), shipped with RDKit (``Contrib/FreeWilson/data``). Morgan fingerprints
  (radius 2, 1024 bits), a Bemis-Murcko scaffold split (the largest scaffold groups train,
  the other groups are shuffled into calibration and test), the Tanimoto distance of each
  compound to its nearest training compound and its molecular weight as features.
* ``seattle_weather``: daily maximum temperature in Seattle 2012-2015 (1461 days, vega_datasets'
  local data) from the minimum temperature, precipitation, wind and the season.
* ``randhie``: RAND health insurance experiment (statsmodels), log(1 + outpatient visits)
  from insurance and health variables; a random subsample of 2000 rows.

Every dataset also gets ``distance``: the distance of each test row to its nearest training
row (Tanimoto for the compounds, Euclidean in standardised inputs otherwise).

Models, each fitted on the training split (seeded, small), predicting the test split:

* ``gp``: Gaussian process (constant x RBF + white noise); sd of y (noise included);
* ``gp_latent``: the same fit, sd of the latent function only (noise term left out: the
  common mistake, too small where the data are noisy);
* ``gp_recal``: ``gp`` times one factor sqrt(mean z^2) fitted on the calibration split
  (control: right on average);
* ``constant``: the GP mean with one sd for every row, the training RMSE (control for
  adaptivity failures);
* ``ngboost``: NGBoost with a normal predictive (mean and sd);
* ``mlp_ensemble``: 8 MLPs on bootstrap resamples of the training split (members);
* ``ensemble_perfect``: control, simulated: y drawn from N(gp mean, gp sd^2) and 8 members
  from the same normal (a perfect 8-member ensemble on the real rows and features);
* ``quantile_gb``: gradient boosting with the quantile loss at 5 %, 50 %, 95 % (one model
  per level, crossings left in);
* ``cqr``: conformalized quantile regression (Romano et al. 2019) of ``quantile_gb``'s 5 %
  and 95 % models on the calibration split: a 90 % interval (control: covers 90 % on
  average).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROWS_MAX = 5000
TAU = (0.05, 0.5, 0.95)
M_ENS = 8
GP_ROWS = 700  # the GP is fitted on at most this many training rows (speed)


# ----------------------------------------------------------------------------- datasets
def _split_random(n: int, rng: np.random.Generator, fit=0.55, cal=0.15):
    idx = rng.permutation(n)
    a, b = int(fit * n), int((fit + cal) * n)
    return idx[:a], idx[a:b], idx[b:]


def _euclid_distance(x_train: np.ndarray, x_test: np.ndarray) -> np.ndarray:
    d2 = ((x_test[:, None, :] - x_train[None, :, :]) ** 2).sum(-1)
    return np.sqrt(d2.min(1))


def chembl_met(seed: int = 0) -> dict:
    from rdkit import Chem, DataStructs, RDConfig, RDLogger
    from rdkit.Chem import Descriptors, rdFingerprintGenerator
    from rdkit.Chem.Scaffolds import MurckoScaffold

    RDLogger.DisableLog("rdApp.*")
    folder = Path(RDConfig.RDContribDir) / "FreeWilson" / "data"
    smi = pd.read_csv(folder / "CHEMBL2321810.smi", sep=r"\s+", header=None,
                      names=["smiles", "Name"])
    act = pd.read_csv(folder / "CHEMBL2321810_act.csv")
    df = smi.merge(act, on="Name")
    mols = [Chem.MolFromSmiles(s) for s in df.smiles]
    keep = np.array([m is not None for m in mols])
    df, mols = df[keep].reset_index(drop=True), [m for m in mols if m is not None]
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=1024)
    fps = [gen.GetFingerprint(m) for m in mols]
    x = np.array([np.array(list(fp), dtype=np.float64) for fp in fps])
    scaf = [MurckoScaffold.MurckoScaffoldSmiles(mol=m) for m in mols]
    groups = pd.Series(range(len(scaf))).groupby(pd.Series(scaf)).apply(list)
    groups = sorted(groups.tolist(), key=len, reverse=True)
    n = len(mols)
    train: list[int] = []
    rest_groups = []
    for g in groups:  # the largest scaffold groups train (about 55 %)
        if len(train) < 0.55 * n:
            train += g
        else:
            rest_groups.append(g)
    rng = np.random.default_rng(seed)
    cal: list[int] = []
    test: list[int] = []
    for k in rng.permutation(len(rest_groups)):  # the rest: 1/3 calibration, 2/3 test
        (cal if len(cal) < 0.15 * n else test).extend(rest_groups[k])
    train_i, cal_i, test_i = map(np.array, (train, cal, test))
    train_fps = [fps[i] for i in train_i]

    def dist(rows):
        return np.array([1 - max(DataStructs.BulkTanimotoSimilarity(fps[i], train_fps))
                         for i in rows])

    mw = np.array([Descriptors.MolWt(m) for m in mols])
    scaf_id = {sc: k for k, sc in enumerate(sorted(set(scaf)))}
    return {"name": "chembl_met", "x": x, "y": df.Act.to_numpy(float),
            "split": (train_i, cal_i, test_i), "scaled": False,
            "features": {"distance": dist(test_i), "mol_weight": mw[test_i]},
            "groups": np.array([scaf_id[s] for s in np.array(scaf, dtype=object)[test_i]]),
            "split_kind": "Bemis-Murcko scaffold"}


def seattle_weather(seed: int = 0) -> dict:
    from vega_datasets import local_data

    w = local_data("seattle-weather")
    doy = pd.to_datetime(w.date).dt.dayofyear.to_numpy()
    x = np.column_stack([w.temp_min, w.precipitation, w.wind,
                         np.sin(2 * np.pi * doy / 365.25), np.cos(2 * np.pi * doy / 365.25)])
    y = w.temp_max.to_numpy(float)
    return _tabular("seattle_weather", x, y, {"temp_min": 0, "precipitation": 1}, seed)


def randhie(seed: int = 0) -> dict:
    import statsmodels.api as sm

    d = sm.datasets.randhie.load_pandas().data
    d = d.iloc[np.random.default_rng(seed).permutation(len(d))[:2000]].reset_index(drop=True)
    cols = ["lncoins", "idp", "lpi", "fmde", "physlm", "disea", "hlthg", "hlthf", "hlthp"]
    return _tabular("randhie", d[cols].to_numpy(float), np.log1p(d.mdvis.to_numpy(float)),
                    {"disea": 5, "lpi": 2}, seed)


def _tabular(name, x, y, feats, seed) -> dict:
    rng = np.random.default_rng(seed)
    tr, ca, te = _split_random(len(y), rng)
    mu, sd = x[tr].mean(0), x[tr].std(0) + 1e-12
    xs = (x - mu) / sd
    features = {"distance": _euclid_distance(xs[tr], xs[te])}
    features.update({k: x[te, j] for k, j in feats.items()})
    return {"name": name, "x": xs, "y": y, "split": (tr, ca, te), "scaled": True,
            "features": features, "split_kind": "random"}


DATASETS = (chembl_met, seattle_weather, randhie)


# ----------------------------------------------------------------------------- models
def fit_models(ds: dict, seed: int = 0) -> dict[str, dict]:
    """Per model: {"kind": normal|ensemble|quantiles|intervals, "y", "pred", ...}."""
    from ngboost import NGBRegressor
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
    from sklearn.neural_network import MLPRegressor

    warnings.filterwarnings("ignore")
    x, y = ds["x"], ds["y"]
    tr, ca, te = ds["split"]
    ymu, ysd = y[tr].mean(), y[tr].std()
    out: dict[str, dict] = {}

    # Gaussian process (isotropic RBF on fingerprints, per-input length scales otherwise)
    ls = np.ones(x.shape[1]) if ds["scaled"] else 10.0
    kern = (ConstantKernel(1.0, (1e-2, 1e2)) * RBF(ls, (1e-2, 1e3))
            + WhiteKernel(0.1, (1e-5, 1e1)))
    sub = tr if len(tr) <= GP_ROWS else np.random.default_rng(seed).choice(tr, GP_ROWS, replace=False)
    gp = GaussianProcessRegressor(kern, normalize_y=True, random_state=seed).fit(x[sub], y[sub])
    noise = gp.kernel_.k2.noise_level * ysd**2  # normalize_y: the kernel is in units of sd(y)
    mu_te, sd_te = gp.predict(x[te], return_std=True)
    mu_ca, sd_ca = gp.predict(x[ca], return_std=True)
    out["gp"] = {"kind": "normal", "y": y[te], "pred": mu_te, "sd": sd_te}
    out["gp_latent"] = {"kind": "normal", "y": y[te], "pred": mu_te,
                        "sd": np.sqrt(np.maximum(sd_te**2 - noise, 1e-12 * ysd**2))}
    factor = np.sqrt(np.mean(((y[ca] - mu_ca) / sd_ca) ** 2))
    out["gp_recal"] = {"kind": "normal", "y": y[te], "pred": mu_te, "sd": factor * sd_te,
                       "note": f"factor {factor:.3f} from {len(ca)} calibration rows"}
    rmse_tr = np.sqrt(np.mean((y[sub] - gp.predict(x[sub])) ** 2))
    out["constant"] = {"kind": "normal", "y": y[te], "pred": mu_te,
                       "sd": np.full(len(te), rmse_tr)}

    ngb = NGBRegressor(n_estimators=300, verbose=False, random_state=seed)
    dist = ngb.fit(x[tr], y[tr]).pred_dist(x[te])
    out["ngboost"] = {"kind": "normal", "y": y[te], "pred": dist.params["loc"],
                      "sd": dist.params["scale"]}

    rng = np.random.default_rng(seed)
    members = np.empty((len(te), M_ENS))
    for j in range(M_ENS):
        b = rng.choice(tr, size=len(tr), replace=True)
        mlp = MLPRegressor(hidden_layer_sizes=(64,), alpha=1e-3, max_iter=300, early_stopping=False,
                           random_state=seed + j)
        members[:, j] = mlp.fit(x[b], (y[b] - ymu) / ysd).predict(x[te]) * ysd + ymu
    out["mlp_ensemble"] = {"kind": "ensemble", "y": y[te], "members": members}

    sim = np.random.default_rng(seed + 1000)
    out["ensemble_perfect"] = {
        "kind": "ensemble", "y": mu_te + sd_te * sim.standard_normal(len(te)),
        "members": mu_te[:, None] + sd_te[:, None] * sim.standard_normal((len(te), M_ENS)),
        "note": "simulated y and members from N(gp mean, gp sd^2)"}

    q_te = np.empty((len(te), len(TAU)))
    q_ca = np.empty((len(ca), len(TAU)))
    for j, tau in enumerate(TAU):
        gb = GradientBoostingRegressor(loss="quantile", alpha=tau, n_estimators=200,
                                       max_depth=3, learning_rate=0.05, subsample=0.8,
                                       random_state=seed).fit(x[tr], y[tr])
        q_te[:, j], q_ca[:, j] = gb.predict(x[te]), gb.predict(x[ca])
    out["quantile_gb"] = {"kind": "quantiles", "y": y[te], "quantiles": q_te}
    score = np.maximum(q_ca[:, 0] - y[ca], y[ca] - q_ca[:, 2])
    k = int(np.ceil(0.9 * (len(ca) + 1)))
    qhat = np.sort(score)[min(k, len(ca)) - 1]
    out["cqr"] = {"kind": "intervals", "y": y[te], "lo": q_te[:, 0] - qhat,
                  "hi": q_te[:, 2] + qhat, "note": f"CQR offset {qhat:.3f}"}
    return out


def to_frame(model: dict, features: dict[str, np.ndarray], groups=None) -> pd.DataFrame:
    """The outputs a user would have: y, prediction, sd | members | quantiles | interval,
    the features (``f_*``) and, for the compounds, their scaffold (``group``)."""
    cols: dict[str, np.ndarray] = {"y": model["y"]}
    kind = model["kind"]
    if kind == "normal":
        cols["pred"], cols["sd"] = model["pred"], model["sd"]
    elif kind == "ensemble":
        cols["pred"] = model["members"].mean(1)
        for j in range(model["members"].shape[1]):
            cols[f"member_{j}"] = model["members"][:, j]
    elif kind == "quantiles":
        for j, tau in enumerate(TAU):
            cols[f"q_{tau:g}"] = model["quantiles"][:, j]
        cols["pred"] = model["quantiles"][:, TAU.index(0.5)]
    else:
        cols["pred"] = (model["lo"] + model["hi"]) / 2
        cols["lo_0.9"], cols["hi_0.9"] = model["lo"], model["hi"]
    for k, v in features.items():
        cols[f"f_{k}"] = v
    if groups is not None:
        cols["group"] = groups
    return pd.DataFrame(cols)
