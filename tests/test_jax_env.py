"""The JAX backend's API on every game: Pgx's names, jit and vmap, auto-reset, illegal actions,
the bridge, chance frequencies (integration: needs the jax extra). jax is imported inside the
tests, so that the default run never imports it."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import fox_envs
from fox_envs.core.registry import GAMES
from jax_lockstep import assert_same_state, row

JAX_IDS = [env_id for env_id, game in GAMES.items() if game.jax_rules is not None]
integration = pytest.mark.integration


def first_legal(mask) -> int:
    return int(np.flatnonzero(np.asarray(mask))[0])


@integration
@pytest.mark.parametrize("env_id", JAX_IDS)
def test_pgx_names_and_shapes(env_id):
    import jax

    import fox_envs.jax

    env = fox_envs.jax.make(env_id)
    game = fox_envs.make_game(env_id)
    assert (env.id, env.num_players, env.num_actions) == (env_id, game.num_players, game.num_actions)
    assert env.observation_shape == game.observation_shape
    state = env.init(jax.random.PRNGKey(0))
    assert state.current_player.dtype == np.int32
    assert state.observation.shape == env.observation_shape and state.observation.dtype == np.float32
    assert state.legal_action_mask.shape == (env.num_actions,) and state.legal_action_mask.dtype == bool
    assert state.rewards.shape == (env.num_players,) and state.rewards.dtype == np.float32
    assert state.terminated.dtype == bool and state.truncated.dtype == bool
    np.testing.assert_array_equal(env.observe(state, state.current_player), state.observation)


@integration
@pytest.mark.parametrize("env_id", JAX_IDS)
def test_jit_vmap_and_auto_reset_play_many_games(env_id):
    import jax
    import jax.numpy as jnp

    import fox_envs.jax

    env = fox_envs.jax.make(env_id, max_moves=30)
    rows = 8
    step = jax.jit(jax.vmap(fox_envs.jax.auto_reset(env.step, env.init)))
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(1), rows))
    key = jax.random.PRNGKey(2)
    ended = 0
    for _ in range(80):
        key, pick, chance = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        actions = jax.random.categorical(pick, logits, axis=-1)
        state = step(state, actions, jax.random.split(chance, rows))
        done = np.asarray(state.terminated | state.truncated)
        ended += int(done.sum())
        # after a reset the new game has a player to move with a legal action
        assert np.asarray(state.legal_action_mask).any(axis=1).all()
        assert np.all(np.asarray(state._step_count)[done] == 0)
    assert ended > 0


@integration
@pytest.mark.parametrize("env_id", JAX_IDS)
def test_auto_reset_of_an_env_gives_the_states_of_step_then_init(env_id):
    """``auto_reset(env.step, env.init)`` (the env's one-pass step) gives, field for field, the
    states of the generic wrapper around the same functions: games that end, truncate, take an
    illegal or out-of-range action, and games handed in finished."""
    import jax
    import jax.numpy as jnp

    import fox_envs.jax

    env = fox_envs.jax.make(env_id, max_moves=12)
    one_pass = fox_envs.jax.auto_reset(env.step, env.init)
    assert one_pass == env._step_with_reset
    fused = jax.jit(jax.vmap(one_pass))
    generic = jax.jit(jax.vmap(fox_envs.jax.auto_reset(lambda s, a, k: env.step(s, a, k), lambda k: env.init(k))))
    finish = jax.jit(jax.vmap(env.step))
    rows = 12
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(4), rows))
    key = jax.random.PRNGKey(5)
    for i in range(40):
        key, pick, chance = jax.random.split(key, 3)
        actions = jax.random.categorical(pick, jnp.where(state.legal_action_mask, 0.0, -jnp.inf), axis=-1)
        if i % 5 == 4:  # rows 0-2: an illegal action (where any), -1, num_actions
            illegal = jnp.argmin(state.legal_action_mask, axis=-1)
            actions = actions.at[0].set(illegal[0]).at[1].set(-1).at[2].set(env.num_actions)
        if i % 7 == 6:  # rows handed in finished (an illegal action without the reset)
            state = finish(state, actions.at[3:6].set(-1), jax.random.split(chance, rows))
        keys = jax.random.split(chance, rows)
        after = fused(state, actions, keys)
        assert_same_state(after, generic(state, actions, keys), f"{env_id}, step {i}")
        state = after


@integration
@pytest.mark.parametrize("env_id", JAX_IDS)
def test_an_illegal_action_loses_and_a_finished_game_stays_finished(env_id):
    import jax
    import jax.numpy as jnp

    import fox_envs.jax

    env = fox_envs.jax.make(env_id)
    state = env.init(jax.random.PRNGKey(3))
    mover = int(state.current_player)
    illegal = [a for a in range(env.num_actions) if not state.legal_action_mask[a]]
    for bad in ([illegal[0]] if illegal else []) + [-1, env.num_actions]:
        lost = env.step(state, jnp.int32(bad), jax.random.PRNGKey(4))
        assert bool(lost.terminated) and not np.asarray(lost.legal_action_mask).any()
        expected = np.zeros(env.num_players, np.float32)
        expected[mover] = -1
        np.testing.assert_array_equal(lost.rewards, expected)
        again = env.step(lost, jnp.int32(first_legal(state.legal_action_mask)), jax.random.PRNGKey(5))
        assert_same_state(again.replace(rewards=lost.rewards), lost, "a finished state changed")
        assert not np.asarray(again.rewards).any()
    with pytest.raises(TypeError, match="integer"):
        env.step(state, jnp.float32(0.0), jax.random.PRNGKey(0))


@integration
@pytest.mark.parametrize("env_id", JAX_IDS)
def test_the_bridge_round_trips_a_core_state(env_id):
    import jax
    import jax.numpy as jnp

    import fox_envs.jax

    env = fox_envs.jax.make(env_id)
    state = env.init(jax.random.PRNGKey(6))
    step = jax.jit(env.step)
    key = jax.random.PRNGKey(7)
    rng = np.random.default_rng(0)
    for _ in range(12):
        if bool(state.terminated):
            break
        key, sub = jax.random.split(key)
        state = step(state, jnp.int32(rng.choice(np.flatnonzero(state.legal_action_mask))), sub)
        core = env.to_core_state(state)
        assert_same_state(env.from_core_state(core), state, "from_core_state(to_core_state(s)) != s")
        assert core.history() == np.asarray(state._history)[: int(state._history_len)].tolist()


@integration
@pytest.mark.parametrize("env_id", JAX_IDS)
def test_a_state_survives_pickle_and_deepcopy_and_plays_on_the_same(env_id):
    """A batch of states mid-game (each game's position as its rules keep it), pickled and deep
    copied: equal arrays, and the next step from the copy equals the next step from the original."""
    import copy
    import pickle

    import jax

    import fox_envs.jax

    env = fox_envs.jax.make(env_id)
    step = jax.jit(jax.vmap(fox_envs.jax.auto_reset(env.step, env.init)))
    pick = jax.jit(jax.vmap(fox_envs.jax.random_legal_action))
    rows = 8
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(3), rows))
    for t in range(12):
        keys = jax.random.split(jax.random.PRNGKey(t), rows)
        state = step(state, pick(keys, state.legal_action_mask), keys)
    keys = jax.random.split(jax.random.PRNGKey(99), rows)
    actions = pick(keys, state.legal_action_mask)
    expected = jax.tree_util.tree_leaves(step(state, actions, keys))
    for copied in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
        assert jax.tree_util.tree_structure(copied) == jax.tree_util.tree_structure(state)
        for a, b in zip(jax.tree_util.tree_leaves(copied), jax.tree_util.tree_leaves(state)):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        for a, b in zip(jax.tree_util.tree_leaves(step(copied, actions, keys)), expected):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@integration
def test_bridge_and_make_refuse_bad_input():
    import jax

    import fox_envs.jax

    env = fox_envs.jax.make("xceter_o_v0")
    batched = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 2))
    with pytest.raises(fox_envs.InvalidStateError, match="one game"):
        env.to_core_state(batched)
    assert env.to_core_state(row(batched, 1)).history() == []
    with pytest.raises(fox_envs.InvalidParameterError, match="needs a state of"):
        env.from_core_state(fox_envs.make_game("xceter_o_v0", ordered_rows=True).new_initial_state())
    with pytest.raises(fox_envs.InvalidParameterError, match="unknown env id"):
        fox_envs.jax.make("chess_v0")
    with pytest.raises(fox_envs.InvalidParameterError, match="max_moves"):
        fox_envs.jax.make("xceter_o_v0", max_moves=0)
    with pytest.raises(fox_envs.InvalidParameterError, match="observation_layout"):
        fox_envs.jax.make("xceter_o_v0", observation_layout="nhwc")
    with pytest.raises(fox_envs.InvalidParameterError, match="ordered_rows"):
        fox_envs.jax.make("xceter_o_v0", ordered_rows="yes")


@integration
@pytest.mark.parametrize("env_id", [e for e in JAX_IDS if GAMES[e].openspiel.max_chance_outcomes])
def test_the_first_chance_outcomes_follow_the_core_probabilities(env_id):
    """The first chance node where a choice is open: frequencies over many games against the
    rules core's probabilities (5 standard deviations)."""
    import jax
    import jax.numpy as jnp

    import fox_envs.jax

    env = fox_envs.jax.make(env_id)
    rows = 4000
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(8), rows))
    core = env.game.new_initial_state()
    step = jax.jit(jax.vmap(env.step))
    key = jax.random.PRNGKey(9)
    while not core.is_chance_node():  # the same decisions in every row up to the first chance node
        action = core.legal_actions()[0]
        key, sub = jax.random.split(key)
        state = step(state, jnp.full(rows, action, jnp.int32), jax.random.split(sub, rows))
        core.apply_action(action)
    index = len(core.history())
    outcomes = np.asarray(state._history)[:, index]
    for outcome, probability in core.chance_outcomes():
        frequency = np.mean(outcomes == outcome)
        sigma = np.sqrt(probability * (1 - probability) / rows)
        assert abs(frequency - probability) < 5 * sigma + 1e-9, (outcome, frequency, probability)


