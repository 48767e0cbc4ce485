"""The rules core: ``Game`` / ``State`` base classes shared by every game.

A game module subclasses both and implements only its rules:

* ``Game``: ``name``, ``PARAMS``, ``num_players``, ``num_actions``, ``observation_shape``,
  ``max_moves_default``, ``zero_sum`` and ``new_initial_state``.
* ``State``: ``current_player``, ``_legal_actions`` (sorted list; chance outcomes at a chance
  node), ``_apply_action`` (called only with a legal action), ``chance_outcomes``, ``returns``,
  ``observation_tensor``, ``action_to_string``, ``__str__``, ``render_rgb`` and ``_full_key``
  (every fact that defines the position, used for equality). A hidden-information game also
  implements ``state_tensor`` (with ``Game.state_shape``) and ``sample_determinisation``.

A game may override ``apply_action`` as one fused validate-and-apply method for speed (the
cheapest games do); it must keep the contract: the same ``IllegalActionError`` messages, the state untouched
on a bad action, the history appended and the legal-action cache reset.

Everything that is the same for all games lives here: action validation with clear errors, the
legal-action cache, masks, history, clone, JSON, notation look-up and equality.
"""
from __future__ import annotations

import copy
import json
import math
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

from fox_envs.core.errors import IllegalActionError
from fox_envs.core.params import Param, integer_value, short_repr, validate_params

CHANCE = -1
TERMINAL = -2


class Game:
    """An immutable description of one game with its parameters."""

    name: ClassVar[str] = ""
    PARAMS: ClassVar[Mapping[str, Param]] = {}
    max_moves_default: ClassVar[int] = 1000
    zero_sum: ClassVar[bool] = True
    perfect_information: ClassVar[bool] = True
    num_players: int
    num_actions: int
    observation_shape: tuple[int, ...]

    def __init__(self, /, **params: Any) -> None:
        self.params = validate_params(self.name, self.PARAMS, params)
        self._setup()

    def _setup(self) -> None:
        """Derive ``num_players``, ``num_actions``, ``observation_shape`` and tables from params."""
        raise NotImplementedError

    def new_initial_state(self) -> "State":
        raise NotImplementedError

    def observation_scale(self) -> np.ndarray | None:
        """Per plane (the observation's last axis), the integer a plane's value is a count of:
        the plane holds ``count / scale``. None when every plane is 0/1."""
        return None

    def compact_high(self, num_planes: int) -> np.ndarray:
        """Per plane, the largest value ``compact_observation`` can give (``num_planes`` planes)."""
        scale = self.observation_scale()
        return np.ones(num_planes, np.uint8) if scale is None else np.minimum(scale, 255).astype(np.uint8)

    def compact_observation(self, observation: np.ndarray) -> np.ndarray:
        """The uint8 form of float32 observations (any leading axes): every plane as the exact
        integer it is a fraction of (``observation_scale``), capped at 255; 0/1 planes as they are."""
        scale = self.observation_scale()
        values = np.asarray(observation)
        if scale is None:
            return values.astype(np.uint8)
        return np.minimum(np.rint(values * scale), 255).astype(np.uint8)

    @property
    def state_shape(self) -> tuple[int, ...]:
        """The shape of ``State.state_tensor()``: the observation shape, unless the game's full
        state holds more than one player's observation (hidden-information games override it)."""
        return self.observation_shape

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.params == self.params  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.name, json.dumps(self.params, sort_keys=True)))

    def __reduce__(self):
        return (_rebuild_game, (type(self), self.params))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"


def _rebuild_game(cls: type, params: dict) -> Game:
    return cls(**params)


def action_as_int(action: Any) -> int | None:
    """Return ``action`` as a Python int when it is an integer (``integer_value`` with 0-d
    integer arrays); ``None`` for anything else (bool, float, NaN, None, str, arrays...)."""
    return action if type(action) is int else integer_value(action, arrays=True)


