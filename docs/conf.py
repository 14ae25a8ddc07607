"""Sphinx configuration of the uqval API reference.

Build: ``sphinx-build -W --keep-going -b html docs docs/_build/html`` (warnings are errors,
so a broken docstring or a missing public name fails the build).
"""

from __future__ import annotations

project = "uqval"
author = "uqval contributors"
copyright = "uqval contributors"

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
# Result types named in annotations of other modules (report/ imports them for type checking
# only): resolve them to the one public name.
autodoc_type_aliases = {
    "ValidationResult": "uqval.ValidationResult",
    "ModelComparison": "uqval.ModelComparison",
    "PredictiveValidation": "uqval.PredictiveValidation",
    "PredictiveComparison": "uqval.PredictiveComparison",
}
# The public result types are documented twice by design (as uqval.X and in their room), so a
# short name such as `ValidationResult` or an attribute such as `nu` has two targets; Sphinx
# then links the first and warns (category ref.python). Those ambiguity warnings only.
suppress_warnings = ["ref.python"]
napoleon_google_docstring = True
napoleon_numpy_docstring = False
myst_heading_anchors = 2

html_theme = "alabaster"
