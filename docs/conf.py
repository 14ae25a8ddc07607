"""Sphinx configuration of the uqval documentation site.

Build: ``sphinx-build -W --keep-going -b html docs docs/_build/html`` (warnings are errors,
so a broken docstring, a missing public name or a broken cross-reference fails the build).
The examples gallery (``docs/examples/plot_*.py``) is executed at build time by
sphinx-gallery, with matplotlib's Agg backend and nothing downloaded.
"""

from __future__ import annotations

import os

os.environ.setdefault("MPLBACKEND", "Agg")

project = "uqval"
author = "uqval contributors"
copyright = "uqval contributors"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "examples/README.rst", "**/README.rst", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip"]

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

# Markdown pages: $...$ and $$...$$ maths, heading anchors for links such as
# choices.md#tolerance-classes, ::: fences.
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "within_subsection_order": "FileNameSortKey",
    "remove_config_comments": True,
    "image_scrapers": ("matplotlib",),
    "show_memory": False,
    # A failing example fails the build (and CI).
    "only_warn_on_example_error": False,
    "abort_on_example_error": False,
}

html_theme = "furo"
html_title = "uqval"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
