import json
import re

import pandas as pd
import pytest

from conftest import ROOT
from uqval.pipeline.gallery import (
    GalleryItem,
    benchmark_rule,
    build_gallery,
    datasets_in,
    runtime_table,
)


def test_datasets_in_prefers_whole_ids():
    ids = ["QM9_E_cal", "QM9_E_uncal", "PAL2022_Diffusion_RF_cal", "QM9_U0"]
    paths = [
        "data/prepared/QM9_E_uncal.csv",
        "results/simref/sets/PAL2022_Diffusion_RF_cal_zeta.csv",
        "results/screen/QM9_E_uncal.json",
        "results/screen/nig_curve.csv",
    ]
    assert datasets_in(paths, ids) == ["QM9_E_uncal", "PAL2022_Diffusion_RF_cal"]
    assert datasets_in(paths, []) == []


def test_benchmark_rule_prefers_literal_patterns():
    patterns = {
        "screen_dataset": "results/benchmarks/screen/{dataset}.tsv",
        "nig_skewness_curve": "results/benchmarks/screen/nig_curve.tsv",
        "pval": "results/benchmarks/heavytails/pval/{scenario}_{chunk}.tsv",
    }
    assert benchmark_rule("results/benchmarks/screen/nig_curve.tsv", patterns) == "nig_skewness_curve"
    assert benchmark_rule("results/benchmarks/screen/QM9_U0.tsv", patterns) == "screen_dataset"
    assert benchmark_rule("results/benchmarks/heavytails/pval/NIG_3.tsv", patterns) == "pval"
    assert benchmark_rule("results/benchmarks/screen/sub/x.tsv", patterns) is None


def write_bench(path, s, rss, cpu):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
        f"{s}\t0:00:01\t{rss}\t1\t1\t1\t0\t0\t50\t{cpu}\n"
    )
    return path


def test_runtime_table_sums_jobs_per_rule(tmp_path):
    files = [
        write_bench(tmp_path / "screen" / "A.tsv", 2.0, 100.0, 1.5),
        write_bench(tmp_path / "screen" / "B.tsv", 3.0, 150.0, 2.5),
        write_bench(tmp_path / "screen" / "nig_curve.tsv", 10.0, 50.0, 9.0),
    ]
    patterns = {"screen_dataset": f"{tmp_path}/screen/{{dataset}}.tsv", "nig": f"{tmp_path}/screen/nig_curve.tsv"}
    table = runtime_table(files, patterns)
    assert table["rule"].tolist() == ["nig", "screen_dataset"]
    row = table.set_index("rule").loc["screen_dataset"]
    assert (row["jobs"], row["total_s"], row["max_s"], row["mean_s"]) == (2, 5.0, 3.0, 2.5)
    assert (row["cpu_s"], row["max_rss_mb"]) == (4.0, 150.0)
    assert runtime_table([], patterns).empty


@pytest.fixture
def gallery_tree(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    (tmp_path / "results" / "primer").mkdir(parents=True)
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    fig.savefig(tmp_path / "results" / "primer" / "fig13.png")
    fig.savefig(tmp_path / "results" / "primer" / "fig13.pdf")
    plt.close(fig)
    pd.DataFrame({"set": ["a", "b"], "beta": [0.51234567, 0.7]}).to_csv(
        tmp_path / "results" / "primer" / "tab1.csv", index=False
    )
    captions = tmp_path / "captions"
    captions.mkdir()
    (captions / "primer_fig13.rst").write_text("LZISD vs *uE* with adaptive binning.\n")
    (captions / "primer_tab1.rst").write_text("Table 1 of the primer.\n")
    return tmp_path, captions


def test_gallery_shows_items_captions_provenance_and_status(gallery_tree):
    root, captions = gallery_tree
    items = [
        GalleryItem("primer_fig13", "primer", "results/primer/fig13.png", "primer_pal2022",
                    ("data/prepared/PAL2022_Diffusion_RF_cal.csv",), {"n_bins": 20}),
        GalleryItem("primer_tab1", "primer", "results/primer/tab1.csv", "primer_synthetic"),
        GalleryItem("primer_fig13", "primer", "results/primer/tab1.csv", "primer_pal2022"),
    ]
    board = pd.DataFrame({
        "paper": ["primer", "primer", "primer"],
        "item": ["primer_tab1", "primer_tab1", "primer_text_sec4"],
        "quantity": ["beta a", "beta b", "M"], "expected": [0.51, 0.8, 10.0],
        "obtained": [0.512, 0.7, float("nan")], "tolerance": [0.005, 0.005, 0.0],
        "tolerance_class": ["D", "D", "D"], "status": ["pass", "fail", "not_reproducible"],
        "note": ["", "", "needs a download"],
    })
    (root / "results" / "validate").mkdir(parents=True)
    (root / "results" / "validate" / "QM9_U0.md").write_text("# Validation of `QM9_U0`\n\n- **average**: pass <b>\n")
    page_dir = root / "results" / "datasets" / "mine"
    page_dir.mkdir(parents=True)
    (page_dir / "page.json").write_text(json.dumps({
        "id": "mine", "title": "My model", "M": 500,
        "stage_verdicts": {"average": "fail", "consistency": "pass"},
        "one_line": "The uncertainties are **too small** <script>",
    }))
    page = build_gallery(items, root=root, captions_dir=captions, scoreboard=board,
                         summary_text="reproduction: 1/2 passed",
                         dataset_ids=["PAL2022_Diffusion_RF_cal"], profile="quick",
                         dataset_reports=["results/validate/QM9_U0.md"],
                         dataset_pages=["results/datasets/mine/page.json"])
    assert "<img src='primer/fig13.png'" in page and "href='primer/fig13.pdf'" in page
    assert "<em>uE</em>" in page                     # caption rendered from reStructuredText
    assert "<code>PAL2022_Diffusion_RF_cal</code>" in page and "<code>20</code>" in page
    assert "none (simulated)" in page                # tab1 has no dataset inputs
    tab1 = page[page.index("id='primer_tab1'"):]
    assert re.search(r"1 pass</span> <span class='badge fail'>1 fail", tab1)
    assert "0.512346" in tab1                        # table rendered, 6 significant digits
    assert "id='primer_text_sec4'" in page and "needs a download" in page
    assert "<a href='validate/QM9_U0.md'>Markdown</a>" in page       # summaries rendered, not raw
    assert "<strong>average</strong>: pass &lt;b&gt;" in page and "**average**" not in page
    yours = page[page.index("id='your-datasets'"):]                    # "Your datasets" first
    assert page.index("id='your-datasets'") < page.index("id='primer'")
    assert "<a href='datasets/mine/index.html'><code>mine</code></a>" in yours
    assert "<span class='badge fail'" in yours and "average: fail" in yours
    assert "<strong>too small</strong> &lt;script&gt;" in yours
    fig13 = page[page.index("id='primer_fig13'"):page.index("id='primer_tab1'")]
    assert page.count("id='primer_fig13'") == 1 and fig13.count("<table>") == 1   # one section per id
    assert fig13.index("<img") < fig13.index("<table>")                          # figures first
    assert page.index("id='primer_fig13'") < page.index("id='primer_tab1'")


def test_every_shipped_caption_is_valid_restructuredtext():
    from docutils.core import publish_parts

    from uqval.pipeline.gallery import caption_html

    for rst in sorted((ROOT / "workflow" / "report").glob("*.rst")):
        # halt_level=2: any docutils warning (bad markup) raises
        publish_parts(rst.read_text(), writer="html5", settings_overrides={"halt_level": 2})
        assert len(caption_html(rst)) > 40, rst.name
