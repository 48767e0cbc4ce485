"""Outfoxed table tables: the colours, the track, the hand sizes, the action layout, the phase
numbers and the scoring multisets (pure constants, shared by the rules, the pictures, the event
lines and the kernels).

Table and race track::

      square 1        square 2        square 3         race track (one lane per colour)
    +---------+     +---------+     +---------+        brown  0 1 2 3 4 5 [6]
    | cards   |     | cards   |     | cards   |        black  0 1 2 3 4 5 [6]
    | + chips |     | + chips |     | + chips |        ...    (6 = finish)
    +---------+     +---------+     +---------+
    winner moves 1  winner moves 2  winner moves 3

Colour index: brown 0, black 1, red 2, pink 3, white 4, yellow 5.

Actions (140): ``keep c`` 0..5; ``put c on s as d`` 6 + (s-1)*36 + c*6 + d; ``call`` 114;
``pass`` 115; ``chip c`` 116..121; ``show c on s`` 122 + (s-1)*6 + c.
"""
from __future__ import annotations

COLOURS = ("brown", "black", "red", "pink", "white", "yellow")
COLOUR_INDEX = {name: i for i, name in enumerate(COLOURS)}
NUM_COLOURS = 6
CARDS_PER_COLOUR = 10
FINISH = 6
FIRST_HAND, SECOND_HAND = 12, 10
TURNS_PER_ROUND = 18  # nine each

KEEP0, PUT0, CALL, PASS, CHIP0, SHOW0, NUM_ACTIONS = 0, 6, 114, 115, 116, 122, 140

# Phases.
KEEP, FIRST, DEAL, PUT, CALLING, CHIPPING, SHOW, OVER = range(8)
PHASE_NAMES = ("keep", "first", "deal", "put", "call", "chip", "show", "over")

# Every 3-card multiset of colours (56), as counts per colour, in lexicographic order.
MULTISETS: tuple[tuple[int, ...], ...] = tuple(
    tuple((a, b, c).count(colour) for colour in range(NUM_COLOURS))
    for a in range(NUM_COLOURS) for b in range(a, NUM_COLOURS) for c in range(b, NUM_COLOURS)
)
MULTISET_INDEX = {counts: i for i, counts in enumerate(MULTISETS)}


def put_action(colour: int, square: int, declared: int) -> int:
    """The action ``put colour on square as declared``."""
    return PUT0 + (square - 1) * 36 + colour * 6 + declared


def show_action(colour: int, square: int) -> int:
    """The action ``show colour on square``."""
    return SHOW0 + (square - 1) * 6 + colour


def _action_names() -> list[str]:
    """The notation of every action, by action number."""
    names = [""] * NUM_ACTIONS
    for c in range(6):
        names[KEEP0 + c] = f"keep {COLOURS[c]}"
        names[CHIP0 + c] = f"chip {COLOURS[c]}"
        for s in (1, 2, 3):
            names[show_action(c, s)] = f"show {COLOURS[c]} on {s}"
            for d in range(6):
                names[put_action(c, s, d)] = f"put {COLOURS[c]} on {s} as {COLOURS[d]}"
    names[CALL], names[PASS] = "call", "pass"
    return names


ACTION_NAMES = _action_names()
