"""Simulated-reference paper (P002): App. B grid and fits (:mod:`.appendix_b`) and figures
(:mod:`.figures`). The generic machinery is in :mod:`uqval.simref`."""
