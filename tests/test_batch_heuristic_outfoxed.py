"""Outfoxed's batched heuristic (``fox_envs.games.outfoxed.kernels_heuristic``) chooses as
``OutfoxedHeuristic.best_actions`` does, from the mover's information only."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import fox_envs.batch
from fox_envs.games.outfoxed.heuristic import OutfoxedHeuristic
from fox_envs.games.outfoxed.kernels import PHASE
from fox_envs.games.outfoxed.rules import CALL, PASS, PHASE_NAMES
from batch_heuristic_check import assert_ties_spread, heuristic_lockstep
from batch_heuristic_match import kernel_against_python


def kernel_best(env, i: int) -> list[int]:
    return env._kernels.best_moves(i, env._common)


@pytest.mark.parametrize("rows, steps, params", [
    (100, 100, {}), (40, 40, {"max_rounds": 1}),
    pytest.param(200, 150, {}, marks=pytest.mark.slow),
    pytest.param(100, 150, {"max_rounds": 4}, marks=pytest.mark.slow)])
def test_kernel_best_moves_equal_the_python_heuristic(rows, steps, params):
    """Lock-step positions of mixed heuristic and random play: the kernel's best set is the
    agent's (every decision kind), its pick one of them."""
    stats = heuristic_lockstep("outfoxed_v0", rows, steps, seed=rows + steps, random_share=0.5, kernel_best=kernel_best,
                               **params)
    assert stats["unique"] > rows * steps // 2 and stats["tied"] > rows * steps // 20


def test_every_decision_kind_and_both_call_answers_are_checked():
    """Heuristic and random play reaches every decision kind, and the kernel both calls and passes."""
    env = fox_envs.batch.make("outfoxed_v0", 64, seed=5)
    seen: Counter = Counter()
    answers: Counter = Counter()
    rng = np.random.default_rng(5)
    for _ in range(300):
        picks = env.heuristic_actions()
        for i in range(env.num_envs):
            seen[int(env._kernels.st[i, PHASE])] += 1
        answers.update(int(a) for a in picks if a in (CALL, PASS))
        env.step(np.where(rng.random(env.num_envs) < 0.3, env.random_actions(rng), picks))
    assert {PHASE_NAMES[p] for p in seen} == {"keep", "put", "call", "chip", "show"}
    assert answers[CALL] > 20 and answers[PASS] > 20


def test_tied_picks_spread_over_the_tied_moves():
    stats = heuristic_lockstep("outfoxed_v0", 20, 30, seed=3, random_share=0.5)
    assert stats["tie_states"]
    for state in stats["tie_states"][:3]:
        assert_ties_spread("outfoxed_v0", state)


def test_the_choice_never_depends_on_what_the_mover_cannot_know():
    """Each position is also loaded as determinisations (the opponent's hand and kept cards,
    the faces of its face-down cards and the deck drawn anew, the mover's information the
    same): the kernel's best set and its pick (same seed, same row) are unchanged."""
    rows = 24
    original = fox_envs.batch.make("outfoxed_v0", rows, seed=9)
    twin = fox_envs.batch.make("outfoxed_v0", rows, seed=9)
    rng = np.random.default_rng(9)
    hidden_differs = 0
    for step in range(80):
        if step % 4 == 0:
            for i in range(rows):
                state = original.core_state(i)
                player = state.current_player()
                other = state.sample_determinisation(player, rng)
                hidden_differs += other.hands[1 - player] != state.hands[1 - player]
                assert other.information(player) == state.information(player)
                twin.load(i, other)
                assert kernel_best(twin, i) == kernel_best(original, i)
            np.testing.assert_array_equal(twin.heuristic_actions(), original.heuristic_actions())
        actions = original.random_actions(rng)
        original.step(actions)
    assert hidden_differs > 100


def test_finished_rows_get_minus_one():
    env = fox_envs.batch.make("outfoxed_v0", 16, seed=2, auto_reset=False, max_rounds=1)
    while (env.current_player >= 0).any():
        picks = env.heuristic_actions()
        assert ((picks >= 0) == (env.current_player >= 0)).all()
        env.step(picks)
    assert (env.heuristic_actions() == -1).all()


@pytest.mark.slow
def test_kernel_and_python_heuristic_are_even():
    """400 two-round games, the kernel in each seat equally often: its score share is 1/2
    within a 99% interval."""
    env = fox_envs.batch.make("outfoxed_v0", 400, seed=11, auto_reset=False, max_rounds=2)
    rate = kernel_against_python(env, OutfoxedHeuristic, seed=1000)
    half_width = 2.58 * np.sqrt(0.25 / env.num_envs)
    assert abs(rate - 0.5) <= half_width, f"kernel scored {rate:.3f}, fair 0.5 +- {half_width:.3f}"
