"""Conformance suite: runs over every registered env id and param variant (SPEC 1.1, 1.2).

A new game gets all of this by registering its ``GameSpec`` (``fox_envs.register_game``);
nothing here needs a game's own env module, heuristic or kernels. The example game of
docs/adding_a_game.md runs here too (registered for each of its tests).
"""
from __future__ import annotations

import functools
import json
import math
import pickle

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test, seed_test

import fox_envs
from fox_envs import CHANCE, TERMINAL, IllegalActionError, InvalidParameterError, InvalidStateError
from fox_envs.core.registration import pettingzoo_id, pettingzoo_registry
from fox_envs.core.aec import raw_env_class
from fox_envs.core.registry import GAMES, env_module, state_from_json

from conftest import conformance_cases, example_cases, example_spec, play_random_states

CASES = conformance_cases() + example_cases()
ENV_IDS = [*fox_envs.ENV_IDS, example_spec().env_id]
MALFORMED = [-1, 10**9, 1.5, 0.0, float("nan"), None, "0", True, np.float64(0.0), [0], np.array([0])]


@pytest.fixture(autouse=True)
def _example_game(request):
    """Register the docs' example game for the tests parametrized with its env id."""
    callspec = getattr(request.node, "callspec", None)
    if callspec is not None and callspec.params.get("env_id") == example_spec().env_id:
        request.getfixturevalue("example_registered")
    yield


def make_env(env_id: str, params: dict, **kwargs):
    """The wrapped env (``fox_envs.make``: the env module's ``env()`` for a game with one)."""
    return fox_envs.make(env_id, **params, **kwargs)


def make_raw(env_id: str, params: dict, **kwargs):
    return raw_env_class(env_id)(**params, **kwargs)


# ----- PettingZoo's own tests -----------------------------------------------------------------
@pytest.mark.parametrize("env_id,params", CASES)
def test_pettingzoo_api_test(env_id, params):
    api_test(make_env(env_id, params), num_cycles=300)


@pytest.mark.parametrize("env_id,params", CASES)
def test_pettingzoo_seed_test(env_id, params):
    seed_test(functools.partial(make_env, env_id, params), num_cycles=200)


@pytest.mark.parametrize("env_id,params", CASES)
def test_pettingzoo_render_test(env_id, params):
    render_test(functools.partial(make_env, env_id, params))


@pytest.mark.parametrize("env_id,params", CASES)
def test_env_pickles_mid_game_and_continues_identically(env_id, params):
    env = make_env(env_id, params)
    env.reset(seed=3)
    for _ in range(5):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    copy = pickle.loads(pickle.dumps(env))
    assert copy.unwrapped.game_state == env.unwrapped.game_state
    for _ in range(20):
        obs_a, rew_a, term_a, trunc_a, _ = env.last()
        obs_b, rew_b, term_b, trunc_b, _ = copy.last()
        assert copy.agent_selection == env.agent_selection
        np.testing.assert_array_equal(obs_a["observation"], obs_b["observation"])
        np.testing.assert_array_equal(obs_a["action_mask"], obs_b["action_mask"])
        assert (rew_a, term_a, trunc_a) == (rew_b, term_b, trunc_b)
        if term_a or trunc_a:
            break
        action = int(np.flatnonzero(obs_a["action_mask"])[-1])
        env.step(action)
        copy.step(action)
    pickle.loads(pickle.dumps(env.unwrapped.game_state))  # states pickle too


def _agent_iter_trajectory(env, seed: int, skip: int = 0) -> list:
    """Play the full ``agent_iter()`` / ``last()`` / ``step()`` loop (an action drawn from the
    mask with ``seed``; ``None`` once done), skipping the first ``skip`` records."""
    rng = np.random.default_rng(seed)
    seen = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        seen.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc,
                     json.dumps(info, sort_keys=True), tuple(env.agents)))
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    return seen[skip:]


