"""The batched core's compact forms, in lock-step with the rules core: uint8 observations (every
plane the exact integer ``Game.compact_observation`` gives), bit-packed observations where every
plane is 0/1, and envs that keep only the legal-action lists (``action_mask=False``)."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import fox_envs
import fox_envs.batch
from batch_lockstep import run_lockstep
from conftest import conformance_cases

CASES = conformance_cases()
ONE_PER_GAME = [next(case for case in CASES if case.values[0] == env_id) for env_id in fox_envs.batch.ENV_IDS]


def dtypes_of(env_id: str, params: dict) -> list[str]:
    kernels = fox_envs.batch.env.kernels_class(env_id)
    game = fox_envs.core.registry.make_game(env_id, **params)
    names = [name for name in kernels.observation_dtypes if name != "float32"]
    if "uint8" in names and game.observation_scale() is None:
        names.append("bits")
    return names


COMPACT_CASES = [pytest.param(env_id, params, dtype, id=f"{case.id}-{dtype}")
                 for case in CASES for env_id, params in [case.values] for dtype in dtypes_of(env_id, params)]


@pytest.mark.parametrize("env_id, params, dtype", COMPACT_CASES)
def test_compact_observations_in_lockstep(env_id, params, dtype):
    env = fox_envs.batch.make(env_id, 6, seed=3, observation_dtype=dtype, **params)
    assert env.observation.dtype == np.uint8
    stats = run_lockstep(env, 300, check_bridge_every=11)
    assert stats["ended"] > 0


@pytest.mark.parametrize("env_id, params", ONE_PER_GAME)
def test_without_the_dense_mask_in_lockstep(env_id, params):
    env = fox_envs.batch.make(env_id, 5, seed=6, action_mask=False, **params)
    stats = run_lockstep(env, 300)
    assert stats["ended"] > 0
    with pytest.raises(AttributeError, match="action_mask=False"):
        env.action_mask


@pytest.mark.parametrize("env_id", fox_envs.batch.ENV_IDS)
def test_without_the_dense_mask_plays_the_same_games(env_id):
    dense = fox_envs.batch.make(env_id, 9, seed=2)
    lists = fox_envs.batch.make(env_id, 9, seed=2, action_mask=False)
    for _ in range(80):
        dense.step_random()
        lists.step_random()
        np.testing.assert_array_equal(dense.last_random_actions, lists.last_random_actions)
        np.testing.assert_array_equal(dense.observation, lists.observation)
    if env_id == "outfoxed_v0":  # the one batched heuristic that reads legality (now from the lists)
        for _ in range(20):
            np.testing.assert_array_equal(dense.heuristic_actions(), lists.heuristic_actions())
            dense.step(dense.heuristic_actions())
            lists.step(lists.heuristic_actions())


@pytest.mark.parametrize("env_id", fox_envs.batch.ENV_IDS)
def test_illegal_actions_are_refused_from_the_lists(env_id):
    env = fox_envs.batch.make(env_id, 4, seed=1, action_mask=False)
    env.step_random()
    actions = env.random_actions()
    before = {name: array.copy() for name, array in env._arrays.items() if name != "mask"}
    listed = set(env.legal_actions[2, :env.num_legal[2]].tolist())
    illegal = next(a for a in range(env.num_actions) if a not in listed)
    for bad in (illegal, -1, env.num_actions):
        for values in (np.where(np.arange(4) == 2, bad, actions), np.where(np.arange(4) == 2, bad, actions).tolist()):
            with pytest.raises(fox_envs.IllegalActionError, match="row 2"):
                env.step(values)
    for name, array in before.items():
        np.testing.assert_array_equal(env._arrays[name], array, err_msg=name)


@pytest.mark.parametrize("env_id", fox_envs.batch.ENV_IDS)
def test_compact_envs_copy_and_continue_identically(env_id):
    dtype = (dtypes_of(env_id, {}) or ["float32"])[0]
    env = fox_envs.batch.make(env_id, 5, seed=7, observation_dtype=dtype, action_mask=False)
    for _ in range(10):
        env.step_random()
    for twin in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        original = copy.deepcopy(env)
        assert twin._arrays["mask"].strides[0] == 0 and twin.observation.dtype == env.observation.dtype
        for _ in range(40):
            twin.step_random()
            original.step_random()
            np.testing.assert_array_equal(twin.observation, original.observation)
            np.testing.assert_array_equal(twin.num_legal, original.num_legal)


def test_bad_observation_dtype_and_action_mask_say_what_is_allowed():
    with pytest.raises(fox_envs.InvalidParameterError, match="observation_dtype.*allowed.*'uint8'"):
        fox_envs.batch.make("outwit_v0", 2, observation_dtype="float16")
    with pytest.raises(fox_envs.InvalidParameterError, match="'bits' needs every plane 0/1"):
        fox_envs.batch.make("outwit_v0", 2, observation_dtype="bits")
    with pytest.raises(fox_envs.InvalidParameterError, match="action_mask"):
        fox_envs.batch.make("outwit_v0", 2, action_mask="no")


def test_bits_unpack_to_the_uint8_observation():
    packed = fox_envs.batch.make("xceter_o_v0", 8, seed=4, observation_dtype="bits")
    plain = fox_envs.batch.make("xceter_o_v0", 8, seed=4, observation_dtype="uint8")
    for _ in range(30):
        packed.step_random()
        plain.step_random()
        cells = int(np.prod(packed.observation_shape))
        assert packed.observation.shape == (8, (cells + 7) // 8)
        unpacked = np.unpackbits(packed.observation, axis=1, count=cells).reshape(plain.observation.shape)
        np.testing.assert_array_equal(unpacked, plain.observation)
