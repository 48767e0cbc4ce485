"""SVG pictures of a state: one standalone document per (state, viewer), for the web app and Jupyter.

``state_svg(state, viewer)`` returns ``<svg xmlns="http://www.w3.org/2000/svg" viewBox=...>``:
no scripts, no external resources, every text escaped, so it parses as XML. The game's own
drawing (``GameSpec.svg``, ``"module:function"`` called as ``draw(state, viewer) -> str``) makes
it; a game whose spec names none gets ``fallback``: its ``render_text(viewer)`` in monospace lines
and a button per move label. ``viewer`` is ``None`` (everything: a spectator, the end of a game)
or a seat, which sees only what that seat may know (as ``render_text`` / ``observation_tensor``).

The click contract (the web app relies on it):

* Every point, square, card, token or choice a player can act on is an element (a ``<g>``) with
  ``class="act"``, a ``<title>`` and ``data-action="<label>"``, where ``<label>`` is a label of a
  part of a move's notation exactly as ``fox_envs.core.move_steps.MoveSteps(names).options()``
  offers it (``names``: the notations of the legal moves; ``b2`` for X-Ceter-O's ``b2``, ``e4``
  and ``e9`` for Outwit's ``e4-e9``, ``TR`` and ``c3`` for Outfox's ``TR@c3``, ``red`` / ``2`` /
  ``pink`` for Outfoxed's ``put red on 2 as pink``). A UI builds any legal move by clicking
  elements whose ``data-action`` is in ``options()`` and calling ``MoveSteps.take(label)`` until
  it returns the move (``done()``). Every label ``options()`` can offer on the way is on some
  element, the first one included when a single move is legal (``give`` of ``give white``).
  Several elements may carry one label (a hand card and a colour button both say ``red``): any
  of them means that label.
* Elements carry their ``data-action`` whether or not it is legal now (a page highlights the
  labels in ``options()``); the pieces of a hand act only for the seat to move.
* Choices that are not a thing on the board (``pass``, ``call``, a colour to declare, ...) are
  buttons: ``<g class="act button" data-action=...>`` with a ``<rect>`` and a ``<text>``.
* ``state_svg`` adds a button, under the board, for every label the legal moves can offer that
  the drawing lacks (the first word of a move that is the only one left, such as ``give`` or
  ``show``), so every legal move can be made by clicks inside the SVG alone. It does so only
  for a viewer who may know the legal moves (``None``, the seat to move, or anyone in a
  perfect-information game).

Marks (the last move in magenta, the result in green, as the Pillow pictures of
``fox_envs.core.render``) ignore the pointer (``pointer-events="none"``).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from html import escape as _escape
from typing import TYPE_CHECKING, Any

from fox_envs.core import render
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.move_steps import move_parts, part_label
from fox_envs.core.params import integer_in, short_repr

if TYPE_CHECKING:
    from fox_envs.core.game import State

Colour = tuple[int, int, int]
Box = render.Box
FONT = "DejaVu Sans, Verdana, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"
STYLE = ".act{cursor:pointer}"
BUTTON_H, BUTTON_GAP = 28, 8


# ----- escaping and attributes ---------------------------------------------------------------
def escape(text: Any) -> str:
    """``text`` safe inside an XML element or a double-quoted attribute."""
    return _escape(str(text), quote=True)


def colour(value: Colour | str) -> str:
    """An RGB tuple (a ``render`` colour) as ``#rrggbb``; a string is passed through."""
    if isinstance(value, str):
        return value
    return "#{:02x}{:02x}{:02x}".format(*value)


def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".") if isinstance(value, float) else str(value)


def attributes(**attrs: Any) -> str:
    """`` name="value"`` pairs, escaped; ``_`` in a name is written ``-``, ``None`` values left out."""
    parts = []
    for name, value in attrs.items():
        if value is None:
            continue
        name = name.rstrip("_").replace("_", "-")
        if isinstance(value, tuple):
            value = colour(value)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            value = _number(value)
        parts.append(f' {name}="{escape(value)}"')
    return "".join(parts)


# ----- shapes --------------------------------------------------------------------------------
def element(tag: str, **attrs: Any) -> str:
    """An empty element ``<tag .../>`` with ``attributes(**attrs)``."""
    return f"<{tag}{attributes(**attrs)}/>"


