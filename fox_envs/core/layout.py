"""Observation layouts: the one transform behind every env's ``observation_layout`` parameter.

The rules core writes an observation in ``Game.observation_shape``: ``(H, W, C)`` for a game on a
grid of squares or points, 1-D for the others. An env hands it out in
one of three layouts:

* ``"hwc"`` (the default): the core's shape, the core's array itself (no copy);
* ``"chw"``: channels first, ``(C, H, W)``, a contiguous copy (the order of torch's ``Conv2d``);
* ``"flat"``: 1-D, ``(H * W * C,)``, the hwc array read in C order (a view, no copy).

``chw`` changes only observations with three axes; ``flat`` of a 1-D observation is the
observation itself. The same layout applies to the observation space, to batches (any number
of leading axes) and to the buffers a vector env fills (``core_view``).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.params import short_repr

LAYOUTS = ("hwc", "chw", "flat")


class ObservationLayout:
    """How observations of the core's ``core_shape`` are handed out (``name`` in ``LAYOUTS``).

    ``shape`` is one observation's shape in this layout; ``changes`` says whether it differs
    from the core's array at all (``hwc``, and any layout of a 1-D observation, hand the core's
    array out as it is); ``channels_first`` whether the channel axis moves."""

    def __init__(self, name: str, core_shape: tuple[int, ...]) -> None:
        self.name = name
        self.core_shape = tuple(core_shape)
        self.channels_first = name == "chw" and len(self.core_shape) == 3
        self.changes = self.channels_first or (name == "flat" and len(self.core_shape) != 1)
        if self.channels_first:
            height, width, channels = self.core_shape
            self.shape: tuple[int, ...] = (channels, height, width)
        elif name == "flat":
            self.shape = (int(np.prod(self.core_shape)),)
        else:
            self.shape = self.core_shape

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ObservationLayout) and (other.name, other.core_shape) == (self.name, self.core_shape)

    def __hash__(self) -> int:
        return hash((self.name, self.core_shape))

    def __repr__(self) -> str:
        return f"ObservationLayout({self.name!r}, {self.core_shape})"

    def apply(self, observation: np.ndarray) -> np.ndarray:
        """``observation`` (core shape, after any leading batch axes) in this layout."""
        if not self.changes:
            return observation
        lead = observation.shape[:observation.ndim - len(self.core_shape)]
        if self.channels_first:
            return np.ascontiguousarray(np.moveaxis(observation, -1, -3))
        return observation.reshape(*lead, *self.shape)

    def core_view(self, out: np.ndarray) -> np.ndarray:
        """A view of ``out`` (observations in this layout, after any leading axes) with the core's
        shape: writing core observations into it fills ``out`` in this layout, with no copy."""
        if not self.changes:
            return out
        if self.channels_first:
            return np.moveaxis(out, -3, -1)
        lead = out.shape[:out.ndim - len(self.shape)]
        return np.reshape(out, (*lead, *self.core_shape), copy=False)

    def space(self, core_space: spaces.Box) -> spaces.Box:
        """``core_space`` (a Box of the core's shape) in this layout (bounds moved alike)."""
        if not self.changes:
            return core_space
        return spaces.Box(self.apply(core_space.low), self.apply(core_space.high), dtype=core_space.dtype)


def make_layout(name: Any, core_shape: tuple[int, ...], where: str = "") -> ObservationLayout:
    """The layout called ``name`` for observations of ``core_shape``; any other value raises
    ``InvalidParameterError`` naming the allowed ones."""
    if not isinstance(name, str) or name not in LAYOUTS:
        raise InvalidParameterError(
            f"{where}bad observation_layout {short_repr(name)}; allowed: {', '.join(repr(n) for n in LAYOUTS)}")
    return ObservationLayout(name, tuple(core_shape))


VIEW_DTYPES = ("float32", "uint8")  # the observation element types of the Gymnasium views


def observation_box(shape: tuple[int, ...], game: Any = None, dtype: str = "float32") -> spaces.Box:
    """The space of a core observation (or state) tensor: float32 in [0, 1]; with ``dtype``
    ``"uint8"``, the integers of ``game.compact_observation``: 0 up to each plane's scale (at most 255)."""
    if dtype == "float32":
        return spaces.Box(0.0, 1.0, shape, dtype=np.float32)
    high = np.broadcast_to(game.compact_high(shape[-1]), shape)
    return spaces.Box(0, high, shape, dtype=np.uint8)


def checked_view_dtype(value: Any, where: str) -> str:
    """``value`` if it is one of ``VIEW_DTYPES``, else ``InvalidParameterError`` listing them."""
    if not isinstance(value, str) or value not in VIEW_DTYPES:
        raise InvalidParameterError(
            f"{where}bad observation_dtype {short_repr(value)}; allowed: {', '.join(map(repr, VIEW_DTYPES))}")
    return value


def masked_observation_space(observation_space: spaces.Box, num_actions: int) -> spaces.Dict:
    """The space of an observation that carries its legal-action mask (``mask_in_observation``):
    ``Dict({"observation": observation_space, "action_mask": MultiBinary(num_actions)})``."""
    return spaces.Dict({"observation": observation_space, "action_mask": spaces.MultiBinary(num_actions)})
