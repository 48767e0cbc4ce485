"""Per-row random streams for the batched kernels (numba, cached on disk).

Every row owns two 64-bit splitmix64 states: column 0 draws its chance outcomes, column 1 its
random legal picks (``BatchEnv.random_actions``). A row's states depend only on the seed and the
row index, so no row depends on another row or on ``num_envs``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
S30, S27, S31 = np.uint64(30), np.uint64(27), np.uint64(31)
CHANCE_STREAM, PICK_STREAM = 0, 1


@njit(cache=True, inline="always")
def mix64(z: np.uint64) -> np.uint64:
    """The splitmix64 finaliser: a bijective scramble of 64 bits."""
    z = (z ^ (z >> S30)) * MIX1
    z = (z ^ (z >> S27)) * MIX2
    return z ^ (z >> S31)


@njit(cache=True, inline="always")
def next_u64(streams: np.ndarray, row: int, stream: int) -> np.uint64:
    """Advance one stream of ``row`` and return 64 random bits."""
    z = streams[row, stream] + GOLDEN
    streams[row, stream] = z
    return mix64(z)


@njit(cache=True, inline="always")
def below(streams: np.ndarray, row: int, stream: int, n: int) -> int:
    """A uniform integer in ``0..n-1`` (bias below n / 2**64)."""
    return int(next_u64(streams, row, stream) % np.uint64(n))


@njit(cache=True, nogil=True)
def seed_streams(streams: np.ndarray, base: np.ndarray, lo: int, hi: int) -> None:
    """Row ``i``'s streams from the seed's words ``base`` and ``i`` alone."""
    for i in range(lo, hi):
        key = mix64(np.uint64(i) * GOLDEN + np.uint64(1))
        streams[i, 0] = mix64(base[0] ^ key)
        streams[i, 1] = mix64(base[1] ^ mix64(key))


def seed_words(seed: int | None) -> np.ndarray:
    """Two 64-bit words from ``seed`` (fresh entropy when None) through numpy's SeedSequence."""
    return np.random.SeedSequence(seed).generate_state(2, np.uint64)
