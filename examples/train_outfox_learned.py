"""Train the learned Outfox agent (two players): a value network over hand features, fitted
to the outcomes of games the batched core plays, then used for a one-turn lookahead.

    python examples/train_outfox_learned.py [--seed 0] [--quick] [--iterations 4]
        [--games-per-iteration 6000] [--eval-games 60] [--final-games 400] [--workers 1]
        [--save fox_envs/agents/weights/outfox_v0.npz] [--plot outfox_learned.png]

Every iteration generates games with ``fox_envs.batch`` (both seats the heuristic, a random
legal move with probability ``--epsilon`` in a game's first ``--explore-moves`` decisions),
records every position at the start of a turn with the return of the player to move, and
trains the network (``fox_envs.games.outfox.features`` inputs, two ReLU layers, tanh output)
on all positions so far. After each iteration the agent
(``fox_envs.games.outfox.learned.OutfoxLearned``: a winning turn, else the best rated turn after
which the opponent cannot win at once) plays ``--eval-games`` against ``random`` and
``heuristic`` (seats rotated, Wilson 95 % intervals); the learning curve goes to ``--plot``,
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

PLACEMENT_PLANE = 35  # 17 + 9n with two players: all ones at a placement decision


def at_turn_start(obs: np.ndarray) -> np.ndarray:
    return obs[:, 2, 2, PLACEMENT_PLANE] > 0


def encode(obs: np.ndarray) -> np.ndarray:
    from fox_envs.games.outfox.features import features, positions_from_observations

    return features(*positions_from_observations(obs))


def recipe() -> Recipe:
    from fox_envs.games.outfox.features import NUM_FEATURES

    return Recipe("outfox_v0", "Outfox", NUM_FEATURES, encode, at_turn_start)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    return run(recipe(), __doc__, argv)


if __name__ == "__main__":
    main()
