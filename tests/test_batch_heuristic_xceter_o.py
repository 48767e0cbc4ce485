"""X-Ceter-O's batched heuristic chooses as ``XCeterOHeuristic`` does (both rule variants)."""
from __future__ import annotations

import numpy as np
import pytest

import fox_envs.batch
from fox_envs.games.xceter_o.kernels_heuristic import best_squares_of_row
from batch_heuristic_check import assert_even_match, assert_ties_spread, heuristic_lockstep

VARIANTS = [pytest.param({}, id="plain"), pytest.param({"ordered_rows": True}, id="ordered_rows")]


def kernel_best(env, i: int) -> list[int]:
    kernels = env._kernels
    return best_squares_of_row(i, *kernels.state, env._common, kernels.ordered).tolist()


@pytest.mark.parametrize("params", VARIANTS)
def test_kernel_best_moves_equal_the_python_heuristic(params):
    """10,000 positions of mixed heuristic and random play (jumps, repetitions and wins among
    them): the kernel's best set is the agent's, its pick one of them."""
    stats = heuristic_lockstep("xceter_o_v0", 100, 100, seed=3, kernel_best=kernel_best, **params)
    assert stats["positions"] == 10_000 and stats["unique"] > 1000 and stats["tied"] > 1000
    assert stats["games"] > 100
    assert_ties_spread("xceter_o_v0", stats["tie_states"][-1], **params)


def test_finished_rows_get_minus_one_and_rows_do_not_depend_on_num_envs():
    env = fox_envs.batch.make("xceter_o_v0", 3, seed=5, auto_reset=False)
    for square in (4, 0, 1, 2):  # player_0 plays 4, 1 and would win with 7
        env.step(np.full(3, square))
    env.step(np.array([7, 8, 8]))  # row 0 wins with 1-4-7
    picks = env.heuristic_actions()
    assert picks[0] == -1 and env.current_player[0] < 0
    assert (picks[1:] >= 0).all()
    small, large = fox_envs.batch.make("xceter_o_v0", 2, seed=9), fox_envs.batch.make("xceter_o_v0", 50, seed=9)
    for _ in range(40):
        a, b = small.heuristic_actions(), large.heuristic_actions()
        np.testing.assert_array_equal(a, b[:2])
        small.step(a)
        large.step(b)


@pytest.mark.slow
def test_batched_heuristic_plays_even_with_the_python_heuristic():
    """400 games, the batched heuristic on alternate seats: its score (a draw half) is even."""
    assert_even_match("xceter_o_v0", 400, seed=1)
