"""The house plan: rooms by concern, one direction of dependency, one name per function.

The layers and the absence of import cycles (also through function-level imports) are
import-linter contracts (``.importlinter``); these tests run them, check that they catch a
planted violation, and check the size rules of the layout and the public names.
"""

from __future__ import annotations

import inspect
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import uqval

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "uqval"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
CORE_LINE_LIMIT = 700
MAX_TOP_LEVEL_MODULES = 8


def lint_imports(src: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` with the project's contracts on the package under ``src``."""
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(ROOT / ".importlinter"), "--no-cache"],
        cwd=ROOT,
        env={"PYTHONPATH": str(src), "PATH": str(LINT_IMPORTS.parent)},
        capture_output=True,
        text=True,
    )


def test_import_contracts_are_kept():
    run = lint_imports(PACKAGE.parent)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "2 kept, 0 broken" in run.stdout


@pytest.mark.parametrize(
    ("rel", "line", "broken"),
    [
        # a statistic importing a paper, inside a function (layers)
        ("binning.py", "def _x():\n    from uqval.papers.primer import figures\n", "Layers"),
        # a paper importing the pipeline (layers)
        ("papers/ucc/figures.py", "import uqval.pipeline.gallery\n", "Layers"),
        # two sibling modules importing each other (cycle), within one room
        ("calibration/average.py", "def _y():\n    from uqval.calibration import local\n",
         "No import cycles"),
    ],
)
def test_the_contracts_catch_planted_violations(tmp_path, rel, line, broken):
    src = tmp_path / "src"
    shutil.copytree(PACKAGE, src / "uqval", ignore=shutil.ignore_patterns("__pycache__"))
    if broken == "No import cycles":  # local must import average for a cycle
        path = src / "uqval" / "calibration" / "local.py"
        path.write_text(path.read_text() + "\n\ndef _z():\n    from uqval.calibration import average\n")
    path = src / "uqval" / rel
    path.write_text(path.read_text() + "\n\n" + line)
    run = lint_imports(src)
    assert run.returncode != 0
    assert f"{broken}" in run.stdout and "BROKEN" in run.stdout


def core_modules() -> list[Path]:
    wings = (PACKAGE / "papers", PACKAGE / "pipeline")
    return [p for p in PACKAGE.rglob("*.py") if not any(w in p.parents for w in wings)]


def test_layout_rules():
    """At most 8 modules beside the rooms; no core module over 700 lines."""
    top = {p.name for p in PACKAGE.glob("*.py")} - {"__init__.py", "__main__.py", "cli.py"}
    assert len(top) <= MAX_TOP_LEVEL_MODULES, sorted(top)
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in core_modules()
        if (n := len(p.read_text().splitlines())) > CORE_LINE_LIMIT
    }
    assert long == {}


def test_public_names_exist_and_are_documented():
    assert len(uqval.__all__) >= 10
    for name in uqval.__all__:
        obj = getattr(uqval, name)
        doc = getattr(obj, "__doc__", None) or ""
        assert len(doc.strip()) > 20, f"uqval.{name} has no docstring"
        assert f"{name}`" in uqval.__doc__, f"uqval.{name} is not listed in the package docstring"
    assert set(uqval.__all__) <= set(dir(uqval))


def test_one_public_name_is_one_function():
    """A name exported by uqval is the same object wherever a public module exports it."""
    import importlib
    import pkgutil

    exported = {name: getattr(uqval, name) for name in uqval.__all__}
    for info in pkgutil.walk_packages(uqval.__path__, "uqval."):
        if info.name.endswith("__main__") or ".papers" in info.name or ".pipeline" in info.name:
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            if name in exported and callable(exported[name]):
                assert getattr(module, name) is exported[name], f"{info.name}.{name}"


def errors_uncertainties_functions(only_these_required: bool = True) -> list[str]:
    """Exported functions whose first arguments are (errors, uncertainties)."""
    out = []
    for name in uqval.__all__:
        obj = getattr(uqval, name)
        if inspect.isfunction(obj):
            params = inspect.signature(obj).parameters
            required = [k for k, p in params.items() if p.default is inspect.Parameter.empty]
            first = list(params)[:2] == ["errors", "uncertainties"]
            if first and (required == ["errors", "uncertainties"] or not only_these_required):
                out.append(name)
    return out


def test_exported_statistics_take_errors_uncertainties():
    names = errors_uncertainties_functions(only_these_required=False)
    assert {"zms", "rce", "nll", "ence", "zmse", "validate", "average_calibration", "screen",
            "local_analysis", "calibration_curve", "confidence_curve"} <= set(names)


@pytest.mark.parametrize("name", errors_uncertainties_functions())
@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (lambda e, u: (e, u[:-5]), "different lengths"),
        (lambda e, u: (e, -u), "non-positive"),
        (lambda e, u: (e, np.where(np.arange(u.size) == 3, 0.0, u)), r"row 4\b"),
        (lambda e, u: (np.where(np.arange(e.size) == 0, np.nan, e), u), "NaN"),
    ],
)
def test_every_exported_function_checks_its_inputs(name, bad, message):
    """Bad inputs raise a ValueError naming the problem (rows count from 1), never a number."""
    rng = np.random.default_rng(0)
    u = rng.uniform(0.5, 2.0, 400)
    e = u * rng.standard_normal(400)
    with pytest.raises(ValueError, match=message):
        getattr(uqval, name)(*bad(e, u))


def test_import_uqval_loads_no_heavy_dependency():
    """``import uqval`` stays light: NumPy, pandas, SciPy, Numba, matplotlib load on first use."""
    code = (
        "import sys, uqval; "
        "heavy = ('numpy', 'pandas', 'scipy', 'numba', 'matplotlib'); "
        "print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in heavy}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
