"""Every game in JAX, with Pgx's API: ``env = fox_envs.jax.make("outwit_v0")``.

``env.init(key)`` and ``env.step(state, action, key)`` are pure functions of fixed shapes: they
``jit`` and ``vmap`` (and run on a GPU or TPU where jax has one). The ``State`` has Pgx's fields
(``current_player``, ``observation``, ``legal_action_mask``, ``rewards``, ``terminated``,
``truncated``), bit for bit the rules core's. ``env.to_core_state`` / ``env.from_core_state``
bridge one game to the rules core. ``auto_reset(env.step, env.init)`` restarts finished games.

Needs the optional extra ``jax`` (``pip install 'fox_envs[jax]'``); ``import fox_envs`` never
imports this package. docs/jax.md has the guide.
"""
from __future__ import annotations

try:
    import jax  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError("fox_envs.jax needs jax: pip install 'fox_envs[jax]'") from error

from typing import Any

from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.layout import make_layout
from fox_envs.core.params import integer_in, short_repr
from fox_envs.core.registry import GAMES, load_object, make_game
from fox_envs.jax.actions import random_legal_action
from fox_envs.jax.env import Env, auto_reset, tree_where
from fox_envs.jax.rules import JaxRules
from fox_envs.jax.state import State

MAX_MOVES_LIMIT = 100_000  # the history is a fixed-size array of about this many entries per game

__all__ = ["Env", "JaxRules", "State", "auto_reset", "env_ids", "make", "random_legal_action", "tree_where"]


def env_ids() -> tuple[str, ...]:
    """The registered env ids whose spec names JAX rules."""
    return tuple(env_id for env_id, game in GAMES.items() if game.jax_rules is not None)


def make(env_id: str, *, max_moves: int | None = None, observation_layout: str = "hwc", **params: Any) -> Env:
    """The JAX env of ``env_id`` with the rules core's ``params`` (as for ``fox_envs.make``),
    ``max_moves`` player decisions before truncation (default: the game's) and the observation
    layout (``"hwc"``, ``"chw"`` or ``"flat"``). Bad values raise ``InvalidParameterError``."""
    game_spec = GAMES.get(env_id) if isinstance(env_id, str) else None
    if game_spec is None or game_spec.jax_rules is None:
        raise InvalidParameterError(f"unknown env id {short_repr(env_id)} for fox_envs.jax; known ids: "
                                    f"{', '.join(env_ids())}")
    game = make_game(env_id, **params)
    limit = integer_in(game.max_moves_default if max_moves is None else max_moves, 1, MAX_MOVES_LIMIT)
    if limit is None:
        raise InvalidParameterError(f"{env_id}: bad value {short_repr(max_moves)} for parameter 'max_moves'; "
                                    f"allowed: an integer in 1..{MAX_MOVES_LIMIT}")
    layout = make_layout(observation_layout, game.observation_shape, f"{env_id}: ")
    rules = load_object(game_spec.jax_rules)(game, limit)
    return Env(env_id, rules, game, limit, layout)
