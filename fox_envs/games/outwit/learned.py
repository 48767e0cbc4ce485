"""Learned Outwit agent: the heuristic's move ordering, the value network's choice.

1. A lone ``pass`` is played; a move bringing the ninth chip home wins at once.
2. The heuristic (``OutwitHeuristic.scored_moves``) scores every legal move; the candidates are
   the moves scoring within ``margin`` of its best (so moves letting the opponent win at once,
   and repeated positions, stay out whenever the heuristic avoids them).
3. Each candidate is rated by the network's value of the position after it, from the side of
   the player who then moves, negated; the best rated is played, ties broken with the seeded
   ``rng``.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from fox_envs.agents.base import SeededAgent
from fox_envs.agents.learned import value_net
from fox_envs.games.outwit.heuristic import OutwitHeuristic
from fox_envs.games.outwit.features import NUM_FEATURES, position_features
from fox_envs.games.outwit.rules import NUM_SQUARES, OutwitState

DEFAULT_MARGIN = 15.0  # a little more than the heuristic's bonus for one free lane


class OutwitLearned(SeededAgent):
    name = "learned"

    def __init__(self, net, seed: int | None = None, margin: float = DEFAULT_MARGIN) -> None:
        super().__init__(seed)
        self.net = net
        self.margin = float(margin)

    def candidates(self, state: OutwitState, player: int) -> list[int]:
        """The moves the network chooses among (rule 2; a single forced or winning move alone)."""
        moves, scores = OutwitHeuristic.scored_moves(state, player)
        if not scores:
            return moves
        best = max(scores)
        return [m for m, s in zip(moves, scores) if s >= best - self.margin]

    def move_values(self, state: OutwitState, player: int, moves: list[int]) -> np.ndarray:
        """Each move's value for ``player``: the network's value of the position after it for
        the opponent, negated."""
        board = state.board[:]
        squares = [state.squares[0][:], state.squares[1][:]]
        own = squares[player]
        x = np.zeros((len(moves), NUM_FEATURES), np.float32)
        for k, action in enumerate(moves):
            origin, target = divmod(action, NUM_SQUARES)
            index = own.index(origin)
            board[target], board[origin] = board[origin], 0
            own[index] = target
            x[k] = position_features(board, squares, 1 - player)
            board[origin], board[target] = board[target], 0
            own[index] = origin
        return -self.net.value(x)

    def act(self, state: OutwitState, player: int) -> int:  # type: ignore[override]
        moves = self.candidates(state, player)
        if len(moves) == 1:
            return moves[0]
        values = self.move_values(state, player, moves)
        best = np.flatnonzero(values >= values.max() - 1e-9)
        return moves[int(best[self.rng.integers(len(best))])] if len(best) > 1 else moves[int(best[0])]


def make_learned(env_id: str | None = None, seed: int | None = None, arrays: Mapping[str, Any] | None = None,
                 **options: Any) -> OutwitLearned:
    """The agent name ``learned``: ``OutwitLearned`` with the packaged network (or ``arrays``)."""
    return OutwitLearned(value_net(env_id, arrays), seed=seed, **options)
