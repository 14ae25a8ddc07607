"""The per-part job functions of the pipeline (uqval.pipeline.parts): their refusals."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from uqval._internal.errors import DataError

COLUMNS = {"uncertainty": "u", "error": "e", "y_true": None, "y_pred": None, "features": [],
           "group": None, "variance": False, "drop_invalid": False}


@pytest.fixture
def two_parts(tmp_path):
    folder = tmp_path / "parts"
    folder.mkdir()
    rng = np.random.default_rng(2)
    for k in range(2):
        u = rng.uniform(0.5, 2.0, 300)
        pd.DataFrame({"e": u * rng.standard_normal(300), "u": u}).to_parquet(
            folder / f"p{k}.parquet")
    return folder


def test_index_refuses_a_listing_other_than_the_planned_one(two_parts, tmp_path):
    """The folder gained a part after the workflow was planned: the index job stops; with the
    planned listing it records each part's first row (300 rows per part) and S/M >= 1 -> 1."""
    from uqval.pipeline.parts import write_index

    files = [str(two_parts / "p0.parquet"), str(two_parts / "p1.parquet")]
    write_index(str(two_parts), files, 10_000, tmp_path / "index.json")
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["first_rows"] == [0, 300] and index["rows_stored"] == 600
    assert index["fraction"] == 1.0
    with pytest.raises(DataError, match="the parts changed after the workflow was planned"):
        write_index(str(two_parts), files[:1], 10_000, tmp_path / "index2.json")


def test_a_short_subsample_stops_the_plan_with_the_way_out(two_parts, tmp_path, monkeypatch):
    """plan_parts returns None when the candidates hold fewer rows than the subsample (it
    widens the threshold in one process); the plan job fails naming the settings to change."""
    from uqval.pipeline import parts as pparts

    files = [str(two_parts / "p0.parquet"), str(two_parts / "p1.parquet")]
    pparts.write_index(str(two_parts), files, 10_000, tmp_path / "index.json")
    firsts = []
    for k, part in enumerate(files):
        firsts.append(str(tmp_path / f"{k}.npz"))
        pparts.first_pass(tmp_path / "index.json", k, part, COLUMNS, seed=1, n_boot=50,
                          out=firsts[-1])
    with pytest.raises(DataError, match="not part 1 of the index"):
        pparts.first_pass(tmp_path / "index.json", 1, files[0], COLUMNS, seed=1, n_boot=50,
                          out=tmp_path / "x.npz")
    monkeypatch.setattr(pparts.vparts, "plan_parts", lambda *a, **k: None)
    with pytest.raises(DataError, match="fewer than 10000 rows.*analysis.validate.parts_subsample"):
        pparts.write_plan(tmp_path / "index.json", firsts, COLUMNS, n_bins=None,
                          out=tmp_path / "plan.npz")
    assert not (tmp_path / "plan.npz").exists()
