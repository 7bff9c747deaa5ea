"""Validate and align the real training (T), holdout (H), synthetic (S) and reference (R) sets once
(docs/metrics.md, "Shared machinery"). The reference set, optional and only beside a holdout, is real records of
the same population that are neither training nor holdout records (the membership attacks' reference data,
``Evaluation(reference=...)``); it goes through every check the holdout goes through, and counts as real data
wherever the holdout does (numeric ranges, notes on constant and identifier-like columns, spellings).

The caller's DataFrames are never modified: every conversion works on copies, and no row is ever dropped. Every
bad input is a ``TypeError`` or ``ValueError`` naming the column, the set and, for a bad value, its 0-based row
position; a value of the real or holdout data is quoted only with ``reveal_real_values=True`` (messages end up
in logs). What is handled rather than refused is listed in :func:`prepare`'s notes.

One file a role: :mod:`.containers` (the prepared sets), :mod:`.convert` (columns read once), :mod:`.fingerprints`,
:mod:`.order` (the canonical row order), :mod:`.identifiers` (identifier-like columns), :mod:`.preparation`
(:func:`prepare` and its phases), :mod:`.parquet` and :mod:`.sources` (where the inputs come from).
"""

from .containers import MISSING, REAL_SETS, CodedSet, Kind, NumericSet, PreparedData
from .fingerprints import fingerprint
from .identifiers import identifier_columns, identifier_reason
from .preparation import prepare

__all__ = ["MISSING", "REAL_SETS", "CodedSet", "Kind", "NumericSet", "PreparedData", "fingerprint",
           "identifier_columns",
           "identifier_reason", "prepare"]
