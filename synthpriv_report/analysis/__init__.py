"""Per-record analysis, a layer above the metrics: which synthetic records are at risk (:mod:`.risk`), one real
record explained (:mod:`.record`) and the training records most exposed to the membership attacks
(:mod:`.vulnerable`). Each reads the arrays the metrics cached; none starts a search over a whole set that its
metrics have not planned."""
