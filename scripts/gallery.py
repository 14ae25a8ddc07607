"""Rule gallery: the static results/index.html."""

import logging
from pathlib import Path

import pandas as pd

from uqval._internal.atomic import write_atomic
from uqval.pipeline.gallery import GalleryItem, build_gallery
from uqval.pipeline.scripting import run_logged


def main(smk):
    items = [GalleryItem(**{**it, "inputs": tuple(it["inputs"])}) for it in smk.params.gallery_items]
    page = build_gallery(
        items,
        root=Path.cwd(),
        captions_dir=smk.params.captions_dir,
        scoreboard=pd.read_csv(smk.input.board),
        summary_text=Path(smk.input.summary).read_text(),
        dataset_ids=smk.params.datasets,
        profile=smk.params.profile,
        dataset_reports=smk.params.dataset_reports,
        dataset_pages=smk.params.dataset_pages,
    )
    write_atomic(smk.output.index, lambda fh: fh.write(page))
    logging.info("%d items in %s", len(items), smk.output.index)


run_logged(snakemake, main)  # noqa: F821