def test_import_fox_envs_does_not_import_jax():
    """jax is an optional extra: the package, its envs and the batched core never import it."""
    code = ("import sys, fox_envs, fox_envs.batch; fox_envs.make('outwit_v0'); "
            "fox_envs.batch.make('xceter_o_v0', 2); assert 'jax' not in sys.modules, 'jax imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


@integration
def test_observations_reach_torch_without_a_copy():
    """DLPack: torch sees the jax buffer itself (the same address), with the same values."""
    import jax
    import torch

    import fox_envs.jax

    env = fox_envs.jax.make("outwit_v0" if "outwit_v0" in JAX_IDS else "xceter_o_v0")
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), 4))
    tensor = torch.from_dlpack(state.observation)
    assert tensor.data_ptr() == state.observation.unsafe_buffer_pointer()
    np.testing.assert_array_equal(tensor.numpy(), np.asarray(state.observation))
    players = torch.from_dlpack(state.current_player)
    assert players.tolist() == np.asarray(state.current_player).tolist()


@integration
def test_random_legal_action_is_uniform_over_the_legal_actions():
    import jax
    import jax.numpy as jnp

    from fox_envs.jax import random_legal_action

    mask = jnp.zeros((3, 8101), bool).at[0, jnp.array([5, 77, 8100])].set(True).at[1, 4000].set(True)
    actions = np.asarray(jax.vmap(lambda k: random_legal_action(k, mask))(jax.random.split(jax.random.PRNGKey(0), 6000)))
    assert actions.shape == (6000, 3) and actions.dtype == np.int32
    assert set(actions[:, 1]) == {4000} and set(actions[:, 2]) == {0}  # a lone legal action; none legal: 0
    counts = np.array([np.sum(actions[:, 0] == a) for a in (5, 77, 8100)])
    assert counts.sum() == 6000 and np.all(np.abs(counts - 2000) < 5 * np.sqrt(6000 * (1 / 3) * (2 / 3)))


@pytest.mark.integration
@pytest.mark.parametrize("env_id", sorted(GAMES))
def test_step_keeps_every_array_type(env_id):
    """A step returns a state of the same structure, shapes and dtypes as ``init`` (what a
    ``lax.scan`` carry needs)."""
    import jax
    import fox_envs.jax as fj

    env = fj.make(env_id)
    state = env.init(jax.random.PRNGKey(0))
    action = fj.random_legal_action(jax.random.PRNGKey(1), state.legal_action_mask)
    after = env.step(state, action, jax.random.PRNGKey(2))
    for (path, before), later in zip(jax.tree_util.tree_flatten_with_path(state)[0], jax.tree_util.tree_leaves(after)):
        assert (before.shape, before.dtype) == (later.shape, later.dtype), jax.tree_util.keystr(path)
