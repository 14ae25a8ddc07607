"""Adaptivity paper (P003): figures of the QM9 running example (:mod:`.figures`). The local
analyses themselves are in :mod:`uqval.calibration.adaptivity` and :mod:`uqval.calibration.local`."""