def rect(box: Box, fill: Colour | str = "none", stroke: Colour | str = render.BLACK, width: float = 1,
         **attrs: Any) -> str:
    """A rectangle filling ``box`` (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    return element("rect", x=x0, y=y0, width=x1 - x0, height=y1 - y0, fill=fill, stroke=stroke, stroke_width=width,
                   **attrs)


def circle(centre: tuple[float, float], radius: float, fill: Colour | str, stroke: Colour | str = render.BLACK,
           width: float = 2, **attrs: Any) -> str:
    """A disc, as ``render.disc``."""
    return element("circle", cx=centre[0], cy=centre[1], r=radius, fill=fill, stroke=stroke, stroke_width=width,
                   **attrs)


def ellipse(box: Box, fill: Colour | str, stroke: Colour | str = render.BLACK, width: float = 1,
            **attrs: Any) -> str:
    """An ellipse inside ``box``."""
    x0, y0, x1, y1 = box
    return element("ellipse", cx=(x0 + x1) / 2, cy=(y0 + y1) / 2, rx=(x1 - x0) / 2, ry=(y1 - y0) / 2, fill=fill,
                   stroke=stroke, stroke_width=width, **attrs)


def line(start: tuple[float, float], end: tuple[float, float], stroke: Colour | str = render.BLACK,
         width: float = 2, **attrs: Any) -> str:
    """A line with round ends."""
    return element("line", x1=start[0], y1=start[1], x2=end[0], y2=end[1], stroke=stroke, stroke_width=width,
                   stroke_linecap="round", **attrs)


def polygon(points: Iterable[tuple[float, float]], fill: Colour | str, stroke: Colour | str = render.BLACK,
            width: float = 2) -> str:
    """A closed polygon through ``points``, as ``render.polygon``."""
    path = " ".join(f"{_number(float(x))},{_number(float(y))}" for x, y in points)
    return element("polygon", points=path, fill=fill, stroke=stroke, stroke_width=width)


def text(xy: tuple[float, float], words: Any, size: float = 14, fill: Colour | str = render.BLACK,
         anchor: str = "middle", halo: Colour | str | None = None, mono: bool = False, **attrs: Any) -> str:
    """Text centred on ``xy`` (``anchor="start"``: starting there), as ``render.centred_text``;
    ``halo`` draws an outline behind it (``render.halo_text``)."""
    outline = {"stroke": halo, "stroke_width": 3, "paint_order": "stroke"} if halo is not None else {}
    head = attributes(x=xy[0], y=xy[1], font_size=size, fill=fill, text_anchor=anchor, dominant_baseline="central",
                      font_family=MONO if mono else FONT, **outline, **attrs)
    return f"<text{head}>{escape(words)}</text>"


# ----- clickable things ----------------------------------------------------------------------
def act(label: str, *children: str, title: str | None = None, kind: str = "") -> str:
    """A clickable thing: ``children`` in a ``<g class="act" data-action=label>`` with a
    ``<title>`` (``title``, else the label) for accessibility."""
    classes = f"act {kind}".strip()
    return (f'<g{attributes(class_=classes, data_action=label)}><title>{escape(title or label)}</title>'
            f"{''.join(children)}</g>")


def button(box: Box, label: str, caption: str | None = None, title: str | None = None,
           fill: Colour | str | None = None, ink: Colour | str = render.BLACK) -> str:
    """A labelled button: a rounded rectangle (``fill``) with ``caption`` (default: the label,
    in ``ink``) acting as ``label``."""
    x0, y0, x1, y1 = box
    shape = rect(box, fill=fill if fill is not None else "#fff8dc", stroke=render.DARK, width=2, rx=6)
    words = text(((x0 + x1) / 2, (y0 + y1) / 2), caption if caption is not None else label, size=13, fill=ink)
    return act(label, shape, words, title=title, kind="button")


def button_width(caption: str) -> float:
    return max(40.0, 8.0 * len(caption) + 20)


def button_row(labels: Sequence[str], x: float, y: float, width: float,
               captions: Sequence[str] | None = None) -> tuple[list[str], float]:
    """Buttons for ``labels`` laid out left to right from (x, y), wrapping at ``width``;
    returns the buttons and the height they take."""
    items, left, top = [], x, y
    for k, label in enumerate(labels):
        caption = captions[k] if captions is not None else label
        w = button_width(caption)
        if left > x and left + w > x + width:
            left, top = x, top + BUTTON_H + BUTTON_GAP
        items.append(button((left, top, left + w, top + BUTTON_H), label, caption))
        left += w + BUTTON_GAP
    return items, (top - y + BUTTON_H) if labels else 0.0


# ----- marks ---------------------------------------------------------------------------------
class Recorder:
    """Stands in for a Pillow ``ImageDraw`` in a picture's marking function: the outlines it
    draws (``rectangle`` / ``ellipse``) become SVG elements that ignore the pointer."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def rectangle(self, xy: Box, fill: Colour | None = None, outline: Colour | None = None, width: float = 1) -> None:
        self.parts.append(rect(xy, fill or "none", outline or "none", width, pointer_events="none"))

    def ellipse(self, xy: Box, fill: Colour | None = None, outline: Colour | None = None, width: float = 1) -> None:
        self.parts.append(ellipse(xy, fill or "none", outline or "none", width, pointer_events="none"))


