"""Every game's JAX env in lock-step with the rules core (integration: needs the jax extra)."""
from __future__ import annotations

import pytest

from fox_envs.core.registry import GAMES
from jax_lockstep import run_lockstep

pytestmark = pytest.mark.integration
CASES = [pytest.param(env_id, params, id=env_id + "".join(f"-{k}={v}" for k, v in params.items()))
         for env_id, game in GAMES.items() if game.jax_rules is not None for params in game.variants]


@pytest.mark.parametrize("env_id, params", CASES)
def test_random_play_agrees_with_the_rules_core(env_id, params):
    """64 rows, 300 steps of random legal play, every field compared at every step."""
    import fox_envs.jax

    stats = run_lockstep(fox_envs.jax.make(env_id, **params), rows=64, steps=300, seed=1)
    assert stats["steps"] == 64 * 300


@pytest.mark.parametrize("env_id, params", CASES)
def test_short_games_truncate_in_lockstep(env_id, params):
    """With a small max_moves every game is cut off: truncation agrees too."""
    import fox_envs.jax

    stats = run_lockstep(fox_envs.jax.make(env_id, max_moves=9, **params), rows=16, steps=40, seed=2,
                         bridge_every=10)
    assert stats["truncated"] + stats["ended"] > 0


@pytest.mark.parametrize("env_id, params", CASES)
@pytest.mark.parametrize("layout", ["chw", "flat"])
def test_every_observation_layout_agrees(env_id, params, layout):
    import fox_envs.jax

    run_lockstep(fox_envs.jax.make(env_id, observation_layout=layout, **params), rows=8, steps=60, seed=3,
                 bridge_every=30)
