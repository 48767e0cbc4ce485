"""Agents by name: ``make_agent("heuristic", env_id, seed=1)``.

A spec is one of:

* a built-in name: ``random``, ``heuristic`` (the game's heuristic), ``mcts`` (with the game's
  tuned search defaults), or an agent a game's spec declares (``agents``: an exact solver's
  ``perfect``, a search with an opponent model, a ``learned`` value network; ``agent_names()``
  lists them); options after a colon as ``key=value`` pairs separated by commas:
  ``mcts:simulations=400,c=1.0,rollout=heuristic`` (values are read as int, float, true/false,
  else text);
* ``module:callable``: a factory called as ``factory(env_id=..., seed=..., **kwargs)`` (it must
  return an agent; one that fails or returns something else raises ``InvalidParameterError``);
* the path of a saved policy file (``.json``, ``.npz`` or ``.pkl``, format below);
* an agent object (anything with ``act(state, player)``), returned as it is.

Saved policy files (format ``fox_envs.policy/1``, written by ``save_policy``; loading them is in
``fox_envs.agents.policy_files``):

* ``.json``: ``{"format": "fox_envs.policy/1", "factory": "module:callable", "env_id": ...,
  "kwargs": {...}}``; loading calls ``factory(env_id=..., seed=..., **kwargs)``.
* ``.npz``: numpy arrays plus the string entries ``__format__``, ``__factory__``,
  ``__env_id__`` (and ``__kwargs__``, a JSON text); loading calls ``factory(env_id=..., seed=...,
  arrays={name: array, ...}, **kwargs)`` (e.g. network weights).
* ``.pkl``: a pickled agent object (reset with the seed), or a pickled dict with the ``.json``
  keys.

What a file may make the loader run: by default only the package's own trained agents
(``policy_files.data_factories()``) are called, with the file's plain JSON kwargs and arrays. A
``.pkl`` file (unpickling runs code) or a file naming any other factory is refused
(``InvalidParameterError``, nothing imported) unless ``trust_code=True`` is given (or the spec
is marked with ``trusted(spec)``; ``--trust-code`` on the command line). A ``module:callable``
spec string is the caller's own code and needs no opt-in.

``env_id`` in a saved file, when set, must match the game the policy is used for. The policies
the training examples save name factories of the package, so they load from any working
directory; files that name the examples' old factories (``examples.<script>:load_agent``) or
old module paths load through the same classes.
"""
from __future__ import annotations

import os
from typing import Any

from fox_envs.agents.base import RandomAgent, heuristic_agent
from fox_envs.agents.learned import check_learned_game
from fox_envs.agents.mcts import make_mcts
from fox_envs.agents.policy_files import (  # noqa: F401  (save_policy, load_policy, POLICY_FORMAT: public here too)
    POLICY_FORMAT, POLICY_SUFFIXES, TrustedSpec, call_factory, is_trusted, load_policy, one_line, save_policy, trusted,
)
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.params import short_repr
from fox_envs.core.registry import GAMES, load_object
from fox_envs.core.registry import spec as game_spec

BUILT_IN_AGENTS = ("random", "heuristic", "mcts")  # every game has these


def game_agent_names() -> tuple[str, ...]:
    """The names of the games' own agents (their specs' ``agents``), each once."""
    return tuple(dict.fromkeys(name for game in GAMES.values() for name in game.agents))


def agent_names() -> tuple[str, ...]:
    """Every agent name ``make_agent`` knows: the built-in ones, then the games' own."""
    return BUILT_IN_AGENTS + tuple(n for n in game_agent_names() if n not in BUILT_IN_AGENTS)


def games_with_agent(name: str) -> tuple[str, ...]:
    """The env ids whose spec declares the agent ``name``."""
    return tuple(env_id for env_id, game in GAMES.items() if name in game.agents)


def __getattr__(name: str) -> Any:
    if name == "AGENT_NAMES":  # read when asked, so that it includes games registered later
        return agent_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _game_agent(name: str, env_id: str, seed: int | None, options: dict[str, Any]):
    """The game's own agent ``name`` (declared in its spec's ``agents``)."""
    named = game_spec(env_id).agents.get(name)
    if named is None:
        if name == "learned":
            check_learned_game(env_id)
        raise InvalidParameterError(
            f"agent {name!r} exists only for {', '.join(f'{g} ({GAMES[g].title})' for g in games_with_agent(name))}, "
            f"not {env_id}; "
            f"every game has {', '.join(BUILT_IN_AGENTS)}")
    return load_object(named.factory)(env_id=env_id, seed=seed, **options)


def parse_options(text: str) -> dict[str, Any]:
    """``"simulations=200,c=1.4"`` -> ``{"simulations": 200, "c": 1.4}``."""
    options: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise InvalidParameterError(f"bad agent option {part!r}: write key=value")
        options[key.strip()] = _parse_value(value.strip())
    return options


def _parse_value(value: str) -> Any:
    lowered = value.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def make_agent(spec: Any, env_id: str, seed: int | None = None, trust_code: bool = False, **kwargs: Any):
    """An agent from a spec (see the module doc). ``kwargs`` go to the agent's constructor.
    ``trust_code`` (or a spec marked with ``trusted``) lets a policy file run code: a ``.pkl``,
    or a factory other than the package's trained agents."""
    if not isinstance(spec, str):
        if hasattr(spec, "act"):
            return spec
        raise InvalidParameterError(f"opponent/agent must be a name, 'module:callable' or an agent with act(); got {short_repr(spec)}")
    trust_code = bool(trust_code) or is_trusted(spec)
    spec = str.__str__(spec)
    name, _, option_text = spec.partition(":")
    if name in BUILT_IN_AGENTS or name in game_agent_names():
        options = {**parse_options(option_text), **kwargs}
        try:
            if name == "random":
                if options:
                    raise TypeError(f"unexpected options {sorted(options)}")
                return RandomAgent(seed)
            if name == "heuristic":
                return heuristic_agent(env_id, seed=seed, **options)
            if name == "mcts":
                game_spec(env_id)
                return make_mcts(env_id=env_id, seed=seed, **options)
            return _game_agent(name, env_id, seed, options)
        except TypeError as error:
            raise InvalidParameterError(f"bad options for agent {name!r}: {one_line(error)}") from None
    if spec.lower().endswith(POLICY_SUFFIXES) and (os.path.exists(spec) or os.sep in spec or "/" in spec):
        return load_policy(spec, env_id, seed=seed, trust_code=trust_code, **kwargs)
    if ":" in spec:
        try:
            factory = load_object(spec)
        except Exception as error:  # noqa: BLE001  (importing the caller's module may fail in any way)
            raise InvalidParameterError(f"cannot load agent {short_repr(spec)}: {one_line(error)}") from None
        return call_factory(f"agent factory {short_repr(spec)}", factory, env_id, seed, kwargs)
    raise InvalidParameterError(
        f"unknown agent {short_repr(spec)}; built-in agents: {', '.join(agent_names())} (options as mcts:simulations=200), "
        "'module:callable', or a saved policy file (.json/.npz/.pkl)"
    )
