"""Property-based fuzzing of every public entry point (hypothesis), bounded in time.

Values of every type go into the rules core, ``raw_env``, ``env()``, the Gymnasium view, both
vector envs and the batched core; random params into ``make_game``; mutated JSON into
``state_from_json`` and game records; random interleavings of reset / step / bad step / pickle /
render / last into ``raw_env`` and ``env()``. The properties: a bad value gets the documented
error type with a message that names what is allowed, the object is exactly unchanged, and it
then continues like an untouched twin.

The default run is derandomized (the same examples every run, so CI is reproducible); set
``FOX_FUZZ_EXAMPLES=500`` for a longer, randomized search.
"""
from __future__ import annotations

import copy
import enum
import json
import os
import pickle
from decimal import Decimal
from fractions import Fraction

import gymnasium
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import fox_envs
from fox_envs import IllegalActionError, InvalidParameterError, InvalidStateError, state_from_json
from fox_envs.core.registry import GAMES
from fox_envs.evaluation.records import GameRecord, record_from_state, replay_states

from conftest import play_random_states

EXAMPLES = int(os.environ.get("FOX_FUZZ_EXAMPLES", "0"))
FUZZ = settings(max_examples=EXAMPLES or 100, deadline=None, derandomize=not EXAMPLES, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
ENV_IDS = fox_envs.ENV_IDS
GYM_IDS = {env_id: "fox_envs/" + GAMES[env_id].gym_id for env_id in ENV_IDS}


class Seat(enum.IntEnum):
    ZERO = 0
    ONE = 1


class HostileIndex:
    """A value whose integer hooks raise: never an action, and no message may call them."""

    def __index__(self):
        raise RuntimeError("__index__ fails")

    def __int__(self):
        raise RuntimeError("__int__ fails")

    def __repr__(self):
        raise RuntimeError("__repr__ fails")


def integer_or_none(value) -> int | None:
    """The documented rule for an action, written out independently of the package: a Python or
    numpy integer (subclasses included) or a 0-d integer array; never a bool or a timedelta."""
    if isinstance(value, (bool, np.bool_, np.timedelta64)):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iu":
        return int(value)
    return None


def action_values(num_actions: int) -> st.SearchStrategy:
    """Values of every type a caller might pass as an action, legal ones included."""
    near = st.integers(-3, num_actions + 3)
    return st.one_of(
        near, near, st.integers(-(2**70), 2**70), st.just(10**5000), st.just(-(10**5000)),
        near.map(np.int64), near.map(np.int16), st.integers(0, min(num_actions + 3, 255)).map(np.uint8),
        st.just(np.uint64(2**64 - 1)), st.just(np.uint64(2**63)), near.map(np.array),
        st.sampled_from([Seat.ZERO, Seat.ONE]), st.booleans(), st.just(np.bool_(True)),
        st.floats(allow_nan=True, allow_infinity=True), near.map(float), near.map(np.float32),
        near.map(Fraction), near.map(Decimal), near.map(complex), near.map(np.timedelta64),
        st.text(max_size=6), near.map(str), st.none(), st.lists(near, max_size=3), near.map(lambda a: np.array([a])),
        st.just({}), st.just(HostileIndex()), st.just(np.array(1.0)), st.just(object()),
    )


def midgame_states(env_id: str, params: dict, seed: int, count: int = 6) -> list:
    """Up to ``count`` player-to-move states spread over one random game (clones)."""
    states = [s.clone() for s in play_random_states(fox_envs.make_game(env_id, **params), seed)
              if not s.is_terminal() and not s.is_chance_node()]
    return states[:: max(1, len(states) // count)][:count]


STATES = {env_id: midgame_states(env_id, {}, seed=11) for env_id in ENV_IDS}


# ----- the rules core ----------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", ENV_IDS)
@FUZZ
@given(data=st.data())
def test_core_apply_action_takes_integers_and_refuses_the_rest_untouched(env_id, data):
    state = data.draw(st.sampled_from(STATES[env_id])).clone()
    value = data.draw(action_values(state.game.num_actions))
    before, legal = state.clone(), state.legal_actions()
    number = integer_or_none(value)
    if number is not None and number in legal:
        state.apply_action(value)
        before.apply_action(number)
        assert state == before and state.history()[-1] == number and type(state.history()[-1]) is int
        return
    with pytest.raises(IllegalActionError) as error:
        state.apply_action(value)
    assert state == before and state.to_json() == before.to_json()
    assert "legal" in str(error.value) and env_id in str(error.value)
    twin = before.clone()  # the refused call left nothing behind: both continue alike
    for s in (state, twin):
        s.apply_action(legal[len(legal) // 2])
    assert state == twin


# ----- raw_env and env() ---------------------------------------------------------------------------
def _observations(env) -> dict:
    return {agent: {k: np.array(v) for k, v in env.observe(agent).items()} for agent in env.agents}


def _same_observations(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for agent in a:
        for key in a[agent]:
            np.testing.assert_array_equal(a[agent][key], b[agent][key])


def _env_after(env_id: str, seed: int, moves: int, wrapped: bool):
    """An env reset with ``seed`` after ``moves`` legal moves (the middle legal move each time)."""
    env = fox_envs.make(env_id) if wrapped else fox_envs.make(env_id).unwrapped
    env.reset(seed=seed)
    for _ in range(moves):
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        env.step(_middle_legal(env))
    return env


def _middle_legal(env) -> int:
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    return int(legal[len(legal) // 2])


def _done(env) -> bool:
    agent = env.agent_selection
    return bool(env.terminations[agent] or env.truncations[agent])


@pytest.mark.parametrize("env_id", ENV_IDS)
@FUZZ
@given(seed=st.integers(0, 3), moves=st.integers(0, 8), data=st.data())
def test_raw_env_step_refuses_bad_values_and_changes_nothing(env_id, seed, moves, data):
    env, twin = (_env_after(env_id, seed, moves, wrapped=False) for _ in range(2))
    if _done(env):
        return
    value = data.draw(action_values(env.action_space(env.agent_selection).n))
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()
    number = integer_or_none(value)
    if number is not None and number in legal:
        env.step(value)
        twin.step(number)
    else:
        before = _observations(env)
        with pytest.raises(IllegalActionError, match="legal"):
            env.step(value)
        _same_observations(before, _observations(env))
    for _ in range(3):  # continues like its twin
        _same_observations(_observations(env), _observations(twin))
        assert env.rewards == twin.rewards and env.terminations == twin.terminations
        if _done(env):
            break
        action = _middle_legal(env)
        env.step(action)
        twin.step(action)


@pytest.mark.parametrize("env_id", ENV_IDS)
@FUZZ
@given(seed=st.integers(0, 3), moves=st.integers(0, 8), data=st.data())
def test_env_ends_the_game_with_minus_one_for_any_bad_value_and_never_crashes(env_id, seed, moves, data):
    env = _env_after(env_id, seed, moves, wrapped=True)
    if _done(env):
        return
    offender = env.agent_selection
    value = data.draw(action_values(env.action_space(offender).n))
    legal = np.flatnonzero(env.observe(offender)["action_mask"]).tolist()
    number = integer_or_none(value)
    played = len(env.unwrapped.game_state.history())
    env.step(value)
    if number is not None and number in legal:  # applied (chance outcomes may follow it)
        assert env.unwrapped.game_state.history()[played] == number
        return
    assert env.rewards[offender] == -1.0
    assert all(env.terminations.values()) and env.infos[offender]["illegal_action"] is True
    assert all(r == 0.0 for a, r in env.rewards.items() if a != offender)
    assert isinstance(env.infos[offender]["error"], str) and "legal" in env.infos[offender]["error"]
    for agent in env.agent_iter():  # the PettingZoo loop finishes the game cleanly
        env.step(None)
        assert agent in env.possible_agents
    assert env.agents == []


# ----- the Gymnasium view ---------------------------------------------------------------------------
@pytest.mark.parametrize("env_id", ENV_IDS)
@FUZZ
@given(seed=st.integers(0, 3), data=st.data())
def test_gym_view_bad_values_end_the_episode_or_raise_untouched(env_id, seed, data):
    raising = data.draw(st.booleans())
    env = gymnasium.make(GYM_IDS[env_id], illegal_action="raise" if raising else "end")
    obs, info = env.reset(seed=seed)
    value = data.draw(action_values(env.action_space.n))
    number = integer_or_none(value)
    if number is not None and 0 <= number < env.action_space.n and info["action_mask"][number]:
        env.step(value)
        return
    if raising:
        before = env.unwrapped.state.clone()
        with pytest.raises(IllegalActionError, match="legal"):
            env.step(value)
        assert env.unwrapped.state == before
        twin = gymnasium.make(GYM_IDS[env_id])
        twin_obs, twin_info = twin.reset(seed=seed)
        action = int(np.flatnonzero(info["action_mask"])[0])
        a, b = env.step(action), twin.step(action)
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1:4] == b[1:4]
        return
    obs, reward, terminated, truncated, info = env.step(value)
    assert reward == -1.0 and terminated and not truncated and info["illegal_action"] is True
    assert env.observation_space.contains(obs)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(0)


# ----- vector envs and the batched core ---------------------------------------------------------------
def _row_values(num_actions: int) -> st.SearchStrategy:
    return st.one_of(st.integers(-3, num_actions + 3), st.integers(-(2**62), 2**62))


@pytest.mark.parametrize("env_id", ENV_IDS)
@FUZZ
@given(seed=st.integers(0, 2), steps=st.integers(0, 6), row=st.integers(0, 3), data=st.data())
def test_batch_env_refuses_a_bad_row_and_changes_no_row(env_id, seed, steps, row, data):
    import fox_envs.batch

    env, twin = (fox_envs.batch.make(env_id, num_envs=4, seed=seed) for _ in range(2))
    for _ in range(steps):
        actions = env.random_actions()
        env.step(actions)
        twin.step(actions)
    actions = env.random_actions()
    bad = data.draw(st.one_of(_row_values(env.num_actions),
                              st.sampled_from(["x", None, 1.5, np.nan, np.uint64(2**63), 10**30])))
    candidate = actions.astype(object)
    candidate[row] = bad
    number = integer_or_none(bad)
    if number is not None and 0 <= number < env.num_actions and env.action_mask[row, number]:
        return  # a legal value: nothing to refuse
    before = {name: np.array(getattr(env, name)) for name in ("observation", "action_mask", "current_player", "moves")}
    histories = [env.core_state(i).history() for i in range(4)]
    for attempt in (candidate, _as_int_array(candidate)):
        if attempt is None:
            continue
        with pytest.raises((IllegalActionError, ValueError)) as error:
            env.step(attempt)
        assert isinstance(error.value, IllegalActionError) or "shape" in str(error.value)
        assert "row" in str(error.value)
    for name, value in before.items():
        np.testing.assert_array_equal(getattr(env, name), value)
    assert [env.core_state(i).history() for i in range(4)] == histories
    env.step(actions)
    twin.step(actions)
    np.testing.assert_array_equal(env.observation, twin.observation)
    np.testing.assert_array_equal(env.action_mask, twin.action_mask)


def _as_int_array(values: np.ndarray):
    """The same actions as an int64 array when every value is an in-range integer, else None."""
    numbers = [integer_or_none(v) for v in values]
    if any(n is None or not -(2**63) <= n < 2**63 for n in numbers):
        return None
    return np.array(numbers, dtype=np.int64)


@pytest.mark.parametrize("backend", ["batch", "processes"])
@pytest.mark.parametrize("env_id", ENV_IDS)
@FUZZ
@given(seed=st.integers(0, 2), row=st.integers(0, 2), data=st.data())
def test_vector_envs_end_only_the_bad_rows_episode(env_id, backend, seed, row, data):
    envs, twin = (gymnasium.make_vec(GYM_IDS[env_id], num_envs=3, backend=backend) for _ in range(2))
    try:
        obs, infos = envs.reset(seed=seed)
        twin.reset(seed=seed)
        masks = infos["action_mask"].astype(bool)
        actions = masks.argmax(axis=1)
        bad = data.draw(_row_values(envs.single_action_space.n))
        if 0 <= bad < masks.shape[1] and masks[row, bad]:
            return
        actions_bad = actions.copy()
        actions_bad[row] = bad
        obs, rewards, terms, truncs, infos = envs.step(actions_bad)
        assert rewards[row] == -1.0 and terms[row] and infos["illegal_action"][row]
        twin_obs, twin_rewards, twin_terms, _, _ = twin.step(actions)
        others = [i for i in range(3) if i != row]
        np.testing.assert_array_equal(obs[others], twin_obs[others])
        np.testing.assert_array_equal(rewards[others], twin_rewards[others])
        assert envs.action_masks()[row].any()  # the bad row restarted at once
        for shape_bad in (actions[:2], actions.astype(np.float64), np.array(["a"] * 3)):
            with pytest.raises(InvalidParameterError, match="integers"):
                envs.step(shape_bad)
    finally:
        envs.close()
        twin.close()


# ----- params ----------------------------------------------------------------------------------------
PARAM_VALUES = st.one_of(
    st.integers(-5, 20), st.integers(-(2**80), 2**80), st.booleans(), st.none(), st.floats(),
    st.text(max_size=8), st.sampled_from(["ordered_rows", "plain", "classic", "random", "standard"]),
    st.lists(st.integers(0, 3), max_size=3), st.just(10**5000), st.just(HostileIndex()),
    st.integers(0, 10).map(np.int64), st.integers(0, 10).map(float), st.integers(0, 10).map(Fraction),
)


@pytest.mark.parametrize("env_id", ENV_IDS)
@FUZZ
@given(data=st.data())
def test_params_give_a_game_or_invalid_parameter_error(env_id, data):
    declared = sorted(fox_envs.make_game(env_id).PARAMS)
    names = st.one_of(st.sampled_from(declared + ["max_moves"]), st.text(max_size=6))
    params = data.draw(st.dictionaries(names, PARAM_VALUES, max_size=3))
    try:
        env = fox_envs.make(env_id, **params)
    except InvalidParameterError as error:
        message = str(error)
        assert "allowed" in message and env_id.removesuffix("_v0").split("_")[0] in message.lower().replace("-", "")
        return
    env.reset(seed=0)  # an accepted set of params makes a game that plays
    for _ in range(3):
        if _done(env):
            break
        env.step(_middle_legal(env))


# ----- saved states and game records --------------------------------------------------------------------
JSON_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False),
                        st.text(max_size=6))
JSON_VALUES = st.recursive(JSON_LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                                 st.dictionaries(st.text(max_size=5), inner, max_size=3)),
                           max_leaves=6)


def mutated(data, document):
    """``document`` with one random change: a value replaced, a key dropped or added, a list cut."""
    paths = list(_paths(document))
    path = data.draw(st.sampled_from(paths))
    kind = data.draw(st.sampled_from(["replace", "drop", "add", "truncate"]))
    document = copy.deepcopy(document)
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1] if path else None
    if key is None:
        return data.draw(JSON_VALUES)
    if kind == "replace":
        parent[key] = data.draw(JSON_VALUES)
    elif kind == "drop" and isinstance(parent, dict):
        del parent[key]
    elif kind == "add" and isinstance(parent, dict):
        parent[data.draw(st.text(max_size=5))] = data.draw(JSON_VALUES)
    elif kind == "truncate" and isinstance(parent[key], list):
        parent[key] = parent[key][: data.draw(st.integers(0, max(0, len(parent[key]) - 1)))]
    else:
        parent[key] = data.draw(JSON_VALUES)
    return document


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node[:4]):
            yield from _paths(value, prefix + (index,))


@pytest.mark.parametrize("env_id", ENV_IDS)
@FUZZ
@given(data=st.data())
def test_mutated_saved_states_load_exactly_or_raise_invalid_state_error(env_id, data):
    state = data.draw(st.sampled_from(STATES[env_id]))
    document = mutated(data, json.loads(state.to_json()))
    text = json.dumps(document)
    if data.draw(st.booleans()):
        text = text[: data.draw(st.integers(0, len(text)))]
    try:
        loaded = state_from_json(text)
    except InvalidStateError as error:
        assert str(error)
        return
    assert state_from_json(loaded.to_json()) == loaded  # what loads is a real, consistent state
    if not loaded.is_terminal() and not loaded.is_chance_node():
        loaded.apply_action(loaded.legal_actions()[0])


@pytest.mark.parametrize("env_id", ENV_IDS)
@FUZZ
@given(data=st.data())
def test_mutated_game_records_replay_or_raise_invalid_state_error(env_id, data):
    state = data.draw(st.sampled_from(STATES[env_id]))
    document = mutated(data, record_from_state(state, seed=1).to_dict())
    try:
        states = replay_states(GameRecord.from_json(json.dumps(document)))
    except InvalidStateError as error:
        assert str(error)
        return
    assert states[-1].history() == document["history"]


# ----- random interleavings -----------------------------------------------------------------------------
class Interleavings(RuleBasedStateMachine):
    """reset / legal step / bad step / pickle / deepcopy / render / last on ``env()``, against a twin
    that gets only the resets and the steps: both must agree at every point."""

    env_id = ENV_IDS[0]

    @initialize(seed=st.integers(0, 5))
    def start(self, seed):
        self.env = fox_envs.make(self.env_id, render_mode="ansi")
        self.twin = fox_envs.make(self.env_id)
        self.env.reset(seed=seed)
        self.twin.reset(seed=seed)

    @rule(seed=st.integers(0, 5))
    def reset(self, seed):
        self.env.reset(seed=seed)
        self.twin.reset(seed=seed)

    @rule(pick=st.integers(0, 10**6))
    def step_legal(self, pick):
        if not self.env.agents:
            return
        if _done(self.env):
            action = None
        else:
            legal = np.flatnonzero(self.env.observe(self.env.agent_selection)["action_mask"])
            action = int(legal[pick % len(legal)])
        self.env.step(action)
        self.twin.step(action)

    @rule(pick=st.integers(0, 10**6))
    def step_in_agent_iter(self, pick):
        if not self.env.agents:
            return
        for agent in self.env.agent_iter(1):  # PettingZoo's loop, one turn (also after a copy)
            obs, reward, terminated, truncated, info = self.env.last()
            legal = np.flatnonzero(obs["action_mask"])
            action = None if terminated or truncated else int(legal[pick % len(legal)])
            self.env.step(action)
            self.twin.step(action)

    @rule(value=st.one_of(st.integers(-3, -1), st.just(5000).map(lambda digits: 10**digits), st.text(max_size=2), st.just(1.5), st.none()))
    def step_bad(self, value):
        if not self.env.agents or _done(self.env):
            return
        self.env.step(value)
        self.twin.step(value)

    @rule(deep=st.booleans())
    def copy_env(self, deep):
        self.env = copy.deepcopy(self.env) if deep else pickle.loads(pickle.dumps(self.env))

    @rule()
    def render_and_last(self):
        if self.env.agents:
            assert isinstance(self.env.render(), str)
            self.env.last()

    @invariant()
    def same_as_twin(self):
        assert self.env.agents == self.twin.agents
        if self.env.agents:
            assert self.env.agent_selection == self.twin.agent_selection
            _same_observations(_observations(self.env), _observations(self.twin))
            assert self.env.rewards == self.twin.rewards
            assert self.env.terminations == self.twin.terminations
            assert self.env.truncations == self.twin.truncations


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_random_interleavings_keep_env_like_its_twin(env_id):
    machine = type(f"Interleavings_{env_id}", (Interleavings,), {"env_id": env_id})
    machine.TestCase.settings = settings(FUZZ, max_examples=(EXAMPLES or 100) // 4 or 1, stateful_step_count=25)
    machine.TestCase("runTest").runTest()
