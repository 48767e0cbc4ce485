"""Stable-Baselines3 on the fox_envs vector envs: ``SB3VecEnv(vector_env)``.

``SB3VecEnv`` turns a ``gymnasium.vector.VectorEnv`` of a fox_envs Gymnasium id into a
Stable-Baselines3 ``VecEnv``, whichever kind it is: the batched core's ``BatchVectorEnv`` and
``FoxVectorEnv`` (what ``gymnasium.make_vec`` returns for the fox_envs ids), or Gymnasium's own
``SyncVectorEnv`` / ``AsyncVectorEnv`` (``make_vec(..., vectorization_mode="sync" | "async")``)::

    envs = SB3VecEnv(gymnasium.make_vec(gym_id, num_envs=8)  # gym_id: "fox_envs/<Game>-v0")
    model = sb3_contrib.MaskablePPO("MlpPolicy", envs).learn(2_000)

What Stable-Baselines3 expects, and where it comes from:

* ``step`` returns ``(obs, rewards, dones, infos)`` with ``dones = terminated | truncated``
  and, as SB3 VecEnvs do, resets an env whose episode ended in the same step: its row of ``obs``
  is the first observation of the next episode, ``infos[i]["terminal_observation"]`` the last
  observation of the ended one, and ``infos[i]["TimeLimit.truncated"]`` is True when the episode
  was cut by ``max_moves`` rather than ended by the rules (set for every env at every step).
* Every autoreset mode of the source is handled. ``BatchVectorEnv`` and ``FoxVectorEnv``
  autoreset in the same step (``AutoresetMode.SAME_STEP``, last observation in
  ``infos["final_obs"]``), as does a Gymnasium vector env made with
  ``vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP}`` (then ``infos[i]`` holds the
  ended episode's ``final_info`` and ``reset_infos[i]`` the new episode's info). Gymnasium's
  default, ``NEXT_STEP`` (and ``DISABLED``), returns the last observation in the step itself:
  ``SB3VecEnv`` then resets the ended envs at once with a partial reset
  (``reset(options={"reset_mask": ...})``, Gymnasium 1.1 or later), so the next action of that
  env is a real move of the new episode. An ``AsyncVectorEnv`` with ``shared_memory=False`` does
  not support that partial reset in ``NEXT_STEP`` mode and is refused with a message.
* ``env_method("action_masks")`` gives the legal-action masks of the current observations, one
  boolean row per env, as sb3-contrib's ``MaskablePPO`` asks for them; they come from
  ``infos["action_mask"]`` of the last ``reset`` / ``step``, so no extra call reaches the envs.
* ``seed(s)`` seeds the next ``reset()``: env ``i`` gets ``s + i``, as in every SB3 VecEnv and
  every fox_envs vector env, so the same seed gives the same episodes whichever kind of vector
  env runs them. ``set_options`` works the same way (one options dict for every env).
* ``get_attr``, ``set_attr``, ``env_method`` and ``env_is_wrapped`` reach the sub-envs of a
  ``SyncVectorEnv`` (each env) and an ``AsyncVectorEnv`` (through its workers).
  ``BatchVectorEnv`` and ``FoxVectorEnv`` step their envs together and have no sub-env objects:
  ``get_attr`` returns the vector env's own attribute for each env (e.g. ``render_mode``),
  ``env_method`` of anything but ``action_masks`` raises ``AttributeError``, ``set_attr``
  raises ``NotImplementedError`` (choose settings in ``gymnasium.make_vec``) and
  ``env_is_wrapped`` is False.

Per-env infos carry what the source's step infos carry for that env (e.g. ``illegal_action``)
except the masks and final observations, which are available as above. Episode returns and
lengths for SB3's logger: wrap in ``stable_baselines3.common.vec_env.VecMonitor``.
"""
from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

try:
    from stable_baselines3.common.env_util import is_wrapped
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv
except ImportError as error:  # pragma: no cover  (exercised in a subprocess by the tests)
    raise ImportError(
        "fox_envs.integrations.sb3 needs Stable-Baselines3 and sb3-contrib: pip install 'fox_envs[sb3]'"
    ) from error

