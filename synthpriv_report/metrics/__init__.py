"""Metric modules: one metric (or one tight family) per module. Importing this package registers every metric,
in report order (the order of the imports below)."""

from . import (
    air,  # noqa: F401  attribute inference risk
    authenticity,  # noqa: F401  authenticity, identifiability
    cap,  # noqa: F401  zcap, gcap
    copies,  # noqa: F401  exact_copies, near_copies
    crp,  # noqa: F401  common rows proportion
    dcr,  # noqa: F401  distance to closest record
    dcr_review,  # noqa: F401  dcr_review, mdcr
    hidden_rate,  # noqa: F401  hidden rate
    hitting_rate,  # noqa: F401  hitting rate
    holdout_share,  # noqa: F401  holdout_dcr_share
    holdout_tests,  # noqa: F401  dcr_test, nndr_test
    inference,  # noqa: F401  inference_risk (anonymisation criterion)
    linkability,  # noqa: F401  linkability_risk (anonymisation criterion)
    nnaa,  # noqa: F401  nearest-neighbour adversarial accuracy
    nndr,  # noqa: F401  nearest-neighbour distance ratio
    nndr_review,  # noqa: F401  the review's NNDR
    privacy_score,  # noqa: F401  proximity-ratio privacy score
    rescaled,  # noqa: F401  cvp, dvp, nsnd
    review_classifier,  # noqa: F401  D-MLP, MIR
    singling_out,  # noqa: F401  singling_out_risk (anonymisation criterion)
)
