"""Outwit batched kernels (the rules of ``fox_envs.games.outwit.rules``; docs/rules/outwit.md).

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

State of row ``i`` (structure of arrays; the kernels take them as one tuple ``state`` in this
order, see ``STATE_FIELDS``)::

    chips[i, p, 0..8]  the squares of player p's chips, index 0 its power chip
    slot[i, 0..89]     the index into chips[i, owner] of the chip on each square
    occ[i, 0..1]       the occupied squares as bits (squares 0-63 in word 0, 64-89 in word 1)
    lines[i, 0..18]    the occupancy of each row (0-8, bit = column) and column (9 + column, bit = row)
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

The board tables (corners, start squares, directions, rays) are the rules module's, laid out
here as arrays: ``RAY_LENGTH[p, square, direction]`` is how many squares a chip of p passes on
an empty board (the rules' ``DIRECTION_RAYS``). A regular chip takes the last empty square of
each orthogonal ray before a chip, the power chip every empty square of its 8 rays before a
chip. A ray is a prefix of its line, so its free squares are the empty run along the line
(``RUN_ROW`` / ``RUN_COL``, looked up by the row's or column's occupancy pattern in ``lines``)
clipped to the ray's length; the power chip's diagonals are one bit scan of ``occ`` masked by
the ray (``RAY_BITS``). Moves are written to ``legal`` without a branch per ray (a power chip
ray's 9 candidates and a regular chip's empty slide are written, only the real ones counted),
in this order: the power chip's rays, then chips 1..8.

Observation (9, 10, 13) as the core's, square s at ``obs[s // 10, s % 10]``: 0 own regular
chips, 1 own power chip, 2 opponent's regular chips, 3 opponent's power chip, 4 own corner,
5 opponent's corner, 6 empty, 7 ones (the viewer is to move), 8 ones after a pass, 9 repetition
count / 3, 10 history length / ``max_moves_default``, 11 / 12 the last move's from / to square.
Plane 10 changes every step, so every cache line of a row changes; a step writes the row whole:
every square as an empty one with planes 7-10 (one 64-byte store per square), then the corners,
the 18 chips and the last move.

The step kernel prefetches the next mover's mask ranges and the repetition slot ``AHEAD`` rows
ahead. When the observation buffer is at least ``STREAM_BYTES`` the row is built in a scratch
buffer and written with non-temporal 64-byte stores (no read of the line first, no cache
filled), one row later: the row is streamed after the next row is built, so that its scratch
stores have left the store buffer before they are loaded again.
"""
from __future__ import annotations

import platform

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from numba.extending import intrinsic

from fox_envs.batch._box import PICK, prepare
from fox_envs.batch._obs import plane_capped, plane_ratio
from fox_envs.batch._rows import (TERMINAL, borrowed, clear_legal, clear_repetitions, count_position, keep_history,
                                  push_history, record_end, table_slot, take_action)
from fox_envs.games.outwit import rules
from fox_envs.games.outwit.rules import (DIRECTIONS, NUM_ACTIONS, NUM_COLUMNS, NUM_LINES, NUM_PLANES, NUM_ROWS,
                                         NUM_SQUARES, PASS, SQUARE_INDEX)

# ----- tables: the rules module's, as arrays ---------------------------------------------------
CELLS = NUM_SQUARES * NUM_PLANES
STATE_FIELDS = ("chips", "slot", "occ", "lines", "home", "tomove", "passes", "last", "key", "reps")

CORNER = np.array(rules.IN_CORNER, np.bool_)  # [player, square]: a7..c9, h1..j3
START_POWER = np.array([SQUARE_INDEX[name] for name in rules.START_POWER], np.int32)
START_REGULAR = np.array([[SQUARE_INDEX[name] for name in names] for names in rules.START_REGULAR], np.int32)
SQ_ROW = np.array(rules.ROW_LINE, np.int64)  # a square's row, its line in ``lines``
SQ_COLUMN = np.array(rules.COLUMN_LINE, np.int64) - NUM_ROWS  # its column (line NUM_ROWS + column)
DELTA = np.array([dr * NUM_COLUMNS + dc for dr, dc in DIRECTIONS], np.int32)  # a step's square change

