"""Saved policy files (format ``fox_envs.policy/1``): writing them, and loading them without
running code the file names.

A policy file holds data: the name of a factory, the game, plain JSON keyword arguments and (in
a ``.npz``) numpy arrays. Loading one calls its factory only when that factory is one of the
package's own trained agents (``data_factories()``: the Q-table, the afterstate network and the
learned value networks, under their current or older names); a file naming any other
``module:callable``, and any ``.pkl`` file (unpickling runs code), is refused with
``InvalidParameterError`` before anything is imported or read, unless the caller opts in with
``trust_code=True`` (``--trust-code`` on the command line). A MaskablePPO policy file is one of
those: the Stable-Baselines3 model it names is unpickled when loaded.

``trusted(spec)`` marks an agent spec string as trusted, so that the opt-in travels with the
spec (to ``evaluate``'s worker processes, or ``play``'s seats).
"""
from __future__ import annotations

import json
import os
import pickle
from pathlib import Path
from typing import Any, Callable, Mapping

from fox_envs.agents.base import reset_agent
from fox_envs.core import moved
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.params import short_repr
from fox_envs.core.registry import GAMES, DuplicateKeyError, load_object, loads_unique

POLICY_FORMAT = "fox_envs.policy/1"
POLICY_SUFFIXES = (".json", ".npz", ".pkl")
TRUST_HINT = "load it only from a source you trust, with trust_code=True (command line: --trust-code)"

# the package's trained agents whose files hold only data (weights, tables, plain options)
DATA_FACTORIES = frozenset({
    "fox_envs.games.xceter_o.trained_q:load_agent",
    "fox_envs.games.bye_bye_mr_fox.trained_td:load_agent",
    "fox_envs.agents.learned:make_learned",
    "fox_envs.agents.alphazero:make_alphazero",
})
# the package's trained agents whose files make the loader run code: why
CODE_FACTORIES = {
    "fox_envs.agents.trained.sb3_policy:load_agent":
        "it loads a Stable-Baselines3 model file, which is unpickled (pickle runs code)",
}
RESERVED_KWARGS = ("env_id", "seed", "arrays")  # set by the loader, never by a file


class TrustedSpec(str):
    """An agent spec string whose files may run code (as ``trust_code=True``). It stays
    trusted through ``str()``, ``strip()`` and pickling (worker processes)."""

    __slots__ = ()

    def __str__(self) -> str:
        return self

    def strip(self, chars: str | None = None) -> "TrustedSpec":
        return TrustedSpec(str.strip(self, chars))

    def __reduce__(self) -> tuple:
        return TrustedSpec, (str.__str__(self),)


def trusted(spec: Any) -> Any:
    """``spec`` marked as trusted (a ``TrustedSpec``) when it is a string; other specs (agent
    objects) are returned as they are."""
    return TrustedSpec(spec) if isinstance(spec, str) else spec


def is_trusted(spec: Any) -> bool:
    """Whether ``spec`` was marked with ``trusted``."""
    return isinstance(spec, TrustedSpec)


def _moved_modules() -> dict[str, str]:
    """Old module path -> new one (shared modules and every registered game's)."""
    moves = dict(moved.SHARED_MOVES)
    for game in GAMES.values():
        moves.update(game.moved_modules)
    return moves


def canonical_factory(name: str) -> str:
    """The current name of a factory a file names: the examples' old factories
    (``LEGACY_FACTORIES``) and old module paths map to the package's current ones."""
    from fox_envs.agents.trained import LEGACY_FACTORIES

    name = LEGACY_FACTORIES.get(name, name)
    module, sep, attribute = name.partition(":")
    return _moved_modules().get(module, module) + sep + attribute


def data_factories() -> frozenset[str]:
    """The factories a policy file may name without ``trust_code``: ``DATA_FACTORIES`` and the
    ``learned`` agent factory of every game that ships value-network weights."""
    learned = {game.agents["learned"].factory for game in GAMES.values()
               if game.learned_weights and "learned" in game.agents}
    return DATA_FACTORIES | {name for name in learned if isinstance(name, str)}


