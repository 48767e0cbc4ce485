"""A batched vector env for the single-agent Gymnasium view.

Gymnasium's ``AsyncVectorEnv`` pays one inter-process round trip per env per step, which costs
more than a whole step of these games. ``FoxVectorEnv`` steps ``num_envs`` copies of the view in
``workers`` processes, the calling process being one of them: it steps the first slice of envs
itself while ``workers - 1`` forked processes (start method ``context``: ``"fork"`` where
available, else ``"spawn"``; pass ``context="spawn"`` when the parent runs threads) step theirs,
each in a plain loop, with one message per forked worker per step (polled for ``spin`` seconds
before a process sleeps). ``workers`` 0 or 1 steps every env in this process. A spawned worker first registers the games
registered here that a fresh ``import fox_envs`` lacks (a user's game; forked ones inherit them).
``gymnasium.make_vec`` returns one for the fox_envs ids (``make_vector_env``).

Every process writes observations, masks, rewards and flags straight into the rows of the
arrays that ``step`` returns, which live in shared memory. There are two such sets of arrays,
used in turn; a set is written again only when nothing outside still refers to any of its
arrays (``sys.getrefcount``; a view of an array refers to it), so arrays a caller keeps are
never overwritten: when both sets are still referred to, that step returns fresh arrays instead
(a copy more, same results).

Autoreset is same-step (``AutoresetMode.SAME_STEP``): when an episode ends, the returned
observation and ``infos["action_mask"]`` already belong to the next episode, and the last
observation is in ``infos["final_obs"]`` (rows flagged by ``infos["_final_obs"]``, other rows
zero). Env ``i`` is reset with ``seed + i``, so results do not depend on the number of workers.
An error in any env (``illegal_action="raise"``, a broken opponent) is raised by ``step`` with
a note naming the env; the vector env then needs ``reset()``.

A ``reset`` or ``step`` cut short by Ctrl-C (KeyboardInterrupt) or by a worker that died never
leaves answers in the pipes for a later call to read: the workers are stopped, ``step`` raises
``ResetNeeded`` until a ``reset``, and ``reset`` starts fresh workers (a ``reset(seed=s)`` then
returns exactly what a new FoxVectorEnv would). Ctrl-C is held back while a worker process is
being started (it is raised right after).

An opponent given as an agent object is deep-copied for every env: each env plays and re-seeds
its own copy (the object passed is not used), so env ``i`` plays as a single view given a copy
of the agent and seeded ``seed + i``, whatever the number of workers.

A FoxVectorEnv cannot be copied or pickled (``TypeError``, before anything is copied): it owns
processes, pipes and shared memory.
"""
from __future__ import annotations

import contextlib
import copy
import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.params import integer_in, short_repr
from fox_envs.core.registration import added_specs, register_specs

RING = 2  # sets of returned arrays used in turn
NOT_COPYABLE = ("a FoxVectorEnv cannot be copied or pickled: it owns worker processes, pipes and shared "
                "memory; make another FoxVectorEnv with the same arguments instead")
MASK_IN_VECTORS = ("mask_in_observation=True is for single envs and Gymnasium's own vector envs: "
                   "gymnasium.make_vec(id, n, vectorization_mode='sync', mask_in_observation=True); this vector "
                   "env gives the masks in infos['action_mask'] and action_masks()")
CUT_SHORT = ("the last reset() or step() did not finish (an error, Ctrl-C or a dead worker): "
             "call reset() (it starts the workers again if needed)")


def _own_kwargs(kwargs: dict) -> dict:
    """``kwargs`` with every agent object in ``opponent`` (alone or in a list) replaced by a deep
    copy of it: each env plays its own copy, reset (re-seeded) by that env alone."""
    opponent = kwargs.get("opponent")
    if opponent is None or isinstance(opponent, str):
        return kwargs
    try:
        if isinstance(opponent, (list, tuple)):
            opponent = [spec if isinstance(spec, str) else copy.deepcopy(spec) for spec in opponent]
        else:
            opponent = copy.deepcopy(opponent)
    except Exception as error:  # noqa: BLE001
        raise InvalidParameterError(
            f"opponent {short_repr(kwargs['opponent'])} cannot be copied (copy.deepcopy: {error}); FoxVectorEnv gives "
            "every env its own copy of an agent object: make the agent deep-copyable, or pass a 'module:callable' factory") from None
    return {**kwargs, "opponent": opponent}