# RAYS[p, s, d, :RAY_LENGTH[p, s, d]]: the rules' DIRECTION_RAYS[p][s][d] (-1 beyond)
RAY_LENGTH = np.array([[[len(ray) for ray in rays] for rays in side] for side in rules.DIRECTION_RAYS], np.int8)
RAYS = np.full((2, NUM_SQUARES, 8, 9), -1, np.int8)
# The same rays as bit masks over the occupancy (squares 0-63 in word 0, 64-89 in word 1): the
# first chip on a ray is its lowest set bit (directions of increasing square) or its highest.
RAY_BITS = np.zeros((2, NUM_SQUARES, 8, 2), np.uint64)
for (_p, _s, _d), _length in np.ndenumerate(RAY_LENGTH):
    for _k, _t in enumerate(rules.DIRECTION_RAYS[_p][_s][_d]):
        RAYS[_p, _s, _d, _k] = _t
        RAY_BITS[_p, _s, _d, _t >> 6] |= np.uint64(1) << np.uint64(_t & 63)
# squares between two squares of a line (Chebyshev distance), to count a ray's free squares
DISTANCE = np.maximum(np.abs(SQ_ROW[:, None] - SQ_ROW[None, :]),
                      np.abs(SQ_COLUMN[:, None] - SQ_COLUMN[None, :])).astype(np.int8)
# free squares before a chip on ``first`` (index first + 1; -1 and 128 mean no chip: a big count)
STOP = np.full((NUM_SQUARES, 130), 100, np.int8)
STOP[:, 1:NUM_SQUARES + 1] = DISTANCE - 1
MAX_LEGAL = int(RAY_LENGTH.sum(axis=2).max()) + 8 * 4  # the power chip's rays plus 4 per regular chip

# Zobrist keys of the chips (the rules core compares exact position codes; a row keeps a key)
_zobrist = np.random.default_rng(20240526).integers(1, 2**63, size=(2 * 2 * NUM_SQUARES + 1,), dtype=np.int64)
Z_REGULAR = _zobrist[:2 * NUM_SQUARES].reshape(2, NUM_SQUARES).astype(np.uint64)
Z_POWER = _zobrist[2 * NUM_SQUARES:4 * NUM_SQUARES].reshape(2, NUM_SQUARES).astype(np.uint64)
LIGHT_KEY = np.uint64(_zobrist[-1])


def _start_key() -> np.uint64:
    """The Zobrist key of the start position's chips."""
    key = np.uint64(0)
    for p in (0, 1):
        key ^= Z_POWER[p, START_POWER[p]]
        for s in START_REGULAR[p]:
            key ^= Z_REGULAR[p, s]
    return key


START_KEY = _start_key()
_START_BOARD = bytearray(NUM_SQUARES)  # 1 on the start squares
for _s in [*START_POWER, *START_REGULAR.ravel()]:
    _START_BOARD[_s] = 1
START_OCCUPANCY = np.zeros(2, np.uint64)
for _s in np.flatnonzero(_START_BOARD):
    START_OCCUPANCY[_s >> 6] |= np.uint64(1) << np.uint64(_s & 63)


# Line tables: RUN_ROW[column, pattern] is the number of empty squares right of ``column``
# (low nibble) and left of it (high nibble) in a row of occupancy ``pattern`` (bit = column);
# RUN_COL[row, pattern] those above (low) and below (high) ``row`` in a column (bit = row).
def _runs(width: int) -> np.ndarray:
    """Per bit and pattern of a line of ``width`` squares: the clear bits above it (low nibble)
    and below it (high nibble) up to the first set bit or the line's end."""
    table = np.zeros((width, 1 << width), np.uint8)
    for bit in range(width):
        for pattern in range(1 << width):
            up = 0
            while bit + up + 1 < width and not pattern >> (bit + up + 1) & 1:
                up += 1
            down = 0
            while bit - down - 1 >= 0 and not pattern >> (bit - down - 1) & 1:
                down += 1
            table[bit, pattern] = up | down << 4
    return table


