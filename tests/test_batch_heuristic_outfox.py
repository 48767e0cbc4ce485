"""Outfox's batched heuristic (``fox_envs.games.outfox.kernels_heuristic``) chooses as
``OutfoxHeuristic.best_actions`` does, with two and three players."""
from __future__ import annotations

import numpy as np
import pytest

import fox_envs.batch
from fox_envs import make_game
from fox_envs.games.outfox.heuristic import OutfoxHeuristic
from batch_heuristic_check import assert_ties_spread, heuristic_lockstep
from batch_heuristic_match import kernel_against_python


def kernel_best(env, i: int) -> list[int]:
    return env._kernels.best_moves(i, env._common)


@pytest.mark.parametrize("num_players, rows, steps", [
    (2, 50, 40), (3, 50, 30),
    pytest.param(2, 200, 60, marks=pytest.mark.slow), pytest.param(3, 200, 50, marks=pytest.mark.slow)])
def test_kernel_best_moves_equal_the_python_heuristic(num_players, rows, steps):
    """Lock-step positions of mixed heuristic and random play (placements and slides): the
    kernel's best set is the agent's, its pick one of them."""
    stats = heuristic_lockstep("outfox_v0", rows, steps, seed=steps + num_players, random_share=0.5,
                               kernel_best=kernel_best, num_players=num_players)
    assert stats["unique"] > rows * steps // 10 and stats["tied"] > rows * steps // 10
    assert stats["games"] > rows // 10


@pytest.mark.parametrize("num_players", [2, 3])
def test_tied_picks_spread_over_the_tied_moves(num_players):
    """Positions after the first turn with 2 to 8 best moves, from random play."""
    rng = np.random.default_rng(num_players)
    agent = OutfoxHeuristic()
    found = 0
    while found < 3:
        state = make_game("outfox_v0", num_players=num_players).new_initial_state()
        for _ in range(int(rng.integers(3, 12))):
            if not state.is_terminal():
                state.apply_action(int(rng.choice(state.legal_actions())))
        if state.is_terminal() or state.turns == 0:
            continue
        if 2 <= len(agent.best_actions(state, state.current_player())) <= 8:
            assert_ties_spread("outfox_v0", state, seed=found, num_players=num_players)
            found += 1


def test_kernel_takes_a_win_over_two_decisions():
    state = make_game("outfox_v0").new_initial_state()
    for move in ["SR@a1", "TR@b2", "a1-c1"]:
        state.apply_string(move)  # player_0 wins e.g. with CR@c3 then b2-c2 (c1 c2 c3 = SR TR CR)
    env = fox_envs.batch.make("outfox_v0", 32, seed=0)
    for i in range(32):
        env.load(i, state)
    for i, place in enumerate(env.heuristic_actions().tolist()):
        after = state.clone()
        after.apply_action(place)
        env.load(i, after)
        after.apply_action(int(env.heuristic_actions()[i]))
        assert after.is_terminal() and after.winner == 0


def test_finished_rows_get_minus_one_and_rows_do_not_depend_on_num_envs():
    small = fox_envs.batch.make("outfox_v0", 5, seed=3, auto_reset=False, num_players=3)
    large = fox_envs.batch.make("outfox_v0", 9, seed=3, auto_reset=False, num_players=3)
    rng = np.random.default_rng(0)
    while (small.current_player >= 0).any():
        picks = small.heuristic_actions()
        np.testing.assert_array_equal(large.heuristic_actions()[:5], picks)
        assert np.all((picks == -1) == (small.current_player < 0))
        small.step(picks)
        others = large.random_actions(rng)  # drawn from rng: the rows' pick streams are left alone
        large.step(np.concatenate([picks, others[5:]]))
    assert (small.heuristic_actions() == -1).all()


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3])
def test_kernel_and_python_heuristic_are_even(num_players):
    """600 games, the kernel in every seat equally often: its score share is the fair one
    (1 / num_players) within a 99% interval."""
    env = fox_envs.batch.make("outfox_v0", 600, seed=11, auto_reset=False, num_players=num_players)
    rate = kernel_against_python(env, OutfoxHeuristic, seed=1000)
    fair = 1 / num_players
    half_width = 2.58 * np.sqrt(fair * (1 - fair) / env.num_envs)
    assert abs(rate - fair) <= half_width, f"kernel scored {rate:.3f}, fair {fair:.3f} +- {half_width:.3f}"
