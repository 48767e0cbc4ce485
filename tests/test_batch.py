"""The batched core (``fox_envs.batch``) against the rules core, for every game and variant:
lock-step random play, the bridge, auto-reset, truncation, streams, bad actions, copies."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import fox_envs
import fox_envs.batch
import fox_envs.batch._rows
from fox_envs.core.registry import GAMES, load_object
from fox_envs.batch.env import count_decisions
from batch_lockstep import assert_row_matches, run_lockstep
from conftest import conformance_cases

CASES = conformance_cases()
CHANCE_GAMES = ("bye_bye_mr_fox_v0", "outfoxed_v0")


def snapshot(env) -> dict:
    return {name: array.copy() for name, array in env._arrays.items()}


def assert_same_arrays(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


@pytest.mark.parametrize("env_id, params", CASES)
def test_lockstep_with_the_rules_core(env_id, params):
    env = fox_envs.batch.make(env_id, 6, seed=3, **params)
    stats = run_lockstep(env, 400, check_bridge_every=7)
    assert stats["ended"] > 0


@pytest.mark.parametrize("env_id, params", CASES)
def test_lockstep_with_short_games_truncates(env_id, params):
    """A small ``max_moves`` truncates (reward 0) exactly where the env would."""
    env = fox_envs.batch.make(env_id, 5, seed=11, max_moves=7, **params)
    stats = run_lockstep(env, 60, rng=np.random.default_rng(1))
    assert stats["truncated"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("env_id, params", CASES)
def test_lockstep_long(env_id, params):
    env = fox_envs.batch.make(env_id, 24, seed=5, **params)
    stats = run_lockstep(env, 3000, check_bridge_every=13)
    assert stats["ended"] > 24


@pytest.mark.parametrize("env_id", ["xceter_o_v0", "outwit_v0"])
def test_repetition_tables_stay_exact_when_their_generation_wraps(env_id):
    """A row's repetition table is reused game after game (an 8-bit generation per row, slots
    zeroed when it wraps): rows whose generation is about to wrap still follow the core."""
    env = fox_envs.batch.make(env_id, 4, seed=6, max_moves=40)
    env._arrays["rep_counts"][:, 0] = fox_envs.batch._rows.GENERATIONS - 1
    junk = np.uint64((0xDEAD << 20) | (1 << 2) | 1)  # a slot of generation 1, as left by an old game
    env._arrays["rep_keys"][:, ::2] = junk
    env.reset(seed=6)  # every row starts a game at the last generation
    stats = run_lockstep(env, 300)
    assert stats["ended"] >= 8
    assert not (env._arrays["rep_keys"] == junk).any(), "the wrap did not empty the old slots"
    assert (env._arrays["rep_counts"][:, 0] < fox_envs.batch._rows.GENERATIONS - 1).all()  # wrapped


@pytest.mark.parametrize("env_id, params", CASES)
def test_core_state_and_load_round_trip(env_id, params):
    env = fox_envs.batch.make(env_id, 4, seed=2, **params)
    other = fox_envs.batch.make(env_id, 3, seed=9, **params)
    for step in range(40):
        env.step(env.random_actions())
        if step % 5 == 0:
            state = env.core_state(step % 4)
            other.load(1, state)
            assert other.core_state(1) == state
            assert_row_matches(other, 1, state)
            assert other.moves[1] == count_decisions(state)
            untouched = {name: (a[0].copy(), a[2].copy()) for name, a in snapshot(other).items()
                         if a.shape[:1] == (3,)}
            other.load(1, state)  # loading again changes no other row
            for name, (row0, row2) in untouched.items():
                np.testing.assert_array_equal(other._arrays[name][0], row0)
                np.testing.assert_array_equal(other._arrays[name][2], row2)
            other.step(other.random_actions())  # the loaded row plays on


@pytest.mark.parametrize("env_id, params", CASES)
def test_rows_do_not_depend_on_num_envs(env_id, params):
    small = fox_envs.batch.make(env_id, 3, seed=21, **params)
    large = fox_envs.batch.make(env_id, 11, seed=21, **params)
    for _ in range(120):
        small.step(small.random_actions())
        large.step(large.random_actions())
        np.testing.assert_array_equal(small.observation, large.observation[:3])
        np.testing.assert_array_equal(small.action_mask, large.action_mask[:3])
        np.testing.assert_array_equal(small.current_player, large.current_player[:3])
    for i in range(3):
        assert small.core_state(i) == large.core_state(i)


@pytest.mark.parametrize("env_id, params", CASES)
def test_seeds_fix_the_games(env_id, params):
    a = fox_envs.batch.make(env_id, 4, seed=5, **params)
    b = fox_envs.batch.make(env_id, 4, seed=5, **params)
    c = fox_envs.batch.make(env_id, 4, seed=6, **params)
    for _ in range(30):
        actions = a.random_actions()
        a.step(actions)
        b.step(b.random_actions())
        c.step(c.random_actions())
    assert [a.core_state(i) for i in range(4)] == [b.core_state(i) for i in range(4)]
    assert [a.core_state(i) for i in range(4)] != [c.core_state(i) for i in range(4)]


@pytest.mark.parametrize("env_id, params", CASES)
def test_without_auto_reset_finished_games_stay_finished(env_id, params):
    env = fox_envs.batch.make(env_id, 4, seed=8, auto_reset=False, max_moves=30, **params)
    finished = np.zeros(4, bool)
    for _ in range(80):
        actions = env.random_actions()
        assert (actions[finished] == -1).all()
        _, term, trunc = env.step(actions)
        assert not (finished & (term | trunc)).any(), "a finished game reported an end again"
        finished |= term | trunc
        assert (env.current_player[finished] == fox_envs.TERMINAL).all()
        assert not env.action_mask[finished].any()
        for i in np.flatnonzero(finished):
            state = env.core_state(int(i))
            assert state.is_terminal() or count_decisions(state) == 30
    assert finished.all()
    env.reset(seed=8)
    assert (env.current_player >= 0).all()


@pytest.mark.parametrize("env_id, params", CASES)
def test_bad_actions_name_the_row_and_change_nothing(env_id, params):
    env = fox_envs.batch.make(env_id, 5, seed=4, **params)
    for _ in range(3):
        env.step(env.random_actions())
    good = env.random_actions()
    before = snapshot(env)
    illegal = int(np.flatnonzero(~env.action_mask[3])[0])
    for bad_value in (illegal, -1, env.num_actions, 10**6):
        actions = good.copy()
        actions[3] = bad_value
        with pytest.raises(fox_envs.IllegalActionError, match="row 3"):
            env.step(actions)
        assert_same_arrays(before, snapshot(env))
    with pytest.raises(fox_envs.IllegalActionError, match="row 0.*integers"):
        env.step(good.astype(np.float64))
    with pytest.raises(ValueError, match="shape"):
        env.step(good[:4])
    with pytest.raises(fox_envs.IllegalActionError):
        env.step([None] * 5)
    assert_same_arrays(before, snapshot(env))
    env.step(good)  # still playable


@pytest.mark.parametrize("env_id, params", CASES[:1] + [c for c in CASES if c.values[0] == "outfoxed_v0"][:1])
def test_bad_params(env_id, params):
    with pytest.raises(fox_envs.InvalidParameterError, match="num_envs"):
        fox_envs.batch.make(env_id, 0)
    with pytest.raises(fox_envs.InvalidParameterError, match="max_moves"):
        fox_envs.batch.make(env_id, 2, max_moves=0)
    with pytest.raises(fox_envs.InvalidParameterError, match="threads"):
        fox_envs.batch.make(env_id, 2, threads=0)
    with pytest.raises(fox_envs.InvalidParameterError, match="unknown parameter"):
        fox_envs.batch.make(env_id, 2, colour="red")
    with pytest.raises(fox_envs.InvalidParameterError, match="seed"):
        fox_envs.batch.make(env_id, 2, seed=-1)
    with pytest.raises(fox_envs.InvalidParameterError, match="unknown env id"):
        fox_envs.batch.make("chess_v0", 2)


@pytest.mark.parametrize("env_id, params", CASES)
def test_pickle_and_deepcopy_continue_identically(env_id, params):
    env = fox_envs.batch.make(env_id, 4, seed=12, threads=2, **params)
    for _ in range(10):
        env.step(env.random_actions())
    for twin in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        a, b = copy.deepcopy(env), twin
        for _ in range(40):
            ra, ta, xa = a.step(a.random_actions())
            rb, tb, xb = b.step(b.random_actions())
            np.testing.assert_array_equal(ra, rb)
            np.testing.assert_array_equal(ta, tb)
        assert_same_arrays(snapshot(a), snapshot(b))


@pytest.mark.parametrize("env_id, params", CASES)
def test_threads_give_the_same_games(env_id, params):
    rows = 2 * fox_envs.batch.env.kernels_class(env_id).min_rows_per_thread + 5  # enough rows for two threads
    one = fox_envs.batch.make(env_id, rows, seed=13, **params)
    two = fox_envs.batch.make(env_id, rows, seed=13, threads=2, **params)
    for _ in range(30):
        one.step(one.random_actions())
        two.step(two.random_actions())
    assert_same_arrays(snapshot(one), snapshot(two))


@pytest.mark.parametrize("env_id", [e for e in GAMES if e in CHANCE_GAMES])
def test_first_chance_outcomes_follow_the_core_probabilities(env_id):
    """Every row's first chance outcome, over many rows, against the core's probabilities."""
    rows = 6000
    env = fox_envs.batch.make(env_id, rows, seed=17)
    start = env.game.new_initial_state()
    while not start.is_chance_node():  # the same decisions in every row up to the first chance
        action = start.legal_actions()[0]
        env.step(np.full(rows, action))
        start.apply_action(action)
    first_chance_index = len(start.history())
    outcomes = env._arrays["hist"][:, first_chance_index]
    for outcome, probability in start.chance_outcomes():
        frequency = np.mean(outcomes == outcome)
        sigma = np.sqrt(probability * (1 - probability) / rows)
        assert abs(frequency - probability) < 5 * sigma + 1e-9, (outcome, frequency, probability)


@pytest.mark.parametrize("env_id", list(GAMES))
def test_kernels_run_compiled(env_id):
    """The kernels users run are numba-compiled (not interpreted Python)."""
    env = fox_envs.batch.make(env_id, 2, seed=0)
    env.step(env.random_actions())
    kernels = load_object(fox_envs.core.registry.spec(env_id).kernels.split(":")[0] + ":run_rows")
    assert kernels.signatures, "run_rows (the step kernel taking the Rows box) was not compiled"


def test_random_actions_with_a_generator_are_legal_and_reproducible():
    env = fox_envs.batch.make("xceter_o_v0", 64, seed=0)
    a = env.random_actions(np.random.default_rng(4))
    b = env.random_actions(np.random.default_rng(4))
    np.testing.assert_array_equal(a, b)
    assert env.action_mask[np.arange(64), a].all()


def test_import_fox_envs_does_not_import_numba():
    """numba is imported by fox_envs.batch only: the core, the envs and FoxVectorEnv stay light."""
    import subprocess
    import sys

    code = ("import sys, gymnasium, fox_envs; fox_envs.make('outwit_v0').reset(seed=0); "
            "gymnasium.make_vec('fox_envs/XCeterO-v0', num_envs=2, workers=1).close(); "
            "assert 'numba' not in sys.modules, 'numba imported'; "
            "import fox_envs.batch; assert 'numba' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
