"""The HTML report in a real browser: Debian's headless Chromium opens the report of a
planted data set, every figure must load and the page must log no error.

Chromium is required under CI (``CI`` set: the test fails without it; .ci/run installs it);
elsewhere the test is skipped when no Chromium is installed. The screenshot is written to
the test's temporary directory (path printed; ``pytest -s`` shows it) and, when
``UQVAL_KEEP_SCREENSHOT`` is set, copied to ``results/report_screenshot.png``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from PIL import Image

from uqval.plots import (
    calibration_curve_plot,
    confidence_curve_plot,
    intervals_plot,
    local_zms_plot,
    reliability_diagram_plot,
    ucc_plot,
    z_vs_feature_plot,
)
from uqval.report import HOW_TO_READ, FigureSection, ReportContent, png_bytes, write_html

ROOT = Path(__file__).resolve().parents[1]
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
ERRORS = re.compile(
    r"Uncaught|Failed to load resource|Not allowed to load|Refused to|:ERROR:CONSOLE|"
    r"ERR_FILE_NOT_FOUND|net::ERR_"
)
PROBE = (
    '<script>window.addEventListener("load", () => {'
    "const widths = [...document.images].map(i => i.complete && i.naturalWidth > 0 ? "
    "i.naturalWidth : 0);"
    'const out = document.createElement("pre"); out.id = "probe";'
    "out.textContent = JSON.stringify(widths); document.body.appendChild(out);});</script>"
)


def chromium() -> str:
    for name in BROWSERS:
        if path := shutil.which(name):
            return path
    message = "no Chromium found (Debian: apt-get install chromium)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def run_browser(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [
        chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        "--no-first-run", "--disable-extensions", "--disable-dev-shm-usage",
        f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


def errors_in(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ERRORS.search(line)]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> tuple[Path, list[int]]:
    """Report of a planted set (uE 2x too small where x > 0.5); path and figure widths."""
    rng = np.random.default_rng(11)
    m = 800
    u = rng.lognormal(0.0, 0.6, m)
    x = rng.uniform(0.0, 1.0, m)
    e = u * np.where(x > 0.5, 2.0, 1.0) * rng.standard_normal(m)
    plots = [
        ("Calibration curve", "calibration_curve_plot", calibration_curve_plot(e, u)),
        ("Reliability diagram", "reliability_diagram_plot",
         reliability_diagram_plot(e, u, units="eV")),
        ("LZMS along the uncertainty", "local_zms_plot", local_zms_plot(e, u, units="eV")),
        ("LZMS along x", "local_zms_plot", local_zms_plot(e, u, x, x_name="x")),
        ("Z against x", "z_vs_feature_plot", z_vs_feature_plot(e, u, x, feature_name="x")),
        ("Confidence curve", "confidence_curve_plot", confidence_curve_plot(e, u, units="eV")),
        ("UCC", "ucc_plot", ucc_plot(e, u, units="eV")),
        ("Prediction intervals", "intervals_plot", intervals_plot(e, u, units="eV")),
    ]
    figures = []
    for title, key, ax in plots:
        figures.append(FigureSection(title, HOW_TO_READ[key], png_bytes(ax.figure)))
        plt.close(ax.figure)
    verdicts = pd.DataFrame(
        {
            "stage": ["average", "consistency", "adaptivity", "consistency", "adaptivity"],
            "feature": ["", "uncertainty", "x", "uncertainty", "x"],
            "scaled": [False, False, False, True, True],
            "verdict": ["fail", "fail", "fail", "pass", "fail"],
            "statistic": ["ZMS", "LZMS", "LZMS", "LZMS", "LZMS"],
            "value": [2.4, 0.1, 0.5, 0.95, 0.55],
        }
    )
    summary = (
        "## On average\nThe uncertainties are **too small**: multiply them by `1.55`.\n\n"
        "## After scaling\n- along the uncertainty: right\n"
        "- along **x**: too small for x > 0.5 (by 1.3×), too large below\n"
        "  - recalibrate per range of x\n\nUser text <script>alert(1)</script> stays text.\n"
    )
    content = ReportContent(
        title="Validation of a planted data set",
        verdicts=verdicts,
        summary_markdown=summary,
        figures=figures,
        parameters={"seed": 0, "n_boot": 1000},
        input_sha256="f" * 64,
        row_counts={"rows read": m, "rows used": m},
        tables={"bins of x": pd.DataFrame({"low": [0.0, 0.5], "high": [0.5, 1.0]})},
    )
    path = write_html(content, tmp_path_factory.mktemp("report") / "report.html")
    widths = [struct.unpack(">I", f.png[16:20])[0] for f in figures]
    return path, widths


def test_every_figure_loads_in_chromium(report, tmp_path):
    """A copy of the page with a probe script lists each image's decoded width."""
    path, widths = report
    probe = tmp_path / "probe.html"
    probe.write_text(path.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"),
                     encoding="utf-8")
    done = run_browser(tmp_path / "profile", "--virtual-time-budget=10000", "--dump-dom",
                       probe.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout)
    assert found, "the page did not finish loading"
    assert json.loads(found.group(1)) == widths
    assert errors_in(done.stderr) == []


