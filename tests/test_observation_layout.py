"""observation_layout ("hwc", "chw", "flat") on every env, and mask_in_observation on the
Gymnasium view: spaces hold the observations, and chw / flat are exactly the hwc arrays
transposed / reshaped at every step of random games (AEC, Gymnasium view, both vector envs,
final observations included)."""
from __future__ import annotations

import copy
import pickle

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import fox_envs
from fox_envs import InvalidParameterError
from fox_envs.core.registry import GAMES, env_module

from conftest import conformance_cases

CASES = conformance_cases()
GYM_IDS = [pytest.param("fox_envs/" + entry.gym_id, env_id, id=env_id) for env_id, entry in GAMES.items()]
LAYOUTS = ("chw", "flat")
BAD_LAYOUTS = ["HWC", "nchw", None, 0, ("hwc",)]


def expected(hwc: np.ndarray, layout: str, core_ndim: int) -> np.ndarray:
    """The hwc observation(s) as ``layout`` must give them (leading batch axes kept)."""
    lead = hwc.shape[:hwc.ndim - core_ndim]
    if layout == "flat":
        return hwc.reshape(*lead, -1)
    if layout == "chw" and core_ndim == 3:
        axes = tuple(range(len(lead)))
        return np.transpose(hwc, (*axes, len(lead) + 2, len(lead), len(lead) + 1))
    return hwc


def core_ndim(env_id: str, params: dict | None = None) -> int:
    return len(fox_envs.make_game(env_id, **(params or {})).observation_shape)


def assert_same(actual: np.ndarray, hwc: np.ndarray, layout: str, ndim: int) -> None:
    want = expected(hwc, layout, ndim)
    assert actual.shape == want.shape
    assert actual.dtype == np.float32
    np.testing.assert_array_equal(actual, want)


# ----- the AEC env ------------------------------------------------------------------------------
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("env_id,params", CASES)
def test_aec_observations_follow_the_layout_at_every_step(env_id, params, layout):
    module = env_module(env_id)
    base, other = module.env(**params), module.env(**params, observation_layout=layout)
    ndim = core_ndim(env_id, params)
    rng = np.random.default_rng(3)
    for game in range(2):
        base.reset(seed=game)
        other.reset(seed=game)
        for agent in base.agent_iter(200):
            assert other.agent_selection == agent
            want, _, term, trunc, _ = base.last()
            got, *_ = other.last()
            assert other.observation_space(agent).contains(got)
            np.testing.assert_array_equal(got["action_mask"], want["action_mask"])
            assert_same(got["observation"], want["observation"], layout, ndim)
            for name in base.agents:  # every agent's view, not only the mover's
                assert_same(other.observe(name)["observation"], base.observe(name)["observation"], layout, ndim)
            action = None if term or trunc else int(rng.choice(np.flatnonzero(want["action_mask"])))
            base.step(action)
            other.step(action)


@pytest.mark.parametrize("layout", ("hwc", *LAYOUTS))
@pytest.mark.parametrize("env_id", list(GAMES))
def test_aec_spaces_in_the_layout(env_id, layout):
    env = fox_envs.make(env_id, observation_layout=layout)
    shape = fox_envs.make_game(env_id).observation_shape
    space = env.observation_space("player_0")["observation"]
    assert space.shape == expected(np.zeros(shape, np.float32), layout, len(shape)).shape
    assert space.dtype == np.float32 and space.low.min() == 0.0 and space.high.max() == 1.0
    assert env.observation_space("player_0") is env.observation_space("player_0")


def test_default_layout_hands_out_the_core_tensor():
    env = fox_envs.make("outwit_v0")
    env.reset(seed=0)
    raw = env.unwrapped
    obs = raw.observe("player_0")["observation"]
    assert obs.shape == (9, 10, 13)
    np.testing.assert_array_equal(obs, raw.game_state.observation_tensor(0))


