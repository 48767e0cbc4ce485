"""The SVG picture of an Outwit position, as ``render_rgb`` draws it: the 10x9 board with the
two home corners, dark and light chips (a power chip with a red centre), the filled home corner
and the last move. Every square is clickable as its name (a move is ``from-to``), and a
``pass`` button sits under the board."""
from __future__ import annotations

from fox_envs.core import render, svg
from fox_envs.games.outwit.rules import (
    CELL,
    COLUMNS,
    IN_CORNER,
    MARGIN,
    NUM_COLUMNS,
    NUM_ROWS,
    NUM_SQUARES,
    POWER,
    SQUARE_NAMES,
    OutwitState,
    square_box,
)

CORNER_FILLS = ((120, 95, 70), (200, 200, 200))  # player_0's (dark) corner, player_1's (light)
CHIP_NAMES = ("", "dark chip", "dark power chip", "light chip", "light power chip")


def _square(state: OutwitState, square: int) -> str:
    """One square with its chip, clickable as its name."""
    box = square_box(square)
    fill = CORNER_FILLS[0] if IN_CORNER[0][square] else CORNER_FILLS[1] if IN_CORNER[1][square] else render.WHITE
    parts = [svg.rect(box, fill, render.GREY, 1)]
    code = state.board[square]
    if code:
        centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        parts.append(svg.circle(centre, CELL * 0.38, render.DARK if code <= 2 else render.LIGHT))
        if code in POWER:
            parts.append(svg.circle(centre, CELL * 0.12, render.RED, render.RED, 1))
    name = SQUARE_NAMES[square]
    return svg.act(name, *parts, title=f"{name}: {CHIP_NAMES[code] or 'empty'}")


def draw(state: OutwitState, viewer: int | None = None) -> str:
    """The board (everything is public, so every viewer sees the same picture) and ``pass``."""
    width, board_bottom = NUM_COLUMNS * CELL + 2 * MARGIN, NUM_ROWS * CELL + 2 * MARGIN
    parts = [_square(state, square) for square in range(NUM_SQUARES)]
    for row in range(NUM_ROWS):
        parts.append(svg.text((MARGIN / 2, MARGIN + (NUM_ROWS - 1 - row) * CELL + CELL / 2), row + 1))
    for column in range(NUM_COLUMNS):
        parts.append(svg.text((MARGIN + column * CELL + CELL / 2, MARGIN + NUM_ROWS * CELL + MARGIN / 2), COLUMNS[column]))
    if state.winner >= 0:  # the filled home corner
        boxes = [square_box(s) for s in range(NUM_SQUARES) if IN_CORNER[state.winner][s]]
        parts.append(svg.mark_result([(min(b[0] for b in boxes), min(b[1] for b in boxes),
                                       max(b[2] for b in boxes), max(b[3] for b in boxes))]))
    parts.append(svg.mark_last_move([square_box(s) for s in state.last_move_squares()]))
    parts.append(svg.text((MARGIN, board_bottom + 18), f"home: dark {state.home[0]}/9, light {state.home[1]}/9",
                          anchor="start"))
    parts.append(svg.button((width - MARGIN - 80, board_bottom + 4, width - MARGIN, board_bottom + 32), "pass",
                            title="pass (only when no move is possible)"))
    return svg.document(width, board_bottom + 40, *parts, title="Outwit")
