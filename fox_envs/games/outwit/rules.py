"""Outwit (rules as implemented: docs/rules/outwit.md).

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

import itertools
from typing import Any

import numpy as np

from fox_envs.core import render
from fox_envs.core.errors import IllegalActionError
from fox_envs.core.game import TERMINAL, Game, State, action_as_int, two_player_returns
from fox_envs.core.params import short_repr

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
CELL, MARGIN = 48, 28  # picture: square size and margin in pixels


def square_box(square: int) -> tuple[int, int, int, int]:
    """Pixel box of ``square`` in the picture (row 9 at the top)."""
    row, column = divmod(square, NUM_COLUMNS)
    x0, y0 = MARGIN + column * CELL, MARGIN + (NUM_ROWS - 1 - row) * CELL
    return x0, y0, x0 + CELL, y0 + CELL
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


# Line tables for the states' move generation. A state keeps the occupancy of each row and column
# as a bit pattern (``lines``: rows 0-8 with bit = column, then columns 9-18 with bit = row), and
# a chip's slides along its row or column depend only on that line's pattern, so they are looked
# up in ``SLIDES`` (built at import in about 30 ms: 2 * 2 * 2 * 90 lists of 1024 or 512 shared
# tuples, about 6 MB).
ROW_LINE = tuple(square // NUM_COLUMNS for square in range(NUM_SQUARES))
COLUMN_LINE = tuple(NUM_ROWS + square % NUM_COLUMNS for square in range(NUM_SQUARES))
LINE_BITS = tuple((ROW_LINE[s], 1 << (s % NUM_COLUMNS), COLUMN_LINE[s], 1 << (s // NUM_COLUMNS))
                  for s in range(NUM_SQUARES))
NUM_LINES = NUM_ROWS + NUM_COLUMNS


def _line_rays(player: int, square: int, axis: int) -> tuple[tuple[int, ...], ...]:
    """The non-empty rays of ``player`` from ``square`` along its row (axis 0) or column (1)."""
    steps = DIRECTIONS[2:4] if axis == 0 else DIRECTIONS[:2]
    return tuple(ray for ray in (_ray(player, square, step) for step in steps) if ray)


LINE_RAYS = tuple(tuple(tuple(_line_rays(p, s, axis) for axis in (0, 1)) for s in range(NUM_SQUARES)) for p in (0, 1))
DIAGONAL_RAYS = tuple(_rays(p, DIRECTIONS[4:]) for p in (0, 1))
# DIRECTION_RAYS[player][square][d]: the ray in direction DIRECTIONS[d] (empty where the chip is
# blocked at once), for tables indexed by direction (the batched kernels').
DIRECTION_RAYS = tuple(tuple(tuple(_ray(p, s, step) for step in DIRECTIONS) for s in range(NUM_SQUARES))
                       for p in (0, 1))


def _line_bit(square: int, axis: int) -> int:
    """The bit of ``square`` in its row's pattern (axis 0: its column) or column's (1: its row)."""
    return square % NUM_COLUMNS if axis == 0 else square // NUM_COLUMNS


def _clear_runs(width: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """For lines of ``width`` squares: per start bit, over all patterns, how many clear bits run
    from that bit upwards (first list) and downwards (second list)."""
    patterns = np.arange(1 << width)
    up: list[np.ndarray] = [patterns] * width
    down: list[np.ndarray] = [patterns] * width
    for runs, bits in ((up, range(width - 1, -1, -1)), (down, range(width))):
        run = np.zeros(len(patterns), dtype=np.intp)
        for bit in bits:
            run = runs[bit] = np.where((patterns >> bit) & 1, 0, run + 1)
    return up, down


def _slide_tables(player: int, power: bool, axis: int) -> tuple[list[tuple[int, ...]], ...]:
    """Per square, a list indexed by the pattern of the square's row (``axis`` 0) or column (1):
    the sorted move actions of ``player``'s power chip (``power``) or regular chip on that
    square along the line. They depend only on how far each ray is open (up to its first
    occupied square), so the moves are built once per combination of open lengths."""
    up, down = _clear_runs(NUM_COLUMNS if axis == 0 else NUM_ROWS)
    tables = []
    for square in range(NUM_SQUARES):
        rays = LINE_RAYS[player][square][axis]
        key = np.zeros(len(up[0]), dtype=np.intp)  # the open lengths, one decimal digit per ray
        for ray in rays:
            first = _line_bit(ray[0], axis)
            runs = up[first] if first > _line_bit(square, axis) else down[first]
            key = key * 10 + np.minimum(runs, len(ray))
        moves_of = np.empty(100, dtype=object)
        base = square * NUM_SQUARES
        for lengths in itertools.product(*(range(len(ray) + 1) for ray in rays)):
            moves = []
            for ray, length in zip(rays, lengths):
                reached = ray[:length]
                moves += [base + target for target in (reached if power else reached[-1:])]
            moves_of[int("".join(map(str, lengths)) or 0)] = tuple(sorted(moves))
        tables.append(moves_of[key].tolist())
    return tuple(tables)


# SLIDES[player][power][axis][square][pattern]: the moves along that square's row or column.
SLIDES = tuple(tuple(tuple(_slide_tables(p, power, axis) for axis in (0, 1)) for power in (False, True))
               for p in (0, 1))


def line_patterns(board: bytearray) -> list[int]:
    """The occupancy pattern of every row and column of ``board`` (see ``LINE_BITS``)."""
    lines = [0] * NUM_LINES
    for square in range(NUM_SQUARES):
        if board[square]:
            row, row_bit, column, column_bit = LINE_BITS[square]
            lines[row] |= row_bit
            lines[column] |= column_bit
    return lines


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


def _position_planes() -> tuple[tuple[np.ndarray, ...], ...]:
    """``SQUARE_PLANES`` with planes 7-9 filled in, per observer and ``variant`` = 8 * (the
    observer is to move) + 4 * (the last action was a pass) + the repetition count (0..3): one
    gather then builds planes 0-9 of an observation."""
    tables = []
    for player in (0, 1):
        variants = []
        for variant in range(16):
            table = SQUARE_PLANES[player].copy()
            table[:, 7] = variant >> 3
            table[:, 8] = variant >> 2 & 1
            table[:, 9] = (variant & 3) / 3.0
            variants.append(table)
        tables.append(tuple(variants))
    return tuple(tables)


POSITION_PLANES = _position_planes()
OBS_SHAPE = (NUM_ROWS, NUM_COLUMNS, NUM_PLANES)
INT8 = np.dtype(np.int8)
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

    def observation_scale(self) -> np.ndarray:
        """Plane 9 counts occurrences (of 3), plane 10 moves played (of ``max_moves_default``)."""
        scale = np.ones(NUM_PLANES, np.float32)
        scale[9], scale[10] = 3, self.max_moves_default
        return scale

    def new_initial_state(self) -> "OutwitState":
        return OutwitState(self)


class OutwitState(State):
    """The position, with two derived parts kept up to date move by move for the random-play hot
    path: ``lines`` (each row's and column's occupancy pattern, for the move generation through
    ``SLIDES``) and ``cells`` (per square ``square*5 + board code``, its row in the
    ``POSITION_PLANES`` tables, for the observation's one gather). Both are left out of pickles
    and rebuilt on loading. ``apply_action`` validates
    and applies in one method (there is no separate ``_apply_action``)."""

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
        self._derive()

    def _derive(self) -> None:
        """Rebuild ``lines`` and ``cells`` from the board (a new state, and on unpickling)."""
        self.lines = line_patterns(self.board)
        self.cells = SQUARE_ROWS + np.frombuffer(bytes(self.board), dtype=np.uint8)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["lines"], state["cells"]  # derived: rebuilt on unpickling, keeps pickles small
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._derive()

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
        """Every slide of the mover's chips; ``pass`` only when there is none. The same moves as
        ``generate_moves``: row and column slides looked up by line pattern in ``SLIDES``, the
        power chip's diagonals walked."""
        player = self.to_move
        chips = self.squares[player]
        lines = self.lines
        (rows, columns), (power_rows, power_columns) = SLIDES[player]
        power = chips[0]
        moves = [*power_rows[power][lines[ROW_LINE[power]]], *power_columns[power][lines[COLUMN_LINE[power]]]]
        board = self.board
        base = power * NUM_SQUARES
        for ray in DIAGONAL_RAYS[player][power]:
            for target in ray:
                if board[target]:
                    break
                moves.append(base + target)
        for square in chips[1:]:
            moves += rows[square][lines[ROW_LINE[square]]]
            moves += columns[square][lines[COLUMN_LINE[square]]]
        if not moves:
            return [PASS]
        moves.sort()
        return moves

    def apply_action(self, action: Any) -> None:
        """Apply a legal action; anything else raises ``IllegalActionError`` and changes nothing."""
        value = action if type(action) is int else action_as_int(action)
        legal = self._legal  # the cached list when there is one, else the direct check
        if value is None or not (value in legal if legal is not None else self.is_legal(value)):
            raise IllegalActionError(self._illegal_message(action, value))
        mover = self.to_move
        if value == PASS:
            self.passes += 1
        else:
            self.passes = 0
            origin, target = divmod(value, NUM_SQUARES)
            board = self.board
            code = board[target] = board[origin]
            board[origin] = EMPTY
            cells = self.cells
            cells[origin] = origin * 5
            cells[target] = target * 5 + code
            lines = self.lines
            row, row_bit, column, column_bit = LINE_BITS[origin]
            lines[row] ^= row_bit
            lines[column] ^= column_bit
            row, row_bit, column, column_bit = LINE_BITS[target]
            lines[row] ^= row_bit
            lines[column] ^= column_bit
            chips = self.squares[mover]
            index = chips.index(origin)
            chips[index] = target
            self.code = moved_code(self.code, mover, index == 0, origin, target)
            in_corner = IN_CORNER[mover]
            if in_corner[target] and not in_corner[origin]:
                self.home[mover] += 1
        self._history.append(value)
        self._legal = None
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
    def _position_table(self, player: int) -> np.ndarray:
        """The ``POSITION_PLANES`` table of planes 0-9 for ``player`` in this position."""
        variant = min(self.seen.get(self.code + MOVER_KEY[self.to_move], 0), 3)
        if self.passes:
            variant += 4
        if self.to_move == player and self.winner < 0 and not self.drawn:
            variant += 8
        return POSITION_PLANES[player][variant]

    def _write_move_planes(self, planes: np.ndarray) -> None:
        """Planes 10-12 (progress, the last move's squares) of the (90, planes) view ``planes``,
        whose planes 10-12 are zero."""
        history = self._history
        if history:
            planes[:, 10] = min(1.0, len(history) / self.game.max_moves_default)
            if history[-1] != PASS:
                origin, target = divmod(history[-1], NUM_SQUARES)
                planes[origin, 11] = 1.0
                planes[target, 12] = 1.0

    def observation_tensor(self, player: int) -> np.ndarray:
        planes = self._position_table(player).take(self.cells, axis=0)
        self._write_move_planes(planes)
        return planes.reshape(OBS_SHAPE)

    def write_observation(self, player: int, out: np.ndarray) -> None:
        """Planes 0-9 in one gather from the position table, then planes 10-12."""
        if not out.flags.c_contiguous or out.dtype != np.float32:  # no in-place view of it
            out[...] = self.observation_tensor(player)
            return
        planes = out.reshape(NUM_SQUARES, NUM_PLANES)  # a view: out is written in place
        # the indices are always in range; "clip" lets take write straight into out
        self._position_table(player).take(self.cells, axis=0, out=planes, mode="clip")
        self._write_move_planes(planes)

    def legal_actions_mask(self) -> np.ndarray:
        mask = bytearray(NUM_ACTIONS)
        for action in self._cached_legal():
            mask[action] = 1
        return np.frombuffer(mask, dtype=INT8)

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
            raise IllegalActionError(f"{self.game.name}: notation must be a string, got {short_repr(text)}")
        wanted = text.strip()
        if wanted == "pass":
            return PASS
        origin, dash, target = wanted.partition("-")
        if dash and origin in SQUARE_INDEX and target in SQUARE_INDEX:
            return SQUARE_INDEX[origin] * NUM_SQUARES + SQUARE_INDEX[target]
        examples = ", ".join(repr(self.action_to_string(a)) for a in self._cached_legal()[:8])
        raise IllegalActionError(
            f"{self.game.name}: unknown move {short_repr(text)} (write e.g. 'e4-e9' or 'pass'); "
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
        new.lines = self.lines[:]
        new.cells = self.cells.copy()
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

    def render_rgb(self, viewer: int | None = None, status: str | None = None) -> np.ndarray:  # all public
        width, height = NUM_COLUMNS * CELL + 2 * MARGIN, NUM_ROWS * CELL + 2 * MARGIN + 28
        image, draw = render.canvas(width, height)
        dark_corner, light_corner = (120, 95, 70), (200, 200, 200)
        for square in range(NUM_SQUARES):
            x0, y0, x1, y1 = square_box(square)
            fill = dark_corner if IN_CORNER[0][square] else light_corner if IN_CORNER[1][square] else render.WHITE
            draw.rectangle((x0, y0, x1, y1), fill=fill, outline=render.GREY, width=1)
            code = self.board[square]
            if code:
                centre = ((x0 + x1) / 2, (y0 + y1) / 2)
                dark = code <= 2
                render.disc(draw, centre, CELL * 0.38, fill=render.DARK if dark else render.LIGHT,
                            outline=render.BLACK, width=2)
                if code in POWER:
                    render.disc(draw, centre, CELL * 0.12, fill=render.RED, outline=render.RED, width=1)
        for row in range(NUM_ROWS):
            y = MARGIN + (NUM_ROWS - 1 - row) * CELL + CELL / 2
            render.centred_text(draw, (MARGIN / 2, y), str(row + 1))
        for column in range(NUM_COLUMNS):
            x = MARGIN + column * CELL + CELL / 2
            render.centred_text(draw, (x, MARGIN + NUM_ROWS * CELL + MARGIN / 2), COLUMNS[column])
        if self.winner >= 0:  # the filled home corner
            boxes = [square_box(s) for s in range(NUM_SQUARES) if IN_CORNER[self.winner][s]]
            render.mark_result(draw, [(min(b[0] for b in boxes), min(b[1] for b in boxes),
                                       max(b[2] for b in boxes), max(b[3] for b in boxes))])
        render.mark_last_move(draw, [square_box(s) for s in self.last_move_squares()])
        status = f"{status or self.status()}   home: dark {self.home[0]}/9, light {self.home[1]}/9"
        render.centred_text(draw, (width / 2, height - 16), status, size=14)
        return render.to_array(image)

    def last_move_squares(self) -> tuple[int, ...]:
        """The from and to squares of the last move (``()`` at the start or after a pass)."""
        if self._history and self._history[-1] != PASS:
            return divmod(self._history[-1], NUM_SQUARES)
        return ()