def test_the_report_renders_without_errors_and_the_screenshot_is_kept(report, tmp_path):
    path, widths = report
    shot = tmp_path / "report_screenshot.png"
    done = run_browser(tmp_path / "profile", f"--screenshot={shot}", "--window-size=1280,4000",
                       path.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    assert errors_in(done.stderr) == []
    with Image.open(shot) as image:
        assert image.size == (1280, 4000)
        grey = np.asarray(image.convert("L"), dtype=float)
    assert grey.std() > 10  # not a blank page
    print(f"report screenshot: {shot}")
    if os.environ.get("UQVAL_KEEP_SCREENSHOT"):
        kept = ROOT / "results" / "report_screenshot.png"
        kept.parent.mkdir(exist_ok=True)
        shutil.copyfile(shot, kept)
        print(f"report screenshot kept: {kept}")
    dom = run_browser(tmp_path / "profile", "--dump-dom", path.as_uri())
    assert dom.stdout.count("<img ") == len(widths)
    assert "<script" not in dom.stdout and "&lt;script&gt;" in dom.stdout
    assert errors_in(dom.stderr) == []


def test_the_error_check_sees_script_errors(tmp_path):
    """The stderr check is not blind: a failing script on a page is reported."""
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><script>undefined_function();</script>"
                    "</body></html>")
    done = run_browser(tmp_path / "profile", "--dump-dom", page.as_uri())
    assert any("Uncaught" in line for line in errors_in(done.stderr))


# --- the first screen: answer, figure and actions in the first viewport --------------------

FIRST_SCREEN_PROBE = (
    "<script>const probe = () => {"
    'document.querySelectorAll(".probe-mark").forEach(m => m.remove());'
    "const inside = s => { const e = document.querySelector(s); if (!e) return false;"
    " const r = e.getBoundingClientRect(); return r.height > 0 && r.top >= 0 &&"
    " r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth; };"
    "const ok = document.documentElement.scrollWidth <= innerWidth && inside('.answer')"
    " && inside('#lead-figure img') && inside('#actions ol');"
    'const mark = document.createElement("div"); mark.className = "probe-mark";'
    'mark.style.cssText = "position:fixed;left:0;top:0;width:30px;height:30px;z-index:99;'
    'background:" + (ok ? "rgb(0,255,0)" : "rgb(255,0,0)");'
    "document.body.appendChild(mark);};"
    'window.addEventListener("load", probe); window.addEventListener("resize", probe);'
    "setInterval(probe, 100);</script>"
)
"""Paints a green square in the corner when the answer lines, the lead figure and the list
of actions lie inside the viewport and nothing scrolls sideways, else a red one. It is
re-evaluated on resize: headless Chromium lays the page out at its default size first and at
the --window-size of the screenshot last."""