@pytest.mark.parametrize("maker", ["env", "raw_env"])
@pytest.mark.parametrize("bad", BAD_LAYOUTS)
def test_aec_bad_layout_is_refused(maker, bad):
    with pytest.raises(InvalidParameterError, match=r"observation_layout.*allowed: 'hwc', 'chw', 'flat'"):
        getattr(env_module("xceter_o_v0"), maker)(observation_layout=bad)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_pettingzoo_api_test_in_the_layout(layout):
    api_test(fox_envs.make("outfox_v0", observation_layout=layout), num_cycles=50)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_pickled_and_copied_aec_env_keeps_the_layout(layout):
    env = fox_envs.make("xceter_o_v0", observation_layout=layout)
    env.reset(seed=4)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    twins = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    for twin in twins:
        assert twin.unwrapped.layout == env.unwrapped.layout
        assert twin.observation_space("player_0") == env.observation_space("player_0")
    for envs in [(env, *twins)]:
        iterators = [iter(e.agent_iter(6)) for e in envs]
        for agents in zip(*iterators):
            assert len(set(agents)) == 1
            observations = [e.last()[0]["observation"] for e in envs]
            assert observations[1].shape == env.observation_space(agents[0])["observation"].shape
            for obs in observations[1:]:
                np.testing.assert_array_equal(obs, observations[0])
            action = int(np.flatnonzero(envs[0].last()[0]["action_mask"])[-1])
            for e in envs:
                e.step(action)


# ----- the Gymnasium view -----------------------------------------------------------------------
def _play_view_pair(gym_id: str, env_id: str, layout: str, mask_in_observation: bool, steps: int = 150) -> None:
    base = gymnasium.make(gym_id, max_moves=30)
    other = gymnasium.make(gym_id, max_moves=30, observation_layout=layout, mask_in_observation=mask_in_observation)
    ndim = core_ndim(env_id)
    rng = np.random.default_rng(5)
    want, info = base.reset(seed=1)
    got, other_info = other.reset(seed=1)
    for _ in range(steps):
        assert other.observation_space.contains(got)
        if mask_in_observation:
            assert set(got) == {"observation", "action_mask"}
            assert got["action_mask"].dtype == np.int8
            np.testing.assert_array_equal(got["action_mask"], other_info["action_mask"])
            got = got["observation"]
        np.testing.assert_array_equal(other_info["action_mask"], info["action_mask"])
        assert_same(got, want, layout, ndim)
        legal = np.flatnonzero(info["action_mask"])
        action = int(rng.choice(legal)) if rng.random() > 0.05 else len(info["action_mask"])  # now and then illegal
        want, reward, term, trunc, info = base.step(action)
        got, other_reward, other_term, other_trunc, other_info = other.step(action)
        assert (reward, term, trunc) == (other_reward, other_term, other_trunc)
        if term or trunc:
            assert other.observation_space.contains(got)
            if mask_in_observation:
                np.testing.assert_array_equal(got["action_mask"], other_info["action_mask"])
                got = got["observation"]
            assert_same(got, want, layout, ndim)
            want, info = base.reset()
            got, other_info = other.reset()


@pytest.mark.parametrize("mask_in_observation", [False, True])
@pytest.mark.parametrize("layout", ("hwc", *LAYOUTS))
@pytest.mark.parametrize("gym_id,env_id", GYM_IDS)
def test_gym_view_follows_the_layout_and_carries_the_mask(gym_id, env_id, layout, mask_in_observation):
    if layout == "hwc" and not mask_in_observation:
        pytest.skip("the reference itself")
    _play_view_pair(gym_id, env_id, layout, mask_in_observation)


@pytest.mark.parametrize("gym_id,env_id", GYM_IDS)
def test_gym_view_mask_in_observation_space(gym_id, env_id):
    view = gymnasium.make(gym_id, mask_in_observation=True, observation_layout="flat")
    game = fox_envs.make_game(env_id)
    space = view.observation_space
    assert isinstance(space, gymnasium.spaces.Dict) and set(space.spaces) == {"observation", "action_mask"}
    assert space["action_mask"] == gymnasium.spaces.MultiBinary(game.num_actions)
    assert space["observation"].shape == (int(np.prod(game.observation_shape)),)
    obs, info = view.reset(seed=0)
    np.testing.assert_array_equal(obs["action_mask"], view.unwrapped.action_masks())


@pytest.mark.parametrize("kwargs", [{"observation_layout": "chw"}, {"observation_layout": "flat"},
                                    {"mask_in_observation": True}, {"mask_in_observation": True, "observation_layout": "chw"}])
def test_gym_view_passes_check_env(kwargs):
    check_env(gymnasium.make("fox_envs/Outwit-v0", **kwargs).unwrapped, skip_render_check=True)


@pytest.mark.parametrize("kwargs", [{"observation_layout": bad} for bad in BAD_LAYOUTS]
                         + [{"mask_in_observation": bad} for bad in (1, "yes", None)])
def test_gym_view_bad_values_are_refused(kwargs):
    with pytest.raises(InvalidParameterError, match="allowed"):
        gymnasium.make("fox_envs/XCeterO-v0", **kwargs)


