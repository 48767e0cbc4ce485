"""The SVG picture of an X-Ceter-O position, as ``render_rgb`` draws it: the 3x3 board, X and O
pieces with their numbers (the piece to move on a large yellow badge), the winning line and
the last move (the status line is ``state_svg``'s caption). Every square is clickable as its
name (a move is its target square)."""
from __future__ import annotations

from fox_envs.core import render, svg
from fox_envs.games.xceter_o.rules import (
    CELL,
    MARGIN,
    SQUARE_NAMES,
    XCeterOState,
    square_box,
)


def _piece(state: XCeterOState, square: int, to_move: int) -> list[str]:
    """The piece on ``square``: a red X or a blue O, and its number on a badge."""
    piece = state.board[square]
    if not piece:
        return []
    x0, y0, x1, y1 = square_box(square)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if piece % 2:
        shape = [svg.line((cx - 25, cy - 25), (cx + 25, cy + 25), render.RED, 8),
                 svg.line((cx - 25, cy + 25), (cx + 25, cy - 25), render.RED, 8)]
    else:
        shape = [svg.circle((cx, cy), 26, render.LIGHT, render.BLUE, 8)]
    badge, radius, ink, size = ((render.YELLOW, 15, render.BLACK, 22) if piece == to_move
                                else (render.DARK, 12, render.WHITE, 18))
    return [*shape, svg.circle((x0 + 17, y0 + 17), radius, badge),
            svg.text((x0 + 17, y0 + 17), piece, size=size, fill=ink)]


def draw(state: XCeterOState, viewer: int | None = None) -> str:
    """The board (everything is public, so every viewer sees the same picture)."""
    size = 3 * CELL + 2 * MARGIN
    to_move = state.next_piece() if state.winner < 0 and not state.drawn else 0
    parts = []
    for square in range(9):
        piece = state.board[square]
        title = f"{SQUARE_NAMES[square]}: " + (state.piece_label(piece) if piece else "empty")
        parts.append(svg.act(SQUARE_NAMES[square], svg.rect(square_box(square), render.LIGHT, render.DARK, 3),
                             *_piece(state, square, to_move), title=title))
    for row in range(3):
        parts.append(svg.text((MARGIN / 2, MARGIN + (2 - row) * CELL + CELL / 2), row + 1))
    for col in range(3):
        parts.append(svg.text((MARGIN + col * CELL + CELL / 2, size - MARGIN / 2), "abc"[col]))
    parts.append(svg.mark_result([square_box(s) for s in state.winning_line()]))
    parts.append(svg.mark_last_move([square_box(s) for s in state.history()[-1:]]))
    return svg.document(size, size, *parts, title="X-Ceter-O")
