"""The SVG picture of an Outfoxed table for a viewer, as ``render_rgb`` draws it: both players'
panels (hand, kept scoring cards and score; another player's as card backs with a count), the
three squares with their cards (face down: a card back, with a band of its true face for whoever
may know it; every card's chip as a round token), the race track, the last decision and the
finish. ``viewer`` ``None`` sees everything, a seat only what it may know (as ``render_text``).

Clickable: the cards in the hand of the seat to move as their colour (``red``), the squares as
``1`` / ``2`` / ``3``, a row of colour buttons (a colour to keep, to declare, or to give as a
chip), and ``call`` / ``pass`` buttons."""
from __future__ import annotations

from fox_envs.core import render, svg
from fox_envs.games.outfoxed.board import COLOURS, FINISH, OVER, PHASE_NAMES
from fox_envs.games.outfoxed.render import (
    BACK,
    BACK_LINES,
    LANE_H,
    PALETTE,
    PANEL_H,
    PANEL_TOP,
    SQUARE_H,
    SQUARE_W,
    SQUARES_TOP,
    STEP,
    TO_MOVE,
    TRACK_LEFT,
    TRACK_TOP,
    WIDTH,
    _last_move,
    _visible,
    card_box,
    fox_box,
)
from fox_envs.games.outfoxed.rules import OutfoxedState

CHOICES_TOP = TRACK_TOP + 6 * LANE_H + 6  # the row of colour buttons and call / pass
DARK_COLOURS = (0, 1)  # brown, black: white captions
LEGEND = ("card back = face down (a top band: its true face, shown to whoever may know it);  "
          "round token = its chip (the colour it counts as)")


def _back(box: render.Box) -> str:
    """A face-down card: a dark blue back with a lattice."""
    x0, y0, x1, y1 = box
    lines = [svg.line((x0 + 3, y0 + k), (x1 - 3, y0 + k + 6), BACK_LINES, 1) for k in range(4, int(y1 - y0) - 8, 8)]
    return svg.rect(box, BACK, render.BLACK, 2) + "".join(lines)


def _chip(centre: tuple[float, float], colour: int) -> str:
    """A chip: a round token in its colour with a black rim and a white ring."""
    return (svg.circle(centre, 11, render.BLACK, render.BLACK, 1) + svg.circle(centre, 9, render.WHITE, render.WHITE, 1)
            + svg.circle(centre, 7, PALETTE[colour], PALETTE[colour], 1))


def _table_card(state: OutfoxedState, index: int, viewer: int | None) -> str:
    """Table card ``index``: face up in its colour, or a back (with its face on a band when
    ``viewer`` may know it), and its chip."""
    _square, owner, face, _declared, chip, up = state.cards[index]
    x0, y0, x1, y1 = box = card_box(state, index)
    if up:
        parts = [svg.rect(box, PALETTE[face], render.BLACK, 2)]
    else:
        parts = [_back(box)]
        if viewer is None or viewer == owner:
            parts.append(svg.rect((x0 + 2, y0 + 2, x1 - 2, y0 + 13), PALETTE[face], render.BLACK, 1))
    parts += [_chip(((x0 + x1) / 2, y1 - 12), chip), svg.text(((x0 + x1) / 2, y1 + 7), f"P{owner}", size=11)]
    return "".join(parts)


def _square(state: OutfoxedState, square: int, viewer: int | None) -> str:
    """Square ``square`` (1..3) with its cards, clickable as its number."""
    x0 = 15 + (square - 1) * (SQUARE_W + 13)
    parts = [svg.rect((x0, SQUARES_TOP, x0 + SQUARE_W, SQUARES_TOP + SQUARE_H), render.LIGHT, render.DARK, 3),
             svg.text((x0 + SQUARE_W / 2, SQUARES_TOP + 14), f"square {square}: its colour moves {square}")]
    parts += [_table_card(state, i, viewer) for i, card in enumerate(state.cards) if card[0] == square]
    return svg.act(str(square), *parts, title=f"square {square}")


def _hand(state: OutfoxedState, player: int, x: float, y: float) -> list[str]:
    """A visible hand: a face-up card per colour held, with its count; the mover's act as their colour."""
    parts, acting = [], state.current_player() == player
    for colour, count in enumerate(state.hands[player]):
        if count:
            card = svg.rect((x, y, x + 22, y + 30), PALETTE[colour], render.BLACK, 2)
            parts.append(svg.act(COLOURS[colour], card, title=f"{COLOURS[colour]} card (x{count})") if acting else card)
            parts.append(svg.text((x + 34, y + 15), f"x{count}", size=13))
            x += 52
    return parts


def _backs(x: float, y: float, count: int, label: str) -> list[str]:
    """``count`` card backs fanned (wider apart when few), with a label."""
    step = 27 if count <= 3 else 6
    shown = min(count, 12)
    parts = [_back((x + step * k, y, x + step * k + 22, y + 30)) for k in range(shown)]
    return parts + [svg.text((x + step * max(shown - 1, 0) + 62, y + 15), label, size=13)]


