"""Game knowledge for the generic MCTS agent (``fox_envs/agents/mcts.py``), by env id.

A knowledge object offers any of three optional hooks (the search uses what exists):

* ``value(state) -> np.ndarray | None``: a returns-like estimate in [-1, 1] per seat, used
  when a rollout is cut off; ``None`` means "cannot tell here", the rollout plays on;
* ``rollout_action(state, player, rng) -> int``: the rollout policy (``rng`` a
  ``random.Random``);
* ``wins_now(state) -> bool | None``: whether the player to move can win at once (within its
  current turn); ``None`` for "not known here" (the search then enumerates).

``SEARCH_DEFAULTS[env_id]`` are the MCTS options ``make_agent("mcts", env_id)`` starts from
(measured in ``docs/evaluation.md``); ``knowledge_for(env_id)`` builds the hooks.
"""
from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from fox_envs.agents.outfox import any_legal_point, can_win_turn, slide_is_safe
from fox_envs.agents.outwit import side_score, wins_next
from fox_envs.games.outfox import (
    COMPLETES, LINES_THROUGH, NUM_PLACE, NUM_POINTS, NUM_TYPES, PAIRS_THROUGH, SLIDE, WINS, legal_points,
    line_through, slides,
)

BLOCK = 99  # marks a just-placed point whose piece type is not chosen yet (as in agents.outfox)


# ----- Outwit ----------------------------------------------------------------------------------
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


# ----- Outfox ----------------------------------------------------------------------------------
def _hand_mask(hand: list[int]) -> int:
    mask = 0
    for t in range(NUM_TYPES):
        if hand[t]:
            mask |= 1 << t
    return mask


def winning_turn(board: list[int], hand_mask: int) -> tuple[int, int, int, int] | None:
    """A turn ``(type, point, from, to)`` ending with a winning line for a seat holding the
    types in ``hand_mask``, or ``None`` (same scan as ``agents.outfox.can_win_turn``)."""
    if not hand_mask:
        return None
    for p in legal_points(board):
        board[p] = BLOCK
        for n, to in slides(board, p):
            piece = board[n]
            board[n] = -1
            board[to] = piece
            found = -1
            for x, y in PAIRS_THROUGH[p]:  # lines through the placed point: a type in hand completes them
                bx, by = board[x], board[y]
                if 0 <= bx < BLOCK and 0 <= by < BLOCK:
                    fits = COMPLETES[bx * 9 + by] & hand_mask
                    if fits:
                        found = (fits & -fits).bit_length() - 1
                        break
            if found < 0:
                for a, b, c in LINES_THROUGH[to]:  # lines through the slid piece, without p
                    x, y, z = board[a], board[b], board[c]
                    if 0 <= x < BLOCK and 0 <= y < BLOCK and 0 <= z < BLOCK and WINS[x * 81 + y * 9 + z]:
                        found = (hand_mask & -hand_mask).bit_length() - 1  # any type in hand
                        break
            board[to] = -1
            board[n] = piece
            if found >= 0:
                board[p] = -1
                return found, p, n, to
        board[p] = -1
    return None


