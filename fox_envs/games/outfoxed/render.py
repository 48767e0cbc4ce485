"""Outfoxed pictures: the text table from one player's point of view and the rgb picture.

Text cards (the board's legend says the same): ``red`` a face-up card whose chip is its face;
``white=>red`` a face-up card whose face is white and chip red; ``[white as red]`` a face-down
card (face known to the viewer); ``[? as red]`` a face-down card hidden from the viewer. Owners
are prefixed ``0:`` / ``1:``. Lines are at most ``TEXT_WIDTH`` wide, wrapped between cards.
"""
from __future__ import annotations

import textwrap

import numpy as np

from fox_envs.core import render
from fox_envs.core.game import State
from fox_envs.games.outfoxed.board import (CALL, CHIP0, COLOURS, FINISH, MULTISETS, OVER, PASS, PHASE_NAMES, PUT0,
                                           SHOW, SHOW0)

PALETTE = {
    0: render.BROWN, 1: (30, 30, 30), 2: render.RED, 3: render.PINK, 4: (250, 250, 250), 5: render.YELLOW,
}


TEXT_WIDTH = 78
NBSP = "\u00a0"  # joins the words of one card or set while wrapping (textwrap never breaks there)
LEGEND = [  # example colours no real card needs to match
    "key: 0:/1: whose card; a card counts as its chip (the colour after => or as)",
    "  1:pink  face up, pink chip     1:white=>pink  face up: white card, pink chip",
    "  1:[white as pink]  face down, pink chip  1:[? as pink]  face hidden from you",
]


def _wrapped(head: str, items: list[str], separator: str = " ") -> list[str]:
    """``head`` then ``items`` in lines of at most ``TEXT_WIDTH``, broken only between items."""
    text = head + separator.join(item.replace(" ", NBSP) for item in items)
    lines = textwrap.wrap(text, TEXT_WIDTH, subsequent_indent=" " * min(len(head), 12), break_long_words=False)
    return [line.replace(NBSP, " ") for line in lines]


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


def _status(state: State, viewer: int | None) -> str:
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


def _scoring_sets(forbidden: list[int]) -> list[str]:
    """The forbidden scoring sets, or the allowed ones when those are fewer."""
    if len(forbidden) * 2 <= len(MULTISETS):
        return _wrapped("forbidden scoring sets: ", [_counts(list(MULTISETS[i])) for i in forbidden], "; ")
    allowed = [i for i in range(len(MULTISETS)) if i not in forbidden]
    return _wrapped(f"allowed scoring sets (the other {len(forbidden)} are forbidden): ",
                    [_counts(list(MULTISETS[i])) for i in allowed], "; ")


def text_board(state: State, viewer: int | None = None) -> str:
    """The table and track, the legend of the cards' notation, and the status line; ``viewer``
    sees only its own hidden facts (``None``: everything)."""
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
        lines += _wrapped(f"square {square}: ", cards or ["-"])
    revealed = state.phase == OVER and state.finished  # scoring cards are turned up to score
    for player in (0, 1):
        if viewer is None or viewer == player or revealed:
            lines += _wrapped(f"player_{player} hand: ", [_counts(state.hands[player]), f"kept: {_counts(state.kept[player])}"], "  ")
        else:
            held = sum(state.hands[player])
            lines.append(f"player_{player} hand: {held} card{'' if held == 1 else 's'}  kept: hidden")
    if state.forbidden:
        lines += _scoring_sets(state.forbidden)
    lines += LEGEND
    lines.append(_status(state, viewer))
    return "\n".join(lines)


WIDTH, HEIGHT = 900, 690
CARD_W, CARD_H = 30, 42
SQUARE_W, SQUARES_TOP, SQUARE_H = 286, 232, 200
PANEL_TOP, PANEL_H = 34, 92
TRACK_TOP, LANE_H, STEP, TRACK_LEFT = 480, 28, 110, 110
BACK, BACK_LINES = (40, 55, 120), (90, 110, 180)
TO_MOVE = (255, 246, 200)  # the panel of the player to move


def _visible(state: State, viewer: int | None, player: int) -> bool:
    """Whether ``viewer`` may see ``player``'s hand and kept cards (as in the text table)."""
    return viewer is None or viewer == player or (state.phase == OVER and state.finished)


