"""
A bootstrap ensemble of gradient-boosting models
================================================

Thirty gradient-boosting regressors, each fitted on a bootstrap resample of the training
set, make an ensemble: their mean is the prediction and their spread the uncertainty.
:func:`uqval.validate` takes the members as they are (:class:`uqval.Ensemble`), without
squashing them into one σ: it tests the coverage of the members' central intervals at
several levels, the shape of the predictive (PIT), and the variance stages on
E = y − mean with uE = the members' standard deviation.
"""

# %%
# Fit 30 members on bootstrap resamples
# -------------------------------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.model_selection import train_test_split

import uqval

x, y = load_diabetes(return_X_y=True)
x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.5, random_state=1)
rng = np.random.default_rng(0)
members = []
for k in range(30):
    rows = rng.integers(0, len(y_train), len(y_train))  # a bootstrap resample
    model = GradientBoostingRegressor(n_estimators=100, max_depth=2, learning_rate=0.05,
                                      random_state=k).fit(x_train[rows], y_train[rows])
    members.append(model.predict(x_test))
members = np.column_stack(members)  # (test points, members)

# %%
# Validate the ensemble
# ---------------------
# ``validate(y_true, predictive, features)``: the first argument is now the observed values.
# Levels: the central intervals whose coverage is tested. 30 members cannot resolve a 95 %
# interval (its empirical quantiles are the members' smallest and largest values, and an
# observation outside them gets a randomised PIT in a rank bin of width 1/31 > 2.5 %), so
# this example stops at 90 %.
res = uqval.validate(y_test, uqval.Ensemble(members), {"bmi": x_test[:, 2]},
                     levels=[0.5, 0.8, 0.9], seed=0)
print(res.summary())

# %%
# Observed coverage of the members' central intervals at each nominal level
# (``coverage.csv`` of the command line).
print(res.coverage.levels[["level", "n", "value", "ci_low", "ci_high", "widen"]].to_string())

# %%
# The advice, in the order it should be followed.
for row in res.advice.itertuples():
    print(f"{row.stage}: {row.action} — {row.reason}")

# %%
# Coverage against the nominal level
# ----------------------------------
# A bootstrap ensemble's spread measures the variance of the fit, not the noise of the
# data: its intervals are far too narrow. The table drawn is ``res.coverage.levels``.
cov = res.coverage.levels
fig, ax = plt.subplots(figsize=(4.5, 3.5), layout="constrained")
ax.plot([0, 1], [0, 1], color="grey", lw=1, label="calibrated")
ax.errorbar(cov["level"], cov["value"],
            yerr=[cov["value"] - cov["ci_low"], cov["ci_high"] - cov["value"]],
            fmt="o", label="observed (95 % interval)")
ax.set(xlabel="nominal level of the central interval", ylabel="observed coverage",
       xlim=(0, 1), ylim=(0, 1))
ax.legend()
plt.show()
