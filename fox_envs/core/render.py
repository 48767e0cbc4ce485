"""Small drawing helpers shared by the rgb_array pictures (Pillow, no display needed)."""
from __future__ import annotations

from typing import Iterable

import numpy as np
from PIL import Image, ImageDraw, ImageFont

Colour = tuple[int, int, int]

WHITE: Colour = (255, 255, 255)
BLACK: Colour = (0, 0, 0)
GREY: Colour = (160, 160, 160)
LIGHT: Colour = (235, 225, 200)
DARK: Colour = (60, 50, 40)
RED: Colour = (210, 50, 40)
YELLOW: Colour = (235, 200, 40)
BLUE: Colour = (50, 90, 210)
GREEN: Colour = (60, 150, 70)
BROWN: Colour = (130, 80, 40)
PINK: Colour = (240, 140, 180)
ORANGE: Colour = (230, 120, 30)


def canvas(width: int, height: int, background: Colour = LIGHT) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (width, height), background)
    return image, ImageDraw.Draw(image)


def font(size: int = 14) -> ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def centred_text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str,
                 fill: Colour = BLACK, size: int = 14) -> None:
    draw.text(xy, text, fill=fill, font=font(size), anchor="mm")


def disc(draw: ImageDraw.ImageDraw, centre: tuple[float, float], radius: float, fill: Colour,
         outline: Colour = BLACK, width: int = 2) -> None:
    x, y = centre
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=fill, outline=outline, width=width)


def polygon(draw: ImageDraw.ImageDraw, points: Iterable[tuple[float, float]], fill: Colour,
            outline: Colour = BLACK, width: int = 2) -> None:
    draw.polygon(list(points), fill=fill, outline=outline, width=width)


def to_array(image: Image.Image) -> np.ndarray:
    """(H, W, 3) uint8 array of ``image``."""
    return np.asarray(image.convert("RGB"), dtype=np.uint8).copy()


# ----- marks: the last move and the result, drawn the same way in every game ------------------
Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels

LAST_MOVE: Colour = (200, 0, 200)  # magenta: the squares / points / cards of the last move
RESULT: Colour = (0, 170, 70)  # green: the winning line, home corner or final result
MARK_WIDTH = 5


def _outline(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, round_: bool, pad: float) -> None:
    x0, y0, x1, y1 = box
    shape = (x0 - pad, y0 - pad, x1 + pad, y1 + pad)
    if round_:
        draw.ellipse(shape, outline=colour, width=MARK_WIDTH)
    else:
        draw.rectangle(shape, outline=colour, width=MARK_WIDTH)


def mark_last_move(draw: ImageDraw.ImageDraw, boxes: Iterable[Box], round_: bool = False) -> None:
    """Outline every place the last move touched (from and to) in the last-move colour."""
    for box in boxes:
        _outline(draw, box, LAST_MOVE, round_, pad=2)


def mark_result(draw: ImageDraw.ImageDraw, boxes: Iterable[Box], round_: bool = False) -> None:
    """Outline the places that decided the game (winning line, filled home corner) in green,
    just outside any last-move outline so both stay visible."""
    for box in boxes:
        _outline(draw, box, RESULT, round_, pad=2 + MARK_WIDTH)


def banner(draw: ImageDraw.ImageDraw, box: Box, text: str, colour: Colour = RESULT) -> None:
    """A filled result banner (white bold-looking text) for a game decided by a score or a team result."""
    draw.rectangle(box, fill=colour, outline=BLACK, width=2)
    x0, y0, x1, y1 = box
    draw.text(((x0 + x1) / 2, (y0 + y1) / 2), text, fill=WHITE, font=font(16), anchor="mm",
              stroke_width=1, stroke_fill=BLACK)


def halo_text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, fill: Colour = BLACK,
              size: int = 14, halo: Colour = WHITE) -> None:
    """Centred text with a halo, legible over lines and pieces."""
    draw.text(xy, text, fill=fill, font=font(size), anchor="mm", stroke_width=3, stroke_fill=halo)


def last_decision(state) -> tuple[object, int] | None:
    """``(state before, action)`` of the last player decision of ``state``'s history (chance
    steps skipped), found by replaying the history from the start; ``None`` before any."""
    history = state.history()
    replay = state.game.new_initial_state()
    last = -1
    for index, action in enumerate(history):
        if replay.current_player() >= 0:
            last = index
        replay.apply_action(action)
    if last < 0:
        return None
    before = state.game.new_initial_state()
    for action in history[:last]:
        before.apply_action(action)
    return before, history[last]
