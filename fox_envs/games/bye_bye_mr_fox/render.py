"""The rgb_array picture of Bye Bye Mr. Fox!: the ring of six sectors with their outer circles
(visible picture, a ring when a token covers it), the central-nest circles, the spinner at the
last spin and the three hens' nests below."""
from __future__ import annotations

import math

import numpy as np

from fox_envs.core import render
from fox_envs.core.game import State
from fox_envs.games.bye_bye_mr_fox.board import OVER

SIZE = 480
CENTRE = (SIZE / 2, SIZE / 2)
EGG_COLOUR = (250, 245, 225)
HEN_COLOURS = ((35, 35, 35), render.BROWN, (250, 250, 250))  # black, brown, white
SECTOR_FILL = ((150, 200, 120), (170, 215, 140))
LABELS = ("black", "brown", "white", "egg", "fox", "3 hens")


def _point(sector: float, radius: float) -> tuple[float, float]:
    angle = math.radians(-90 + 60 * sector)
    return CENTRE[0] + radius * math.cos(angle), CENTRE[1] + radius * math.sin(angle)


def _picture(draw, centre: tuple[float, float], kind: int, covered: bool) -> None:
    if kind == 5:  # three hens: three small hens
        render.disc(draw, centre, 34, fill=render.YELLOW)
        for k, colour in enumerate(HEN_COLOURS):
            x = centre[0] + (k - 1) * 18
            render.disc(draw, (x, centre[1]), 9, fill=colour, width=1)
        return
    fill = render.ORANGE if kind == 4 else HEN_COLOURS[kind]
    outline = render.BLUE if covered else render.BLACK
    render.disc(draw, centre, 34, fill=fill, outline=outline, width=6 if covered else 2)
    text_colour = render.WHITE if kind in (0, 1) else render.BLACK
    render.centred_text(draw, centre, LABELS[kind], fill=text_colour, size=13)


def _circle_box(centre: tuple[float, float], radius: float) -> render.Box:
    return centre[0] - radius, centre[1] - radius, centre[0] + radius, centre[1] + radius


def nest_box(colour: int) -> render.Box:
    """Pixel box of hen ``colour``'s nest below the ring."""
    x0, y0 = 30 + colour * 150, SIZE + 10
    return x0, y0, x0 + 120, y0 + 80


def circle_box(action: int) -> render.Box:
    """Pixel box of the circle a placement fills: nest circle ``N<s>`` (0..5), outer ``O<s>`` (6..11)."""
    if action < 6:
        return _circle_box(_point(action, 70), 24)
    return _circle_box(_point(action - 6, 165), 36)


def mark_last_move(draw, state: State) -> None:
    """Mark where the last player decision put something: the nest circle of an egg (``N<s>``),
    the outer circle of a hen or fox (``O<s>``), the hen's nest given the egg (``give``)."""
    found = render.last_decision(state)
    if found is None:
        return
    action = found[1]
    if action < 12:
        render.mark_last_move(draw, [circle_box(action)], round_=True)
    else:
        render.mark_last_move(draw, [nest_box(action - 12)])


def draw_board(state: State, status: str | None = None) -> np.ndarray:
    image, draw = render.canvas(SIZE, SIZE + 130)
    for s in range(6):  # sector wedges
        start = -90 + 60 * s - 30
        draw.pieslice((CENTRE[0] - 215, CENTRE[1] - 215, CENTRE[0] + 215, CENTRE[1] + 215),
                      start, start + 60, fill=SECTOR_FILL[s % 2], outline=render.DARK, width=2)
    for s in range(6):
        _picture(draw, _point(s, 165), state.visible[s], bool(state.covered[s]))
        render.centred_text(draw, _point(s - 0.35, 205), f"O{s}", size=12)
    render.disc(draw, CENTRE, 105, fill=(205, 170, 110))  # the central nest
    if state.spin >= 0:  # spinner: front at the sector, back at the opposite nest circle
        front, back = _point(state.spin, 118), _point(state.spin + 3, 40)
        draw.line((*back, *front), fill=render.RED, width=6)
        tip = _point(state.spin, 132)
        left, right = _point(state.spin - 0.12, 110), _point(state.spin + 0.12, 110)
        render.polygon(draw, (tip, left, right), fill=render.RED, outline=render.RED)
    for s in range(6):
        centre = _point(s, 70)
        if state.circles[s]:
            x, y = centre
            draw.ellipse((x - 16, y - 21, x + 16, y + 21), fill=EGG_COLOUR, outline=render.DARK, width=2)
        else:
            render.disc(draw, centre, 19, fill=(185, 150, 95), outline=render.DARK, width=1)
        render.centred_text(draw, _point(s, 70), f"N{s}", size=11)
    render.disc(draw, CENTRE, 6, fill=render.DARK)
    for c in range(3):  # the three hens' nests
        x0, y0, x1, y1 = nest_box(c)
        draw.rectangle((x0, y0, x1, y1), fill=(190, 150, 90), outline=render.DARK, width=2)
        render.disc(draw, (x0 + 20, y0 + 20), 12, fill=HEN_COLOURS[c], width=1)
        render.centred_text(draw, (x0 + 75, y0 + 18), LABELS[c], size=13)
        for k in range(3):
            x = x0 + 25 + 35 * k
            fill = EGG_COLOUR if k < state.nests[c] else (150, 115, 70)
            draw.ellipse((x - 11, y0 + 42, x + 11, y0 + 72), fill=fill, outline=render.DARK, width=1)
    mark_last_move(draw, state)
    if state.phase == OVER and status is None:  # the team's result on a banner, full nests marked
        if state.won:
            render.mark_result(draw, [nest_box(c) for c in range(3)])
        render.banner(draw, (20, SIZE + 96, SIZE - 20, SIZE + 118), state.status(),
                      colour=render.RESULT if state.won else render.RED)
    else:
        render.centred_text(draw, (SIZE / 2, SIZE + 108), status or state.status(), size=14)
    down = ", ".join(f"{n} {LABELS[k]}" for k, n in enumerate(state.face_down))
    render.centred_text(draw, (SIZE / 2, SIZE + 124), f"face down: {down}", size=12)
    return render.to_array(image)
