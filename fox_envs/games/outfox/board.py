"""Outfox board tables: the 19 points, their names and neighbours, the slide rays, the lines of
three, the piece types and the action layout (pure constants, shared by the rules, the renderer
and the kernels).

A hexagon of 19 points on a triangular lattice, axial coordinates (q, r) with
max(|q|, |r|, |q + r|) <= 2. Rows ``a..e`` are r = -2..2; in a row the points are numbered from
1 by increasing q; index in that order (a1 = 0, c3 = 9, e3 = 18)::

        a1  a2  a3              0   1   2          r = -2
      b1  b2  b3  b4          3   4   5   6        r = -1
    c1  c2  c3  c4  c5      7   8   9  10  11      r =  0
      d1  d2  d3  d4         12  13  14  15        r =  1
        e1  e2  e3             16  17  18          r =  2

Each point has up to 6 neighbours (c3 touches b2 b3 c2 c4 d2 d3); the three lattice axes are
the rows (b1-b4), the "\\" diagonals (a1 b2 c3 d3 e3) and the "/" diagonals (a3 b3 c3 d2 e1).

Piece type = shape*3 + colour, shapes circle/square/triangle (``C S T``), colours
red/yellow/blue (``R Y B``).

Actions: place = ``type*19 + point`` (0..170), slide = ``171 + from*19 + to`` (171..531).
"""
from __future__ import annotations

# ----- board geometry ------------------------------------------------------------------------
ROWS = "abcde"
COORDS: tuple[tuple[int, int], ...] = tuple(
    (q, r) for r in range(-2, 3) for q in range(-2, 3) if max(abs(q), abs(r), abs(q + r)) <= 2
)
NUM_POINTS = len(COORDS)  # 19
INDEX = {coord: i for i, coord in enumerate(COORDS)}


def _point_name(i: int) -> str:
    q, r = COORDS[i]
    first_q = max(-2, -2 - r)
    return f"{ROWS[r + 2]}{q - first_q + 1}"


POINT_NAMES: tuple[str, ...] = tuple(_point_name(i) for i in range(NUM_POINTS))
POINT_INDEX = {name: i for i, name in enumerate(POINT_NAMES)}
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))
AXES = ((1, 0), (0, 1), (1, -1))


def _step(i: int, d: tuple[int, int], k: int = 1) -> int:
    q, r = COORDS[i]
    return INDEX.get((q + k * d[0], r + k * d[1]), -1)


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(n for d in DIRECTIONS if (n := _step(i, d)) >= 0)) for i in range(NUM_POINTS)
)


def _ray(i: int, d: tuple[int, int]) -> tuple[int, ...]:
    points = []
    while (i := _step(i, d)) >= 0:  # the hexagon is convex: stop at the first point off it
        points.append(i)
    return tuple(points)


# RAYS[i]: for each direction with at least one point, the points met going that way, in order.
RAYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(ray for d in DIRECTIONS if (ray := _ray(i, d))) for i in range(NUM_POINTS)
)
# Every window of 3 consecutive points on one axis (27 of them).
LINES: tuple[tuple[int, int, int], ...] = tuple(
    (i, b, c) for i in range(NUM_POINTS) for d in AXES
    if (b := _step(i, d)) >= 0 and (c := _step(i, d, 2)) >= 0
)
LINES_THROUGH: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(
    tuple(line for line in LINES if i in line) for i in range(NUM_POINTS)
)
# For each line through point i, the other two points of it.
PAIRS_THROUGH: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(p for p in line if p != i) for line in LINES_THROUGH[i]) for i in range(NUM_POINTS)
)

# ----- pieces --------------------------------------------------------------------------------
SHAPES = "CST"
COLOURS = "RYB"
SHAPE_NAMES = ("circle", "square", "triangle")
COLOUR_NAMES = ("red", "yellow", "blue")
NUM_TYPES = 9
TYPE_NAMES: tuple[str, ...] = tuple(SHAPES[t // 3] + COLOURS[t % 3] for t in range(NUM_TYPES))
TYPE_INDEX = {name: t for t, name in enumerate(TYPE_NAMES)}

# ----- action layout -----------------------------------------------------------------------
NUM_PLACE = NUM_TYPES * NUM_POINTS  # 171
NUM_ACTIONS = NUM_PLACE + NUM_POINTS * NUM_POINTS  # 532
PLACE, SLIDE = 0, 1
