"""Outwit (SPEC 2.2, rulebook ``outwit.txt``).

Board, 10 columns ``a..j`` by 9 rows ``1..9``, index = (row-1)*10 + column (a1=0, j9=89).
Start position (``x`` dark = player_0, ``o`` light = player_1, capitals are the power chips;
``[ ]`` is player_0's corner, ``( )`` player_1's)::

    9 [ ][ ][ ] .  .  .  .  .  o  x       row 9 = squares 80..89
    8 [ ][ ][ ] .  .  .  .  o  x  .
    7 [ ][ ][ ] .  .  .  o  x  .  .
    6  .  .  .  .  .  o  x  .  .  .
    5  .  .  .  .  O  X  .  .  .  .
    4  .  .  .  o  x  .  .  .  .  .
    3  .  .  o  x  .  .  . ( )( )( )
    2  .  o  x  .  .  .  . ( )( )( )
    1  o  x  .  .  .  .  . ( )( )( )     row 1 = squares 0..9
       a  b  c  d  e  f  g  h  i  j

player_0 (dark) owns the corner a7..c9 and moves first; player_1 (light) owns h1..j3. A move
slides one own chip in a straight line through empty squares; the opponent's corner is a wall.
A regular chip moves orthogonally and must slide as far as it can; a power chip moves in 8
directions and may stop on any square it reaches; a diagonal path may pass between two
diagonally touching chips. A path that is (or gets) inside the own corner cannot leave it. A
player with all nine chips home after its move wins. A player without a move must ``pass``; two
passes in a row, or a position (chips, power chips, player to move) seen for the third time
(the start counts once), is a draw. After a move the checks run: win, two passes, repetition.

Actions ``from*90 + to`` (8100) plus ``pass`` = 8100; notation ``e4-e9`` and ``pass``.

Observation (9, 10, 13) float32, ``obs[row-1, column, plane]``, absolute board coordinates (not
rotated), from the observer's side: 0 own regular chips, 1 own power chip, 2 opponent's regular
chips, 3 opponent's power chip, 4 own corner, 5 opponent's corner, 6 empty squares, 7 all ones
when the observer is to move, 8 all ones when the last action was a pass, 9 how often the
current position has occurred / 3, 10 moves played / ``max_moves_default`` (capped at 1),
11 the square the last move came from, 12 the square it went to.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fox_envs.core import render
from fox_envs.core.errors import IllegalActionError
from fox_envs.core.game import TERMINAL, Game, State, two_player_returns

COLUMNS = "abcdefghij"
NUM_COLUMNS, NUM_ROWS = 10, 9
NUM_SQUARES = 90
PASS = NUM_SQUARES * NUM_SQUARES  # 8100
NUM_ACTIONS = PASS + 1
NUM_PLANES = 13
SQUARE_NAMES = [f"{COLUMNS[i % 10]}{i // 10 + 1}" for i in range(NUM_SQUARES)]
SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}

# Board codes: 0 empty, 1 + 2*player + is_power.
EMPTY = 0
REGULAR = (1, 3)
POWER = (2, 4)


def _square(row: int, column: int) -> int:
    """Index of the square on ``row`` 0..8 (row 1 = 0) and ``column`` 0..9."""
    return row * NUM_COLUMNS + column


CORNERS = (
    frozenset(_square(r, c) for r in (6, 7, 8) for c in (0, 1, 2)),  # player_0: a7..c9
    frozenset(_square(r, c) for r in (0, 1, 2) for c in (7, 8, 9)),  # player_1: h1..j3
)
IN_CORNER = tuple(tuple(s in CORNERS[p] for s in range(NUM_SQUARES)) for p in (0, 1))
START_REGULAR = (
    ("b1", "c2", "d3", "e4", "g6", "h7", "i8", "j9"),
    ("a1", "b2", "c3", "d4", "f6", "g7", "h8", "i9"),
)
START_POWER = ("f5", "e5")
# Directions (row step, column step): 4 orthogonal first, then 4 diagonal.
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))


# Repetition keys: one int per position. Bits 0-89 hold dark's regular chips, 90-179 light's,
# bits 180-186 the square of dark's power chip, 187-193 light's, bit 194 is set when light is to
# move. A state keeps the chip part (``code``) up to date move by move.
REGULAR_BIT = tuple(tuple(1 << (NUM_SQUARES * player + square) for square in range(NUM_SQUARES)) for player in (0, 1))
POWER_UNIT = (1 << 180, 1 << 187)
LIGHT_TO_MOVE = 1 << 194
MOVER_KEY = (0, LIGHT_TO_MOVE)
OWN_CHIPS = tuple(((1 << NUM_SQUARES) - 1) << (NUM_SQUARES * player) | 127 * POWER_UNIT[player] for player in (0, 1))


def chips_code(squares: list[list[int]]) -> int:
    """The chip part of the repetition key of ``squares`` (power chip first, per player)."""
    return sum(squares[player][0] * POWER_UNIT[player] + sum(REGULAR_BIT[player][s] for s in squares[player][1:])
               for player in (0, 1))


def moved_code(code: int, player: int, power: bool, origin: int, target: int) -> int:
    """``code`` after ``player`` moves its power chip (``power``) or a regular chip."""
    if power:
        return code + (target - origin) * POWER_UNIT[player]
    bits = REGULAR_BIT[player]
    return code + bits[target] - bits[origin]


def _ray(player: int, start: int, step: tuple[int, int]) -> tuple[int, ...]:
    """Squares a chip of ``player`` on ``start`` passes going in direction ``step`` on an empty
    board: it stops at the edge, before the opponent's corner (a wall), and never leaves its own
    corner once the path is inside it (the start square included)."""
    own, other = CORNERS[player], CORNERS[1 - player]
    row, column = divmod(start, NUM_COLUMNS)
    inside = start in own
    squares = []
    while True:
        row, column = row + step[0], column + step[1]
        if not (0 <= row < NUM_ROWS and 0 <= column < NUM_COLUMNS):
            break
        square = _square(row, column)
        if square in other or (inside and square not in own):
            break
        inside = inside or square in own
        squares.append(square)
    return tuple(squares)


def _rays(player: int, directions: tuple[tuple[int, int], ...]) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per square, the non-empty rays of ``player`` in ``directions``."""
    return tuple(
        tuple(ray for ray in (_ray(player, s, d) for d in directions) if ray) for s in range(NUM_SQUARES)
    )