# ----- writing ---------------------------------------------------------------------------------
def save_policy(path: str | os.PathLike, factory: str, env_id: str | None = None,
                arrays: Mapping[str, Any] | None = None, **kwargs: Any) -> Path:
    """Write a saved policy: ``.json`` (factory + JSON kwargs), ``.npz`` (factory + kwargs +
    numpy ``arrays``) or ``.pkl`` (the same dict, pickled). Returns the path."""
    path = Path(path)
    suffix = path.suffix.lower()
    if not isinstance(factory, str) or ":" not in factory:
        raise InvalidParameterError(f"factory must be 'module:callable', got {short_repr(factory)}")
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
        raise InvalidParameterError(f"policy file must end in {', '.join(POLICY_SUFFIXES)}, got {short_repr(path.name)}")
    return path


# ----- loading ---------------------------------------------------------------------------------
def load_policy(path: str | os.PathLike, env_id: str, seed: int | None = None, trust_code: bool = False,
                **kwargs: Any):
    """The agent stored in a saved policy file (format in ``fox_envs.agents.registry``). Without
    ``trust_code`` only data is read: a ``.pkl`` file, or a file naming a factory that is not
    one of ``data_factories()``, raises ``InvalidParameterError`` and nothing is imported (a path
    marked with ``trusted`` counts as ``trust_code=True``)."""
    trust_code = bool(trust_code) or is_trusted(path)
    path = Path(path)
    where = f"policy file {short_repr(str(path), 200)}"
    if not path.exists():
        raise InvalidParameterError(f"{where} does not exist")
    suffix = path.suffix.lower()
    if suffix not in POLICY_SUFFIXES:
        raise InvalidParameterError(f"policy file must end in {', '.join(POLICY_SUFFIXES)}, got {short_repr(path.name)}")
    if suffix == ".pkl" and not trust_code:
        raise InvalidParameterError(f"{where} is a pickle, and unpickling runs code: {TRUST_HINT}")
    record, arrays = _read_record(path, where)
    if not isinstance(record, dict):  # a pickled agent object (trusted)
        reset_agent(record, seed)
        return record
    record = _checked_record(record, where, env_id, plain=suffix != ".pkl")
    factory = _policy_factory(where, record["factory"], trust_code)
    options = {**record["kwargs"], **kwargs}
    if arrays is not None:
        options["arrays"] = arrays
    return call_factory(f"{where}: factory {short_repr(record['factory'])}", factory, env_id, seed, options)


