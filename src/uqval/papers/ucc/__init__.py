"""UCC paper (P004): x·sin(x) and GP experiments (:mod:`.experiments`, :mod:`.figures`) and the
UCC gains of the literature sets (:mod:`.literature`, :mod:`.literature_figures`). The UCC
library itself is :mod:`uqval.ucc`."""
