"""The batched core's one-call paths: ``step_random`` and ``step_heuristic`` play exactly what
``step(random_actions())`` and ``step(heuristic_actions())`` play, with or without threads,
after copies, and with actions of any integer dtype or layout."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import fox_envs
import fox_envs.batch
from conftest import conformance_cases

CASES = conformance_cases()


def snapshot(env) -> dict:
    return {name: array.copy() for name, array in env._arrays.items() if name != "picked"}


def assert_same(a, b) -> None:
    left, right = snapshot(a), snapshot(b)
    for name in left:
        np.testing.assert_array_equal(left[name], right[name], err_msg=name)


@pytest.mark.parametrize("auto_reset", [True, False])
@pytest.mark.parametrize("env_id, params", CASES)
def test_step_random_plays_what_random_actions_would(env_id, params, auto_reset):
    fused = fox_envs.batch.make(env_id, 7, seed=5, auto_reset=auto_reset, **params)
    plain = fox_envs.batch.make(env_id, 7, seed=5, auto_reset=auto_reset, **params)
    for _ in range(120):
        expected = plain.random_actions()
        rewards, term, trunc = plain.step(expected)
        got = fused.step_random()
        np.testing.assert_array_equal(fused.last_random_actions, expected)
        for mine, theirs in zip(got, (rewards, term, trunc)):
            np.testing.assert_array_equal(mine, theirs)
    assert_same(fused, plain)


@pytest.mark.parametrize("env_id", fox_envs.batch.ENV_IDS)
def test_step_random_with_threads_and_after_copies(env_id, monkeypatch):
    monkeypatch.setattr(fox_envs.batch.env.kernels_class(env_id), "min_rows_per_thread", 4)  # threads for few rows
    threaded = fox_envs.batch.make(env_id, 21, seed=8, threads=3)
    single = fox_envs.batch.make(env_id, 21, seed=8)
    assert not threaded._one_range
    for _ in range(30):
        threaded.step_random()
        single.step(single.random_actions())
    assert_same(threaded, single)
    for twin in (pickle.loads(pickle.dumps(threaded)), copy.deepcopy(threaded)):
        original = copy.deepcopy(threaded)
        for _ in range(30):
            twin.step_random()
            original.step_random()
        assert_same(twin, original)
        np.testing.assert_array_equal(twin.last_random_actions, original.last_random_actions)


@pytest.mark.parametrize("env_id", [e for e in fox_envs.batch.ENV_IDS])
def test_step_heuristic_plays_what_heuristic_actions_would(env_id):
    fused = fox_envs.batch.make(env_id, 5, seed=2)
    plain = fox_envs.batch.make(env_id, 5, seed=2)
    for _ in range(60):
        expected = plain.heuristic_actions()
        plain.step(expected)
        fused.step_heuristic()
        np.testing.assert_array_equal(fused.last_random_actions, expected)
    assert_same(fused, plain)


@pytest.mark.parametrize("env_id", fox_envs.batch.ENV_IDS)
def test_actions_of_any_integer_dtype_and_layout_step_alike(env_id):
    envs = [fox_envs.batch.make(env_id, 6, seed=1) for _ in range(4)]
    rng = np.random.default_rng(0)
    for _ in range(50):
        actions = envs[0].random_actions(rng)  # leaves the pick streams as they are
        envs[0].step(actions)  # int64, contiguous: the one-call path
        envs[1].step(actions.astype(np.int32))
        envs[2].step(np.repeat(actions, 2)[::2])  # a strided view
        envs[3].step(actions.tolist())
    for other in envs[1:]:
        assert_same(envs[0], other)


def test_an_illegal_action_stops_every_row_on_the_one_call_path():
    env = fox_envs.batch.make("xceter_o_v0", 4, seed=0)
    env.step_random()
    actions = env.random_actions()
    before = snapshot(env)
    occupied = int(np.flatnonzero(~env.action_mask[2])[0])
    actions[2] = occupied
    with pytest.raises(fox_envs.IllegalActionError, match="row 2"):
        env.step(actions)
    for name, array in before.items():
        np.testing.assert_array_equal(env._arrays[name], array, err_msg=name)
