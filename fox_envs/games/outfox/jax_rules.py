"""Outfox in JAX (``fox_envs.jax``): the rules of ``rules.py`` as pure array functions.

The position is the board (piece type per point, -1 empty), the hands, the seat to move, the
decision kind (placement or slide), the point just placed, the completed turns, the winner and
the legal placement points of the next placement (a 19-bit mask, computed once per turn).

Everything works on fixed tables and bit masks, with no gathers over big arrays:

* occupancy is a 19-bit mask; a point's neighbours are the bit mask ``NB_MASK[point]``, and an
  empty point is a legal placement when an occupied neighbour has at least two empty
  neighbours (the point, and one to slide to);
* a slide ``from -> to`` is possible when the two points lie on one ray and every point of
  ``PATH[from, to]`` (the points after ``from`` up to ``to``) is empty: one AND over all 361
  pairs;
* the board padded to the 5 x 5 grid of the observation (``obs[r + 2, q + 2]``; the 19 points
  fill it in index order, so the padding is a few static slices) gives the observation's point
  planes and the 27 windows of three: each lattice axis is a shift of the grid, so the windows
  are static slices of it (those touching a cell outside the hexagon never win);
* the mask is one elementwise test per action on three words of the row, and the observation
  one elementwise loop over its 5 x 5 x P floats reading two small rows (each cell's state and
  the constant planes' values), computed first (``materialize``) so that XLA does not repeat
  them, and the rules before them, for each float.

The core checks winning lines only through the placed and the slid piece; a board without a
line before the turn (every position of a game that goes on) can only gain a line through them,
so the check of every window here is the same rule.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from fox_envs.core.game import TERMINAL
from fox_envs.games.outfox.board import (COORDS, NEIGHBOURS, NUM_ACTIONS, NUM_PLACE, NUM_POINTS, NUM_TYPES, PLACE,
                                         RAYS, SLIDE)
from fox_envs.games.outfox.rules import OutfoxGame
from fox_envs.jax.fusion import materialize
from fox_envs.jax.rules import JaxRules

ALL_POINTS = (1 << NUM_POINTS) - 1
POINTS = np.arange(NUM_POINTS)
BITS = (1 << POINTS).astype(np.int32)
NB_MASK = np.array([sum(1 << n for n in NEIGHBOURS[p]) for p in range(NUM_POINTS)], np.int32)
# PATH[from, to]: the points a slide from ``from`` to ``to`` passes through, ``to`` included
# (bit mask); ALIGNED[from, to]: ``to`` lies on one of ``from``'s rays.
PATH = np.zeros((NUM_POINTS, NUM_POINTS), np.int32)
ALIGNED = np.zeros((NUM_POINTS, NUM_POINTS), bool)
for _frm in range(NUM_POINTS):
    for _ray in RAYS[_frm]:
        _bits = 0
        for _to in _ray:
            _bits |= 1 << _to
            PATH[_frm, _to] = _bits
            ALIGNED[_frm, _to] = True
# the 25 cells of the 5 x 5 grid in order: where the 19 points go (they fill it in index order)
CELLS = np.array([(r + 2) * 5 + (q + 2) for q, r in COORDS])
assert np.array_equal(CELLS, np.r_[2:5, 6:19, 20:23])  # the layout ``grid`` and ``_cell_offset`` use
OFF_BOARD = -2  # a grid cell outside the hexagon


def _action_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per action, the bits that must be set in the row's placement word (types in hand, bits
    0-8, and legal points, bits 9-27) and in its slide word (the pieces that may slide), and the
    points that must be empty: action ``a`` is legal when ``place_word & NEED_PLACE[a] ==
    NEED_PLACE[a]``, ``slide_word & NEED_SLIDE[a] == NEED_SLIDE[a]`` and ``occupied &
    BLOCKERS[a] == 0``. A slide between points on no common ray needs bit 30, never set."""
    need_place = np.zeros(NUM_ACTIONS, np.int32)
    need_slide = np.zeros(NUM_ACTIONS, np.int32)
    blockers = np.zeros(NUM_ACTIONS, np.int32)
    for kind in range(NUM_TYPES):
        for point in range(NUM_POINTS):
            need_place[kind * NUM_POINTS + point] = (1 << kind) | (1 << (NUM_TYPES + point))
    for frm in range(NUM_POINTS):
        for to in range(NUM_POINTS):
            action = NUM_PLACE + frm * NUM_POINTS + to
            need_slide[action] = (1 << frm) if ALIGNED[frm, to] else (1 << 30)
            blockers[action] = PATH[frm, to]
    return need_place, need_slide, blockers