def _read_record(path: Path, where: str) -> tuple[Any, dict | None]:
    """The file's record (a dict, or an unpickled agent) and its arrays (``.npz`` only)."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".npz":
            import numpy as np

            with np.load(path, allow_pickle=False) as data:
                meta = {k: str(data[k]) for k in ("__format__", "__factory__", "__env_id__", "__kwargs__") if k in data}
                arrays = {k: data[k] for k in data.files if not (k.startswith("__") and k.endswith("__"))}
            return {"format": meta.get("__format__"), "factory": meta.get("__factory__"),
                    "env_id": meta.get("__env_id__") or None,
                    "kwargs": loads_unique(meta.get("__kwargs__", "{}"))}, arrays
        if suffix == ".json":
            return loads_unique(path.read_bytes()), None
        with open(path, "rb") as handle:  # .pkl, trusted
            record = pickle.load(handle)
        if not isinstance(record, dict) and not hasattr(record, "act"):
            raise InvalidParameterError(f"{where} holds {short_repr(record)}: neither an agent nor a policy record")
        return record, None
    except DuplicateKeyError as error:
        raise InvalidParameterError(f"{where} has a {error} in one JSON object; each key may appear once") from None
    except RecursionError:
        raise InvalidParameterError(f"{where}: cannot read it: JSON nested too deeply") from None
    except (OSError, ValueError, pickle.UnpicklingError, EOFError) as error:
        if isinstance(error, InvalidParameterError):
            raise
        raise InvalidParameterError(f"{where}: cannot read it: {one_line(error)}") from None


def _checked_record(record: dict, where: str, env_id: str, plain: bool = True) -> dict:
    """The record with its keys checked: format, factory (a string), env_id (matching), kwargs
    (an object without ``RESERVED_KWARGS``; plain JSON data unless ``plain`` is False, for a
    trusted pickle)."""
    if record.get("format") != POLICY_FORMAT or not isinstance(record.get("factory"), str):
        raise InvalidParameterError(f"{where} is not a {POLICY_FORMAT} file (needs format and factory 'module:callable')")
    saved_env = record.get("env_id")
    if saved_env is not None and not isinstance(saved_env, str):
        raise InvalidParameterError(f"{where}: env_id must be a string or null, got {short_repr(saved_env)}")
    if saved_env and saved_env != env_id:
        raise InvalidParameterError(f"{where} was saved for {saved_env[:80]}, not {short_repr(env_id)}")
    kwargs = record.get("kwargs") or {}
    if not isinstance(kwargs, dict):
        raise InvalidParameterError(f"{where}: kwargs must be an object, got {short_repr(kwargs)}")
    reserved = [key for key in RESERVED_KWARGS if key in kwargs]
    if reserved:
        raise InvalidParameterError(f"{where}: kwargs may not set {', '.join(reserved)} (the loader sets them)")
    problem = plain_data_problem(kwargs) if plain else None
    if problem:
        raise InvalidParameterError(f"{where}: kwargs must be plain data (JSON values): {problem}")
    return {**record, "kwargs": kwargs}


def plain_data_problem(value: Any, depth: int = 0) -> str | None:
    """What makes ``value`` other than plain JSON data (``None``, bools, numbers, strings, and
    lists and string-keyed dicts of them, at most 100 levels deep), or None when it is."""
    if value is None or type(value) in (bool, int, float, str):
        return None
    if depth >= 100:
        return "nested too deeply"
    if type(value) in (list, tuple):
        return next(filter(None, (plain_data_problem(item, depth + 1) for item in value)), None)
    if type(value) is dict:
        for key, item in value.items():
            if type(key) is not str:
                return f"key {short_repr(key)} is not a string"
            problem = plain_data_problem(item, depth + 1)
            if problem:
                return problem
        return None
    return f"{short_repr(value)} (a {type(value).__name__}) is not"


def _policy_factory(where: str, name: str, trust_code: bool) -> Callable[..., Any]:
    """The factory a saved policy names. Without ``trust_code`` only ``data_factories()`` are
    imported; any other name is refused before it is imported."""
    current = canonical_factory(name)
    if not trust_code and current not in data_factories():
        reason = CODE_FACTORIES.get(current)
        if reason:
            raise InvalidParameterError(f"{where} names {short_repr(name)}: {reason}; {TRUST_HINT}")
        raise InvalidParameterError(
            f"{where} names factory {short_repr(name)}, which is not one of the package's trained agents, so "
            f"loading it would run code the file chose: {TRUST_HINT}{_examples_advice(name)}")
    try:
        return load_object(current)
    except (ImportError, AttributeError, ValueError) as error:
        raise InvalidParameterError(
            f"{where}: cannot load factory {short_repr(current)}: {one_line(error)}{_examples_advice(current)}") from None


def _examples_advice(name: str) -> str:
    """For a factory in ``examples/`` (not installed with the package): say to retrain."""
    if not name.startswith("examples."):
        return ""
    return ("; it names an examples/ script, not the fox_envs package: retrain and save it with the current "
            "example, whose files name a fox_envs class")


# ----- calling factories -----------------------------------------------------------------------
def one_line(error: BaseException, limit: int = 300) -> str:
    """The first line of ``str(error)`` (cut to ``limit`` characters), or the error's type name."""
    try:
        text = str(error).strip()
    except Exception:  # noqa: BLE001  (a broken __str__)
        text = ""
    line = text.splitlines()[0] if text else type(error).__name__
    return line if len(line) <= limit else line[: limit - 3] + "..."


def call_factory(what: str, factory: Any, env_id: str, seed: int | None, options: Mapping[str, Any]):
    """``factory(env_id=..., seed=..., **options)``, which must return an agent (an object with
    ``act``). A factory that fails (other than with ``InvalidParameterError`` or, for a missing
    optional extra, ``ImportError``) or returns something else raises ``InvalidParameterError``
    naming ``what``."""
    if not callable(factory):
        raise InvalidParameterError(f"{what} is {short_repr(factory)}, which is not callable")
    try:
        agent = factory(env_id=env_id, seed=seed, **options)
    except (InvalidParameterError, ImportError):
        raise
    except Exception as error:  # noqa: BLE001  (someone else's code: say which agent failed, and how)
        raise InvalidParameterError(f"{what} failed: {type(error).__name__}: {one_line(error)}") from error
    if not hasattr(agent, "act"):
        raise InvalidParameterError(
            f"{what} returned {short_repr(agent)}, not an agent (an object with act(state, player))")
    return agent
