"""``BatchVectorEnv``: the Gymnasium vector view of a learner against random or heuristic
opponents, on the batched core (``gymnasium.make_vec(gym_id, num_envs)`` with
``opponent="random"``, the default, or ``"heuristic"``, or a list of those, one per other seat).

Semantics are those of ``FoxVectorEnv``: the learner plays ``seat`` in every env; observations
are the learner's; autoreset is same-step (``AutoresetMode.SAME_STEP``): when an episode ends, the
returned observation and ``infos["action_mask"]`` belong to the next episode and the last
observation is in ``infos["final_obs"]`` (rows flagged by ``infos["_final_obs"]``). An illegal
action ends that env's episode with reward -1 and ``infos["illegal_action"]`` set for its row, or
raises ``IllegalActionError`` (naming the row, nothing changed) with ``illegal_action="raise"``.
The other seats play inside the batched step: ``"random"`` a uniformly random legal action,
``"heuristic"`` the move the game's heuristic (``fox_envs.agents``) chooses, ties among its best
moves broken at random. Each row draws from its own streams: ``reset(seed=s)`` fixes every row's
games, and no row depends on ``num_envs``. ``observation_layout`` (``"hwc"``, the default,
``"chw"`` or ``"flat"``; ``fox_envs.core.layout``) shapes observations and final observations.

A ``reset`` or ``step`` cut short (Ctrl-C, an error raised while the other seats play) leaves
rows part-way through the vector step, so ``step`` then raises ``ResetNeeded`` until a
``reset``; a ``step`` refused before any row moved (bad actions, ``illegal_action="raise"``)
changes nothing. After ``close()``, ``reset`` and ``step`` raise ``RuntimeError``.
"""
from __future__ import annotations

import sys
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from fox_envs.batch.env import BatchEnv, kernels_class
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.layout import checked_view_dtype, make_layout, observation_box
from fox_envs.core.params import integer_in, short_repr
from fox_envs.vector.process import MASK_IN_VECTORS, vector_actions
from fox_envs.vector.opponents import BATCH_OPPONENTS, batch_opponent_names, plays_inside_batch

LEARNER, RANDOM, HEURISTIC = 0, 1, 2  # who plays a seat
NOT_RESET = "call reset() before step()"
CUT_SHORT = "the last reset() or step() did not finish (Ctrl-C or an error): call reset()"
CLOSED = "BatchVectorEnv is closed"


class _OutputSets:
    """Two sets of returned arrays used in turn; a set is written again only when nothing outside
    refers to its arrays (else a fresh set is made), so arrays a caller keeps never change.
    ``final_obs`` rows are zero except those written by the step that returned them."""

    NAMES = ("obs", "reward", "term", "trunc", "mask", "final_obs", "done", "illegal")

    def __init__(self, num_envs: int, obs_shape: tuple, num_actions: int, obs_dtype: Any = np.float32) -> None:
        self._spec = {"obs": (obs_dtype, (num_envs, *obs_shape)), "reward": (np.float64, (num_envs,)),
                      "term": (np.bool_, (num_envs,)), "trunc": (np.bool_, (num_envs,)),
                      "mask": (np.int8, (num_envs, num_actions)), "final_obs": (obs_dtype, (num_envs, *obs_shape)),
                      "done": (np.bool_, (num_envs,)), "illegal": (np.bool_, (num_envs,))}
        self._sets = [self._fresh(), self._fresh()]
        self._next = 0

    def _fresh(self) -> dict[str, np.ndarray]:
        return {name: np.zeros(shape, dtype) for name, (dtype, shape) in self._spec.items()}

    def take(self) -> dict[str, np.ndarray]:
        for _ in range(2):
            arrays = self._sets[self._next]
            self._next = 1 - self._next
            # the set's dict and getrefcount's own argument are the only holders of a free array
            if all(sys.getrefcount(arrays[name]) <= 2 for name in self.NAMES):
                arrays["final_obs"][arrays["done"]] = 0  # the rows the last use wrote
                for name in ("reward", "term", "trunc", "done", "illegal"):
                    arrays[name].fill(0)
                return arrays
        return self._fresh()


