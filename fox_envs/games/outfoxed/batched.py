"""Outfoxed's ``GameKernels``: the batched env's bridge to the kernels (``kernels``) and the
batched heuristic (``kernels_heuristic``), holding the state rows of every game."""
from __future__ import annotations

import numpy as np

from fox_envs.batch.env import GameKernels
from fox_envs.games.outfoxed.kernels import DEAL_TOTAL, MAX_LEGAL, WIDTH, replay_row, reset_rows, run_rows, step_rows
from fox_envs.games.outfoxed.kernels_heuristic import best_moves_row, heuristic_rows
from fox_envs.games.outfoxed.rules import OutfoxedGame

__all__ = ["OutfoxedKernels", "heuristic_rows", "replay_row", "reset_rows", "step_rows"]


class OutfoxedKernels(GameKernels):
    """One int16 state row per game (``st``, see ``kernels``) and its forbidden scoring multisets
    as bits (``forb``)."""

    max_legal = MAX_LEGAL  # 108: up to 6 colours in hand x 3 squares x 6 declared colours
    observation_dtypes = ("float32", "uint8")

    def __init__(self, game: OutfoxedGame) -> None:
        super().__init__(game)
        self.max_rounds = int(game.max_rounds)

    def allocate(self, num_envs: int) -> None:
        self.st = np.zeros((num_envs, WIDTH), np.int16)
        self.forb = np.zeros(num_envs, np.uint64)

    run = staticmethod(run_rows)

    def box_state(self) -> tuple:
        return (self.st, self.forb)

    def box_extra(self) -> tuple:
        return (self.max_rounds,)

    def history_capacity(self, max_moves: int) -> int:
        # a round takes at least 20 decisions (18 puts, 2 shows) after at least 6 scoring picks;
        # its chance outcomes are its 22 deals, plus the first player once
        rounds = min(self.max_rounds, max_moves // 20 + 1)
        return max_moves + 1 + DEAL_TOTAL * rounds

    def reset(self, lo: int, hi: int, which: np.ndarray, common: tuple) -> None:
        reset_rows(lo, hi, which, self.st, self.forb, common, self.max_rounds)

    def replay(self, i: int, history: np.ndarray, common: tuple) -> None:
        replay_row(i, history, self.st, self.forb, common, self.max_rounds)

    def heuristic(self, lo: int, hi: int, out: np.ndarray, common: tuple) -> None:
        heuristic_rows(lo, hi, out, self.st, common)

    def best_moves(self, i: int, common: tuple) -> list[int]:
        """The heuristic's best actions of row ``i`` (legal order; empty for a finished game)."""
        return best_moves_row(i, self.st, common).tolist()