@pytest.mark.parametrize("moves", [0, 7])
@pytest.mark.parametrize("env_id,params", CASES)
def test_pickled_and_copied_env_runs_agent_iter_like_its_twin(env_id, params, moves):
    """A pickled or deep-copied env (right after reset, or mid-game in an agent_iter loop)
    runs the whole agent_iter loop exactly as an untouched twin."""
    import copy

    def started():
        env = make_env(env_id, params, max_moves=60)
        env.reset(seed=5)
        rng = np.random.default_rng(1)
        for _agent in env.agent_iter(max_iter=moves):  # stops after a step
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        return env

    twin = _agent_iter_trajectory(started(), seed=2)
    assert twin
    original = started()
    for clone in (pickle.loads(pickle.dumps(original)), copy.deepcopy(original)):
        assert _agent_iter_trajectory(clone, seed=2) == twin
    assert _agent_iter_trajectory(original, seed=2) == twin  # the copies left the original alone


@pytest.mark.parametrize("env_id,params", CASES)
def test_env_loop_equals_pettingzoo_order_enforcing_wrapper(env_id, params):
    """env()'s own ``last`` / ``agent_iter`` (which skip the wrapper's attribute look-ups) give
    exactly what PettingZoo's OrderEnforcingWrapper over the raw env gives, step by step."""
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    ours, theirs = make_env(env_id, params), OrderEnforcingWrapper(make_raw(env_id, params))
    for seed in (0, 1):
        ours.reset(seed=seed)
        theirs.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent, other in zip(ours.agent_iter(), theirs.agent_iter()):
            assert agent == other
            got, want = ours.last(), theirs.last()
            np.testing.assert_array_equal(got[0]["observation"], want[0]["observation"])
            np.testing.assert_array_equal(got[0]["action_mask"], want[0]["action_mask"])
            assert got[1:] == want[1:] and ours.last(observe=False)[0] is None
            action = None if got[2] or got[3] else int(rng.choice(np.flatnonzero(got[0]["action_mask"])))
            ours.step(action)
            theirs.step(action)
        assert ours.agents == theirs.agents == []
    assert list(ours.agent_iter()) == []  # over: the iterator stops at once


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_env_loop_keeps_pettingzoo_order_checks(env_id):
    env = fox_envs.make(env_id)
    with pytest.raises(AttributeError, match="before reset"):
        env.last()
    with pytest.raises(Exception, match="reset"):
        env.agent_iter()
    env.reset(seed=0)
    iterator = iter(env.agent_iter(max_iter=2))
    next(iterator)
    with pytest.raises(AssertionError, match="need to call step"):
        next(iterator)  # no step since the last agent
    env.reset(seed=0)
    counted = 0
    for _ in env.agent_iter(max_iter=3):
        observation = env.last()[0]
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
        counted += 1
    assert counted == 3


# ----- random play invariants on the rules core -----------------------------------------------
def check_state_invariants(state, full: bool) -> None:
    game = state.game
    player = state.current_player()
    legal = state.legal_actions()
    assert legal == sorted(set(legal))
    mask = state.legal_actions_mask()
    assert mask.dtype == np.int8 and mask.shape == (game.num_actions,)
    assert np.flatnonzero(mask).tolist() == legal
    if player == TERMINAL:
        assert state.is_terminal() and legal == []
    elif player == CHANCE:
        outcomes = state.chance_outcomes()
        assert [a for a, _ in outcomes] == legal
        assert all(p > 0 for _, p in outcomes)
        assert math.isclose(sum(p for _, p in outcomes), 1.0, abs_tol=1e-9)
    else:
        assert 0 <= player < game.num_players and legal, "a player to move must have a legal action"
        assert state.chance_outcomes() == []
    for seat in range(game.num_players):
        obs = state.observation_tensor(seat)
        assert obs.dtype == np.float32 and obs.shape == tuple(game.observation_shape)
        assert np.all(np.isfinite(obs)) and obs.min() >= 0.0 and obs.max() <= 1.0
    returns = state.returns()
    assert returns.dtype == np.float64 and returns.shape == (game.num_players,)
    if not state.is_terminal():
        assert not returns.any()
    elif game.zero_sum:
        assert math.isclose(returns.sum(), 0.0, abs_tol=1e-9)
    if full:
        clone = state.clone()
        assert clone == state and str(clone) == str(state)
        for seat in range(game.num_players):
            np.testing.assert_array_equal(clone.observation_tensor(seat), state.observation_tensor(seat))
        check_in_place_writers(state, mask)
        loaded = state_from_json(state.to_json())
        assert loaded == state and str(loaded) == str(state)
        for action in legal:
            text = state.action_to_string(action)
            assert isinstance(text, str) and text
            assert state.string_to_action(text) == action


