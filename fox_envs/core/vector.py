"""A batched vector env for the single-agent Gymnasium view (issue 9).

Gymnasium's ``AsyncVectorEnv`` pays one inter-process round trip per env per step, which costs
more than a whole step of these games. ``FoxVectorEnv`` runs ``num_envs`` copies of the view in
``workers`` processes (start method ``context``: ``"fork"`` where available, else
``"spawn"``; pass ``context="spawn"`` when the parent runs threads), each stepping its slice of
envs in a loop; observations, masks, rewards
and flags travel through shared memory, with one message per worker per step. ``workers=0``
steps every env in the calling process.

Autoreset is same-step (``AutoresetMode.SAME_STEP``): when an episode ends, the returned
observation and ``infos["action_mask"]`` already belong to the next episode, and the last
observation is in ``infos["final_obs"]`` (rows flagged by ``infos["_final_obs"]``). Env ``i`` is
reset with ``seed + i``, so results do not depend on the number of workers.
"""
from __future__ import annotations

import multiprocessing as mp
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from fox_envs.core.errors import InvalidParameterError


def _make_views(gym_id: str, indices: list[int], kwargs: dict) -> list:
    import gymnasium

    import fox_envs  # noqa: F401  (registers the ids in a fresh process)

    return [gymnasium.make(gym_id, **kwargs).unwrapped for _ in indices]


class _Buffers:
    """Views on the shared arrays: observations, masks, rewards, terminations, truncations,
    final observations and actions of every env."""

    def __init__(self, raw: dict[str, Any], num_envs: int, obs_shape: tuple, num_actions: int) -> None:
        def view(name: str, dtype, shape: tuple) -> np.ndarray:
            return np.frombuffer(raw[name], dtype=dtype).reshape(shape)

        self.obs = view("obs", np.float32, (num_envs, *obs_shape))
        self.final_obs = view("final_obs", np.float32, (num_envs, *obs_shape))
        self.mask = view("mask", np.int8, (num_envs, num_actions))
        self.reward = view("reward", np.float64, (num_envs,))
        self.term = view("term", np.uint8, (num_envs,))
        self.trunc = view("trunc", np.uint8, (num_envs,))
        self.done = view("done", np.uint8, (num_envs,))
        self.illegal = view("illegal", np.uint8, (num_envs,))
        self.action = view("action", np.int64, (num_envs,))


def _allocate(ctx, num_envs: int, obs_shape: tuple, num_actions: int) -> dict[str, Any]:
    size = int(np.prod(obs_shape))
    return {
        "obs": ctx.RawArray("b", num_envs * size * 4), "final_obs": ctx.RawArray("b", num_envs * size * 4),
        "mask": ctx.RawArray("b", num_envs * num_actions), "reward": ctx.RawArray("b", num_envs * 8),
        "term": ctx.RawArray("b", num_envs), "trunc": ctx.RawArray("b", num_envs),
        "done": ctx.RawArray("b", num_envs), "illegal": ctx.RawArray("b", num_envs),
        "action": ctx.RawArray("b", num_envs * 8),
    }


def _reset_slice(views: list, indices: list[int], buffers: _Buffers, seed: int | None) -> None:
    for view, i in zip(views, indices):
        obs, info = view.reset(seed=None if seed is None else seed + i)
        buffers.obs[i] = obs
        buffers.mask[i] = info["action_mask"]
    buffers.done[indices] = 0


def _step_slice(views: list, indices: list[int], buffers: _Buffers) -> None:
    """Step every env of the slice; a finished episode is reset at once (same-step autoreset)."""
    for view, i in zip(views, indices):
        obs, reward, term, trunc, info = view.step(int(buffers.action[i]))
        buffers.reward[i] = reward
        buffers.term[i] = term
        buffers.trunc[i] = trunc
        buffers.illegal[i] = bool(info.get("illegal_action", False))
        if term or trunc:
            buffers.final_obs[i] = obs
            buffers.done[i] = 1
            obs, info = view.reset()
        else:
            buffers.done[i] = 0
        buffers.obs[i] = obs
        buffers.mask[i] = info["action_mask"]