def _make_views(gym_id: str, count: int, kwargs: dict) -> list:
    import fox_envs  # noqa: F401  (registers the ids in a fresh process)

    views = [gymnasium.make(gym_id, **_own_kwargs(kwargs)).unwrapped for _ in range(count)]
    for view in views[1:]:  # one (immutable) Game for all: its tables stay in the CPU cache
        view.game = views[0].game
        view.state = view.game.new_initial_state()
    return views


def _layout(num_envs: int, obs_shape: tuple, num_actions: int, obs_dtype: Any = np.float32) -> dict[str, tuple[Any, tuple]]:
    """Name -> (dtype, shape) of every per-env array a step or reset fills."""
    return {"obs": (obs_dtype, (num_envs, *obs_shape)), "final_obs": (obs_dtype, (num_envs, *obs_shape)),
            "mask": (np.int8, (num_envs, num_actions)), "reward": (np.float64, (num_envs,)),
            "term": (np.bool_, (num_envs,)), "trunc": (np.bool_, (num_envs,)), "done": (np.bool_, (num_envs,)),
            "illegal": (np.bool_, (num_envs,))}


def _raw_set(ctx, layout: dict) -> dict[str, Any]:
    """Shared memory for one set of arrays."""
    return {name: ctx.RawArray("b", max(1, int(np.prod(shape)) * np.dtype(dtype).itemsize))
            for name, (dtype, shape) in layout.items()}


class _Buffers:
    """One set of the arrays of a layout (attributes ``obs``, ``final_obs``, ``mask``,
    ``reward``, ``term``, ``trunc``, ``done``, ``illegal``) plus ``action``, the actions to play."""

    def __init__(self, arrays: dict[str, Any], action: np.ndarray, final_spec: tuple | None = None) -> None:
        self.__dict__.update(arrays)
        self.action = action
        self._final_spec = final_spec  # fresh sets make final_obs on first use
        self.ended = np.zeros(0, dtype=np.intp)  # rows of final_obs written by the last step

    @classmethod
    def over(cls, raw: dict[str, Any] | None, layout: dict, action: np.ndarray) -> "_Buffers":
        """Arrays on the shared memory ``raw`` (private ones when None), each its own base, so
        that every view of it refers to it."""
        return cls({name: np.ndarray(shape, dtype, buffer=raw[name]) if raw else np.zeros(shape, dtype)
                    for name, (dtype, shape) in layout.items()}, action)

    @classmethod
    def fresh(cls, layout: dict, action: np.ndarray) -> "_Buffers":
        arrays = {name: np.empty(shape, dtype) for name, (dtype, shape) in layout.items() if name != "final_obs"}
        return cls({**arrays, "final_obs": None}, action, layout["final_obs"])

    def final_rows(self) -> np.ndarray:
        """``final_obs`` (zero in the rows of envs that go on)."""
        if self.final_obs is None:
            dtype, shape = self._final_spec
            self.final_obs = np.zeros(shape, dtype)
        return self.final_obs

    def refcount(self) -> int:
        """The largest reference count of the returned arrays (``FREE`` when nothing else refers
        to any of them)."""
        getrefcount = sys.getrefcount
        return max(getrefcount(self.obs), getrefcount(self.final_obs), getrefcount(self.mask),
                   getrefcount(self.reward), getrefcount(self.term), getrefcount(self.trunc),
                   getrefcount(self.done), getrefcount(self.illegal))

    def clear_final(self) -> None:
        """Zero the final observations the last step wrote (before this set is written again)."""
        if len(self.ended):
            self.final_obs[self.ended] = 0
            self.ended = self.ended[:0]


# the reference count of an array that only its set refers to, as refcount() sees it
FREE = _Buffers.over(None, _layout(1, (1,), 1), np.zeros(1, np.int64)).refcount()


def _reset_slice(views: list, lo: int, buffers: _Buffers, seeds: list) -> None:
    """Reset envs ``lo, lo + 1, ...`` (one per view), env ``i`` with ``seeds[i]``."""
    obs, mask = buffers.obs, buffers.mask
    for i, view in enumerate(views, lo):
        view._start(seeds[i])
        view._write_observation(obs[i])
        view._write_mask(mask[i])


