"""Bye Bye Mr. Fox! board tables: the kinds of token and printed picture, the nest capacity and
token counts, the action layout and names, and the phase numbers (pure constants, shared by the
rules, the picture, the event lines and the kernels).

The board: 6 sectors ``0..5`` clockwise, each with an outer circle ``O<s>`` (printed with a
picture from ``layout``) and a central-nest circle ``N<s>``. The spinner's front end points at
sector ``s``, its back end at nest circle ``N<(s+3) mod 6>``. Default layout::

                      O0 three hens
          O5 brown                    O1 black
                   N5      N0      N1
                   N4      N3      N2
          O4 fox                      O2 fox
                      O3 white

    hen nests (capacity 3):  black  brown  white

Actions: ``N0..N5`` = 0..5 (egg), ``O0..O5`` = 6..11 (hen or fox), ``give black|brown|white``
= 12..14.
"""
from __future__ import annotations

# ----- kinds of token / printed picture ---------------------------------------------------------
BLACK, BROWN, WHITE, EGG, FOX, THREE_HENS = range(6)
HENS = (BLACK, BROWN, WHITE)
KIND_NAMES = ("black", "brown", "white", "egg", "fox", "three_hens")
TOKEN_LABELS = ("black hen", "brown hen", "white hen", "egg", "fox")
LAYOUT_KINDS = {"black": BLACK, "brown": BROWN, "white": WHITE, "fox": FOX, "three_hens": THREE_HENS}
DEFAULT_LAYOUT = ["three_hens", "black", "fox", "white", "fox", "brown"]
NEST_CAPACITY = 3
HEN_TOKENS_PER_COLOUR = 2
FOX_TOKENS = 4

# ----- actions --------------------------------------------------------------------------------
NEST_ACTION = 0  # N0..N5 = 0..5
OUTER_ACTION = 6  # O0..O5 = 6..11
GIVE_ACTION = 12  # give black|brown|white = 12..14
NUM_ACTIONS = 15
ACTION_NAMES = (
    [f"N{s}" for s in range(6)] + [f"O{s}" for s in range(6)] + [f"give {KIND_NAMES[c]}" for c in HENS]
)
FLIP_NAMES = tuple(f"flip {KIND_NAMES[k]}" for k in range(5))
SPIN_NAMES = tuple(f"spin {s}" for s in range(6))

# ----- phases -----------------------------------------------------------------------------------
FLIP, PLACE, SPIN, GIVE, OVER = range(5)
