"""``gymnasium.make_vec`` on the batched core (``BatchVectorEnv``): FoxVectorEnv's semantics,
checked row by row against the rules core."""
from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import fox_envs
from fox_envs.vector.batched import BatchVectorEnv
from fox_envs.core.registry import GAMES
from fox_envs.vector.process import FoxVectorEnv

CASES = [("XCeterO-v0", {}, 0), ("XCeterO-v0", {}, 1), ("Outwit-v0", {}, 1), ("Outfox-v0", {"num_players": 3}, 2),
         ("ByeByeMrFox-v0", {"num_players": 3}, 1), ("Outfoxed-v0", {}, 0)]


def learner_picks(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


@pytest.mark.parametrize("gym_id, params, seat", CASES)
def test_rows_follow_the_rules_core(gym_id, params, seat):
    env = gymnasium.make_vec("fox_envs/" + gym_id, num_envs=5, seat=seat, max_moves=60, **params)
    assert isinstance(env, BatchVectorEnv)
    batch = env.batch
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(120):
        before = [batch.core_state(i) for i in range(5)]
        for i, state in enumerate(before):
            assert state.current_player() == seat
            np.testing.assert_array_equal(obs[i], state.observation_tensor(seat))
            np.testing.assert_array_equal(info["action_mask"][i], state.legal_actions_mask())
        actions = learner_picks(env.action_masks(), rng)
        obs, reward, term, trunc, info = env.step(actions)
        done = term | trunc
        assert ("final_obs" in info) == bool(done.any())
        for i in range(5):
            expected = before[i].history() + [int(actions[i])]
            if done[i]:
                final = batch.final_core_state(i)
                assert final.history()[:len(expected)] == expected
                assert final.is_terminal() == bool(term[i])
                assert reward[i] == (final.returns()[seat] if term[i] else 0.0)
                np.testing.assert_array_equal(info["final_obs"][i], final.observation_tensor(seat))
                ended += 1
            else:
                assert batch.core_state(i).history()[:len(expected)] == expected
                assert reward[i] == 0.0
                if "final_obs" in info:
                    assert not info["final_obs"][i].any()
    assert ended > 0


def test_illegal_actions_end_the_episode_or_raise():
    env = gymnasium.make_vec("fox_envs/XCeterO-v0", num_envs=3)
    obs, info = env.reset(seed=1)
    env.step(np.array([4, 4, 4]))
    obs = env.step(np.array([0, 1, 2]))[0]
    masks = env.action_masks()
    actions = np.array([np.flatnonzero(m)[0] for m in masks])
    actions[1] = np.flatnonzero(~masks[1])[0]  # an occupied square
    kept = obs.copy()
    obs, reward, term, trunc, info = env.step(actions)
    assert info["illegal_action"].tolist() == [False, True, False]
    assert reward[1] == -1.0 and term[1] and not trunc[1]
    np.testing.assert_array_equal(info["final_obs"][1], kept[1])
    assert env.batch.core_state(1).history() == []  # a new episode
    strict = gymnasium.make_vec("fox_envs/XCeterO-v0", num_envs=3, illegal_action="raise")
    strict.reset(seed=1)
    strict.step(np.array([4, 4, 4]))
    before = [strict.batch.core_state(i) for i in range(3)]
    with pytest.raises(fox_envs.IllegalActionError, match="row 2"):
        strict.step(np.array([0, 1, 4]))
    assert [strict.batch.core_state(i) for i in range(3)] == before
    for bad in ([0, 1], [0.0, 1.0, 2.0]):
        with pytest.raises(fox_envs.InvalidParameterError, match="integers"):
            strict.step(np.array(bad))


def test_seeded_rows_do_not_depend_on_num_envs_and_kept_arrays_stay():
    small = gymnasium.make_vec("fox_envs/Outfox-v0", num_envs=2)
    large = gymnasium.make_vec("fox_envs/Outfox-v0", num_envs=6)
    a, _ = small.reset(seed=9)
    b, _ = large.reset(seed=9)
    kept = [a]
    for _ in range(40):
        pick_small = np.array([np.flatnonzero(m)[-1] for m in small.action_masks()])
        pick_large = np.array([np.flatnonzero(m)[-1] for m in large.action_masks()])
        np.testing.assert_array_equal(pick_small, pick_large[:2])
        a, ra, ta, xa, _ = small.step(pick_small)
        b, rb, tb, xb, _ = large.step(pick_large)
        np.testing.assert_array_equal(a, b[:2])
        np.testing.assert_array_equal(ra, rb[:2])
        kept.append(a)
    copies = [k.copy() for k in kept]
    small.step(np.array([np.flatnonzero(m)[-1] for m in small.action_masks()]))
    for k, c in zip(kept, copies):
        np.testing.assert_array_equal(k, c)


def test_make_vec_chooses_the_backend():
    assert isinstance(gymnasium.make_vec("fox_envs/Outwit-v0", num_envs=2), BatchVectorEnv)
    assert isinstance(gymnasium.make_vec("fox_envs/Outwit-v0", num_envs=2, opponent="mcts"), FoxVectorEnv)
    assert isinstance(gymnasium.make_vec("fox_envs/Outwit-v0", num_envs=2, backend="processes"), FoxVectorEnv)
    with pytest.raises(fox_envs.InvalidParameterError, match="opponents"):
        gymnasium.make_vec("fox_envs/Outwit-v0", num_envs=2, opponent="mcts", backend="batch")
    with pytest.raises(fox_envs.InvalidParameterError, match="backend"):
        gymnasium.make_vec("fox_envs/Outwit-v0", num_envs=2, backend="gpu")
    with pytest.raises(fox_envs.InvalidParameterError, match="seat"):
        gymnasium.make_vec("fox_envs/Outwit-v0", num_envs=2, seat=2)
    with pytest.raises(gymnasium.error.ResetNeeded):
        gymnasium.make_vec("fox_envs/Outwit-v0", num_envs=2).step(np.zeros(2, int))


@pytest.mark.parametrize("env_id", list(GAMES))
def test_every_id_runs_with_defaults(env_id):
    env = gymnasium.make_vec("fox_envs/" + GAMES[env_id].gym_id, num_envs=4)
    obs, info = env.reset(seed=0)
    assert obs.shape == (4, *env.single_observation_space.shape) and obs.dtype == np.float32
    assert env.observation_space.contains(obs)
    for _ in range(30):
        obs, reward, term, trunc, info = env.step(learner_picks(info["action_mask"].astype(bool), np.random.default_rng(1)))
        assert env.observation_space.contains(obs)
        np.testing.assert_array_equal(info["action_mask"].astype(bool), env.action_masks())


def test_max_moves_used_up_before_the_learner_moves_is_an_error_not_a_hang():
    env = gymnasium.make_vec("fox_envs/XCeterO-v0", num_envs=2, seat=1, max_moves=1)
    with pytest.raises(fox_envs.InvalidParameterError, match="max_moves=1 is used up"):
        env.reset(seed=0)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(np.zeros(2, int))
    just_enough = gymnasium.make_vec("fox_envs/XCeterO-v0", num_envs=2, seat=1, max_moves=2)
    obs, info = just_enough.reset(seed=0)
    obs, reward, term, trunc, info = just_enough.step(info["action_mask"].argmax(axis=1))
    assert trunc.all() and not term.any() and (reward == 0).all()
