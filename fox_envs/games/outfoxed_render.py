"""Outfoxed pictures: the text table from one player's point of view and the rgb picture.

Text cards: ``red`` a face-up card whose chip is its face; ``white=>red`` a face-up card whose
face is white and chip red; ``[white as red]`` a face-down card (face known to the viewer);
``[? as red]`` a face-down card hidden from the viewer. Owners are prefixed ``0:`` / ``1:``.
"""
from __future__ import annotations

import numpy as np

from fox_envs.core import render
from fox_envs.games.outfoxed import COLOURS, MULTISETS, OVER, PHASE_NAMES, SHOW, OutfoxedState

PALETTE = {
    0: render.BROWN, 1: (30, 30, 30), 2: render.RED, 3: render.PINK, 4: (250, 250, 250), 5: render.YELLOW,
}


def _card_text(card: list[int], viewer: int | None) -> str:
    _square, owner, face, _declared, chip, up = card
    if up:
        text = COLOURS[face] if face == chip else f"{COLOURS[face]}=>{COLOURS[chip]}"
    elif viewer is None or viewer == owner:
        text = f"[{COLOURS[face]} as {COLOURS[chip]}]"
    else:
        text = f"[? as {COLOURS[chip]}]"
    return f"{owner}:{text}"


def _counts(counts: list[int]) -> str:
    return " ".join(f"{COLOURS[c]}x{n}" for c, n in enumerate(counts) if n) or "-"


def _status(state: OutfoxedState, viewer: int | None) -> str:
    if state.phase == OVER:
        if not state.finished:
            return f"game over: draw after {state.round} rounds without a finish"
        a, b = state.scores
        result = "draw" if a == b else f"player_{0 if a > b else 1} wins"
        return f"game over: scores {a}-{b}, {result}"
    player = state.current_player()
    if player < 0:
        return f"next: chance ({PHASE_NAMES[state.phase]})"
    text = f"next: player_{player} to {PHASE_NAMES[state.phase]}"
    if state.phase == SHOW and state.pending is not None:
        if viewer is None or viewer == state.first:
            colour, square = state.pending
            text += f" (player_{state.first} chose {COLOURS[colour]} on {square}, hidden)"
        else:
            text += f" (player_{state.first} has chosen, hidden)"
    return text


def text_board(state: OutfoxedState, viewer: int | None = None) -> str:
    """The table and track; ``viewer`` sees only its own hidden facts (``None``: everything)."""
    who = "everything" if viewer is None else f"player_{viewer}'s view"
    first = f"player_{state.first}" if state.first >= 0 else "?"
    lines = [f"Outfoxed ({who})  round {state.round}/{state.game.max_rounds}  "
             f"turn {state.turn}/18  first: {first}"]
    lines.append("track: " + "  ".join(f"{COLOURS[c]} {state.foxes[c]}" for c in range(6)) + "  (finish 6)")
    if state.moved:
        moves = ", ".join(f"{s + 1}: {COLOURS[c] if c >= 0 else 'none'}" for s, c in enumerate(state.moved))
        lines.append(f"last round moved: {moves}")
    for square in (1, 2, 3):
        cards = [_card_text(card, viewer) for card in state.cards if card[0] == square]
        lines.append(f"square {square}: " + (" ".join(cards) if cards else "-"))
    revealed = state.phase == OVER and state.finished  # scoring cards are turned up to score
    for player in (0, 1):
        if viewer is None or viewer == player or revealed:
            lines.append(f"player_{player} hand: {_counts(state.hands[player])}  kept: {_counts(state.kept[player])}")
        else:
            lines.append(f"player_{player} hand: {sum(state.hands[player])} cards  kept: hidden")
    if state.forbidden:
        lines.append("forbidden scoring sets: " + "; ".join(_counts(list(MULTISETS[i])) for i in state.forbidden))
    lines.append(_status(state, viewer))
    return "\n".join(lines)


def rgb_picture(state: OutfoxedState, viewer: int | None = None, status: str | None = None) -> np.ndarray:
    """The table above the race track as ``viewer`` sees it (``None``: everything): a card is
    drawn in its effective colour; face-down cards have a thick dark border, and a small corner
    patch shows the true face of a face-up card re-chipped to another colour, or of a
    face-down card the viewer may know (its own; every one for ``None``)."""
    width, height = 720, 520
    image, draw = render.canvas(width, height)
    square_w, card_w, card_h = 220, 26, 36
    for index in range(3):
        x0 = 15 + index * (square_w + 15)
        draw.rectangle((x0, 40, x0 + square_w, 250), outline=render.DARK, width=3)
        render.centred_text(draw, (x0 + square_w / 2, 25), f"square {index + 1} (moves {index + 1})", size=14)
        cards = [card for card in state.cards if card[0] == index + 1]
        for k, (_s, owner, face, _declared, chip, up) in enumerate(cards):
            cx = x0 + 8 + (k % 7) * (card_w + 4)
            cy = 50 + (k // 7) * (card_h + 28)
            border = render.DARK if not up else render.GREY
            draw.rectangle((cx, cy, cx + card_w, cy + card_h), fill=PALETTE[chip], outline=border, width=4 if not up else 2)
            if (face != chip and up) or (not up and (viewer is None or viewer == owner)):
                draw.rectangle((cx + card_w - 9, cy + card_h - 9, cx + card_w - 2, cy + card_h - 2),
                               fill=PALETTE[face], outline=render.BLACK, width=1)
            render.centred_text(draw, (cx + card_w / 2, cy + card_h + 9), f"P{owner}", size=10)
    track_top, lane_h, step = 285, 34, 88
    for position in range(7):
        label = "finish 6" if position == 6 else str(position)
        render.centred_text(draw, (90 + position * step + (step - 6) / 2, track_top - 12), label, size=12)
    for colour in range(6):
        y = track_top + colour * lane_h
        for position in range(7):
            x = 90 + position * step
            draw.rectangle((x, y, x + step - 6, y + lane_h - 6), outline=render.DARK,
                           fill=render.ORANGE if position == 6 else render.LIGHT, width=1)
        render.centred_text(draw, (45, y + lane_h / 2 - 3), COLOURS[colour], size=13)
        fx = 90 + state.foxes[colour] * step + (step - 6) / 2
        render.disc(draw, (fx, y + lane_h / 2 - 3), 12, fill=PALETTE[colour])
    status = status or _status(state, viewer)
    render.centred_text(draw, (width / 2, height - 15), status, size=13)
    return render.to_array(image)