ORTHOGONAL_RAYS = tuple(_rays(p, DIRECTIONS[:4]) for p in (0, 1))
ALL_RAYS = tuple(_rays(p, DIRECTIONS) for p in (0, 1))


def _targets(player: int) -> tuple[dict[int, tuple[tuple[int, ...], int, bool]], ...]:
    """Per origin square: target -> (ray, index of the target on it, whether orthogonal)."""
    table = []
    for square in range(NUM_SQUARES):
        targets = {}
        for ray in ALL_RAYS[player][square]:
            orthogonal = ray in ORTHOGONAL_RAYS[player][square]
            for k, target in enumerate(ray):
                targets[target] = (ray, k, orthogonal)
        table.append(targets)
    return tuple(table)


TARGETS = tuple(_targets(p) for p in (0, 1))


def generate_moves(board: bytearray, squares: list[int], player: int) -> list[int]:
    """Sorted move actions of ``player`` whose chips stand on ``squares`` (power chip first):
    regular chips slide orthogonally as far as they can, the power chip stops anywhere."""
    moves: list[int] = []
    append = moves.append
    power = squares[0]
    base = power * NUM_SQUARES
    for ray in ALL_RAYS[player][power]:
        for target in ray:
            if board[target]:
                break
            append(base + target)
    orthogonal = ORTHOGONAL_RAYS[player]
    for square in squares[1:]:
        base = square * NUM_SQUARES
        for ray in orthogonal[square]:
            last = -1
            for target in ray:
                if board[target]:
                    break
                last = target
            if last >= 0:
                append(base + last)
    moves.sort()
    return moves


