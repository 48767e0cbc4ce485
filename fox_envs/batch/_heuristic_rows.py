"""Helpers shared by the batched heuristics (numba, cached on disk): a read-only look into a
row's repetition table, the agents' way of collecting the best-scoring moves, and the uniform
choice among tied best moves from the row's pick stream."""
from __future__ import annotations

import numpy as np
from numba import njit

from fox_envs.batch._rng import PICK_STREAM, below, mix64
from fox_envs.batch._rows import COUNT_BITS, EMPTY_KEY, GEN_MASK, GEN_SHIFT, TAG_BITS, table_slot

TOLERANCE = 1e-9  # scores this close tie, as the Python heuristics compare them


@njit(cache=True, inline="always")
def seen_count(rep_keys: np.ndarray, rep_counts: np.ndarray, i: int, key: np.uint64) -> int:
    """How often position ``key`` has occurred in row ``i``'s current game (counted up to 3),
    as ``_rows.count_position`` would find it, without recording anything."""
    live = (mix64(key) & TAG_BITS) | (np.uint64(rep_counts[i, 0]) << GEN_SHIFT)
    size = rep_keys.shape[1]
    slot = table_slot(rep_keys, key)
    while True:
        here = rep_keys[i, slot]
        if here & ~COUNT_BITS == live:
            return int(here & COUNT_BITS)
        if here == EMPTY_KEY or (here >> GEN_SHIFT) & GEN_MASK != np.uint64(rep_counts[i, 0]):
            return 0
        slot = (slot + 1) & (size - 1)


@njit(cache=True, inline="always")
def pick_tied(streams: np.ndarray, i: int, best: np.ndarray, n: int) -> int:
    """One of the ``n`` tied actions ``best[:n]``, uniformly from row ``i``'s pick stream (no
    draw when there is only one)."""
    if n == 1:
        return best[0]
    return best[below(streams, i, PICK_STREAM, n)]


@njit(cache=True, inline="always")
def keep_best(best: np.ndarray, n: int, best_score: float, action: int, score: float):
    """Moves scored one after another, as the Python heuristics collect them: ``action`` starts
    a new best list when it beats ``best_score`` by more than ``TOLERANCE``, joins it when within
    ``TOLERANCE`` (``n`` moves in ``best`` so far). Returns the new ``(n, best_score)``."""
    if n == 0 or score > best_score + TOLERANCE:
        best[0] = action
        return 1, score
    if abs(score - best_score) <= TOLERANCE:
        best[n] = action
        return n + 1, best_score
    return n, best_score
