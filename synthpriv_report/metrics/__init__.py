"""Metric modules: one metric (or one tight family) per module, in one folder a family: :mod:`.closeness`
(distances to the closest record), :mod:`.holdout` (the same distances against a holdout), :mod:`.attacks`
(attack simulations, membership attacks among them), :mod:`.criteria` (the three anonymisation criteria),
:mod:`.review` (the review metrics), :mod:`.distinguishability` (classifier-based detection); :mod:`._shared`
holds what several families read. The families do not import each other. Importing this package registers every metric,
in report order: the order of the imports below, which is kept by hand (not sorted)."""
# ruff: noqa: I001

from .closeness import dcr  # noqa: F401  distance to closest record
from .closeness import copies  # noqa: F401  exact_copies, near_copies
from .holdout import holdout_share  # noqa: F401  holdout_dcr_share
from .closeness import privacy_score  # noqa: F401  proximity-ratio privacy score
from .closeness import nndr  # noqa: F401  nearest-neighbour distance ratio
from .holdout import holdout_tests  # noqa: F401  dcr_test, nndr_test
from .attacks import cap  # noqa: F401  zcap, gcap
from .attacks import air  # noqa: F401  attribute inference risk
from .attacks import crp  # noqa: F401  common rows proportion
from .attacks import hitting_rate  # noqa: F401  hitting rate
from .review import rescaled  # noqa: F401  cvp, dvp, nsnd
from .review import authenticity  # noqa: F401  authenticity, identifiability
from .review import nndr_review  # noqa: F401  the review's NNDR
from .review import dcr_review  # noqa: F401  dcr_review, mdcr
from .review import nnaa  # noqa: F401  nearest-neighbour adversarial accuracy
from .review import hidden_rate  # noqa: F401  hidden rate
from .distinguishability import review_classifier  # noqa: F401  D-MLP, MIR
from .criteria import singling_out  # noqa: F401  singling_out_risk
from .criteria import linkability  # noqa: F401  linkability_risk
from .criteria import inference  # noqa: F401  inference_risk
from .attacks import membership  # noqa: F401  membership inference (training members against holdout non-members)
from .attacks import mia_distance_ratio  # noqa: F401  reference-calibrated membership attacks
from .attacks import mia_density_ratio  # noqa: F401
from .attacks import mia_local_lr  # noqa: F401
from .attacks import mia_worst_case  # noqa: F401  the strongest of them, multiplicity-aware
from .attacks import unique_disclosure  # noqa: F401  DiSCO of training uniques against the holdout
