"""Everything a metric author needs, from one module (README, "Adding a metric").

A metric is one module that declares a :class:`MetricSpec` and calls :func:`register`. The declaration groups its
fields in three: :class:`Computation` (how it is computed), :class:`Grading` (how its value becomes a level) and
:class:`Presentation` (how it is shown). Its ``plan`` and ``compute`` receive a :class:`MetricContext`; ``compute``
returns a :class:`MetricResult` whose ``details`` carry the keys of a ``TypedDict`` the module declares
(:class:`TypedDict`, with :data:`NotRequired` for a key only some results carry), with an interval from
:mod:`stats` (``stats.wilson``, ``stats.clopper_pearson``, the bootstrap helpers) and evidence its figure draws
with :mod:`plotting`. Its sentences format numbers with :func:`fmt_share`, :func:`fmt_count` and
:func:`fmt_number`; its applicability checks come from :func:`continuous_keys`, :func:`many_columns`,
:func:`small_holdout` and :func:`tiny_data`.
:func:`check_metric` then runs the invariants every registered metric must hold (:mod:`synthpriv_report.testing`)
on it.

The names here are the stable ones: the modules they come from may move, these imports do not.

>>> from synthpriv_report.extend import MetricSpec, register, check_metric
>>> MetricSpec.__name__, register.__name__, check_metric.__name__
('MetricSpec', 'register', 'check_metric')
"""

from __future__ import annotations

from . import stats
from .core import plotting
from .core.applicability import continuous_keys, many_columns, small_holdout, tiny_data
from .core.formats import fmt_count, fmt_number, fmt_share
from .core.protocols import MetricContext
from .core.registry import (
    Computation,
    FigureSpec,
    Grading,
    LevelSpec,
    MetricSpec,
    NotRequired,
    Param,
    Presentation,
    ResultJSON,
    TypedDict,
    Words,
    get_spec,
    register,
    unregister,
)
from .core.results import MetricResult
from .testing import CHECKS, CheckData, MetricCheckError, check_metric, run_check

__all__ = [
    "CHECKS", "CheckData", "Computation", "FigureSpec", "Grading", "LevelSpec", "MetricCheckError", "MetricContext",
    "MetricResult", "MetricSpec", "NotRequired", "Param", "Presentation", "ResultJSON", "TypedDict", "Words",
    "check_metric", "continuous_keys", "fmt_count", "fmt_number", "fmt_share", "get_spec", "many_columns",
    "plotting", "register", "run_check", "small_holdout", "stats", "tiny_data", "unregister",
]
