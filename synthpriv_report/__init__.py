"""synthpriv_report: does this synthetic dataset leak the real people it was trained on?"""

from . import _moved, metrics  # noqa: F401  (the package's own metrics register on import)
from .core.results import InconsistentReportError, MetricResult, ResultSet, Verdict
from .evaluation.audit import Audit, audit
from .evaluation.comparison import Comparison
from .evaluation.evaluation import Evaluation

__version__ = "0.1.0"

_moved.install()  # the modules' old paths, for one release

__all__ = ["Audit", "Comparison", "Evaluation", "InconsistentReportError", "MetricResult", "ResultSet", "Verdict",
           "__version__", "audit"]
