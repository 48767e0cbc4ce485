"""X-Ceter-O batched kernels (the rules of ``fox_envs.games.xceter_o.rules``; docs/rules/xceter_o.md).

State of row ``i`` (structure of arrays)::

    board[i, 0..8]      piece 1..6 on each square, 0 empty     6 7 8   (c3 = 8)
    square_of[i, 1..6]  square of each piece, -1 off the board  3 4 5
    ply[i]              plies played; the next piece is ply % 6 + 1   0 1 2   (a1 = 0)
    own[i, 0..1]        each player's squares as a 9-bit mask (win check)
    code[i]             sum of (square + 1) * 6 * 10**(piece - 1): with the next piece - 1, the
                        exact repetition key of the rules core

Observation (3, 3, 10) as the core's: planes 0-2 the viewer's pieces in number order, 3-5 the
opponent's, 6 empty squares, 7 the piece to move now, 8 the piece after it, 9 placement phase.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from fox_envs.batch._box import PICK, prepare
from fox_envs.batch._rows import (TERMINAL, borrowed, clear_legal, clear_repetitions, count_position, keep_history,
                                  push_history, record_end, take_action)
from fox_envs.games.xceter_o.rules import LINES, NUM_PLANES, PIECE_WEIGHT as CORE_PIECE_WEIGHT, SQUARE_PLANES

LINE_TABLE = np.array(LINES, np.int8)  # the core's LINES, square by square
LINE_MASK_TABLE = np.array([sum(1 << s for s in line) for line in LINES], np.int32)  # LINES[k] as a 9-bit mask
PIECE_WEIGHT = np.array(CORE_PIECE_WEIGHT, np.int64)  # the core's repetition-code weight of each piece


@njit(cache=True, inline="always")
def _has_line(board_row, square_of_row, own_bits: int, mover: int, ordered: bool) -> bool:
    """The mover's three pieces in a line (read 1-3-5 / 2-4-6 along it when ``ordered``)."""
    for k in range(LINE_MASK_TABLE.shape[0]):
        if own_bits == LINE_MASK_TABLE[k]:
            if not ordered:
                return True
            a, b, c = square_of_row[mover + 1], square_of_row[mover + 3], square_of_row[mover + 5]
            line = LINE_TABLE[k]
            return b == line[1] and ((a == line[0] and c == line[2]) or (a == line[2] and c == line[0]))
    return False


@njit(cache=True, inline="always")
def _start_row(i, board, square_of, ply, own, code, common) -> None:
    """The empty board, player_0 to place piece 1."""
    (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
     legal, nlegal, rep_keys, rep_counts) = common
    for s in range(9):
        board[i, s] = 0
    for p in range(7):
        square_of[i, p] = -1
    ply[i] = 0
    own[i, 0] = 0
    own[i, 1] = 0
    code[i] = 0
    moves[i] = 0
    hlen[i] = 0
    player[i] = 0
    clear_repetitions(rep_keys, rep_counts, i)


def _cell_table() -> np.ndarray:
    """CELLS[((placing * 2 + viewer) * 7 + piece) * 3 + flag]: the 10 planes of one square holding
    ``piece`` (0 empty) seen by ``viewer``; ``flag`` 1 = the piece to move now, 2 = the one after."""
    cells = np.zeros((2, 2, 7, 3, NUM_PLANES), np.float32)
    for placing in (0, 1):
        for viewer in (0, 1):
            for piece in range(7):
                for flag in range(3):
                    raw = SQUARE_PLANES[placing][viewer][piece * 3 + flag]
                    cells[placing, viewer, piece, flag] = np.frombuffer(raw, np.float32)
    return cells.reshape(-1, NUM_PLANES)


CELLS = _cell_table()


@njit(cache=True, inline="always")
def _write_view(out, board_row, ply: int, viewer: int) -> None:
    """The core's observation tensor of this position for ``viewer`` into ``out`` (3, 3, 10)."""
    flat = out.reshape(9 * NUM_PLANES)
    now = ply % 6 + 1
    after = now % 6 + 1
    base = ((1 if ply < 6 else 0) * 2 + viewer) * 7
    for s in range(9):
        piece = board_row[s]
        flag = 1 if piece == now else (2 if piece == after else 0)
        cell = CELLS[(base + piece) * 3 + flag]
        for k in range(NUM_PLANES):
            flat[s * NUM_PLANES + k] = cell[k]


