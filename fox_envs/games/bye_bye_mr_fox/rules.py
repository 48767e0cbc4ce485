"""Bye Bye Mr. Fox! (rules as implemented: docs/rules/bye_bye_mr_fox.md): cooperative, with chance.

The board: 6 sectors ``0..5`` clockwise, each with an outer circle ``O<s>`` (printed with a
picture from ``layout``) and a central-nest circle ``N<s>``; the spinner's front end points at
sector ``s``, its back end at nest circle ``N<(s+3) mod 6>``. The default layout and the action
layout are drawn in fox_envs/games/bye_bye_mr_fox/board.py.

Setup: an egg on every nest circle except the one in front of the white hen (``N3`` by
default, opposite the three-hens space); the other ``egg_tokens - 5`` eggs, 6 hen tokens (2 of
each colour) and 4 fox tokens lie face down.

A turn (seats in order from seat 0): chance flips a token (probability proportional to what is
left face down); the player places it (a decision even with one option; a token with no legal
place is discarded without one):

* hen token of colour c: on an outer circle whose visible picture is a fox or a hen of another
  colour (the three-hens space is never covered); a covered token is discarded;
* egg: on an empty nest circle;
* fox token: on an outer circle whose visible picture is a single hen; a covered hen token is
  discarded.

Then chance spins (sector 0..5, 1/6 each). If the back end's nest circle holds an egg, the egg
leaves it: to the nest of the single hen visible at the front (discarded if that nest is full),
discarded if a fox is visible there, or at the three-hens space to a not-full nest the player
chooses (``give black|brown|white``). The team wins the moment every nest holds 3 eggs and
loses when the turn of the last flip ends without a win.

Actions: ``N0..N5`` = 0..5 (egg), ``O0..O5`` = 6..11 (hen or fox), ``give black|brown|white``
= 12..14. Chance outcomes: a flip ``0 black, 1 brown, 2 white, 3 egg, 4 fox`` (``flip egg``), a
spin the sector (``spin 3``).

Observation: a flat float32 vector of ``OBS_SIZE`` values, identical for every seat (all
information is public); the layout is listed in ``docs/rules/bye_bye_mr_fox.md``.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fox_envs.core.game import CHANCE, TERMINAL, Game, State
from fox_envs.core.params import Param, int_range, one_of
# The board tables, also imported from this module by the kernels, agents and tests.
from fox_envs.games.bye_bye_mr_fox.board import (  # noqa: F401
    ACTION_NAMES, BLACK, BROWN, DEFAULT_LAYOUT, EGG, FLIP, FLIP_NAMES, FOX, FOX_TOKENS, GIVE,
    GIVE_ACTION, HEN_TOKENS_PER_COLOUR, HENS, KIND_NAMES, LAYOUT_KINDS, NEST_ACTION, NEST_CAPACITY,
    NUM_ACTIONS, OUTER_ACTION, OVER, PLACE, SPIN, SPIN_NAMES, THREE_HENS, TOKEN_LABELS, WHITE,
)

# ----- chance: the spinner ---------------------------------------------------------------------
SPIN_PROBABILITY = 1.0 / 6.0
SPIN_OUTCOMES = [(s, SPIN_PROBABILITY) for s in range(6)]

# ----- observation layout (flat vector) ---------------------------------------------------------
OBS_NEST_CIRCLES = 0  # 6: egg on N0..N5
OBS_VISIBLE = 6  # 30: sector*5 + picture one-hot (black, brown, white, fox, three hens)
OBS_COVERED = 36  # 6: a token covers O0..O5
OBS_NESTS = 42  # 3: eggs in the black, brown, white nest / 3
OBS_TOKEN = 45  # 5: token to place (black, brown, white, egg, fox), in the place phase
OBS_SPIN = 50  # 6: sector of the spin being resolved, in the give phase
OBS_FACE_DOWN = 56  # 5: face-down black/brown/white hens /2, eggs /(egg_tokens-5), foxes /4
OBS_DISCARDED = 61  # 5: discarded black/brown/white hens /2, eggs /egg_tokens, foxes /4
OBS_PHASE = 66  # 2: place phase, give phase
OBS_SIZE = 68
VISIBLE_SLOT = {BLACK: 0, BROWN: 1, WHITE: 2, FOX: 3, THREE_HENS: 4}


def check_layout(value: Any) -> list[str]:
    """Six printed pictures: exactly one ``three_hens``, each hen colour once, foxes elsewhere."""
    if not isinstance(value, (list, tuple)) or len(value) != 6:
        raise ValueError(value)
    names = list(value)
    if not all(isinstance(name, str) and name in LAYOUT_KINDS for name in names):
        raise ValueError(value)
    if names.count("three_hens") != 1 or any(names.count(c) != 1 for c in ("black", "brown", "white")):
        raise ValueError(value)
    return names


class ByeByeMrFoxGame(Game):
    name = "bye_bye_mr_fox_v0"
    PARAMS = {
        "num_players": Param(2, int_range(1, 4), "an integer 1..4"),
        "egg_tokens": Param(16, one_of(16, 14, 12), "16, 14 or 12"),
        "layout": Param(
            DEFAULT_LAYOUT, check_layout,
            "a list of 6 names from three_hens, black, brown, white, fox with exactly one three_hens "
            "and each hen colour exactly once",
        ),
    }
    # A turn has at most 2 decisions (place, give) and there is one turn per face-down token:
    # at most 16 - 5 + 6 + 4 = 21 turns, so no game exceeds 42 decisions.
    max_moves_default = 42
    zero_sum = False

    def _setup(self) -> None:
        self.num_players = self.params["num_players"]
        self.egg_tokens: int = self.params["egg_tokens"]
        self.layout: list[str] = self.params["layout"]
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (OBS_SIZE,)
        self.printed = tuple(LAYOUT_KINDS[name] for name in self.layout)
        self.white_sector = self.printed.index(WHITE)
        self.initial_face_down = (
            HEN_TOKENS_PER_COLOUR, HEN_TOKENS_PER_COLOUR, HEN_TOKENS_PER_COLOUR, self.egg_tokens - 5, FOX_TOKENS,
        )
        self.face_down_scale = np.array([1.0 / n for n in self.initial_face_down], dtype=np.float32)
        self.discard_scale = np.array(
            [0.5, 0.5, 0.5, 1.0 / self.egg_tokens, 1.0 / FOX_TOKENS], dtype=np.float32
        )
        # hen/fox tokens allowed on a circle showing picture v: ALLOWED[token][v]
        self.allowed = {
            c: tuple(v == FOX or (v in HENS and v != c) for v in range(6)) for c in HENS
        }
        self.allowed[FOX] = tuple(v in HENS for v in range(6))
        self.max_turns = sum(self.initial_face_down)

    def observation_scale(self) -> np.ndarray:
        """The nests count eggs (of 3), the face-down and discarded planes tokens of each kind."""
        scale = np.ones(OBS_SIZE, np.float32)
        scale[OBS_NESTS:OBS_NESTS + 3] = NEST_CAPACITY
        scale[OBS_FACE_DOWN:OBS_FACE_DOWN + 5] = self.initial_face_down
        scale[OBS_DISCARDED:OBS_DISCARDED + 5] = (*[HEN_TOKENS_PER_COLOUR] * 3, self.egg_tokens, FOX_TOKENS)
        return scale

    def new_initial_state(self) -> "ByeByeMrFoxState":
        return ByeByeMrFoxState(self)


class ByeByeMrFoxState(State):
    game: ByeByeMrFoxGame

    def __init__(self, game: ByeByeMrFoxGame) -> None:
        super().__init__(game)
        self.circles = [1] * 6  # egg (1) or not (0) on nest circle N0..N5
        self.circles[game.white_sector] = 0
        self.visible = list(game.printed)  # picture visible on O0..O5 (token if any, else print)
        self.covered = [0] * 6  # whether a token lies on O0..O5
        self.nests = [0, 0, 0]  # eggs in the black, brown, white hen's nest
        self.face_down = list(game.initial_face_down)  # black, brown, white hens, eggs, foxes
        self.discarded = [0] * 5
        self.phase = FLIP
        self.token = -1  # token to place (PLACE phase), the last flipped token otherwise
        self.spin = -1  # sector of the last spin
        self.turn = 0  # turns started before the current one
        self.won = False

    # ----- rules -------------------------------------------------------------------------------
    def current_player(self) -> int:
        phase = self.phase
        if phase == FLIP or phase == SPIN:
            return CHANCE
        if phase == OVER:
            return TERMINAL
        return self.turn % self.game.num_players

    def _legal_actions(self) -> list[int]:
        phase = self.phase
        if phase == FLIP:
            return [k for k in range(5) if self.face_down[k]]
        if phase == SPIN:
            return [0, 1, 2, 3, 4, 5]
        if phase == PLACE:
            return self.places(self.token)
        return [GIVE_ACTION + c for c in HENS if self.nests[c] < NEST_CAPACITY]

    def places(self, token: int) -> list[int]:
        """Where ``token`` may go: an egg on an empty nest circle; a hen on a fox or a hen of
        another colour; a fox on a single hen (the three-hens space is never covered)."""
        if token == EGG:
            circles = self.circles
            return [s for s in range(6) if not circles[s]]
        allowed = self.game.allowed[token]
        visible = self.visible
        return [OUTER_ACTION + s for s in range(6) if allowed[visible[s]]]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase == SPIN:
            return list(SPIN_OUTCOMES)
        if self.phase != FLIP:
            return []
        face_down = self.face_down
        total = sum(face_down)
        return [(k, face_down[k] / total) for k in range(5) if face_down[k]]

    def _apply_action(self, action: int) -> None:
        phase = self.phase
        if phase == FLIP:
            self._flip(action)
        elif phase == PLACE:
            self._place(action)
        elif phase == SPIN:
            self._spin(action)
        else:
            self._give(action - GIVE_ACTION)

    def _flip(self, token: int) -> None:
        """Turn a token face up; with no legal place it is discarded and the spin follows."""
        self.face_down[token] -= 1
        self.token = token
        if self.places(token):
            self.phase = PLACE
        else:
            self.discarded[token] += 1
            self.phase = SPIN

    def _place(self, action: int) -> None:
        """Put the token down; a token covered on an outer circle is discarded."""
        if action < OUTER_ACTION:
            self.circles[action] = 1
        else:
            sector = action - OUTER_ACTION
            if self.covered[sector]:
                self.discarded[self.visible[sector]] += 1
            self.visible[sector] = self.token
            self.covered[sector] = 1
        self.phase = SPIN

    def _spin(self, sector: int) -> None:
        """The back end's egg (if any) goes to the hen, the fox or the players' choice."""
        self.spin = sector
        back = (sector + 3) % 6
        if not self.circles[back]:
            self._end_turn()
            return
        self.circles[back] = 0
        picture = self.visible[sector]
        if picture == THREE_HENS:
            self.phase = GIVE
            return
        if picture == FOX or self.nests[picture] >= NEST_CAPACITY:
            self.discarded[EGG] += 1
        else:
            self.nests[picture] += 1
        self._end_turn()

    def _give(self, hen: int) -> None:
        self.nests[hen] += 1
        self._end_turn()

    def _end_turn(self) -> None:
        """Win when every nest is full; loss when the last token was flipped this turn."""
        nests = self.nests
        if nests[0] == nests[1] == nests[2] == NEST_CAPACITY:
            self.won = True
            self.phase = OVER
        elif not any(self.face_down):
            self.phase = OVER
        else:
            self.phase = FLIP
            self.turn += 1

    def returns(self) -> np.ndarray:
        if self.phase != OVER:
            return np.zeros(self.game.num_players, dtype=np.float64)
        return np.full(self.game.num_players, 1.0 if self.won else -1.0, dtype=np.float64)

    def eggs_needed(self) -> int:
        return 3 * NEST_CAPACITY - sum(self.nests)

    # ----- observation, notation, pictures -----------------------------------------------------
    def observation_tensor(self, player: int) -> np.ndarray:
        obs = np.zeros(OBS_SIZE, dtype=np.float32)
        obs[OBS_NEST_CIRCLES:OBS_NEST_CIRCLES + 6] = self.circles
        visible = self.visible
        for s in range(6):
            obs[OBS_VISIBLE + 5 * s + VISIBLE_SLOT[visible[s]]] = 1.0
        obs[OBS_COVERED:OBS_COVERED + 6] = self.covered
        obs[OBS_NESTS:OBS_NESTS + 3] = self.nests
        obs[OBS_NESTS:OBS_NESTS + 3] *= 1.0 / NEST_CAPACITY
        game = self.game
        obs[OBS_FACE_DOWN:OBS_FACE_DOWN + 5] = self.face_down
        obs[OBS_FACE_DOWN:OBS_FACE_DOWN + 5] *= game.face_down_scale
        obs[OBS_DISCARDED:OBS_DISCARDED + 5] = self.discarded
        obs[OBS_DISCARDED:OBS_DISCARDED + 5] *= game.discard_scale
        if self.phase == PLACE:
            obs[OBS_TOKEN + self.token] = 1.0
            obs[OBS_PHASE] = 1.0
        elif self.phase == GIVE:
            obs[OBS_SPIN + self.spin] = 1.0
            obs[OBS_PHASE + 1] = 1.0
        return obs

    def action_to_string(self, action: int) -> str:
        if self.phase == FLIP and 0 <= action < 5:
            return FLIP_NAMES[action]
        if self.phase == SPIN and 0 <= action < 6:
            return SPIN_NAMES[action]
        return ACTION_NAMES[action]

    def string_to_action(self, text: str) -> int:
        if isinstance(text, str):
            wanted = text.strip()
            names = FLIP_NAMES if self.phase == FLIP else SPIN_NAMES if self.phase == SPIN else ACTION_NAMES
            if wanted in names:
                return names.index(wanted)
        return super().string_to_action(text)

    def _full_key(self) -> Any:
        return (
            tuple(self.circles), tuple(self.visible), tuple(self.covered), tuple(self.nests),
            tuple(self.face_down), tuple(self.discarded), self.phase, self.token, self.spin, self.turn,
            self.won,
        )

    def clone(self) -> "ByeByeMrFoxState":
        new = ByeByeMrFoxState.__new__(ByeByeMrFoxState)
        new.game = self.game
        new._history = self._history[:]
        new._legal = self._legal
        new.circles = self.circles[:]
        new.visible = self.visible[:]
        new.covered = self.covered[:]
        new.nests = self.nests[:]
        new.face_down = self.face_down[:]
        new.discarded = self.discarded[:]
        new.phase = self.phase
        new.token = self.token
        new.spin = self.spin
        new.turn = self.turn
        new.won = self.won
        return new

    def status(self) -> str:
        """One line: what happens next, or the result."""
        if self.phase == OVER:
            return "the hens are happy: you win!" if self.won else "out of tokens: you lose"
        seat = self.turn % self.game.num_players
        if self.phase == FLIP:
            return f"turn {self.turn + 1}: player_{seat} flips a token"
        if self.phase == PLACE:
            return f"turn {self.turn + 1}: player_{seat} places the {TOKEN_LABELS[self.token]}"
        if self.phase == SPIN:
            return f"turn {self.turn + 1}: player_{seat} spins"
        return f"turn {self.turn + 1}: player_{seat} gives the egg from N{(self.spin + 3) % 6} to a hen"

    def picture_label(self, sector: int) -> str:
        kind = self.visible[sector]
        label = "three hens" if kind == THREE_HENS else TOKEN_LABELS[kind]
        return label + (" (token)" if self.covered[sector] else "")

    def __str__(self) -> str:
        lines = ["sector  outer circle           nest circle"]
        for s in range(6):
            # the spin empties the nest circle at the spinner's back end, opposite the sector it points at
            arrow = f"  <- spinner (points at O{self.spin})" if self.spin >= 0 and s == (self.spin + 3) % 6 else ""
            lines.append(f"  {s}     O{s} {self.picture_label(s):<18} N{s} {'egg' if self.circles[s] else '.'}{arrow}")
        nests = "  ".join(f"{KIND_NAMES[c]} {self.nests[c]}/3" for c in HENS)
        lines.append(f"nests: {nests}")
        lines.append("face down: " + ", ".join(f"{n} {KIND_NAMES[k]}" for k, n in enumerate(self.face_down))
                     + f" ({sum(self.face_down)})")
        lines.append("discarded: " + ", ".join(f"{n} {KIND_NAMES[k]}" for k, n in enumerate(self.discarded)))
        lines.append(self.status())
        return "\n".join(lines)

    def describe_effects(self, before: "ByeByeMrFoxState", viewer: int | None) -> list[str]:
        """Where the spun egg went, a token without a place (``bye_bye_mr_fox_events``)."""
        from fox_envs.games.bye_bye_mr_fox.events import effects

        return effects(before, self)

    def render_rgb(self, viewer: int | None = None, status: str | None = None) -> np.ndarray:  # all public
        from fox_envs.games.bye_bye_mr_fox.render import draw_board

        return draw_board(self, status)
