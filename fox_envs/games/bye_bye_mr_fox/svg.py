"""The SVG picture of Bye Bye Mr. Fox!, as ``render_rgb`` draws it: the ring of six sectors with
their outer circles (visible picture, a blue ring when a token covers it), the central-nest
circles, the spinner at the last spin, the three hens' nests and the face-down counts, with the
last placement marked. Clickable: outer circles as ``O0..O5``, nest circles as ``N0..N5``, the
hens' nests as their colour (``give white``: ``give``, then ``white``)."""
from __future__ import annotations

import math

from fox_envs.core import render, svg
from fox_envs.games.bye_bye_mr_fox.board import HENS, KIND_NAMES, OVER, THREE_HENS
from fox_envs.games.bye_bye_mr_fox.render import (
    CENTRE,
    EGG_COLOUR,
    HEN_COLOURS,
    LABELS,
    SECTOR_FILL,
    SIZE,
    _point,
    mark_last_move,
    nest_box,
)
from fox_envs.games.bye_bye_mr_fox.rules import ByeByeMrFoxState

NEST_BROWN, EMPTY_CIRCLE, EMPTY_EGG = (205, 170, 110), (185, 150, 95), (150, 115, 70)


def _wedge(sector: int) -> str:
    """Sector ``sector``'s wedge of the ring (``render``'s pie slice)."""
    radius = 215
    start, end = (math.radians(-90 + 60 * sector + d) for d in (-30, 30))
    x0, y0 = CENTRE[0] + radius * math.cos(start), CENTRE[1] + radius * math.sin(start)
    x1, y1 = CENTRE[0] + radius * math.cos(end), CENTRE[1] + radius * math.sin(end)
    path = f"M{CENTRE[0]:.1f},{CENTRE[1]:.1f} L{x0:.1f},{y0:.1f} A{radius},{radius} 0 0,1 {x1:.1f},{y1:.1f} Z"
    return f"<path{svg.attributes(d=path, fill=SECTOR_FILL[sector % 2], stroke=render.DARK, stroke_width=2)}/>"


def _outer(state: ByeByeMrFoxState, sector: int) -> str:
    """Outer circle ``O<sector>`` with its visible picture, clickable as its name."""
    centre, kind, covered = _point(sector, 165), state.visible[sector], bool(state.covered[sector])
    if kind == THREE_HENS:
        parts = [svg.circle(centre, 34, render.YELLOW)]
        parts += [svg.circle((centre[0] + (k - 1) * 18, centre[1]), 9, colour, width=1)
                  for k, colour in enumerate(HEN_COLOURS)]
    else:
        parts = [svg.circle(centre, 34, render.ORANGE if kind == 4 else HEN_COLOURS[kind],
                            render.BLUE if covered else render.BLACK, 6 if covered else 2),
                 svg.text(centre, LABELS[kind], size=13, fill=render.WHITE if kind in (0, 1) else render.BLACK)]
    return svg.act(f"O{sector}", *parts, title=f"O{sector}: {state.picture_label(sector)}")


def _nest_circle(state: ByeByeMrFoxState, sector: int) -> str:
    """Central-nest circle ``N<sector>``, an egg on it or empty, clickable as its name."""
    x, y = centre = _point(sector, 70)
    if state.circles[sector]:
        shape = svg.ellipse((x - 16, y - 21, x + 16, y + 21), EGG_COLOUR, render.DARK, 2)
    else:
        shape = svg.circle(centre, 19, EMPTY_CIRCLE, render.DARK, 1)
    title = f"N{sector}: {'egg' if state.circles[sector] else 'empty'}"
    return svg.act(f"N{sector}", shape, svg.text(centre, f"N{sector}", size=11), title=title)


def _hen_nest(state: ByeByeMrFoxState, hen: int) -> str:
    """Hen ``hen``'s nest with its eggs, clickable as its colour (the egg to give)."""
    x0, y0, _x1, _y1 = box = nest_box(hen)
    parts = [svg.rect(box, (190, 150, 90), render.DARK, 2), svg.circle((x0 + 20, y0 + 20), 12, HEN_COLOURS[hen], width=1),
             svg.text((x0 + 75, y0 + 18), LABELS[hen], size=13)]
    parts += [svg.ellipse((x0 + 25 + 35 * k - 11, y0 + 42, x0 + 25 + 35 * k + 11, y0 + 72),
                          EGG_COLOUR if k < state.nests[hen] else EMPTY_EGG, render.DARK, 1) for k in range(3)]
    name = KIND_NAMES[hen]
    return svg.act(name, *parts, title=f"{name} hen's nest: {state.nests[hen]}/3 eggs")


def _spinner(sector: int) -> list[str]:
    """The spinner: its front end at ``sector``, its back end at the opposite nest circle."""
    front, back = _point(sector, 118), _point(sector + 3, 40)
    tip, left, right = _point(sector, 132), _point(sector - 0.12, 110), _point(sector + 0.12, 110)
    return [svg.line(back, front, render.RED, 6, pointer_events="none"),
            svg.polygon((tip, left, right), render.RED, render.RED)]


def draw(state: ByeByeMrFoxState, viewer: int | None = None) -> str:
    """The board (a cooperative game without hidden facts: every viewer sees the same)."""
    parts = [_wedge(s) for s in range(6)]
    parts += [_outer(state, s) for s in range(6)]
    parts += [svg.text(_point(s - 0.35, 205), f"O{s}", size=12) for s in range(6)]
    parts.append(svg.circle(CENTRE, 105, NEST_BROWN))
    if state.spin >= 0:
        parts += _spinner(state.spin)
    parts += [_nest_circle(state, s) for s in range(6)]
    parts.append(svg.circle(CENTRE, 6, render.DARK))
    parts += [_hen_nest(state, hen) for hen in HENS]
    parts.append(svg.recorded(mark_last_move, state))
    if state.phase == OVER and state.won:
        parts.append(svg.mark_result([nest_box(hen) for hen in HENS]))
    down = ", ".join(f"{n} {LABELS[k]}" for k, n in enumerate(state.face_down))
    parts.append(svg.text((SIZE / 2, SIZE + 110), f"face down: {down}", size=12))
    return svg.document(SIZE, SIZE + 122, *parts, title="Bye Bye Mr. Fox!")