@njit(cache=True, inline="always")
def _publish(i, board, ply, common) -> None:
    """Observation, mask and legal list of row ``i`` for the player to move (the 9-entry mask
    row is written whole, without branches: cheaper than clearing and adding entries)."""
    obs, mask, player, legal, nlegal = common[0], common[1], common[2], common[13], common[14]
    n = 0
    for s in range(9):
        empty = board[i, s] == 0
        mask[i, s] = empty
        legal[i, n] = s
        n += 1 if empty else 0
    nlegal[i] = n
    _write_view(obs[i], board[i], ply[i], player[i])


@njit(cache=True, inline="always")
def _apply(i, target: int, board, square_of, ply, own, code, rep_keys, rep_counts, ordered: bool) -> int:
    """Play ``target`` for the piece to move; returns -1 if play goes on, the winner's seat, or 2
    for a draw by threefold repetition."""
    t = ply[i]
    piece = t % 6 + 1
    mover = t % 2
    old = square_of[i, piece]
    bits = own[i, mover]
    if old >= 0:
        board[i, old] = 0
        bits ^= 1 << old
    board[i, target] = piece
    square_of[i, piece] = target
    bits ^= 1 << target
    own[i, mover] = bits
    code[i] += (target - old) * PIECE_WEIGHT[piece]
    t += 1
    ply[i] = t
    if _has_line(board[i], square_of[i], bits, mover, ordered):
        return mover
    if t >= 6 and count_position(rep_keys, rep_counts, i, np.uint64(code[i] + t % 6)) >= 3:
        return 2
    return -1


@njit(cache=True, nogil=True)
def reset_rows(lo, hi, which, state, common) -> None:
    """A new game in every row ``i`` of ``[lo, hi)`` with ``which[i]``; ``state`` is the tuple
    ``(board, square_of, ply, own, code)``."""
    board, square_of, ply, own, code = state
    for i in range(lo, hi):
        if which[i]:
            _start_row(i, board, square_of, ply, own, code, common)
            _publish(i, board, ply, common)


@njit(cache=True, nogil=True)
def step_rows(lo, hi, actions, state, common, max_moves, auto_reset, final_view, ordered) -> None:
    """One move in every row of ``[lo, hi)`` with an action (``state`` as for ``reset_rows``):
    a line or a threefold repetition ends the game, as does ``max_moves``."""
    common = (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
              legal, nlegal, rep_keys, rep_counts) = borrowed(common)
    board, square_of, ply, own, code = state
    actions, board, square_of, ply, own, code = borrowed((actions, board, square_of, ply, own, code))
    for i in range(lo, hi):
        a = take_action(actions, player, rewards, term, trunc, hist, hlen, moves, i)
        if a < 0:
            continue
        mover = player[i]
        result = _apply(i, a, board, square_of, ply, own, code, rep_keys, rep_counts, ordered)
        if result < 0 and moves[i] < max_moves:
            player[i] = 1 - mover
            _publish(i, board, ply, common)
            continue
        record_end(rewards, term, trunc, i, result)
        _write_view(final_obs[i], board[i], ply[i], mover if final_view < 0 else final_view)
        keep_history(hist, hlen, last_hist, last_hlen, i)
        if auto_reset:
            _start_row(i, board, square_of, ply, own, code, common)
            _publish(i, board, ply, common)
        else:
            player[i] = TERMINAL
            clear_legal(mask, legal, nlegal, i)
            obs[i] = final_obs[i]


@njit(cache=True, nogil=True)
def replay_row(i, history, state, common, ordered) -> None:
    """Row ``i`` from the empty board through ``history`` (target squares)."""
    (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
     legal, nlegal, rep_keys, rep_counts) = common
    board, square_of, ply, own, code = state
    _start_row(i, board, square_of, ply, own, code, common)
    for a in history:
        push_history(hist, hlen, i, a)
        moves[i] += 1
        _apply(i, a, board, square_of, ply, own, code, rep_keys, rep_counts, ordered)
    player[i] = ply[i] % 2
    _publish(i, board, ply, common)


@njit(cache=True, nogil=True)
def run_rows(box, lo, hi, mode, actions, max_moves, auto_reset, final_view) -> int:
    """The ``Rows`` box's kernel (``fox_envs.batch._box``): ``mode``'s work on ``actions`` for
    rows ``[lo, hi)``, then the step unless an illegal action was found (its row is returned)."""
    bad = prepare(box.common, lo, hi, mode, actions)
    if bad < 0 and mode != PICK:
        step_rows(lo, hi, actions, box.state[0], box.common, max_moves, auto_reset, final_view, box.extra[0])
    return bad
