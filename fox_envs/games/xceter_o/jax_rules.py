"""X-Ceter-O in JAX (``fox_envs.jax``): the rules of ``rules.py`` as pure array functions.

The position is the board (piece number per square), each piece's square, the ply, the player
to move (or ``TERMINAL``), the winner, and the targets played so far packed six to an int32 (the
repetition rule's memory). Every piece moves once in any six plies, so after the placements the
position after ply ``m`` (with the piece to move next) is the last six targets, and a position
can only recur six plies apart (see ``occurrences``): 4 bytes per six plies, compared six
columns at a time with bit masks.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from fox_envs.core.game import TERMINAL
from fox_envs.games.xceter_o.rules import LINES, NUM_PLANES, OBS_SHAPE
from fox_envs.jax.rules import JaxRules

LINE_MASKS = jnp.asarray([(1 << a) | (1 << b) | (1 << c) for a, b, c in LINES], jnp.int32)
ORDERED = jnp.asarray(list(LINES) + [tuple(reversed(line)) for line in LINES], jnp.int32)  # [16, 3]


def _square_planes() -> np.ndarray:
    """``SQUARE_PLANES[code]``: one square's 10 observation planes (float32), where ``code =
    piece + 7 * viewer + 14 * is_now + 28 * is_after + 56 * placing`` (piece 0 = empty; is_now /
    is_after: the square holds the piece to move now / after it; placing: ply < 6)."""
    table = np.zeros((112, NUM_PLANES), np.float32)
    for code in range(112):
        piece, viewer, is_now, is_after, placing = code % 7, code // 7 % 2, code // 14 % 2, code // 28 % 2, code // 56
        # the viewer's pieces in number order on planes 0-2, the opponent's on 3-5, empty on 6
        table[code, 6 if piece == 0 else (piece - 1) // 2 + (0 if (piece - 1) % 2 == viewer else 3)] = 1.0
        table[code, 7:10] = is_now, is_after, placing
    return table


SQUARE_PLANES = jnp.asarray(_square_planes())
PIECES = jnp.arange(7)  # index of square_of
OWN_PIECES = jnp.asarray([[1, 3, 5], [2, 4, 6]], jnp.int32)
COLUMN_SHIFTS = 4 * jnp.arange(6)  # piece c + 1's square sits in bits 4c..4c+3 of a packed row
ALL_COLUMNS = (1 << 24) - 1


class Position(NamedTuple):
    board: jax.Array  # int8 [9]: piece 1..6 on each square, 0 empty
    square_of: jax.Array  # int8 [7]: square of piece 1..6, -1 off the board (index 0 unused)
    ply: jax.Array  # int32: plies played; the next piece is ply % 6 + 1
    player: jax.Array  # int32: the player to move, TERMINAL once over
    winner: jax.Array  # int32: -1 none
    packed: jax.Array  # int32 [rows]: the targets of plies 6k..6k+5 in row k, 4 bits per column


class XCeterOJax(JaxRules):
    num_players = 2
    num_actions = 9
    observation_shape = OBS_SHAPE
    max_chance_outcomes = 0

    def __init__(self, game, max_moves: int) -> None:
        super().__init__(game, max_moves)
        self.ordered_rows = bool(game.params["ordered_rows"])

    def history_capacity(self) -> int:
        return self.max_moves  # no chance events

    def initial(self) -> Position:
        return Position(jnp.zeros(9, jnp.int8), jnp.full(7, -1, jnp.int8), jnp.int32(0), jnp.int32(0),
                        jnp.int32(-1), jnp.zeros(self.max_moves // 6 + 2, jnp.int32))

    def player(self, position: Position) -> jax.Array:
        return position.player

    def legal_mask(self, position: Position) -> jax.Array:
        """Any empty square: a placement, or a jump (staying put is not a move)."""
        return position.board == 0

    def chance_weights(self, position: Position) -> jax.Array:
        return jnp.ones(1, jnp.int32)

    def returns(self, position: Position) -> jax.Array:
        winner = position.winner
        return jnp.where(winner < 0, 0.0, jnp.where(jnp.arange(2) == winner, 1.0, -1.0)).astype(jnp.float32)

    def apply(self, position: Position, action: jax.Array) -> Position:
        """Piece ``ply % 6 + 1`` goes to ``action`` (from its square, once placed); then the win
        check, then (from ply 6 on) the third occurrence of the position is a draw. Written with
        selects instead of scatters (faster under ``vmap``)."""
        board, square_of, ply = position.board, position.square_of, position.ply
        piece = ply % 6 + 1
        mover = (piece - 1) % 2
        old = jnp.sum(jnp.where(PIECES == piece, square_of, 0)).astype(jnp.int32)  # square_of[piece]
        squares = jnp.arange(9)
        board = jnp.where(squares == action, piece.astype(jnp.int8), jnp.where(squares == old, jnp.int8(0), board))
        square_of = jnp.where(PIECES == piece, action.astype(jnp.int8), square_of)
        column = (ply % 6) * 4
        packed = jnp.where(jnp.arange(position.packed.shape[0]) == ply // 6,
                           position.packed | jnp.left_shift(action.astype(jnp.int32), column), position.packed)
        ply = ply + 1
        own = square_of[OWN_PIECES[mover]].astype(jnp.int32)  # the mover's pieces 1-3-5 or 2-4-6
        placed = own >= 0
        bits = jnp.sum(jnp.where(placed, jnp.left_shift(1, jnp.maximum(own, 0)), 0))
        won = jnp.all(placed) & jnp.any(bits == LINE_MASKS)
        if self.ordered_rows:
            won = won & jnp.any(jnp.all(ORDERED == own, axis=1))
        now = jnp.sum(jnp.left_shift(square_of[1:].astype(jnp.int32), COLUMN_SHIFTS))
        drawn = (ply >= 6) & ~won & (occurrences(packed, ply, now) >= 3)
        player = jnp.where(won | drawn, TERMINAL, 1 - mover).astype(jnp.int32)
        return Position(board, square_of, ply, player, jnp.where(won, mover, position.winner).astype(jnp.int32),
                        packed)

    def observe(self, position: Position, player: jax.Array) -> jax.Array:
        """Planes 0-2 the viewer's pieces in number order, 3-5 the opponent's, 6 empty squares,
        7 the square of the piece to move now, 8 of the piece after it, 9 ones while placing.
        Each square's planes are one row of ``SQUARE_PLANES`` (a gather of 9 rows: on a CPU far
        cheaper than building the planes element by element)."""
        board, square_of, ply = position.board, position.square_of, position.ply
        now = ply % 6 + 1
        after = now % 6 + 1
        squares = jnp.arange(9)
        now_square = jnp.sum(jnp.where(PIECES == now, square_of, 0))
        after_square = jnp.sum(jnp.where(PIECES == after, square_of, 0))
        code = (board.astype(jnp.int32) + 7 * jnp.clip(player, 0, 1) + jnp.where(squares == now_square, 14, 0)
                + jnp.where(squares == after_square, 28, 0) + jnp.where(ply < 6, 56, 0))
        # one code per square, computed once: fused into the gather it would be redone for each plane
        code = jax.lax.optimization_barrier(code)
        return SQUARE_PLANES[code].reshape(OBS_SHAPE)


def occurrences(packed: jax.Array, ply: jax.Array, now: jax.Array) -> jax.Array:
    """How often the position after ply ``ply`` (``ply >= 6``) has occurred, given ``packed``
    (the history in rows of six targets, 4 bits each) and ``now`` (the current squares packed
    the same way).

    Ply ``i`` moves piece ``i % 6 + 1``, so column ``c`` of a row holds piece ``c + 1``'s targets.
    After ply ``m = 6k + r`` piece ``c + 1`` stands on row ``k``'s target when ``c < r``, else on
    row ``k - 1``'s; the position recurs at ``m`` when all six agree with ``now``."""
    phase = ply % 6
    early = jnp.left_shift(1, 4 * phase) - 1  # the bits of the columns c < phase
    late = ALL_COLUMNS & ~early
    differs = jnp.bitwise_xor(packed, now)
    on_row = (differs & early) == 0
    on_row_before = jnp.concatenate([jnp.zeros(1, bool), (differs[:-1] & late) == 0])
    k = jnp.arange(packed.shape[0])
    return jnp.sum(on_row & on_row_before & (k >= 1) & (k <= ply // 6))