RUN_ROW = _runs(NUM_COLUMNS)
RUN_COL = _runs(NUM_ROWS)
START_LINES = np.array(rules.line_patterns(_START_BOARD), np.int16)  # the rules' row and column patterns
# the power chip's moves along a ray are written 9 at a time (the longest ray), counted by its length
RAY_WRITE = 9
LEGAL_CAPACITY = MAX_LEGAL + RAY_WRITE
# per viewer, the observation cells of the corner planes: own corner (plane 4), opponent's (5)
CORNER_CELLS = np.array([[s * NUM_PLANES + 4 for s in np.flatnonzero(CORNER[v])]
                         + [s * NUM_PLANES + 5 for s in np.flatnonzero(CORNER[1 - v])] for v in (0, 1)], np.int64)
VECTOR = 16  # floats per vector store (64 bytes)
STREAM_BYTES = 12 << 20  # observation buffers this large are written with streaming stores
AHEAD = 8  # rows the step kernel prefetches ahead

# ----- helpers ----------------------------------------------------------------------------------

_I32 = ir.IntType(32)
_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")
_F16 = ir.VectorType(ir.FloatType(), VECTOR)


def _vector_of(context, array_type):
    """The LLVM vector of ``VECTOR`` elements of ``array_type``'s element type (float or byte)."""
    return ir.VectorType(context.get_data_type(array_type.dtype), VECTOR)


def _pointer(context, builder, array_type, array, index):
    view = context.make_array(array_type)(context, builder, array)
    return builder.gep(view.data, [index])


@intrinsic
def _prefetch(typingctx, array, index):
    """A hint to bring the cache line of element ``index`` (flat, C order) of ``array`` in for a
    write (llvm.prefetch; no effect on results)."""
    def codegen(context, builder, signature, args):
        pointer = builder.bitcast(_pointer(context, builder, signature.args[0], args[0], args[1]),
                                  ir.IntType(8).as_pointer())
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [ir.IntType(8).as_pointer(), _I32, _I32, _I32]),
            "llvm.prefetch.p0")
        builder.call(function, [pointer, ir.Constant(_I32, 1), ir.Constant(_I32, 3), ir.Constant(_I32, 1)])
        return context.get_dummy_value()
    return types.void(array, types.intp), codegen


@intrinsic
def _address(typingctx, array):
    """The address of ``array``'s first element."""
    def codegen(context, builder, signature, args):
        view = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.ptrtoint(view.data, context.get_value_type(types.intp))
    return types.intp(array), codegen


@intrinsic
def _fill_squares(typingctx, out, pattern, count):
    """``pattern[0:16]`` (of ``out``'s element type) stored at ``out[13 * k]`` for k in
    0..count-1, one vector store each (each overlaps the next square's first three cells, which
    that square's store rewrites)."""
    def codegen(context, builder, signature, args):
        vector = _vector_of(context, signature.args[0])
        align = signature.args[0].dtype.bitwidth // 8
        source = builder.bitcast(_pointer(context, builder, signature.args[1], args[1],
                                          context.get_constant(types.intp, 0)), vector.as_pointer())
        value = builder.load(source, align=align, typ=vector)
        view = context.make_array(signature.args[0])(context, builder, args[0])
        with cgutils.for_range(builder, args[2]) as loop:
            offset = builder.mul(loop.index, context.get_constant(types.intp, NUM_PLANES))
            target = builder.bitcast(builder.gep(view.data, [offset]), vector.as_pointer())
            builder.store(value, target, align=align)
        return context.get_dummy_value()
    return types.void(out, pattern, types.intp), codegen


