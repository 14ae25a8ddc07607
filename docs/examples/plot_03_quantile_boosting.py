"""
Quantile gradient boosting: one model per level
===============================================

Gradient boosting with the pinball loss gives one model per quantile level. The quantile set
(:class:`uqval.Quantiles`) has no variance, so :func:`uqval.validate` tests what it states:
the frequency of y ≤ q_τ at each level τ, the coverage of the central intervals the levels
make, and the shape of the predictive (randomised PIT). Models fitted separately per level
may cross; the crossings are counted, sorted per row and reported, never silently dropped.
"""

# %%
# Fit one quantile model per level
# --------------------------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.model_selection import train_test_split

import uqval

x, y = load_diabetes(return_X_y=True)
x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.5, random_state=2)
levels = [0.05, 0.25, 0.5, 0.75, 0.95]
q = np.column_stack([
    GradientBoostingRegressor(loss="quantile", alpha=a, n_estimators=150, max_depth=2,
                              learning_rate=0.05, random_state=0)
    .fit(x_train, y_train).predict(x_test)
    for a in levels
])

# %%
# Validate the quantile set
# -------------------------
res = uqval.validate(y_test, uqval.Quantiles(levels, q), {"bmi": x_test[:, 2]}, seed=0)
print(res.data_issues)
print(res.summary())

# %%
# Frequency of y ≤ q_τ against τ, with its Clopper–Pearson interval.
print(res.coverage.quantiles[["level", "n", "below", "value", "ci_low", "ci_high", "verdict"]]
      .to_string())

# %%
# Observed against nominal quantile level
# ---------------------------------------
qt = res.coverage.quantiles
fig, ax = plt.subplots(figsize=(4.5, 3.5), layout="constrained")
ax.plot([0, 1], [0, 1], color="grey", lw=1, label="calibrated")
ax.errorbar(qt["level"], qt["value"], yerr=[qt["value"] - qt["ci_low"], qt["ci_high"] - qt["value"]],
            fmt="o", label="observed share of y ≤ q_τ")
ax.set(xlabel="quantile level τ", ylabel="share of observations below q_τ",
       xlim=(0, 1), ylim=(0, 1))
ax.legend()
plt.show()
