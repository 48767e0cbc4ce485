"""The Gymnasium view inside Gymnasium's vector envs: masks reach the learner (issue 9)."""
from __future__ import annotations

import functools

import gymnasium
import numpy as np
import pytest

import fox_envs  # noqa: F401  (registers the ids)


def make_view(gym_id: str):
    return gymnasium.make(gym_id, opponent="random")


def run_masked(vector_env, steps: int, seed: int) -> tuple[int, int]:
    """Step a vector env with actions drawn from the masks in ``infos``; count finished episodes."""
    obs, infos = vector_env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    finished = illegal = 0
    for _ in range(steps):
        masks = infos["action_mask"]
        assert masks.shape == (vector_env.num_envs, vector_env.single_action_space.n)
        actions = []
        for mask in masks:
            legal = np.flatnonzero(mask)
            actions.append(int(rng.choice(legal)) if len(legal) else 0)  # empty mask: autoreset step
        obs, rewards, terms, truncs, infos = vector_env.step(np.array(actions))
        assert obs.shape[0] == vector_env.num_envs
        finished += int(np.sum(terms | truncs))
        if "illegal_action" in infos:
            illegal += int(np.sum(infos["illegal_action"] & infos.get("_illegal_action", True)))
    return finished, illegal


@pytest.mark.parametrize("vector_cls", [gymnasium.vector.SyncVectorEnv, gymnasium.vector.AsyncVectorEnv])
def test_vector_envs_carry_masks_and_never_step_illegally(vector_cls):
    env = vector_cls([functools.partial(make_view, "fox_envs/XCeterO-v0") for _ in range(2)])
    try:
        finished, illegal = run_masked(env, steps=60, seed=0)
    finally:
        env.close()
    assert finished >= 2 and illegal == 0


def test_sync_and_async_vector_envs_agree():
    make = [functools.partial(make_view, "fox_envs/Outfox-v0") for _ in range(2)]
    results = []
    for cls in (gymnasium.vector.SyncVectorEnv, gymnasium.vector.AsyncVectorEnv):
        env = cls(make)
        obs, infos = env.reset(seed=5)
        trace = [obs.copy()]
        for _ in range(10):
            actions = np.array([int(np.flatnonzero(m)[0]) if m.any() else 0 for m in infos["action_mask"]])
            obs, *_, infos = env.step(actions)
            trace.append(obs.copy())
        env.close()
        results.append(trace)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_batched_fox_vector_env_is_identical_for_any_worker_count():
    from fox_envs.core.vector import FoxVectorEnv

    traces = []
    for workers in (0, 2):
        env = FoxVectorEnv("fox_envs/XCeterO-v0", 4, workers=workers, opponent="random")
        try:
            obs, infos = env.reset(seed=3)
            trace, finished = [obs.copy()], 0
            for _ in range(25):
                masks = infos["action_mask"]
                assert masks.shape == (4, 9) and masks.any(axis=1).all()  # same-step autoreset: never empty
                np.testing.assert_array_equal(env.action_masks(), masks.astype(bool))
                obs, rewards, terms, truncs, infos = env.step(masks.argmax(axis=1))
                done = terms | truncs
                if done.any():
                    finished += int(done.sum())
                    np.testing.assert_array_equal(infos["_final_obs"], done)
                    assert "illegal_action" not in infos
                trace.append((obs.copy(), rewards.copy(), done.copy()))
            assert finished >= 4
        finally:
            env.close()
        traces.append(trace)
    first, second = traces
    np.testing.assert_array_equal(first[0], second[0])
    for (o1, r1, d1), (o2, r2, d2) in zip(first[1:], second[1:]):
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(d1, d2)


def test_batched_vector_env_rejects_bad_arguments():
    from fox_envs import InvalidParameterError
    from fox_envs.core.vector import FoxVectorEnv

    with pytest.raises(InvalidParameterError, match="num_envs"):
        FoxVectorEnv("fox_envs/XCeterO-v0", 0)
    with pytest.raises(InvalidParameterError, match="workers"):
        FoxVectorEnv("fox_envs/XCeterO-v0", 2, workers=3)
    env = FoxVectorEnv("fox_envs/XCeterO-v0", 2)
    env.reset(seed=0)
    with pytest.raises(InvalidParameterError, match="2 integers"):
        env.step(np.array([0.5, 1.0]))
    env.close()


def test_sb3_subproc_vec_env_gets_masks_through_env_method():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import SubprocVecEnv

    env = SubprocVecEnv([functools.partial(make_view, "fox_envs/Outfox-v0") for _ in range(2)])
    try:
        env.seed(0)
        env.reset()
        for _ in range(20):
            masks = np.stack(env.env_method("action_masks"))  # what sb3-contrib's MaskablePPO calls
            assert masks.shape == (2, 532) and masks.dtype == bool and masks.any(axis=1).all()
            actions = masks.argmax(axis=1)
            obs, rewards, dones, infos = env.step(actions)
            assert obs.shape == (2, 5, 5, 40)
            assert not any(info.get("illegal_action") for info in infos)
    finally:
        env.close()
