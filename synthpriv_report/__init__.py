"""synthpriv_report: does this synthetic dataset leak the real people it was trained on?"""

from . import metrics  # noqa: F401  (the package's own metrics register on import)
from .audit import Audit, audit
from .comparison import Comparison
from .evaluation import Evaluation
from .results import InconsistentReportError, MetricResult, ResultSet, Verdict

__version__ = "0.1.0"

__all__ = ["Audit", "Comparison", "Evaluation", "InconsistentReportError", "MetricResult", "ResultSet", "Verdict",
           "__version__", "audit"]
