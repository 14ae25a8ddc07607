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
