"""The objects a user makes: one release (:class:`Evaluation`), several releases of the same real data
(:class:`Comparison`), and the generator itself (:class:`Audit`, with its shadow runs and generator adapters).
"""

from .audit import Audit, audit
from .comparison import Comparison
from .evaluation import Evaluation

__all__ = ["Audit", "Comparison", "Evaluation", "audit"]
