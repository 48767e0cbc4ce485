"""Helpers shared by the batched heuristics (numba, cached on disk): a read-only look into a
row's repetition table and the uniform choice among tied best moves from the row's pick stream."""
from __future__ import annotations

import numpy as np
from numba import njit

from fox_envs.batch._rng import PICK_STREAM, below, mix64
from fox_envs.batch._rows import COUNT_BITS, EMPTY_KEY, GEN_MASK, GEN_SHIFT, TAG_BITS, table_slot


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