def check_in_place_writers(state, mask: np.ndarray) -> None:
    """``write_observation`` / ``write_legal_mask`` overwrite every entry of a dirty buffer with
    what ``observation_tensor`` / ``legal_actions_mask`` return, also in a non-contiguous one."""
    game = state.game
    for seat in range(game.num_players):
        want = state.observation_tensor(seat)
        contiguous = np.full(game.observation_shape, 7.0, dtype=np.float32)
        reversed_rows = np.full(game.observation_shape, 7.0, dtype=np.float32)[::-1]  # no flat view
        for out in (contiguous, reversed_rows):
            state.write_observation(seat, out)
            np.testing.assert_array_equal(out, want)
    for row in (np.ones(game.num_actions, dtype=np.int8), np.ones((game.num_actions, 2), dtype=np.int8)[:, 1]):
        state.write_legal_mask(row)
        np.testing.assert_array_equal(row, mask)


@pytest.mark.parametrize("env_id,params", CASES)
def test_random_play_invariants_full_checks(env_id, params):
    game = fox_envs.make_game(env_id, **params)
    for seed in range(4):
        previous = None
        for state in play_random_states(game, seed):
            check_state_invariants(state, full=True)
            if previous is not None:  # a clone taken before the move did not change with it
                assert len(previous.history()) == len(state.history()) - 1
            previous = state.clone()


@pytest.mark.parametrize("env_id,params", CASES)
def test_random_play_invariants_many_games(env_id, params):
    game = fox_envs.make_game(env_id, **params)
    for seed in range(100, 130):
        for state in play_random_states(game, seed):
            check_state_invariants(state, full=False)


@pytest.mark.slow
@pytest.mark.parametrize("env_id,params", CASES)
def test_random_play_invariants_thousand_games(env_id, params):
    game = fox_envs.make_game(env_id, **params)
    for seed in range(1000, 2000):
        for index, state in enumerate(play_random_states(game, seed)):
            check_state_invariants(state, full=(index % 7 == 0))


@pytest.mark.parametrize("env_id,params", CASES)
def test_env_games_end_within_max_moves_with_correct_rewards(env_id, params):
    for max_moves in (None, 7):
        env = make_env(env_id, params, max_moves=max_moves)
        limit = env.unwrapped.max_moves
        for seed in range(5):
            env.reset(seed=seed)
            decisions = 0
            final = {}
            rng = np.random.default_rng(seed)
            for agent in env.agent_iter(max_iter=10 * limit + 100):
                obs, reward, term, trunc, info = env.last()
                if term or trunc:
                    final[agent] = reward
                    env.step(None)
                    continue
                mask = obs["action_mask"]
                assert mask.any()
                env.step(int(rng.choice(np.flatnonzero(mask))))
                decisions += 1
            assert not env.agents, "every agent leaves the env at the end"
            assert decisions <= limit
            raw = env.unwrapped
            state = raw.game_state
            if state.is_terminal():
                np.testing.assert_allclose([final[a] for a in raw.possible_agents], state.returns())
            else:
                assert decisions == limit and all(raw.truncations.values())
                assert all(final[a] == 0.0 for a in raw.possible_agents)


