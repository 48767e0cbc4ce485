"""Outwit heuristic: a one-ply search with a race evaluation.

It wins at once when it can, never plays a move after which the opponent can win at once (when
another move avoids it), and otherwise picks the move whose resulting position scores best:

* chips home count most, and home chips score more the deeper they sit in the corner (so the
  corner fills from its far end and the entrance squares stay free for the last chips);
* a chip outside that can slide into the corner with its next move (a free lane) scores a bonus;
* chips outside lose a little per square of distance to the corner;
* the opponent's position scores the same way and is subtracted at a lower weight, so a move
  that shuts one of its lanes is preferred among equals;
* a move back into an already seen position is penalised, more so a third occurrence (a
  draw), and so is a move that recreates an arrangement of its own chips it already had after
  one of its earlier moves, whatever the opponent did: a blocked chip then tries another way
  instead of the corner chips shuffling back and forth.
Ties are broken with the seeded ``rng``.
"""
from __future__ import annotations

from fox_envs.agents.base import HeuristicAgent, best_scoring
from fox_envs.games.outwit.rules import (
    ALL_RAYS, IN_CORNER, LIGHT_TO_MOVE, MOVER_KEY, NUM_COLUMNS, NUM_SQUARES, ORTHOGONAL_RAYS, OWN_CHIPS, PASS,
    OutwitState, generate_moves, moved_code,
)

HOME = 100.0
DEPTH = 2.0
LANE = 12.0
LANE2 = 5.0
DISTANCE = 3.0
OPPONENT_WEIGHT = 0.5
REPEAT = 150.0
OWN_REPEAT = 30.0
LOSS = -100000.0
WIN = 100000.0


def _distances(player: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per square: Manhattan distance to ``player``'s corner, and the depth inside it (0 at the
    entrance square diagonally nearest the centre, 4 at the board corner)."""
    distance, depth = [], []
    for square in range(NUM_SQUARES):
        row, column = divmod(square, NUM_COLUMNS)
        if player == 0:  # corner rows 6..8, columns 0..2
            distance.append(max(0, 6 - row) + max(0, column - 2))
            depth.append((row - 6) + (2 - column) if IN_CORNER[0][square] else 0)
        else:  # corner rows 0..2, columns 7..9
            distance.append(max(0, row - 2) + max(0, 7 - column))
            depth.append((2 - row) + (column - 7) if IN_CORNER[1][square] else 0)
    return tuple(distance), tuple(depth)


DISTANCE_TABLE, DEPTH_TABLE = zip(*(_distances(p) for p in (0, 1)))


def slide_end(board: bytearray, ray) -> int:
    """Where a regular chip sliding along ``ray`` stops (it goes as far as it can), -1 if the
    first square is blocked."""
    last = -1
    for target in ray:
        if board[target]:
            break
        last = target
    return last


def can_enter(board: bytearray, square: int, player: int, power: bool) -> bool:
    """Whether the chip of ``player`` on ``square`` (outside its corner) can slide into its
    corner with one move on ``board``."""
    corner = IN_CORNER[player]
    if power:
        for ray in ALL_RAYS[player][square]:
            for target in ray:
                if board[target]:
                    break
                if corner[target]:
                    return True
        return False
    for ray in ORTHOGONAL_RAYS[player][square]:
        last = slide_end(board, ray)
        if last >= 0 and corner[last]:
            return True
    return False


def enters_in_two(board: bytearray, square: int, player: int) -> bool:
    """Whether the regular chip of ``player`` on ``square`` can slide into its corner with two
    moves on ``board`` (the other chips standing still)."""
    board[square], code = 0, board[square]
    try:
        for ray in ORTHOGONAL_RAYS[player][square]:
            last = slide_end(board, ray)
            if last >= 0 and can_enter(board, last, player, False):
                return True
        return False
    finally:
        board[square] = code


def side_score(board: bytearray, squares: list[int], player: int) -> float:
    """Race value of ``player``'s chips on ``board`` (higher is better for ``player``)."""
    corner = IN_CORNER[player]
    distance, depth = DISTANCE_TABLE[player], DEPTH_TABLE[player]
    score = 0.0
    for index, square in enumerate(squares):
        if corner[square]:
            score += HOME + DEPTH * depth[square]
        else:
            score -= DISTANCE * distance[square]
            if can_enter(board, square, player, index == 0):
                score += LANE
            elif index and enters_in_two(board, square, player):
                score += LANE2
    return score


def wins_next(board: bytearray, squares: list[int], player: int, home: int) -> bool:
    """Whether ``player`` (with ``home`` chips home) can complete its corner with one move."""
    if home < 8:
        return False
    corner = IN_CORNER[player]
    for action in generate_moves(board, squares, player):
        origin, target = divmod(action, NUM_SQUARES)
        if corner[target] and not corner[origin]:
            return True
    return False


class OutwitHeuristic(HeuristicAgent):
    def best_actions(self, state: OutwitState, player: int) -> list[int]:
        """The moves ``act`` chooses among: a lone pass, the first move bringing the ninth chip
        home, else every best-scoring move (scores within 1e-9 tie)."""
        moves, scores = self.scored_moves(state, player)
        if len(moves) == 1 and not scores:
            return moves
        return best_scoring(moves, dict(zip(moves, scores)).__getitem__)

    @staticmethod
    def scored_moves(state: OutwitState, player: int) -> tuple[list[int], list[float]]:
        """``(moves, scores)``: every legal move with this heuristic's score (``LOSS`` when the
        opponent can then win with one move); ``([action], [])`` for a lone pass or the first
        move bringing the ninth chip home (played at once)."""
        legal = state.legal_actions()
        if legal == [PASS]:
            return [PASS], []
        board = state.board[:]
        own = state.squares[player][:]
        theirs = state.squares[1 - player]
        corner = IN_CORNER[player]
        home = state.home[player]
        opponent_home = state.home[1 - player]
        own_chips = OWN_CHIPS[player]
        mover_after = MOVER_KEY[1 - player]
        mine: dict[int, int] = {}  # arrangement of its own chips (a key masked to them) -> count
        for key, count in state.seen.items():
            if (key >= LIGHT_TO_MOVE) != player:  # a position reached by one of its own moves
                arrangement = key & own_chips
                mine[arrangement] = mine.get(arrangement, 0) + count
        scores: list[float] = []
        for action in legal:
            origin, target = divmod(action, NUM_SQUARES)
            entering = corner[target] and not corner[origin]
            if entering and home + 1 == 9:
                return [action], []
            index = own.index(origin)
            board[target], board[origin] = board[origin], 0
            own[index] = target
            if wins_next(board, theirs, 1 - player, opponent_home):
                score = LOSS
            else:
                score = side_score(board, own, player) - OPPONENT_WEIGHT * side_score(board, theirs, 1 - player)
                code = moved_code(state.code, player, index == 0, origin, target)
                seen = state.seen.get(code + mover_after, 0)
                if seen:
                    score -= REPEAT * (10 if seen >= 2 else 1)
                score -= OWN_REPEAT * mine.get(code & own_chips, 0)
            board[origin], board[target] = board[target], 0
            own[index] = origin
            scores.append(score)
        return legal, scores
