"""fox_envs: PettingZoo / Gymnasium environments for five fox tabletop games.

Public names: ``make``, ``make_game``, ``register_game`` (with ``GameSpec``), ``ENV_IDS``,
``state_from_json``, ``CHANCE``, ``TERMINAL``, ``IllegalActionError``,
``InvalidParameterError``, ``InvalidStateError``, ``evaluate``; and each game's PettingZoo-style
module as an attribute (``fox_envs.<env id>.env()``), imported when first used.
"""
from importlib import import_module
from typing import Any

from fox_envs.core import moved, registry
from fox_envs.core.aec import make
from fox_envs.core.errors import IllegalActionError, InvalidParameterError, InvalidStateError
from fox_envs.core.game import CHANCE, TERMINAL, Game, State
from fox_envs.core.registration import register_built_in, register_game
from fox_envs.core.registry import make_game, state_from_json
from fox_envs.core.spec import GameSpec, NamedAgent, OpenSpielFacts
from fox_envs.games import BUILT_IN_SPECS

__version__ = "0.1.0"

__all__ = [
    "CHANCE", "ENV_IDS", "Game", "GameSpec", "IllegalActionError", "InvalidParameterError", "InvalidStateError",
    "NamedAgent", "OpenSpielFacts", "State", "TERMINAL", "evaluate", "make", "make_game", "register_game",
    "state_from_json",
]

register_built_in(BUILT_IN_SPECS)


def _moved_modules() -> dict[str, str]:
    """Every old module path that still imports, and where its module lives now."""
    moves = dict(moved.SHARED_MOVES)
    for game in registry.GAMES.values():
        moves.update(game.moved_modules)
    return moves


moved.install(_moved_modules)

from fox_envs.evaluation import evaluate  # noqa: E402  (after the games are registered)


def __getattr__(name: str) -> Any:
    """``ENV_IDS`` (every registered id, read when asked) and the games' env modules
    (``fox_envs.<env id>``), imported lazily so that ``import fox_envs`` stays fast."""
    if name == "ENV_IDS":
        return registry.env_ids()
    game = registry.GAMES.get(name)
    if game is not None and game.env_module:
        return import_module(game.env_module)
    raise AttributeError(f"module 'fox_envs' has no attribute {name!r}")
