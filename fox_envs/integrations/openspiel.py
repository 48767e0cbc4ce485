"""OpenSpiel on the rules core: ``load_game(env_id, **params)`` and ``register()``.

``load_game(env_id)`` returns a ``pyspiel.Game`` (an OpenSpiel Python game) whose states wrap
a rules-core ``State``; ``register()`` makes ``pyspiel.load_game("fox_<name>")`` work for every
registered env id ``<name>_v0`` (``fox_`` + the id without ``_v0``), with the game's params as
OpenSpiel game params (``pyspiel.load_game("fox_<name>", {"num_players": 3})`` or
``pyspiel.load_game("fox_<name>(max_rounds=2)")``)::

    import pyspiel
    from fox_envs.integrations import openspiel

    game = openspiel.load_game(env_id, **params)
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)

What OpenSpiel sees, and where it comes from:

* Game type: sequential; chance explicit (a game with chance nodes: every chance node of the
  core with its exact probabilities; the spec's ``openspiel`` facts give the most outcomes and
  chance nodes) or deterministic; perfect or imperfect information as the game declares;
  zero-sum, or ``Utility.IDENTICAL`` for a cooperative game whose players all get the same
  return; terminal rewards. Utilities as the env's rewards: +1 / -1 (an n-player zero-sum game:
  -1/(n-1) for each loser), 0 for a draw.
* ``max_moves`` (a game param; 0, the default, means the env's default for these params) is
  the game's maximum length: after that many player decisions the state is terminal and every
  return is 0 (a draw), as the env's truncation. Chance events do not count.
* Observation tensor: the core's ``observation_tensor(player)`` (shape ``observation_shape``).
  Observation string: the core's ``render_text(player)`` (the text board as that player sees
  it). The information-state tensor is the observation tensor as well (the core's summary of
  what the player knows). The information-state string is the whole history as the player saw
  it, one action a line (``action_to_string_for``: in a hidden-information game the opponent's
  hidden choices are written ``?``), followed by the player's current text board; in the perfect-information games
  every action is seen in full. None of these holds a fact hidden from the player.
* ``resample_from_infostate(player, sampler)``: the core's ``sample_determinisation`` (a state
  the player cannot tell from this one, the hidden facts redrawn), seeded from ``sampler()``; in
  the perfect-information games a copy of the state.

OpenSpiel's Python algorithms work on these games: ``MCTSBot`` (any game; on a hidden-information
game it would see the hidden facts, so use ``ISMCTSBot`` there), ``ISMCTSBot``, and the Python RL
algorithms through ``rl_environment.Environment``. OpenSpiel's C++ bots (``pyspiel.MCTSBot``,
``pyspiel.ISMCTSBot``) crash on Python games (OpenSpiel's own ``python_tic_tac_toe`` too).
"""
from __future__ import annotations

import math
from typing import Any

try:
    import pyspiel
except ImportError as error:  # pragma: no cover  (exercised in a subprocess by the tests)
    raise ImportError(
        "fox_envs.integrations.openspiel needs OpenSpiel (pyspiel): pip install 'fox_envs[openspiel]'"
    ) from error

import numpy as np

from fox_envs.core.errors import IllegalActionError, InvalidParameterError
from fox_envs.core.game import TERMINAL, Game, State
from fox_envs.core.params import integer_in, short_repr
from fox_envs.core.registry import env_ids, game_class, make_game, spec

__all__ = ["load_game", "register", "openspiel_name", "FoxOpenSpielGame", "FoxOpenSpielState"]

_TERMINAL = int(pyspiel.PlayerId.TERMINAL)  # -4 (the core's TERMINAL is -2)
_CHANCE = int(pyspiel.PlayerId.CHANCE)
LIST_SEPARATOR = "-"  # a list param (e.g. a board layout) as one OpenSpiel string param


