"""Predictive outputs of every kind: parametric distributions, ensembles, samples, quantile
sets and central intervals (:mod:`uqval.predictive.base` for what each gives and how data
problems are counted).

>>> import numpy as np
>>> from uqval.predictive import Normal, Quantiles
>>> Normal([0.0, 1.0], [1.0, 2.0])
Normal(M=2)
>>> Quantiles([0.1, 0.5, 0.9], np.zeros((3, 3)) + [-1.0, 0.0, 1.0])
Quantiles(M=3, levels=[0.1, 0.5, 0.9])
"""

from typing import TYPE_CHECKING

from uqval._internal.lazy import lazy_exports

if TYPE_CHECKING:
    from uqval.predictive.base import DEFAULT_LEVELS, DataIssues, Predictive
    from uqval.predictive.ensemble import Ensemble, Samples
    from uqval.predictive.parametric import Laplace, Normal, StudentT
    from uqval.predictive.quantiles import Intervals, Quantiles

__all__ = [
    "DEFAULT_LEVELS",
    "DataIssues",
    "Ensemble",
    "Intervals",
    "Laplace",
    "Normal",
    "Predictive",
    "Quantiles",
    "Samples",
    "StudentT",
]

if not TYPE_CHECKING:  # the modules are imported on first use (uqval._internal.lazy)
    __getattr__, __dir__ = lazy_exports(__name__)
