"""The report's first screen (answer lines, one figure, the actions; the rest collapsed), the
one rule for a dominating bin in the figures, and pages without the builder's paths."""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import uqval
from uqval.plots import comparison as overlay
from uqval.plots import drawing, panels
from uqval.report.content import AnswerLine, FigureSection, FirstScreen, ReportContent, png_bytes
from uqval.report.html import MAX_FIRST_ACTIONS, insert_tables, render_html
from uqval.report.summary import next_steps
from uqval.report.validation import figure_specs, report_content

SCRIPT = "<script>alert(1)</script>"


def tiny_png() -> bytes:
    fig, ax = plt.subplots(figsize=(1, 1))
    ax.plot([0, 1])
    try:
        return png_bytes(fig, dpi=20)
    finally:
        plt.close(fig)


def content_with(screen: FirstScreen | None) -> ReportContent:
    png = tiny_png()
    return ReportContent(
        title="t", verdicts=pd.DataFrame({"stage": ["average"], "verdict": ["fail"]}),
        summary_markdown="## S\ntext\n",
        figures=[FigureSection("first", "how", png), FigureSection(f"lead {SCRIPT}", "how", png)],
        tables={"bins": pd.DataFrame({"low": [0.0]})}, first_screen=screen)


def test_the_first_screen_comes_first_and_the_rest_is_collapsed():
    screen = FirstScreen(
        answer=[AnswerLine("On average", "not right", "scale factor 1.5 [1.4, 1.6]"),
                AnswerLine(f"Along {SCRIPT}", "right", f"`{SCRIPT}`")],
        figure=1, actions=[f"do {i} {SCRIPT}" for i in range(5)], why_figure="because")
    page = render_html(content_with(screen))
    assert "<script" not in page and page.count("&lt;script&gt;") >= 5
    first = page.index('<section id="answer"')
    assert first < page.index('id="lead-figure"') < page.index('id="actions"')
    for name in ("summary", "verdicts", "figures", "tables", "glossary", "provenance"):
        at = page.index(f'<section id="{name}">')
        assert at > first and page.startswith(f'<section id="{name}"><details><summary>', at)
    assert '<span class="badge fail">not right</span><strong>On average</strong>' in page
    assert '<span class="badge pass">right</span>' in page
    # three actions shown, the other two counted
    actions = page[page.index('id="actions"'):page.index("</ol>", page.index('id="actions"'))]
    assert actions.count("<li>") == MAX_FIRST_ACTIONS == 3
    assert "2 more: see" in page
    # the lead figure is embedded once, and the Figures section links to it
    pngs = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(pngs) == 2 and base64.b64decode(pngs[0]) == content_with(None).figures[1].png
    assert 'href="#lead-figure"' in page


def test_without_a_first_screen_the_page_is_as_before():
    page = render_html(content_with(None))
    assert 'id="answer"' not in page and "<details><summary><h2>" not in page
    assert page.index('<section id="summary"><h2>Summary</h2>') > page.index("<nav>")


def test_a_first_screen_figure_must_exist_and_tables_insert_in_both_layouts():
    with pytest.raises(ValueError, match="first_screen.figure"):
        render_html(content_with(FirstScreen([AnswerLine("a")], figure=5)))
    for screen in (None, FirstScreen([AnswerLine("a")], figure=0)):
        content = content_with(screen)
        extra = {"later": pd.DataFrame({"x": [1]})}
        whole = render_html(ReportContent(**{**content.__dict__,
                                             "tables": {**extra, **content.tables}}))
        assert insert_tables(render_html(content), extra) == whole


@pytest.fixture(scope="module")
def planted():
    """uE 2.5 times too small where x > 0.7: the action targets x."""
    rng = np.random.default_rng(3)
    m = 1200
    x, w = rng.uniform(0, 1, m), rng.normal(0, 1, m)
    u = rng.lognormal(0, 0.4, m)
    e = u * np.where(x > 0.7, 2.5, 1.0) * rng.standard_normal(m)
    return uqval.validate(e, u, features={"x": x, "w": w}, seed=0, n_boot=200,
                          n_permutations=199)


def test_the_validation_first_screen_reads_the_judgement(planted):
    stems = [s[0] for s in figure_specs(planted)]
    content = report_content(planted, figures=[(s, FigureSection(s, "how", tiny_png()))
                                               for s in stems])
    screen = content.first_screen
    assert screen is not None
    st = planted.stages
    labels = dict(zip(st["stage"] + ":" + st["variable"], st["label"], strict=True))
    heads = [line.head for line in screen.answer]
    assert heads == ["On average", "Along the uncertainty (uncertainty)", "Along the features"]
    assert screen.answer[0].label == labels["average:"]
    assert screen.answer[1].label == labels["consistency:uncertainty"]
    assert labels["adaptivity:x"] == "not right" and screen.answer[2].label == "not right"
    assert "not right: `x`" in screen.answer[2].detail
    s = planted.scale_factor
    assert f"{s.value:.2f}"[:3] in screen.answer[0].detail
    # the figure: the LZMS along the variable the first action targets
    assert stems[screen.figure] == "lzms_x"
    assert screen.actions == next_steps(planted, actions_only=True)
    assert screen.actions and not any(a.startswith("No separate action") for a in screen.actions)


