"""Train the learned Outwit agent: a value network over race features and the board, fitted to
the outcomes of games the batched core plays, then used for a one-move lookahead.

    python examples/train_outwit_learned.py [--seed 0] [--quick] [--iterations 4]
        [--games-per-iteration 1000] [--eval-games 30] [--final-games 400] [--workers 1]
        [--save fox_envs/agents/weights/outwit_v0.npz] [--plot outwit_learned.png]

Every iteration generates games with ``fox_envs.batch`` (both seats the heuristic, a random
legal move with probability ``--epsilon`` in a game's first ``--explore-moves`` decisions),
records the positions (each with probability ``--keep``) with the return of the player to move,
and trains the network (``fox_envs.games.outwit.features`` inputs, ReLU layers, tanh output)
on all positions so far. After each iteration the agent
(``fox_envs.games.outwit.learned.OutwitLearned``) plays ``--eval-games`` against ``random``
and ``heuristic`` (seats rotated, Wilson 95 % intervals); the learning curve goes to ``--plot``,
the weights to ``--save`` (numpy ``.npz``; the agent needs no torch), then a final match of
``--final-games`` against the heuristic is measured.
"""
from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from typing import Any, Sequence

import numpy as np

from examples._value_training import Recipe, run


def every_position(obs: np.ndarray) -> np.ndarray:
    return np.ones(len(obs), np.bool_)


def recipe() -> Recipe:
    from fox_envs.games.outwit.features import NUM_FEATURES, observation_features

    return Recipe("outwit_v0", "Outwit", NUM_FEATURES, observation_features, every_position,
                  games_per_iteration=(200, 1000), epochs=(2, 4), eval_games=(10, 30), explore_moves=8,
                  fraction=0.5, hidden=(64, 32))


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    return run(recipe(), __doc__, argv)


if __name__ == "__main__":
    main()
