"""Shared fixtures: the (env id, params) cases every conformance test runs on, and the example
game of docs/adding_a_game.md (registered only for the tests that ask for it)."""
from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from fox_envs.core.registry import GAMES
from fox_envs.core.spec import GameSpec

ADDING_A_GAME = Path(__file__).resolve().parent.parent / "docs" / "adding_a_game.md"
EXAMPLE_MODULE = "nim_game"  # the doc's first block, saved under the name the doc gives it


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


def doc_blocks(path: Path = ADDING_A_GAME) -> list[str]:
    """The ```python blocks of ``path``, in order."""
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S)


def example_spec() -> GameSpec:
    """The spec of the doc's example game: its first block run once as the module ``nim_game``
    (so that its states pickle by reference). The block registers the game; that is undone at
    once, so that only the tests asking for it (``example_registered``) see it."""
    module = sys.modules.get(EXAMPLE_MODULE)
    if module is None:
        module = types.ModuleType(EXAMPLE_MODULE)
        module.__file__ = str(ADDING_A_GAME)
        sys.modules[EXAMPLE_MODULE] = module
        before = GAMES.copy()
        exec(compile(doc_blocks()[0], f"{ADDING_A_GAME.name} block 0", "exec"), module.__dict__)
        unregister(module.SPEC, before)
    return module.SPEC


def example_cases() -> list:
    """The (env id, params) cases of the doc's example game, one per variant."""
    game = example_spec()
    return [pytest.param(game.env_id, params, id=game.env_id + "".join(f"-{k}={v}" for k, v in params.items()))
            for params in game.variants]


def unregister(game: GameSpec, before: dict) -> None:
    """Undo ``register_game(game)``: the registry as ``before``, and the PettingZoo and
    Gymnasium ids gone unless ``before`` had the id."""
    import gymnasium

    from fox_envs.core.registration import pettingzoo_id, pettingzoo_registry

    GAMES.clear()
    GAMES.update(before)
    if game.env_id not in before:
        (pettingzoo_registry() or {}).pop(pettingzoo_id(game.env_id), None)
        gymnasium.registry.pop("fox_envs/" + game.gym_id, None)


@pytest.fixture
def example_registered():
    """The doc's example game registered for one test (and unregistered after it)."""
    import fox_envs

    game = example_spec()
    before = GAMES.copy()
    fox_envs.register_game(game, replace=True)
    yield game
    unregister(game, before)


@pytest.fixture
def needs_jax_train() -> None:
    """The ``jax-train`` extra (jax, optax, mctx), which the JAX training examples need."""
    for module in ("jax", "optax", "mctx"):
        pytest.importorskip(module)
