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
# The local ZMS along the uncertainty
# -----------------------------------
# <Z²> per bin of σ with its 95 % interval: the bins the consistency stage tested
# (``res.bins["uncertainty"]``, the same table as ``bins_uncertainty.csv``). The
# uncertainties of this figure are the given ones times the global scale factor.
print(sorted(res.bins))
fig, ax = plt.subplots(figsize=(5, 3.5), layout="constrained")
uqval.plots.bins_table_plot(res.bins["uncertainty"], "lzms", ax=ax, x_name="σ (scaled)")
plt.show()
