"""Outwit knowledge for the generic MCTS agent (``fox_envs.agents.mcts``): a leaf value and an
exact "wins next move" test, from the heuristic's race terms."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from fox_envs.games.outwit.heuristic import side_score, wins_next


class OutwitKnowledge:
    """Outwit: the heuristic's race score as a leaf value, and its exact "wins next move"
    test (eight chips home and a free slide into the corner)."""

    scale = 150.0  # race-score difference giving tanh(1) ~ 0.76 (a home chip is worth 100)
    tempo = 20.0  # the side to move is a little ahead in a race

    def value(self, state: Any) -> np.ndarray:
        board = state.board
        mover = state.to_move
        if wins_next(board, state.squares[mover], mover, state.home[mover]):
            v0 = 0.95 if mover == 0 else -0.95
        else:
            diff = side_score(board, state.squares[0], 0) - side_score(board, state.squares[1], 1)
            diff += self.tempo if mover == 0 else -self.tempo
            v0 = math.tanh(diff / self.scale)
        return np.array((v0, -v0))

    def wins_now(self, state: Any) -> bool:
        mover = state.current_player()
        if mover < 0:
            return False
        return wins_next(state.board, state.squares[mover], mover, state.home[mover])
