"""Outwit's batched heuristic chooses as ``OutwitHeuristic`` does."""
from __future__ import annotations

import pytest

from fox_envs.games.outwit.kernels_heuristic import best_moves_of_row
from batch_heuristic_check import assert_even_match, assert_ties_spread, heuristic_lockstep


def kernel_best(env, i: int) -> list[int]:
    k = env._kernels
    return best_moves_of_row(i, k.chips, k.slot, k.occ, k.home, k.key, env._common).tolist()


def test_kernel_best_moves_equal_the_python_heuristic():
    """10,000 positions of mostly heuristic play (whole games: races to the corner, blocked
    lanes, moves that let the opponent finish, repetitions): the kernel's best set is the
    agent's, its pick one of them; tied positions spread over the tied set."""
    stats = heuristic_lockstep("outwit_v0", 100, 100, seed=6, random_share=0.05, kernel_best=kernel_best)
    assert stats["positions"] == 10_000 and stats["unique"] > 1000 and stats["tied"] > 200
    assert stats["games"] > 100
    assert_ties_spread("outwit_v0", stats["tie_states"][-1])


@pytest.mark.slow
@pytest.mark.parametrize("random_share", [0.05, 0.3])
def test_kernel_best_moves_equal_the_python_heuristic_in_long_games(random_share):
    """20,000 more positions each, deep into games made long by random moves."""
    stats = heuristic_lockstep("outwit_v0", 50, 400, seed=11, random_share=random_share, kernel_best=kernel_best)
    assert stats["games"] > 200


@pytest.mark.slow
def test_batched_heuristic_plays_even_with_the_python_heuristic():
    """300 games, the batched heuristic on alternate seats: its score (a draw half) is even."""
    assert_even_match("outwit_v0", 300, seed=2)