class State:
    """One position of a game. Subclasses implement the rules hooks listed in the module doc."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self._history: list[int] = []
        self._legal: list[int] | None = None

    # ----- hooks a game implements -------------------------------------------------------
    def current_player(self) -> int:
        raise NotImplementedError

    def _legal_actions(self) -> list[int]:
        raise NotImplementedError

    def _apply_action(self, action: int) -> None:
        raise NotImplementedError

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``[(outcome, probability), ...]`` at a chance node, ``[]`` elsewhere."""
        return []

    def returns(self) -> np.ndarray:
        raise NotImplementedError

    def rewards(self) -> np.ndarray:
        """Rewards of the last transition: every game here rewards only at the end."""
        if self.is_terminal() and self._history:
            return self.returns()
        return np.zeros(self.game.num_players, dtype=np.float64)

    def observation_tensor(self, player: int) -> np.ndarray:
        raise NotImplementedError

    def state_tensor(self) -> np.ndarray:
        """The full-information tensor of the position (float32, ``game.state_shape``), the same
        whoever asks: PettingZoo's global ``state()`` for centralised critics. In a
        perfect-information game every player knows everything, so it is ``player_0``'s
        observation; a hidden-information game overrides it to hold the hidden facts."""
        if not self.game.perfect_information:
            raise NotImplementedError(f"{self.game.name} must implement state_tensor")
        return self.observation_tensor(0)

    def write_observation(self, player: int, out: np.ndarray) -> None:
        """Write ``observation_tensor(player)`` into ``out`` (float32, the observation shape);
        a game may override it to fill ``out`` directly, without a temporary array."""
        out[...] = self.observation_tensor(player)

    def action_to_string(self, action: int) -> str:
        raise NotImplementedError

    def action_to_string_for(self, action: int, viewer: int | None) -> str:
        """The notation of ``action`` (about to be applied here) as ``viewer`` sees it being
        played: hidden parts are written ``?``. ``None`` (or a perfect-information game) sees all."""
        return self.action_to_string(action)

    def describe_effects(self, before: "State", viewer: int | None) -> list[str]:
        """Lines telling ``viewer`` what the last action (``before`` -> this state) revealed or
        set off beyond its own notation (cards turned up, pieces moving at a round end), only as
        far as ``viewer`` may see it (``None``: everything). Default: nothing to add."""
        return []

    def render_rgb(self, viewer: int | None = None, status: str | None = None) -> np.ndarray:
        """The picture of the board, (H, W, 3) uint8; hidden-information games show only what
        ``viewer`` may know (``None``: everything), as ``render_text``. ``status`` replaces the
        status line drawn under the board (``fox_envs.core.ending``: a game that ended outside
        the rules core)."""
        raise NotImplementedError

    def render_svg(self, viewer: int | None = None) -> str:
        """The board as a standalone SVG document for ``viewer`` (``None``: everything), every
        clickable part tagged ``data-action`` (``fox_envs.core.svg`` has the contract)."""
        from fox_envs.core.svg import state_svg

        return state_svg(self, viewer)

    def _repr_svg_(self) -> str:
        """Jupyter's picture of the state: the full view (``render_svg(None)``)."""
        return self.render_svg(None)

    def render_text(self, viewer: int | None = None) -> str:
        """The text board; hidden-information games show only what ``viewer`` may know
        (``None``: everything). Its last line is the status line: who is to move, or how the
        game ended."""
        return str(self)

    def sample_determinisation(self, player: int, rng: np.random.Generator) -> "State":
        """A full state consistent with everything ``player`` knows, with the hidden facts
        drawn at random (for search agents). Perfect-information games return a clone."""
        if not self.game.perfect_information:
            raise NotImplementedError(f"{self.game.name} must implement sample_determinisation")
        return self.clone()

    def _full_key(self) -> Any:
        """Every fact that defines the position (for equality checks)."""
        raise NotImplementedError

    # ----- shared behaviour ----------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def legal_actions(self) -> list[int]:
        """Sorted legal actions of the player to move (chance outcomes at a chance node)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = [] if self.is_terminal() else self._legal_actions()
        return list(legal)

    def _cached_legal(self) -> list[int]:
        legal = self._legal
        if legal is None:
            legal = self._legal = [] if self.is_terminal() else self._legal_actions()
        return legal

    def legal_actions_mask(self) -> np.ndarray:
        mask = np.empty(self.game.num_actions, dtype=np.int8)
        self.write_legal_mask(mask)
        return mask

    def write_legal_mask(self, out: np.ndarray) -> None:
        """Write the int8 legal-action mask (1 = legal) into ``out`` (one row of ``num_actions``
        entries)."""
        out.fill(0)
        legal = self._cached_legal()
        if legal:
            out.put(legal, 1)  # cheaper than out[legal] = 1 for a list

    def is_legal(self, action: int) -> bool:
        return action in self._cached_legal()

    def apply_action(self, action: Any) -> None:
        """Apply a legal player action or chance outcome; anything else raises
        ``IllegalActionError`` and leaves the state untouched."""
        value = action if type(action) is int else action_as_int(action)
        if value is None or not self.is_legal(value):
            raise IllegalActionError(self._illegal_message(action, value))
        self._apply_action(value)
        self._history.append(value)
        self._legal = None

    def _illegal_message(self, action: Any, value: int | None) -> str:
        legal = self._cached_legal()
        player = self.current_player()
        who = {CHANCE: "chance", TERMINAL: "nobody (the game is over)"}.get(player, f"player_{player}")
        if value is None:
            what = f"malformed action {short_repr(action)} (type {type(action).__name__}): actions are integers"
        elif not 0 <= value < self.game.num_actions:
            what = f"action {short_repr(value)} is out of range 0..{self.game.num_actions - 1}"
        else:
            what = f"action {value} ({self._safe_string(value)}) is illegal now"
        shown = ", ".join(f"{a} ({self._safe_string(a)})" for a in legal[:8])
        more = f" and {len(legal) - 8} more" if len(legal) > 8 else ""
        allowed = f"legal actions for {who}: {shown}{more}" if legal else f"no legal actions ({who} to move)"
        return f"{self.game.name}: {what}; {allowed}"

    def _safe_string(self, action: int) -> str:
        try:
            return self.action_to_string(action)
        except Exception:  # the message must never fail
            return "?"

    def string_to_action(self, text: str) -> int:
        """The action named ``text`` in this game's notation (legal actions first)."""
        if not isinstance(text, str):
            raise IllegalActionError(f"{self.game.name}: notation must be a string, got {short_repr(text)}")
        wanted = text.strip()
        for action in self._cached_legal():
            if self.action_to_string(action) == wanted:
                return action
        for action in range(self.game.num_actions):
            if self._safe_string(action) == wanted:
                return action
        legal = self._cached_legal()
        examples = ", ".join(repr(self._safe_string(a)) for a in legal[:8])
        raise IllegalActionError(
            f"{self.game.name}: unknown move {short_repr(text)}; legal moves now: {examples or 'none'}"
        )

    def apply_string(self, text: str) -> None:
        """Apply the move written in notation (convenience for scenarios and humans)."""
        self.apply_action(self.string_to_action(text))

    def history(self) -> list[int]:
        return list(self._history)

    def move_number(self) -> int:
        return len(self._history)

    def clone(self) -> "State":
        return copy.deepcopy(self, {id(self.game): self.game})

    def to_json(self) -> str:
        return json.dumps({"game": self.game.name, "params": self.game.params, "history": self._history})

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return (
            self.game == other.game  # type: ignore[attr-defined]
            and self._history == other._history  # type: ignore[attr-defined]
            and self._full_key() == other._full_key()  # type: ignore[attr-defined]
        )

    def __hash__(self) -> int:
        return hash((self.game.name, tuple(self._history)))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} after {len(self._history)} actions>\n{self}"


