"""The modules' paths before the package was laid out by role, kept working for one release.

``import synthpriv_report.levels`` (or ``from synthpriv_report.registry import MetricSpec``) still works: the old
name is an alias of the module at its new path (the same module object, so a setting changed through one path is
seen through the other), and the first import through an old path warns with a ``DeprecationWarning`` naming the
new one. Running an old path as a program (``python -m synthpriv_report.warmup``) is not supported: use the new
path (``python -m synthpriv_report.tools.warmup``). ``synthpriv_report.audit`` is the function :func:`audit`, as it
was before; its module is ``synthpriv_report.evaluation.audit``. A path that names a folder now
(``synthpriv_report.evaluation``, whose ``__init__`` gives :class:`Evaluation`, and the metric family
``synthpriv_report.metrics.criteria``) is that folder.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType

#: Old module path -> new module path. The old paths work until version 0.3.
MOVED: dict[str, str] = {
    "synthpriv_report._paired_medians": "synthpriv_report.stats._paired_medians",
    "synthpriv_report.applicability": "synthpriv_report.core.applicability",
    "synthpriv_report.catalogue": "synthpriv_report.tools.catalogue",
    "synthpriv_report.cli": "synthpriv_report.tools.cli",
    "synthpriv_report.cluster_joins": "synthpriv_report.cluster.joins",
    "synthpriv_report.comparison": "synthpriv_report.evaluation.comparison",
    "synthpriv_report.distributed": "synthpriv_report.cluster.distributed",
    "synthpriv_report.evidence": "synthpriv_report.stats.evidence",
    "synthpriv_report.formats": "synthpriv_report.core.formats",
    "synthpriv_report.generators": "synthpriv_report.evaluation.generators",
    "synthpriv_report.held": "synthpriv_report.cluster.held",
    "synthpriv_report.identity": "synthpriv_report.matching.identity",
    "synthpriv_report.joins": "synthpriv_report.matching.joins",
    "synthpriv_report.levels": "synthpriv_report.grading.levels",
    "synthpriv_report.lite": "synthpriv_report.tools.lite",
    "synthpriv_report.metrics.air": "synthpriv_report.metrics.attacks.air",
    "synthpriv_report.metrics.arrays": "synthpriv_report.metrics._shared.arrays",
    "synthpriv_report.metrics.attack_common": "synthpriv_report.metrics.attacks._common",
    "synthpriv_report.metrics.authenticity": "synthpriv_report.metrics.review.authenticity",
    "synthpriv_report.metrics.cap": "synthpriv_report.metrics.attacks.cap",
    "synthpriv_report.metrics.copies": "synthpriv_report.metrics.closeness.copies",
    "synthpriv_report.metrics.crp": "synthpriv_report.metrics.attacks.crp",
    "synthpriv_report.metrics.dcr": "synthpriv_report.metrics.closeness.dcr",
    "synthpriv_report.metrics.dcr_review": "synthpriv_report.metrics.review.dcr_review",
    "synthpriv_report.metrics.hidden_rate": "synthpriv_report.metrics.review.hidden_rate",
    "synthpriv_report.metrics.hitting_rate": "synthpriv_report.metrics.attacks.hitting_rate",
    "synthpriv_report.metrics.holdout_share": "synthpriv_report.metrics.holdout.holdout_share",
    "synthpriv_report.metrics.holdout_tests": "synthpriv_report.metrics.holdout.holdout_tests",
    "synthpriv_report.metrics.inference": "synthpriv_report.metrics.criteria.inference",
    "synthpriv_report.metrics.linkability": "synthpriv_report.metrics.criteria.linkability",
    "synthpriv_report.metrics.membership": "synthpriv_report.metrics.attacks.membership",
    "synthpriv_report.metrics.mia_common": "synthpriv_report.metrics.attacks.mia_common",
    "synthpriv_report.metrics.mia_density_ratio": "synthpriv_report.metrics.attacks.mia_density_ratio",
    "synthpriv_report.metrics.mia_distance_ratio": "synthpriv_report.metrics.attacks.mia_distance_ratio",
    "synthpriv_report.metrics.mia_local_lr": "synthpriv_report.metrics.attacks.mia_local_lr",
    "synthpriv_report.metrics.mia_worst_case": "synthpriv_report.metrics.attacks.mia_worst_case",
    "synthpriv_report.metrics.nnaa": "synthpriv_report.metrics.review.nnaa",
    "synthpriv_report.metrics.nndr": "synthpriv_report.metrics.closeness.nndr",
    "synthpriv_report.metrics.nndr_review": "synthpriv_report.metrics.review.nndr_review",
    "synthpriv_report.metrics.privacy_score": "synthpriv_report.metrics.closeness.privacy_score",
    "synthpriv_report.metrics.rescaled": "synthpriv_report.metrics.review.rescaled",
    "synthpriv_report.metrics.review_classifier": "synthpriv_report.metrics.distinguishability.review_classifier",
    "synthpriv_report.metrics.review_common": "synthpriv_report.metrics.review._common",
    "synthpriv_report.metrics.shift": "synthpriv_report.metrics._shared.shift",
    "synthpriv_report.metrics.singling_out": "synthpriv_report.metrics.criteria.singling_out",
    "synthpriv_report.metrics.unique_disclosure": "synthpriv_report.metrics.attacks.unique_disclosure",
    "synthpriv_report.models": "synthpriv_report.metrics.distinguishability",
    "synthpriv_report.models.mlp": "synthpriv_report.metrics.distinguishability.mlp",
    "synthpriv_report.params": "synthpriv_report.core.params",
    "synthpriv_report.partitioned": "synthpriv_report.cluster.partitioned",
    "synthpriv_report.plotting": "synthpriv_report.core.plotting",
    "synthpriv_report.progress": "synthpriv_report.core.progress",
    "synthpriv_report.protocols": "synthpriv_report.core.protocols",
    "synthpriv_report.registry": "synthpriv_report.core.registry",
    "synthpriv_report.release": "synthpriv_report.core.release",
    "synthpriv_report.results": "synthpriv_report.core.results",
    "synthpriv_report.shadow": "synthpriv_report.evaluation.shadow",
    "synthpriv_report.sources": "synthpriv_report.data.sources",
    "synthpriv_report.teaching": "synthpriv_report.tools.teaching",
    "synthpriv_report.templating": "synthpriv_report.text.templating",
    "synthpriv_report.utility": "synthpriv_report.analysis.utility",
    "synthpriv_report.validation": "synthpriv_report.core.validation",
    "synthpriv_report.verdict": "synthpriv_report.grading.verdict",
    "synthpriv_report.versions": "synthpriv_report.core.versions",
    "synthpriv_report.warmup": "synthpriv_report.tools.warmup",
    "synthpriv_report.wording": "synthpriv_report.text.wording",
}


class _Alias(importlib.abc.Loader):
    """Loads an old path as the module at its new path."""

    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(f"{spec.name} has moved to {self.new}; the old path works until synthpriv_report 0.3",
                      DeprecationWarning, stacklevel=2)
        return importlib.import_module(self.new)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module at the new path is already imported."""


class _MovedFinder(importlib.abc.MetaPathFinder):
    """Finds the old paths of :data:`MOVED`, and nothing else."""

    def find_spec(self, fullname: str, path: object = None, target: object = None
                  ) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, _Alias(new))


def install() -> None:
    """Put the finder on ``sys.meta_path`` once, first: an old path is found here before the ordinary finders
    could load a second copy of a moved module under it (``synthpriv_report.models.mlp`` through the moved package
    ``synthpriv_report.models``). It answers for the paths of :data:`MOVED` only, none of which is a file."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())