class BatchVectorEnv(VectorEnv):
    """``num_envs`` episodes of the fox_envs game ``env_id`` for a learner at ``seat`` against
    random opponents, stepped by the batched core (``threads`` threads over the rows).

    ``params`` are the game's parameters. Two keywords that ``gymnasium.make_vec`` and the other
    vector envs pass are read from them only to be refused when set: ``render_mode`` (this env
    does not render) and ``mask_in_observation`` (vector envs give the mask in
    ``infos["action_mask"]``)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, env_id: str, num_envs: int, opponent: Any = "random", seat: int = 0,
                 illegal_action: str = "end", max_moves: int | None = None, threads: int = 1,
                 observation_layout: str = "hwc", observation_dtype: str = "float32", **params: Any) -> None:
        render_mode = params.pop("render_mode", None)
        if params.pop("mask_in_observation", False):
            raise InvalidParameterError(MASK_IN_VECTORS)
        kernels_class(env_id)  # an unknown id, or a game without batched kernels, says so
        if not plays_inside_batch(opponent, env_id):
            raise InvalidParameterError(
                f"{env_id}: the batched vector env plays opponents {BATCH_OPPONENTS} (a name or one per other "
                f"seat; 'heuristic' for games with a batched heuristic); got {short_repr(opponent)} "
                "(FoxVectorEnv, e.g. gymnasium.make_vec(id, n, workers=2, opponent=...), plays any agent)")
        if render_mode is not None:
            raise InvalidParameterError(f"{env_id}: the batched vector env does not render; got render_mode={render_mode!r}")
        if illegal_action not in ("end", "raise"):
            raise InvalidParameterError(f"{env_id}: bad illegal_action {illegal_action!r}; allowed: 'end', 'raise'")
        checked_view_dtype(observation_dtype, f"{env_id}: ")
        self.batch = BatchEnv(env_id, num_envs, auto_reset=True, threads=threads, max_moves=max_moves,
                              observation_dtype=observation_dtype, **params)
        n = self.batch.num_players
        if integer_in(seat, 0, n - 1) is None:
            raise InvalidParameterError(f"{env_id}: bad seat {short_repr(seat)}; allowed: 0..{n - 1}")
        if isinstance(opponent, (list, tuple)) and len(opponent) != n - 1:
            raise InvalidParameterError(f"{env_id}: {len(opponent)} opponents given for {n - 1} other seats")
        self.env_id = env_id
        self.seat = int(seat)
        self._seat_kinds = _seat_kinds(batch_opponent_names(opponent), self.seat, n)
        self._playing = set(self._seat_kinds.tolist()) - {LEARNER}
        self.illegal_action = illegal_action
        self.layout = make_layout(observation_layout, self.batch.observation_shape, f"{env_id}: ")
        self.num_envs = self.batch.num_envs
        self.single_observation_space = self.layout.space(
            observation_box(self.batch.observation_shape, self.batch.game, observation_dtype))
        self.single_action_space = spaces.Discrete(self.batch.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._outputs = _OutputSets(self.num_envs, self.layout.shape, self.batch.num_actions,
                                    self.single_observation_space.dtype)
        self._rows = np.arange(self.num_envs)
        self._needs_reset = True
        self._reset_reason = NOT_RESET
        self.closed = False

    # ----- episodes -----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if self.closed:
            raise RuntimeError(CLOSED)
        self._needs_reset, self._reset_reason = True, CUT_SHORT  # until it returns
        self.batch.reset(seed)
        out = self._outputs.take()
        self._advance(out, record=False, started=self.batch._all_rows)
        result = self._publish(out)[0], {"action_mask": out["mask"]}
        self._needs_reset = False  # the last statement before returning: no interrupt can come between
        return result

    def step(self, actions):
        if self.closed:
            raise RuntimeError(CLOSED)
        if self._needs_reset:
            raise gymnasium.error.ResetNeeded(self._reset_reason)
        values, illegal = self._learner_actions(vector_actions(actions, self.num_envs))
        # from here rows move: a step cut short (Ctrl-C, an error) leaves some of them part-way
        self._needs_reset, self._reset_reason = True, CUT_SHORT
        result = self._play_step(values, illegal)
        self._needs_reset = False  # the last statement before returning: no interrupt can come between
        return result

    def _learner_actions(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """The actions to play (-1 in rows whose action is illegal) and the flags of those rows
        (None when every action is legal); with ``illegal_action="raise"`` an illegal action
        raises naming the row. Changes nothing."""
        batch = self.batch
        if self.illegal_action == "raise":
            return batch._checked_actions(actions), None
        values = actions.astype(np.int64)
        in_range = (values >= 0) & (values < batch.num_actions)
        illegal = ~in_range
        illegal[in_range] = ~batch.action_mask[self._rows[in_range], values[in_range]]
        if not illegal.any():
            return values, None
        return np.where(illegal, -1, values), illegal

    def _play_step(self, values: np.ndarray, illegal: np.ndarray | None) -> tuple:
        """One vector step with checked ``values``; returns what ``step`` returns."""
        batch = self.batch
        out = self._outputs.take()
        if illegal is not None:  # the episode ends with -1; its last observation is the current one
            out["illegal"][:] = illegal
            out["done"][:] = illegal
            out["term"][:] = illegal
            out["reward"][illegal] = -1.0
            self.layout.core_view(out["final_obs"])[illegal] = batch.observation[illegal]
        batch._step(values, final_view=self.seat)
        self._record(out)
        if illegal is not None:
            batch._restart(illegal)
        self._advance(out, record=True, started=out["done"].copy())
        obs, mask = self._publish(out)
        infos: dict[str, Any] = {"action_mask": mask}
        if out["done"].any():
            infos["final_obs"] = out["final_obs"]
            infos["_final_obs"] = out["done"]
        if illegal is not None:
            infos["illegal_action"] = out["illegal"]
            infos["_illegal_action"] = out["illegal"].copy()
        return obs, out["reward"], out["term"], out["trunc"], infos

    def _record(self, out: dict) -> None:
        """Take the results of games that ended in the last batch step into ``out`` (a row's
        first end in this vector step counts; the learner has not moved in a later game)."""
        batch = self.batch
        rewards, term, trunc = batch._arrays["rewards"], batch._arrays["term"], batch._arrays["trunc"]
        ended = (term | trunc) & ~out["done"]
        if ended.any():
            out["done"] |= ended  # first: the rows take() zeroes cover every final_obs row written
            out["reward"][ended] = rewards[ended, self.seat]
            out["term"][ended] = term[ended]
            out["trunc"][ended] = trunc[ended]
            self.layout.core_view(out["final_obs"])[ended] = batch.final_observation[ended]

    def _advance(self, out: dict, record: bool, started: np.ndarray) -> None:
        """The other seats play until the learner is to move in every row. A game that
        ``started`` in this call and is truncated before the learner's first decision means
        ``max_moves`` leaves the learner no move: that raises (the env then needs a reset)."""
        batch = self.batch
        while True:
            waiting = batch.current_player != self.seat
            if not waiting.any():
                return
            batch._step(self._opponent_actions(waiting), final_view=self.seat)
            starved = batch._arrays["trunc"] & started
            if starved.any():
                self._needs_reset = True
                raise InvalidParameterError(
                    f"{self.env_id}: max_moves={batch.max_moves} is used up by the other seats before seat "
                    f"{self.seat}'s first decision (row {int(np.flatnonzero(starved)[0])}); allow more moves")
            if record:
                self._record(out)

    def _opponent_actions(self, waiting: np.ndarray) -> np.ndarray:
        """The actions of the seats to move in the ``waiting`` rows (-1 in the others), each row
        drawing its random choices from its own pick stream."""
        batch, kinds, playing = self.batch, self._seat_kinds, self._playing
        if playing == {RANDOM}:
            return batch._random_actions_in(waiting)
        if playing == {HEURISTIC}:
            return batch._heuristic_actions_in(waiting)
        kind = kinds[batch.current_player]
        actions = batch._random_actions_in(waiting & (kind == RANDOM))
        heuristic = waiting & (kind == HEURISTIC)
        if heuristic.any():
            actions = np.where(heuristic, batch._heuristic_actions_in(heuristic), actions)
        return actions

    def _publish(self, out: dict) -> tuple[np.ndarray, np.ndarray]:
        np.copyto(self.layout.core_view(out["obs"]), self.batch.observation)
        np.copyto(out["mask"], self.batch.action_mask, casting="unsafe")
        return out["obs"], out["mask"]

    def action_masks(self) -> np.ndarray:
        """Boolean masks of the current observations, one row per env (sb3-contrib style)."""
        return self.batch.action_mask.copy()

    def close_extras(self, **kwargs: Any) -> None:
        if hasattr(self, "batch"):  # a constructor that raised made none
            self.batch.close()


def _seat_kinds(names: list[str], seat: int, num_players: int) -> np.ndarray:
    """Per seat, whether the learner, a random or a heuristic opponent plays it."""
    others = [s for s in range(num_players) if s != seat]
    specs = names if len(names) == len(others) else names * len(others)
    kinds = np.full(num_players, LEARNER, np.int8)
    for other, name in zip(others, specs):
        kinds[other] = HEURISTIC if name == "heuristic" else RANDOM
    return kinds
