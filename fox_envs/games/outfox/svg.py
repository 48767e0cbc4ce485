"""The SVG picture of an Outfox position, as ``render_rgb`` draws it: the hexagonal lattice of
19 points, every piece in its real shape and colour, the winning lines, the last turn and the
pieces left in each hand. Every point is clickable as its name (``c3``: where to place, where
a slide starts and ends); the pieces in the hand of the seat to move as their type (``TR``)."""
from __future__ import annotations

import math

from fox_envs.core import render, svg
from fox_envs.games.outfox.board import (
    COLOUR_NAMES,
    COORDS,
    NEIGHBOURS,
    NUM_POINTS,
    NUM_TYPES,
    POINT_NAMES,
    SHAPE_NAMES,
    TYPE_NAMES,
)
from fox_envs.games.outfox.render import (
    BOARD_TOP,
    PIECE_COLOURS,
    RADIUS,
    SPACING,
    WIDTH,
    last_turn_points,
    point_box,
    point_xy,
)
from fox_envs.games.outfox.rules import OutfoxState


def piece_shape(centre: tuple[float, float], piece: int, size: float, width: float = 2) -> str:
    """Piece type ``piece`` (shape*3 + colour) centred at ``centre`` (``render.draw_piece``)."""
    shape, colour = divmod(piece, 3)
    fill, (x, y) = PIECE_COLOURS[colour], centre
    if shape == 0:
        return svg.circle(centre, size, fill, width=width)
    if shape == 1:
        s = size * 0.85
        return svg.polygon([(x - s, y - s), (x + s, y - s), (x + s, y + s), (x - s, y + s)], fill, width=width)
    s = size * 1.1
    return svg.polygon([(x, y - s), (x + s * 0.95, y + s * 0.7), (x - s * 0.95, y + s * 0.7)], fill, width=width)


def piece_name(piece: int) -> str:
    shape, colour = divmod(piece, 3)
    return f"{COLOUR_NAMES[colour]} {SHAPE_NAMES[shape]}"


def _point(state: OutfoxState, point: int, xy: tuple[float, float]) -> str:
    """Point ``point`` with its piece (or a dot), clickable as its name."""
    piece = state.board[point]
    target = svg.circle(xy, RADIUS + 4, "#ffffff", "none", 0, fill_opacity=0)  # the area to click
    shown = (svg.circle(xy, 5, render.DARK, render.DARK, 1) if piece < 0 else piece_shape(xy, piece, RADIUS))
    name = POINT_NAMES[point]
    return svg.act(name, target, shown, title=f"{name}: {'empty' if piece < 0 else piece_name(piece)}")


def _hands(state: OutfoxState, top: float) -> list[str]:
    """One row per seat of its unplaced pieces; the mover's act as their type."""
    parts, mover = [], state.current_player()
    for seat in range(state.game.num_players):
        y = top + 30 * seat + 10
        parts.append(svg.text((40, y), f"P{seat}", fill=render.DARK))
        x = 75
        for piece in range(NUM_TYPES):
            for _ in range(state.hands[seat][piece]):
                shape = piece_shape((x, y), piece, 10, width=1)
                parts.append(svg.act(TYPE_NAMES[piece], shape, title=f"{TYPE_NAMES[piece]}: {piece_name(piece)}")
                             if seat == mover else shape)
                x += 26
    return parts


def draw(state: OutfoxState, viewer: int | None = None) -> str:
    """The board and hands (everything is public, so every viewer sees the same picture)."""
    board_bottom = BOARD_TOP + 4 * SPACING * math.sqrt(3) / 2 + 40
    xy = [point_xy(*COORDS[i]) for i in range(NUM_POINTS)]
    parts = [svg.line(xy[i], xy[j], render.GREY, 2) for i in range(NUM_POINTS) for j in NEIGHBOURS[i] if j > i]
    parts += [svg.line(xy[a], xy[c], render.RESULT, 8) for a, _, c in state.win_lines]
    parts += [_point(state, i, xy[i]) for i in range(NUM_POINTS)]
    parts.append(svg.mark_result([point_box(p) for p in sorted({p for line in state.win_lines for p in line})],
                                 round_=True))
    parts.append(svg.mark_last_move([point_box(p) for p in last_turn_points(state)], round_=True))
    parts += [svg.text((xy[i][0] + RADIUS + 6, xy[i][1] + RADIUS - 2), POINT_NAMES[i], size=13, halo=render.WHITE,
                       pointer_events="none") for i in range(NUM_POINTS)]
    for r in range(-2, 3):
        x0, y0 = point_xy(max(-2, -2 - r), r)
        parts.append(svg.text((x0 - 45, y0), "abcde"[r + 2], size=16, fill=render.DARK))
    parts += _hands(state, board_bottom + 5)
    height = board_bottom + 30 * state.game.num_players + 15
    return svg.document(WIDTH, height, *parts, title="Outfox")
