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
