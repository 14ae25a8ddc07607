"""Heavy-tails paper (P001): tables (:mod:`.tables`), Monte Carlo studies (:mod:`.montecarlo`),
data figures (:mod:`.figures`) and Monte Carlo figures (:mod:`.figures_mc`)."""