def first_screen_ok(page: Path, tmp_path: Path, width: int, height: int) -> bool:
    probe = tmp_path / f"probe_{width}.html"
    probe.write_text(page.read_text(encoding="utf-8").replace(
        "</body>", FIRST_SCREEN_PROBE + "</body>"), encoding="utf-8")
    shot = tmp_path / f"probe_{width}.png"
    done = run_browser(tmp_path / "profile", "--virtual-time-budget=5000",
                       f"--screenshot={shot}", f"--window-size={width},{height}", probe.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    with Image.open(shot) as image:
        assert image.size == (width, height)
        pixel = image.convert("RGB").getpixel((10, 10))
    assert pixel in ((0, 255, 0), (255, 0, 0)), pixel  # the probe ran
    return pixel == (0, 255, 0)


@pytest.fixture(scope="module")
def first_screen_report(report, tmp_path_factory) -> Path:
    """The planted report with a first screen: three answer lines, the LZMS along x, four
    actions as long as the engine writes them (three shown)."""
    from uqval.report.content import AnswerLine, FirstScreen
    from uqval.report.html import render_html

    path, _ = report
    figures = [FigureSection(f"Figure {i}", HOW_TO_READ["local_zms_plot"], png)
               for i, png in enumerate(figure_pngs(path))]
    action = ("Recalibrate per range (`x`): x from 0.50 to 1.00: the given uncertainties are "
              "too small by a factor 2.03; multiply them by 2.03 there instead of the global "
              "1.55 <script>alert(1)</script>.")
    screen = FirstScreen(
        answer=[AnswerLine("On average", "not right", "scale factor 1.55 [1.47, 1.64]"),
                AnswerLine("Along the uncertainty (uE)", "right",
                           "factor per bin 0.911 to 1.12 after the global one"),
                AnswerLine("Along the features", "not right",
                           "not right: `x`, all features together; right: `y <b>`")],
        figure=3, actions=[action] * 4, why_figure="Shown because the first action targets `x`.")
    content = ReportContent(
        title="Validation of a planted data set", verdicts=pd.DataFrame(
            {"stage": ["average"], "feature": [""], "verdict": ["fail"], "value": [2.4]}),
        summary_markdown="## On average\nToo small.\n", figures=figures,
        parameters={"seed": 0}, tables={"bins": pd.DataFrame({"low": [0.0], "high": [1.0]})},
        first_screen=screen)
    out = tmp_path_factory.mktemp("first") / "report.html"
    out.write_text(render_html(content), encoding="utf-8")
    return out


def figure_pngs(page: Path) -> list[bytes]:
    import base64

    found = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"',
                       page.read_text(encoding="utf-8"))
    return [base64.b64decode(data) for data in found]


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (390, 844)])
def test_the_first_screen_holds_answer_figure_and_actions(first_screen_report, tmp_path,
                                                           width, height):
    assert first_screen_ok(first_screen_report, tmp_path, width, height)


def test_the_first_screen_probe_sees_an_overflow(first_screen_report, tmp_path):
    """The probe is not blind: a page wider than the window, or a screen too short for the
    actions, paints red."""
    wide = tmp_path / "wide.html"
    wide.write_text(first_screen_report.read_text(encoding="utf-8").replace(
        '<div class="answer">', '<div style="width:2000px">wide</div><div class="answer">'),
        encoding="utf-8")
    assert not first_screen_ok(wide, tmp_path, 1280, 900)
    assert not first_screen_ok(first_screen_report, tmp_path, 1280, 400)


# --- the pipeline's pages: no sideways scrolling, rows a few lines tall --------------------

PAGE_PROBE = (
    "<script>const probe = () => {"
    'document.querySelectorAll(".probe-mark").forEach(m => m.remove());'
    "const rows = [...document.querySelectorAll('tr')].map(r => r.getBoundingClientRect().height);"
    "const ok = document.documentElement.scrollWidth <= innerWidth && rows.length > 0"
    " && Math.max(...rows) <= 140;"
    'const mark = document.createElement("div"); mark.className = "probe-mark";'
    'mark.style.cssText = "position:fixed;left:0;top:0;width:30px;height:30px;z-index:99;'
    'background:" + (ok ? "rgb(0,255,0)" : "rgb(255,0,0)");'
    "document.body.appendChild(mark);};"
    'window.addEventListener("load", probe); window.addEventListener("resize", probe);'
    "setInterval(probe, 100);</script>"
)
"""Green when the page does not scroll sideways and no table row is taller than 140 px."""

CITATION = ("Pernot P. (2023) Calibration in machine learning uncertainty quantification: "
            "beyond consistency to target adaptivity. APL Mach. Learn. 1, 046121; data from "
            "Busk et al. (2022) Mach. Learn.: Sci. Technol. 3, 015012, "
            "https://doi.org/10.1088/2632-2153/ac3eb3")