def _worker(gym_id: str, indices: list[int], kwargs: dict, raw: dict, shape: tuple, pipe) -> None:
    views = _make_views(gym_id, indices, kwargs)
    buffers = _Buffers(raw, *shape)
    pipe.send("ready")
    while True:
        command, argument = pipe.recv()
        if command == "step":
            _step_slice(views, indices, buffers)
        elif command == "reset":
            _reset_slice(views, indices, buffers, argument)
        elif command == "close":
            pipe.send("closed")
            return
        pipe.send("ok")


class FoxVectorEnv(VectorEnv):
    """``num_envs`` copies of ``gymnasium.make(gym_id, **kwargs)`` (a fox_envs Gymnasium id such
    as ``"fox_envs/Outwit-v0"``), stepped in ``workers`` processes (0: in this process)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, gym_id: str, num_envs: int, workers: int = 0, context: str | None = None,
                 **kwargs: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise InvalidParameterError(f"bad num_envs {num_envs!r}; allowed: an integer >= 1")
        if isinstance(workers, bool) or not isinstance(workers, int) or not 0 <= workers <= num_envs:
            raise InvalidParameterError(f"bad workers {workers!r}; allowed: 0..num_envs ({num_envs})")
        probe = _make_views(gym_id, [0], kwargs)[0]
        self.num_envs = num_envs
        self.single_observation_space = probe.observation_space
        self.single_action_space = probe.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        shape = (num_envs, tuple(self.single_observation_space.shape), int(self.single_action_space.n))
        if context is None:  # fork where the platform has it (works from notebooks and stdin)
            context = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
        ctx = mp.get_context(context)
        raw = _allocate(ctx, *shape)
        self._buffers = _Buffers(raw, *shape)
        slices = [part.tolist() for part in np.array_split(np.arange(num_envs), max(workers, 1))]
        self._pipes: list = []
        self._processes: list = []
        if workers == 0:
            self._local = (_make_views(gym_id, slices[0], kwargs), slices[0])
        else:
            self._local = None
            for indices in slices:
                parent, child = ctx.Pipe()
                process = ctx.Process(target=_worker, args=(gym_id, indices, kwargs, raw, shape, child), daemon=True)
                process.start()
                self._pipes.append(parent)
                self._processes.append(process)
            for pipe, process in zip(self._pipes, self._processes):
                self._receive(pipe, process)
        self.closed = False

    @staticmethod
    def _receive(pipe, process) -> Any:
        """The worker's answer; a worker that died raises instead of hanging."""
        while not pipe.poll(0.5):
            if not process.is_alive():
                raise RuntimeError(f"FoxVectorEnv worker exited with code {process.exitcode}")
        return pipe.recv()

    def _run(self, command: str, argument: Any = None) -> None:
        if self._local is not None:
            views, indices = self._local
            if command == "step":
                _step_slice(views, indices, self._buffers)
            else:
                _reset_slice(views, indices, self._buffers, argument)
            return
        for pipe in self._pipes:
            pipe.send((command, argument))
        for pipe, process in zip(self._pipes, self._processes):
            self._receive(pipe, process)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self._run("reset", seed)
        buffers = self._buffers
        return buffers.obs.copy(), {"action_mask": buffers.mask.copy()}

    def step(self, actions):
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise InvalidParameterError(f"actions must be {self.num_envs} integers, got {actions!r}")
        buffers = self._buffers
        buffers.action[:] = actions
        self._run("step")
        infos: dict[str, Any] = {"action_mask": buffers.mask.copy()}
        done = buffers.done.astype(bool)
        if done.any():
            infos["final_obs"] = buffers.final_obs.copy()
            infos["_final_obs"] = done
        if buffers.illegal.any():
            infos["illegal_action"] = buffers.illegal.astype(bool)
        return (buffers.obs.copy(), buffers.reward.copy(), buffers.term.astype(bool),
                buffers.trunc.astype(bool), infos)

    def action_masks(self) -> np.ndarray:
        """Boolean masks of the current observations, one row per env (sb3-contrib style)."""
        return self._buffers.mask.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        for pipe in self._pipes:
            try:
                pipe.send(("close", None))
                pipe.recv()
            except (BrokenPipeError, EOFError, OSError):
                pass
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
        self._pipes, self._processes = [], []
