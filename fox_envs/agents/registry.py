"""Agents by name: ``make_agent("heuristic", env_id, seed=1)``.

A spec is one of:

* a built-in name: ``random``, ``heuristic`` (the game's heuristic), ``mcts`` (with the game's
  tuned search defaults), or an agent a game's spec declares (``agents``: an exact solver's
  ``perfect``, a search with an opponent model, a ``learned`` value network; ``agent_names()``
  lists them); options after a colon as ``key=value`` pairs separated by commas:
  ``mcts:simulations=400,c=1.0,rollout=heuristic`` (values are read as int, float, true/false,
  else text);
* ``module:callable``: a factory called as ``factory(env_id=..., seed=..., **kwargs)``;
* the path of a saved policy file (``.json``, ``.npz`` or ``.pkl``, format below);
* an agent object (anything with ``act(state, player)``), returned as it is.

Saved policy files (format ``fox_envs.policy/1``, written by ``save_policy``):

* ``.json``: ``{"format": "fox_envs.policy/1", "factory": "module:callable", "env_id": ...,
  "kwargs": {...}}``; loading calls ``factory(env_id=..., seed=..., **kwargs)``.
* ``.npz``: numpy arrays plus the string entries ``__format__``, ``__factory__``,
  ``__env_id__`` (and ``__kwargs__``, a JSON text); loading calls ``factory(env_id=..., seed=...,
  arrays={name: array, ...}, **kwargs)`` (e.g. network weights).
* ``.pkl``: a pickled agent object (reset with the seed), or a pickled dict with the ``.json``
  keys. Pickle runs code from the file: load only files you trust.

``env_id`` in a saved file, when set, must match the game the policy is used for. The policies
the training examples save name factories in ``fox_envs.agents.trained``, so they load from any
working directory; files that name the examples' old factories (``examples.<script>:load_agent``)
load through the same classes.
"""
from __future__ import annotations

import json
import os
import pickle
from pathlib import Path
from typing import Any, Mapping

from fox_envs.agents.base import RandomAgent, heuristic_agent, reset_agent
from fox_envs.agents.learned import check_learned_game
from fox_envs.agents.mcts import make_mcts
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.params import short_repr
from fox_envs.core.registry import GAMES, load_object
from fox_envs.core.registry import spec as game_spec

BUILT_IN_AGENTS = ("random", "heuristic", "mcts")  # every game has these
POLICY_FORMAT = "fox_envs.policy/1"
POLICY_SUFFIXES = (".json", ".npz", ".pkl")


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


def make_agent(spec: Any, env_id: str, seed: int | None = None, **kwargs: Any):
    """An agent from a spec (see the module doc). ``kwargs`` go to the agent's constructor."""
    if not isinstance(spec, str):
        if hasattr(spec, "act"):
            return spec
        raise InvalidParameterError(f"opponent/agent must be a name, 'module:callable' or an agent with act(); got {short_repr(spec)}")
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
            raise InvalidParameterError(f"bad options for agent {name!r}: {error}") from None
    if spec.lower().endswith(POLICY_SUFFIXES) and (os.path.exists(spec) or os.sep in spec or "/" in spec):
        return load_policy(spec, env_id, seed=seed, **kwargs)
    if ":" in spec:
        try:
            factory = load_object(spec)
        except (ImportError, AttributeError, ValueError) as error:
            raise InvalidParameterError(f"cannot load agent {short_repr(spec)}: {error}") from None
        return factory(env_id=env_id, seed=seed, **kwargs)
    raise InvalidParameterError(
        f"unknown agent {short_repr(spec)}; built-in agents: {', '.join(agent_names())} (options as mcts:simulations=200), "
        "'module:callable', or a saved policy file (.json/.npz/.pkl)"
    )