def test_pickled_gym_view_keeps_layout_and_mask():
    view = gymnasium.make("fox_envs/Outfox-v0", observation_layout="chw", mask_in_observation=True).unwrapped
    view.reset(seed=2)
    for twin in (pickle.loads(pickle.dumps(view)), copy.deepcopy(view)):
        assert twin.observation_space == view.observation_space
        obs, _ = twin.reset(seed=2)
        assert obs["observation"].shape == (40, 5, 5)
        np.testing.assert_array_equal(obs["observation"], view.reset(seed=2)[0]["observation"])


def test_gymnasium_sync_vector_env_carries_masks_in_observations():
    envs = gymnasium.make_vec("fox_envs/XCeterO-v0", 3, vectorization_mode="sync", mask_in_observation=True)
    obs, infos = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    np.testing.assert_array_equal(obs["action_mask"], infos["action_mask"])
    envs.close()


# ----- the vector envs --------------------------------------------------------------------------
def _play_vector_pair(gym_id: str, env_id: str, layout: str, backend_kwargs: dict, steps: int = 60) -> None:
    num_envs = 4
    base = gymnasium.make_vec(gym_id, num_envs, max_moves=12, **backend_kwargs)
    other = gymnasium.make_vec(gym_id, num_envs, max_moves=12, observation_layout=layout, **backend_kwargs)
    assert type(base) is type(other)
    ndim = core_ndim(env_id)
    rng = np.random.default_rng(7)
    try:
        assert other.single_observation_space.shape == expected(
            np.zeros(base.single_observation_space.shape, np.float32), layout, ndim).shape
        want, info = base.reset(seed=3)
        got, other_info = other.reset(seed=3)
        finals = 0
        for _ in range(steps):
            assert other.observation_space.contains(got)
            assert_same(got, want, layout, ndim)
            np.testing.assert_array_equal(other_info["action_mask"], info["action_mask"])
            actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in info["action_mask"]])
            actions[rng.random(num_envs) < 0.05] = -1  # now and then an illegal action ends an episode
            want, reward, term, trunc, info = base.step(actions)
            got, other_reward, other_term, other_trunc, other_info = other.step(actions)
            np.testing.assert_array_equal(other_reward, reward)
            np.testing.assert_array_equal(other_term, term)
            np.testing.assert_array_equal(other_trunc, trunc)
            assert ("final_obs" in info) == ("final_obs" in other_info)
            if "final_obs" in info:
                np.testing.assert_array_equal(other_info["_final_obs"], info["_final_obs"])
                assert_same(other_info["final_obs"], info["final_obs"], layout, ndim)
                finals += int(info["_final_obs"].sum())
        assert finals > 0
    finally:
        base.close()
        other.close()


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("gym_id,env_id", GYM_IDS)
def test_batch_vector_env_follows_the_layout(gym_id, env_id, layout):
    _play_vector_pair(gym_id, env_id, layout, {})


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("gym_id,env_id", GYM_IDS)
def test_process_vector_env_follows_the_layout(gym_id, env_id, layout):
    _play_vector_pair(gym_id, env_id, layout, {"workers": 0})


@pytest.mark.parametrize("layout", LAYOUTS)
def test_process_vector_env_with_workers_follows_the_layout(layout):
    _play_vector_pair("fox_envs/Outwit-v0", "outwit_v0", layout, {"workers": 2}, steps=30)


@pytest.mark.parametrize("backend", ["batch", "processes"])
def test_vector_envs_refuse_bad_layout_and_mask_in_observation(backend):
    with pytest.raises(InvalidParameterError, match="allowed: 'hwc', 'chw', 'flat'"):
        gymnasium.make_vec("fox_envs/Outfox-v0", 2, backend=backend, observation_layout="whc")
    with pytest.raises(InvalidParameterError, match="vectorization_mode='sync'"):
        gymnasium.make_vec("fox_envs/Outfox-v0", 2, backend=backend, mask_in_observation=True)


def test_layout_helper_views_write_through():
    from fox_envs.core.layout import make_layout

    for name in ("hwc", "chw", "flat"):
        layout = make_layout(name, (2, 3, 4))
        out = np.zeros((5, *layout.shape), np.float32)
        core = np.arange(5 * 24, dtype=np.float32).reshape(5, 2, 3, 4)
        layout.core_view(out)[...] = core
        np.testing.assert_array_equal(out, expected(core, name, 3))
        np.testing.assert_array_equal(layout.apply(core), expected(core, name, 3))
        assert np.shares_memory(layout.core_view(out), out)
