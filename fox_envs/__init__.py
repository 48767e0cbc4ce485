"""fox_envs: PettingZoo / Gymnasium environments for five fox tabletop games.

Public names: ``make``, ``make_game``, ``ENV_IDS``, ``state_from_json``, ``CHANCE``, ``TERMINAL``,
``IllegalActionError``, ``InvalidParameterError``, ``InvalidStateError``, ``evaluate``.
"""
from fox_envs.core.errors import IllegalActionError, InvalidParameterError, InvalidStateError
from fox_envs.core.game import CHANCE, TERMINAL, Game, State
from fox_envs.core.registry import ENV_IDS, make, make_game, register_everywhere, state_from_json
from fox_envs.evaluation import evaluate

__version__ = "0.1.0"

__all__ = [
    "CHANCE", "ENV_IDS", "Game", "IllegalActionError", "InvalidParameterError", "InvalidStateError",
    "State", "TERMINAL", "evaluate", "make", "make_game", "state_from_json",
]

register_everywhere()