@pytest.fixture(scope="module")
def gallery_pages(tmp_path_factory) -> tuple[Path, Path]:
    """results/index.html and results/datasets/index.html with the long texts of real runs:
    a datasets table with citations, a scoreboard with long notes, a long summary line,
    dataset pages with six verdict badges (every <details> opened)."""
    from uqval.pipeline.dataset_page import pages_index
    from uqval.pipeline.gallery import GalleryItem, build_gallery

    root = tmp_path_factory.mktemp("gallery")
    (root / "results" / "tables").mkdir(parents=True)
    pd.DataFrame([{"id": f"DATASET_{i}_with_a_long_identifier", "family": "literature",
                   "title": "A long title of a dataset " * 3, "M": 13885, "n_raw": 13900,
                   "filtered": "E finite: 10; uE > 0: 5", "kind": "variance",
                   "features": "distance;mass;charge;size;temperature;pressure",
                   "units": "eV", "source": CITATION} for i in range(4)]).to_csv(
        root / "results" / "tables" / "datasets.csv", index=False)
    captions = root / "captions"
    captions.mkdir()
    board = pd.DataFrame({
        "paper": ["primer"] * 2, "item": ["datasets"] * 2,
        "quantity": ["ZMS of the set PAL2022_Diffusion_RF_cal with all its rows", "M"],
        "expected": [0.51, 10.0], "obtained": [0.512, float("nan")], "tolerance": [0.005, 0.0],
        "tolerance_class": ["D", "D"], "status": ["pass", "not_reproducible"],
        "note": ["", "a long note on why this number cannot be reproduced here " * 3]})
    pages = []
    for i in range(3):
        folder = root / "results" / "datasets" / f"set{i}"
        folder.mkdir(parents=True)
        (folder / "page.json").write_text(json.dumps({
            "id": f"set{i}", "title": "My model", "M": 500,
            "stage_verdicts": {"average": "fail", "consistency": "pass",
                               "adaptivity: distance": "fail", "adaptivity: mass": "pass",
                               "adaptivity: charge": "inconclusive", "joint": "pass"},
            "one_line": "On average: **not right** — too small on average: scale factor 1.54 "
                        "[1.48, 1.60] (95 % interval), beyond the ±10 % tolerance"}))
        pages.append(f"results/datasets/set{i}/page.json")
    summary = ("reproduction scoreboard: 120 values; 100 pass, 10 fail, 10 not reproducible; "
               "per paper: primer 40/45, heavy tails 20/22, simulated references 15/20 ") * 2
    gallery = build_gallery(
        [GalleryItem("datasets", "primer", "results/tables/datasets.csv", "datasets_table")],
        root=root, captions_dir=captions, scoreboard=board, summary_text=summary,
        dataset_ids=[], profile="quick", dataset_pages=pages)
    index = pages_index([root / p for p in pages], root / "results" / "datasets")
    out = []
    for name, text in (("gallery.html", gallery), ("datasets.html", index)):
        path = root / "results" / name
        path.write_text(text.replace("<details>", "<details open>"), encoding="utf-8")
        out.append(path)
    return out[0], out[1]


def page_ok(page: Path, tmp_path: Path, width: int, height: int) -> bool:
    probe = tmp_path / f"page_{width}.html"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PAGE_PROBE + "</body>"),
                     encoding="utf-8")
    shot = tmp_path / f"page_{width}.png"
    done = run_browser(tmp_path / "profile", "--virtual-time-budget=5000",
                       f"--screenshot={shot}", f"--window-size={width},{height}", probe.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    with Image.open(shot) as image:
        pixel = image.convert("RGB").getpixel((10, 10))
    assert pixel in ((0, 255, 0), (255, 0, 0)), pixel
    return pixel == (0, 255, 0)


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (390, 844)])
def test_gallery_and_datasets_pages_fit_the_screen(gallery_pages, tmp_path, width, height):
    for page in gallery_pages:
        assert page_ok(page, tmp_path, width, height), page.name


def test_the_page_probe_sees_a_tall_row(gallery_pages, tmp_path):
    gallery, _ = gallery_pages
    tall = tmp_path / "tall.html"
    narrow = "<style>td{max-width:5em!important;min-width:0!important;white-space:normal!important}</style>"
    tall.write_text(gallery.read_text(encoding="utf-8").replace("</head>", narrow + "</head>"),
                    encoding="utf-8")
    assert not page_ok(tall, tmp_path, 1280, 900)
