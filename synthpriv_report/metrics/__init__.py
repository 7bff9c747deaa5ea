"""Metric modules; importing this package registers every metric in report order."""

from . import distance  # noqa: F401  spec section 2
from . import review_attack  # noqa: F401  spec section 3: ZCAP, GCAP, AIR, CRP, HitR
from . import review_distance  # noqa: F401  spec section 3: distance-based review metrics
from . import review_classifier  # noqa: F401  spec section 3: D-MLP, MIR
