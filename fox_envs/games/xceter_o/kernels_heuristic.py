"""X-Ceter-O heuristic as batched kernels: the rules of ``fox_envs.games.xceter_o.heuristic.XCeterOHeuristic``.

For the piece to move, every empty square in increasing order:

1. a move completing the mover's line wins: the first such square is played;
2. else the move is scored by the position it leaves: -50 if it is a threefold-repetition draw,
   -100 if the opponent can then complete a line with its next piece, else 4 per threat (a line
   holding two of the mover's pieces and an empty third square) plus the square values of the
   mover's pieces (centre 3, corners 2, edges 1).

The best-scoring squares are tied; one is drawn uniformly from the row's pick stream. Each
candidate is played on the row's own arrays and taken back, so rows stay independent.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fox_envs.batch._heuristic_rows import pick_tied, seen_count
from fox_envs.batch._rows import borrowed
from fox_envs.games.xceter_o.heuristic import SQUARE_VALUE
from fox_envs.games.xceter_o.kernels import LINE_MASK_TABLE, LINE_TABLE, PIECE_WEIGHT, _has_line

SQUARE_VALUES = np.array(SQUARE_VALUE, np.int64)
DRAW_SCORE = -50
LOSS_SCORE = -100


@njit(cache=True, inline="always")
def _jump_bits_from(old: int, target: int) -> int:
    """The squares a piece leaves (``old``, -1 when placed) and enters, as bits."""
    return (1 << target) ^ ((1 << old) if old >= 0 else 0)


@njit(cache=True, inline="always")
def _reply_wins(board_row, square_of_row, bits: int, mover: int, piece: int, ordered: bool) -> bool:
    """Whether ``mover`` (with squares ``bits``) completes a line by moving ``piece`` to some
    empty square (``square_of_row`` is restored)."""
    old = square_of_row[piece]
    for r in range(9):
        if board_row[r] != 0:
            continue
        square_of_row[piece] = r
        wins = _has_line(board_row, square_of_row, bits ^ _jump_bits_from(old, r), mover, ordered)
        square_of_row[piece] = old
        if wins:
            return True
    return False


@njit(cache=True, inline="always")
def _position_score(board_row, bits: int) -> int:
    """4 per threat of the side holding squares ``bits`` plus the values of those squares."""
    score = 0
    for k in range(LINE_MASK_TABLE.shape[0]):
        held = bits & LINE_MASK_TABLE[k]
        if held != 0 and held != LINE_MASK_TABLE[k] and (held & (held - 1)) != 0:  # exactly two
            for s in LINE_TABLE[k]:
                if not (bits >> s) & 1 and board_row[s] == 0:  # the third square is empty
                    score += 4
    for s in range(9):
        if (bits >> s) & 1:
            score += SQUARE_VALUES[s]
    return score


@njit(cache=True, inline="always")
def _best_squares(i, board, square_of, ply, own, code, rep_keys, rep_counts, ordered, best) -> int:
    """Fill ``best`` with the heuristic's best squares for row ``i``; returns how many (a win is
    returned alone)."""
    board_row, square_of_row = board[i], square_of[i]
    t = ply[i]
    piece = t % 6 + 1
    mover = t % 2
    reply_piece = (t + 1) % 6 + 1
    old = square_of_row[piece]
    n = 0
    best_score = LOSS_SCORE - 1
    for target in range(9):
        if board_row[target] != 0:
            continue
        bits = own[i, mover] ^ _jump_bits_from(old, target)
        if old >= 0:
            board_row[old] = 0
        board_row[target] = piece
        square_of_row[piece] = target
        if _has_line(board_row, square_of_row, bits, mover, ordered):
            score = -1  # a win: played at once
        elif t + 1 >= 6 and seen_count(rep_keys, rep_counts, i,
                                       np.uint64(code[i] + (target - old) * PIECE_WEIGHT[piece] + (t + 1) % 6)) >= 2:
            score = DRAW_SCORE
        elif _reply_wins(board_row, square_of_row, own[i, 1 - mover], 1 - mover, reply_piece, ordered):
            score = LOSS_SCORE
        else:
            score = _position_score(board_row, bits)
        board_row[target] = 0
        if old >= 0:
            board_row[old] = piece
        square_of_row[piece] = old
        if score == -1:
            best[0] = target
            return 1
        if score > best_score:
            best_score = score
            n = 0
        if score == best_score:
            best[n] = target
            n += 1
    return n


@njit(cache=True, nogil=True)
def heuristic_rows(lo, hi, out, state, common, ordered) -> None:
    """``out[i]``: the heuristic's square for every row of ``[lo, hi)`` (-1 for a finished game);
    ``state`` is the kernels' ``(board, square_of, ply, own, code)``."""
    common = borrowed(common)
    player, streams, rep_keys, rep_counts = common[2], common[8], common[15], common[16]
    board, square_of, ply, own, code = state
    out, board, square_of, ply, own, code = borrowed((out, board, square_of, ply, own, code))
    best = np.empty(9, np.int64)
    for i in range(lo, hi):
        if player[i] < 0:
            out[i] = -1
            continue
        n = _best_squares(i, board, square_of, ply, own, code, rep_keys, rep_counts, ordered, best)
        out[i] = pick_tied(streams, i, best, n)


@njit(cache=True)
def best_squares_of_row(i, board, square_of, ply, own, code, common, ordered) -> np.ndarray:
    """Every square the heuristic considers best in row ``i`` (tests compare it with the agent's)."""
    best = np.empty(9, np.int64)
    n = _best_squares(i, board, square_of, ply, own, code, common[15], common[16], ordered, best)
    return best[:n].copy()
