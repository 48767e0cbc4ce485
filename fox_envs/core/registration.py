"""``register_game``: adding a game to the registry and to PettingZoo's and Gymnasium's."""
from __future__ import annotations

import functools

from fox_envs.core import registry
from fox_envs.core.aec import make
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.params import short_repr
from fox_envs.core.spec import GameSpec

_BUILT_IN: list[GameSpec] = []  # the specs ``import fox_envs`` registers (register_built_in)


def register_game(spec: GameSpec, *, replace: bool = False) -> GameSpec:
    """Add the game ``spec`` declares: ``fox_envs.make(spec.env_id)``, its Gymnasium id
    ``fox_envs/<gym_id>`` (with ``gymnasium.make_vec``), PettingZoo's registry, agents,
    evaluation, OpenSpiel and ``play`` then know it. Registering an id again raises
    ``InvalidParameterError`` unless ``replace=True``."""
    if not isinstance(spec, GameSpec):
        raise InvalidParameterError(f"register_game takes a GameSpec, got {short_repr(spec)}")
    if spec.env_id in registry.GAMES and not replace and registry.GAMES[spec.env_id] != spec:
        raise InvalidParameterError(f"env id {spec.env_id!r} is registered already (pass replace=True to replace it)")
    registry.GAMES[spec.env_id] = spec
    _register_ids(spec, replace)
    return spec


def pettingzoo_id(env_id: str) -> str:
    """The id of a game in PettingZoo's registry: ``outwit_v0`` -> ``fox_envs/outwit-v0``."""
    return "fox_envs/" + env_id.replace("_v", "-v")


def pettingzoo_registry() -> dict | None:
    """PettingZoo's AEC registry, or ``None`` where PettingZoo has none (before 1.27): the
    games are then not registered there, and ``fox_envs.make`` is the way to build them."""
    import pettingzoo

    if not hasattr(pettingzoo, "register"):
        return None
    from pettingzoo.env_registry.registration import aec_registry

    return aec_registry


def _register_ids(spec: GameSpec, replace: bool) -> None:
    """Register ``spec``'s PettingZoo AEC id and its Gymnasium id (with the vector entry point)."""
    import gymnasium
    import pettingzoo

    env_id = spec.env_id
    aec_registry = pettingzoo_registry()
    if aec_registry is not None:
        pz_id = pettingzoo_id(env_id)
        if replace and pz_id in aec_registry:
            del aec_registry[pz_id]
        if pz_id not in aec_registry:
            entry_point = f"{spec.env_module}:env" if spec.env_module else functools.partial(make, env_id)
            pettingzoo.register("aec", pz_id, entry_point=entry_point)
    gym_id = "fox_envs/" + spec.gym_id
    if replace and gym_id in gymnasium.registry:
        del gymnasium.registry[gym_id]
    if gym_id not in gymnasium.registry:
        gymnasium.register(gym_id, entry_point="fox_envs.core.gym_view:FoxGymEnv",
                           vector_entry_point="fox_envs.vector.routing:make_vector_env",
                           kwargs={"env_id": env_id})


def register_built_in(specs: tuple[GameSpec, ...]) -> None:
    """Register the package's own games (``import fox_envs`` does, from ``fox_envs.games``) and
    remember them: every fresh process registers these by itself."""
    for game in specs:
        register_game(game)
    _BUILT_IN[:] = specs


def added_specs() -> tuple[GameSpec, ...]:
    """The registered specs that a fresh ``import fox_envs`` does not register (a user's games,
    a replaced built-in id): what a spawned worker process must register again. Each must
    pickle (its game class and functions defined at module level); one that does not raises
    ``InvalidParameterError`` naming it."""
    import pickle

    added = tuple(game for game in registry.GAMES.values() if game not in _BUILT_IN)
    for game in added:
        try:
            pickle.dumps(game)
        except Exception as error:  # noqa: BLE001  (any pickling failure means the same)
            raise InvalidParameterError(
                f"{game.env_id}: worker processes need its GameSpec to pickle (define its game classes and "
                f"functions at module level, not as lambdas or in a function): {type(error).__name__}: {error}"
            ) from None
    return added


def register_specs(specs: tuple[GameSpec, ...]) -> None:
    """Register, in this process, each of ``specs`` that is not registered as it is (a worker
    process receiving the games of its parent, ``added_specs``)."""
    for game in specs:
        if registry.GAMES.get(game.env_id) != game:
            register_game(game, replace=True)
