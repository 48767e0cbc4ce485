"""Extra input planes for learners on Outfox (numpy and gymnasium only): where each piece type would complete
a winning line.

``completion_planes(board)`` has shape (5, 5, 10) in the observation's grid layout
(``obs[r + 2, q + 2]``, docs/rules/outfox.md): plane t is 1 on an empty point p when a piece of
type t on p would make a winning line with the two other points of some window of three through
p, and plane 9 marks the pieces of a line already on the board. A winning turn places or slides a piece onto such a point, so this turns the combinatorial
"which pair of pieces does which type complete" into one lookup per window, the kind of input
feature (like liberties in Go) that lets a small network see immediate wins and threats.
``LinePlanes`` appends them to the Gymnasium view's observation; ``with_completion_planes`` does
the same for a rules-core state (for evaluating the trained policy as an agent).
"""
from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from fox_envs.games.outfox.rules import COMPLETES, COORDS, NUM_POINTS, NUM_TYPES, PAIRS_THROUGH, winning_lines

GRID_CELLS = tuple((r + 2, q + 2) for q, r in COORDS)
_BITS = tuple(tuple(t for t in range(NUM_TYPES) if mask >> t & 1) for mask in range(1 << NUM_TYPES))


NUM_FEATURE_PLANES = NUM_TYPES + 1


def completion_planes(board: list[int]) -> np.ndarray:
    """Plane t (0..8) on empty point p is 1 when type t on p would complete a winning window;
    plane 9 marks the pieces of a winning window already on the board (between the placement
    and the slide: sliding one of them away breaks that line)."""
    planes = np.zeros((5, 5, NUM_FEATURE_PLANES), dtype=np.float32)
    for line in winning_lines(board):
        for p in line:
            planes[GRID_CELLS[p] + (NUM_TYPES,)] = 1.0
    for p in range(NUM_POINTS):
        if board[p] >= 0:
            continue
        bits = 0
        for a, b in PAIRS_THROUGH[p]:
            x, y = board[a], board[b]
            if x >= 0 and y >= 0:
                bits |= COMPLETES[x * NUM_TYPES + y]
        if bits:
            row, column = GRID_CELLS[p]
            planes[row, column, list(_BITS[bits])] = 1.0
    return planes


def with_completion_planes(state, player: int) -> np.ndarray:
    """The player's observation tensor with the 10 feature planes appended."""
    return np.concatenate([state.observation_tensor(player), completion_planes(state.board)], axis=2)


class LinePlanes(gymnasium.ObservationWrapper):
    """Appends ``completion_planes`` to the Outfox Gymnasium view's observation."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        rows, columns, planes = env.observation_space.shape
        self.observation_space = spaces.Box(0.0, 1.0, (rows, columns, planes + NUM_FEATURE_PLANES), dtype=np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        return np.concatenate([observation, completion_planes(self.env.unwrapped.state.board)], axis=2)
