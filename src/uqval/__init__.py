"""uqval: validation of the calibration of uncertainty quantification (UQ) for ML regression.

The library is usable without Snakemake (``import uqval``); the Snakemake workflow at the
repository root only calls into it.
"""

__version__ = "0.1.0"
