"""X-Ceter-O's ``GameKernels``: the batched env's bridge to the kernels (``kernels``) and the
batched heuristic (``kernels_heuristic``), holding the state arrays of every row."""
from __future__ import annotations

import numpy as np

from fox_envs.batch.env import GameKernels
from fox_envs.games.xceter_o.kernels import replay_row, reset_rows, run_rows, step_rows
from fox_envs.games.xceter_o.kernels_heuristic import heuristic_rows

__all__ = ["XCeterOKernels", "heuristic_rows", "replay_row", "reset_rows", "step_rows"]


class XCeterOKernels(GameKernels):
    """The rows' state as five arrays (see ``kernels``); ``ordered`` is the ``ordered_rows`` rule."""

    max_legal = 9
    observation_dtypes = ("float32", "uint8")
    min_rows_per_thread = 1024  # benchmarks/batch_bench.py --threads-table: 2 threads lose below 2 x 1024 rows

    def allocate(self, num_envs: int) -> None:
        self.board = np.zeros((num_envs, 9), np.int8)
        self.square_of = np.zeros((num_envs, 7), np.int8)
        self.ply = np.zeros(num_envs, np.int32)
        self.own = np.zeros((num_envs, 2), np.int32)
        self.code = np.zeros(num_envs, np.int64)
        self.ordered = bool(self.game.params["ordered_rows"])
        # the kernels' ``state``, made once: ``(board, square_of, ply, own, code)``
        self.state = (self.board, self.square_of, self.ply, self.own, self.code)

    run = staticmethod(run_rows)

    def box_state(self) -> tuple:
        return (self.state,)

    def box_extra(self) -> tuple:
        return (self.ordered,)

    def history_capacity(self, max_moves: int) -> int:
        return max_moves  # no chance events

    def positions_per_game(self, max_moves: int) -> int:
        return max_moves + 1

    def reset(self, lo: int, hi: int, which: np.ndarray, common: tuple) -> None:
        reset_rows(lo, hi, which, self.state, common)

    def replay(self, i: int, history: np.ndarray, common: tuple) -> None:
        replay_row(i, history, self.state, common, self.ordered)

    def heuristic(self, lo: int, hi: int, out: np.ndarray, common: tuple) -> None:
        heuristic_rows(lo, hi, out, self.state, common, self.ordered)