class OutfoxKnowledge:
    """Outfox (2 or 3 seats): whole-turn tests on the board.

    ``wins_now`` (exact): the mover can finish its turn with a winning line, or the next seat
    has no piece left (any turn then wins), or a turn leaves the next seat no legal placement.
    ``rollout_action`` plays turns that win at once when there
    are some, else turns drawn at random until one leaves the next seat no winning turn (at most
    ``tries`` draws), planning the slide with the placement.
    """

    tries = 6

    def __init__(self) -> None:
        self._plan: tuple[int, tuple[int, ...], int] | None = None  # (move number, board, slide)

    def wins_now(self, state: Any) -> bool | None:
        if state.winner >= 0 or state.turns == 0:
            return False
        n = state.game.num_players
        mover = state.to_move
        if not any(state.hands[(mover + 1) % n]):  # the mover can play a turn, and then wins
            return True
        board = state.board[:]
        if state.phase == SLIDE:
            return self._winning_slide(board, state.placed, True) is not None
        if can_win_turn(board, _hand_mask(state.hands[mover])):
            return True
        for p in legal_points(board):  # a turn leaving the next seat no legal placement
            board[p] = BLOCK
            if self._winning_slide(board, p, False) is not None:
                board[p] = -1
                return True
            board[p] = -1
        return False

    @staticmethod
    def _winning_slide(board: list[int], placed: int, lines: bool) -> tuple[int, int] | None:
        """A slide after the placement on ``placed`` that ends the turn with a win: a winning
        line (when ``lines``) or no legal placement left for the next seat."""
        for frm, to in slides(board, placed):
            piece = board[frm]
            board[frm] = -1
            board[to] = piece
            won = (lines and (line_through(board, placed) or line_through(board, to))) or not any_legal_point(board)
            board[to] = -1
            board[frm] = piece
            if won:
                return frm, to
        return None

    def rollout_action(self, state: Any, player: int, rng: random.Random) -> int:
        board = state.board[:]
        if state.phase == SLIDE:
            return self._slide(state, board, player, rng)
        hand = state.hands[player]
        types = [t for t in range(NUM_TYPES) if hand[t]]
        points = legal_points(board)
        if state.turns == 0:
            return types[rng.randrange(len(types))] * NUM_POINTS + points[rng.randrange(len(points))]
        n = state.game.num_players
        next_mask = _hand_mask(state.hands[(player + 1) % n])
        turn = winning_turn(board, _hand_mask(hand))
        if turn is None:
            for attempt in range(self.tries):
                t = types[rng.randrange(len(types))]
                p = points[rng.randrange(len(points))]
                board[p] = t
                moves = slides(board, p)
                if not moves:  # cannot happen for a legal point; keep the rollout going anyway
                    board[p] = -1
                    continue
                frm, to = moves[rng.randrange(len(moves))]
                safe = slide_is_safe(board, frm, to, next_mask)
                board[p] = -1
                turn = (t, p, frm, to)
                if safe:
                    break
            if turn is None:
                t, p = types[rng.randrange(len(types))], points[rng.randrange(len(points))]
                return t * NUM_POINTS + p
        t, p, frm, to = turn
        after = board[:]
        after[p] = t
        self._plan = (state.move_number() + 1, tuple(after), NUM_PLACE + frm * NUM_POINTS + to)
        return t * NUM_POINTS + p

    def _slide(self, state: Any, board: list[int], player: int, rng: random.Random) -> int:
        plan = self._plan
        if plan is not None and plan[0] == state.move_number() and plan[1] == tuple(board):
            self._plan = None
            return plan[2]
        placed = state.placed
        moves = slides(board, placed)
        n = state.game.num_players
        next_mask = _hand_mask(state.hands[(player + 1) % n])
        choice = moves[rng.randrange(len(moves))]
        winning = self._winning_slide(board, placed, True)
        if winning is not None:
            return NUM_PLACE + winning[0] * NUM_POINTS + winning[1]
        for attempt in range(self.tries):
            frm, to = moves[rng.randrange(len(moves))]
            safe = slide_is_safe(board, frm, to, next_mask)
            choice = (frm, to)
            if safe:
                break
        return NUM_PLACE + choice[0] * NUM_POINTS + choice[1]


# ----- registry ----------------------------------------------------------------------------------
KNOWLEDGE = {
    "outwit_v0": OutwitKnowledge,
    "outfox_v0": OutfoxKnowledge,
}

# MCTS options per game for make_agent("mcts", env_id); explicit options override them. Measured
# results and per-move times are in docs/evaluation.md (MCTS section).
SEARCH_DEFAULTS: dict[str, dict[str, Any]] = {
    # random rollouts to the end; take wins, never allow an immediate reply win
    "xceter_o_v0": {"simulations": 200, "c": 1.4, "rollout": "random", "rollout_limit": 200,
                    "decisive": True, "safety": True, "reuse": True},
    # random rollouts never finish: value every new leaf with the race evaluator instead
    "outwit_v0": {"simulations": 500, "c": 0.7, "rollout": "random", "rollout_limit": 0,
                  "evaluator": "game", "decisive": True, "safety": True, "reuse": True},
    # whole-turn rollouts (win if possible, else a turn leaving the next seat no win)
    "outfox_v0": {"simulations": 600, "c": 1.0, "rollout": "game", "rollout_limit": 200,
                  "decisive": True, "safety": True, "reuse": True},
    # chance everywhere, the heuristic is near optimal: heuristic rollouts, and keep the
    # heuristic's move unless the search is 2 standard errors sure of a better one
    "bye_bye_mr_fox_v0": {"simulations": 200, "c": 1.4, "rollout": "heuristic", "rollout_limit": 200,
                          "anchor": 2.0, "reuse": True},
    # hidden information: determinised UCT with random rollouts (no game knowledge yet)
    "outfoxed_v0": {"simulations": 200, "c": 1.4, "rollout": "random", "rollout_limit": 200},
}


def knowledge_for(env_id: str) -> Any:
    """A fresh knowledge object for ``env_id`` (``None`` when the game has none)."""
    factory = KNOWLEDGE.get(env_id)
    return factory() if factory is not None else None


def search_defaults(env_id: str) -> dict[str, Any]:
    """The tuned MCTS options of ``env_id`` (a copy)."""
    return dict(SEARCH_DEFAULTS.get(env_id, {}))