NEED_PLACE, NEED_SLIDE, BLOCKERS = _action_tables()
# a grid cell's state in the observation: the piece type 0..8, the piece just placed (9 + type),
# an empty point or a cell outside the hexagon
PLACED_STATE, EMPTY_STATE, OFF_STATE = NUM_TYPES, 2 * NUM_TYPES, 2 * NUM_TYPES + 1


def plane_states(num_planes: int, n: int) -> np.ndarray:
    """Per observation plane, the bit mask of the cell states that set it (0 for the constant
    planes)."""
    table = np.zeros(num_planes, np.int32)
    for kind in range(NUM_TYPES):
        for state in (kind, PLACED_STATE + kind):
            for plane in (kind, 9 + kind // 3, 12 + kind % 3, 16):
                table[plane] |= 1 << state
        table[19 + 9 * n] |= 1 << (PLACED_STATE + kind)
    table[15] |= 1 << EMPTY_STATE
    table[16] |= 1 << EMPTY_STATE
    return table
del _frm, _ray, _bits, _to


class Position(NamedTuple):
    board: jax.Array  # int8 [19]: piece type 0..8 on each point, -1 empty
    hands: jax.Array  # int8 [n, 9]: pieces of each type still in each seat's hand
    to_move: jax.Array  # int32: the seat to move (the last mover once won)
    phase: jax.Array  # int32: PLACE or SLIDE
    placed: jax.Array  # int32: the point of the piece just placed (slide decision), -1 otherwise
    turns: jax.Array  # int32: completed turns (the first is a placement only)
    winner: jax.Array  # int32: -1 while the game goes on
    points: jax.Array  # int32: the legal placement points of the next placement (19-bit mask)


def _occupied_bits(board: jax.Array) -> jax.Array:
    """The occupied points as a 19-bit mask."""
    return jnp.sum(jnp.where(board >= 0, BITS, 0)).astype(jnp.int32)


def legal_point_bits(occupied: jax.Array) -> jax.Array:
    """The core's ``legal_points``: empty points next to an occupied point with two or more empty
    neighbours; every point on the empty board."""
    free = NB_MASK & ~occupied  # each point's empty neighbours
    roomy = ((occupied >> POINTS) & 1).astype(bool) & ((free & (free - 1)) != 0)
    bits = jnp.bitwise_or.reduce(jnp.where(roomy, free, 0))
    return jnp.where(occupied == 0, ALL_POINTS, bits).astype(jnp.int32)


def grid(board: jax.Array) -> jax.Array:
    """The board on the 25 cells of the 5 x 5 grid (``OFF_BOARD`` outside the hexagon)."""
    pad = jnp.full(2, OFF_BOARD, board.dtype)
    return jnp.concatenate([pad, board[0:3], pad[:1], board[3:16], pad[:1], board[16:19], pad])


def has_line(cells: jax.Array) -> jax.Array:
    """Whether the board (on the 5 x 5 grid, ``[5, 5]``) holds a winning line: three different
    shapes of one colour or one shape in three different colours on three consecutive points of
    one axis. The axes are the grid's columns, rows and anti-diagonals (axial (1, -1))."""
    g = cells.astype(jnp.int32)
    windows = [
        (g[:, 0:3], g[:, 1:4], g[:, 2:5]),  # q + 1
        (g[0:3, :], g[1:4, :], g[2:5, :]),  # r + 1
        (g[2:5, 0:3], g[1:4, 1:4], g[0:3, 2:5]),  # q + 1, r - 1
    ]
    a, b, c = (jnp.concatenate([window[k].reshape(-1) for window in windows]) for k in range(3))  # [39] each
    sa, sb, sc = a // 3, b // 3, c // 3
    ca, cb, cc = a - 3 * sa, b - 3 * sb, c - 3 * sc
    different_shapes = (sa != sb) & (sb != sc) & (sa != sc)
    different_colours = (ca != cb) & (cb != cc) & (ca != cc)
    wins = ((ca == cb) & (cb == cc) & different_shapes) | ((sa == sb) & (sb == sc) & different_colours)
    return jnp.any(wins & (a >= 0) & (b >= 0) & (c >= 0))


class OutfoxJax(JaxRules):
    num_actions = NUM_ACTIONS
    max_chance_outcomes = 0

    def __init__(self, game: OutfoxGame, max_moves: int) -> None:
        super().__init__(game, max_moves)
        n = self.num_players = game.num_players
        self.observation_shape = game.observation_shape
        self.start_hands = np.asarray(game.start_hands, np.int8)
        self.hand_scale = np.float32(1.0 / game.hand_max)
        self.win_returns = np.asarray(game.win_returns, np.float32)
        # ROTATIONS[seat]: the seats in the order seat, seat + 1, ... (the observer first)
        self.rotations = np.array([[(seat + k) % n for k in range(n)] for seat in range(n)])
        self.plane_states = plane_states(game.num_planes, n)
        self.plane_scale = np.ones(game.num_planes, np.float32)
        self.plane_scale[17:17 + 9 * n] = self.hand_scale

    def history_capacity(self) -> int:
        """No chance; at most 35 decisions (18 pieces, one placed per turn, the first turn a
        placement only)."""
        return min(self.max_moves, 1 + 2 * (2 * NUM_TYPES - 1))

    def initial(self) -> Position:
        return Position(jnp.full(NUM_POINTS, -1, jnp.int8), jnp.asarray(self.start_hands), jnp.int32(0),
                        jnp.int32(PLACE), jnp.int32(-1), jnp.int32(0), jnp.int32(-1), jnp.int32(ALL_POINTS))

    def player(self, position: Position) -> jax.Array:
        return jnp.where(position.winner >= 0, TERMINAL, position.to_move).astype(jnp.int32)

    def _hand_of(self, hands: jax.Array, seat: jax.Array) -> jax.Array:
        """``hands[seat]`` as a select over the few seats."""
        return sum(jnp.where(seat == s, hands[s], 0) for s in range(self.num_players))

    def legal_mask(self, position: Position) -> jax.Array:
        """Placement: every type in hand on every legal point; slide: a piece next to the placed
        one along a ray through empty points. One elementwise test per action on three words
        of the row (see ``_action_tables``)."""
        hand = jnp.sum(jnp.where(self._hand_of(position.hands, position.to_move) > 0, 1 << np.arange(NUM_TYPES), 0))
        place_word = jnp.where(position.phase == PLACE, hand | (position.points << NUM_TYPES), 0)
        occupied = _occupied_bits(position.board)
        near = jnp.sum(jnp.where(POINTS == position.placed, NB_MASK, 0)) & occupied
        slide_word = jnp.where(position.phase == SLIDE, near, 0)
        place_word, slide_word, occupied = materialize(jnp.stack([place_word, slide_word, occupied]))
        return (((place_word & NEED_PLACE) == NEED_PLACE) & ((slide_word & NEED_SLIDE) == NEED_SLIDE)
                & ((occupied & BLOCKERS) == 0))

    def chance_weights(self, position: Position) -> jax.Array:
        return jnp.ones(1, jnp.int32)

    def returns(self, position: Position) -> jax.Array:
        winner = position.winner
        table = jnp.asarray(self.win_returns)
        return jnp.where(winner >= 0, self._hand_of(table, winner), 0.0).astype(jnp.float32)

    def apply(self, position: Position, action: jax.Array) -> Position:
        """A placement (``type * 19 + point``), then, except on the first turn, a slide
        (``171 + from * 19 + to``); at the end of a turn a winning line wins for the mover, else
        the next seat with no piece or no legal placement loses to the mover."""
        board, hands, mover = position.board, position.hands, position.to_move
        action = action.astype(jnp.int32)
        is_place = action < NUM_PLACE
        kind, point = action // NUM_POINTS, action % NUM_POINTS
        slide = jnp.maximum(action - NUM_PLACE, 0)
        frm, to = slide // NUM_POINTS, slide % NUM_POINTS
        moving = jnp.sum(jnp.where(POINTS == frm, board, 0)).astype(jnp.int8)
        placed_board = jnp.where(POINTS == point, kind.astype(jnp.int8), board)
        slid_board = jnp.where(POINTS == to, moving, jnp.where(POINTS == frm, jnp.int8(-1), board))
        board = materialize(jnp.where(is_place, placed_board, slid_board))
        taken = is_place & (jnp.arange(self.num_players) == mover)[:, None] & (jnp.arange(NUM_TYPES) == kind)
        hands = materialize(hands - taken.astype(jnp.int8))
        ends = ~is_place | (position.turns == 0)
        # the end of the turn
        won = has_line(grid(board).reshape(5, 5))
        nxt = (mover + 1) % self.num_players
        points = legal_point_bits(_occupied_bits(board))
        stuck = ~jnp.any(self._hand_of(hands, nxt) > 0) | (points == 0)
        over = ends & (won | stuck)
        return Position(
            board=board,
            hands=hands,
            to_move=jnp.where(ends & ~over, nxt, mover).astype(jnp.int32),
            phase=jnp.where(ends, PLACE, SLIDE).astype(jnp.int32),
            placed=jnp.where(ends, -1, point).astype(jnp.int32),
            turns=position.turns + ends.astype(jnp.int32),
            winner=jnp.where(over, mover, -1).astype(jnp.int32),
            points=jnp.where(ends, points, position.points).astype(jnp.int32),
        )

    def observe(self, position: Position, player: jax.Array) -> jax.Array:
        """Per point: the piece's type, shape and colour (planes 0-14), empty (15), valid (16), the
        point just placed (19+9n); constant planes: the hands from ``player``'s seat on
        (17 + 9k + t, count / per-type maximum), the decision kind (17+9n, 18+9n), the seat to
        move relative to ``player`` (20+9n+k). The decision, placed and seat planes are zero once
        the game is won. Each cell's planes are the bits of its state in ``self.plane_states``
        (no plane is both a point plane and a constant one)."""
        n = self.num_players
        going = position.winner < 0
        cells = grid(position.board).astype(jnp.int32)  # [25]
        placed_cell = position.placed + self._cell_offset(position.placed)
        marked = (jnp.arange(25) == placed_cell) & (position.phase == SLIDE) & going
        state = jnp.where(cells == OFF_BOARD, OFF_STATE, jnp.where(cells < 0, EMPTY_STATE, cells + NUM_TYPES * marked))
        seat = jnp.clip(player, 0, n - 1)
        rotated = self._hand_of(jnp.asarray(self.rotations), seat)
        hands = jnp.concatenate([self._hand_of(position.hands, rotated[k]) for k in range(n)])
        constant = jnp.concatenate([  # the constant planes' values, in hand counts (scaled below)
            jnp.zeros(17, jnp.int32),
            hands.astype(jnp.int32),
            jnp.stack([(position.phase == PLACE) & going, (position.phase == SLIDE) & going,
                       jnp.bool_(False)]).astype(jnp.int32),
            ((jnp.arange(n) == (position.to_move - seat) % n) & going).astype(jnp.int32),
        ])
        state, constant = materialize(state), materialize(constant)  # small rows first, then one wide loop
        point_plane = ((jnp.asarray(self.plane_states)[None, :] >> state[:, None]) & 1) != 0
        value = constant.astype(jnp.float32) * jnp.asarray(self.plane_scale)  # count / per-type maximum, exact
        return jnp.where(point_plane, 1.0, value[None, :]).reshape(self.observation_shape)

    @staticmethod
    def _cell_offset(point: jax.Array) -> jax.Array:
        """The grid cell of ``point`` minus ``point`` (2 on row a, 3 on rows b-d, 4 on row e)."""
        return 2 + (point >= 3).astype(jnp.int32) + (point >= 16).astype(jnp.int32)