def recorded(marking: Callable[..., Any], *args: Any, **kwargs: Any) -> str:
    """The SVG of ``marking(draw, *args, **kwargs)``, a Pillow picture's marking function."""
    recorder = Recorder()
    marking(recorder, *args, **kwargs)
    return "".join(recorder.parts)


def mark_last_move(boxes: Iterable[Box], round_: bool = False) -> str:
    """Magenta outlines of the places the last move touched (``render.mark_last_move``)."""
    return recorded(render.mark_last_move, list(boxes), round_=round_)


def mark_result(boxes: Iterable[Box], round_: bool = False) -> str:
    """Green outlines of the places that decided the game, just outside the last-move marks."""
    return recorded(render.mark_result, list(boxes), round_=round_)


def document(width: float, height: float, *children: str, title: str = "",
             background: Colour | str = render.LIGHT) -> str:
    """The standalone ``<svg>`` document of ``children`` on a ``width`` x ``height`` canvas."""
    box = f"0 0 {_number(width)} {_number(height)}"
    head = (f'<svg xmlns="http://www.w3.org/2000/svg"{attributes(viewBox=box, width=width, height=height)}>'
            f"<title>{escape(title)}</title><style>{STYLE}</style>")
    return head + rect((0, 0, width, height), fill=background, stroke="none", width=0) + "".join(children) + "</svg>"


# ----- labels of the legal moves -------------------------------------------------------------
def move_names(state: State) -> list[str]:
    """The notations of the legal moves of the player to move (``[]`` at chance or the end)."""
    if state.current_player() < 0:
        return []
    return [state.action_to_string(action) for action in state.legal_actions()]


def walk_labels(names: Sequence[str]) -> list[str]:
    """Every label ``MoveSteps(names).options()`` offers, from the start (one legal move
    included) through every choice, until the parts chosen name one move."""
    parts = [move_parts(name) for name in names]
    whole = {" ".join(name.split()).lower() for name in names}  # a label that is a move ends it
    seen: dict[str, None] = {}

    def visit(members: list[int], depth: int) -> None:
        while (len(members) > 1 and all(len(parts[i]) > depth for i in members)
               and len({parts[i][depth] for i in members}) == 1):
            depth += 1  # parts every remaining move shares are filled in (MoveSteps._fill_shared)
        chosen: dict[str, str] = {}  # label -> the first part with it (MoveSteps._next_part)
        for i in members:
            if len(parts[i]) > depth:
                chosen.setdefault(part_label(parts[i][depth]), parts[i][depth])
        seen.update(dict.fromkeys(chosen))
        for label, part in chosen.items():
            narrowed = [i for i in members if len(parts[i]) > depth and parts[i][depth] == part]
            if label.lower() not in whole and len(narrowed) > 1:
                visit(narrowed, depth + 1)

    if names:
        visit(list(range(len(names))), 0)
    return list(seen)


def may_see_moves(state: State, viewer: int | None) -> bool:
    """Whether ``viewer`` may know the legal moves of the seat to move."""
    return viewer is None or viewer == state.current_player() or state.game.perfect_information


_ACTION = re.compile(r'data-action="([^"]*)"')
_VIEWBOX = re.compile(r'(<svg\b[^>]*?viewBox=")([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+)(")')
_HEIGHT = re.compile(r'(<svg\b[^>]*?\sheight=")([\d.]+)(")')


def present_labels(svg: str) -> set[str]:
    """The ``data-action`` labels a document carries (unescaped)."""
    from html import unescape

    return {unescape(label) for label in _ACTION.findall(svg)}


