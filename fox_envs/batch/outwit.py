"""Outwit batched kernels (the rules of ``fox_envs.games.outwit``, SPEC 2.2).

Board, 10 columns ``a..j`` by 9 rows ``1..9``, square = (row-1)*10 + column (a1=0, j9=89)::

    9 [ ][ ][ ] .  .  .  .  .  o  x       [ ] player_0's corner a7..c9
    8 [ ][ ][ ] .  .  .  .  o  x  .       ( ) player_1's corner h1..j3
    7 [ ][ ][ ] .  .  .  o  x  .  .       X / O the power chips
    6  .  .  .  .  .  o  x  .  .  .
    5  .  .  .  .  O  X  .  .  .  .
    4  .  .  .  o  x  .  .  .  .  .
    3  .  .  o  x  .  .  . ( )( )( )
    2  .  o  x  .  .  .  . ( )( )( )
    1  o  x  .  .  .  .  . ( )( )( )
       a  b  c  d  e  f  g  h  i  j

State of row ``i`` (structure of arrays)::

    board[i, 0..89]    0 empty, 1 + 2*player + is_power (the chip on each square)
    chips[i, p, 0..8]  the squares of player p's chips, index 0 its power chip
    slot[i, 0..89]     the index into chips[i, owner] of the chip on each square
    occ[i, 0..1]       the occupied squares as bits (squares 0-63 in word 0, 64-89 in word 1)
    home[i, p]         p's chips inside its own corner (p wins after its move at 9)
    tomove[i]          the player to move (kept when the row is finished; player[i] is TERMINAL)
    passes[i]          consecutive passes just played
    last[i]            the last action of the game (-1 before the first)
    key[i]             Zobrist key of the chips (regular chips per player and square, power chip
                       per player and square); ``key ^ LIGHT_KEY`` when player_1 is to move is the
                       repetition key: exactly what the core's repetition rule compares
    reps[i, 0]         how often the current position has occurred (observation plane 9; the
                       core counts no position after a win or a second pass: a winning position
                       never occurred before, and two passes bring back the position of two
                       plies ago, whose count ``reps[i, 1]`` keeps one ply longer)

Moves come from ray tables built here from SPEC 2.2 (``RAYS[p, square, direction]``: the
squares a chip of p passes on an empty board, stopping at the edge, before the opponent's
corner, and never leaving its own corner once the path is inside it); a regular chip takes the
last empty square of each orthogonal ray before a chip, the power chip every empty square of
its 8 rays before a chip. The first chip on a ray is one bit scan of the occupancy ``occ``
masked by the ray (``RAY_BITS``), so no ray is walked square by square.

Speed notes (measured): a step of a row is bound by cache misses on the rows' mask lines
(8,101 entries; ~25 cleared and ~25 set per step), observation lines (plane 10 changes every
step, so all 74 lines of a row are written) and the repetition slot, so the step kernel
prefetches those lines ``AHEAD`` rows ahead; moves are gathered without a branch per ray.

Observation (9, 10, 13) as the core's, square s at ``obs[s // 10, s % 10]``: 0 own regular
chips, 1 own power chip, 2 opponent's regular chips, 3 opponent's power chip, 4 own corner,
5 opponent's corner, 6 empty, 7 ones (the viewer is to move), 8 ones after a pass, 9 repetition
count / 3, 10 history length / ``max_moves_default``, 11 / 12 the last move's from / to square.
A step updates ``obs[i]`` in place: the viewer always changes, so the chip and corner squares
swap sides, the moved chip's two squares, planes 8 / 9 when their value changes, plane 10,
planes 11 / 12 at the old and new last squares; everything else stays.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic

from fox_envs.batch._rng import mix64
from fox_envs.batch._rows import (TERMINAL, add_legal, begin_row, borrowed, clear_legal, clear_repetitions,
                                  count_position, keep_history, push_history)
from fox_envs.batch.env import GameKernels

# ----- tables (SPEC 2.2) -----------------------------------------------------------------------
NUM_COLUMNS, NUM_ROWS = 10, 9
NUM_SQUARES = NUM_COLUMNS * NUM_ROWS
NUM_PLANES = 13
CELLS = NUM_SQUARES * NUM_PLANES
PASS = NUM_SQUARES * NUM_SQUARES  # 8100
NUM_ACTIONS = PASS + 1


def _sq(name: str) -> int:
    return (int(name[1:]) - 1) * NUM_COLUMNS + "abcdefghij".index(name[0])


def _corner(rows, columns) -> np.ndarray:
    table = np.zeros(NUM_SQUARES, np.bool_)
    for r in rows:
        for c in columns:
            table[r * NUM_COLUMNS + c] = True
    return table


CORNER = np.array([_corner((6, 7, 8), (0, 1, 2)), _corner((0, 1, 2), (7, 8, 9))], np.bool_)  # a7..c9, h1..j3
CORNER_SQUARES = np.flatnonzero(CORNER[0] | CORNER[1]).astype(np.int32)
START_POWER = np.array([_sq("f5"), _sq("e5")], np.int32)
START_REGULAR = np.array([[_sq(n) for n in "b1 c2 d3 e4 g6 h7 i8 j9".split()],
                          [_sq(n) for n in "a1 b2 c3 d4 f6 g7 h8 i9".split()]], np.int32)
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))  # orthogonal first


def _ray(player: int, start: int, step: tuple[int, int]) -> list[int]:
    row, column = divmod(start, NUM_COLUMNS)
    inside = bool(CORNER[player, start])
    squares = []
    while True:
        row, column = row + step[0], column + step[1]
        if not (0 <= row < NUM_ROWS and 0 <= column < NUM_COLUMNS):
            return squares
        square = row * NUM_COLUMNS + column
        if CORNER[1 - player, square] or (inside and not CORNER[player, square]):
            return squares
        inside = inside or bool(CORNER[player, square])
        squares.append(square)


RAYS = np.full((2, NUM_SQUARES, 8, 9), -1, np.int8)
RAY_LENGTH = np.zeros((2, NUM_SQUARES, 8), np.int8)
for _p in (0, 1):
    for _s in range(NUM_SQUARES):
        for _d, _step in enumerate(DIRECTIONS):
            _squares = _ray(_p, _s, _step)
            RAY_LENGTH[_p, _s, _d] = len(_squares)
            RAYS[_p, _s, _d, :len(_squares)] = _squares
# The same rays as bit masks over the occupancy (squares 0-63 in word 0, 64-89 in word 1): the
# first chip on a ray is its lowest set bit (directions of increasing square) or its highest.
RAY_BITS = np.zeros((2, NUM_SQUARES, 8, 2), np.uint64)
for _p in (0, 1):
    for _s in range(NUM_SQUARES):
        for _d in range(8):
            for _t in RAYS[_p, _s, _d, :RAY_LENGTH[_p, _s, _d]]:
                RAY_BITS[_p, _s, _d, _t >> 6] |= np.uint64(1) << np.uint64(_t & 63)
DELTA = np.array([dr * NUM_COLUMNS + dc for dr, dc in DIRECTIONS], np.int32)
# squares between two squares of a line (Chebyshev distance), to count a ray's free squares
DISTANCE = np.array([[max(abs(a // 10 - b // 10), abs(a % 10 - b % 10)) for b in range(NUM_SQUARES)]
                     for a in range(NUM_SQUARES)], np.int8)
# free squares before a chip on ``first`` (index first + 1; -1 and 128 mean no chip: a big count)
STOP = np.full((NUM_SQUARES, 130), 100, np.int8)
STOP[:, 1:NUM_SQUARES + 1] = DISTANCE - 1
MAX_LEGAL = int(RAY_LENGTH.sum(axis=2).max()) + 8 * 4  # the power chip's rays plus 4 per regular chip

_zobrist = np.random.default_rng(20240526).integers(1, 2**63, size=(2 * 2 * NUM_SQUARES + 1,), dtype=np.int64)
Z_REGULAR = _zobrist[:2 * NUM_SQUARES].reshape(2, NUM_SQUARES).astype(np.uint64)
Z_POWER = _zobrist[2 * NUM_SQUARES:4 * NUM_SQUARES].reshape(2, NUM_SQUARES).astype(np.uint64)
LIGHT_KEY = np.uint64(_zobrist[-1])


def _start_key() -> np.uint64:
    key = np.uint64(0)
    for p in (0, 1):
        key ^= Z_POWER[p, START_POWER[p]]
        for s in START_REGULAR[p]:
            key ^= Z_REGULAR[p, s]
    return key


START_KEY = _start_key()
START_OCCUPANCY = np.zeros(2, np.uint64)
for _s in [*START_POWER, *START_REGULAR.ravel()]:
    START_OCCUPANCY[_s >> 6] |= np.uint64(1) << np.uint64(_s & 63)

AHEAD = 8  # rows the step kernel prefetches ahead

# ----- helpers ----------------------------------------------------------------------------------

@intrinsic
def _prefetch(typingctx, array, index):
    """A hint to bring the cache line of element ``index`` (flat, C order) of ``array`` in for a
    write (llvm.prefetch; no effect on results)."""
    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        base = builder.bitcast(view.data, ir.IntType(8).as_pointer())
        offset = builder.mul(args[1], context.get_constant(
            types.intp, context.get_abi_sizeof(context.get_data_type(array_type.dtype))))
        i32 = ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [ir.IntType(8).as_pointer(), i32, i32, i32]),
            "llvm.prefetch.p0")
        builder.call(function, [builder.gep(base, [offset]), ir.Constant(i32, 1), ir.Constant(i32, 3),
                                ir.Constant(i32, 1)])
        return context.get_dummy_value()
    return types.void(array, types.intp), codegen


@njit(cache=True, inline="always")
def _prefetch_row(j, actions, player, chips, slot, key, obs, mask, legal, nlegal, rep_keys) -> None:
    """Ask for the cache lines row ``j``'s step will write: its mask entries to clear, the mask
    ranges of the next mover's chips, its observation row."""
    if actions[j] < 0 or player[j] < 0:
        return
    row = np.int64(j) * NUM_ACTIONS
    for k in range(nlegal[j]):
        _prefetch(mask, row + legal[j, k])
    p = player[j]
    q = 1 - p
    for c in range(9):
        s = np.int64(chips[j, q, c]) * NUM_SQUARES
        _prefetch(mask, row + s)
        _prefetch(mask, row + s + NUM_SQUARES // 2)
        _prefetch(mask, row + s + NUM_SQUARES - 1)
    # the repetition slot of the next position, chosen as count_position does (only a hint: if
    # that choice changes, the prefetch misses and nothing else changes)
    a = actions[j]
    after = key[j]
    if a != PASS:
        origin, target = a // NUM_SQUARES, a % NUM_SQUARES
        z = Z_POWER[p] if slot[j, origin] == 0 else Z_REGULAR[p]
        after ^= z[origin] ^ z[target]
    size = rep_keys.shape[1]
    hashed = mix64(_position_key(after, q))
    _prefetch(rep_keys, np.int64(j) * size + (np.int64(hashed >> np.uint64(40)) & (size - 1)))
    start = np.int64(j) * CELLS
    for k in range(0, CELLS, 16):
        _prefetch(obs, start + k)
    _prefetch(obs, start + CELLS - 1)



@njit(cache=True, inline="always")
def _position_key(key, to_move) -> np.uint64:
    return key ^ LIGHT_KEY if to_move == 1 else key


@njit(cache=True, inline="always")
def _start_row(i, board, chips, slot, occ, home, tomove, passes, last, key, reps, common) -> None:
    """The start position, player_0 to move, counted once for repetition."""
    (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
     legal, nlegal, rep_keys, rep_counts) = common
    for s in range(NUM_SQUARES):
        board[i, s] = 0
        slot[i, s] = 0
    occ[i, 0] = START_OCCUPANCY[0]
    occ[i, 1] = START_OCCUPANCY[1]
    for p in range(2):
        s = START_POWER[p]
        board[i, s] = 2 + 2 * p
        chips[i, p, 0] = s
        slot[i, s] = 0
        for c in range(8):
            s = START_REGULAR[p, c]
            board[i, s] = 1 + 2 * p
            chips[i, p, c + 1] = s
            slot[i, s] = c + 1
        home[i, p] = 0
    tomove[i] = 0
    passes[i] = 0
    last[i] = -1
    key[i] = START_KEY
    moves[i] = 0
    hlen[i] = 0
    player[i] = 0
    clear_repetitions(rep_keys, rep_counts, i)
    reps[i, 0] = count_position(rep_keys, rep_counts, i, START_KEY)
    reps[i, 1] = 0


@njit(cache=True, inline="always")
def _free(p, s, d, occ0, occ1) -> int:
    """How many empty squares a chip of ``p`` on ``s`` passes going in direction ``d`` (without
    branches: a bit count of zero words gives 64, and ``STOP`` maps "no chip" to the ray's end)."""
    bits = RAY_BITS[p, s, d]
    lo = occ0 & bits[0]
    hi = occ1 & bits[1]
    if DELTA[d] > 0:  # the lowest chip: square 0..127, 128 when none
        low = np.int64(trailing_zeros(lo))
        first = low + (np.int64(trailing_zeros(hi)) if low == 64 else 0)
    else:  # the highest chip: square 127..0, -1 when none
        high = 127 - np.int64(leading_zeros(hi))
        first = high if high >= 64 else 63 - np.int64(leading_zeros(lo))
    return min(np.int64(STOP[s, first + 1]), np.int64(RAY_LENGTH[p, s, d]))


@njit(cache=True, inline="always")
def _write_legal(i, chips, occ, tomove, mask, legal, nlegal, scratch) -> None:
    """The mover's legal list: the power chip's stops, each regular chip's slide ends, else pass.
    The moves are gathered in ``scratch`` first, without a branch per ray (a regular chip's
    empty slide is written and not counted), then marked legal in one loop."""
    clear_legal(mask, legal, nlegal, i)
    p = tomove[i]
    occ0, occ1 = occ[i, 0], occ[i, 1]
    n = 0
    s = np.int64(chips[i, p, 0])
    base = s * (NUM_SQUARES + 1)
    for d in range(8):
        delta = DELTA[d]
        for k in range(1, _free(p, s, d, occ0, occ1) + 1):
            scratch[n] = base + k * delta
            n += 1
    for c in range(1, 9):
        s = np.int64(chips[i, p, c])
        base = s * (NUM_SQUARES + 1)
        for d in range(4):
            free = _free(p, s, d, occ0, occ1)
            scratch[n] = base + free * DELTA[d]
            n += free > 0
    for k in range(n):
        add_legal(mask, legal, nlegal, i, scratch[k])
    if n == 0:
        add_legal(mask, legal, nlegal, i, PASS)


@njit(cache=True, inline="always")
def _write_view(out, i, board, passes, last, reps, history_length, viewer, to_move_flag, scale) -> None:
    """The core's observation tensor of row ``i`` for ``viewer`` into the flat row ``out``."""
    pass_flag = np.float32(1.0 if passes[i] > 0 else 0.0)
    rep_value = np.float32(min(reps, 3) / 3.0)
    length_value = np.float32(min(1.0, history_length / scale)) if history_length > 0 else np.float32(0.0)
    flag = np.float32(to_move_flag)
    for s in range(NUM_SQUARES):
        b = s * NUM_PLANES
        code = board[i, s]
        for k in range(4):
            out[b + k] = 0.0
        if code != 0:
            owner = (code - 1) >> 1
            out[b + (code - 1) % 2 + (0 if owner == viewer else 2)] = 1.0
        out[b + 4] = 1.0 if CORNER[viewer, s] else 0.0
        out[b + 5] = 1.0 if CORNER[1 - viewer, s] else 0.0
        out[b + 6] = 1.0 if code == 0 else 0.0
        out[b + 7] = flag
        out[b + 8] = pass_flag
        out[b + 9] = rep_value
        out[b + 10] = length_value
        out[b + 11] = 0.0
        out[b + 12] = 0.0
    a = last[i]
    if history_length > 0 and a != PASS and a >= 0:
        out[(a // NUM_SQUARES) * NUM_PLANES + 11] = 1.0
        out[(a % NUM_SQUARES) * NUM_PLANES + 12] = 1.0


@njit(cache=True, inline="always")
def _update_view(out, i, board, chips, passes, last, reps, previous, history_length, viewer, scale) -> None:
    """``out`` held the previous mover's view before action ``last[i]`` (``previous`` the action
    before it); rewrite what differs for ``viewer`` (the other player) after it."""
    other = 1 - viewer
    a = last[i]
    for p in range(2):  # every chip changes sides: its plane moves by 2 (own <-> opponent's)
        for c in range(9):
            s = chips[i, p, c]
            b = s * NUM_PLANES
            plane = (1 if c == 0 else 0) + (0 if p == viewer else 2)  # index 0 is the power chip
            out[b + (plane ^ 2)] = 0.0
            out[b + plane] = 1.0
    if a != PASS:  # the moved chip's origin is empty now, its target no longer
        b = (a // NUM_SQUARES) * NUM_PLANES
        out[b] = 0.0
        out[b + 1] = 0.0
        out[b + 2] = 0.0
        out[b + 3] = 0.0
        out[b + 6] = 1.0
        out[(a % NUM_SQUARES) * NUM_PLANES + 6] = 0.0
    for k in range(CORNER_SQUARES.shape[0]):
        s = CORNER_SQUARES[k]
        b = s * NUM_PLANES
        out[b + 4] = 1.0 if CORNER[viewer, s] else 0.0
        out[b + 5] = 1.0 if CORNER[other, s] else 0.0
    pass_flag = np.float32(1.0 if passes[i] > 0 else 0.0)
    if out[8] != pass_flag:
        for s in range(NUM_SQUARES):
            out[s * NUM_PLANES + 8] = pass_flag
    rep_value = np.float32(min(reps[i, 0], 3) / 3.0)
    if out[9] != rep_value:
        for s in range(NUM_SQUARES):
            out[s * NUM_PLANES + 9] = rep_value
    length_value = np.float32(min(1.0, history_length / scale))
    for s in range(NUM_SQUARES):
        out[s * NUM_PLANES + 10] = length_value
    if previous >= 0 and previous != PASS:
        out[(previous // NUM_SQUARES) * NUM_PLANES + 11] = 0.0
        out[(previous % NUM_SQUARES) * NUM_PLANES + 12] = 0.0
    if a != PASS:
        out[(a // NUM_SQUARES) * NUM_PLANES + 11] = 1.0
        out[(a % NUM_SQUARES) * NUM_PLANES + 12] = 1.0


@njit(cache=True, inline="always")
def _apply(i, a, board, chips, slot, occ, home, tomove, passes, last, key, reps, rep_keys, rep_counts) -> int:
    """Play action ``a`` for the player to move; returns -1 if play goes on, the winner's seat,
    or 2 for a draw (two passes, or the third occurrence of a position)."""
    p = tomove[i]
    if a == PASS:
        passes[i] += 1
    else:
        passes[i] = 0
        origin, target = a // NUM_SQUARES, a % NUM_SQUARES
        code = board[i, origin]
        c = slot[i, origin]
        board[i, target] = code
        board[i, origin] = 0
        slot[i, target] = c
        occ[i, origin >> 6] ^= np.uint64(1) << np.uint64(origin & 63)
        occ[i, target >> 6] ^= np.uint64(1) << np.uint64(target & 63)
        chips[i, p, c] = target
        z = Z_POWER[p] if c == 0 else Z_REGULAR[p]
        key[i] ^= z[origin] ^ z[target]
        if CORNER[p, target] and not CORNER[p, origin]:
            home[i, p] += 1
    last[i] = a
    q = 1 - p
    tomove[i] = q
    two_ago = reps[i, 1]
    reps[i, 1] = reps[i, 0]
    if home[i, p] == 9:  # never seen before: every earlier position had at most 8 of p's chips home
        reps[i, 0] = 0
        return p
    if passes[i] >= 2:  # the position after the move before the two passes, not counted again
        reps[i, 0] = two_ago
        return 2
    count = count_position(rep_keys, rep_counts, i, _position_key(key[i], q))
    reps[i, 0] = count
    return 2 if count >= 3 else -1


# ----- kernels ----------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def reset_rows(lo, hi, which, board, chips, slot, occ, home, tomove, passes, last, key, reps, common, scale) -> None:
    common = borrowed(common)
    which, board, chips, slot, occ, home, tomove, passes, last, key, reps = borrowed(
        (which, board, chips, slot, occ, home, tomove, passes, last, key, reps))
    obs, mask, legal, nlegal = common[0], common[1], common[13], common[14]
    scratch = np.empty(MAX_LEGAL + 1, np.int64)
    flat = obs.reshape((obs.shape[0], CELLS))
    for i in range(lo, hi):
        if which[i]:
            _start_row(i, board, chips, slot, occ, home, tomove, passes, last, key, reps, common)
            _write_legal(i, chips, occ, tomove, mask, legal, nlegal, scratch)
            _write_view(flat[i], i, board, passes, last, reps[i, 0], 0, 0, 1.0, scale)


@njit(cache=True, nogil=True)
def step_rows(lo, hi, actions, board, chips, slot, occ, home, tomove, passes, last, key, reps, common, max_moves,
              auto_reset, final_view, scale) -> None:
    common = (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
              legal, nlegal, rep_keys, rep_counts) = borrowed(common)
    actions, board, chips, slot, occ, home, tomove, passes, last, key, reps = borrowed(
        (actions, board, chips, slot, occ, home, tomove, passes, last, key, reps))
    flat = obs.reshape((obs.shape[0], CELLS))
    final_flat = final_obs.reshape((final_obs.shape[0], CELLS))
    scratch = np.empty(MAX_LEGAL + 1, np.int64)
    for i in range(lo, hi):
        if i + AHEAD < hi:
            _prefetch_row(i + AHEAD, actions, player, chips, slot, key, obs, mask, legal, nlegal, rep_keys)
        begin_row(rewards, term, trunc, i)
        a = actions[i]
        if a < 0 or player[i] < 0:
            continue
        mover = player[i]
        previous = last[i]
        push_history(hist, hlen, i, a)
        moves[i] += 1
        result = _apply(i, a, board, chips, slot, occ, home, tomove, passes, last, key, reps, rep_keys, rep_counts)
        if result < 0 and moves[i] < max_moves:
            player[i] = 1 - mover
            _write_legal(i, chips, occ, tomove, mask, legal, nlegal, scratch)
            _update_view(flat[i], i, board, chips, passes, last, reps, previous, hlen[i], 1 - mover, scale)
            continue
        if result >= 0:
            term[i] = True
            if result < 2:
                rewards[i, result] = 1.0
                rewards[i, 1 - result] = -1.0
        else:
            trunc[i] = True
        viewer = mover if final_view < 0 else final_view
        flag = 1.0 if result < 0 and viewer == tomove[i] else 0.0
        _write_view(final_flat[i], i, board, passes, last, reps[i, 0], hlen[i], viewer, flag, scale)
        keep_history(hist, hlen, last_hist, last_hlen, i)
        if auto_reset:
            _start_row(i, board, chips, slot, occ, home, tomove, passes, last, key, reps, common)
            _write_legal(i, chips, occ, tomove, mask, legal, nlegal, scratch)
            _write_view(flat[i], i, board, passes, last, reps[i, 0], 0, 0, 1.0, scale)
        else:
            player[i] = TERMINAL
            clear_legal(mask, legal, nlegal, i)
            flat[i, :] = final_flat[i, :]


@njit(cache=True, nogil=True)
def replay_row(i, history, board, chips, slot, occ, home, tomove, passes, last, key, reps, common, scale) -> None:
    common = (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
              legal, nlegal, rep_keys, rep_counts) = borrowed(common)
    history, board, chips, slot, occ, home, tomove, passes, last, key, reps = borrowed(
        (history, board, chips, slot, occ, home, tomove, passes, last, key, reps))
    _start_row(i, board, chips, slot, occ, home, tomove, passes, last, key, reps, common)
    for a in history:
        push_history(hist, hlen, i, a)
        moves[i] += 1
        _apply(i, a, board, chips, slot, occ, home, tomove, passes, last, key, reps, rep_keys, rep_counts)
    player[i] = tomove[i]
    scratch = np.empty(MAX_LEGAL + 1, np.int64)
    _write_legal(i, chips, occ, tomove, mask, legal, nlegal, scratch)
    flat = obs.reshape((obs.shape[0], CELLS))
    _write_view(flat[i], i, board, passes, last, reps[i, 0], hlen[i], tomove[i], 1.0, scale)


class OutwitKernels(GameKernels):
    max_legal = MAX_LEGAL

    def allocate(self, num_envs: int) -> None:
        self.board = np.zeros((num_envs, NUM_SQUARES), np.int8)
        self.chips = np.zeros((num_envs, 2, 9), np.int8)
        self.slot = np.zeros((num_envs, NUM_SQUARES), np.int8)
        self.occ = np.zeros((num_envs, 2), np.uint64)
        self.home = np.zeros((num_envs, 2), np.int8)
        self.tomove = np.zeros(num_envs, np.int8)
        self.passes = np.zeros(num_envs, np.int8)
        self.last = np.full(num_envs, -1, np.int32)
        self.key = np.zeros(num_envs, np.uint64)
        self.reps = np.zeros((num_envs, 2), np.int32)
        self.scale = float(self.game.max_moves_default)

    def _arrays(self) -> tuple:
        return (self.board, self.chips, self.slot, self.occ, self.home, self.tomove, self.passes, self.last, self.key,
                self.reps)

    def history_capacity(self, max_moves: int) -> int:
        return max_moves  # no chance events

    def positions_per_game(self, max_moves: int) -> int:
        return max_moves + 1

    def reset(self, lo, hi, which, common) -> None:
        reset_rows(lo, hi, which, *self._arrays(), common, self.scale)

    def step(self, lo, hi, actions, common, max_moves, auto_reset, final_view) -> None:
        step_rows(lo, hi, actions, *self._arrays(), common, max_moves, auto_reset, final_view, self.scale)

    def replay(self, i, history, common) -> None:
        replay_row(i, history, *self._arrays(), common, self.scale)
