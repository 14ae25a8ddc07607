"""The README and the documentation site: a short README, no broken relative link, and every
example of the gallery runs (offline, matplotlib Agg). The Sphinx build itself is CI's
(`.ci/run`: sphinx-build -W), not repeated here."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EXAMPLES = sorted((DOCS / "examples").glob("plot_*.py"))
README_MAX_LINES = 220

# [text](target) and ![alt](target); the target ends at the first space or ')'.
_MD_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
# MyST directives that name a file: ```{image} path, ```{include} path, ```{figure} path
_MYST_FILE = re.compile(r"^```\{(?:image|include|figure|literalinclude)\}\s+(\S+)", re.M)
_FENCE = re.compile(r"^```[^\n]*\n.*?^```", re.S | re.M)


def markdown_pages() -> list[Path]:
    pages = [ROOT / "README.md"]
    for page in sorted(DOCS.rglob("*.md")):
        parts = page.relative_to(DOCS).parts
        if parts[0] in ("_build", "auto_examples"):
            continue
        pages.append(page)
    return pages


def relative_targets(text: str) -> list[str]:
    """Relative file targets of a Markdown page: links and images outside code blocks, and
    the files named by MyST directives."""
    directives = _MYST_FILE.findall(text)
    prose = _FENCE.sub("", text)
    prose = re.sub(r"`[^`\n]*`", "", prose)  # inline code
    targets = []
    for target in _MD_LINK.findall(prose) + directives:
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
            continue  # https:, mailto:, in-page anchors
        targets.append(target)
    return targets


def test_readme_is_short_and_keeps_the_test_command() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"
    # .ci/run runs "the README's test command": a fenced block holding `python -m pytest`.
    blocks = _FENCE.findall(text)
    assert any(re.search(r"^python -m pytest\s*$", b, re.M) for b in blocks)
    # the install line of the YAML route names the workflow extra
    assert 'pip install -e ".[workflow]"' in text


def test_relative_target_parser() -> None:
    """The link parser itself: what it must find and what it must skip."""
    text = (
        "See [a](docs/a.md#x) and ![img](_static/p.png) and [web](https://x.org/a.md),\n"
        "[anchor](#here), `[code](not/a/link.md)`.\n"
        "```python\n[in](code/block.md)\n```\n"
        "```{image} ../_static/shot.png\n:alt: x\n```\n"
    )
    assert relative_targets(text) == ["docs/a.md#x", "_static/p.png", "../_static/shot.png"]


def generated_from_source(path: Path) -> bool:
    """Pages that sphinx-gallery writes at build time (docs/auto_examples/) exist when their
    source does: index.rst from examples/README.rst, plot_x.rst from examples/plot_x.py."""
    try:
        rel = path.resolve().relative_to(DOCS / "auto_examples")
    except ValueError:
        return False
    if rel == Path("index.rst"):
        return (DOCS / "examples" / "README.rst").exists()
    return rel.suffix == ".rst" and (DOCS / "examples" / rel.with_suffix(".py")).exists()


@pytest.mark.parametrize("page", markdown_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_point_to_existing_files(page: Path) -> None:
    broken = []
    for target in relative_targets(page.read_text(encoding="utf-8")):
        path = target.split("#", 1)[0]
        if not path:
            continue
        if path.startswith("/"):  # MyST: relative to the documentation root
            resolved = DOCS / path.lstrip("/")
        else:
            resolved = page.parent / path
        if not (resolved.exists() or generated_from_source(resolved)):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: broken links {broken}"


def test_the_gallery_has_examples_that_download_nothing() -> None:
    assert 3 <= len(EXAMPLES) <= 5
    for script in EXAMPLES:
        source = script.read_text(encoding="utf-8")
        # scikit-learn's fetch_* download their data; load_* ship inside the package
        assert "fetch_" not in source and "urlopen" not in source, script.name
        assert "uqval.validate(" in source or "uqval.compare(" in source, script.name


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_gallery_example_runs(script: Path, tmp_path: Path) -> None:
    env = dict(os.environ, MPLBACKEND="Agg")
    src = str(ROOT / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH", "")) if p)
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert done.stdout.strip(), "the example printed nothing"
