"""Rule heavytails_tables: Tables 1-4 of the heavy-tails paper (Table 3 is also simref Table I)
and their scoreboard values."""

import json
from pathlib import Path

from uqval._internal.atomic import write_csv
from uqval.papers.heavytails import tables as ht
from uqval.pipeline.scripting import run_logged


def main(smk):
    screens = [json.loads(Path(p).read_text()) for p in smk.input.screens]
    averages = [json.loads(Path(p).read_text()) for p in smk.input.averages]
    tab1 = ht.table1_shapes(screens)
    tab3 = ht.table3_skewness(screens, smk.params.limits)
    tab4 = ht.table4_tests(averages, "full")
    write_csv(tab1, smk.output.tab1)
    write_csv(ht.table2_limits(smk.params.limits), smk.output.tab2)
    write_csv(tab3, smk.output.tab3)
    write_csv(tab3, smk.output.simref_tab1)
    write_csv(tab4, smk.output.tab4)
    write_csv(ht.table4_tests(averages, "trimmed"), smk.output.tab4_trimmed)
    write_csv(ht.table_values(tab1, tab3, tab4), smk.output.values)


run_logged(snakemake, main)  # noqa: F821