def _step_slice(views: list, lo: int, buffers: _Buffers) -> None:
    """Step envs ``lo, lo + 1, ...`` (one per view) with the actions in the buffer; a finished
    episode is reset at once (same-step autoreset). The per-env work is only the game itself:
    observations and masks are written in place into the rows, the scalars once per slice."""
    hi = lo + len(views)
    obs, mask = buffers.obs, buffers.mask
    rewards, terms, truncs, illegals, dones = [], [], [], [], []
    i = lo
    try:
        for i, view, action in zip(range(lo, hi), views, buffers.action[lo:hi].tolist()):
            reward, term, trunc, illegal = view._play(action)
            rewards.append(reward)
            terms.append(term)
            truncs.append(trunc)
            illegals.append(illegal)
            if term or trunc:
                view._write_observation(buffers.final_rows()[i])
                view._start(None)
                dones.append(True)
            else:
                dones.append(False)
            view._write_observation(obs[i])
            view._write_mask(mask[i])
    except Exception as error:
        if hasattr(error, "add_note"):  # Python 3.11+
            error.add_note(f"(in FoxVectorEnv env {i})")
        raise
    buffers.reward[lo:hi] = rewards
    buffers.term[lo:hi] = terms
    buffers.trunc[lo:hi] = truncs
    buffers.illegal[lo:hi] = illegals
    buffers.done[lo:hi] = dones


def _run_slice(command: str, argument: Any, views: list, lo: int, buffers: _Buffers) -> None:
    if command == "step":
        _step_slice(views, lo, buffers)
    else:
        _reset_slice(views, lo, buffers, argument)


def _worker(gym_id: str, lo: int, count: int, kwargs: dict, raws: list, layout: dict, raw_action, pipe,
            spin: float, games: tuple = ()) -> None:
    """A worker stepping envs ``lo..lo+count-1``; ``games``: the parent's games a spawned
    process lacks (``added_specs``), registered first."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the main process, which stops us
    parent = os.getppid()
    try:
        register_specs(games)
        views = _make_views(gym_id, count, kwargs)
        action = np.ndarray(layout["reward"][1], np.int64, buffer=raw_action)
        sets = [_Buffers.over(raw, layout, action) for raw in raws]
    except BaseException as error:  # noqa: BLE001  (reported to the parent, which raises it)
        _send_error(pipe, error)
        return
    pipe.send("ready")
    while True:
        try:
            _spin_until_ready(pipe, spin)
            while not pipe.poll(1.0):
                if os.getppid() != parent:  # the main process is gone (this process has its end too)
                    return
            command, index, argument = pipe.recv()
        except (EOFError, OSError):  # the main process is gone
            return
        if command == "close":
            pipe.send("closed")
            return
        try:
            _run_slice(command, argument, views, lo, sets[index])
        except Exception as error:  # noqa: BLE001  (the parent raises it; this worker goes on)
            _send_error(pipe, error)
        else:
            pipe.send("ok")


@contextlib.contextmanager
def _sigint_deferred():
    """Hold back Ctrl-C (SIGINT) in the main thread for the block: a KeyboardInterrupt inside
    ``Process.start`` would leave a process running that nothing knows of (or be swallowed by
    the fork handlers); it is raised when the block ends instead."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _spin_until_ready(pipe, seconds: float) -> None:
    """Poll ``pipe`` without sleeping until a message waits or ``seconds`` have passed (the
    caller's blocking read follows). A process that sleeps in a blocking read takes tens of
    microseconds to wake up (more on a virtual machine), which is a large part of a short step."""
    poll, clock = pipe.poll, time.perf_counter
    end = clock() + seconds
    while not poll() and clock() <= end:
        pass


def vector_actions(actions: Any, num_envs: int) -> np.ndarray:
    """``actions`` as an integer array of shape ``(num_envs,)``; anything else raises
    ``InvalidParameterError`` (a vector env's step takes one integer per env)."""
    actions = np.asarray(actions)
    if actions.shape != (num_envs,) or not np.issubdtype(actions.dtype, np.integer):
        raise InvalidParameterError(
            f"actions must be {num_envs} integers (shape ({num_envs},)), got shape {actions.shape} dtype {actions.dtype}")
    return actions


def _is_seed(seed: Any) -> bool:
    return integer_in(seed, 0) is not None


def _send_error(pipe, error: BaseException) -> None:
    try:
        pipe.send(("error", error))
    except Exception:  # noqa: BLE001  (an exception that does not pickle)
        pipe.send(("error", RuntimeError(f"{type(error).__name__}: {error}")))


