"""Which opponents the batched core plays inside its step, for a game."""
from __future__ import annotations

from typing import Any

from fox_envs.core.registry import spec

BATCH_OPPONENTS = ("random", "heuristic")  # the opponents the batched core plays inside its step


def batch_opponent_names(opponent: Any) -> list[str] | None:
    """``opponent`` (a spec or a list of specs) as a list of names the batched core plays, or
    None when any spec is something else."""
    specs = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent]
    return specs if all(isinstance(s, str) and s in BATCH_OPPONENTS for s in specs) else None


def plays_inside_batch(opponent: Any, env_id: str) -> bool:
    """Whether the batched core can play ``opponent`` (a name or a list of names) in its step
    (the game must have batched kernels; for ``"heuristic"`` they must have the game's
    heuristic too, and only then is numba imported)."""
    names = batch_opponent_names(opponent)
    if names is None or spec(env_id).kernels is None:
        return False
    if "heuristic" not in names:
        return True
    from fox_envs.batch.env import has_batched_heuristic

    return has_batched_heuristic(env_id)
