"""Metric modules: one metric (or one tight family) per module. Importing this package registers every metric,
in report order: the order of the imports below, which is kept by hand (not sorted)."""
# ruff: noqa: I001

from . import dcr  # noqa: F401  distance to closest record
from . import copies  # noqa: F401  exact_copies, near_copies
from . import holdout_share  # noqa: F401  holdout_dcr_share
from . import privacy_score  # noqa: F401  proximity-ratio privacy score
from . import nndr  # noqa: F401  nearest-neighbour distance ratio
from . import holdout_tests  # noqa: F401  dcr_test, nndr_test
from . import cap  # noqa: F401  zcap, gcap
from . import air  # noqa: F401  attribute inference risk
from . import crp  # noqa: F401  common rows proportion
from . import hitting_rate  # noqa: F401  hitting rate
from . import rescaled  # noqa: F401  cvp, dvp, nsnd
from . import authenticity  # noqa: F401  authenticity, identifiability
from . import nndr_review  # noqa: F401  the review's NNDR
from . import dcr_review  # noqa: F401  dcr_review, mdcr
from . import nnaa  # noqa: F401  nearest-neighbour adversarial accuracy
from . import hidden_rate  # noqa: F401  hidden rate
from . import review_classifier  # noqa: F401  D-MLP, MIR
from . import singling_out  # noqa: F401  singling_out_risk
from . import linkability  # noqa: F401  linkability_risk
from . import inference  # noqa: F401  inference_risk
from . import membership  # noqa: F401  membership inference (training members against holdout non-members)
from . import mia_distance_ratio  # noqa: F401  reference-calibrated membership attacks
from . import mia_density_ratio  # noqa: F401
from . import mia_local_lr  # noqa: F401
from . import mia_worst_case  # noqa: F401  the strongest of them, multiplicity-aware
from . import unique_disclosure  # noqa: F401  DiSCO of training uniques against the holdout