class FoxVectorEnv(VectorEnv):
    """``num_envs`` copies of ``gymnasium.make(gym_id, **kwargs)`` (a fox_envs Gymnasium id such
    as ``"fox_envs/<Game>-v0"``), stepped by ``workers`` processes, this one included (0 or 1:
    only this one; 2 on a 2-core machine). ``observation_layout`` (a view argument) shapes the
    observations, final observations included.

    ``reset(seed=s)`` seeds env ``i`` with ``s + i`` (``seed`` may also be a list of
    ``num_envs`` ints or Nones). ``step(actions)`` takes ``num_envs`` integers; an illegal action
    ends that env's episode with reward -1 and ``infos["illegal_action"]`` set for its row (or
    raises ``IllegalActionError`` with ``illegal_action="raise"``).

    Between steps each process polls for the next message for up to ``spin`` seconds (default
    0.5 ms) before it blocks: waking a blocked process costs tens of microseconds, a large part
    of a step of these games. ``spin=0`` blocks at once, leaving the cores to a learner that
    needs them between steps.

    An agent object given as ``opponent`` (alone or in a list) is deep-copied for every env.
    After Ctrl-C or a dead worker in ``reset``/``step``, ``step`` raises ``ResetNeeded`` and
    ``reset`` starts the workers again. Copying or pickling raises ``TypeError``."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, gym_id: str, num_envs: int, workers: int = 0, context: str | None = None,
                 spin: float = 0.0005, **kwargs: Any) -> None:
        self.closed = True  # until every worker is up (close() is then a no-op)
        if kwargs.get("mask_in_observation"):
            raise InvalidParameterError(MASK_IN_VECTORS)
        if integer_in(num_envs, 1) is None:
            raise InvalidParameterError(f"bad num_envs {short_repr(num_envs)}; allowed: an integer >= 1")
        num_envs = integer_in(num_envs, 1)
        if integer_in(workers, 0, num_envs) is None:
            raise InvalidParameterError(f"bad workers {short_repr(workers)}; allowed: 0..num_envs ({num_envs})")
        workers = integer_in(workers, 0)
        if isinstance(spin, bool) or not isinstance(spin, (int, float)) or not 0 <= spin <= 1:
            raise InvalidParameterError(f"bad spin {short_repr(spin)}; allowed: seconds from 0 to 1")
        self._spin = float(spin)
        bounds = np.linspace(0, num_envs, max(workers, 1) + 1).astype(int).tolist()  # contiguous slices
        self._local = _make_views(gym_id, bounds[1], kwargs)  # the first slice, stepped here
        probe = self._local[0]
        self.num_envs = num_envs
        self.single_observation_space = probe.observation_space
        self.single_action_space = probe.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._layout = _layout(num_envs, tuple(self.single_observation_space.shape), int(self.single_action_space.n),
                               self.single_observation_space.dtype)
        if context is None:  # fork where the platform has it (works from notebooks and stdin)
            context = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
        ctx = mp.get_context(context)
        # RING sets returned in turn (and with workers, a spare one they fill when both are in use)
        raws = [_raw_set(ctx, self._layout) if workers > 1 else None for _ in range(RING + (workers > 1))]
        raw_action = ctx.RawArray("b", num_envs * 8) if workers > 1 else None
        self._action = (np.ndarray((num_envs,), np.int64, buffer=raw_action) if raw_action
                        else np.zeros(num_envs, np.int64))
        self._sets = [_Buffers.over(raw, self._layout, self._action) for raw in raws]
        self._next = 0
        self._split = bounds[1]  # envs [0, split) are stepped here, the rest by the workers
        self._masks = np.zeros(self._layout["mask"][1], np.int8)
        self._pipes: list = []
        self._processes: list = []
        self._needs_reset = True
        self._reset_reason = "call reset() before step()"
        # an exchange with the workers began and did not end (pipes possibly out of step)
        self._pending = False
        self._spawn_args = [(gym_id, lo, hi - lo, kwargs, raws, self._layout, raw_action, spin)
                            for lo, hi in zip(bounds[1:-1], bounds[2:])]
        self._ctx = ctx
        self._games = added_specs() if ctx.get_start_method() != "fork" and workers > 1 else ()
        try:
            self._start_workers()
        except BaseException:
            self.close_extras(terminate=True)
            raise
        self.closed = False

    def _start_workers(self) -> None:
        """Start a worker per slice after the first and wait until each is ready. Anything cut
        short leaves ``_pending`` set: the next ``reset`` starts them again."""
        self._pending = True
        for args in self._spawn_args:
            with _sigint_deferred():
                parent, child = self._ctx.Pipe()
                process = self._ctx.Process(target=_worker, daemon=True, args=(*args[:-1], child, args[-1], self._games))
                self._pipes.append(parent)
                self._processes.append(process)  # before start(): stopping skips a process never started
                process.start()
                child.close()  # the worker's end lives in the worker (a dead worker then reads as EOF)
        try:
            self._collect()
        except BaseException:
            self._pending = True
            self._stop_workers()
            raise

    def _restart_workers(self) -> None:
        """Stop what is left of the workers of an exchange that was cut short (interrupted, a
        worker died) and start fresh ones; the rows they had half written are cleared."""
        self._pending = True
        self._stop_workers()
        for buffers in self._sets:
            if buffers.refcount() <= FREE:  # (arrays a caller keeps are never written)
                buffers.final_obs[:] = 0
                buffers.ended = buffers.ended[:0]
        self._start_workers()

    def _stop_workers(self) -> None:
        """Terminate the workers at once; safe to call again after being cut short."""
        while self._processes:
            process = self._processes[-1]
            if process.pid is not None:  # started
                process.terminate()
                process.join(timeout=5)
                if process.is_alive():
                    process.kill()
                    process.join()
            self._processes.pop()
        while self._pipes:
            self._pipes[-1].close()
            self._pipes.pop()

    def __reduce_ex__(self, protocol: Any):
        raise TypeError(NOT_COPYABLE)

    def __copy__(self):
        raise TypeError(NOT_COPYABLE)

    def __deepcopy__(self, memo: dict):
        raise TypeError(NOT_COPYABLE)

    def _receive(self, pipe, process) -> Any:
        """The worker's answer; a worker that died raises instead of hanging."""
        try:
            _spin_until_ready(pipe, self._spin)
            while not pipe.poll(0.5):
                if not process.is_alive():
                    raise EOFError
            return pipe.recv()
        except (EOFError, OSError):
            process.join(timeout=1)
            raise RuntimeError(f"FoxVectorEnv worker exited with code {process.exitcode}; "
                               "call reset() to start the workers again") from None

    def _collect(self, error: BaseException | None = None) -> None:
        """Wait for every worker's answer, then raise ``error`` (this process's) or else the
        first error a worker reported. A dead worker or an interrupted wait (the pipes are then
        out of step) stops the workers and leaves ``_pending`` set: ``reset`` starts them again."""
        try:
            answers = [self._receive(pipe, process) for pipe, process in zip(self._pipes, self._processes)]
        except BaseException:
            self._stop_workers()
            raise
        self._pending = False  # every answer is in: the pipes are in step
        for answer in answers:
            if error is None and isinstance(answer, tuple) and answer[0] == "error":
                error = answer[1]
        if error is not None:
            raise error

    def _run(self, command: str, argument: Any = None) -> _Buffers:
        """Run ``command`` on every env; returns the set of arrays that holds the results."""
        if self.closed:
            raise RuntimeError("FoxVectorEnv is closed")
        free = [k % RING for k in range(self._next, self._next + RING) if self._sets[k % RING].refcount() <= FREE]
        if free:  # every process writes its rows straight into the arrays returned
            index = free[0]
            self._next = index + 1
            out = self._sets[index]
            out.clear_final()
        else:  # both sets are still referred to: the workers fill the spare set, copied below
            index, out = RING, _Buffers.fresh(self._layout, self._action)
        self._pending = True  # until every worker has answered (_collect)
        try:
            for pipe in self._pipes:
                try:
                    pipe.send((command, index, argument))
                except OSError:  # a dead worker: _collect says so
                    pass
            try:  # this process's slice, while the workers step theirs
                _run_slice(command, argument, self._local, 0, out)
            except BaseException as error:  # the workers' answers are still read (pipes stay in step)
                self._collect(error)
            self._collect()
        except BaseException:
            if self._pending:  # cut short (Ctrl-C, a dead worker): answers may still be on their way
                self._stop_workers()
            if out.final_obs is not None:  # rows written by a step cut short are not tracked
                out.final_obs[:] = 0
            raise
        if index == RING and self._pipes:
            self._copy_spare(command, out)
        if command == "step" and out.final_obs is not None:
            out.ended = np.flatnonzero(out.done)
        return out

    def _copy_spare(self, command: str, out: _Buffers) -> None:
        """Copy the workers' rows from the spare set into the fresh ``out``."""
        split, spare = self._split, self._sets[RING]
        names = ("obs", "mask") if command == "reset" else ("obs", "mask", "reward", "term", "trunc", "done", "illegal")
        for name in names:
            getattr(out, name)[split:] = getattr(spare, name)[split:]
        ended = np.flatnonzero(spare.done[split:]) + split if command == "step" else ()
        if len(ended):  # only these rows of the spare final_obs are from this step
            out.final_rows()[ended] = spare.final_obs[ended]

    def reset(self, *, seed: int | list | None = None, options: dict | None = None):
        if seed is None or _is_seed(seed):
            seeds = [None if seed is None else int(seed) + i for i in range(self.num_envs)]
        elif isinstance(seed, (list, tuple)) and len(seed) == self.num_envs and all(
                s is None or _is_seed(s) for s in seed):
            seeds = [None if s is None else int(s) for s in seed]
        else:
            raise InvalidParameterError(
                f"bad seed {short_repr(seed)}; allowed: None, an int >= 0 or a list of {self.num_envs} (ints >= 0 or None)")
        if self.closed:
            raise RuntimeError("FoxVectorEnv is closed")
        self._needs_reset, self._reset_reason = True, CUT_SHORT
        if self._pending:  # the last exchange was cut short: fresh workers, pipes in step
            self._restart_workers()
        out = self._run("reset", seeds)
        self._needs_reset = False
        self._masks = out.mask
        return out.obs, {"action_mask": out.mask}

    def step(self, actions):
        if self._needs_reset:
            raise gymnasium.error.ResetNeeded(self._reset_reason)
        self._action[:] = vector_actions(actions, self.num_envs)
        self._needs_reset, self._reset_reason = True, CUT_SHORT  # until it returns: some envs may step, others not
        out = self._run("step")
        self._needs_reset = False
        self._masks = out.mask
        infos: dict[str, Any] = {"action_mask": out.mask}
        if out.done.any():  # as Gymnasium's vector envs: zero rows where no episode ended
            infos["final_obs"] = out.final_obs
            infos["_final_obs"] = out.done
        if out.illegal.any():
            infos["illegal_action"] = out.illegal
            infos["_illegal_action"] = out.illegal.copy()
        return out.obs, out.reward, out.term, out.trunc, infos

    def action_masks(self) -> np.ndarray:
        """Boolean masks of the current observations, one row per env (sb3-contrib style): those
        of the ``infos["action_mask"]`` the last ``reset`` or ``step`` returned."""
        return self._masks.astype(bool)

    def close_extras(self, terminate: bool = False, **kwargs: Any) -> None:
        """Stop the workers (``terminate=True``, or after an exchange cut short: at once,
        without the goodbye message)."""
        if terminate or getattr(self, "_pending", False):
            self._stop_workers()
            return
        for pipe in self._pipes:
            try:
                pipe.send(("close", None, None))
                if pipe.poll(5):
                    pipe.recv()
            except (EOFError, OSError):
                pass
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.terminate()
        for pipe in self._pipes:
            pipe.close()
        self._pipes, self._processes = [], []

    def __del__(self) -> None:
        if not getattr(self, "closed", True):
            try:
                self.close(terminate=True)
            except Exception:  # noqa: BLE001  (interpreter shutdown)
                pass


def make_vector_env(num_envs: int = 1, *, env_id: str, **kwargs: Any) -> FoxVectorEnv:
    """``gymnasium.make_vec(gym_id, num_envs, workers=..., opponent=...)`` (the ids' vector entry
    point): a ``FoxVectorEnv`` of the game registered as ``env_id`` (``"<name>_v0"``);
    ``kwargs`` are FoxVectorEnv's (``workers``, ``context``, ``spin``) and the view's."""
    from fox_envs.core.registry import GAMES

    if env_id not in GAMES:
        raise InvalidParameterError(f"unknown env_id {short_repr(env_id)}; allowed: {', '.join(GAMES)}")
    return FoxVectorEnv("fox_envs/" + GAMES[env_id].gym_id, num_envs, **kwargs)
