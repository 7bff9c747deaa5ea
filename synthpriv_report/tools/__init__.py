"""Programs around the library: the command line (:mod:`.cli`), the metric table generator (:mod:`.catalogue`),
the compiled-kernel warm-up (:mod:`.warmup`), the in-browser teaching site (:mod:`.lite`) and the lab's helpers
(:mod:`.teaching`).
"""