# ----- saved policies -----------------------------------------------------------------------------
def save_policy(path: str | os.PathLike, factory: str, env_id: str | None = None,
                arrays: Mapping[str, Any] | None = None, **kwargs: Any) -> Path:
    """Write a saved policy: ``.json`` (factory + JSON kwargs), ``.npz`` (factory + kwargs +
    numpy ``arrays``) or ``.pkl`` (the same dict, pickled). Returns the path."""
    path = Path(path)
    suffix = path.suffix.lower()
    if ":" not in factory:
        raise InvalidParameterError(f"factory must be 'module:callable', got {factory!r}")
    if suffix == ".npz":
        import numpy as np

        data = {k: np.asarray(v) for k, v in (arrays or {}).items()}
        np.savez(path, __format__=np.array(POLICY_FORMAT), __factory__=np.array(factory),
                 __env_id__=np.array(env_id or ""), __kwargs__=np.array(json.dumps(kwargs)), **data)
        return path
    if arrays:
        raise InvalidParameterError("arrays can only be saved in a .npz policy file")
    record = {"format": POLICY_FORMAT, "factory": factory, "env_id": env_id, "kwargs": kwargs}
    if suffix == ".json":
        path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    elif suffix == ".pkl":
        with open(path, "wb") as handle:
            pickle.dump(record, handle)
    else:
        raise InvalidParameterError(f"policy file must end in {', '.join(POLICY_SUFFIXES)}, got {path.name!r}")
    return path


def load_policy(path: str | os.PathLike, env_id: str, seed: int | None = None, **kwargs: Any):
    """The agent stored in a saved policy file (format in the module doc)."""
    path = Path(path)
    if not path.exists():
        raise InvalidParameterError(f"policy file {str(path)!r} does not exist")
    suffix = path.suffix.lower()
    arrays = None
    try:
        if suffix == ".npz":
            import numpy as np

            with np.load(path, allow_pickle=False) as data:
                meta = {k: str(data[k]) for k in ("__format__", "__factory__", "__env_id__", "__kwargs__") if k in data}
                arrays = {k: data[k] for k in data.files if not (k.startswith("__") and k.endswith("__"))}
            record = {"format": meta.get("__format__"), "factory": meta.get("__factory__"),
                      "env_id": meta.get("__env_id__") or None, "kwargs": json.loads(meta.get("__kwargs__", "{}"))}
        elif suffix == ".json":
            record = json.loads(path.read_text(encoding="utf-8"))
        elif suffix == ".pkl":
            with open(path, "rb") as handle:
                record = pickle.load(handle)
            if hasattr(record, "act"):
                reset_agent(record, seed)
                return record
        else:
            raise InvalidParameterError(f"policy file must end in {', '.join(POLICY_SUFFIXES)}, got {path.name!r}")
    except (OSError, ValueError, pickle.UnpicklingError, EOFError) as error:
        raise InvalidParameterError(f"cannot read policy file {str(path)!r}: {error}") from None
    if not isinstance(record, dict) or record.get("format") != POLICY_FORMAT or not isinstance(record.get("factory"), str):
        raise InvalidParameterError(
            f"policy file {str(path)!r} is not a {POLICY_FORMAT} file (needs format and factory 'module:callable')"
        )
    saved_env = record.get("env_id")
    if saved_env and saved_env != env_id:
        raise InvalidParameterError(f"policy file {str(path)!r} was saved for {saved_env}, not {env_id}")
    factory = _policy_factory(path, record["factory"])
    options = {**(record.get("kwargs") or {}), **kwargs}
    if arrays is not None:
        options["arrays"] = arrays
    return factory(env_id=env_id, seed=seed, **options)


def _policy_factory(path: Path, name: str):
    """The factory a saved policy names; the factories of files written by older versions of the
    training examples (``examples.<script>:load_agent``) map to their package classes."""
    from fox_envs.agents.trained import LEGACY_FACTORIES

    name = LEGACY_FACTORIES.get(name, name)
    try:
        return load_object(name)
    except (ImportError, AttributeError, ValueError) as error:
        advice = ""
        if name.startswith("examples."):
            advice = ("; it names an examples/ script, not the fox_envs package: retrain and save it with the "
                      "current example, whose files name a fox_envs class")
        raise InvalidParameterError(f"policy file {str(path)!r}: cannot load factory {name!r}: {error}{advice}") from None
