"""Shared fixtures: the (env id, params) cases every conformance test runs on."""
from __future__ import annotations

import numpy as np
import pytest

from fox_envs.core.registry import GAMES


def conformance_cases() -> list:
    cases = []
    for env_id, entry in GAMES.items():
        for params in entry.variants:
            label = env_id + "".join(f"-{k}={v}" for k, v in params.items())
            cases.append(pytest.param(env_id, params, id=label))
    return cases


def play_random_states(game, seed: int, max_moves: int | None = None):
    """Yield every state of one uniformly random game on the rules core (chance sampled with
    its own probabilities), the state being the live object (clone before keeping it)."""
    from fox_envs.core.game import sample_chance

    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    limit = max_moves or game.max_moves_default
    decisions = 0
    yield state
    while not state.is_terminal() and decisions < limit:
        if state.is_chance_node():
            action = sample_chance(state, rng)
        else:
            legal = state.legal_actions()
            action = legal[int(rng.integers(len(legal)))]
            decisions += 1
        state.apply_action(action)
        yield state
