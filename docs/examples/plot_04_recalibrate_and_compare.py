"""
Recalibrate a random forest's spread, then compare
==================================================

A random forest's tree-to-tree spread is a common, cheap uncertainty; it is usually too
small. The held-out rows are split in two: a calibration half, on which a global factor
(:func:`uqval.sigma_scaling`) and a monotone map (:func:`uqval.isotonic`) are fitted, and a
test half, on which :func:`uqval.compare` ranks the three sets of uncertainties with paired
bootstrap intervals. Fitting and judging on the same rows would flatter the recalibration.
"""

# %%
# Forest, spread of its trees, calibration and test halves
# --------------------------------------------------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import train_test_split

import uqval

x, y = load_diabetes(return_X_y=True)
x_train, x_rest, y_train, y_rest = train_test_split(x, y, train_size=200, random_state=3)
x_cal, x_test, y_cal, y_test = train_test_split(x_rest, y_rest, test_size=0.5, random_state=3)
forest = RandomForestRegressor(200, min_samples_leaf=3, random_state=0).fit(x_train, y_train)


def errors_and_spread(x_part, y_part):
    trees = np.column_stack([t.predict(x_part) for t in forest.estimators_])
    return y_part - trees.mean(axis=1), trees.std(axis=1, ddof=1)


e_cal, u_cal = errors_and_spread(x_cal, y_cal)
e_test, u_test = errors_and_spread(x_test, y_test)

# %%
# Fit the recalibrations on the calibration half
# ----------------------------------------------
scaling = uqval.sigma_scaling(e_cal, u_cal, seed=0)
print(f"global factor {scaling.factor:.2f} [{scaling.ci_low:.2f}, {scaling.ci_high:.2f}]")
iso = uqval.isotonic(e_cal, u_cal)

# %%
# Compare on the test half
# ------------------------
models = {
    "forest spread": (e_test, u_test),
    "× global factor": (e_test, scaling.apply(u_test)),
    "isotonic map": (e_test, iso.apply(u_test)),
}
cmp = uqval.compare(models, seed=0)
print(cmp.summary())

# %%
# Calibration curves of the three on the test half
# ------------------------------------------------
fig, axes = plt.subplots(1, 3, figsize=(10, 3.4), layout="constrained", sharey=True)
for ax, (name, (e, u)) in zip(axes, models.items(), strict=True):
    uqval.plots.calibration_curve_plot(e, u, ax=ax)
    ax.set_title(name)
plt.show()
