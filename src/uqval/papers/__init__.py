"""Reproductions of the five papers: one subpackage per paper.

Each subpackage holds that paper's constants (including values the paper *prints*, kept in
clearly named tables and labelled as printed wherever they are drawn), its table builders and
its figure functions. They call the core library (:mod:`uqval`) and never the pipeline
(:mod:`uqval.pipeline`).

* :mod:`uqval.papers.primer` — Pernot, *Validation of uncertainty quantification metrics: a
  primer based on the consistency and adaptivity concepts*, arXiv 2303.07170 (P000): the
  synthetic cases A–F and the figures on PAL2022, QM9 and HU2022.
* :mod:`uqval.papers.heavytails` — Pernot, *Negative impact of heavy-tailed uncertainty and
  error distributions on the reliability of calibration statistics for ML regression tasks*,
  arXiv 2402.10043 (P001): Tables 1–6, data figures and the Monte Carlo studies (Figs 3–5, 11).
* :mod:`uqval.papers.simref` — Pernot, *Validation of ML-UQ calibration statistics using
  simulated reference values: a sensitivity analysis*, arXiv 2403.00423 (P002): App. B grid and
  figures.
* :mod:`uqval.papers.adaptivity` — Pernot, *Calibration in machine learning uncertainty
  quantification: beyond consistency to target adaptivity*, APL Mach. Learn. 1, 046121
  (2023) (P003): figures of the QM9 running example.
* :mod:`uqval.papers.ucc` — Navrátil et al., *Uncertainty Characteristics Curves: a
  systematic assessment of prediction intervals* (P004): the
  x·sin(x) and GP experiments and the UCC gains of the literature sets.
"""
