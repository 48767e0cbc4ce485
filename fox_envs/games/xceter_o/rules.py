"""X-Ceter-O (rules as implemented: docs/rules/xceter_o.md).

Board, squares ``a1..c3`` (index = (row-1)*3 + column)::

    3 | 6 7 8      c3 = 8
    2 | 3 4 5
    1 | 0 1 2      a1 = 0
        a b c

player_0 owns pieces 1, 3, 5 (X) and starts; player_1 owns 2, 4, 6 (O). Plies 1-6 place piece
1..6 in order on an empty square; afterwards, cycling 1..6, the owner of the next piece jumps it
to any empty square. The mover wins when its three pieces form a line (with ``ordered_rows``
only when they read 1-3-5 / 2-4-6 along it). The third occurrence of a position (board with
piece numbers, next piece) is a draw. Action = target square (9 actions), notation ``b2``.

Observation (3, 3, 10) float32, ``obs[row-1, column, plane]``, from the observer's side:
planes 0-2 the observer's pieces in number order, 3-5 the opponent's, 6 empty squares,
7 the square of the piece to move now if it is on the board, 8 the square of the piece moved
after it, 9 all ones during the placement phase.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fox_envs.core import render
from fox_envs.core.errors import IllegalActionError
from fox_envs.core.game import TERMINAL, Game, State, action_as_int, two_player_returns
from fox_envs.core.params import Param, boolean

SQUARE_NAMES = [f"{'abc'[i % 3]}{i // 3 + 1}" for i in range(9)]
SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}
LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),  # diagonals
)
CELL, MARGIN = 80, 30  # picture: square size and margin in pixels


def square_box(square: int) -> tuple[int, int, int, int]:
    """Pixel box of ``square`` in the picture (row 3 at the top)."""
    row, col = divmod(square, 3)
    x0, y0 = MARGIN + col * CELL, MARGIN + (2 - row) * CELL
    return x0, y0, x0 + CELL, y0 + CELL


LINE_MASKS = frozenset((1 << a) | (1 << b) | (1 << c) for a, b, c in LINES)
ORDERED_LINES = frozenset(LINES) | frozenset(tuple(reversed(line)) for line in LINES)
NUM_PLANES = 10
OBS_SHAPE = (3, 3, NUM_PLANES)
FLOAT32, INT8 = np.dtype(np.float32), np.dtype(np.int8)
EMPTY_TO_ONE = bytes([1] + [0] * 255)  # bytearray.translate table: board -> legal-action mask


def _square_planes(piece: int, viewer: int, flag: int, placing: bool) -> bytes:
    """The 10 float32 planes of one square holding ``piece`` (0 = empty) seen by ``viewer``:
    ``flag`` 1 = the piece to move now, 2 = the piece after it; plane 9 during placement."""
    planes = np.zeros(NUM_PLANES, dtype=np.float32)
    planes[6 if piece == 0 else (piece - 1) // 2 + (0 if (piece - 1) % 2 == viewer else 3)] = 1
    if flag:
        planes[6 + flag] = 1
    planes[9] = placing
    return planes.tobytes()


# SQUARE_PLANES[placing][viewer][piece * 3 + flag]: the observation bytes of one square holding
# ``piece`` (0 = empty) as ``viewer`` sees it (own pieces planes 0-2, the opponent's 3-5).
SQUARE_PLANES = tuple(
    tuple(
        tuple(
            _square_planes(piece, viewer, flag, placing) for piece in range(7) for flag in range(3)
        )
        for viewer in (0, 1)
    )
    for placing in (False, True)
)
EMPTY_SQUARE = SQUARE_PLANES[False][0][0]  # an empty square in the movement phase
# FLIP[old][new]: the bits of a piece jumping from old to new (old = -1, the last row: placed)
FLIP = tuple(tuple((1 << old if old < 9 else 0) ^ (1 << new) for new in range(9)) for old in range(10))
# Repetition key: sum of (square + 1) * PIECE_WEIGHT[piece] over pieces 1..6, plus the next
# piece - 1 (exact once all six are placed: base-10 digits above a factor 6).
PIECE_WEIGHT = (0,) + tuple(6 * 10 ** (piece - 1) for piece in range(1, 7))


def _ply_plan(turn: int, placing: bool) -> tuple:
    """What the ply ``turn`` (0..5 in the cycle) changes: piece, mover, repetition weight, the
    piece's square planes for both viewers, then the pieces to move now / after it with their
    flagged square planes, and the next turn."""
    piece, now, after = turn + 1, (turn + 1) % 6 + 1, (turn + 2) % 6 + 1
    table0, table1 = SQUARE_PLANES[placing]
    return (piece, turn % 2, PIECE_WEIGHT[piece], table0[piece * 3], table1[piece * 3],
            now, table0[now * 3 + 1], table1[now * 3 + 1], after, table0[after * 3 + 2], table1[after * 3 + 2],
            (turn + 1) % 6)


PLY_PLANS = tuple(tuple(_ply_plan(turn, placing) for turn in range(6)) for placing in (False, True))


class XCeterOGame(Game):
    name = "xceter_o_v0"
    PARAMS = {"ordered_rows": Param(False, boolean, "True or False")}
    max_moves_default = 200
    zero_sum = True

    def _setup(self) -> None:
        self.num_players = 2
        self.num_actions = 9
        self.observation_shape = OBS_SHAPE
        self.ordered_rows: bool = self.params["ordered_rows"]

    def new_initial_state(self) -> "XCeterOState":
        return XCeterOState(self)


class XCeterOState(State):
    """The position, kept up to date move by move for the random-play hot path: ``board`` (piece
    numbers), ``square_of`` (piece squares), ``own`` (each player's squares as a bitmask, for the
    win check), ``code`` (the piece squares as one int, for the repetition key) and ``squares``
    (each viewer's observation as 9 per-square byte strings). ``apply_action`` validates and
    applies in one method (there is no separate ``_apply_action``); ``observation_tensor`` and
    ``legal_actions_mask`` return fresh writable arrays."""

    game: XCeterOGame

    def __init__(self, game: XCeterOGame) -> None:
        super().__init__(game)
        self.board = bytearray(9)  # piece number 1..6 on each square, 0 empty
        self.square_of = [-1] * 7  # square of piece 1..6 (index 0 unused), -1 off the board
        self.own = [0, 0]
        self.code = 0
        empty_square = SQUARE_PLANES[True][0][0]
        self.squares = [[empty_square] * 9, [empty_square] * 9]
        self.ply = 0  # plies played; the next piece is ply % 6 + 1
        self.player = 0  # the player to move, TERMINAL once the game is over
        self.winner = -1
        self.drawn = False
        self.seen: dict[int, int] = {}  # repetition key -> occurrences

    # ----- rules -----------------------------------------------------------------------------
    def next_piece(self) -> int:
        return self.ply % 6 + 1

    def current_player(self) -> int:
        return self.player

    def is_terminal(self) -> bool:
        return self.player < 0

    def is_chance_node(self) -> bool:
        return False

    def _legal_actions(self) -> list[int]:
        """Any empty square: a placement, or a jump (staying put is not a move)."""
        board = self.board
        return [square for square in range(9) if not board[square]]

    def _cached_legal(self) -> list[int]:
        return [] if self.player < 0 else self._legal_actions()

    legal_actions = _cached_legal  # nothing is cached: a fresh list every call

    def is_legal(self, action: int) -> bool:
        return 0 <= action < 9 and not self.board[action] and self.player >= 0

    def legal_actions_mask(self) -> np.ndarray:
        if self.player < 0:
            return np.zeros(9, dtype=np.int8)
        return np.ndarray(9, INT8, self.board.translate(EMPTY_TO_ONE))

    def write_legal_mask(self, out: np.ndarray) -> None:
        """The mask in one byte translation of the board (no list of moves)."""
        out[:] = self.legal_actions_mask()

    def apply_action(self, action: Any) -> None:
        """Apply a legal action; anything else raises ``IllegalActionError`` and changes nothing."""
        value = action if type(action) is int else action_as_int(action)
        board = self.board
        if value is None or not 0 <= value < 9 or board[value] or self.player < 0:
            raise IllegalActionError(self._illegal_message(action, value))
        ply = self.ply
        piece, mover, weight, own0, own1, now, now0, now1, after, after0, after1, turn = PLY_PLANS[ply < 6][ply % 6]
        square_of = self.square_of
        view0, view1 = self.squares
        old = square_of[piece]
        if old >= 0:  # a jump (movement phase)
            board[old] = 0
            view0[old] = view1[old] = EMPTY_SQUARE
        board[value] = piece
        square_of[piece] = value
        view0[value] = own0
        view1[value] = own1
        square = square_of[now]  # observation planes 7-8
        if square >= 0:
            view0[square] = now0
            view1[square] = now1
        square = square_of[after]
        if square >= 0:
            view0[square] = after0
            view1[square] = after1
        own = self.own
        bits = own[mover] ^ FLIP[old][value]
        own[mover] = bits
        code = self.code = self.code + (value - old) * weight
        self._history.append(value)
        self.ply = ply = ply + 1
        if ply == 6:  # plane 9 switches off
            self._refresh_squares()
        if bits in LINE_MASKS and (not self.game.ordered_rows or self._ordered_line(mover)):
            self.winner = mover
            self.player = TERMINAL
        elif ply < 6:
            self.player = 1 - mover
        else:  # the position after the last placement counts as seen once
            seen = self.seen
            key = code + turn
            count = seen[key] = seen.get(key, 0) + 1
            if count < 3:
                self.player = 1 - mover
            else:
                self.drawn = True
                self.player = TERMINAL

    def _ordered_line(self, player: int) -> bool:
        square_of = self.square_of
        return (square_of[player + 1], square_of[player + 3], square_of[player + 5]) in ORDERED_LINES

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["squares"]  # derived: rebuilt on unpickling, keeps pickles small
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._refresh_squares()

    def _refresh_squares(self) -> None:
        """Rebuild ``squares`` from the board (after the last placement, and on unpickling)."""
        table = SQUARE_PLANES[self.ply < 6]
        flags = [0] * 7
        now = self.ply % 6 + 1
        flags[now], flags[now % 6 + 1] = 1, 2
        self.squares = [[table[viewer][piece * 3 + flags[piece]] for piece in self.board] for viewer in (0, 1)]

    def has_line(self, player: int) -> bool:
        """Whether ``player``'s three pieces stand in a row, column or diagonal (in number
        order along it when ``ordered_rows``)."""
        return self.own[player] in LINE_MASKS and (not self.game.ordered_rows or self._ordered_line(player))

    def returns(self) -> np.ndarray:
        return two_player_returns(self.winner)

    def repetition_count(self) -> int:
        """How often the current position (board, next piece) has occurred."""
        return self.seen.get(self.code + self.ply % 6, 0)

    # ----- observation, notation, pictures ---------------------------------------------------
    def observation_tensor(self, player: int) -> np.ndarray:
        return np.ndarray(OBS_SHAPE, FLOAT32, bytearray().join(self.squares[player]))

    def action_to_string(self, action: int) -> str:
        return SQUARE_NAMES[action]

    def _full_key(self) -> Any:
        return (bytes(self.board), self.ply, self.winner, self.drawn, sorted(self.seen.items()))

    def clone(self) -> "XCeterOState":
        new = XCeterOState.__new__(XCeterOState)
        new.game = self.game
        new._history = self._history[:]
        new._legal = None
        new.board = self.board[:]
        new.square_of = self.square_of[:]
        new.own = self.own[:]
        new.code = self.code
        new.squares = [self.squares[0][:], self.squares[1][:]]
        new.ply = self.ply
        new.player = self.player
        new.winner = self.winner
        new.drawn = self.drawn
        new.seen = dict(self.seen)
        return new

    @staticmethod
    def piece_label(piece: int) -> str:
        return ("X" if piece % 2 else "O") + str(piece)

    def __str__(self) -> str:
        lines = []
        for row in range(2, -1, -1):
            cells = [self.piece_label(p) if (p := self.board[row * 3 + c]) else " ." for c in range(3)]
            lines.append(f"{row + 1}  " + "  ".join(cells))
        lines.append("    a   b   c")
        if self.winner >= 0:
            lines.append(f"player_{self.winner} wins")
        elif self.drawn:
            lines.append("draw by threefold repetition")
        else:
            piece = self.next_piece()
            verb = "place" if self.ply < 6 else "move"
            lines.append(f"next: player_{self.current_player()} to {verb} {self.piece_label(piece)}")
        return "\n".join(lines)

    def winning_line(self) -> tuple[int, ...]:
        """The squares of the winner's three pieces (a line), ``()`` while nobody has won."""
        if self.winner < 0:
            return ()
        return tuple(s for s in range(9) if self.board[s] and self.board[s] % 2 == 1 - self.winner)

    def render_rgb(self, viewer: int | None = None, status: str | None = None) -> np.ndarray:  # all public
        size = 3 * CELL + 2 * MARGIN
        image, draw = render.canvas(size, size + 30)
        to_move = self.next_piece() if self.winner < 0 and not self.drawn else 0
        for square in range(9):
            x0, y0, x1, y1 = square_box(square)
            draw.rectangle((x0, y0, x1, y1), outline=render.DARK, width=3)
            piece = self.board[square]
            if piece:
                cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
                if piece % 2:
                    draw.line((cx - 25, cy - 25, cx + 25, cy + 25), fill=render.RED, width=8)
                    draw.line((cx - 25, cy + 25, cx + 25, cy - 25), fill=render.RED, width=8)
                else:
                    render.disc(draw, (cx, cy), 26, fill=render.LIGHT, outline=render.BLUE, width=8)
                # the piece number on a badge; the piece to move on a large yellow one
                moving = piece == to_move
                badge, radius, text, number_size = (render.YELLOW, 15, render.BLACK, 22) if moving else \
                    (render.DARK, 12, render.WHITE, 18)
                render.disc(draw, (x0 + 17, y0 + 17), radius, fill=badge, outline=render.BLACK, width=2)
                render.centred_text(draw, (x0 + 17, y0 + 17), str(piece), fill=text, size=number_size)
        for row in range(3):
            render.centred_text(draw, (MARGIN / 2, MARGIN + (2 - row) * CELL + CELL / 2), str(row + 1))
        for col in range(3):
            render.centred_text(draw, (MARGIN + col * CELL + CELL / 2, size - MARGIN / 2), "abc"[col])
        render.mark_result(draw, [square_box(s) for s in self.winning_line()])
        render.mark_last_move(draw, [square_box(s) for s in self._history[-1:]])
        status = status or str(self).splitlines()[-1]
        render.centred_text(draw, (size / 2, size + 12), status, size=14)
        return render.to_array(image)
