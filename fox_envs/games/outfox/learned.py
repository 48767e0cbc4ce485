"""Learned Outfox agent (two players): the value network rates every whole turn.

1. Take a turn that wins now (a winning line, or the next player left without a legal turn),
   ties broken with the seeded ``rng``.
2. Otherwise rate every turn (placement + slide) by the network's value of the position after
   it, from the side of the player who then moves, negated; go through the turns best first and
   play the first one after which the next player has no winning turn (the heuristic's exact
   check). When none is safe, play the best rated.

The slide decision re-plans the rest of the turn the same way, so no memory is needed. The first
turn (a placement only) is rated the same way.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from fox_envs.agents.base import SeededAgent
from fox_envs.agents.learned import value_net
from fox_envs.games.outfox.heuristic import OutfoxHeuristic
from fox_envs.games.outfox.features import features, legal_point_mask
from fox_envs.core.errors import InvalidStateError
from fox_envs.games.outfox.rules import LINES, NUM_TYPES, WINS, OutfoxState

_LINES = np.array(LINES)
_WINS = np.array(WINS, np.bool_)


def turns_after(state: OutfoxState, player: int) -> tuple[list[tuple[int, int, int, int]], np.ndarray]:
    """Every turn ``(type or -1, point, from, to)`` that completes the current turn, and the
    boards after them ``[N, 19]`` (the first turn: placements only, ``from = to = -1``)."""
    board = state.board[:]
    if state.turns == 0:
        hand = state.hands[player]
        turns = [(t, p, -1, -1) for p in range(len(board)) for t in range(NUM_TYPES) if hand[t]]
    else:
        turns = OutfoxHeuristic._turns(state, board, player)
    moves = np.array(turns, np.int64).reshape(-1, 4)
    boards = np.tile(np.array(board, np.int64), (len(turns), 1))
    rows = np.arange(len(turns))
    placing = moves[:, 0] >= 0
    boards[rows[placing], moves[placing, 1]] = moves[placing, 0]
    sliding = moves[:, 2] >= 0
    pieces = boards[rows[sliding], moves[sliding, 2]]
    boards[rows[sliding], moves[sliding, 2]] = -1
    boards[rows[sliding], moves[sliding, 3]] = pieces
    return turns, boards


def has_line(boards: np.ndarray) -> np.ndarray:
    """``[N]``: whether each board holds a winning window."""
    values = boards[:, _LINES]  # [N, 27, 3]
    full = (values >= 0).all(axis=2)
    codes = np.maximum(values, 0) @ np.array([81, 9, 1])
    return (full & _WINS[codes]).any(axis=1)


class OutfoxLearned(SeededAgent):
    name = "learned"

    def __init__(self, net, seed: int | None = None) -> None:
        super().__init__(seed)
        self.net = net

    def turn_values(self, state: OutfoxState, player: int):
        """``(turns, boards, values)``: every turn, the board after it and its value for ``player``
        (the network's value for the next player, negated)."""
        turns, boards = turns_after(state, player)
        other = 1 - player
        mine = np.tile(np.array(state.hands[player], np.float32), (len(turns), 1))
        placed = np.array([t for t, _, _, _ in turns])
        rows = np.flatnonzero(placed >= 0)
        mine[rows, placed[rows]] -= 1.0
        theirs = np.tile(np.array(state.hands[other], np.float32), (len(turns), 1))
        return turns, boards, -self.net.value(features(boards, theirs, mine))

    def act(self, state: OutfoxState, player: int) -> int:  # type: ignore[override]
        if state.game.num_players != 2:
            raise InvalidStateError("the learned Outfox agent plays the two-player game only")
        turns, boards, values = self.turn_values(state, player)
        if state.turns > 0:
            next_hand = state.hands[1 - player]
            if not any(next_hand):
                winning = np.ones(len(turns), np.bool_)
            else:
                winning = has_line(boards) | (legal_point_mask(boards).sum(axis=1) == 0)
            if winning.any():
                return self.choose(sorted({_action(state, turns[i]) for i in np.flatnonzero(winning)}))
        values = values + self.rng.random(len(values)) * 1e-6  # seeded tie-break
        order = np.argsort(-values, kind="stable")
        if state.turns > 0:
            mask = sum(1 << t for t in range(NUM_TYPES) if state.hands[1 - player][t])
            board = state.board[:]
            for i in order:
                if OutfoxHeuristic._turn_is_safe(board, turns[i], mask):
                    return _action(state, turns[i])
        return _action(state, turns[order[0]])


def _action(state: OutfoxState, turn: tuple[int, int, int, int]) -> int:
    if state.turns == 0:
        return turn[0] * len(state.board) + turn[1]
    return OutfoxHeuristic._action(state, turn)


def make_learned(env_id: str | None = None, seed: int | None = None, arrays: Mapping[str, Any] | None = None,
                 **options: Any) -> OutfoxLearned:
    """The agent name ``learned``: ``OutfoxLearned`` with the packaged network (or ``arrays``)."""
    return OutfoxLearned(value_net(env_id, arrays), seed=seed, **options)
