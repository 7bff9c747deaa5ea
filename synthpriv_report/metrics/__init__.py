"""Metric modules: one metric (or one tight family) per module. Importing this package registers every metric,
in report order (the order of the imports below)."""

from . import dcr  # noqa: F401  distance to closest record
from . import copies  # noqa: F401  exact_copies, near_copies
from . import holdout_share  # noqa: F401  holdout_dcr_share
from . import privacy_score  # noqa: F401  proximity-ratio privacy score
from . import nndr  # noqa: F401  nearest-neighbour distance ratio
from . import holdout_tests  # noqa: F401  dcr_test, nndr_test
from . import review_attack  # noqa: F401  ZCAP, GCAP, AIR, CRP, hitting rate
from . import review_distance  # noqa: F401  the review's distance-based metrics
from . import review_classifier  # noqa: F401  D-MLP, MIR
