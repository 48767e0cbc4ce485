"""A new game's settings from a request: the game, its params, the seats, seed and max_moves.

Seats are ``human`` or an agent by name: the built-in ``random``, ``heuristic``, ``mcts`` (with
options, ``mcts:simulations=200``) and the game's own agents from its spec. A saved policy is
only a file name inside the directory the server was given (``serve --policies DIR``), loaded
by the package's data-only loader (never ``trust_code``); ``module:callable`` specs, which
import code, are refused.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fox_envs.agents.registry import BUILT_IN_AGENTS
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.params import integer_in, short_repr
from fox_envs.core.registry import GAMES
from fox_envs.core.registry import spec as game_spec

HUMAN = "human"
SETTINGS = ("game", "seats", "seed", "max_moves")  # query keys that are not game params
POLICY_SUFFIXES = (".json", ".npz")  # data-only policy files (a .pkl would run code)


@dataclass(frozen=True)
class Setup:
    """What a new game is: ``seats`` holds ``human`` or checked agent specs."""

    env_id: str
    params: dict[str, Any]
    seats: tuple[str, ...]
    seed: int | None
    max_moves: int | None


def query_value(text: str) -> Any:
    """A query argument's value: JSON when it reads as JSON (``3``, ``true``, ``["a"]``), else text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def setup_from_query(query: Mapping[str, str]) -> Setup:
    """``game``, ``seats`` (comma-separated), ``seed``, ``max_moves`` and the game's params as
    further keys (values read by ``query_value``)."""
    params = {key: query_value(value) for key, value in query.items() if key not in SETTINGS}
    seats = [part.strip() for part in query.get("seats", "").split(",")] if query.get("seats") else []
    return Setup(env_id=str(query.get("game", "")), params=params, seats=tuple(seats),
                 seed=_optional_int(query.get("seed"), "seed", 0),
                 max_moves=_optional_int(query.get("max_moves"), "max_moves", 1))


def setup_from_json(data: Any) -> Setup:
    """The body of ``POST /api/new``: ``{"game", "seats": [...] or "a,b", "params": {}, "seed", "max_moves"}``."""
    if not isinstance(data, dict):
        raise InvalidParameterError("the body must be a JSON object with game, seats, params, seed, max_moves")
    unknown = sorted(set(data) - {"game", "seats", "params", "seed", "max_moves"})
    if unknown:
        raise InvalidParameterError(f"unknown key(s) {', '.join(unknown)}; allowed: game, seats, params, seed, max_moves")
    seats = data.get("seats") or []
    if isinstance(seats, str):
        seats = [part.strip() for part in seats.split(",")]
    if not isinstance(seats, list) or not all(isinstance(seat, str) for seat in seats):
        raise InvalidParameterError(f"seats must be a list of strings, got {short_repr(seats)}")
    params = data.get("params") or {}
    if not isinstance(params, dict):
        raise InvalidParameterError(f"params must be an object, got {short_repr(params)}")
    return Setup(env_id=str(data.get("game", "")), params=params, seats=tuple(seats),
                 seed=_optional_int(data.get("seed"), "seed", 0),
                 max_moves=_optional_int(data.get("max_moves"), "max_moves", 1))


def _optional_int(value: Any, name: str, low: int) -> int | None:
    if value is None or value == "":
        return None
    number = integer_in(value if not isinstance(value, str) else query_value(value), low)
    if number is None:
        raise InvalidParameterError(f"bad {name} {short_repr(value)}; allowed: an integer >= {low}")
    return number


def agent_names(env_id: str) -> list[str]:
    """The agents a seat of ``env_id`` may name: the built-in ones, then the game's own."""
    return list(BUILT_IN_AGENTS) + [name for name in game_spec(env_id).agents if name not in BUILT_IN_AGENTS]


def checked_seat(seat: str, env_id: str, policy_dir: Path | None) -> str:
    """``seat`` as ``human``, an agent spec ``make_agent`` takes without importing code, or the
    path of a policy file inside ``policy_dir``; anything else raises ``InvalidParameterError``."""
    name = seat.partition(":")[0]
    if seat == HUMAN or name in agent_names(env_id):
        return seat
    if policy_dir is not None and seat.lower().endswith(POLICY_SUFFIXES) and Path(seat).name == seat:
        path = policy_dir / seat
        if path.is_file():
            return str(path)
    files = f", or a policy file in {policy_dir}" if policy_dir is not None else ""
    raise InvalidParameterError(
        f"unknown seat {short_repr(seat)} for {env_id}; allowed: {HUMAN}, {', '.join(agent_names(env_id))}"
        f" (options as mcts:simulations=200){files}")


def check_game(env_id: str) -> None:
    """An unknown env id raises ``InvalidParameterError`` naming the known ones."""
    if env_id not in GAMES:
        raise InvalidParameterError(f"unknown game {short_repr(env_id)}; known: {', '.join(GAMES)}")


def policy_files(policy_dir: Path | None) -> list[str]:
    """The policy files a seat may name (file names in ``policy_dir``)."""
    if policy_dir is None or not policy_dir.is_dir():
        return []
    return sorted(p.name for p in policy_dir.iterdir() if p.is_file() and p.name.lower().endswith(POLICY_SUFFIXES))
