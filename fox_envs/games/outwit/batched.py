"""Outwit's batched core: the ``GameKernels`` of the spec, running the step kernels of
``kernels.py`` and the heuristic kernels of ``kernels_heuristic.py`` on one set of row arrays.

The kernels' names are re-exported here (``step_rows``, ``reset_rows``, ``replay_row``,
``heuristic_rows``, ...), as the module that the old path ``fox_envs.batch.outwit`` names.
"""
from __future__ import annotations

import numpy as np

from fox_envs.batch.env import GameKernels
from fox_envs.games.outwit.kernels import (CELLS, LEGAL_CAPACITY, MAX_LEGAL, NUM_LINES, NUM_SQUARES, STATE_FIELDS,
                                           STREAM_BYTES, replay_row, reset_rows, run_rows, step_rows)
from fox_envs.games.outwit.kernels_heuristic import best_moves_of_row, heuristic_rows

__all__ = ["CELLS", "LEGAL_CAPACITY", "MAX_LEGAL", "STATE_FIELDS", "STREAM_BYTES", "OutwitKernels",
           "best_moves_of_row", "heuristic_rows", "replay_row", "reset_rows", "step_rows"]


class OutwitKernels(GameKernels):
    """Outwit's row state (``kernels.STATE_FIELDS``, one attribute each) and its kernels."""

    max_legal = LEGAL_CAPACITY  # MAX_LEGAL plus room for the power chip's last 9-wide ray write
    observation_dtypes = ("float32", "uint8")
    min_rows_per_thread = 1024  # benchmarks/batch_bench.py --threads-table: 2 threads lose below 2 x 1024 rows

    def allocate(self, num_envs: int) -> None:
        self.chips = np.zeros((num_envs, 2, 9), np.int8)
        self.slot = np.zeros((num_envs, NUM_SQUARES), np.int8)
        self.occ = np.zeros((num_envs, 2), np.uint64)
        self.lines = np.zeros((num_envs, NUM_LINES), np.int16)
        self.home = np.zeros((num_envs, 2), np.int8)
        self.tomove = np.zeros(num_envs, np.int8)
        self.passes = np.zeros(num_envs, np.int8)
        self.last = np.full(num_envs, -1, np.int32)
        self.key = np.zeros(num_envs, np.uint64)
        self.reps = np.zeros((num_envs, 2), np.int32)
        self.scale = float(self.game.max_moves_default)
        # streaming stores are for float32 rows only
        self.stream = self.observation_dtype == np.float32 and num_envs * CELLS * 4 >= STREAM_BYTES
        # the kernels' ``state``: the same arrays in ``STATE_FIELDS`` order, made once
        self.state = (self.chips, self.slot, self.occ, self.lines, self.home, self.tomove, self.passes, self.last,
                      self.key, self.reps)

    run = staticmethod(run_rows)

    def box_state(self) -> tuple:
        return (self.state,)

    def box_extra(self) -> tuple:
        return (self.scale, self.stream)

    def history_capacity(self, max_moves: int) -> int:
        return max_moves  # no chance events

    def positions_per_game(self, max_moves: int) -> int:
        return max_moves + 1

    def reset(self, lo, hi, which, common) -> None:
        reset_rows(lo, hi, which, self.state, common, self.scale, self.stream)

    def replay(self, i, history, common) -> None:
        replay_row(i, history, self.state, common, self.scale)

    def heuristic(self, lo, hi, out, common) -> None:
        heuristic_rows(lo, hi, out, self.state, common)
