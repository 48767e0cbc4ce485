"""The tabular Q-learning policy for X-Ceter-O (numpy only), trained by
``examples/train_xceter_o_qlearning.py``.

A ``QTable`` keys action values on the mover's observation reduced by the board's 8 symmetries
(``encode``); ``QAgent`` plays greedily on it, ties broken by its seeded rng. A saved table is a
``fox_envs.policy/1`` ``.npz`` file (arrays ``keys`` and ``values``) whose factory is
``FACTORY``, so it loads wherever fox_envs is installed.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from fox_envs.agents.base import SeededAgent
from fox_envs.core.errors import InvalidParameterError

ENV_ID = "xceter_o_v0"
FACTORY = "fox_envs.games.xceter_o.trained_q:load_agent"


# ----- the board's 8 symmetries ----------------------------------------------------------------
def _symmetries() -> np.ndarray:
    """``SYM[v][i]`` = the real square that square ``i`` of the v-th transformed board shows."""
    grid = np.arange(9).reshape(3, 3)
    perms = []
    for k in range(4):
        rotated = np.rot90(grid, k)
        perms.append(rotated.reshape(-1))
        perms.append(np.fliplr(rotated).reshape(-1))
    return np.array(perms, dtype=np.int64)


SYM = _symmetries()  # (8, 9)
POWERS = 7 ** np.arange(9, dtype=np.int64)
PIECE_CODES = np.arange(1, 7, dtype=np.float32)  # planes 0-5 -> codes 1..6


def encode(observation: np.ndarray) -> tuple[int, int]:
    """``(key, v)``: the canonical key of an X-Ceter-O observation and the symmetry ``v`` that
    maps it to the canonical board (real square of canonical square ``i`` is ``SYM[v][i]``).

    The key holds the board (0 empty, 1-3 the mover's pieces in number order, 4-6 the
    opponent's) and which own piece moves next (0-2; 3 during the placement phase)."""
    board = (observation[:, :, :6].reshape(9, 6) @ PIECE_CODES).astype(np.int64)
    if observation[0, 0, 9] > 0.5:
        mover = 3
    else:
        square = int(np.argmax(observation[:, :, 7].reshape(9)))
        mover = int(board[square]) - 1
    codes = board[SYM] @ POWERS
    v = int(np.argmin(codes))
    return int(codes[v]) * 4 + mover, v


# ----- the table and the greedy agent -----------------------------------------------------------
class QTable:
    """``values[key]``: 9 action values in the canonical frame (0 for an unseen state)."""

    def __init__(self) -> None:
        self.values: dict[int, np.ndarray] = {}

    def row(self, key: int) -> np.ndarray:
        row = self.values.get(key)
        if row is None:
            row = self.values[key] = np.zeros(9, dtype=np.float64)
        return row

    def to_arrays(self) -> dict[str, np.ndarray]:
        keys = np.fromiter(self.values.keys(), dtype=np.int64, count=len(self.values))
        values = np.array([self.values[int(k)] for k in keys], dtype=np.float64).reshape(-1, 9)
        return {"keys": keys, "values": values}

    @classmethod
    def from_arrays(cls, keys: np.ndarray, values: np.ndarray) -> "QTable":
        table = cls()
        table.values = {int(k): np.asarray(v, dtype=np.float64).copy() for k, v in zip(keys, values)}
        return table


def greedy(table: QTable, observation: np.ndarray, mask: np.ndarray, rng: np.random.Generator,
           epsilon: float = 0.0) -> tuple[int, int, int]:
    """``(action, key, canonical action)``: epsilon-greedy on the table, ties broken at random."""
    key, v = encode(observation)
    real = SYM[v]  # real square of each canonical square
    legal = np.flatnonzero(mask[real])  # canonical legal squares
    if epsilon > 0.0 and rng.random() < epsilon:
        choice = int(legal[rng.integers(len(legal))])
    else:
        row = table.values.get(key)
        if row is None:
            best = legal
        else:
            q = row[legal]
            best = legal[q >= q.max() - 1e-12]
        choice = int(best[rng.integers(len(best))]) if len(best) > 1 else int(best[0])
    return int(real[choice]), key, choice


class QAgent(SeededAgent):
    """The greedy learned policy as a fox_envs agent (``act(state, player)``); ties are broken
    with the agent's seeded rng."""

    name = "q-learner"

    def __init__(self, table: QTable, seed: int | None = None) -> None:
        super().__init__(seed)
        self.table = table

    def act(self, state, player: int) -> int:
        action, _, _ = greedy(self.table, state.observation_tensor(player), state.legal_actions_mask(), self.rng)
        return action


def load_agent(env_id: str = ENV_ID, seed: int | None = None, arrays: dict[str, np.ndarray] | None = None,
               **_: Any) -> QAgent:
    """Factory of a saved ``.npz`` policy (``fox_envs.agents.load_policy`` calls it)."""
    if env_id != ENV_ID:
        raise InvalidParameterError(f"this Q-table plays {ENV_ID}, not {env_id}")
    if not arrays or "keys" not in arrays or "values" not in arrays:
        raise InvalidParameterError("a Q-table policy file needs the arrays 'keys' and 'values'")
    return QAgent(QTable.from_arrays(arrays["keys"], arrays["values"]), seed)


def save_q_table(table: QTable, path: str | Path) -> Path:
    """Write the table as a ``fox_envs.policy/1`` ``.npz`` policy file naming ``FACTORY``."""
    from fox_envs.agents.registry import save_policy

    return save_policy(path, FACTORY, ENV_ID, arrays=table.to_arrays())
