"""Calibration of uncertainties, on average and conditionally (the statistics users call).

:mod:`~uqval.calibration.average` (ZMS, RCE with BCa intervals and zeta-scores),
:mod:`~uqval.calibration.screening` (heavy-tail screening), :mod:`~uqval.calibration.local`
(per-bin LZMS, LZM, LZV, LZISD, LRCE, reliability diagram), :mod:`~uqval.calibration.coverage`
(LCP), :mod:`~uqval.calibration.binned_errors` (ENCE, ZMSE of given bins),
:mod:`~uqval.calibration.fraction_valid` (f_v), :mod:`~uqval.calibration.adaptivity`
(LZM/LZMS along a feature), :mod:`~uqval.calibration.curves` (calibration and confidence
curves), :mod:`~uqval.calibration.group` (adversarial group calibration).
"""
