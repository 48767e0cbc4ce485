"""The registry of games: env id -> ``GameSpec``; making rules-core games; loading saved states.

``fox_envs.register_game`` (``fox_envs.core.registration``) fills it; everything else in the
package asks this registry about a game, never a table of its own.
"""
from __future__ import annotations

import importlib
import json
from typing import Any

from fox_envs.core.errors import IllegalActionError, InvalidParameterError, InvalidStateError
from fox_envs.core.game import Game, State
from fox_envs.core.params import short_repr
from fox_envs.core.spec import GameSpec

GAMES: dict[str, GameSpec] = {}


def env_ids() -> tuple[str, ...]:
    """Every registered env id, in registration order."""
    return tuple(GAMES)


def __getattr__(name: str) -> Any:
    if name == "ENV_IDS":  # read when asked, so that it includes games registered later
        return env_ids()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_object(path: Any) -> Any:
    """Import ``"package.module:attribute"`` (a place named in a spec or typed by a user) from
    ``sys.path`` (never the current directory as such: set ``PYTHONPATH`` for a project's own
    modules). Anything that is not a string is returned as it is (a spec may give objects)."""
    if not isinstance(path, str):
        return path
    module_name, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def spec(env_id: str) -> GameSpec:
    """The ``GameSpec`` of ``env_id``; an unknown id raises ``InvalidParameterError``."""
    try:
        return GAMES[env_id]
    except (KeyError, TypeError):
        raise InvalidParameterError(
            f"unknown env id {short_repr(env_id)}; known ids: {', '.join(GAMES)}"
        ) from None


entry = spec  # the name shared modules used before specs


def env_module(env_id: str):
    """The thin PettingZoo-style module of a game that has one (``fox_envs.<env_id>``)."""
    name = spec(env_id).env_module
    if not name:
        raise InvalidParameterError(f"{env_id} has no env module; use fox_envs.make({env_id!r})")
    return importlib.import_module(name)


def game_class(env_id: str) -> type[Game]:
    return load_object(spec(env_id).game)


def make_game(env_id: str, /, **params: Any) -> Game:
    """The rules-core ``Game`` for ``env_id`` with keyword ``params``."""
    return game_class(env_id)(**params)


def rules_summary(env_id: str) -> str:
    """The short rules of ``env_id`` (its spec's ``rules_summary``)."""
    text = spec(env_id).rules_summary
    if not text:
        raise InvalidParameterError(f"{env_id} declares no rules summary")
    return text


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
        raise InvalidStateError(f"{what} names unknown game {short_repr(data['game'])}; known: {', '.join(GAMES)}")
    if not isinstance(data["params"], dict):
        raise InvalidStateError(f"{what} 'params' must be an object, got {short_repr(data['params'])}")
    if not isinstance(data["history"], list):
        raise InvalidStateError(f"{what} 'history' must be a list of integers, got {short_repr(data['history'])}")


class DuplicateKeyError(ValueError):
    """A JSON object names the same key twice."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's ``dict``; a key given twice raises ``DuplicateKeyError``."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise DuplicateKeyError(f"duplicate key {short_repr(key)}")
        data[key] = value
    return data


def loads_unique(text: Any) -> Any:
    """``json.loads(text)``, except that an object naming a key twice raises
    ``DuplicateKeyError`` (plain ``json.loads`` keeps the last one silently)."""
    return json.loads(text, object_pairs_hook=_unique_keys)


def load_json(text: Any, what: str = "saved state") -> Any:
    """``loads_unique(text)``; bad JSON (a key given twice in an object, or JSON nested too
    deeply to read) raises ``InvalidStateError``."""
    try:
        return loads_unique(text)
    except DuplicateKeyError as error:
        raise InvalidStateError(f"{what} has a {error} in one JSON object; each key may appear once") from None
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
