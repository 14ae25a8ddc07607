"""Lazy exports of a package (PEP 562): a public name is imported from its module on first use.

A subpackage's ``__init__`` re-exports the public names of its modules. Imported eagerly,
``import uqval.validation.inputs`` would also import the engine, the reports and Matplotlib,
and every Snakemake job pays such imports again (about 1-2 CPU-s each; issue 29). With
:func:`lazy_exports` the ``__init__`` lists its re-exports once, in an
``if TYPE_CHECKING:`` block of ``from <package>.<module> import ...`` statements that static
checkers and readers see; at run time that block is read (not executed) to map each name to
its module, and the module is imported when the name is first accessed::

    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        from uqval.example.module import thing
    __all__ = ["thing"]
    if not TYPE_CHECKING:
        __getattr__, __dir__ = lazy_exports(__name__)
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["lazy_exports", "report_call"]


def _exported_modules(package: str, init_file: str) -> dict[str, tuple[str, str]]:
    """Exported name -> (module, name in it) of the ``from <package>.<module> import name``
    statements of ``init_file`` (those of its ``if TYPE_CHECKING:`` block)."""
    tree = ast.parse(Path(init_file).read_text(encoding="utf-8"))
    mapping: dict[str, tuple[str, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(package + "."):
            for alias in node.names:
                mapping[alias.asname or alias.name] = (str(node.module), alias.name)
    return mapping


def lazy_exports(package: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` of ``package`` importing its re-exports on first use.

    >>> import uqval.simref
    >>> "simulated_reference" in dir(uqval.simref)
    True
    >>> uqval.simref.simulated_reference.__module__
    'uqval.simref.reference'
    """
    module = sys.modules[package]
    init_file = module.__file__
    if init_file is None:
        raise ImportError(f"{package} has no __init__ file to read its exports from")
    mapping: dict[str, tuple[str, str]] = {}

    def __getattr__(name: str) -> Any:
        if not mapping:
            mapping.update(_exported_modules(package, init_file))
        if name in mapping:
            source, attr = mapping[name]
            value = getattr(importlib.import_module(source), attr)
        elif importlib.util.find_spec(f"{package}.{name}") is not None:
            value = importlib.import_module(f"{package}.{name}")  # a submodule, as before
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(module, name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(module), *getattr(module, "__all__", ())})

    return __getattr__, __dir__


def report_call(module: str, function: str, *args: Any) -> Any:
    """Call ``uqval.report.<module>.<function>(*args)``, importing the report on first use.

    The one door from a result record up to the report that renders it: the engines sit
    below :mod:`uqval.report` (``.importlinter``) and never import it, while a result's
    ``.save()``, ``.to_html()`` and ``.summary()`` stay one call for the user. Nothing is
    computed here; the report only reads the record.

    >>> report_call("markdown", "md_text", "<b>")
    '&lt;b>'
    """
    if not module.isidentifier() or not function.isidentifier():
        raise ValueError(f"not a report function: {module}.{function}")
    target = getattr(importlib.import_module(f"uqval.report.{module}"), function)
    return target(*args)
