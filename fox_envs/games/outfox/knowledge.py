"""Outfox knowledge for the generic MCTS agent (``fox_envs.agents.mcts``): whole-turn win tests
and a rollout policy that takes wins and avoids handing the next seat one."""
from __future__ import annotations

import random
from typing import Any

from fox_envs.games.outfox.heuristic import any_legal_point, can_win_turn, slide_is_safe
from fox_envs.games.outfox.rules import (
    COMPLETES, LINES_THROUGH, NUM_PLACE, NUM_POINTS, NUM_TYPES, PAIRS_THROUGH, SLIDE, WINS, legal_points, line_through, slides,
)

BLOCK = 99  # marks a just-placed point whose piece type is not chosen yet (as in the heuristic)


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