import gymnasium
import numpy as np
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv, VectorEnv

__all__ = ["SB3VecEnv"]

# step-info keys that SB3VecEnv turns into its own entries (masks, terminal observations)
_OWN_KEYS = ("action_mask", "final_obs", "final_info")


def _gymnasium_has_reset_mask() -> bool:
    version = tuple(int(part) for part in gymnasium.__version__.split(".")[:2] if part.isdigit())
    return version >= (1, 1)


def _row(batch: Any, i: int) -> Any:
    """A copy of row ``i`` of a batched observation (array, dict or tuple of arrays, or
    Gymnasium's object array of per-env observations)."""
    if isinstance(batch, dict):
        return {key: _row(value, i) for key, value in batch.items()}
    if isinstance(batch, tuple):
        return tuple(_row(value, i) for value in batch)
    item = batch[i]
    if isinstance(item, dict):
        return {key: np.array(value) for key, value in item.items()}
    if isinstance(item, tuple):
        return tuple(np.array(value) for value in item)
    return np.array(item)


def _unbatch(infos: dict, num_envs: int, skip: tuple = ()) -> list[dict]:
    """Gymnasium's batched info dict (arrays with ``_key`` masks, nested dicts) as one dict per env."""
    out: list[dict] = [{} for _ in range(num_envs)]
    for key, value in infos.items():
        if key.startswith("_") or key in skip:
            continue
        present = infos.get("_" + key)
        rows = _unbatch(value, num_envs) if isinstance(value, dict) else None
        for i in range(num_envs):
            if present is None or present[i]:
                out[i][key] = rows[i] if rows is not None else value[i]
    return out