@intrinsic
def _stream16(typingctx, out, index, source, source_index):
    """``source[source_index:+16]`` stored at ``out[index:+16]`` with one non-temporal 64-byte
    store (float32 rows only; the target must be 64-byte aligned): it goes to memory without reading the line first
    and without filling the cache."""
    def codegen(context, builder, signature, args):
        source = builder.bitcast(_pointer(context, builder, signature.args[2], args[2], args[3]), _F16.as_pointer())
        value = builder.load(source, align=4, typ=_F16)
        target = builder.bitcast(_pointer(context, builder, signature.args[0], args[0], args[1]), _F16.as_pointer())
        store = builder.store(value, target, align=64)
        store.set_metadata("nontemporal", builder.module.add_metadata([ir.Constant(_I32, 1)]))
        return context.get_dummy_value()
    return types.void(out, types.intp, source, types.intp), codegen


@intrinsic
def _store_fence(typingctx):
    """The streaming stores before it are visible before any store after it (x86: sfence, which
    orders them; a locked instruction, LLVM's seq_cst fence there, is not documented to)."""
    def codegen(context, builder, signature, args):
        if _X86:
            function = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []),
                                                      "llvm.x86.sse.sfence")
            builder.call(function, [])
        else:
            builder.fence("seq_cst")
        return context.get_dummy_value()
    return types.void(), codegen


