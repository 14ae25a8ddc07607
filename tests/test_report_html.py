"""The HTML report: one self-contained, escaped page with the sections in order."""

from __future__ import annotations

import base64
from html.parser import HTMLParser

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import uqval
from uqval.plots import calibration_curve_plot, diagnostics, intervals_plot
from uqval.report import (
    GLOSSARY,
    HOW_TO_READ,
    FigureSection,
    ReportContent,
    png_bytes,
    render_html,
    render_markdown,
    write_html,
)

SCRIPT = "<script>alert('x')</script>"


class Page(HTMLParser):
    """Tags with their attributes, in document order, and the text."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(scope="module")
def content() -> ReportContent:
    rng = np.random.default_rng(0)
    u = rng.lognormal(0.0, 0.5, 300)
    e = 1.5 * u * rng.standard_normal(300)
    figures = []
    for title, key, ax in (
        ("Calibration curve", "calibration_curve_plot", calibration_curve_plot(e, u)),
        (f"Intervals {SCRIPT}", "intervals_plot", intervals_plot(e, u, units="eV")),
    ):
        figures.append(FigureSection(title, HOW_TO_READ[key], png_bytes(ax.figure)))
        plt.close(ax.figure)
    verdicts = pd.DataFrame(
        {
            "stage": ["average", "consistency", "adaptivity"],
            "feature": ["", "uncertainty", SCRIPT],
            "scaled": [False, True, True],
            "verdict": ["fail", "pass", "inconclusive"],
            "value": [2.31, 0.97, np.nan],
        }
    )
    summary = (
        "# Result\n\nUncertainties **too small** by 1.5: use `scale = 1.5`.\n\n"
        f"- item one\n- item {SCRIPT}\n"
    )
    return ReportContent(
        title=f"Report {SCRIPT}",
        verdicts=verdicts,
        summary_markdown=summary,
        figures=figures,
        parameters={"seed": 0, "n_boot": 1000, "label": SCRIPT},
        input_sha256="0123456789abcdef" * 4,
        row_counts={"rows read": 302, "removed: NaN in uncertainty": 2, "rows used": 300},
        tables={"bins of x": pd.DataFrame({"low": [0.0, 0.5], "high": [0.5, 1.0], "n": [150, 150]})},
    )


@pytest.fixture(scope="module")
def page(content) -> str:
    return render_html(content)


def test_the_page_loads_nothing_from_outside(page):
    parsed = Page(page)
    for tag, attrs in parsed.tags:
        assert tag not in ("script", "link", "iframe", "object", "embed")
        for name in ("src", "href"):
            if name not in attrs:
                continue
            value = attrs[name] or ""
            assert not value.lower().startswith(("http:", "https:", "//", "file:")), value
            if name == "href":
                assert value.startswith("#")  # in-page navigation only
    assert "url(" not in page and "@import" not in page


def test_every_image_is_an_embedded_png_of_a_figure(page, content):
    images = [attrs["src"] for tag, attrs in Page(page).tags if tag == "img"]
    assert len(images) == len(content.figures) == 2
    for src, figure in zip(images, content.figures, strict=True):
        prefix = "data:image/png;base64,"
        assert src.startswith(prefix)
        data = base64.b64decode(src[len(prefix) :], validate=True)
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and data == figure.png


def test_user_text_is_escaped_everywhere(page):
    assert "<script" not in page.lower()
    assert page.count("&lt;script&gt;") >= 6  # title x2, verdict cell, summary, figure, parameter
    assert all(tag != "script" for tag, _ in Page(page).tags)


def test_sections_come_in_reading_order(page):
    order = ["summary", "verdicts", "figures", "tables", "glossary", "provenance"]
    positions = [page.index(f'<section id="{name}">') for name in order]
    assert positions == sorted(positions)
    assert page.index("<strong>too small</strong>") < page.index('class="badge fail"')


def test_verdicts_are_coloured_badges_with_a_tally(page):
    for verdict in ("pass", "fail", "inconclusive"):
        assert f'<td><span class="badge {verdict}">{verdict}</span></td>' in page
    assert '<tr class="row-fail">' in page
    start = page.index('<p class="counts">')
    tally = page[start : page.index("</p>", start)]
    assert tally.count('class="badge') == 3 and tally.endswith("</span>1")


def test_summary_markdown_is_rendered(page):
    assert "<h3>Result</h3>" in page  # '#' under the h2 of the section
    assert "<code>scale = 1.5</code>" in page
    assert "<ul><li>item one</li><li>item &lt;script&gt;" in page


def test_glossary_figures_and_provenance(page, content):
    for term in ("ZMS", "RCE", "LZMS", "LZISD", "f_v", "BCa", "ζ-score", "ENCE", "UCC",
                 "AUUCC", "scale factor"):
        assert f"<dt>{term}</dt>" in page
        assert term in GLOSSARY
    assert page.count("How to read this:") == 2
    assert HOW_TO_READ["calibration_curve_plot"].split()[0] in page
    assert content.input_sha256 in page
    assert f"uqval version {uqval.__version__}" in page
    assert "<th>removed: NaN in uncertainty</th><td class=\"num\">2</td>" in page
    assert "<th>n_boot</th><td class=\"num\">1000</td>" in page
    assert "<h3>bins of x</h3>" in page


def test_every_one_call_plot_has_a_reading_guide():
    plots = {name for name in diagnostics.__all__ if name.endswith("_plot")}
    assert len(plots) == 8 and plots <= set(HOW_TO_READ)


def test_numbers_are_formatted_readably():
    verdicts = pd.DataFrame({"value": [0.000012345, 123456.0, 1.23456, -2.5, np.inf]})
    page = render_html(ReportContent("t", verdicts, "", [], {}, None, {}, {}))
    for text in ("1.23e−05", "1.23e+05", "1.235", "−2.5", "∞"):
        assert f'<td class="num">{text}</td>' in page


def test_markdown_renderer_handles_the_summary_constructs():
    text = (
        "## Scale\nMultiply by **1.6** (*about*).\n\n"
        "1. first\n2. second\n   - nested `x<1`\n\n"
        "| range | factor |\n|---|--:|\n| x > 0.5 | 2 |\n\n"
        "```\na < b\n```\n[doc](https://example.org)"
    )
    assert render_markdown(text, heading_offset=1) == (
        "<h3>Scale</h3>\n"
        "<p>Multiply by <strong>1.6</strong> (<em>about</em>).</p>\n"
        "<ol><li>first</li><li>second<ul><li>nested <code>x&lt;1</code></li></ul></li></ol>\n"
        '<table class="md"><thead><tr><th style="text-align:left">range</th>'
        '<th style="text-align:right">factor</th></tr></thead><tbody><tr>'
        '<td style="text-align:left">x &gt; 0.5</td><td style="text-align:right">2</td>'
        "</tr></tbody></table>\n"
        "<pre><code>a &lt; b</code></pre>\n"
        "<p>doc (https://example.org)</p>"
    )


def test_write_html_writes_the_page_atomically(tmp_path, content):
    path = write_html(content, tmp_path / "out" / "report.html")
    assert path.read_text(encoding="utf-8") == render_html(content)
    assert [p.name for p in path.parent.iterdir()] == ["report.html"]


def test_rendering_is_deterministic(content, page):
    assert render_html(content) == page


def test_a_figure_that_is_not_png_is_refused(content):
    bad = ReportContent("t", content.verdicts, "", [FigureSection("f", "r", b"GIF89a...")],
                        {}, None, {}, {})
    with pytest.raises(ValueError, match=r"figures\[0\]\.png"):
        render_html(bad)