def _square_planes() -> np.ndarray:
    """Per observer, the board planes (0-6) of every square for every board code, shape
    (2, 90*5, planes): row ``square*5 + code``; one gather builds planes 0-6 of an observation."""
    table = np.zeros((2, NUM_SQUARES * 5, NUM_PLANES), dtype=np.float32)
    for player in (0, 1):
        chip_plane = {REGULAR[player]: 0, POWER[player]: 1, REGULAR[1 - player]: 2, POWER[1 - player]: 3,
                      EMPTY: 6}
        for square in range(NUM_SQUARES):
            for code, plane in chip_plane.items():
                row = table[player, square * 5 + code]
                row[plane] = 1.0
                row[4] = IN_CORNER[player][square]
                row[5] = IN_CORNER[1 - player][square]
    return table


SQUARE_PLANES = _square_planes()
SQUARE_ROWS = np.arange(NUM_SQUARES, dtype=np.intp) * 5
# Text of each square per board code: "[x]" in player_0's corner, "(x)" in player_1's, " x ".
CELL_TEXT = tuple(
    tuple(("[{}]" if IN_CORNER[0][s] else "({})" if IN_CORNER[1][s] else " {} ").format(mark) for mark in ".xXoO")
    for s in range(NUM_SQUARES)
)


class OutwitGame(Game):
    name = "outwit_v0"
    PARAMS: dict = {}
    max_moves_default = 300  # heuristic self-play: mean 36, max 48 moves; vs random: max 282 (docs)
    zero_sum = True

    def _setup(self) -> None:
        self.num_players = 2
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (NUM_ROWS, NUM_COLUMNS, NUM_PLANES)

    def new_initial_state(self) -> "OutwitState":
        return OutwitState(self)


