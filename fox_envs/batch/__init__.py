"""The batched core: thousands of games of one kind stepped per call, compiled with numba.

    import fox_envs.batch
    env = fox_envs.batch.make(env_id, num_envs=4096, seed=0)  # any id in fox_envs.batch.ENV_IDS
    for _ in range(1000):
        rewards, terminated, truncated = env.step(env.random_actions())

``env.observation`` / ``env.action_mask`` / ``env.current_player`` describe every row's game as
the rules core does; ``env.core_state(i)`` / ``env.load(i, state)`` bridge to the rules core,
which stays the reference. Importing this module imports numba; ``import fox_envs`` does not.
The compiled kernels are cached on disk (``fox_envs/batch/_cache.py`` says where and how).
"""
from __future__ import annotations

from typing import Any

from fox_envs.batch._cache import install

install()  # before any kernel is compiled: the package's own disk cache (fox_envs/batch/_cache.py)

from fox_envs.batch.env import BatchEnv, batched_env_ids, threads_all_cores  # noqa: E402  (after install)

__all__ = ["BatchEnv", "ENV_IDS", "batched_env_ids", "make", "threads_all_cores"]


def __getattr__(name: str) -> Any:
    if name == "ENV_IDS":  # the games with batched kernels, read when asked
        return batched_env_ids()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def make(env_id: str, num_envs: int, seed: int | None = None, auto_reset: bool = True, threads: int = 1,
         observation_dtype: str = "float32", action_mask: bool = True, **params: Any) -> BatchEnv:
    """``num_envs`` games of ``env_id`` (the game's params and ``max_moves`` as for
    ``fox_envs.make``); ``threads`` > 1 splits the rows over that many threads;
    ``observation_dtype`` ``"float32"`` (the rules core's), ``"uint8"`` (exact integers, a
    quarter of the bytes) or ``"bits"`` (games whose planes are all 0/1); ``action_mask=False``
    keeps only the legal-action lists (``legal_actions``, ``num_legal``), not the dense mask."""
    return BatchEnv(env_id, num_envs, seed=seed, auto_reset=auto_reset, threads=threads,
                    observation_dtype=observation_dtype, action_mask=action_mask, **params)
