"""Features of two-player Outfox positions for the learned value network (numpy only).

A position is described from the side of the player to move ("mover") at the start of a turn:

* the piece type on every point (19 x 9 one-hot) and the empty points (19);
* the mover's and the other player's unplaced types (9 + 9);
* for every empty point and type, whether that type there completes a winning window with two
  pieces already on the board (19 x 9), and the same restricted to the types each side holds,
  counted (2);
* the legal placement points (19) and their count / 19; the pieces on the board / 18.

``features(boards, mover_hands, other_hands)`` works on whole arrays of positions at once
(``boards`` int ``[N, 19]`` with -1 for empty, hands 0/1 ``[N, 9]``), so an agent rates every
turn it may play with one call, and training reads the batched core's observations
(``positions_from_observations``).
"""
from __future__ import annotations

import numpy as np

from fox_envs.games.outfox.rules import COMPLETES, COORDS, NEIGHBOURS, NUM_POINTS, NUM_TYPES, PAIRS_THROUGH

GRID_CELLS = np.array([(r + 2) * 5 + (q + 2) for q, r in COORDS])  # point -> cell of the 5x5 grid
ADJACENT = np.zeros((NUM_POINTS, NUM_POINTS), np.float32)
for _p, _ns in enumerate(NEIGHBOURS):
    ADJACENT[_p, list(_ns)] = 1.0
_PAIR_POINT = np.array([p for p in range(NUM_POINTS) for _ in PAIRS_THROUGH[p]])
_PAIR_A = np.array([a for p in range(NUM_POINTS) for a, _ in PAIRS_THROUGH[p]])
_PAIR_B = np.array([b for p in range(NUM_POINTS) for _, b in PAIRS_THROUGH[p]])
_POINT_OF_PAIR = np.zeros((NUM_POINTS, len(_PAIR_POINT)), np.float32)  # [p, k]: pair k is a window through p
_POINT_OF_PAIR[_PAIR_POINT, np.arange(len(_PAIR_POINT))] = 1.0
_COMPLETES_BITS = np.array([[(mask >> t) & 1 for t in range(NUM_TYPES)] for mask in COMPLETES], np.float32)
NUM_FEATURES = 171 + 19 + 9 + 9 + 171 + 2 + 19 + 1 + 1


def completion_bits(boards: np.ndarray) -> np.ndarray:
    """``[N, 19, 9]``: 1 where the point is empty and that type there would complete a winning
    window with the two other points of some window through it."""
    a, b = boards[:, _PAIR_A], boards[:, _PAIR_B]
    both = (a >= 0) & (b >= 0)
    rows = np.where(both, np.maximum(a, 0) * NUM_TYPES + np.maximum(b, 0), 0)
    bits = _COMPLETES_BITS[rows] * both[:, :, None]  # [N, pairs, 9]
    hits = np.matmul(_POINT_OF_PAIR, bits)  # [N, 19, 9]: windows through the point that the type completes
    return (hits > 0).astype(np.float32) * (boards < 0)[:, :, None]


def legal_point_mask(boards: np.ndarray) -> np.ndarray:
    """``[N, 19]``: the legal placement points (an empty point next to a piece with another
    empty neighbour; every point of an empty board)."""
    empty = (boards < 0).astype(np.float32)
    free = empty @ ADJACENT  # empty neighbours of each point
    mobile = (1.0 - empty) * (free >= 2)
    legal = empty * ((mobile @ ADJACENT) > 0)
    bare = empty.sum(axis=1) == NUM_POINTS
    legal[bare] = 1.0
    return legal


def features(boards: np.ndarray, mover_hands: np.ndarray, other_hands: np.ndarray) -> np.ndarray:
    """float32 ``[N, NUM_FEATURES]`` (layout in the module doc)."""
    boards = np.asarray(boards, np.int64)
    n = boards.shape[0]
    onehot = np.zeros((n, NUM_POINTS, NUM_TYPES), np.float32)
    rows, points = np.nonzero(boards >= 0)
    onehot[rows, points, boards[rows, points]] = 1.0
    empty = (boards < 0).astype(np.float32)
    mover = np.asarray(mover_hands, np.float32)
    other = np.asarray(other_hands, np.float32)
    complete = completion_bits(boards)
    mover_threats = (complete * mover[:, None, :]).max(axis=2).sum(axis=1, keepdims=True)
    other_threats = (complete * other[:, None, :]).max(axis=2).sum(axis=1, keepdims=True)
    legal = legal_point_mask(boards)
    return np.concatenate([
        onehot.reshape(n, -1), empty, mover, other, complete.reshape(n, -1),
        mover_threats / 4.0, other_threats / 4.0, legal, legal.sum(axis=1, keepdims=True) / NUM_POINTS,
        (1.0 - empty).sum(axis=1, keepdims=True) / 18.0,
    ], axis=1)


def positions_from_observations(obs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(boards, mover_hands, other_hands)`` read from two-player observation tensors
    ``[N, 5, 5, 40]`` (planes 0-8 the pieces, 17-25 the observer's hand, 26-34 the other's)."""
    cells = obs.reshape(obs.shape[0], 25, obs.shape[-1])[:, GRID_CELLS]  # [N, 19, planes]
    pieces = cells[:, :, :NUM_TYPES]
    boards = np.where(pieces.max(axis=2) > 0, pieces.argmax(axis=2), -1)
    return boards, cells[:, 0, 17:26], cells[:, 0, 26:35]
