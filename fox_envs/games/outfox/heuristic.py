"""Outfox heuristic: plan whole turns (placement + slide).

1. Take a turn that wins now: it ends with a winning line, or leaves the next player without a
   legal turn.
2. Otherwise avoid turns after which the next player has a winning turn (checked exactly: every
   placement of every type the next player holds, with every slide).
3. Among the safe turns prefer the ones that keep the most options: the most legal placement
   points afterwards. Ties among the actions rated best are broken uniformly with the seeded
   ``rng`` (``best_actions`` lists them).

The slide decision re-plans the rest of the turn with the same rules, so no memory is needed.
"""
from __future__ import annotations

from fox_envs.agents.base import HeuristicAgent
from fox_envs.games.outfox.rules import (
    COMPLETES, LINES_THROUGH, NEIGHBOURS, NUM_PLACE, NUM_POINTS, NUM_TYPES, PAIRS_THROUGH, SLIDE, WINS,
    OutfoxState, legal_points, line_through, slides,
)

BLOCK = 99  # marks the point of a hypothetical placement whose type does not matter
MAX_SAFETY_CHECKS = 400  # bound on exact opponent-win checks per decision (keeps a decision fast)


def any_legal_point(board: list[int]) -> bool:
    """Whether some placement is legal: a piece with two empty neighbours exists (either of them
    is then a legal point)."""
    for i in range(NUM_POINTS):
        if board[i] >= 0:
            free = 0
            for j in NEIGHBOURS[i]:
                if board[j] < 0:
                    free += 1
                    if free == 2:
                        return True
    return False


def slide_is_safe(board: list[int], frm: int, to: int, hand_mask: int) -> bool:
    """Whether, after sliding the piece on ``frm`` to ``to``, a seat holding ``hand_mask`` has no
    winning turn. ``board`` is restored."""
    if not hand_mask:
        return True
    piece = board[frm]
    board[frm] = -1
    board[to] = piece
    safe = not can_win_turn(board, hand_mask)
    board[to] = -1
    board[frm] = piece
    return safe


def can_win_turn(board: list[int], hand_mask: int) -> bool:
    """Whether a seat holding the piece types in ``hand_mask`` (bit t = type t) has a turn that
    ends with a winning line on ``board`` (which holds no line now). ``board`` is restored."""
    if not hand_mask:
        return False
    for p in legal_points(board):
        board[p] = BLOCK
        pairs = PAIRS_THROUGH[p]
        for n, to in slides(board, p):
            piece = board[n]
            board[n] = -1
            board[to] = piece
            won = False
            for x, y in pairs:  # lines through the placed piece: some type in hand completes them
                bx, by = board[x], board[y]
                if 0 <= bx < BLOCK and 0 <= by < BLOCK and COMPLETES[bx * 9 + by] & hand_mask:
                    won = True
                    break
            if not won:
                for a, b, c in LINES_THROUGH[to]:  # lines through the slid piece, without p
                    x, y, z = board[a], board[b], board[c]
                    if 0 <= x < BLOCK and 0 <= y < BLOCK and 0 <= z < BLOCK and WINS[x * 81 + y * 9 + z]:
                        won = True
                        break
            board[to] = -1
            board[n] = piece
            if won:
                board[p] = -1
                return True
        board[p] = -1
    return False


class OutfoxHeuristic(HeuristicAgent):
    def best_actions(self, state: OutfoxState, player: int) -> list[int]:
        """The actions this heuristic rates best (sorted; ``act`` picks one uniformly):

        * on the placement-only first turn, every legal action;
        * else the first decision of every turn that wins now, if there is one;
        * else the first decision of every safe turn that keeps the most legal placement points
          afterwards. Turns are taken in groups of equal options, most options first; a group
          is checked only while fewer than ``MAX_SAFETY_CHECKS`` turns come before it;
        * when no checked turn is safe, the first decision of every turn with the most options.
        """
        if state.turns == 0:  # the placement-only first turn: no line is possible yet
            return state.legal_actions()
        board = state.board[:]
        nxt = (player + 1) % state.game.num_players
        next_hand = state.hands[nxt]
        turns = self._turns(state, board, player)
        winning = set()
        by_options: dict[int, list[tuple[int, int, int, int]]] = {}
        options_after: dict[tuple[int, int, int], int] = {}  # legal points after a move: occupancy only
        next_has_pieces = any(next_hand)
        for turn in turns:
            t, p, f, to = turn
            if t >= 0:
                board[p] = t
            piece = board[f]
            board[f] = -1
            board[to] = piece
            options = options_after.get((p, f, to))
            if options is None:
                options = options_after[p, f, to] = len(legal_points(board))
            if line_through(board, p) or line_through(board, to) or not next_has_pieces or not options:
                winning.add(self._action(state, turn))
            elif not winning:
                by_options.setdefault(options, []).append(turn)
            board[to] = -1
            board[f] = piece
            if t >= 0:
                board[p] = -1
        if winning:
            return sorted(winning)
        mask = sum(1 << t for t in range(NUM_TYPES) if next_hand[t])
        groups = [by_options[options] for options in sorted(by_options, reverse=True)]
        before = 0
        for group in groups:
            if before >= MAX_SAFETY_CHECKS:
                break
            safe: set[int] = set()
            for turn in group:
                action = self._action(state, turn)
                if action not in safe and self._turn_is_safe(board, turn, mask):
                    safe.add(action)
            if safe:
                return sorted(safe)
            before += len(group)
        return sorted({self._action(state, turn) for turn in groups[0]})

    @staticmethod
    def _turns(state: OutfoxState, board: list[int], player: int) -> list[tuple[int, int, int, int]]:
        """Every (type placed or -1, point placed, slide from, slide to) that completes the turn."""
        if state.phase == SLIDE:
            return [(-1, state.placed, f, t) for f, t in slides(board, state.placed)]
        hand = state.hands[player]
        turns = []
        for p in legal_points(board):
            board[p] = BLOCK
            moves = slides(board, p)
            board[p] = -1
            for t in range(NUM_TYPES):
                if hand[t]:
                    turns.extend((t, p, f, to) for f, to in moves)
        return turns

    @staticmethod
    def _turn_is_safe(board: list[int], turn: tuple[int, int, int, int], hand_mask: int) -> bool:
        """Whether the next seat (holding ``hand_mask``) has no winning turn after ``turn``."""
        t, p, f, to = turn
        if t >= 0:
            board[p] = t
        safe = slide_is_safe(board, f, to, hand_mask)
        if t >= 0:
            board[p] = -1
        return safe

    @staticmethod
    def _action(state: OutfoxState, turn: tuple[int, int, int, int]) -> int:
        t, p, f, to = turn
        if state.phase == SLIDE:
            return NUM_PLACE + f * NUM_POINTS + to
        return t * NUM_POINTS + p