# ----- bad input ------------------------------------------------------------------------------
@pytest.mark.parametrize("env_id,params", CASES)
def test_illegal_and_malformed_actions_raise_and_leave_state_untouched(env_id, params):
    game = fox_envs.make_game(env_id, **params)
    for state in play_random_states(game, seed=5):
        if state.is_terminal() or state.move_number() > 12:
            break
        before = state.clone()
        legal = set(state.legal_actions())
        illegal = [a for a in range(game.num_actions) if a not in legal][:3]
        for action in MALFORMED + illegal:
            with pytest.raises(IllegalActionError) as error:
                state.apply_action(action)
            assert state == before
            message = str(error.value)
            assert env_id in message and ("legal" in message)
        with pytest.raises(IllegalActionError):
            state.string_to_action("no such move")


HUGE = 10**5000  # str() of it raises ValueError (Python's 4300-digit limit)


class Hostile:
    """A value whose every dunder a message or a check might call raises."""

    __hash__ = None

    def __index__(self):
        raise RuntimeError("__index__ fails")

    def __int__(self):
        raise RuntimeError("__int__ fails")

    def __eq__(self, other):
        raise RuntimeError("__eq__ fails")

    def __bool__(self):
        raise RuntimeError("__bool__ fails")

    def __repr__(self):
        raise RuntimeError("__repr__ fails")


@pytest.mark.parametrize("env_id,params", CASES)
def test_huge_and_hostile_values_give_our_errors_whose_messages_never_fail(env_id, params):
    env = make_env(env_id, params)
    env.reset(seed=0)
    offender = env.agent_selection
    env.step(HUGE)  # ends the game for the offender, never a crash
    assert env.rewards[offender] == -1.0 and env.infos[offender]["illegal_action"] is True
    assert "digits" in env.infos[offender]["error"]
    state = fox_envs.make_game(env_id, **params).new_initial_state()
    for bad in (HUGE, -HUGE, Hostile(), np.array(HUGE, dtype=object)):
        with pytest.raises(IllegalActionError):
            state.apply_action(bad)
    for name in fox_envs.make_game(env_id).PARAMS:
        for bad in (HUGE, Hostile()):
            with pytest.raises(InvalidParameterError, match=name):
                fox_envs.make_game(env_id, **{**params, name: bad})
    for bad in (Hostile(), -HUGE):
        with pytest.raises(InvalidParameterError, match="max_moves"):
            fox_envs.make(env_id, max_moves=bad)
        with pytest.raises(InvalidParameterError, match="max_moves"):
            gymnasium.make("fox_envs/" + GAMES[env_id].gym_id, max_moves=bad)
        with pytest.raises(InvalidParameterError, match="seat"):
            gymnasium.make("fox_envs/" + GAMES[env_id].gym_id, seat=bad)


@pytest.mark.parametrize("env_id,params", CASES)
def test_numpy_integer_actions_are_accepted(env_id, params):
    game = fox_envs.make_game(env_id, **params)
    state = game.new_initial_state()
    for kind in (np.int64, np.int32, np.uint16):
        if state.is_terminal():
            break
        state.apply_action(kind(state.legal_actions()[0]))
    state.apply_action(np.array(state.legal_actions()[0])) if not state.is_terminal() else None


@pytest.mark.parametrize("env_id,params", CASES)
def test_raw_env_raises_on_illegal_action_and_changes_nothing(env_id, params):
    env = make_raw(env_id, params)
    env.reset(seed=0)
    agent = env.agent_selection
    history = env.game_state.history()
    for action in MALFORMED + [env.game.num_actions]:
        with pytest.raises(IllegalActionError):
            env.step(action)
    assert env.game_state.history() == history and env.agent_selection == agent
    assert not any(env.terminations.values())


@pytest.mark.parametrize("env_id,params", CASES)
@pytest.mark.parametrize("bad_action", [-1, float("nan"), None, 10**6, "x"])
def test_wrapped_env_ends_game_with_minus_one_for_offender(env_id, params, bad_action):
    env = make_env(env_id, params)
    env.reset(seed=0)
    offender = env.agent_selection
    env.step(bad_action)
    assert all(env.terminations.values())
    for agent in env.possible_agents:
        expected = -1.0 if agent == offender else 0.0
        assert env.rewards[agent] == expected
        assert env.infos[agent]["illegal_action_by"] == offender
    assert env.infos[offender]["illegal_action"] is True
    for agent in env.agent_iter():
        env.step(None)
    assert not env.agents