def test_without_an_action_on_a_variable_the_reliability_diagram_is_shown():
    rng = np.random.default_rng(4)
    u = rng.lognormal(0, 0.4, 900)
    res = uqval.validate(u * rng.standard_normal(900), u, seed=0, n_boot=200,
                         n_permutations=199)
    stems = [s[0] for s in figure_specs(res)]
    screen = report_content(res, figures=[(s, FigureSection(s, "h", tiny_png()))
                                          for s in stems]).first_screen
    assert screen is not None and stems[screen.figure] == "reliability_diagram"
    assert len(screen.answer) == 2  # no feature: no features line


# --- figures: one rule when one bin dominates ----------------------------------------------


def test_one_rule_for_a_dominating_bin_value_or_interval():
    assert not panels.one_bin_dominates(np.array([0.9, 1.1, 1.0]))
    assert panels.one_bin_dominates(np.array([0.9, 1.1, 25.0]))            # a value
    assert panels.one_bin_dominates(np.array([0.9, 1.1, 1.0]), np.array([1.2, 1.3, 30.0]))
    assert not panels.one_bin_dominates(np.array([0.9, 1.1, 1.0]), np.array([1.2, 1.3, 15.0]))
    assert drawing.LOG_Y_RATIO == panels.DOMINANT_RATIO == 20.0
    table = pd.DataFrame({"low": [0.0, 1.0, 2.0], "high": [0.9, 1.9, 2.9], "n": [50] * 3,
                          "value": [1.0, 1.1, 2.0], "ci_low": [0.8, 0.9, 0.5],
                          "ci_high": [1.2, 1.3, 100.0], "valid": [True, True, False]})
    ax = drawing.bins_table_plot(table, "lzms")
    assert ax.get_yscale() == "log" and ax.get_ylabel().endswith("(log scale)")
    plt.close(ax.figure)


def test_the_comparison_lzms_overlay_follows_the_rule():
    rng = np.random.default_rng(1)
    m = 400
    u = rng.lognormal(0, 0.3, m)
    e = u * rng.standard_normal(m)
    spiky = e.copy()
    spiky[np.argmax(u)] = 400.0 * u.max()  # one bin's <Z²> about 20000 / bin size
    flat = overlay.lzms_curves_plot({"a": (e, u)}, n_bins=10)
    assert flat.get_yscale() == "linear"
    tall = overlay.lzms_curves_plot({"a": (e, u), "b": (spiky, u)}, n_bins=10)
    assert tall.get_yscale() == "log" and "log scale" in tall.get_ylabel()
    bottom, top = tall.get_ylim()
    assert bottom < 0.5 and top > 1000
    plt.close("all")


def test_the_comparison_ucc_stops_where_the_curves_have_come_down():
    rng = np.random.default_rng(2)
    u = rng.lognormal(0, 0.3, 500)
    e = u * rng.standard_normal(500)
    far = e.copy()
    far[:3] *= 1e3  # three errors a thousand times their uE: covering them stretches the axis
    ax = overlay.ucc_curves_plot({"a": (e, u), "b": (far, u)})
    right = ax.get_xlim()[1]
    # without the rule the axis would run to the largest mean half-width drawn
    largest = max(float(np.max(line.get_xdata())) for line in ax.get_lines())
    assert right < 0.1 * largest
    plt.close(ax.figure)


# --- pages carry no path of the machine that built them ------------------------------------


def test_dataset_pages_carry_no_absolute_path(tmp_path, monkeypatch):
    from uqval.pipeline.dataset_page import dataset_tables, pages_index, shown_path, variance_page

    monkeypatch.chdir(tmp_path)
    outside = tmp_path.parent / "elsewhere" / "mine.csv"
    report = {"id": "d", "title": "T", "citation": "me", "M": 300, "n_raw": 300,
              "config_file": str(tmp_path / "config" / "datasets" / "D.yaml"), "units": "eV",
              "sources": ["mine.csv", "raw.csv"], "filters": [],
              "local_files": {"mine.csv": str(outside)},
              "source_sha256": {"mine.csv": "ab" * 32, "raw.csv": "cd" * 32}}
    rng = np.random.default_rng(0)
    u = rng.lognormal(0, 0.3, 300)
    table = pd.DataFrame({"E": u * rng.standard_normal(300), "uE": u})
    summary = variance_page(table, report, tmp_path / "results" / "datasets" / "d", seed=0,
                            n_boot=50, n_permutations=49, extra=dataset_tables(report))
    (tmp_path / "results" / "datasets" / "d" / "page.json").write_text(json.dumps(summary))
    index = pages_index([tmp_path / "results" / "datasets" / "d" / "page.json"],
                        tmp_path / "results" / "datasets")
    page = (tmp_path / "results" / "datasets" / "d" / "index.html").read_text()
    for text in (page, index):
        assert str(tmp_path) not in text and os.getcwd() not in text
        assert str(tmp_path.parent) not in text
    assert "config/datasets/D.yaml" in page and "data/raw/raw.csv" in page
    assert "mine.csv" in page
    assert shown_path(outside) == "mine.csv"
    assert shown_path(Path("rel/x.csv")) == "rel/x.csv"