def openspiel_name(env_id: str) -> str:
    """The OpenSpiel short name of ``env_id``: ``<name>_v0`` -> ``fox_<name>`` (a later version
    keeps its suffix: ``fox_<name>_v1``)."""
    spec(env_id)
    return "fox_" + env_id.removesuffix("_v0")


# ----- params ---------------------------------------------------------------------------------
def _to_openspiel_value(value: Any) -> Any:
    """A core param value as an OpenSpiel game param (a list becomes one string)."""
    if isinstance(value, (list, tuple)):
        return LIST_SEPARATOR.join(str(item) for item in value)
    return value


def _to_core_params(env_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """OpenSpiel game params back to core params (a list param arrives as one string)."""
    declared = game_class(env_id).PARAMS
    core = {}
    for name, value in params.items():
        if name == "max_moves":
            continue
        param = declared.get(name)
        if isinstance(value, str) and param is not None and isinstance(param.default, list):
            value = value.split(LIST_SEPARATOR)
        core[name] = value
    return core


def _max_moves(env_id: str, game: Game, value: Any) -> int:
    """``max_moves`` as given (0 or None: the env's default for this game)."""
    if value is None or integer_in(value, 0, 0) is not None:
        return game.max_moves_default
    number = integer_in(value, 1)
    if number is None:
        raise InvalidParameterError(
            f"{env_id}: bad value {short_repr(value)} for parameter 'max_moves'; allowed: an integer >= 1 (0: the default)"
        )
    return number


# ----- game type and info ---------------------------------------------------------------------
def _game_type(env_id: str) -> "pyspiel.GameType":
    cls = game_class(env_id)
    facts = spec(env_id).openspiel
    Type = pyspiel.GameType
    if cls.zero_sum:
        utility = Type.Utility.ZERO_SUM
    else:
        utility = Type.Utility.IDENTICAL if facts.identical_utility else Type.Utility.GENERAL_SUM
    low, high = _player_range(cls)
    defaults = {name: _to_openspiel_value(param.default) for name, param in cls.PARAMS.items()}
    defaults["max_moves"] = 0
    return Type(
        short_name=openspiel_name(env_id),
        long_name=f"fox_envs {spec(env_id).gym_id.rpartition('-v')[0]}",
        dynamics=Type.Dynamics.SEQUENTIAL,
        chance_mode=Type.ChanceMode.EXPLICIT_STOCHASTIC if facts.max_chance_outcomes else Type.ChanceMode.DETERMINISTIC,
        information=(Type.Information.PERFECT_INFORMATION if cls.perfect_information
                     else Type.Information.IMPERFECT_INFORMATION),
        utility=utility,
        reward_model=Type.RewardModel.TERMINAL,
        max_num_players=high,
        min_num_players=low,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=defaults,
    )


def _player_range(cls: type[Game]) -> tuple[int, int]:
    """Fewest and most players over the values the ``num_players`` param accepts (fixed
    otherwise)."""
    param = cls.PARAMS.get("num_players")
    if param is None:
        count = cls().num_players
        return count, count
    counts = []
    for n in range(1, 17):
        try:
            counts.append(param.check(n))
        except (TypeError, ValueError):
            pass
    return min(counts), max(counts)


def _game_info(env_id: str, game: Game, max_moves: int) -> "pyspiel.GameInfo":
    """Sizes and utilities: the env's rewards, +1 for a win, -1 (or -1/(n-1) for each loser of
    an n-player zero-sum game) for a loss."""
    n = game.num_players
    zero_sum = game.zero_sum
    return pyspiel.GameInfo(
        num_distinct_actions=game.num_actions,
        max_chance_outcomes=spec(env_id).openspiel.max_chance_outcomes,
        num_players=n,
        min_utility=-1.0 / (n - 1) if zero_sum else -1.0,
        max_utility=1.0,
        utility_sum=0.0 if zero_sum else None,
        max_game_length=max_moves,
    )


# ----- game, state, observer -------------------------------------------------------------------
class FoxOpenSpielGame(pyspiel.Game):
    """An OpenSpiel Python game over one rules-core ``Game`` (``self.core_game``)."""

    env_id: str = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        env_id = self.env_id
        given = dict(params or {})
        self.core_game = make_game(env_id, **_to_core_params(env_id, given))
        self.max_moves = _max_moves(env_id, self.core_game, given.get("max_moves"))
        shown = {name: _to_openspiel_value(value) for name, value in self.core_game.params.items()}
        shown["max_moves"] = self.max_moves
        super().__init__(_TYPES[env_id], _game_info(env_id, self.core_game, self.max_moves), shown)

    def new_initial_state(self, *_: Any) -> "FoxOpenSpielState":
        return FoxOpenSpielState(self)

    def max_chance_nodes_in_history(self) -> int:
        return spec(self.env_id).openspiel.chance_nodes(self.core_game)

    def make_py_observer(self, iig_obs_type: Any = None, params: dict | None = None) -> "FoxObserver":
        return FoxObserver(self.core_game, iig_obs_type, params)


class _CoreBox:
    """Holds the core state; OpenSpiel's ``clone`` deep-copies the Python attributes of a state,
    and this makes that copy one ``State.clone()``."""

    __slots__ = ("state",)

    def __init__(self, state: State) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict) -> "_CoreBox":
        return _CoreBox(self.state.clone())

    def __getstate__(self) -> State:
        return self.state

    def __setstate__(self, state: State) -> None:
        self.state = state