def grow(svg: str, extra: float, make: Callable[[float, float, float], list[str]]) -> str:
    """``svg`` grown by ``extra`` at the bottom (its viewBox and height), with the elements
    ``make(x, top, width)`` draws there on the background; unchanged without a viewBox."""
    found = _VIEWBOX.search(svg)
    if found is None:
        return svg
    x, y, width, height = (float(found.group(k)) for k in range(2, 6))
    box = f"{_number(x)} {_number(y)} {_number(width)} {_number(height + extra)}"
    svg = svg[:found.start()] + found.group(1) + box + found.group(6) + svg[found.end():]
    svg = _HEIGHT.sub(lambda m: f"{m.group(1)}{_number(float(m.group(2)) + extra)}{m.group(3)}", svg, count=1)
    cut = svg.rfind("</svg>")
    background = rect((x, y + height, x + width, y + height + extra), fill=render.LIGHT, stroke="none", width=0)
    return svg[:cut] + background + "".join(make(x, y + height, width)) + svg[cut:]


def append_buttons(svg: str, labels: Sequence[str]) -> str:
    """``svg`` grown at the bottom by rows of buttons for ``labels``."""
    found = _VIEWBOX.search(svg)
    if not labels or found is None:
        return svg
    width = float(found.group(4))
    extra = button_row(labels, 0, 0, width - 20)[1] + 2 * BUTTON_GAP
    return grow(svg, extra, lambda x, top, w: button_row(labels, x + 10, top + BUTTON_GAP, w - 20)[0])


def append_caption(svg: str, caption: str) -> str:
    """``svg`` grown at the bottom by one line of text."""
    return grow(svg, 24, lambda x, top, width: [text((x + width / 2, top + 12), caption, size=13)])


# ----- the entry point -----------------------------------------------------------------------
def check_viewer(state: State, viewer: Any) -> int | None:
    """``viewer`` as ``None`` or a seat of ``state``'s game; anything else raises ``InvalidParameterError``."""
    if viewer is None:
        return None
    n = state.game.num_players
    seat = integer_in(viewer, 0, n - 1)
    if seat is None:
        raise InvalidParameterError(
            f"{state.game.name}: bad viewer {short_repr(viewer)}; allowed: None (everything) or a seat 0..{n - 1}")
    return seat


def game_drawing(state: State):
    """The game's ``draw(state, viewer)`` named in its spec, or ``None`` (unregistered, or none named)."""
    from fox_envs.core.registry import GAMES, load_object

    found = GAMES.get(state.game.name)
    return None if found is None or found.svg is None else load_object(found.svg)


def state_svg(state: State, viewer: int | None = None, status: str | None = None) -> str:
    """The SVG document of ``state`` as ``viewer`` sees it (``None``: everything): the game's
    ``GameSpec.svg`` drawing with the status line (the last line of ``render_text(viewer)``,
    or ``status``: a game ended outside the rules core) as a caption under it, else
    ``fallback``; then buttons for any label of the legal moves the drawing lacks (module doc)."""
    seat = check_viewer(state, viewer)
    draw = game_drawing(state)
    if draw is None:
        svg = fallback(state, seat)
    else:
        svg = append_caption(draw(state, seat), state.render_text(seat).splitlines()[-1] if status is None else status)
    if draw is None and status is not None:
        svg = append_caption(svg, status)
    if may_see_moves(state, seat):
        present = present_labels(svg)
        svg = append_buttons(svg, [label for label in walk_labels(move_names(state)) if label not in present])
    return svg


def fallback(state: State, viewer: int | None) -> str:
    """A game without its own drawing: ``render_text(viewer)`` in monospace lines and, for a
    viewer who may know them, a button for every label of the legal moves."""
    lines = state.render_text(viewer).splitlines() or [""]
    width = max(320.0, 20 + 8.4 * max(len(row) for row in lines))
    rows = [text((10, 18 + 18 * k), row, size=14, anchor="start", mono=True, style="white-space:pre")
            for k, row in enumerate(lines)]
    top = 18 * len(lines) + 16
    labels = walk_labels(move_names(state)) if may_see_moves(state, viewer) else []
    buttons, height = button_row(labels, 10, top, width - 20)
    return document(width, top + height + 10, *rows, *buttons, title=f"{state.game.name}")
