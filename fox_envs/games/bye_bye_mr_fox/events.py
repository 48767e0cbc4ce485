"""Bye Bye Mr. Fox!: what a flip or a spin did, told in words (``describe_effects``).

Everything is public in this game; the lines say what the board alone does not: a token that
had no place, and where the egg hit by the spinner's back end went.
"""
from __future__ import annotations

from fox_envs.core.game import State
from fox_envs.games.bye_bye_mr_fox.board import (
    FLIP, FOX, KIND_NAMES, NEST_CAPACITY, PLACE, SPIN, THREE_HENS, TOKEN_LABELS,
)


def effects(before: State, after: State) -> list[str]:
    """Lines about the action ``before`` -> ``after``."""
    action = after._history[-1]
    if before.phase == FLIP and after.phase != PLACE:
        return [f"the {TOKEN_LABELS[action]} token has no place: discarded"]
    if before.phase != SPIN:
        return []
    back = (action + 3) % 6
    if not before.circles[back]:
        return [f"the spinner points at O{action}; N{back} is empty: nothing happens"]
    picture = before.visible[action]
    where = f"the egg on N{back}"
    if picture == THREE_HENS:
        return [f"{where} goes to the three hens: player_{before.turn % before.game.num_players} chooses the nest"]
    if picture == FOX:
        return [f"Mr. Fox at O{action} steals {where}"]
    hen = KIND_NAMES[picture]
    if before.nests[picture] >= NEST_CAPACITY:
        return [f"{where} goes to the {hen} hen, whose nest is full: discarded"]
    return [f"{where} goes to the {hen} hen's nest ({after.nests[picture]}/{NEST_CAPACITY})"]