def two_player_returns(winner: int) -> np.ndarray:
    """Returns of a two-player zero-sum game: +1 for ``winner``, -1 for the other, zeros when
    ``winner`` is negative (no winner: not over, or a draw)."""
    result = np.zeros(2, dtype=np.float64)
    if winner >= 0:
        result[winner] = 1.0
        result[1 - winner] = -1.0
    return result


def choose_outcome(outcomes: Sequence[tuple[int, float]], uniform: float) -> int:
    """The outcome whose cumulative-probability interval holds ``uniform`` (a draw in [0, 1))."""
    total = 0.0
    for action, probability in outcomes:
        total += probability
        if uniform < total:
            return action
    return outcomes[-1][0]


def sample_chance(state: State, rng: np.random.Generator) -> int:
    """Draw one chance outcome of ``state`` with its exact probabilities."""
    return choose_outcome(state.chance_outcomes(), rng.random())


def resolve_chance(state: State, rng: np.random.Generator) -> None:
    """Apply sampled chance outcomes until a player (or the end) is to move."""
    while state.current_player() == CHANCE:
        state.apply_action(sample_chance(state, rng))


def check_probabilities(outcomes: Sequence[tuple[int, float]]) -> bool:
    return math.isclose(sum(p for _, p in outcomes), 1.0, rel_tol=0, abs_tol=1e-9)