@njit(cache=True, inline="always")
def _prefetch_row(j, actions, player, state, mask, rep_keys) -> None:
    """Ask for the cache lines row ``j``'s step will write: the mask ranges of the next mover's
    chips (where its moves are set) and the repetition slot. The mask entries to clear are not
    asked for: they were set two steps ago and are mostly still cached."""
    if actions[j] < 0 or player[j] < 0:
        return
    chips, slot, key = state[0], state[1], state[8]
    row = np.int64(j) * NUM_ACTIONS
    p = player[j]
    q = 1 - p
    for c in range(9):
        s = np.int64(chips[j, q, c]) * NUM_SQUARES
        _prefetch(mask, row + s)
        _prefetch(mask, row + s + NUM_SQUARES // 2)
        _prefetch(mask, row + s + NUM_SQUARES - 1)
    # the repetition slot where count_position will probe for the next position
    a = actions[j]
    after = key[j]
    if a != PASS:
        origin, target = a // NUM_SQUARES, a % NUM_SQUARES
        z = Z_POWER[p] if slot[j, origin] == 0 else Z_REGULAR[p]
        after ^= z[origin] ^ z[target]
    position = _position_key(after, q)
    _prefetch(rep_keys, np.int64(j) * rep_keys.shape[1] + table_slot(rep_keys, position))


@njit(cache=True, inline="always")
def _position_key(key, to_move) -> np.uint64:
    """The repetition key of a position with chip key ``key`` and ``to_move`` to move."""
    return key ^ LIGHT_KEY if to_move == 1 else key


@njit(cache=True, inline="always")
def _start_row(i, state, common) -> None:
    """The start position, player_0 to move, counted once for repetition."""
    chips, slot, occ, lines, home, tomove, passes, last, key, reps = state
    (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
     legal, nlegal, rep_keys, rep_counts) = common
    occ[i, 0] = START_OCCUPANCY[0]
    occ[i, 1] = START_OCCUPANCY[1]
    for k in range(NUM_LINES):
        lines[i, k] = START_LINES[k]
    for p in range(2):
        s = START_POWER[p]
        chips[i, p, 0] = s
        slot[i, s] = 0
        for c in range(8):
            s = START_REGULAR[p, c]
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
    """How many empty squares a chip of ``p`` on ``s`` passes going in diagonal direction ``d``
    (a bit count of zero words gives 64, and ``STOP`` maps "no chip" to the ray's end)."""
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
def _write_legal(i, state, mask, legal, nlegal) -> None:
    """The mover's legal list: the power chip's stops, each regular chip's slide ends, else pass.
    The entries set before are cleared first; then the moves are written to ``legal`` without a
    branch per ray (a power chip ray's 9 candidates and a regular chip's empty slide are written
    and only the real ones counted), then marked in ``mask``."""
    chips, occ, lines, tomove = state[0], state[2], state[3], state[5]
    mask_row = mask[i]
    out = legal[i]
    for k in range(nlegal[i]):
        mask_row[out[k]] = False
    p = tomove[i]
    n = 0
    s = np.int64(chips[i, p, 0])
    base = s * (NUM_SQUARES + 1)
    row, column = SQ_ROW[s], SQ_COLUMN[s]
    across = np.int64(RUN_ROW[column, lines[i, row]])
    along = np.int64(RUN_COL[row, lines[i, NUM_ROWS + column]])
    lengths = RAY_LENGTH[p, s]
    for d in range(8):
        if d == 0:
            free = min(along & 15, np.int64(lengths[0]))
        elif d == 1:
            free = min(along >> 4, np.int64(lengths[1]))
        elif d == 2:
            free = min(across & 15, np.int64(lengths[2]))
        elif d == 3:
            free = min(across >> 4, np.int64(lengths[3]))
        else:
            free = _free(p, s, d, occ[i, 0], occ[i, 1])
        delta = DELTA[d]
        for k in range(RAY_WRITE):
            out[n + k] = base + (k + 1) * delta
        n += free
    for c in range(1, 9):
        s = np.int64(chips[i, p, c])
        base = s * (NUM_SQUARES + 1)
        row, column = SQ_ROW[s], SQ_COLUMN[s]
        across = np.int64(RUN_ROW[column, lines[i, row]])
        along = np.int64(RUN_COL[row, lines[i, NUM_ROWS + column]])
        lengths = RAY_LENGTH[p, s]
        free = min(along & 15, np.int64(lengths[0]))
        out[n] = base + free * NUM_COLUMNS
        n += free > 0
        free = min(along >> 4, np.int64(lengths[1]))
        out[n] = base - free * NUM_COLUMNS
        n += free > 0
        free = min(across & 15, np.int64(lengths[2]))
        out[n] = base + free
        n += free > 0
        free = min(across >> 4, np.int64(lengths[3]))
        out[n] = base - free
        n += free > 0
    if n == 0:
        out[0] = PASS
        n = 1
    for k in range(n):
        mask_row[out[k]] = True
    nlegal[i] = n


@njit(cache=True, inline="always")
def _build_view(out, pattern, i, state, history_length, viewer, to_move_flag, scale) -> None:
    """The core's observation tensor of row ``i`` for ``viewer`` into the flat row ``out``
    (``CELLS`` floats; ``pattern`` is 16 floats of scratch): every square as an empty square
    with planes 7-10 filled, one vector store each, then the corners, chips and last move.
    ``to_move_flag`` is plane 7, ``scale`` the history length of a full plane 10."""
    chips, passes, last, reps = state[0], state[6], state[7], state[9][i, 0]
    for k in range(VECTOR):
        pattern[k] = 0.0
    pattern[6] = 1.0
    pattern[7] = to_move_flag
    pattern[8] = 1.0 if passes[i] > 0 else 0.0
    pattern[9] = plane_ratio(pattern, min(reps, 3), 3.0)
    pattern[10] = plane_capped(pattern, history_length, scale) if history_length > 0 else 0
    _fill_squares(out, pattern, NUM_SQUARES - 1)
    for k in range(NUM_PLANES):  # the last square by itself: a vector store would run past the row
        out[(NUM_SQUARES - 1) * NUM_PLANES + k] = pattern[k]
    cells = CORNER_CELLS[viewer]
    for k in range(cells.shape[0]):
        out[cells[k]] = 1.0
    for p in range(2):
        side = 0 if p == viewer else 2
        for c in range(9):
            b = np.int64(chips[i, p, c]) * NUM_PLANES
            out[b + 6] = 0.0
            out[b + side + (1 if c == 0 else 0)] = 1.0  # index 0 is the power chip
    a = last[i]
    if history_length > 0 and a != PASS and a >= 0:
        out[(a // NUM_SQUARES) * NUM_PLANES + 11] = 1.0
        out[(a % NUM_SQUARES) * NUM_PLANES + 12] = 1.0


@njit(cache=True, inline="always")
def _stream_row(out, scratch) -> None:
    """``scratch[:CELLS]`` into the row ``out``: non-temporal 64-byte stores for its whole cache
    lines, ordinary stores for the partial lines at either end (shared with the next rows)."""
    head = min(((64 - (_address(out) & 63)) & 63) >> 2, CELLS)
    for k in range(head):
        out[k] = scratch[k]
    count = (CELLS - head) // VECTOR
    for v in range(count):
        _stream16(out, head + v * VECTOR, scratch, head + v * VECTOR)
    for k in range(head + count * VECTOR, CELLS):
        out[k] = scratch[k]


@njit(cache=True, inline="always")
def _write_view(out, scratch, i, state, history_length, viewer, to_move_flag, scale, stream) -> None:
    """The view into the row ``out``: built in place, or (``stream``) in ``scratch`` and streamed."""
    if stream:
        _build_view(scratch, scratch[CELLS + VECTOR:], i, state, history_length, viewer, to_move_flag, scale)
        _stream_row(out, scratch)
    else:
        _build_view(out, scratch[CELLS + VECTOR:], i, state, history_length, viewer, to_move_flag, scale)


@njit(cache=True, inline="always")
def _apply(i, a, state, rep_keys, rep_counts) -> int:
    """Play action ``a`` for the player to move; returns -1 if play goes on, the winner's seat,
    or 2 for a draw (two passes, or the third occurrence of a position)."""
    chips, slot, occ, lines, home, tomove, passes, last, key, reps = state
    p = tomove[i]
    if a == PASS:
        passes[i] += 1
    else:
        passes[i] = 0
        origin, target = a // NUM_SQUARES, a % NUM_SQUARES
        c = slot[i, origin]
        slot[i, target] = c
        occ[i, origin >> 6] ^= np.uint64(1) << np.uint64(origin & 63)
        occ[i, target >> 6] ^= np.uint64(1) << np.uint64(target & 63)
        lines[i, SQ_ROW[origin]] ^= 1 << SQ_COLUMN[origin]
        lines[i, NUM_ROWS + SQ_COLUMN[origin]] ^= 1 << SQ_ROW[origin]
        lines[i, SQ_ROW[target]] ^= 1 << SQ_COLUMN[target]
        lines[i, NUM_ROWS + SQ_COLUMN[target]] ^= 1 << SQ_ROW[target]
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
# ``state`` is the tuple of the row state arrays (``STATE_FIELDS``), ``common`` that of
# ``fox_envs.batch.env.COMMON_FIELDS``; ``scale`` is ``max_moves_default`` (plane 10) and
# ``stream`` whether observation rows are written with streaming stores.


@njit(cache=True, nogil=True)
def reset_rows(lo, hi, which, state, common, scale, stream) -> None:
    """A new game in every row ``i`` of ``[lo, hi)`` with ``which[i]``."""
    common = borrowed(common)
    state = borrowed(state)
    which = borrowed((which,))[0]
    obs, mask, legal, nlegal = common[0], common[1], common[13], common[14]
    scratch = np.empty(CELLS + 2 * VECTOR, obs.dtype)
    flat = obs.reshape((obs.shape[0], CELLS))
    for i in range(lo, hi):
        if which[i]:
            _start_row(i, state, common)
            _write_legal(i, state, mask, legal, nlegal)
            _write_view(flat[i], scratch, i, state, 0, 0, 1.0, scale, stream)
    if stream:
        _store_fence()


@njit(cache=True, nogil=True)
def step_rows(lo, hi, actions, state, common, max_moves, auto_reset, final_view, scale, stream) -> None:
    """Play ``actions[i]`` in every row of ``[lo, hi)`` (rows with a negative action or a finished
    game are skipped): ends recorded, the final view for ``final_view`` (-1: the mover), finished
    rows restarted with ``auto_reset``, and the next view and mask written."""
    common = (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
              legal, nlegal, rep_keys, rep_counts) = borrowed(common)
    state = borrowed(state)
    actions = borrowed((actions,))[0]
    tomove = state[5]
    flat = obs.reshape((obs.shape[0], CELLS))
    final_flat = final_obs.reshape((final_obs.shape[0], CELLS))
    scratch = np.empty((2, CELLS + 2 * VECTOR), obs.dtype)
    # streaming: a row's view is built in one scratch buffer and streamed out after the next
    # row's is built in the other (its stores have reached the cache by then)
    pending = -1
    half = 0
    for i in range(lo, hi):
        if i + AHEAD < hi:
            _prefetch_row(i + AHEAD, actions, player, state, mask, rep_keys)
        a = take_action(actions, player, rewards, term, trunc, hist, hlen, moves, i)
        if a < 0:
            continue
        mover = player[i]
        result = _apply(i, a, state, rep_keys, rep_counts)
        if result < 0 and moves[i] < max_moves:
            player[i] = 1 - mover
            _write_legal(i, state, mask, legal, nlegal)
            if stream:
                buffer = scratch[half]
                _build_view(buffer, buffer[CELLS + VECTOR:], i, state, hlen[i], 1 - mover, 1.0, scale)
                if pending >= 0:
                    _stream_row(flat[pending], scratch[1 - half])
                pending = i
                half = 1 - half
            else:
                _build_view(flat[i], scratch[0, CELLS + VECTOR:], i, state, hlen[i], 1 - mover, 1.0, scale)
            continue
        record_end(rewards, term, trunc, i, result)
        viewer = mover if final_view < 0 else final_view
        flag = 1.0 if result < 0 and viewer == tomove[i] else 0.0
        _build_view(final_flat[i], scratch[half, CELLS + VECTOR:], i, state, hlen[i], viewer, flag, scale)
        keep_history(hist, hlen, last_hist, last_hlen, i)
        if auto_reset:
            _start_row(i, state, common)
            _write_legal(i, state, mask, legal, nlegal)
            _build_view(flat[i], scratch[half, CELLS + VECTOR:], i, state, 0, 0, 1.0, scale)
        else:
            player[i] = TERMINAL
            clear_legal(mask, legal, nlegal, i)
            flat[i, :] = final_flat[i, :]
    if pending >= 0:
        _stream_row(flat[pending], scratch[1 - half])
    if stream:
        _store_fence()


@njit(cache=True, nogil=True)
def replay_row(i, history, state, common, scale) -> None:
    """Row ``i`` from the start through the actions ``history``; its view and mask written."""
    common = (obs, mask, player, rewards, term, trunc, final_obs, moves, streams, hist, hlen, last_hist, last_hlen,
              legal, nlegal, rep_keys, rep_counts) = borrowed(common)
    state = borrowed(state)
    history = borrowed((history,))[0]
    tomove = state[5]
    _start_row(i, state, common)
    for a in history:
        push_history(hist, hlen, i, a)
        moves[i] += 1
        _apply(i, a, state, rep_keys, rep_counts)
    player[i] = tomove[i]
    _write_legal(i, state, mask, legal, nlegal)
    flat = obs.reshape((obs.shape[0], CELLS))
    scratch = np.empty(CELLS + 2 * VECTOR, obs.dtype)
    _write_view(flat[i], scratch, i, state, hlen[i], tomove[i], 1.0, scale, False)


@njit(cache=True, nogil=True)
def run_rows(box, lo, hi, mode, actions, max_moves, auto_reset, final_view) -> int:
    """The ``Rows`` box's kernel (``fox_envs.batch._box``): ``mode``'s work on ``actions`` for
    rows ``[lo, hi)``, then the step unless an illegal action was found (its row is returned)."""
    bad = prepare(box.common, lo, hi, mode, actions)
    if bad < 0 and mode != PICK:
        step_rows(lo, hi, actions, box.state[0], box.common, max_moves, auto_reset, final_view, box.extra[0], box.extra[1])
    return bad
