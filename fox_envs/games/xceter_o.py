"""X-Ceter-O (SPEC 2.1, rulebook ``x_ceter_o.txt``).

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
from fox_envs.core.game import TERMINAL, Game, State
from fox_envs.core.params import Param, boolean

SQUARE_NAMES = [f"{'abc'[i % 3]}{i // 3 + 1}" for i in range(9)]
SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}
LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),  # diagonals
)
LINE_MASKS = frozenset((1 << a) | (1 << b) | (1 << c) for a, b, c in LINES)
ORDERED_LINES = frozenset(LINES) | frozenset(tuple(reversed(line)) for line in LINES)
NUM_PLANES = 10
ALL_NINE = b"\x01" * 9
EMPTY_PLANES = bytes(1 if plane == 6 else 0 for _ in range(9) for plane in range(NUM_PLANES))
# observation plane of piece 1..6 for each viewer: own pieces 0-2, the opponent's 3-5, in number order
PIECE_PLANE = [[0] + [(piece - 1) // 2 + (0 if (piece - 1) % 2 == viewer else 3) for piece in range(1, 7)]
               for viewer in (0, 1)]


class XCeterOGame(Game):
    name = "xceter_o_v0"
    PARAMS = {"ordered_rows": Param(False, boolean, "True or False")}
    max_moves_default = 200
    zero_sum = True

    def _setup(self) -> None:
        self.num_players = 2
        self.num_actions = 9
        self.observation_shape = (3, 3, NUM_PLANES)
        self.ordered_rows: bool = self.params["ordered_rows"]

    def new_initial_state(self) -> "XCeterOState":
        return XCeterOState(self)


class XCeterOState(State):
    game: XCeterOGame

    def __init__(self, game: XCeterOGame) -> None:
        super().__init__(game)
        self.board = bytearray(9)  # piece number 1..6 on each square, 0 empty
        self.empty = bytearray(b"\x01" * 9)  # 1 on empty squares: the legal-action mask
        # per viewer, planes 0-6 of the observation kept up to date move by move
        self.planes = [bytearray(EMPTY_PLANES), bytearray(EMPTY_PLANES)]
        self.square_of = [-1] * 7  # square of piece 1..6 (index 0 unused), -1 off the board
        self.ply = 0  # plies played; the next piece is ply % 6 + 1
        self.winner = -1
        self.drawn = False
        self.seen: dict[tuple, int] = {}

    # ----- rules -----------------------------------------------------------------------------
    def next_piece(self) -> int:
        return self.ply % 6 + 1

    def current_player(self) -> int:
        if self.winner >= 0 or self.drawn:
            return TERMINAL
        return self.ply % 2  # odd pieces (ply even) belong to player_0

    def is_terminal(self) -> bool:
        return self.winner >= 0 or self.drawn

    def is_chance_node(self) -> bool:
        return False

    def _legal_actions(self) -> list[int]:
        """Any empty square: a placement, or a jump (staying put is not a move)."""
        board = self.board
        return [square for square in range(9) if not board[square]]

    def _apply_action(self, action: int) -> None:
        piece = self.ply % 6 + 1
        mover = self.ply % 2
        old = self.square_of[piece]
        if old >= 0:
            self.board[old] = 0
            self.empty[old] = 1
        self.board[action] = piece
        self.empty[action] = 0
        for viewer in (0, 1):
            planes, plane = self.planes[viewer], PIECE_PLANE[viewer][piece]
            if old >= 0:
                planes[old * NUM_PLANES + plane] = 0
                planes[old * NUM_PLANES + 6] = 1
            planes[action * NUM_PLANES + plane] = 1
            planes[action * NUM_PLANES + 6] = 0
        self.square_of[piece] = action
        self.ply += 1
        if self.has_line(mover):
            self.winner = mover
            return
        if self.ply >= 6:  # the position after the last placement counts as seen once
            key = (bytes(self.board), self.ply % 6)
            count = self.seen.get(key, 0) + 1
            self.seen[key] = count
            if count >= 3:
                self.drawn = True

    def is_legal(self, action: int) -> bool:
        return 0 <= action < 9 and self.empty[action] == 1 and self.winner < 0 and not self.drawn

    def legal_actions_mask(self) -> np.ndarray:
        if self.winner >= 0 or self.drawn:
            return np.zeros(9, dtype=np.int8)
        return np.frombuffer(self.empty, dtype=np.int8).copy()

    def has_line(self, player: int) -> bool:
        """Whether ``player``'s three pieces stand in a row, column or diagonal (in number
        order along it when ``ordered_rows``)."""
        square_of = self.square_of
        squares = (square_of[player + 1], square_of[player + 3], square_of[player + 5])
        if squares[2] < 0:
            return False
        if self.game.ordered_rows:
            return squares in ORDERED_LINES
        return (1 << squares[0]) | (1 << squares[1]) | (1 << squares[2]) in LINE_MASKS

    def returns(self) -> np.ndarray:
        result = np.zeros(2, dtype=np.float64)
        if self.winner >= 0:
            result[self.winner] = 1.0
            result[1 - self.winner] = -1.0
        return result

    def repetition_count(self) -> int:
        """How often the current position (board, next piece) has occurred."""
        return self.seen.get((bytes(self.board), self.ply % 6), 0)

    # ----- observation, notation, pictures ---------------------------------------------------
    def observation_tensor(self, player: int) -> np.ndarray:
        planes = self.planes[player][:]  # planes 0-6 are kept up to date by _apply_action
        square_of = self.square_of
        now, after = square_of[self.ply % 6 + 1], square_of[(self.ply + 1) % 6 + 1]
        if now >= 0:
            planes[now * NUM_PLANES + 7] = 1
        if after >= 0:
            planes[after * NUM_PLANES + 8] = 1
        if self.ply < 6:
            planes[9::NUM_PLANES] = ALL_NINE
        return np.frombuffer(planes, dtype=np.uint8).astype(np.float32).reshape(3, 3, NUM_PLANES)

    def action_to_string(self, action: int) -> str:
        return SQUARE_NAMES[action]

    def _full_key(self) -> Any:
        return (bytes(self.board), bytes(self.empty), self.ply, self.winner, self.drawn, sorted(self.seen.items()))

    def clone(self) -> "XCeterOState":
        new = XCeterOState.__new__(XCeterOState)
        new.game = self.game
        new._history = self._history[:]
        new._legal = self._legal
        new.board = self.board[:]
        new.empty = self.empty[:]
        new.planes = [self.planes[0][:], self.planes[1][:]]
        new.square_of = self.square_of[:]
        new.ply = self.ply
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

    def render_rgb(self) -> np.ndarray:
        cell, margin = 80, 30
        size = 3 * cell + 2 * margin
        image, draw = render.canvas(size, size + 30)
        for row in range(3):
            for col in range(3):
                x0, y0 = margin + col * cell, margin + (2 - row) * cell
                draw.rectangle((x0, y0, x0 + cell, y0 + cell), outline=render.DARK, width=3)
                piece = self.board[row * 3 + col]
                if piece:
                    cx, cy = x0 + cell / 2, y0 + cell / 2
                    if piece % 2:
                        draw.line((cx - 25, cy - 25, cx + 25, cy + 25), fill=render.RED, width=8)
                        draw.line((cx - 25, cy + 25, cx + 25, cy - 25), fill=render.RED, width=8)
                    else:
                        render.disc(draw, (cx, cy), 26, fill=render.LIGHT, outline=render.BLUE, width=8)
                    highlight = render.ORANGE if piece == self.next_piece() else render.BLACK
                    render.centred_text(draw, (x0 + 12, y0 + 12), str(piece), fill=highlight, size=16)
            render.centred_text(draw, (margin / 2, margin + (2 - row) * cell + cell / 2), str(row + 1))
        for col in range(3):
            render.centred_text(draw, (margin + col * cell + cell / 2, size - margin / 2), "abc"[col])
        status = str(self).splitlines()[-1]
        render.centred_text(draw, (size / 2, size + 12), status, size=14)
        return render.to_array(image)
