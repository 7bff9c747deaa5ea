"""Exact nearest-neighbour search in the compact encodings of :mod:`synthpriv_report.spaces`.

Engines, all exact and giving the same numbers (distances bit-identical, indices identical):

- ``tree`` (:mod:`.tree`, :mod:`.search`): the reference set in a tree of boxes (numeric intervals, missing
  flags, category code ranges and bitmasks per node); a query walks it nearest box first and skips every box
  whose lower bound exceeds its current k-th distance. Excellent where the data has structure.
- ``dense`` (:mod:`.dense`): dense numeric spaces (the projected space) by single-precision matrix products and an
  exact re-check within a proven rounding margin. It scores every query-reference pair, so above
  ``DENSE_AUTO_MIN_PAIRS`` pairs the automatic choice samples the tree's pruning there too and takes the tree where
  it prunes (the projection of clustered one-hot data: 0.3% of the references per query at 300,000 records).
- ``tiled`` (:mod:`.tiled`): brute force in blocks of queries x references, single-precision SIMD lanes and an
  exact float64 re-check of every reference within a proven rounding margin of the k-th best; the engine for
  data the tree cannot prune.
- ``cuda`` (:mod:`.gpu`): the tiled kernel on a CUDA device through CuPy (optional ``gpu`` extra).

:func:`knn` picks the engine (``engine="auto"``: the tree's pruning is estimated on a sample of queries) and
reports the choice (``info["choice"]``, a :class:`SearchChoice`). Distances are computed exactly in float64 by one
expression (:func:`.kernels._acc`); no n x m distance matrix is ever built, memory is O((n + m) * columns + n * k)
plus a block per thread. Queries run in parallel over all cores (numba ``prange``).

Ties (docs/metrics.md, "Shared machinery"): two distances are equal when |a - b| <= 1e-9 max(|a|, |b|) + 1e-12
(integer-valued
distances exactly); among equal distances the record with the lowest reference position comes first.
Within-set searches exclude the query record itself by position.

Read pair by pair, that rule is not transitive (distances x, x + e, x + 2e with e just under the tolerance), so
every engine gives the one answer that depends only on the distances and positions: ``dist`` holds the k smallest
distances in ascending order (``dist[:, 0]`` is the row minimum), and ``idx`` slot by slot the lowest position
among the references not yet taken that tie with the smallest remaining distance (:mod:`.kernels` says how).
"""

from __future__ import annotations

from ..spaces import MODE_GOWER, MODE_HAMMING, MODE_L2
from .brute import knn_brute
from .kernels import ABS_TOL, REL_TOL
from .pairs import farthest_pair, pair_distances, ties_at_min
from .search import DENSE_MIN_DIMS, NeighborTable, SearchChoice, knn
from .tree import LEAF_SIZE, RefTree, build_tree, query_order

__all__ = [
    "NeighborTable", "RefTree", "SearchChoice", "build_tree", "knn", "query_order", "ties_at_min",
    "pair_distances", "farthest_pair", "knn_brute", "DENSE_MIN_DIMS", "LEAF_SIZE", "REL_TOL", "ABS_TOL",
    "MODE_GOWER", "MODE_L2", "MODE_HAMMING",
]
