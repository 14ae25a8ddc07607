"""Overlay plots of several models (uqval.plots.comparison)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from uqval.plots import comparison as overlay


@pytest.fixture(scope="module")
def models():
    rng = np.random.default_rng(2)
    u = rng.lognormal(0, 0.5, 400)
    e = u * rng.normal(size=400)
    return {"right": (e, u), "double": (e, 2.0 * u), "noisy": (e, u * rng.lognormal(0, 1, 400))}


def _labels(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_every_model_is_drawn_and_labelled(models):
    for draw in (overlay.calibration_curves_plot, overlay.ucc_curves_plot,
                 overlay.lzms_curves_plot):
        ax = draw(models)
        labels = _labels(ax)
        for name in models:
            assert any(label.startswith(name) for label in labels), (draw.__name__, name)
        plt.close(ax.figure)


def test_ucc_ignores_a_global_scale_of_the_uncertainties(models):
    ax = overlay.ucc_curves_plot(models)
    area = {label.split(" ")[0]: label.split("AUUCC ")[1] for label in _labels(ax)}
    assert area["right"] == area["double"] != area["noisy"]
    plt.close(ax.figure)


def test_lzms_along_a_feature_and_bad_inputs(models):
    x = np.linspace(0, 1, 400)
    ax = overlay.lzms_curves_plot(models, x, x_name="x (m)", n_bins=5)
    assert ax.get_xlabel() == "x (m)"
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="x has 3 values"):
        overlay.lzms_curves_plot(models, [1.0, 2.0, 3.0])
    bad = {"a": models["right"], "b": (models["right"][0], -models["right"][1])}
    with pytest.raises(ValueError, match=r"models\['b'\]: uncertainties"):
        overlay.calibration_curves_plot(bad)
