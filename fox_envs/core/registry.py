"""Env ids -> rules modules, heuristic agents and Gymnasium ids; loading saved states.

Adding a game means writing its rules module and adding one ``GameEntry`` to ``GAMES``.
"""
from __future__ import annotations

import importlib
import json
import os
import sys
from dataclasses import dataclass
from typing import Any

from fox_envs.core.errors import IllegalActionError, InvalidParameterError, InvalidStateError
from fox_envs.core.game import Game, State
from fox_envs.core.params import short_repr


@dataclass(frozen=True)
class GameEntry:
    env_id: str
    game_class: str  # "module:Class" of the rules-core Game
    gym_id: str  # Gymnasium id without namespace, e.g. "XCeterO-v0"
    heuristic: str  # "module:Class" of the heuristic agent
    variants: tuple[dict, ...] = ({},)  # param sets the conformance suite runs on


GAMES: dict[str, GameEntry] = {
    entry.env_id: entry
    for entry in [
        GameEntry("xceter_o_v0", "fox_envs.games.xceter_o:XCeterOGame", "XCeterO-v0",
                  "fox_envs.agents.xceter_o:XCeterOHeuristic", ({}, {"ordered_rows": True})),
        GameEntry("outwit_v0", "fox_envs.games.outwit:OutwitGame", "Outwit-v0",
                  "fox_envs.agents.outwit:OutwitHeuristic", ({},)),
        GameEntry("outfox_v0", "fox_envs.games.outfox:OutfoxGame", "Outfox-v0",
                  "fox_envs.agents.outfox:OutfoxHeuristic", ({}, {"num_players": 3})),
        GameEntry("bye_bye_mr_fox_v0", "fox_envs.games.bye_bye_mr_fox:ByeByeMrFoxGame", "ByeByeMrFox-v0",
                  "fox_envs.agents.bye_bye_mr_fox:ByeByeMrFoxHeuristic",
                  ({}, {"num_players": 1}, {"num_players": 4, "egg_tokens": 12}, {"egg_tokens": 14})),
        GameEntry("outfoxed_v0", "fox_envs.games.outfoxed:OutfoxedGame", "Outfoxed-v0",
                  "fox_envs.agents.outfoxed:OutfoxedHeuristic", ({}, {"max_rounds": 2})),
    ]
}

ENV_IDS: tuple[str, ...] = tuple(GAMES)


def load_object(path: str) -> Any:
    """Import ``"package.module:attribute"``. A module not found on ``sys.path`` is also looked
    up from the current directory, as ``python -m`` does (so a saved policy whose factory lives
    in a project's own module loads with the ``fox-envs`` console script too)."""
    module_name, _, attribute = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        here = os.getcwd()
        top = module_name.split(".")[0]
        if error.name != top or here in sys.path or "" in sys.path:
            raise
        sys.path.append(here)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError:
            sys.path.remove(here)
            raise error from None
    return getattr(module, attribute)


def entry(env_id: str) -> GameEntry:
    try:
        return GAMES[env_id]
    except (KeyError, TypeError):
        raise InvalidParameterError(
            f"unknown env id {short_repr(env_id)}; known ids: {', '.join(ENV_IDS)}"
        ) from None


def game_class(env_id: str) -> type[Game]:
    return load_object(entry(env_id).game_class)


def make_game(env_id: str, /, **params: Any) -> Game:
    """The rules-core ``Game`` for ``env_id`` with keyword ``params``."""
    return game_class(env_id)(**params)


def env_module(env_id: str):
    return importlib.import_module(f"fox_envs.{env_id}")


def make(env_id: str, /, **params: Any):
    """The wrapped PettingZoo AEC env, same as ``fox_envs.<env_id>.env(**params)``."""
    entry(env_id)
    return env_module(env_id).env(**params)


def check_saved(data: Any, what: str = "saved state") -> None:
    """Check the keys every saved game shares (``State.to_json`` and game records): a JSON
    object with ``game`` (a known env id), ``params`` (an object) and ``history`` (a list);
    anything else raises ``InvalidStateError`` naming what is wrong."""
    if not isinstance(data, dict):
        raise InvalidStateError(f"{what} must be a JSON object with keys game, params, history")
    missing = [key for key in ("game", "params", "history") if key not in data]
    if missing:
        raise InvalidStateError(f"{what} lacks key(s) {', '.join(missing)}; expected game, params, history")
    if not isinstance(data["game"], str) or data["game"] not in GAMES:
        raise InvalidStateError(f"{what} names unknown game {short_repr(data['game'])}; known: {', '.join(ENV_IDS)}")
    if not isinstance(data["params"], dict):
        raise InvalidStateError(f"{what} 'params' must be an object, got {short_repr(data['params'])}")
    if not isinstance(data["history"], list):
        raise InvalidStateError(f"{what} 'history' must be a list of integers, got {short_repr(data['history'])}")


def load_json(text: Any, what: str = "saved state") -> Any:
    """``json.loads(text)``; bad JSON (or JSON nested too deeply to read) raises
    ``InvalidStateError``."""
    try:
        return json.loads(text)
    except (TypeError, ValueError, RecursionError) as error:
        reason = "nested too deeply" if isinstance(error, RecursionError) else str(error)[:200]
        raise InvalidStateError(f"{what} is not valid JSON: {reason}") from None


def game_of_saved(data: dict, what: str = "saved state") -> Game:
    """The ``Game`` of checked saved data (bad params raise ``InvalidStateError``)."""
    try:
        return make_game(data["game"], **data["params"])
    except InvalidParameterError as error:
        raise InvalidStateError(f"{what} has bad params: {error}") from None


def state_from_json(text: str) -> State:
    """Rebuild a state saved with ``State.to_json`` by replaying its history. Anything that is
    not such a state raises ``InvalidStateError`` (a ``ValueError``)."""
    data = load_json(text)
    check_saved(data)
    state = game_of_saved(data).new_initial_state()
    for index, action in enumerate(data["history"]):
        try:
            state.apply_action(action)
        except IllegalActionError as error:
            raise InvalidStateError(f"saved history is illegal at index {index}: {error}") from None
    return state


def register_everywhere() -> None:
    """Register every id with PettingZoo's AEC registry and Gymnasium."""
    import gymnasium
    import pettingzoo

    for env_id, game_entry in GAMES.items():
        pz_id = "fox_envs/" + env_id.replace("_v", "-v")
        if hasattr(pettingzoo, "register"):
            from pettingzoo.env_registry.registration import aec_registry

            if pz_id not in aec_registry:
                pettingzoo.register("aec", pz_id, entry_point=f"fox_envs.{env_id}:env")
        gym_id = "fox_envs/" + game_entry.gym_id
        if gym_id not in gymnasium.registry:
            gymnasium.register(gym_id, entry_point="fox_envs.core.gym_view:FoxGymEnv",
                               vector_entry_point="fox_envs.vectors:make_vector_env",
                               kwargs={"env_id": env_id})
