"""
Gaussian process on the diabetes data
=====================================

A Gaussian process regressor gives a predictive standard deviation for every test point.
Are those standard deviations right on average, for small and large uncertainties
(consistency), and along an input feature (adaptivity)? :func:`uqval.validate` answers the
three questions; the summary says by how much and where, ``advice`` says what to do.

The data are scikit-learn's bundled diabetes set (442 patients, 10 standardised features,
disease progression after one year): nothing is downloaded.
"""

# %%
# Fit the model on one half, predict the other half
# -------------------------------------------------
import matplotlib.pyplot as plt
from sklearn.datasets import load_diabetes
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel
from sklearn.model_selection import train_test_split

import uqval

x, y = load_diabetes(return_X_y=True)
x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.5, random_state=0)
kernel = ConstantKernel() * RBF(length_scale=1.0) + WhiteKernel()
gp = GaussianProcessRegressor(kernel, normalize_y=True, random_state=0).fit(x_train, y_train)
y_pred, sigma = gp.predict(x_test, return_std=True)

# %%
# Validate: errors E = y_true − y_pred and their standard uncertainties σ
# ------------------------------------------------------------------------
# ``bmi`` (body-mass index, column 2) is the feature along which adaptivity is tested.
res = uqval.validate(y_test - y_pred, sigma, {"bmi": x_test[:, 2]}, seed=0)
print(res.summary())

# %%
# One label per stage and variable (``stages.csv`` of the command line) ...
print(res.stages[["stage", "variable", "label", "factor_low", "factor_high"]].to_string())

# %%
# ... and what to do, one row per action (``advice.csv``).
for row in res.advice.itertuples():
    print(f"{row.stage} / {row.variable or '-'}: {row.action} (factor {row.factor:.3g})")
    print(f"    {row.reason}")

# %%
# The local ZMS along bmi
# -----------------------
# Left: ⟨Z²⟩ per bin of bmi with its 95 % interval, the bins the adaptivity stage tested
# (``res.bins["bmi"]``, the table of ``bins_bmi.csv``; with 221 rows the engine cuts
# min(√M, M/100) = 2 bins, and its uncertainties are the given ones times the global scale
# factor). Right: the same statistic on 8 bins of the given σ (about 28 rows per bin,
# :func:`uqval.plots.local_zms_plot`), a finer but noisier look at where σ is too large.
fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained", sharey=True)
uqval.plots.bins_table_plot(res.bins["bmi"], "lzms", ax=left, x_name="bmi (standardised)")
left.set_title("the engine's bins (scaled σ)")
uqval.plots.local_zms_plot(y_test - y_pred, sigma, x_test[:, 2], x_name="bmi (standardised)",
                           n_bins=8, ax=right)
right.set_title("8 bins (given σ)")
plt.show()
