"""Outfoxed: what an action revealed or set off, told as a player at the table sees it.

``effects(before, after, viewer)`` backs ``State.describe_effects``: the result of a
call (lie or truth, the faces turned up, who chooses which chip), the chip put on a card, the
special turn's two cards once both are shown, the round's fox movement and the next round or
the final score, identical scoring sets being forbidden, and the viewer's hand once dealt.
Everything told is public at that moment, except the hand, told only to its owner.
"""
from __future__ import annotations

from fox_envs.core.game import State
from fox_envs.games.outfoxed.board import (
    CALL, CALLING, CHIPPING, COLOURS, DEAL, FINISH, KEEP, MULTISETS, OVER, PUT, SHOW, SHOW0,
)


def _counts(counts) -> str:
    return " ".join(f"{COLOURS[c]}x{n}" for c, n in enumerate(counts) if n) or "none"


def effects(before: State, after: State, viewer: int | None) -> list[str]:
    """Lines for ``viewer`` (``None``: everything) about the action ``before`` -> ``after``."""
    phase = before.phase
    action = after._history[-1]
    if phase == CALLING and action == CALL:
        return _call(before, after)
    if phase == CHIPPING:
        square, owner, face, _declared, chip, _up = after.cards[before.chip_card]
        return [f"player_{before.chip_player} puts a {COLOURS[chip]} chip on player_{owner}'s "
                f"{COLOURS[face]} card on square {square}"]
    if phase == SHOW and before.pending is not None:
        return _special_turn(before, after) + _round_end(before, after)
    if phase == KEEP and len(after.forbidden) > len(before.forbidden):
        kept = _counts(MULTISETS[after.forbidden[-1]])
        return [f"both kept the same scoring cards ({kept}): that set is now forbidden to both; "
                "pick again, player_0 first"]
    if phase == DEAL and after.phase == PUT:
        second = 1 - after.first
        lines = [f"round {after.round}: dealt, player_{after.first} 12 cards and plays first, player_{second} 10 cards"]
        for player in (0, 1):
            if viewer is None or viewer == player:
                lines.append(f"player_{player}'s hand: {_counts(after.hands[player])}")
        return lines
    return []


def _call(before: State, after: State) -> list[str]:
    caller = before.mover()
    called = after.cards[before.last_card[1 - caller]]
    face, declared = COLOURS[called[2]], COLOURS[called[4]]
    line = f"player_{caller} calls player_{1 - caller}'s card on square {called[0]} declared {declared}: it is {face}"
    if called[2] != called[4]:
        return [f"{line}, a lie; player_{caller} chooses its chip"]
    own = after.cards[before.last_card[caller]]
    return [f"{line}, the truth; player_{caller}'s own card on square {own[0]} is turned up: "
            f"{COLOURS[own[2]]} (declared {COLOURS[own[4]]}); player_{1 - caller} chooses its chip"]


def _special_turn(before: State, after: State) -> list[str]:
    """Both special-turn cards, once the second player has chosen (the first's was hidden)."""
    (colour, square), code = before.pending, after._history[-1] - SHOW0
    second_colour, second_square = code % 6, code // 6 + 1
    return [f"special turn: player_{before.first} shows {COLOURS[colour]} on {square}, "
            f"player_{1 - before.first} shows {COLOURS[second_colour]} on {second_square}"]


def _round_end(before: State, after: State) -> list[str]:
    foxes = list(before.foxes)
    steps = []
    for square, colour in enumerate(after.moved, start=1):
        if colour < 0:
            steps.append(f"square {square}: no colour moves")
            continue
        foxes[colour] = min(FINISH, foxes[colour] + square)
        steps.append(f"square {square}: the {COLOURS[colour]} fox moves {square} to {foxes[colour]}")
    lines = [f"round {before.round} ends: " + "; ".join(steps)]
    if after.phase != OVER:
        lines.append(f"round {after.round}: player_{after.first} plays first")
    elif after.finished:
        a, b = after.scores
        result = "a draw" if a == b else f"player_{0 if a > b else 1} wins"
        lines.append(f"a fox reached the finish: kept cards player_0 {_counts(after.kept[0])}, "
                     f"player_1 {_counts(after.kept[1])}; scores {a}-{b}, {result}")
    else:
        lines.append(f"round limit ({after.game.max_rounds}) reached without a finish: the game is a draw")
    return lines
