"""PettingZoo's global state: ``env.state()`` / ``env.state_space`` (the rules core's
``State.state_tensor()``): in its space at every step, the same whoever is to move, the whole
board in perfect-information games, the hidden facts too in Outfoxed, in every layout."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from pettingzoo.test.state_test import test_state as pettingzoo_state_test
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_test

import fox_envs
from fox_envs.core.registry import GAMES, env_module
from fox_envs.games.outfoxed.rules import OBS_SIZE, S_CARDS, STATE_SIZE

from conftest import conformance_cases, play_random_states
from test_observation_layout import expected

CASES = conformance_cases()
LAYOUTS = ("hwc", "chw", "flat")


def _random_steps(env, seed: int, steps: int):
    """Step ``env`` (reset with ``seed``) with random legal actions; yield before each step."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for agent in env.agent_iter(steps):
        obs, _, term, trunc, _ = env.last()
        yield agent
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    yield None


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("env_id,params", CASES)
def test_state_is_in_its_space_and_follows_the_layout(env_id, params, layout):
    module = env_module(env_id)
    base, env = module.env(**params), module.env(**params, observation_layout=layout)
    game = fox_envs.make_game(env_id, **params)
    ndim = len(game.state_shape)
    assert env.state_space.dtype == np.float32
    assert env.state_space.shape == expected(np.zeros(game.state_shape), layout, ndim).shape
    for _ in zip(_random_steps(base, 2, 150), _random_steps(env, 2, 150)):
        state = env.state()
        assert env.state_space.contains(state)
        np.testing.assert_array_equal(state, expected(base.state(), layout, ndim))
        np.testing.assert_array_equal(base.state(), base.unwrapped.game_state.state_tensor())


@pytest.mark.parametrize("env_id,params", CASES)
def test_state_does_not_depend_on_who_asks_or_is_to_move(env_id, params):
    """The state is one tensor of the position: perfect-information games give player_0's
    observation whoever is to move; Outfoxed gives both players' observations side by side."""
    env = env_module(env_id).env(**params)
    for agent in _random_steps(env, 5, 120):
        state = env.state()
        raw = env.unwrapped
        if raw.game.perfect_information:
            np.testing.assert_array_equal(state, raw.observe("player_0")["observation"])
        else:
            for seat, name in enumerate(raw.possible_agents):
                np.testing.assert_array_equal(state[seat * OBS_SIZE:(seat + 1) * OBS_SIZE],
                                              raw.observe(name)["observation"])
        assert agent is None or raw.agent_selection == agent


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("env_id", list(GAMES))
def test_pettingzoo_state_tests_pass(env_id, layout):
    env = fox_envs.make(env_id, observation_layout=layout)
    pettingzoo_state_space_test(env)
    pettingzoo_state_test(env, num_cycles=40)


def test_outfoxed_state_holds_the_hidden_facts():
    """Positions a player cannot tell apart (its observation is the same: a determinisation
    redraws what it cannot know) have different states when their hidden facts differ."""
    game = fox_envs.make_game("outfoxed_v0")
    checked = differing = 0
    for index, state in enumerate(play_random_states(game, seed=11, max_moves=160)):
        if state.is_chance_node() or state.is_terminal() or index % 7:
            continue
        real = state.clone()
        for player in (0, 1):
            for seed in range(3):
                twin = real.sample_determinisation(player, np.random.default_rng(seed))
                np.testing.assert_array_equal(twin.observation_tensor(player), real.observation_tensor(player))
                checked += 1
                a, b = real.state_tensor(), twin.state_tensor()
                assert a.shape == b.shape == (STATE_SIZE,)
                if real._full_key() != twin._full_key() or real.cards != twin.cards:
                    differing += 1
                    assert not np.array_equal(a, b)
    assert checked > 50 and differing > checked // 2


def test_outfoxed_state_tells_a_lie_from_the_truth():
    """Two positions that differ only in the face of one face-down card (the owner's hand
    compensates) differ in the state's table-card block, not in the other player's observation."""
    from fox_envs.games.outfoxed.rules import CARD_FEATURES, C_FACE

    game = fox_envs.make_game("outfoxed_v0")
    for state in play_random_states(game, seed=4, max_moves=400):
        downs = [i for i, card in enumerate(state.cards) if not card[5]]
        if not state.is_chance_node() and downs:
            break
    index = downs[0]
    square, owner, face = state.cards[index][:3]
    other = next(c for c in range(6) if c != face and state.hands[owner][c] > 0)
    twin = state.clone()
    twin.cards[index][2] = other
    twin.hands[owner][other] -= 1
    twin.hands[owner][face] += 1
    np.testing.assert_array_equal(twin.observation_tensor(1 - owner), state.observation_tensor(1 - owner))
    a, b = state.state_tensor(), twin.state_tensor()
    slot = S_CARDS + index * CARD_FEATURES
    assert a[slot + C_FACE + face] == 1.0 and b[slot + C_FACE + other] == 1.0
    assert not np.array_equal(a, b)


def test_outfoxed_env_state_differs_between_twins_the_observer_cannot_tell_apart():
    env = fox_envs.make("outfoxed_v0")
    env.reset(seed=8)
    rng = np.random.default_rng(0)
    for _ in range(30):
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    raw = env.unwrapped
    twin = copy.deepcopy(env)
    player = raw.game_state.current_player()
    twin.unwrapped.game_state = raw.game_state.sample_determinisation(player, np.random.default_rng(1))
    name = f"player_{player}"
    np.testing.assert_array_equal(twin.observe(name)["observation"], env.observe(name)["observation"])
    assert not np.array_equal(twin.state(), env.state())


@pytest.mark.parametrize("env_id", list(GAMES))
def test_perfect_information_state_shape_is_the_observation_shape(env_id):
    game = fox_envs.make_game(env_id)
    if game.perfect_information:
        assert game.state_shape == game.observation_shape
    else:
        assert game.state_shape == (STATE_SIZE,)


@pytest.mark.parametrize("layout", ("chw", "flat"))
def test_pickled_env_keeps_the_state_layout(layout):
    env = fox_envs.make("outwit_v0", observation_layout=layout)
    env.reset(seed=3)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    for twin in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        assert twin.state_space == env.state_space
        np.testing.assert_array_equal(twin.state(), env.state())
        assert twin.state().shape == env.state_space.shape
