"""The three wings of the package and their one direction of dependency.

core (``uqval``, ``uqval.stats``, ``uqval.plots``, ...) imports neither ``uqval.papers`` nor
``uqval.pipeline``; ``uqval.papers`` never imports ``uqval.pipeline``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import uqval

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "uqval"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path) -> set[str]:
    """Every module an ``import``/``from ... import`` of the file names, relative ones resolved."""
    tree = ast.parse(path.read_text(), filename=str(path))
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join(base)
                mod = f"{prefix}.{node.module}" if node.module else prefix
            else:
                mod = node.module or ""
            found.add(mod)
            # "from uqval import papers" imports the subpackage uqval.papers
            found.update(f"{mod}.{alias.name}" for alias in node.names)
    return found


def wing(module: str) -> str | None:
    if module == "uqval.papers" or module.startswith("uqval.papers."):
        return "papers"
    if module == "uqval.pipeline" or module.startswith("uqval.pipeline."):
        return "pipeline"
    if module == "uqval" or module.startswith("uqval."):
        return "core"
    return None


FORBIDDEN = {"core": {"papers", "pipeline"}, "papers": {"pipeline"}, "pipeline": set()}


def violations(files: list[Path]) -> list[str]:
    found = []
    for path in files:
        own = wing(module_name(path))
        assert own is not None
        for target in sorted(imported_modules(path)):
            if wing(target) in FORBIDDEN[own]:
                found.append(f"{module_name(path)} ({own}) imports {target}")
    return found


def test_no_module_imports_against_the_dependency_rule():
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 30
    assert violations(files) == []


@pytest.mark.parametrize(
    ("source", "rel", "expected"),
    [
        ("from uqval.papers.primer import figures\n", "uqval/binning.py", True),
        ("import uqval.pipeline.gallery\n", "uqval/stats/zeta.py", True),
        ("from ..papers import ucc\n", "uqval/plots/style.py", True),
        ("from uqval import pipeline\n", "uqval/papers/ucc/figures.py", True),
        ("from ...pipeline.atomic import x\n", "uqval/papers/ucc/figures.py", True),
        ("from . import cases\n", "uqval/papers/primer/figures.py", False),
        ("from uqval import binning\n", "uqval/pipeline/prepare.py", False),
        ("from uqval.papers.ucc import literature\n", "uqval/pipeline/prepare.py", False),
    ],
)
def test_the_rule_check_sees_absolute_and_relative_imports(tmp_path, source, rel, expected):
    """The checker itself: planted violations (absolute and relative) are found."""
    fake_src = tmp_path / "src"
    path = fake_src / rel
    path.parent.mkdir(parents=True)
    path.write_text(source)
    global SRC
    saved, SRC = SRC, fake_src
    try:
        assert bool(violations([path])) is expected
    finally:
        SRC = saved


def test_public_names_exist_and_are_documented():
    assert len(uqval.__all__) >= 10
    for name in uqval.__all__:
        obj = getattr(uqval, name)
        doc = getattr(obj, "__doc__", None) or ""
        assert len(doc.strip()) > 20, f"uqval.{name} has no docstring"
        assert f"{name}`" in uqval.__doc__, f"uqval.{name} is not listed in the package docstring"
    assert set(uqval.__all__) <= set(dir(uqval))


def test_import_uqval_loads_no_heavy_dependency():
    """``import uqval`` stays light: NumPy, pandas, SciPy, Numba, matplotlib load on first use."""
    code = (
        "import sys, uqval; "
        "heavy = ('numpy', 'pandas', 'scipy', 'numba', 'matplotlib'); "
        "print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in heavy}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
