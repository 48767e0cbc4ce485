"""Agents by name: ``make_agent("heuristic", "outwit_v0", seed=1)``."""
from __future__ import annotations

from typing import Any

from fox_envs.agents.base import RandomAgent
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.registry import entry, load_object

AGENT_NAMES = ("random", "heuristic")


def make_agent(spec: Any, env_id: str, seed: int | None = None, **kwargs: Any):
    """An agent from a name (``random``, ``heuristic``), a ``module:callable`` factory path
    (called with ``env_id=`` and ``seed=``), or an agent object (returned as it is)."""
    if not isinstance(spec, str):
        if hasattr(spec, "act"):
            return spec
        raise InvalidParameterError(f"opponent/agent must be a name, 'module:callable' or an agent with act(); got {spec!r}")
    if spec == "random":
        return RandomAgent(seed)
    if spec == "heuristic":
        return load_object(entry(env_id).heuristic)(seed=seed, **kwargs)
    if ":" in spec:
        try:
            factory = load_object(spec)
        except (ImportError, AttributeError) as error:
            raise InvalidParameterError(f"cannot load agent {spec!r}: {error}") from None
        return factory(env_id=env_id, seed=seed, **kwargs)
    raise InvalidParameterError(
        f"unknown agent {spec!r}; built-in agents: {', '.join(AGENT_NAMES)}, or 'module:callable'"
    )