def _panel(state: OutfoxedState, viewer: int | None, player: int) -> list[str]:
    """A player's row: name (highlighted when to move), hand, kept scoring cards, score."""
    y0 = PANEL_TOP + player * (PANEL_H + 6)
    to_move = state.current_player() == player
    parts = [svg.rect((10, y0, WIDTH - 10, y0 + PANEL_H), TO_MOVE if to_move else (225, 212, 182),
                      render.ORANGE if to_move else render.GREY, 5 if to_move else 1),
             svg.text((70, y0 + 20), f"player_{player}" + (" (you)" if viewer == player else ""), size=15),
             svg.text((170, y0 + 12), "hand", size=12), svg.text((680, y0 + 12), "kept (scoring)", size=12)]
    if to_move:
        parts.append(svg.text((70, y0 + 42), f"to {PHASE_NAMES[state.phase]}"))
    if state.first == player:
        parts.append(svg.text((70, y0 + 64), "first this round", size=11))
    if _visible(state, viewer, player):
        parts += _hand(state, player, 140, y0 + 26)
        kept = [c for c, n in enumerate(state.kept[player]) for _ in range(n)]
        parts += [svg.rect((640 + 27 * k, y0 + 26, 662 + 27 * k, y0 + 56), PALETTE[c], render.BLACK, 2)
                  for k, c in enumerate(kept)]
        score = sum(k * f for k, f in zip(state.kept[player], state.foxes))
        final = state.phase == OVER and state.finished
        parts.append(svg.text((810, y0 + 41), f"score {score}" if final else f"score now {score}", size=15))
    else:
        held, kept_count = sum(state.hands[player]), sum(state.kept[player])
        parts += _backs(140, y0 + 26, held, f"{held} card{'' if held == 1 else 's'}")
        parts += _backs(640, y0 + 26, kept_count, f"{kept_count} hidden")
    return parts


def _choices() -> list[str]:
    """The colour buttons (keep / declare / chip) and the call and pass buttons, under the track."""
    parts = [svg.text((15, CHOICES_TOP + 14), "colour:", size=13, anchor="start")]
    for colour, name in enumerate(COLOURS):
        x = 75 + colour * 92
        parts.append(svg.button((x, CHOICES_TOP, x + 84, CHOICES_TOP + 28), name, fill=PALETTE[colour],
                                ink=render.WHITE if colour in DARK_COLOURS else render.BLACK,
                                title=f"{name} (a colour to keep, declare or give as a chip)"))
    parts.append(svg.button((WIDTH - 215, CHOICES_TOP, WIDTH - 125, CHOICES_TOP + 28), "call",
                            title="call: turn the opponent's last card up"))
    parts.append(svg.button((WIDTH - 115, CHOICES_TOP, WIDTH - 25, CHOICES_TOP + 28), "pass",
                            title="pass: leave the opponent's last card face down"))
    return parts


def _track(state: OutfoxedState) -> list[str]:
    """The race track: a lane per colour, positions 0..6 (6 the finish), each fox on its lane."""
    parts = []
    for position in range(FINISH + 1):
        label = "finish 6" if position == FINISH else str(position)
        parts.append(svg.text((TRACK_LEFT + position * STEP + (STEP - 6) / 2, TRACK_TOP - 12), label, size=12))
    for colour in range(6):
        y = TRACK_TOP + colour * LANE_H
        parts += [svg.rect((TRACK_LEFT + p * STEP, y, TRACK_LEFT + p * STEP + STEP - 6, y + LANE_H - 4),
                           render.ORANGE if p == FINISH else render.LIGHT, render.DARK, 1) for p in range(FINISH + 1)]
        parts.append(svg.text((55, y + LANE_H / 2 - 2), COLOURS[colour], size=13))
        x0, y0, x1, y1 = fox_box(state, colour)
        parts.append(svg.circle(((x0 + x1) / 2, (y0 + y1) / 2), 10, PALETTE[colour]))
    return parts


def draw(state: OutfoxedState, viewer: int | None = None) -> str:
    """The table as ``viewer`` sees it (``None``: everything)."""
    who = "everything" if viewer is None else f"player_{viewer}'s view"
    first = f"player_{state.first}" if state.first >= 0 else "?"
    parts = [svg.text((WIDTH / 2, 16), f"Outfoxed ({who})   round {state.round}/{state.game.max_rounds}   "
                      f"turn {state.turn}/18   first: {first}   phase: {PHASE_NAMES[state.phase]}", size=15)]
    for player in (0, 1):
        parts += _panel(state, viewer, player)
    parts += [_square(state, square, viewer) for square in (1, 2, 3)]
    parts.append(svg.text((WIDTH / 2, SQUARES_TOP + SQUARE_H + 14), LEGEND, size=12))
    parts += _track(state)
    parts += _choices()
    parts.append(svg.recorded(_last_move, state))
    if state.phase == OVER and state.finished:
        parts.append(svg.mark_result([fox_box(state, c) for c in range(6) if state.foxes[c] == FINISH], round_=True))
    return svg.document(WIDTH, CHOICES_TOP + 36, *parts, title="Outfoxed")
