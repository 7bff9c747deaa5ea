"""Per-record analysis, a layer above the metrics: which synthetic records are at risk (:mod:`.risk`) and one
real record explained (:mod:`.record`). Both read the arrays the metrics cached; neither starts a search over a
whole set."""
