"""Outfox (rules as implemented: docs/rules/outfox.md).

A hexagon of 19 points on a triangular lattice, rows ``a..e``, points ``a1`` .. ``e3``; the
board's geometry, its index layout (a1 = 0, c3 = 9, e3 = 18) and the action layout are drawn in
fox_envs/games/outfox/board.py.

Pieces: shapes circle/square/triangle (``C S T``) by colours red/yellow/blue (``R Y B``);
piece type = shape*3 + colour. Two players: each has one piece of each of the 9 types.
``num_players=3``: seat i has the 6 pieces of colour i (two of each shape).

A turn: place one of your own unplaced pieces on an empty point, then slide one piece that
neighbours it (not the placed piece; any owner) in one of the 6 directions, 1 or more points,
through empty points only. A placement is legal only if some neighbour can then slide. The first
turn of the game is a placement only. At the end of a turn, a winning line on the board (3
consecutive points on one axis holding three different shapes of one colour or one shape in three
different colours) wins for the player who just played; otherwise, if the next player has no
legal turn (no piece left or no legal placement) the player who just played wins. Winning lines
are checked only at the end of a turn.

Actions: place = ``type*19 + point`` (0..170, notation ``TR@c3``), slide = ``171 + from*19 + to``
(171..531, notation ``b2-b4``); 532 actions. A turn is two decisions by the same seat.

Observation (5, 5, 20 + 10n) float32, ``obs[r + 2, q + 2, plane]`` (the 6 grid cells outside
the hexagon are zero except in the constant planes), seats relative to the observer
(k = 0 the observer, k = 1 the next seat, ...):
0-8 the piece of type t on the point; 9-11 its shape; 12-14 its colour; 15 empty point;
16 valid point; 17 + 9k + t pieces of type t still in seat k's hand / the per-type maximum
(1 with two players, 2 with three), constant plane; 17+9n all ones at a placement decision;
18+9n all ones at a slide decision; 19+9n the point of the piece just placed (slide decision);
20+9n+k all ones when seat k is to move.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fox_envs.core.game import TERMINAL, Game, State
from fox_envs.core.params import Param, one_of
# The board tables, also imported from this module by the kernels, agents and tests.
from fox_envs.games.outfox.board import (  # noqa: F401
    AXES, COLOUR_NAMES, COLOURS, COORDS, DIRECTIONS, INDEX, LINES, LINES_THROUGH, NEIGHBOURS,
    NUM_ACTIONS, NUM_PLACE, NUM_POINTS, NUM_TYPES, PAIRS_THROUGH, PLACE, POINT_INDEX, POINT_NAMES,
    RAYS, ROWS, SHAPE_NAMES, SHAPES, SLIDE, TYPE_INDEX, TYPE_NAMES,
)


# ----- winning lines -------------------------------------------------------------------------
def is_winning_triple(a: int, b: int, c: int) -> bool:
    """Three pieces win: three different shapes of one colour, or one shape in three different
    colours (so never two identical pieces, and never all-different shapes and colours)."""
    sa, sb, sc = a // 3, b // 3, c // 3
    ca, cb, cc = a % 3, b % 3, c % 3
    if ca == cb == cc:
        return len({sa, sb, sc}) == 3
    if sa == sb == sc:
        return len({ca, cb, cc}) == 3
    return False


WINS: tuple[bool, ...] = tuple(
    is_winning_triple(a, b, c) for a in range(NUM_TYPES) for b in range(NUM_TYPES) for c in range(NUM_TYPES)
)
# COMPLETES[a*9 + b]: bit mask of the types t for which {a, b, t} is a winning line.
COMPLETES: tuple[int, ...] = tuple(
    sum(1 << t for t in range(NUM_TYPES) if WINS[a * 81 + b * 9 + t])
    for a in range(NUM_TYPES) for b in range(NUM_TYPES)
)


# ----- board helpers (also used by the heuristic) --------------------------------------------
def line_through(board: list[int], point: int) -> bool:
    """Whether a winning line on ``board`` contains ``point``."""
    for a, b, c in LINES_THROUGH[point]:
        x, y, z = board[a], board[b], board[c]
        if x >= 0 and y >= 0 and z >= 0 and WINS[x * 81 + y * 9 + z]:
            return True
    return False


def has_line(board: list[int]) -> bool:
    """Whether ``board`` holds a winning line anywhere."""
    for a, b, c in LINES:
        x, y, z = board[a], board[b], board[c]
        if x >= 0 and y >= 0 and z >= 0 and WINS[x * 81 + y * 9 + z]:
            return True
    return False


def winning_lines(board: list[int]) -> list[tuple[int, int, int]]:
    """Every window of three on ``board`` that holds a winning line."""
    return [line for line in LINES
            if all(board[p] >= 0 for p in line)
            and WINS[board[line[0]] * 81 + board[line[1]] * 9 + board[line[2]]]]


def legal_points(board: list[int]) -> list[int]:
    """Empty points where a placement is legal: some neighbouring piece still has an empty
    neighbour other than the new piece (so it can slide at least one point). On an empty board
    (the placement-only first turn) every point."""
    free = [0] * NUM_POINTS
    any_piece = False
    for i in range(NUM_POINTS):
        if board[i] >= 0:
            any_piece = True
            n = 0
            for j in NEIGHBOURS[i]:
                if board[j] < 0:
                    n += 1
            free[i] = n
    if not any_piece:
        return list(range(NUM_POINTS))
    result = []
    for p in range(NUM_POINTS):
        if board[p] < 0:
            for n in NEIGHBOURS[p]:
                if free[n] >= 2:  # p is one of n's empty neighbours; it needs another
                    result.append(p)
                    break
    return result


def slides(board: list[int], placed: int) -> list[tuple[int, int]]:
    """``(from, to)`` slides of the pieces neighbouring ``placed``: straight along one of the six
    directions, one or more points, through empty points only."""
    result = []
    for n in NEIGHBOURS[placed]:
        if board[n] >= 0:
            for ray in RAYS[n]:
                for to in ray:
                    if board[to] >= 0:
                        break
                    result.append((n, to))
    return result


# ----- the game --------------------------------------------------------------------------------
class OutfoxGame(Game):
    name = "outfox_v0"
    PARAMS = {"num_players": Param(2, one_of(2, 3), "2 or 3")}
    # 18 pieces, one placed per turn: at most 18 turns, the first a single decision, so no legal
    # game has more than 1 + 17*2 = 35 decisions.
    max_moves_default = 35
    zero_sum = True

    def _setup(self) -> None:
        n = self.num_players = self.params["num_players"]
        self.num_actions = NUM_ACTIONS
        self.num_planes = 20 + 10 * n
        self.observation_shape = (5, 5, self.num_planes)
        if n == 2:
            self.start_hands = tuple((1,) * NUM_TYPES for _ in range(2))
            self.hand_max = 1
        else:
            self.start_hands = tuple(
                tuple(2 if t % 3 == seat else 0 for t in range(NUM_TYPES)) for seat in range(3)
            )
            self.hand_max = 2
        # flat indices into the (5, 5, planes) observation of the per-point facts
        planes = self.num_planes
        cells = [(r + 2) * 5 + (q + 2) for q, r in COORDS]
        self.piece_flat = tuple(
            tuple(tuple(cells[p] * planes + k for k in (t, 9 + t // 3, 12 + t % 3)) for t in range(NUM_TYPES))
            for p in range(NUM_POINTS)
        )
        self.empty_flat = tuple((cells[p] * planes + 15,) for p in range(NUM_POINTS))
        self.placed_flat = tuple(cells[p] * planes + 19 + 9 * n for p in range(NUM_POINTS))
        self.obs_template = np.zeros(self.observation_shape, dtype=np.float32)
        self.obs_template.reshape(-1)[[cells[p] * planes + 16 for p in range(NUM_POINTS)]] = 1.0
        self.win_returns = tuple(
            tuple(1.0 if s == w else -1.0 / (n - 1) for s in range(n)) for w in range(n)
        )

    def observation_scale(self) -> np.ndarray | None:
        """The hand planes count pieces of a type (of ``hand_max``); the other planes are 0/1
        (all of them with 2 players, whose hands hold one piece of each type)."""
        if self.hand_max == 1:
            return None
        scale = np.ones(self.num_planes, np.float32)
        scale[17:17 + NUM_TYPES * self.num_players] = self.hand_max
        return scale

    def new_initial_state(self) -> "OutfoxState":
        return OutfoxState(self)


class OutfoxState(State):
    game: OutfoxGame

    def __init__(self, game: OutfoxGame) -> None:
        super().__init__(game)
        self.board = [-1] * NUM_POINTS  # piece type on each point, -1 empty
        self.hands = [list(h) for h in game.start_hands]  # hands[seat][type] = count unplaced
        self.to_move = 0
        self.phase = PLACE
        self.placed = -1  # the point of the piece just placed (slide decision)
        self.turns = 0  # completed turns
        self.winner = -1
        self.win_lines: list[tuple[int, int, int]] = []  # the winning line(s) at the end
        self.last_turn: tuple[int, ...] = ()  # points touched by the last completed turn

    # ----- rules -----------------------------------------------------------------------------
    def current_player(self) -> int:
        return TERMINAL if self.winner >= 0 else self.to_move

    def _legal_actions(self) -> list[int]:
        board = self.board
        if self.phase == SLIDE:
            return sorted(NUM_PLACE + f * NUM_POINTS + t for f, t in slides(board, self.placed))
        points = legal_points(board)
        hand = self.hands[self.to_move]
        return [t * NUM_POINTS + p for t in range(NUM_TYPES) if hand[t] for p in points]

    def has_legal_turn(self, seat: int) -> bool:
        """A seat can play a turn when it has a piece left and a legal placement exists."""
        return any(self.hands[seat]) and bool(legal_points(self.board))

    def _apply_action(self, action: int) -> None:
        board = self.board
        if action < NUM_PLACE:
            piece, point = divmod(action, NUM_POINTS)
            board[point] = piece
            self.hands[self.to_move][piece] -= 1
            if self.turns == 0:  # the first turn of the game is a placement only
                self._end_turn((point,))
            else:
                self.phase = SLIDE
                self.placed = point
            return
        frm, to = divmod(action - NUM_PLACE, NUM_POINTS)
        board[to] = board[frm]
        board[frm] = -1
        placed = self.placed
        self.phase = PLACE
        self.placed = -1
        self._end_turn((placed, frm, to))

    def _end_turn(self, touched: tuple[int, ...]) -> None:
        """Winning line first (the mover wins), then the next player's legal turn (if none, the
        mover, who played last, wins)."""
        self.turns += 1
        self.last_turn = touched
        mover = self.to_move
        board = self.board
        lines = []
        if line_through(board, touched[0]) or line_through(board, touched[-1]):
            lines = winning_lines(board)
        if lines:
            self.winner = mover
            self.win_lines = lines
            return
        nxt = (mover + 1) % self.game.num_players
        if not self.has_legal_turn(nxt):
            self.winner = mover
            return
        self.to_move = nxt

    def returns(self) -> np.ndarray:
        if self.winner < 0:
            return np.zeros(self.game.num_players, dtype=np.float64)
        return np.array(self.game.win_returns[self.winner], dtype=np.float64)

    # ----- observation, notation -------------------------------------------------------------
    def observation_tensor(self, player: int) -> np.ndarray:
        game = self.game
        n = game.num_players
        obs = game.obs_template.copy()  # the valid-point plane is already set
        piece_flat, empty_flat = game.piece_flat, game.empty_flat
        board = self.board
        ones: list[int] = []
        for p, b in enumerate(board):
            ones.extend(piece_flat[p][b] if b >= 0 else empty_flat[p])
        if self.winner < 0 and self.phase == SLIDE:
            ones.append(game.placed_flat[self.placed])
        flat = obs.reshape(-1)
        flat[ones] = 1.0
        planes = obs.reshape(25, game.num_planes)
        hands = self.hands
        planes[:, 17:17 + 9 * n] = [c for k in range(n) for c in hands[(player + k) % n]]
        if game.hand_max != 1:
            planes[:, 17:17 + 9 * n] /= game.hand_max
        if self.winner < 0:
            base = 17 + 9 * n
            planes[:, base + self.phase] = 1.0
            planes[:, base + 3 + (self.to_move - player) % n] = 1.0
        return obs

    def action_to_string(self, action: int) -> str:
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action {action} out of range")
        if action < NUM_PLACE:
            piece, point = divmod(action, NUM_POINTS)
            return f"{TYPE_NAMES[piece]}@{POINT_NAMES[point]}"
        frm, to = divmod(action - NUM_PLACE, NUM_POINTS)
        return f"{POINT_NAMES[frm]}-{POINT_NAMES[to]}"

    def string_to_action(self, text: str) -> int:
        """Parse ``TR@c3`` or ``b2-b4`` directly (any action, legal or not)."""
        if isinstance(text, str):
            wanted = text.strip()
            if "@" in wanted:
                piece, _, point = wanted.partition("@")
                if piece in TYPE_INDEX and point in POINT_INDEX:
                    return TYPE_INDEX[piece] * NUM_POINTS + POINT_INDEX[point]
            elif "-" in wanted:
                frm, _, to = wanted.partition("-")
                if frm in POINT_INDEX and to in POINT_INDEX:
                    return NUM_PLACE + POINT_INDEX[frm] * NUM_POINTS + POINT_INDEX[to]
        return super().string_to_action(text)  # the base gives the error message

    def _full_key(self) -> Any:
        return (tuple(self.board), tuple(tuple(h) for h in self.hands), self.to_move, self.phase,
                self.placed, self.turns, self.winner)

    def clone(self) -> "OutfoxState":
        new = OutfoxState.__new__(OutfoxState)
        new.game = self.game
        new._history = self._history[:]
        new._legal = self._legal
        new.board = self.board[:]
        new.hands = [h[:] for h in self.hands]
        new.to_move = self.to_move
        new.phase = self.phase
        new.placed = self.placed
        new.turns = self.turns
        new.winner = self.winner
        new.win_lines = self.win_lines[:]
        new.last_turn = self.last_turn
        return new

    # ----- pictures ----------------------------------------------------------------------------
    def status(self) -> str:
        if self.winner >= 0:
            if self.win_lines:
                shown = ", ".join(" ".join(POINT_NAMES[p] for p in line) for line in self.win_lines)
                return f"player_{self.winner} wins with the line {shown}"
            return f"player_{self.winner} wins: the next player has no legal turn"
        if self.phase == SLIDE:
            return f"next: player_{self.to_move} to slide a piece next to {POINT_NAMES[self.placed]}"
        only = " (placement only)" if self.turns == 0 else ""
        return f"next: player_{self.to_move} to place a piece{only}"

    def __str__(self) -> str:
        lines = []
        for r in range(-2, 3):
            cells = []
            for q in range(-2, 3):
                p = INDEX.get((q, r), -1)
                if p < 0:
                    continue
                piece = self.board[p]
                label = TYPE_NAMES[piece] if piece >= 0 else POINT_NAMES[p]
                cells.append(f"[{label}]" if p == self.placed else f" {label} ")
            lines.append(f"{ROWS[r + 2]} " + " " * (2 * abs(r)) + "".join(cells))
        for seat, hand in enumerate(self.hands):
            pieces = " ".join(
                " ".join([TYPE_NAMES[t]] * hand[t]) for t in range(NUM_TYPES) if hand[t]
            )
            lines.append(f"player_{seat} hand: {pieces or '-'}")
        lines.append(self.status())
        return "\n".join(lines)

    def render_rgb(self, viewer: int | None = None, status: str | None = None) -> np.ndarray:  # all public
        from fox_envs.games.outfox.render import draw_state

        return draw_state(self, status)
