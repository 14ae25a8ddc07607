"""Statistics for average calibration: robust shape statistics, calibration statistics,
BCa bootstrap, zeta-scores, binomial intervals and distribution fits."""