class OutwitState(State):
    game: OutwitGame

    def __init__(self, game: OutwitGame) -> None:
        super().__init__(game)
        self.board = bytearray(NUM_SQUARES)
        # squares[p][0] is p's power chip, squares[p][1:] its regular chips
        self.squares: list[list[int]] = []
        for player in (0, 1):
            chips = [SQUARE_INDEX[START_POWER[player]]] + [SQUARE_INDEX[n] for n in START_REGULAR[player]]
            self.squares.append(chips)
            self.board[chips[0]] = POWER[player]
            for square in chips[1:]:
                self.board[square] = REGULAR[player]
        self.home = [0, 0]  # chips in the owner's corner
        self.to_move = 0
        self.passes = 0  # consecutive passes just played
        self.winner = -1
        self.drawn = ""  # "", "passes" or "repetition"
        self.code = chips_code(self.squares)  # the chip part of the repetition key
        self.seen: dict[int, int] = {self.position_key(): 1}

    # ----- rules -----------------------------------------------------------------------------
    def position_key(self) -> int:
        """The repetition key: every chip with its kind, and the player to move (one int, see
        ``REGULAR_BIT``)."""
        return self.code + MOVER_KEY[self.to_move]

    def current_player(self) -> int:
        if self.winner >= 0 or self.drawn:
            return TERMINAL
        return self.to_move

    def _legal_actions(self) -> list[int]:
        """Every slide of the mover's chips; ``pass`` only when there is none."""
        moves = generate_moves(self.board, self.squares[self.to_move], self.to_move)
        return moves or [PASS]

    def _apply_action(self, action: int) -> None:
        mover = self.to_move
        if action == PASS:
            self.passes += 1
        else:
            self.passes = 0
            origin, target = divmod(action, NUM_SQUARES)
            board = self.board
            board[target] = board[origin]
            board[origin] = EMPTY
            chips = self.squares[mover]
            index = chips.index(origin)
            chips[index] = target
            self.code = moved_code(self.code, mover, index == 0, origin, target)
            in_corner = IN_CORNER[mover]
            if in_corner[target] and not in_corner[origin]:
                self.home[mover] += 1
        self.to_move = 1 - mover
        if self.home[mover] == 9:
            self.winner = mover
        elif self.passes >= 2:
            self.drawn = "passes"
        else:
            key = self.position_key()
            count = self.seen.get(key, 0) + 1
            self.seen[key] = count
            if count >= 3:
                self.drawn = "repetition"

    def returns(self) -> np.ndarray:
        return two_player_returns(self.winner)

    def repetition_count(self) -> int:
        """How often the current position has occurred (1 the first time)."""
        return self.seen.get(self.position_key(), 0)

    # ----- observation, notation -------------------------------------------------------------
    def observation_tensor(self, player: int) -> np.ndarray:
        obs = np.empty(self.game.observation_shape, dtype=np.float32)
        self.write_observation(player, obs)
        return obs

    def write_observation(self, player: int, out: np.ndarray) -> None:
        """Planes 0-6 in one gather from the per-square table, then the position planes."""
        if not out.flags.c_contiguous or out.dtype != np.float32:  # no in-place view of it
            out[...] = self.observation_tensor(player)
            return
        planes = out.reshape(NUM_SQUARES, NUM_PLANES)  # a view: out is written in place
        # the indices are always in range; "clip" lets take write straight into out
        SQUARE_PLANES[player].take(SQUARE_ROWS + np.frombuffer(self.board, dtype=np.uint8), axis=0, out=planes,
                                   mode="clip")
        if self.current_player() == player:
            planes[:, 7] = 1.0
        if self.passes:
            planes[:, 8] = 1.0
        planes[:, 9] = min(self.repetition_count(), 3) / 3.0
        history = self._history
        if history:
            planes[:, 10] = min(1.0, len(history) / self.game.max_moves_default)
            if history[-1] != PASS:
                origin, target = divmod(history[-1], NUM_SQUARES)
                planes[origin, 11] = 1.0
                planes[target, 12] = 1.0

    def action_to_string(self, action: int) -> str:
        if action == PASS:
            return "pass"
        if not 0 <= action < PASS:
            raise IllegalActionError(f"{self.game.name}: action {action} is out of range 0..{PASS}")
        origin, target = divmod(action, NUM_SQUARES)
        return f"{SQUARE_NAMES[origin]}-{SQUARE_NAMES[target]}"

    def string_to_action(self, text: str) -> int:
        """Parse ``e4-e9`` or ``pass`` (any well-formed move; legality is checked on apply)."""
        if not isinstance(text, str):
            raise IllegalActionError(f"{self.game.name}: notation must be a string, got {text!r}")
        wanted = text.strip()
        if wanted == "pass":
            return PASS
        origin, dash, target = wanted.partition("-")
        if dash and origin in SQUARE_INDEX and target in SQUARE_INDEX:
            return SQUARE_INDEX[origin] * NUM_SQUARES + SQUARE_INDEX[target]
        examples = ", ".join(repr(self.action_to_string(a)) for a in self._cached_legal()[:8])
        raise IllegalActionError(
            f"{self.game.name}: unknown move {text!r} (write e.g. 'e4-e9' or 'pass'); "
            f"legal moves now: {examples or 'none'}"
        )

    def is_legal(self, action: int) -> bool:
        """Checks one move directly (no full move generation) unless the list is cached."""
        if self._legal is not None or action == PASS or not 0 <= action < PASS:
            return action in self._cached_legal()
        if self.winner >= 0 or self.drawn:
            return False
        player = self.to_move
        origin, target = divmod(action, NUM_SQUARES)
        board = self.board
        code = board[origin]
        if code != REGULAR[player] and code != POWER[player]:
            return False
        found = TARGETS[player][origin].get(target)
        if found is None:
            return False
        ray, k, orthogonal = found
        for square in ray[:k + 1]:
            if board[square]:
                return False
        if code == POWER[player]:
            return True
        return orthogonal and (k + 1 == len(ray) or board[ray[k + 1]] != EMPTY)

    def _full_key(self) -> Any:
        return (bytes(self.board), [c[:] for c in self.squares], self.code, self.home[:], self.to_move, self.passes,
                self.winner, self.drawn, self.seen)  # dicts compare regardless of order

    def clone(self) -> "OutwitState":
        new = OutwitState.__new__(OutwitState)
        new.game = self.game
        new._history = self._history[:]
        new._legal = self._legal
        new.board = self.board[:]
        new.squares = [self.squares[0][:], self.squares[1][:]]
        new.home = self.home[:]
        new.to_move = self.to_move
        new.code = self.code
        new.passes = self.passes
        new.winner = self.winner
        new.drawn = self.drawn
        new.seen = dict(self.seen)
        return new

    # ----- pictures ----------------------------------------------------------------------------
    def status(self) -> str:
        if self.winner >= 0:
            return f"player_{self.winner} wins"
        if self.drawn == "passes":
            return "draw: two passes in a row"
        if self.drawn == "repetition":
            return "draw by threefold repetition"
        return f"next: player_{self.to_move} ({'dark x' if self.to_move == 0 else 'light o'}) to move"

    def __str__(self) -> str:
        board = self.board
        lines = []
        for row in range(NUM_ROWS - 1, -1, -1):
            start = row * NUM_COLUMNS
            cells = "".join([CELL_TEXT[s][board[s]] for s in range(start, start + NUM_COLUMNS)])
            lines.append(f"{row + 1} {cells}".rstrip())
        lines.append("   " + "  ".join(COLUMNS))
        lines.append(f"player_0 dark x (X power) home [a7-c9]: {self.home[0]}/9; "
                     f"player_1 light o (O power) home (h1-j3): {self.home[1]}/9")
        lines.append(self.status())
        return "\n".join(lines)

    def render_rgb(self) -> np.ndarray:
        cell, margin = 48, 28
        width, height = NUM_COLUMNS * cell + 2 * margin, NUM_ROWS * cell + 2 * margin + 28
        image, draw = render.canvas(width, height)
        last = (-1, -1)
        if self._history and self._history[-1] != PASS:
            last = divmod(self._history[-1], NUM_SQUARES)
        dark_corner, light_corner = (120, 95, 70), (200, 200, 200)
        for square in range(NUM_SQUARES):
            row, column = divmod(square, NUM_COLUMNS)
            x0, y0 = margin + column * cell, margin + (NUM_ROWS - 1 - row) * cell
            fill = dark_corner if IN_CORNER[0][square] else light_corner if IN_CORNER[1][square] else render.WHITE
            outline = render.ORANGE if square in last else render.GREY
            draw.rectangle((x0, y0, x0 + cell, y0 + cell), fill=fill, outline=outline, width=3 if square in last else 1)
            code = self.board[square]
            if code:
                centre = (x0 + cell / 2, y0 + cell / 2)
                dark = code <= 2
                render.disc(draw, centre, cell * 0.38, fill=render.DARK if dark else render.LIGHT,
                            outline=render.BLACK, width=2)
                if code in POWER:
                    render.disc(draw, centre, cell * 0.12, fill=render.RED, outline=render.RED, width=1)
        for row in range(NUM_ROWS):
            y = margin + (NUM_ROWS - 1 - row) * cell + cell / 2
            render.centred_text(draw, (margin / 2, y), str(row + 1))
        for column in range(NUM_COLUMNS):
            x = margin + column * cell + cell / 2
            render.centred_text(draw, (x, margin + NUM_ROWS * cell + margin / 2), COLUMNS[column])
        status = f"{self.status()}   home: dark {self.home[0]}/9, light {self.home[1]}/9"
        render.centred_text(draw, (width / 2, height - 16), status, size=14)
        return render.to_array(image)
