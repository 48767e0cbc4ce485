"""``gymnasium.make_vec`` for the fox_envs ids (their vector entry point): the batched core's
``BatchVectorEnv`` when it can play the opponents inside its step (``"random"`` and
``"heuristic"``), else ``FoxVectorEnv`` (processes stepping Gymnasium views, any opponent)."""
from __future__ import annotations

from typing import Any

from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.params import integer_value, short_repr
from fox_envs.core.registry import GAMES
from fox_envs.vector.opponents import plays_inside_batch

PROCESS_ONLY = ("workers", "context", "spin")  # FoxVectorEnv's own arguments
BACKENDS = ("batch", "processes")
INTEGER_ARGS = ("max_moves", "seat", "workers", "threads")
def _integer(name: str, value: Any) -> int:
    number = integer_value(value)
    if number is None:
        raise InvalidParameterError(f"bad {name} {short_repr(value)}; allowed: an integer")
    return number


def make_vector_env(num_envs: int = 1, *, env_id: str, backend: str | None = None, **kwargs: Any):
    """``backend="batch"`` (the default whenever the opponents are ``"random"`` or ``"heuristic"`` and no
    FoxVectorEnv argument ``workers`` / ``context`` / ``spin`` is given) or ``"processes"``."""
    if env_id not in GAMES:
        raise InvalidParameterError(f"unknown env_id {short_repr(env_id)}; allowed: {', '.join(GAMES)}")
    num_envs = _integer("num_envs", num_envs)  # one rule for integers, whichever backend checks the range
    for name in INTEGER_ARGS:
        if kwargs.get(name) is not None:
            kwargs[name] = _integer(name, kwargs[name])
    if backend not in (None, *BACKENDS):
        raise InvalidParameterError(f"bad backend {short_repr(backend)}; allowed: None, 'batch', 'processes'")
    if backend is None:
        from fox_envs.vector.process import FoxVectorEnv  # noqa: F401  (numba stays unimported on this path)

        opponent = kwargs.get("opponent", "random")
        plain = not any(name in kwargs for name in PROCESS_ONLY) and kwargs.get("render_mode") is None
        backend = "batch" if plain and plays_inside_batch(opponent, env_id) else "processes"
    if backend == "batch" and GAMES[env_id].kernels is None:
        raise InvalidParameterError(
            f"{env_id} has no batched kernels, so backend='batch' is unavailable; use backend='processes' "
            "(or leave backend out): FoxVectorEnv plays every game")
    if backend == "batch":
        from fox_envs.vector.batched import BatchVectorEnv

        return BatchVectorEnv(env_id, num_envs, **kwargs)
    from fox_envs.vector.process import make_vector_env as make_process_vector_env

    return make_process_vector_env(num_envs, env_id=env_id, **kwargs)
