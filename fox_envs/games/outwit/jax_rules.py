"""Outwit in JAX (``fox_envs.jax``): the rules of ``rules.py`` as pure array functions.

The position is the board (a code per square: 0 empty, 1 + 2 * player + is_power), each chip's
square (per player, the power chip first), the chips home, the ply, consecutive passes, the last
action, the player to move (or ``TERMINAL``), the winner, how often the current position has
occurred, and the repetition keys of every position seen.

Moves come from tables of the rules module's rays (``DIRECTION_RAYS``: the edge, the opponent's
corner as a wall and the own-corner rule built in). Per chip and direction the free run is the
clear run along the chip's row or column (looked up by the line's occupancy pattern) capped by
the ray's length, or for the power chip's diagonals the first occupied square along the ray. A
regular chip's move is its origin plus run times the direction's step; the power chip's row of
the mask compares each target's distance (``REACH``) with the run in its direction. The mask is
a zero mask, that row written as one slice and the at most 32 regular moves (or ``pass``) set by
a small scatter: no work per entry of the 8,101 beyond writing it.

A repetition key is three uint32 words, exact: the rank of the set of occupied squares among all
sets of 18 squares (two words), and per occupied square in square order whether it holds a dark
chip, the ranks of the two power chips among the occupied squares and the player to move. Keys
are stored by ply, the positions with player_0 to move apart from those with player_1 to move,
and a new key is compared with its own half only.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from fox_envs.core.game import TERMINAL
from fox_envs.games.outwit import rules
from fox_envs.games.outwit.rules import (NUM_ACTIONS, NUM_COLUMNS, NUM_PLANES, NUM_ROWS, NUM_SQUARES, OBS_SHAPE, PASS,
                                         SQUARE_INDEX)
from fox_envs.jax.fusion import materialize
from fox_envs.jax.rules import JaxRules

RAY_SLOTS = 9  # the longest ray
NO_SQUARE = NUM_SQUARES  # a ray's padding: reads as occupied
UNUSED = np.uint32(0xFFFFFFFF)  # a repetition key word no position has (bits 29-31 of word 2)


def _ray_table() -> np.ndarray:
    """``RAYS[p * 90 + s, d, k]``: the k-th square a chip of p on s passes in direction d on an
    empty board (the rules' ``DIRECTION_RAYS``: walls and the own-corner rule built in),
    ``NO_SQUARE`` beyond the ray's end."""
    rays = np.full((2, NUM_SQUARES, 8, RAY_SLOTS), NO_SQUARE, np.int32)
    for p in (0, 1):
        for s in range(NUM_SQUARES):
            for d, ray in enumerate(rules.DIRECTION_RAYS[p][s]):
                rays[p, s, d, : len(ray)] = ray
    return rays.reshape(2 * NUM_SQUARES, 8, RAY_SLOTS)


def _clear_runs(width: int) -> np.ndarray:
    """Per bit and occupancy pattern of a line of ``width`` squares: the clear squares above the
    bit and below it, up to the first set bit or the line's end (``[width << width, 2]``)."""
    table = np.zeros((width, 1 << width, 2), np.int8)
    for bit in range(width):
        for pattern in range(1 << width):
            for side, step in ((0, 1), (1, -1)):
                k = bit + step
                while 0 <= k < width and not pattern >> k & 1:
                    k += step
                table[bit, pattern, side] = abs(k - bit) - 1
    return table.reshape(width << width, 2)


def _reach_table() -> np.ndarray:
    """``REACH[p * 90 + s, t]``: the direction (8: none) and the distance of ``t`` along the rays
    of a chip of p on s (99 where ``t`` is on none), as int8."""
    reach = np.zeros((2 * NUM_SQUARES, NUM_SQUARES, 2), np.int8)
    reach[:, :, 0], reach[:, :, 1] = 8, 99
    for p in (0, 1):
        for s in range(NUM_SQUARES):
            for d, ray in enumerate(rules.DIRECTION_RAYS[p][s]):
                for k, t in enumerate(ray):
                    reach[p * NUM_SQUARES + s, t] = d, k + 1
    return reach


RAYS = jnp.asarray(_ray_table()[:, 4:])  # [p * 90 + s, 4, 9]: the diagonal rays (the power chip's)
REACH = jnp.asarray(_reach_table())
ORTHOGONAL_LENGTH = jnp.asarray(np.array([[len(ray) for ray in rays[:4]] for side in rules.DIRECTION_RAYS
                                          for rays in side], np.int8))  # [p * 90 + s, d]: a ray's squares
RUN_ROW = jnp.asarray(_clear_runs(NUM_COLUMNS))  # row column * 1024 + pattern: clear squares right, left
RUN_COLUMN = jnp.asarray(_clear_runs(NUM_ROWS))  # row row * 512 + pattern: clear squares up, down
DELTA = jnp.asarray([dr * NUM_COLUMNS + dc for dr, dc in rules.DIRECTIONS], jnp.int32)  # a step's square change
COLUMN_BITS = jnp.asarray(2.0 ** np.arange(NUM_COLUMNS), jnp.float32)
CORNER_FLAT = jnp.asarray(np.array(rules.IN_CORNER, np.bool_).ravel())
SQUARES = jnp.arange(NUM_SQUARES, dtype=jnp.int32)
START_CHIPS = np.array([[SQUARE_INDEX[rules.START_POWER[p]]] + [SQUARE_INDEX[n] for n in rules.START_REGULAR[p]]
                        for p in (0, 1)], np.int8)
START_BOARD = np.zeros(NUM_SQUARES, np.int8)
for _p in (0, 1):
    START_BOARD[START_CHIPS[_p, 0]] = rules.POWER[_p]
    START_BOARD[START_CHIPS[_p, 1:]] = rules.REGULAR[_p]
# plane 9 (repetition count / 3) and plane 10 (history length / max_moves_default, capped at 1),
# as the rules core computes them (in float64, then stored in float32)
REPETITION_PLANE = jnp.asarray(np.array([min(c, 3) / 3.0 for c in range(4)], np.float32))
PROGRESS_SCALE = rules.OutwitGame.max_moves_default
PROGRESS_PLANE = jnp.asarray(np.array([min(1.0, n / PROGRESS_SCALE) for n in range(PROGRESS_SCALE + 1)], np.float32))
CHIP_IS_DARK = jnp.arange(18) < 9
PLANES = jnp.arange(NUM_PLANES)
# per viewer, the board code each plane shows (planes 0-3 the chips, 6 empty; -1 none)
PLANE_CODE = jnp.asarray(np.array([[1 + 2 * v, 2 + 2 * v, 3 - 2 * v, 4 - 2 * v, -1, -1, 0] + [-1] * 6 for v in (0, 1)],
                                  np.int8))
# per viewer, planes 4 (own corner) and 5 (the opponent's) over [90, 13]
_corner_planes = np.zeros((2, NUM_SQUARES, NUM_PLANES), np.float32)
for _v in (0, 1):
    _corner_planes[_v, :, 4] = rules.IN_CORNER[_v]
    _corner_planes[_v, :, 5] = rules.IN_CORNER[1 - _v]
CORNER_PLANES = jnp.asarray(_corner_planes)


class Position(NamedTuple):
    board: jax.Array  # int8 [90]: 0 empty, 1 + 2 * player + is_power
    chips: jax.Array  # int8 [2, 9]: each player's chip squares, the power chip first
    home: jax.Array  # int32 [2]: chips inside their own corner
    ply: jax.Array  # int32: actions played (passes too); ply % 2 is the player to move
    passes: jax.Array  # int32: consecutive passes just played
    last: jax.Array  # int32: the last action, -1 before the first
    player: jax.Array  # int32: the player to move, TERMINAL once over
    winner: jax.Array  # int32: -1 none
    reps: jax.Array  # int32: how often the current position has occurred (observation plane 9)
    seen: jax.Array  # uint32 [3, 2 * (max_moves // 2 + 1)]: the key after ply n at [:, n % 2 * half + n // 2]
    #                  (n % 2 is the player to move: a key is compared with its own half only)


def _choose_limbs() -> np.ndarray:
    """``C(n, k)`` for n < 90, k <= 18 as three 22-bit limbs (int32 ``[90, 19, 3]``, low first)."""
    table = np.zeros((NUM_SQUARES, 19, 3), np.int32)
    for n in range(NUM_SQUARES):
        for k in range(19):
            value = math.comb(n, k)
            table[n, k] = [(value >> (LIMB * i)) & LIMB_MASK for i in range(3)]
    return table


LIMB, LIMB_MASK = 22, (1 << 22) - 1
CHOOSE = jnp.asarray(_choose_limbs())


def position_key(chips: jax.Array, to_move: jax.Array) -> jax.Array:
    """The exact repetition key (uint32 [3]) of the chips ``chips`` with ``to_move`` to move.
    Words 0-1: the rank of the 18 occupied squares among all sets of 18 squares (colex:
    ``sum C(square, i + 1)`` over the squares in order, below ``C(90, 18) < 2**62``); word 2,
    bit i: the i-th occupied square holds a dark chip, bits 18-22 and 23-27 the ranks of the
    power chips, bit 28 player_1 to move (bits 29-31 clear)."""
    squares = chips.reshape(18).astype(jnp.int32)
    rank = jnp.sum(squares[None, :] < squares[:, None], axis=1, dtype=jnp.int32)
    sums = jnp.sum(CHOOSE[squares, rank + 1], axis=0, dtype=jnp.int32)  # [3] limb sums, each < 2**27
    low = sums[0] & LIMB_MASK
    middle = sums[1] + (sums[0] >> LIMB)
    high = sums[2] + (middle >> LIMB)  # below 2**18
    middle = middle & LIMB_MASK
    word0 = low.astype(jnp.uint32) | jnp.left_shift(middle.astype(jnp.uint32), LIMB)
    word1 = jnp.right_shift(middle.astype(jnp.uint32), 32 - LIMB) | jnp.left_shift(high.astype(jnp.uint32), 2 * LIMB - 32)
    rank = rank.astype(jnp.uint32)
    dark = jnp.sum(jnp.where(CHIP_IS_DARK, jnp.left_shift(jnp.uint32(1), rank), jnp.uint32(0)), dtype=jnp.uint32)
    word2 = (dark | jnp.left_shift(rank[0], 18) | jnp.left_shift(rank[9], 23)
             | jnp.left_shift(to_move.astype(jnp.uint32), 28))
    return jnp.stack([word0, word1, word2])


class OutwitJax(JaxRules):
    num_players = 2
    num_actions = NUM_ACTIONS
    observation_shape = OBS_SHAPE
    max_chance_outcomes = 0

    def history_capacity(self) -> int:
        return self.max_moves  # no chance events

    def _half(self) -> int:
        """The repetition keys kept per player to move: one per ply of that parity."""
        return self.max_moves // 2 + 1

    def initial(self) -> Position:
        chips = jnp.asarray(START_CHIPS)
        seen = jnp.full((3, 2 * self._half()), UNUSED, jnp.uint32)
        seen = seen.at[:, 0].set(position_key(chips, jnp.int32(0)))
        return Position(jnp.asarray(START_BOARD), chips, jnp.zeros(2, jnp.int32), jnp.int32(0), jnp.int32(0),
                        jnp.int32(-1), jnp.int32(0), jnp.int32(-1), jnp.int32(1), seen)

    def player(self, position: Position) -> jax.Array:
        return position.player

    def returns(self, position: Position) -> jax.Array:
        winner = position.winner
        return jnp.where(winner < 0, 0.0, jnp.where(jnp.arange(2) == winner, 1.0, -1.0)).astype(jnp.float32)

    def chance_weights(self, position: Position) -> jax.Array:
        return jnp.ones(1, jnp.int32)

    # ----- moves --------------------------------------------------------------------------------
    def _runs(self, position: Position) -> tuple[jax.Array, jax.Array, jax.Array]:
        """The mover's chip squares (int32 [9]), per chip the free run in the 4 orthogonal
        directions (int32 [9, 4]) and the power chip's in the 4 diagonal ones (int32 [4]): how
        many squares the chip may pass before a chip, the edge or a wall. An orthogonal run is the
        clear run along the chip's row or column, looked up by the line's occupancy pattern and
        capped by the ray's length; a diagonal one reads the occupancy along the ray."""
        mover = materialize(jnp.clip(position.player, 0, 1))
        squares = materialize(jnp.where(mover == 0, position.chips[0], position.chips[1]).astype(jnp.int32))
        occupied = materialize(position.board) != 0
        grid = occupied.reshape(NUM_ROWS, NUM_COLUMNS).astype(jnp.float32)
        # each line's occupancy pattern (bit = column, bit = row) as a product with powers of two
        row_lines = (grid @ COLUMN_BITS).astype(jnp.int32)
        column_lines = (COLUMN_BITS[:NUM_ROWS] @ grid).astype(jnp.int32)
        row, column = squares // NUM_COLUMNS, squares % NUM_COLUMNS
        # the table rows once per chip (not recomputed for each entry read)
        across_at = materialize(column * (1 << NUM_COLUMNS) + row_lines[row])
        along_at = materialize(row * (1 << NUM_ROWS) + column_lines[column])
        across = RUN_ROW[across_at]  # [9, 2]: right, left
        along = RUN_COLUMN[along_at]  # [9, 2]: up, down
        lengths = ORTHOGONAL_LENGTH[mover * NUM_SQUARES + squares]  # [9, 4]
        orthogonal = jnp.minimum(jnp.concatenate([along, across], axis=1), lengths).astype(jnp.int32)
        diagonals = RAYS[mover * NUM_SQUARES + squares[0]]  # [4, 9]: the power chip's
        blocked = jnp.concatenate([jnp.concatenate([occupied, jnp.ones(1, jnp.bool_)])[diagonals],
                                   jnp.ones((4, 1), jnp.bool_)], axis=1)
        diagonal = jnp.argmax(blocked, axis=1).astype(jnp.int32)
        return squares, orthogonal, diagonal

    def legal_mask(self, position: Position) -> jax.Array:
        """Every slide of the mover's chips (``from * 90 + to``): the power chip stops on any
        square of a run, a regular chip on the last square of an orthogonal run; ``pass`` only
        when there is none. The power chip's row of the mask is computed whole (per target, its
        direction and distance from ``REACH``) and written as one slice; the regular chips' at
        most 32 moves and the pass are set by a small scatter (the unused candidates are out of
        range and dropped)."""
        squares, orthogonal, diagonal = self._runs(position)
        mover = jnp.clip(position.player, 0, 1)
        power_run = jnp.concatenate([orthogonal[0], diagonal, jnp.zeros(1, jnp.int32)])  # direction 8: none
        reach = REACH[mover * NUM_SQUARES + squares[0]].astype(jnp.int32)  # [90, 2]: direction, distance
        power_row = reach[:, 1] <= power_run[reach[:, 0]]
        regular_run = orthogonal[1:]  # [8 chips, 4 orthogonal directions]
        regular = jnp.where(regular_run > 0, squares[1:, None] * (NUM_SQUARES + 1) + regular_run * DELTA[None, :4],
                            NUM_ACTIONS)
        stuck = ~jnp.any(power_run > 0) & ~jnp.any(regular_run > 0)
        candidates = jnp.concatenate([regular.reshape(-1), jnp.where(stuck, PASS, NUM_ACTIONS).reshape(1)])
        mask = jnp.zeros(NUM_ACTIONS, jnp.bool_).at[candidates].set(True, mode="drop")
        return jax.lax.dynamic_update_slice(mask, power_row, (squares[0] * NUM_SQUARES,))

    def apply(self, position: Position, action: jax.Array) -> Position:
        """Slide the chip (or pass); then the checks in the core's order: all nine chips home
        wins, a second pass in a row draws, a position seen the third time draws."""
        action = jnp.asarray(action, jnp.int32)
        mover = position.player
        passing = action == PASS
        origin = jnp.where(passing, NO_SQUARE, action // NUM_SQUARES)  # NO_SQUARE matches no square
        target = jnp.where(passing, NO_SQUARE, action % NUM_SQUARES)
        board = position.board
        code = jnp.sum(jnp.where(SQUARES == origin, board, jnp.int8(0)), dtype=jnp.int8)
        board = jnp.where(SQUARES == target, code, jnp.where(SQUARES == origin, jnp.int8(0), board))
        chips = position.chips
        chips = jnp.where((jnp.arange(2)[:, None] == mover) & (chips == origin), target.astype(jnp.int8), chips)
        corner = CORNER_FLAT[mover * NUM_SQUARES + jnp.minimum(target, NUM_SQUARES - 1)]
        was_in = CORNER_FLAT[mover * NUM_SQUARES + jnp.minimum(origin, NUM_SQUARES - 1)]
        entered = ~passing & corner & ~was_in
        home = position.home + ((jnp.arange(2) == mover) & entered).astype(jnp.int32)
        passes = jnp.where(passing, position.passes + 1, 0)
        ply = position.ply + 1
        to_move = 1 - mover
        won = jnp.sum(jnp.where(jnp.arange(2) == mover, home, 0)) == 9
        two_passes = ~won & (passes >= 2)
        counted = ~won & ~two_passes
        half = self._half()
        # the key and its slot once per row (not recomputed for every entry of the table)
        key = materialize(position_key(chips, to_move))
        slot = materialize(jnp.where(counted, to_move * half + ply // 2, -1))
        same_mover = jnp.where(to_move == 0, position.seen[:, :half], position.seen[:, half:])  # ply % 2
        seen_before = jnp.sum(jnp.all(same_mover == key[:, None], axis=0), dtype=jnp.int32)
        reps = seen_before + counted.astype(jnp.int32)
        repeated = counted & (reps >= 3)
        seen = jnp.where(jnp.arange(2 * half) == slot, key[:, None], position.seen)
        player = jnp.where(won | two_passes | repeated, TERMINAL, to_move).astype(jnp.int32)
        winner = jnp.where(won, mover, position.winner).astype(jnp.int32)
        return Position(board, chips, home, ply, passes, action, player, winner, reps, seen)

    # ----- observation --------------------------------------------------------------------------
    def observe(self, position: Position, player: jax.Array) -> jax.Array:
        """Planes 0-3 the viewer's regular and power chip, the opponent's; 4 / 5 the viewer's and
        the opponent's corner; 6 empty; 7 ones when the viewer is to move; 8 ones after a pass;
        9 the repetition count / 3; 10 the history length / 300 (at most 1); 11 / 12 the last
        move's from and to squares. One broadcast sum over [90, 13] (the planes are disjoint)."""
        # the board and the row's values once (not recomputed, from the step's selects, for
        # each of the 1,170 entries)
        board = materialize(position.board)[:, None]
        last, to_move, passes, reps, ply, viewer = materialize(jnp.stack([
            position.last, position.player, position.passes, position.reps, position.ply,
            jnp.clip(player, 0, 1).astype(jnp.int32)]))
        chip_planes = board == jnp.where(viewer == 0, PLANE_CODE[0], PLANE_CODE[1])
        moved = (last >= 0) & (last != PASS)
        origin = jnp.where(moved, last // NUM_SQUARES, -1)
        target = jnp.where(moved, last % NUM_SQUARES, -1)
        flags = (jnp.where(PLANES == 7, (to_move == viewer).astype(jnp.float32), 0.0)
                 + jnp.where(PLANES == 8, (passes > 0).astype(jnp.float32), 0.0)
                 + jnp.where(PLANES == 9, REPETITION_PLANE[jnp.clip(reps, 0, 3)], 0.0)
                 + jnp.where(PLANES == 10, PROGRESS_PLANE[jnp.clip(ply, 0, PROGRESS_SCALE)], 0.0))
        squares = SQUARES[:, None]
        planes = (chip_planes.astype(jnp.float32) + jnp.where(viewer == 0, CORNER_PLANES[0], CORNER_PLANES[1])
                  + flags[None, :] + ((squares == origin) & (PLANES == 11)).astype(jnp.float32)
                  + ((squares == target) & (PLANES == 12)).astype(jnp.float32))
        return planes.reshape(OBS_SHAPE)
