"""Bye Bye Mr. Fox!'s ``GameKernels``: the batched env's bridge to the kernels (``kernels``) and
the batched heuristic (``kernels_heuristic``), holding the state rows of every game."""
from __future__ import annotations

import numpy as np

from fox_envs.batch.env import GameKernels
from fox_envs.games.bye_bye_mr_fox.kernels import STATE_SIZE, compact_setup, game_setup, replay_row, reset_rows, run_rows, step_rows
from fox_envs.games.bye_bye_mr_fox.kernels_heuristic import heuristic_rows
from fox_envs.games.bye_bye_mr_fox.rules import ByeByeMrFoxGame

__all__ = ["ByeByeMrFoxKernels", "heuristic_rows", "replay_row", "reset_rows", "step_rows"]


class ByeByeMrFoxKernels(GameKernels):
    """One int8 state row per game (``st``, see ``kernels``) and the game's ``setup`` tables."""

    max_legal = 6  # an egg on up to 6 empty nest circles; a hen or fox on at most 5 outer circles
    observation_dtypes = ("float32", "uint8")
    min_rows_per_thread = 1024  # benchmarks/batch_bench.py --threads-table: 2 threads lose below 2 x 1024 rows

    def __init__(self, game: ByeByeMrFoxGame) -> None:
        super().__init__(game)
        self.setup = game_setup(game)  # (start_state, start_obs, values), see kernels.game_setup
        self.num_players = int(game.num_players)
        self.max_turns = int(game.max_turns)

    def allocate(self, num_envs: int) -> None:
        if self.observation_dtype == np.uint8:
            self.setup = compact_setup(self.game)
        self.st = np.zeros((num_envs, STATE_SIZE), np.int8)

    run = staticmethod(run_rows)

    def box_state(self) -> tuple:
        return (self.st,)

    def box_extra(self) -> tuple:
        return (self.setup, self.num_players)

    def history_capacity(self, max_moves: int) -> int:
        # one turn per face-down token, each a flip, a place, a spin and a give at most
        return 4 * self.max_turns

    def reset(self, lo: int, hi: int, which: np.ndarray, common: tuple) -> None:
        reset_rows(lo, hi, which, self.st, common, self.setup, self.num_players)

    def replay(self, i: int, history: np.ndarray, common: tuple) -> None:
        replay_row(i, history, self.st, common, self.setup, self.num_players)

    def heuristic(self, lo: int, hi: int, out: np.ndarray, common: tuple) -> None:
        heuristic_rows(lo, hi, out, self.st, common)
