"""The rgb_array picture of an Outfox position: the hexagonal lattice with its 19 points, every
piece drawn as its real shape (circle, square, triangle) in its real colour, the pieces still in
each hand, and the status line."""
from __future__ import annotations

import math

import numpy as np

from fox_envs.core import render
from fox_envs.core.game import State
from fox_envs.games.outfox.board import COORDS, NEIGHBOURS, NUM_PLACE, NUM_POINTS, NUM_TYPES, POINT_NAMES

PIECE_COLOURS = (render.RED, render.YELLOW, render.BLUE)
SPACING = 70
RADIUS = 22
WIDTH = 460
BOARD_TOP = 40


def point_xy(q: int, r: int) -> tuple[float, float]:
    """Pixel centre of axial point (q, r): row a (r = -2) at the top."""
    return WIDTH / 2 + SPACING * (q + r / 2), BOARD_TOP + SPACING * (r + 2) * math.sqrt(3) / 2


def draw_piece(draw, centre: tuple[float, float], piece: int, size: float, outline=render.BLACK,
               width: int = 2) -> None:
    """Draw piece type ``piece`` (shape*3 + colour) centred at ``centre``."""
    shape, colour = divmod(piece, 3)
    fill = PIECE_COLOURS[colour]
    x, y = centre
    if shape == 0:
        render.disc(draw, centre, size, fill=fill, outline=outline, width=width)
    elif shape == 1:
        s = size * 0.85
        render.polygon(draw, [(x - s, y - s), (x + s, y - s), (x + s, y + s), (x - s, y + s)],
                       fill=fill, outline=outline, width=width)
    else:
        s = size * 1.1
        render.polygon(draw, [(x, y - s), (x + s * 0.95, y + s * 0.7), (x - s * 0.95, y + s * 0.7)],
                       fill=fill, outline=outline, width=width)


def point_box(point: int) -> render.Box:
    """Pixel box of a piece standing on ``point``."""
    x, y = point_xy(*COORDS[point])
    return x - RADIUS - 2, y - RADIUS - 2, x + RADIUS + 2, y + RADIUS + 2


def last_turn_points(state: State) -> tuple[int, ...]:
    """The points of the last turn: the placement, then the slide's from and to points."""
    history = state.history()
    if not history:
        return ()
    if history[-1] < NUM_PLACE:
        return (history[-1] % NUM_POINTS,)
    points = divmod(history[-1] - NUM_PLACE, NUM_POINTS)
    if len(history) > 1 and history[-2] < NUM_PLACE:
        return (history[-2] % NUM_POINTS, *points)
    return points


def draw_state(state: State, status: str | None = None) -> np.ndarray:
    """The picture of an Outfox state: lattice, pieces, winning lines, last turn, hands, status."""
    n = state.game.num_players
    board_bottom = BOARD_TOP + 4 * SPACING * math.sqrt(3) / 2 + 40
    height = int(board_bottom + 30 * n + 40)
    image, draw = render.canvas(WIDTH, height)
    xy = [point_xy(*COORDS[i]) for i in range(NUM_POINTS)]
    for i in range(NUM_POINTS):
        for j in NEIGHBOURS[i]:
            if j > i:
                draw.line((*xy[i], *xy[j]), fill=render.GREY, width=2)
    for line in state.win_lines:
        draw.line((*xy[line[0]], *xy[line[2]]), fill=render.RESULT, width=8)
    for i in range(NUM_POINTS):
        piece = state.board[i]
        if piece < 0:
            render.disc(draw, xy[i], 5, fill=render.DARK, outline=render.DARK, width=1)
        else:
            draw_piece(draw, xy[i], piece, RADIUS)
    render.mark_result(draw, [point_box(p) for p in sorted({p for line in state.win_lines for p in line})],
                       round_=True)
    render.mark_last_move(draw, [point_box(p) for p in last_turn_points(state)], round_=True)
    for i in range(NUM_POINTS):  # point names last, on a halo, below the point: never covered
        render.halo_text(draw, (xy[i][0] + RADIUS + 6, xy[i][1] + RADIUS - 2), POINT_NAMES[i],
                         fill=render.BLACK, size=13)
    for r in range(-2, 3):
        x0, y0 = point_xy(max(-2, -2 - r), r)
        render.centred_text(draw, (x0 - 45, y0), "abcde"[r + 2], fill=render.DARK, size=16)
    y = board_bottom + 5
    for seat in range(n):
        render.centred_text(draw, (40, y + 10), f"P{seat}", fill=render.DARK, size=14)
        x = 75
        for t in range(NUM_TYPES):
            for _ in range(state.hands[seat][t]):
                draw_piece(draw, (x, y + 10), t, 10, width=1)
                x += 26
        y += 30
    render.centred_text(draw, (WIDTH / 2, height - 18), status or state.status(), size=13)
    return render.to_array(image)