@pytest.mark.parametrize("env_id,params", CASES)
def test_mask_is_zero_for_agents_not_to_move(env_id, params):
    env = make_env(env_id, params)
    env.reset(seed=1)
    for agent in env.possible_agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.any() == (agent == env.agent_selection)
    assert env.observation_space("player_0") is env.observation_space("player_0")


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_bad_params_raise_clear_errors(env_id):
    with pytest.raises(InvalidParameterError, match="no_such_param"):
        fox_envs.make(env_id, no_such_param=1)
    with pytest.raises(InvalidParameterError, match="no_such_param"):
        fox_envs.make_game(env_id, no_such_param=1)
    for bad in (0, -3, 2.5, "10", True):
        with pytest.raises(InvalidParameterError, match="max_moves"):
            fox_envs.make(env_id, max_moves=bad)
    with pytest.raises(InvalidParameterError, match="render_mode"):
        fox_envs.make(env_id, render_mode="video")
    for name, param in GAMES[env_id] and fox_envs.make_game(env_id).PARAMS.items():
        for bad in ("nonsense", -99, 3.5, None, [1, 2]):
            try:
                param.check(bad)
            except (ValueError, TypeError, AttributeError):
                with pytest.raises(InvalidParameterError, match=name):
                    fox_envs.make_game(env_id, **{name: bad})


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_corrupt_saved_states_raise_clear_errors(env_id):
    state = fox_envs.make_game(env_id).new_initial_state()
    good = json.loads(state.to_json())
    bad_texts = [
        "{not json", "[]", json.dumps({"game": env_id}),
        json.dumps({**good, "game": "chess_v0"}),
        json.dumps({**good, "params": {"no_such_param": 1}}),
        json.dumps({**good, "history": [10**6]}),
        json.dumps({**good, "history": "0,1"}),
        json.dumps({**good, "history": [0.5]}),
        json.dumps({**good, "game": [1]}), json.dumps({**good, "game": None}),
        json.dumps({**good, "params": None}), json.dumps({**good, "params": [1]}),
        json.dumps({**good, "params": {"env_id": 1}}), json.dumps({**good, "params": {"self": 1}}),
        json.dumps({**good, "history": None}), json.dumps({**good, "history": [True]}),
        json.dumps({**good, "history": [[0]]}), json.dumps({**good, "history": [{}]}),
        "[" * 100_000 + "]" * 100_000, '{"game": ' + "[" * 100_000 + "]" * 100_000 + "}",
        b"\xff\xfe", None, 5,
    ]
    for text in bad_texts:
        with pytest.raises(InvalidStateError):
            state_from_json(text)
    assert issubclass(InvalidStateError, ValueError)


def test_game_params_named_like_the_constructors_arguments_are_unknown_params():
    for name in ("env_id", "self"):
        with pytest.raises(InvalidParameterError, match=f"unknown parameter.*{name}"):
            fox_envs.make_game("xceter_o_v0", **{name: 1})
    with pytest.raises(InvalidParameterError, match="unknown parameter.*self"):
        fox_envs.make("xceter_o_v0", self=1)


