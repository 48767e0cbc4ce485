"""Bye Bye Mr. Fox!'s batched heuristic chooses as ``ByeByeMrFoxHeuristic`` does (1-4 players,
other egg counts and layouts)."""
from __future__ import annotations

import numpy as np
import pytest

import fox_envs.batch
from fox_envs.games.bye_bye_mr_fox.kernels_heuristic import best_moves_of_row
from batch_heuristic_check import assert_ties_spread, heuristic_lockstep, play_against_python

VARIANTS = [
    pytest.param({}, id="default"),
    pytest.param({"num_players": 1, "egg_tokens": 12}, id="solo-12-eggs"),
    pytest.param({"num_players": 4, "layout": ["three_hens", "fox", "black", "brown", "fox", "white"]},
                 id="4-players-layout"),
]


def kernel_best(env, i: int) -> list[int]:
    return best_moves_of_row(i, env._kernels.st, env._common).tolist()


@pytest.mark.parametrize("params", VARIANTS)
def test_kernel_best_moves_equal_the_python_heuristic(params):
    """10,000 positions of mixed heuristic and random play: the kernel's best set (places and
    gifts) is the agent's, its pick one of them; tied positions spread over the tied set."""
    stats = heuristic_lockstep("bye_bye_mr_fox_v0", 100, 100, seed=4, kernel_best=kernel_best, **params)
    assert stats["positions"] == 10_000 and stats["unique"] > 1000 and stats["tied"] > 200
    assert stats["games"] > 100
    assert_ties_spread("bye_bye_mr_fox_v0", stats["tie_states"][-1], **params)


def test_gifts_are_checked_and_finished_rows_get_minus_one():
    """Give decisions occur among the checked positions' kind; a finished row (no auto-reset)
    gets -1."""
    env = fox_envs.batch.make("bye_bye_mr_fox_v0", 64, seed=2, auto_reset=False)
    gave = 0
    while (env.current_player >= 0).any():
        picks = env.heuristic_actions()
        assert ((picks >= 0) == (env.current_player >= 0)).all()
        gave += int((picks >= 12).sum())
        env.step(picks)
    assert gave > 0
    assert (env.heuristic_actions() == -1).all()


@pytest.mark.slow
def test_batched_heuristic_team_wins_as_often_as_the_python_team():
    """600 two-player games, alternately every seat batched or every seat Python: the win rates
    differ by less than the 99% interval of their difference."""
    returns, _ = play_against_python("bye_bye_mr_fox_v0", 600, seed=3, batch_seats=lambda i: [0, 1] if i % 2 else [])
    won = returns[:, 0] > 0
    batched, python = won[1::2], won[0::2]
    difference = batched.mean() - python.mean()
    spread = 2.58 * np.sqrt(batched.var() / len(batched) + python.var() / len(python))
    assert abs(difference) <= spread, (batched.mean(), python.mean())