class SB3VecEnv(VecEnv):
    """A Stable-Baselines3 ``VecEnv`` over ``vector_env``, a ``gymnasium.vector.VectorEnv`` of a
    fox_envs Gymnasium id (any kind, any autoreset mode; see the module docstring).
    ``vector_env`` stays reachable as ``.vector_env``; ``close()`` closes it."""

    def __init__(self, vector_env: VectorEnv) -> None:
        if not isinstance(vector_env, VectorEnv):
            raise TypeError(f"SB3VecEnv wraps a gymnasium.vector.VectorEnv, got {type(vector_env).__name__}; "
                            "make one with gymnasium.make_vec(gym_id, num_envs)")
        self.vector_env = vector_env
        base = vector_env.unwrapped
        self._sync = base if isinstance(base, SyncVectorEnv) else None
        self._async = base if isinstance(base, AsyncVectorEnv) else None
        mode = vector_env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)  # Gymnasium's default
        self.autoreset_mode = mode if isinstance(mode, AutoresetMode) else AutoresetMode(mode)
        if self.autoreset_mode != AutoresetMode.SAME_STEP:
            if not _gymnasium_has_reset_mask():
                raise ValueError(
                    f"SB3VecEnv: a vector env with autoreset mode {self.autoreset_mode.name} needs Gymnasium >= 1.1 "
                    f"(partial resets); this is {gymnasium.__version__}. Make it with "
                    "vector_kwargs={'autoreset_mode': gymnasium.vector.AutoresetMode.SAME_STEP} instead")
            if self._async is not None and not getattr(self._async, "shared_memory", True):
                raise ValueError(
                    "SB3VecEnv: an AsyncVectorEnv with shared_memory=False cannot be reset partially in autoreset "
                    "mode NEXT_STEP; use shared_memory=True (the default) or "
                    "vector_kwargs={'autoreset_mode': gymnasium.vector.AutoresetMode.SAME_STEP}")
        self._actions: np.ndarray | None = None
        self._stepping_async = False
        self._masks: np.ndarray | None = None
        super().__init__(vector_env.num_envs, vector_env.single_observation_space, vector_env.single_action_space)

    # ----- episodes ------------------------------------------------------------------------------
    def reset(self):
        if self._stepping_async:  # a reset cancels the pending step (its results are dropped)
            self._stepping_async = False
            self._async.step_wait()
        self._actions = None
        seeds, options = self._seeds, self._options
        if all(seed is None for seed in seeds):
            seed: Any = None
        elif all(seed is not None and seed == seeds[0] + i for i, seed in enumerate(seeds)):
            seed = int(seeds[0])  # what every kind of vector env accepts: env i gets seed + i
        else:
            seed = list(seeds)
        if any(option != options[0] for option in options):
            raise ValueError("SB3VecEnv: the vector env resets every env with the same options; got different ones")
        obs, infos = self.vector_env.reset(seed=seed, options=dict(options[0]) if options[0] else None)
        self._reset_seeds()
        self._reset_options()
        self._masks = self._read_masks(infos)
        self.reset_infos = _unbatch(infos, self.num_envs, skip=_OWN_KEYS)
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)
        if self._async is not None and self.vector_env is self._async:
            self._async.step_async(self._actions)
            self._stepping_async = True

    def step_wait(self):
        if self._stepping_async:
            self._stepping_async = False
            obs, rewards, terminated, truncated, infos = self._async.step_wait()
        else:
            if self._actions is None:
                raise RuntimeError("SB3VecEnv: step_async(actions) must come before step_wait()")
            obs, rewards, terminated, truncated, infos = self.vector_env.step(self._actions)
        self._actions = None
        n = self.num_envs
        terminated = np.asarray(terminated, dtype=bool)
        truncated = np.asarray(truncated, dtype=bool)
        dones = terminated | truncated
        masks = self._read_masks(infos)
        ended = np.flatnonzero(dones)
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            final_info = infos.get("final_info")
            env_infos = _unbatch(infos, n, skip=_OWN_KEYS)
            if final_info is not None:  # Gymnasium's: the ended episode's info; the top level is the new one's
                final_rows = _unbatch(final_info, n, skip=_OWN_KEYS)
                for i in ended:
                    self.reset_infos[i] = env_infos[i]
                    env_infos[i] = final_rows[i]
            final_obs = infos.get("final_obs")
            if len(ended) and final_obs is None:
                raise RuntimeError("SB3VecEnv: a SAME_STEP vector env ended episodes without infos['final_obs']")
            terminal = {int(i): _row(final_obs, int(i)) for i in ended}
        else:  # NEXT_STEP / DISABLED: obs holds the last observations; start the next episodes now
            env_infos = _unbatch(infos, n, skip=_OWN_KEYS)
            terminal = {int(i): _row(obs, int(i)) for i in ended}
            if len(ended):
                obs, reset_infos = self.vector_env.reset(options={"reset_mask": dones.copy()})
                reset_rows = _unbatch(reset_infos, n, skip=_OWN_KEYS)
                reset_masks = self._read_masks(reset_infos, partial=True)
                for i in ended:
                    self.reset_infos[i] = reset_rows[i]
                    if masks is not None and reset_masks is not None:
                        masks[i] = reset_masks[i]
                if masks is not None and reset_masks is None:
                    masks = self._read_masks({})
        for i in range(n):
            env_infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        for i, observation in terminal.items():
            env_infos[i]["terminal_observation"] = observation
        self._masks = masks
        return obs, np.asarray(rewards, dtype=np.float32), dones, env_infos

    def close(self) -> None:
        self.vector_env.close()

    # ----- masks ---------------------------------------------------------------------------------
    def _read_masks(self, infos: dict, partial: bool = False) -> np.ndarray | None:
        """Boolean masks (num_envs, num_actions) from ``infos["action_mask"]`` (with ``partial``,
        those of a partial reset: only the reset rows are meaningful), else from the vector env's
        ``action_masks()`` or its envs'."""
        mask = infos.get("action_mask")
        present = infos.get("_action_mask")
        if isinstance(mask, np.ndarray) and mask.ndim >= 2 and (partial or present is None or np.all(present)):
            return mask.astype(bool)
        if partial:
            return None
        method = getattr(self.vector_env, "action_masks", None)
        if callable(method):
            return np.asarray(method(), dtype=bool)
        if self._sync is not None or self._async is not None:
            try:
                return np.stack([np.asarray(m, dtype=bool) for m in self.vector_env.unwrapped.call("action_masks")])
            except AttributeError:
                return None
        return None

    def action_masks(self) -> np.ndarray:
        """Boolean masks of the current observations, one row per env."""
        if self._masks is None:
            raise AttributeError("SB3VecEnv: no action masks: call reset() first (and use a fox_envs vector env, "
                                 "whose infos carry 'action_mask')")
        return self._masks.copy()

    def _mask_row(self, i: int) -> np.ndarray:
        return self.action_masks()[i]

    # ----- per-env access --------------------------------------------------------------------------
    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        assert isinstance(indices, Iterable)
        return [int(i) for i in indices]

    def _batched_name(self) -> str:
        return type(self.vector_env.unwrapped).__name__

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        rows = self._indices(indices)
        if attr_name == "action_masks":  # one bound method per env, as a DummyVecEnv gives
            return [partial(self._mask_row, i) for i in rows]
        if self._sync is not None:
            return [self._sync.envs[i].get_wrapper_attr(attr_name) for i in rows]
        if self._async is not None:
            values = self._async.get_attr(attr_name)
            return [values[i] for i in rows]
        value = getattr(self.vector_env, attr_name)  # one vector env for all its envs
        return [value for _ in rows]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        rows = self._indices(indices)
        if self._sync is not None:
            for i in rows:
                self._sync.envs[i].set_wrapper_attr(attr_name, value)
            return
        if self._async is not None:
            values = list(self._async.get_attr(attr_name)) if len(rows) < self.num_envs else [value] * self.num_envs
            for i in rows:
                values[i] = value
            self._async.set_attr(attr_name, values)
            return
        raise NotImplementedError(
            f"SB3VecEnv: {self._batched_name()} steps its envs together and has no per-env attributes to set; "
            "choose its settings in gymnasium.make_vec(...)")

    def env_method(self, method_name: str, *method_args, indices: Any = None, **method_kwargs) -> list[Any]:
        rows = self._indices(indices)
        if method_name == "action_masks" and not method_args and not method_kwargs:
            masks = self.action_masks()
            return [masks[i] for i in rows]
        if self._sync is not None:
            return [self._sync.envs[i].get_wrapper_attr(method_name)(*method_args, **method_kwargs) for i in rows]
        if self._async is not None:
            if len(rows) < self.num_envs or rows != sorted(set(rows)):
                raise NotImplementedError("SB3VecEnv: an AsyncVectorEnv calls a method in every env at once; "
                                          "call env_method without indices")
            return list(self._async.call(method_name, *method_args, **method_kwargs))
        raise AttributeError(
            f"SB3VecEnv: {self._batched_name()} steps its envs together and has no per-env method "
            f"{method_name!r} (env_method('action_masks') is available)")

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: Any = None) -> list[bool]:
        rows = self._indices(indices)
        if self._sync is not None:
            return [is_wrapped(self._sync.envs[i], wrapper_class) for i in rows]
        if self._async is not None:  # the workers' env specs list the wrappers added to each env
            from gymnasium.envs.registration import load_env_creator

            def wrapped(spec: Any) -> bool:
                for wrapper in getattr(spec, "additional_wrappers", ()) or ():
                    try:
                        cls = load_env_creator(wrapper.entry_point)
                    except (ImportError, AttributeError, ValueError):
                        continue
                    if isinstance(cls, type) and issubclass(cls, wrapper_class):
                        return True
                return False

            specs = self._async.get_attr("spec")
            return [wrapped(specs[i]) for i in rows]
        return [False for _ in rows]  # no per-env Gymnasium env objects to wrap

    def get_images(self) -> list[Any]:
        return list(self.vector_env.render())