class FoxOpenSpielState(pyspiel.State):
    """An OpenSpiel state over a rules-core ``State`` (``self.core``), with the ``max_moves``
    limit of the game and, for a hidden-information game, each player's view of the history."""

    def __init__(self, game: FoxOpenSpielGame) -> None:
        super().__init__(game)
        self._box = _CoreBox(game.core_game.new_initial_state())
        self._max_moves = game.max_moves
        self._decisions = 0  # player decisions so far
        # one text per player: the history as that player saw it (hidden-information games)
        self._views: tuple[str, ...] = () if game.core_game.perfect_information else ("",) * game.num_players()

    @property
    def core(self) -> State:
        """The rules-core state (do not change it behind OpenSpiel's back)."""
        return self._box.state

    def truncated(self) -> bool:
        """Whether ``max_moves`` ended the game before its rules did (a draw)."""
        return self._decisions >= self._max_moves and not self._box.state.is_terminal()

    # ----- OpenSpiel hooks -------------------------------------------------------------------
    def current_player(self) -> int:
        if self._decisions >= self._max_moves:
            return _TERMINAL
        player = self._box.state.current_player()
        if player < 0:
            return _TERMINAL if player == TERMINAL else _CHANCE
        return player

    def is_terminal(self) -> bool:
        return self._decisions >= self._max_moves or self._box.state.is_terminal()

    def _legal_actions(self, player: int) -> list[int]:
        return self._box.state.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self._box.state.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        if self._decisions >= self._max_moves:
            raise IllegalActionError(
                f"{self._box.state.game.name}: action {short_repr(action)} after the end of the game "
                f"(max_moves={self._max_moves} reached, a draw)"
            )
        core = self._box.state
        if self._views:
            self._views = tuple(
                f"{view}{core.action_to_string_for(action, viewer)}\n" for viewer, view in enumerate(self._views)
            )
        if not core.is_chance_node():
            self._decisions += 1
        core.apply_action(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self._box.state.action_to_string(action)

    def returns(self) -> list[float]:
        if self.truncated():
            return [0.0] * self.num_players()
        return [float(r) for r in self._box.state.returns()]

    def resample_from_infostate(self, player: int, sampler: Any) -> "FoxOpenSpielState":
        """A state ``player`` cannot tell from this one, hidden facts redrawn (the core's
        ``sample_determinisation``, seeded from ``sampler()``)."""
        core = self._box.state
        if core.game.perfect_information:
            return self.clone()
        rng = np.random.default_rng(int(sampler() * 2**53))
        sample = core.sample_determinisation(player, rng)
        state = self.get_game().new_initial_state()
        for action in sample.history():
            state.apply_action(action)
        return state

    def information_state_text(self, player: int) -> str:
        """What ``player`` saw of every action, one a line, then its current text board."""
        core = self._box.state
        if self._views:
            seen = self._views[player]
        else:
            seen = "".join(f"{text}\n" for text in _history_notation(core))
        return f"{seen}{core.render_text(player)}"

    def __str__(self) -> str:
        text = str(self._box.state)
        return text + "\n(max_moves reached: a draw)" if self.truncated() else text


def _history_notation(core: State) -> list[str]:
    """The notation of every action of a perfect-information game's history (replayed)."""
    state = core.game.new_initial_state()
    texts = []
    for action in core.history():
        texts.append(state.action_to_string(action))
        state.apply_action(action)
    return texts


class FoxObserver:
    """OpenSpiel's Python observer interface over the core: ``tensor`` / ``dict`` filled by
    ``set_from(state, player)``, ``string_from(state, player)``.

    Supported: what a single player knows (``private_info`` SINGLE_PLAYER with public info),
    as an observation or, with ``perfect_recall``, an information state. In a perfect-information
    game there is nothing private, so every ``private_info`` gives the same."""

    def __init__(self, core_game: Game, iig_obs_type: Any, params: dict | None) -> None:
        if params:
            raise ValueError(f"{core_game.name}: observation params are not supported; got {params!r}")
        kind = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        single = kind.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        if not kind.public_info or not (single or core_game.perfect_information):
            raise ValueError(
                f"{core_game.name}: unsupported observation type {kind!r}; supported: public_info=True with "
                "private_info=SINGLE_PLAYER (perfect_recall True or False)"
            )
        self.perfect_recall = kind.perfect_recall
        shape = core_game.observation_shape
        self.tensor = np.zeros(math.prod(shape), np.float32)
        name = "info_state" if self.perfect_recall else "observation"
        self.dict = {name: self.tensor.reshape(shape)}
        self._view = self.dict[name]

    def set_from(self, state: FoxOpenSpielState, player: int) -> None:
        state.core.write_observation(player, self._view)

    def string_from(self, state: FoxOpenSpielState, player: int) -> str:
        if self.perfect_recall:
            return state.information_state_text(player)
        return state.core.render_text(player)


# ----- registration -------------------------------------------------------------------------------
_TYPES: dict[str, "pyspiel.GameType"] = {}
_CLASSES: dict[str, type[FoxOpenSpielGame]] = {}


def register() -> None:
    """Register every env id with OpenSpiel as ``fox_<id without _v0>`` (idempotent), so
    ``pyspiel.load_game("fox_<name>")`` works."""
    registered = set(pyspiel.registered_names())
    for env_id in env_ids():
        if env_id in _CLASSES:
            continue
        _TYPES[env_id] = _game_type(env_id)
        name = openspiel_name(env_id)
        cls = type(f"FoxOpenSpielGame_{name}", (FoxOpenSpielGame,), {"env_id": env_id})
        _CLASSES[env_id] = cls
        if name not in registered:
            pyspiel.register_game(_TYPES[env_id], cls)


def load_game(env_id: str, /, **params: Any) -> "pyspiel.Game":
    """The OpenSpiel game of ``env_id`` with the core's keyword ``params`` and ``max_moves``
    (registers every id first). Bad params raise ``InvalidParameterError``."""
    spec(env_id)
    register()
    max_moves = params.pop("max_moves", None)
    core_game = make_game(env_id, **params)  # checks the params with the core's messages
    openspiel_params = {name: _to_openspiel_value(value) for name, value in core_game.params.items()}
    openspiel_params["max_moves"] = _max_moves(env_id, core_game, max_moves)
    return pyspiel.load_game(openspiel_name(env_id), openspiel_params)
