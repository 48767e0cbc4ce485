"""Observation element types of the batched core: ``float32`` (the rules core's tensors), ``uint8``
(every plane an exact small integer: binary planes 0/1, the others the count the float plane is a
fraction of, ``Game.compact_observation``) and ``bits`` (``uint8`` packed eight cells per byte
along the flattened row, for games whose planes are all 0/1).

A kernel writes its observation through the helpers here, which compile to the float32 value
or to its integer, as the buffer's element type says; a 0/1 plane is written as it is. (The
overloads are left to LLVM to inline: numba's own IR inlining of them, ``inline="always"``,
wrote the caller's other variables wrongly.)
"""
from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

OBSERVATION_DTYPES = ("float32", "uint8", "bits")


def _is_bytes(out) -> bool:
    return isinstance(out, types.Array) and out.dtype == types.uint8


def plane_ratio(out, numerator, denominator):
    """A plane holding ``numerator / denominator``: the float32 quotient in a float buffer, the
    ``numerator`` (at most 255) in a uint8 one (numba only)."""


@overload(plane_ratio)
def _plane_ratio(out, numerator, denominator):
    if _is_bytes(out):
        return lambda out, numerator, denominator: np.uint8(min(numerator, 255))
    return lambda out, numerator, denominator: np.float32(numerator / denominator)


def plane_capped(out, numerator, denominator):
    """A plane holding ``min(1, numerator / denominator)``: float32 in a float buffer,
    ``min(numerator, denominator, 255)`` in a uint8 one (numba only)."""


@overload(plane_capped)
def _plane_capped(out, numerator, denominator):
    if _is_bytes(out):
        return lambda out, numerator, denominator: np.uint8(min(numerator, denominator, 255))
    return lambda out, numerator, denominator: np.float32(min(1.0, numerator / denominator))


def plane_table(out, count, table):
    """A plane holding the float ``table[count]`` (a count's value as the rules core computes
    it): that float in a float buffer, ``count`` (at most 255) in a uint8 one (numba only)."""


@overload(plane_table)
def _plane_table(out, count, table):
    if _is_bytes(out):
        return lambda out, count, table: np.uint8(min(count, 255))
    return lambda out, count, table: table[count]


def plane_squashed(out, count):
    """A plane holding ``count / (count + 10)``: float32 in a float buffer, ``count`` (at most
    255) in a uint8 one (numba only)."""


@overload(plane_squashed)
def _plane_squashed(out, count):
    if _is_bytes(out):
        return lambda out, count: np.uint8(min(count, 255))
    return lambda out, count: np.float32(count / (count + 10.0))
