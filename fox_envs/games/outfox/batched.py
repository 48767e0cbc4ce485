"""Outfox's ``GameKernels``: the state arrays of ``kernels`` and the batched heuristic of
``kernels_heuristic`` over them (``fox_envs.batch`` loads it from the spec)."""
from __future__ import annotations

import numpy as np

from fox_envs.batch.env import GameKernels
from fox_envs.games.outfox.kernels import MAX_LEGAL, replay_row, reset_rows, run_rows, step_rows
from fox_envs.games.outfox.kernels_heuristic import best_moves_row, heuristic_rows
from fox_envs.games.outfox.rules import NUM_POINTS, NUM_TYPES

__all__ = ["OutfoxKernels", "best_moves_row", "heuristic_rows", "replay_row", "reset_rows", "step_rows"]


class OutfoxKernels(GameKernels):
    """Outfox rows: the ``STATE_FIELDS`` arrays (``kernels``) and the game's ``setup`` constants."""

    max_legal = MAX_LEGAL
    observation_dtypes = ("float32", "uint8")

    def __init__(self, game) -> None:
        super().__init__(game)
        n = int(game.num_players)
        self.n = n
        start_obs = game.new_initial_state().observation_tensor(0).astype(np.float32)
        scale = 1.0 / game.hand_max  # 1 or 1/2: exact, as the core's division
        self.setup = (np.array(game.start_hands, np.int8), start_obs, np.array(game.win_returns, np.float32), n,
                      scale)

    def allocate(self, num_envs: int) -> None:
        """The ``STATE_FIELDS`` arrays for ``num_envs`` rows, as one tuple ``state``."""
        if self.observation_dtype == np.uint8:  # hand planes as counts, the start view as integers
            start_hands, start_obs, win_returns, n, _ = self.setup
            self.setup = (start_hands, self.game.compact_observation(start_obs), win_returns, n, 1.0)
        self.state = (
            np.full((num_envs, NUM_POINTS), -1, np.int8),  # board
            np.zeros(num_envs, np.int32),  # occ
            np.zeros((num_envs, self.n, NUM_TYPES), np.int8),  # hands
            np.zeros((num_envs, self.n), np.int8),  # left
            np.zeros(num_envs, np.int8),  # phase
            np.full(num_envs, -1, np.int8),  # placed
            np.zeros(num_envs, np.int32),  # turns
            np.zeros((num_envs, NUM_POINTS + 1), np.int8),  # points
        )

    run = staticmethod(run_rows)

    def box_state(self) -> tuple:
        return (self.state,)

    def box_extra(self) -> tuple:
        return (self.setup,)

    def history_capacity(self, max_moves: int) -> int:
        return max_moves  # no chance events

    def reset(self, lo, hi, which, common) -> None:
        reset_rows(lo, hi, which, self.state, common, self.setup)

    def replay(self, i, history, common) -> None:
        replay_row(i, history, self.state, common, self.setup)

    def heuristic(self, lo, hi, out, common) -> None:
        heuristic_rows(lo, hi, out, self.state, common, self.n)

    def best_moves(self, i: int, common) -> list[int]:
        """The heuristic's best actions of row ``i`` (increasing; empty for a finished game)."""
        return best_moves_row(i, self.state, common, self.n).tolist()