# --- compare and predictive reports open the same way --------------------------------------


def test_the_comparison_first_screen_ranks_the_models_and_lists_their_actions():
    from uqval.comparison import compare
    from uqval.report.comparison import ranking_table
    from uqval.report.comparison import report_content as comparison_content

    rng = np.random.default_rng(6)
    m = 600
    u = rng.lognormal(0, 0.3, m)
    e = u * rng.standard_normal(m)
    res = compare({"right": (e, u), f"wide {SCRIPT}": (e, 2.0 * u)}, n_boot=100, n_sim=50,
                  n_permutations=99, seed=1)
    png = tiny_png()
    stems = ["calibration_curves", "ucc", "lzms_uE"]
    content = comparison_content(res, figures=[(s, FigureSection(s, "h", png)) for s in stems])
    screen = content.first_screen
    assert screen is not None and screen.figure == 0
    assert [line.head for line in screen.answer] == list(ranking_table(res).index)
    wide = next(line for line in screen.answer if line.head.startswith("wide"))
    assert wide.label == "not right" and "rank" in wide.detail
    assert any(a.startswith("**wide") and "Multiply all uncertainties by" in a
               for a in screen.actions)
    page = render_html(content)
    assert "<script" not in page and page.index('id="answer"') < page.index('id="summary"')


def test_the_predictive_first_screen_reads_its_stages():
    from uqval.report.predictive import predictive_content

    rng = np.random.default_rng(7)
    m = 800
    mu, sd = rng.normal(0, 1, m), rng.lognormal(0, 0.3, m)
    y = mu + 1.6 * sd * rng.standard_normal(m)
    res = uqval.validate(y, uqval.Normal(mu, sd), seed=0, n_boot=100, n_permutations=99)
    png = tiny_png()
    stems = ["pit_histogram", "coverage_levels"]
    screen = predictive_content(res, [(s, FigureSection(s, "h", png)) for s in stems]).first_screen
    assert screen is not None and stems[screen.figure] == "coverage_levels"
    heads = [line.head for line in screen.answer]
    assert heads[:2] == ["Coverage", "Shape (PIT)"] and "Spread: on average" in heads
    assert screen.answer[0].label == res.stage_verdicts["coverage"] == "fail"
    levels = res.coverage.levels
    shares = [f"{round(100 * v, 1):.1f}" for v in levels["value"]]  # 3 digits: xx.x %
    assert screen.answer[0].detail == (
        f"the {'/'.join(f'{100 * t:g}' for t in levels['level'])} % intervals cover "
        f"{'/'.join(shares)} %")
    assert all(10 <= 100 * v < 100 for v in levels["value"])  # so xx.x is 3 digits
    assert screen.actions and screen.actions[0][0].isupper()


def test_z_points_beyond_the_axis_are_marked_and_counted():
    from uqval.plots.records import ZAlongRecord

    rng = np.random.default_rng(8)
    x = np.sort(rng.uniform(0, 1, 400))
    z = rng.standard_normal(400)
    z[[10, 200]] = [80.0, -95.0]  # beyond the ±30 cap
    q = np.column_stack([np.full(10, -2.0), np.full(10, 2.0)])
    record = ZAlongRecord(positions=np.linspace(0.05, 0.95, 10), quantiles=q, x=x, z=z,
                          log_x=False, n_rows=400)
    ax = drawing.draw_z_along(record, x_name="x")
    assert ax.get_ylim()[0] == -30.0
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "2 beyond ±30 (at the edge)" in texts
    edges = sorted(float(o.get_offsets()[0][1]) for o in ax.collections[1:]
                   if len(o.get_offsets()) == 1)
    assert edges == [-0.97 * 30, 0.97 * 30]
    plt.close(ax.figure)


def test_a_dollar_in_a_users_name_is_drawn_as_written_not_as_mathtext():
    """A feature named 'price $ (US$)': every figure of the report labels its axis with the
    name as written (matplotlib's parser sees no math), not in italics without the '$'."""
    import matplotlib.pyplot as plt
    from matplotlib.text import Text

    from uqval.report.validation import figure_specs

    rng = np.random.default_rng(3)
    m = 600
    u = rng.lognormal(0.0, 0.4, m)
    name = "price $ (US$)"
    res = uqval.validate(u * rng.standard_normal(m), u, {name: rng.uniform(size=m)}, seed=0,
                         n_boot=200, n_permutations=199, n_ucc_permutations=19)
    checked = 0
    for spec in figure_specs(res):
        if name not in spec[1]:
            continue
        fig, ax = plt.subplots()
        spec[-1](ax)
        shown, is_math = Text()._preprocess_math(ax.get_xlabel())
        plt.close(fig)
        assert name in shown and not is_math, (spec[0], ax.get_xlabel())
        checked += 1
    assert checked >= 2  # its LZMS and LZM figures at least