def card_box(state: State, index: int) -> render.Box:
    """Pixel box of table card ``index`` (cards lie on their square in the order put)."""
    square = state.cards[index][0]
    k = sum(1 for card in state.cards[:index] if card[0] == square)
    x0 = 15 + (square - 1) * (SQUARE_W + 13) + 10 + (k % 8) * (CARD_W + 5)
    y0 = SQUARES_TOP + 30 + (k // 8) * (CARD_H + 14)
    return x0, y0, x0 + CARD_W, y0 + CARD_H


def fox_box(state: State, colour: int) -> render.Box:
    x = TRACK_LEFT + state.foxes[colour] * STEP + (STEP - 6) / 2
    y = TRACK_TOP + colour * LANE_H + (LANE_H - 4) / 2
    return x - 11, y - 11, x + 11, y + 11


def _card_back(draw, box: render.Box) -> None:
    """A face-down card: a dark blue back with a lattice."""
    x0, y0, x1, y1 = box
    draw.rectangle(box, fill=BACK, outline=render.BLACK, width=2)
    for k in range(-int(y1 - y0), int(x1 - x0), 8):
        draw.line((x0 + max(k, 0), y0 + max(-k, 0), x0 + min(k + y1 - y0, x1 - x0), y0 + min(x1 - x0 - k, y1 - y0)),
                  fill=BACK_LINES, width=1)
    draw.rectangle(box, outline=render.BLACK, width=2)


def _chip(draw, centre: tuple[float, float], colour: int) -> None:
    """A chip: a round token in its colour with a thick black rim and a white ring."""
    render.disc(draw, centre, 11, fill=render.BLACK, outline=render.BLACK, width=1)
    render.disc(draw, centre, 9, fill=render.WHITE, outline=render.WHITE, width=1)
    render.disc(draw, centre, 7, fill=PALETTE[colour], outline=PALETTE[colour], width=1)


def _face_card(draw, box: render.Box, colour: int) -> None:
    """A face-up card in its colour."""
    draw.rectangle(box, fill=PALETTE[colour], outline=render.BLACK, width=2)


def _draw_card(draw, state: State, index: int, viewer: int | None) -> None:
    """Face-up: the card in its face colour with its chip; face-down: a card back with the chip
    of its declared colour, and a band of its true face when ``viewer`` may know it."""
    _square, owner, face, _declared, chip, up = state.cards[index]
    x0, y0, x1, y1 = box = card_box(state, index)
    if up:
        _face_card(draw, box, face)
    else:
        _card_back(draw, box)
        if viewer is None or viewer == owner:
            draw.rectangle((x0 + 2, y0 + 2, x1 - 2, y0 + 13), fill=PALETTE[face], outline=render.BLACK, width=1)
    _chip(draw, ((x0 + x1) / 2, y1 - 12), chip)
    render.centred_text(draw, ((x0 + x1) / 2, y1 + 7), f"P{owner}", size=11)


def _hand(draw, x: float, y: float, counts: list[int]) -> None:
    """Face-up cards by colour, each with its count."""
    for colour, n in enumerate(counts):
        if n:
            _face_card(draw, (x, y, x + 22, y + 30), colour)
            render.centred_text(draw, (x + 34, y + 15), f"x{n}", size=13)
            x += 52


def _backs(draw, x: float, y: float, count: int, label: str) -> None:
    """``count`` card backs fanned (wider apart when few), with a label."""
    step = 27 if count <= 3 else 6
    for k in range(min(count, 12)):
        _card_back(draw, (x + step * k, y, x + step * k + 22, y + 30))
    render.centred_text(draw, (x + step * max(min(count, 12) - 1, 0) + 22 + 40, y + 15), label, size=13)


def _panel(draw, state: State, viewer: int | None, player: int) -> None:
    """A player's row: name (highlighted when to move), hand, kept scoring cards, score."""
    y0 = PANEL_TOP + player * (PANEL_H + 6)
    to_move = state.current_player() == player
    draw.rectangle((10, y0, WIDTH - 10, y0 + PANEL_H), fill=TO_MOVE if to_move else (225, 212, 182),
                   outline=render.ORANGE if to_move else render.GREY, width=5 if to_move else 1)
    name = f"player_{player}" + (" (you)" if viewer == player else "")
    render.centred_text(draw, (70, y0 + 20), name, size=15)
    if to_move:
        render.centred_text(draw, (70, y0 + 42), f"to {PHASE_NAMES[state.phase]}", size=14)
    if state.first == player:
        render.centred_text(draw, (70, y0 + 64), "first this round", size=11)
    render.centred_text(draw, (170, y0 + 12), "hand", size=12)
    render.centred_text(draw, (680, y0 + 12), "kept (scoring)", size=12)
    shown = _visible(state, viewer, player)
    if shown:
        _hand(draw, 140, y0 + 26, state.hands[player])
        x = 640
        for colour, n in enumerate(state.kept[player]):
            for _ in range(n):
                _face_card(draw, (x, y0 + 26, x + 22, y0 + 56), colour)
                x += 27
        score = sum(k * f for k, f in zip(state.kept[player], state.foxes))
        final = state.phase == OVER and state.finished
        render.centred_text(draw, (810, y0 + 41), f"score {score}" if final else f"score now {score}", size=15)
    else:
        held = sum(state.hands[player])
        _backs(draw, 140, y0 + 26, held, f"{held} card{'' if held == 1 else 's'}")
        _backs(draw, 640, y0 + 26, sum(state.kept[player]), f"{sum(state.kept[player])} hidden")


def _last_move(draw, state: State) -> None:
    """Mark the table cards the last decision touched (a put, a call, a chip, the shows) and the
    foxes a round end moved; keeps and the first show (still hidden) mark nothing."""
    found = render.last_decision(state)
    if found is None:
        return
    before, action = found
    cards: list[int] = []
    same_round = before.round == state.round and len(state.cards) >= len(before.cards)
    if PUT0 <= action < CALL:
        cards = [len(before.cards)]
    elif action == CALL:
        cards = [before.last_card[1 - before.mover()]]
    elif CHIP0 <= action < SHOW0:
        cards = [before.chip_card]
    elif action >= SHOW0 and before.pending is not None:
        cards = [len(before.cards), len(before.cards) + 1]
        render.mark_last_move(draw, [fox_box(state, c) for c in state.moved if c >= 0], round_=True)
    if same_round and action != PASS:
        render.mark_last_move(draw, [card_box(state, i) for i in cards if 0 <= i < len(state.cards)])


def rgb_picture(state: State, viewer: int | None = None, status: str | None = None) -> np.ndarray:
    """The table as ``viewer`` sees it (``None``: everything): both players' hands (the hidden
    ones as card backs with a count), kept scoring cards and scores, the three squares with
    their cards (face-down cards as card backs, face-up cards in their face colour; each card's
    chip as a round token), the race track, and the status line."""
    image, draw = render.canvas(WIDTH, HEIGHT)
    who = "everything" if viewer is None else f"player_{viewer}'s view"
    first = f"player_{state.first}" if state.first >= 0 else "?"
    render.centred_text(draw, (WIDTH / 2, 16), f"Outfoxed ({who})   round {state.round}/{state.game.max_rounds}   "
                        f"turn {state.turn}/18   first: {first}   phase: {PHASE_NAMES[state.phase]}", size=15)
    for player in (0, 1):
        _panel(draw, state, viewer, player)
    for index in range(3):
        x0 = 15 + index * (SQUARE_W + 13)
        draw.rectangle((x0, SQUARES_TOP, x0 + SQUARE_W, SQUARES_TOP + SQUARE_H), outline=render.DARK, width=3)
        render.centred_text(draw, (x0 + SQUARE_W / 2, SQUARES_TOP + 14),
                            f"square {index + 1}: its colour moves {index + 1}", size=14)
    for index in range(len(state.cards)):
        _draw_card(draw, state, index, viewer)
    render.centred_text(draw, (WIDTH / 2, SQUARES_TOP + SQUARE_H + 14),
                        "card back = face down (a top band: its true face, shown to whoever may know it);  "
                        "round token = its chip (the colour it counts as)", size=12)
    for position in range(FINISH + 1):
        label = "finish 6" if position == FINISH else str(position)
        render.centred_text(draw, (TRACK_LEFT + position * STEP + (STEP - 6) / 2, TRACK_TOP - 12), label, size=12)
    for colour in range(6):
        y = TRACK_TOP + colour * LANE_H
        for position in range(FINISH + 1):
            x = TRACK_LEFT + position * STEP
            draw.rectangle((x, y, x + STEP - 6, y + LANE_H - 4), outline=render.DARK,
                           fill=render.ORANGE if position == FINISH else render.LIGHT, width=1)
        render.centred_text(draw, (55, y + LANE_H / 2 - 2), COLOURS[colour], size=13)
        render.disc(draw, tuple((a + b) / 2 for a, b in zip(fox_box(state, colour)[:2], fox_box(state, colour)[2:])),
                    10, fill=PALETTE[colour])
    _last_move(draw, state)
    if state.phase == OVER and state.finished:
        render.mark_result(draw, [fox_box(state, c) for c in range(6) if state.foxes[c] == FINISH], round_=True)
    if state.phase == OVER and status is None:
        a, b = state.scores
        colour = render.GREY if a == b or not state.finished else render.RESULT
        render.banner(draw, (150, HEIGHT - 30, WIDTH - 150, HEIGHT - 6), _status(state, viewer), colour=colour)
    else:
        render.centred_text(draw, (WIDTH / 2, HEIGHT - 18), status or _status(state, viewer), size=14)
    return render.to_array(image)
