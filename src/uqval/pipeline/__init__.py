"""Plumbing of the Snakemake pipeline: dataset registry, expressions and chemical formulas,
fetch, prepare, scoreboard, gallery and script helpers. Imports the core library and
:mod:`uqval.papers`; neither imports this package."""
