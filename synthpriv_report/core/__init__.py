"""The ground every other layer stands on: input validation and settings (:mod:`.validation`, :mod:`.params`),
number formats (:mod:`.formats`), results (:mod:`.results`), the metric registry and the context a metric sees
(:mod:`.registry`, :mod:`.protocols`), applicability checks, the release context (:mod:`.release`), the version table
(:mod:`.versions`), and the small helpers for figures and progress bars (:mod:`.plotting`, :mod:`.progress`).
"""
