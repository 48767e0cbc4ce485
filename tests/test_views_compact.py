"""uint8 observations through the Gymnasium view, the batched vector env and FoxVectorEnv: the
space says uint8 with each plane's bound, and every observation is the float32 one in exact
integers (``Game.compact_observation``)."""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import fox_envs
import fox_envs.batch
from fox_envs.core.registry import GAMES


def gym_id(env_id: str) -> str:
    return next(key for key, spec in gymnasium.registry.items()
                if key.startswith("fox_envs/") and spec.kwargs.get("env_id") == env_id)


@pytest.mark.parametrize("env_id", sorted(GAMES))
def test_gymnasium_view_gives_the_exact_integers(env_id):
    plain = gymnasium.make(gym_id(env_id), observation_layout="chw")
    compact = gymnasium.make(gym_id(env_id), observation_layout="chw", observation_dtype="uint8")
    assert compact.observation_space.dtype == np.uint8
    game = compact.unwrapped.game
    seen_non_binary = False
    for seed in range(3):
        a, info = plain.reset(seed=seed)
        b, _ = compact.reset(seed=seed)
        for _ in range(200):
            assert compact.observation_space.contains(b)
            core = np.moveaxis(a, -3, -1) if a.ndim == 3 else a
            expected = game.compact_observation(core)
            np.testing.assert_array_equal(np.moveaxis(b, -3, -1) if b.ndim == 3 else b, expected)
            seen_non_binary |= bool((b > 1).any())
            legal = np.flatnonzero(info["action_mask"])
            action = int(legal[len(legal) // 2])
            a, _, done, cut, info = plain.step(action)
            b, _, _, _, _ = compact.step(action)
            if done or cut:
                break
    if game.observation_scale() is not None:
        assert seen_non_binary, "no plane above 1 was seen: the test did not reach a count"


@pytest.mark.parametrize("env_id", [e for e in fox_envs.batch.ENV_IDS
                                    if "uint8" in fox_envs.batch.env.kernels_class(e).observation_dtypes])
def test_batched_vector_env_gives_uint8(env_id):
    plain = gymnasium.make_vec(gym_id(env_id), num_envs=4)
    compact = gymnasium.make_vec(gym_id(env_id), num_envs=4, observation_dtype="uint8")
    a, info = plain.reset(seed=1)
    b, _ = compact.reset(seed=1)
    game = compact.unwrapped.batch.game if hasattr(compact.unwrapped, "batch") else compact.batch.game
    for _ in range(60):
        assert b.dtype == np.uint8 and compact.observation_space.contains(b)
        np.testing.assert_array_equal(b, game.compact_observation(a))
        actions = np.array([int(np.flatnonzero(m)[0]) for m in info["action_mask"]])
        a, _, _, _, info = plain.step(actions)
        b, _, _, _, _ = compact.step(actions)


def test_fox_vector_env_gives_uint8():
    envs = gymnasium.make_vec(gym_id("outfoxed_v0"), num_envs=2, workers=1, observation_dtype="uint8")
    try:
        observation, info = envs.reset(seed=0)
        assert observation.dtype == np.uint8 and envs.observation_space.contains(observation)
        for _ in range(20):
            actions = np.array([int(np.flatnonzero(m)[0]) for m in info["action_mask"]])
            observation, _, _, _, info = envs.step(actions)
            assert observation.dtype == np.uint8
    finally:
        envs.close()


def test_bad_observation_dtype_is_refused():
    with pytest.raises(fox_envs.InvalidParameterError, match="observation_dtype.*'uint8'"):
        gymnasium.make(gym_id("outwit_v0"), observation_dtype="float16")
    with pytest.raises(fox_envs.InvalidParameterError, match="observation_dtype.*'uint8'"):
        gymnasium.make_vec(gym_id("outwit_v0"), num_envs=2, observation_dtype="bits")