# ----- names, registries, the Gymnasium view -------------------------------------------------
@pytest.mark.parametrize("env_id", ENV_IDS)
def test_make_by_name_and_pettingzoo_registry(env_id):
    env = fox_envs.make(env_id)
    if GAMES[env_id].env_module:
        assert raw_env_class(env_id) is env_module(env_id).raw_env
    assert type(env.unwrapped) is raw_env_class(env_id)
    assert env.metadata["name"] == env_id
    if pettingzoo_registry() is None:  # PettingZoo before 1.27 has no registry: nothing registered there
        assert not hasattr(pettingzoo, "make")
    else:
        pz = pettingzoo.make("aec", pettingzoo_id(env_id))
        assert type(pz.unwrapped) is raw_env_class(env_id)
    game = fox_envs.make_game(env_id)
    assert game.name == env_id and game.new_initial_state().game == game


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_gymnasium_view_passes_check_env_and_reports_masks(env_id):
    gym_id = "fox_envs/" + GAMES[env_id].gym_id
    env = gymnasium.make(gym_id, opponent="random")
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=4)
    assert env.observation_space.contains(obs)
    masks = env.get_wrapper_attr("action_masks")()
    assert masks.dtype == bool and masks.any()
    np.testing.assert_array_equal(masks, info["action_mask"].astype(bool))
    total, done, steps = 0.0, False, 0
    while not done:
        action = int(np.flatnonzero(env.get_wrapper_attr("action_masks")())[0])
        obs, reward, term, trunc, info = env.step(action)
        total += reward
        done = term or trunc
        steps += 1
    assert steps <= env.unwrapped.max_moves
    env.reset(seed=4)
    unmasked = np.flatnonzero(~env.get_wrapper_attr("action_masks")())
    illegal = int(unmasked[0]) if len(unmasked) else env.unwrapped.game.num_actions
    _, reward, term, _, info = env.step(illegal)
    assert reward == -1.0 and term and info["illegal_action"] is True
    strict = gymnasium.make(gym_id, opponent="heuristic", illegal_action="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalActionError):
        strict.step(-5)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_gymnasium_view_rejects_a_max_moves_used_up_before_the_learner_moves(env_id):
    gym_id = "fox_envs/" + GAMES[env_id].gym_id
    seat = fox_envs.make_game(env_id).num_players - 1
    probe = gymnasium.make(gym_id, seat=seat).unwrapped
    probe.reset(seed=2)
    before = probe.moves  # the other seats' decisions before the learner's first one
    assert before >= 1 and probe.state.current_player() == seat
    short = gymnasium.make(gym_id, seat=seat, max_moves=before).unwrapped
    with pytest.raises(InvalidParameterError, match=f"max_moves={before} is used up .* seat {seat}"):
        short.reset(seed=2)
    history = short.state.history()
    with pytest.raises(gymnasium.error.ResetNeeded):
        short.step(0)
    assert short.state.history() == history  # nothing was played for another seat
    enough = gymnasium.make(gym_id, seat=seat, max_moves=before + 1).unwrapped
    _, info = enough.reset(seed=2)
    assert info["action_mask"].any() and enough.state.current_player() == seat
    legal = int(np.flatnonzero(info["action_mask"])[0])
    _, reward, term, trunc, _ = enough.step(legal)
    assert (reward, term, trunc) == (0.0, False, True) and legal in enough.state.history()
    with pytest.raises(gymnasium.error.ResetNeeded):
        enough.step(legal)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_gymnasium_view_is_reproducible_from_seed(env_id):
    gym_id = "fox_envs/" + GAMES[env_id].gym_id

    def trajectory():
        env = gymnasium.make(gym_id, opponent="random")
        obs, info = env.reset(seed=11)
        out = [obs.copy()]
        done = False
        while not done:
            mask = info["action_mask"]
            obs, reward, term, trunc, info = env.step(int(np.flatnonzero(mask)[-1]))
            out.append(obs.copy())
            done = term or trunc
        return out

    first, second = trajectory(), trajectory()
    assert len(first) == len(second)
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


# ----- one rule for integers --------------------------------------------------------------------
class _Seat(__import__("enum").IntEnum):
    ZERO = 0
    ONE = 1


class _MyInt(int):
    pass


class _MyInt64(np.int64):
    pass


def _not_integers(value: int) -> list:
    from decimal import Decimal
    from fractions import Fraction

    return [bool(value % 2), float(value), np.float32(value), np.float64(value), Fraction(value), Decimal(value),
            complex(value), np.timedelta64(value), np.array([value]), np.array([[value]]), str(value),
            np.array(float(value))]


def _integers(value: int) -> list:
    return [value, np.int64(value), np.uint8(value), np.int16(value), _MyInt(value), _MyInt64(value)]


def test_one_integer_rule_for_actions():
    from fox_envs.core.game import action_as_int

    for good in _integers(3) + [np.array(3), np.array(3, dtype=np.uint8), _Seat.ONE]:
        assert action_as_int(good) == int(good) and type(action_as_int(good)) is int, repr(good)
    for bad in _not_integers(3) + [np.array(np.timedelta64(3)), None]:
        assert action_as_int(bad) is None, repr(bad)
    env = fox_envs.make("xceter_o_v0")
    env.reset(seed=0)
    env.step(_Seat.ONE)  # an IntEnum is an action
    assert env.unwrapped.game_state.history() == [1]
    env.step(np.timedelta64(4))  # a timedelta is not
    assert env.infos["player_1"]["illegal_action"] is True


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_one_integer_rule_for_params_max_moves_seats_and_seeds(env_id):
    gym_id = "fox_envs/" + GAMES[env_id].gym_id
    integer_params = {"num_players": 2, "max_rounds": 3, "egg_tokens": 14}
    for name in set(fox_envs.make_game(env_id).PARAMS) & set(integer_params):
        value = integer_params[name]
        for good in _integers(value):
            assert fox_envs.make_game(env_id, **{name: good}).params[name] == value
            assert type(fox_envs.make_game(env_id, **{name: good}).params[name]) is int
        for bad in _not_integers(value):
            with pytest.raises(InvalidParameterError, match=name):
                fox_envs.make_game(env_id, **{name: bad})
    for good in _integers(4):
        assert fox_envs.make(env_id, max_moves=good).unwrapped.max_moves == 4
        assert gymnasium.make(gym_id, max_moves=good).unwrapped.max_moves == 4
        env = fox_envs.make(env_id)
        env.reset(seed=good)
        assert env.unwrapped.np_random_seed == 4
        view = gymnasium.make(gym_id).unwrapped
        view.reset(seed=good)
        assert view.np_random_seed == 4
    assert gymnasium.make(gym_id, seat=_Seat.ONE).unwrapped.seat == 1
    for bad in _not_integers(4):
        with pytest.raises(InvalidParameterError, match="max_moves"):
            fox_envs.make(env_id, max_moves=bad)
        with pytest.raises(InvalidParameterError, match="max_moves"):
            gymnasium.make(gym_id, max_moves=bad)
        with pytest.raises(InvalidParameterError, match="seed"):
            fox_envs.make(env_id).reset(seed=bad)
        with pytest.raises(InvalidParameterError, match="seed"):
            gymnasium.make(gym_id).unwrapped.reset(seed=bad)
    for bad in _not_integers(1):
        with pytest.raises(InvalidParameterError, match="seat"):
            gymnasium.make(gym_id, seat=bad)


def test_one_integer_rule_for_num_envs_workers_and_evaluate():
    from fox_envs.evaluation import evaluate

    for backend in ("batch", "processes"):
        for good in _integers(3):
            envs = gymnasium.make_vec("fox_envs/XCeterO-v0", num_envs=good, backend=backend, max_moves=np.int64(9),
                                      seat=_Seat.ZERO)
            assert envs.num_envs == 3
            envs.reset(seed=np.int64(1))
            envs.close()
        for bad in _not_integers(3):
            with pytest.raises(InvalidParameterError, match="num_envs"):
                gymnasium.make_vec("fox_envs/XCeterO-v0", num_envs=bad, backend=backend)
            with pytest.raises(InvalidParameterError, match="max_moves"):
                gymnasium.make_vec("fox_envs/XCeterO-v0", num_envs=2, backend=backend, max_moves=bad)
    result = evaluate("xceter_o_v0", ["random", "heuristic"], num_games=np.int64(2), seed=_MyInt(1),
                      max_moves=np.uint8(20), workers=np.int8(1))
    assert result.num_games == 2 and result.seed == 1 and result.max_moves == 20
    for name in ("num_games", "seed", "max_moves", "workers"):
        for bad in _not_integers(2):
            with pytest.raises(InvalidParameterError, match=name):
                evaluate("xceter_o_v0", ["random", "heuristic"], **{"num_games": 2, name: bad})
