"""Games as Ray tasks: the ``backend="ray"`` of ``evaluate`` and ``round_robin``.

``run_on_ray`` has the contract of ``pool.run_parallel``: games ``0..count-1`` are played in
chunks, one Ray task per chunk (``init(*init_args)``, then ``play(index)`` for each game of
the chunk), at most ``workers`` tasks at a time, on whatever machines the Ray cluster has.
Game ``i`` depends only on ``(seed, i)``, so the results are those of the process backend.

Failures are reported as the process backend reports them: an agent's ``Exception`` is
re-raised with its own type (a note names the game, the task's traceback is the cause); a Ray
worker that dies (killed, out of memory, its machine lost) or an agent raising ``SystemExit``
raises ``WorkerLostError`` naming the games lost; tasks are never retried. On any exit,
Ctrl-C included, the tasks still running are cancelled.

Ray itself: an existing ``ray.init`` is reused and left running; otherwise ``ray_session``
calls ``ray.init(address=...)`` (``None``: Ray's own rule, ``RAY_ADDRESS`` or a cluster
started on this machine with ``ray start``, else a new local instance) and shuts Ray down at
the end.
"""
from __future__ import annotations

import logging
import socket
import sys
import traceback
from collections import deque
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from fox_envs.evaluation.pool import (WorkerLostError, index_ranges, lost_games_error, portable, raise_failure,
                                     with_games)

WAIT_WARNING_SECONDS = 30  # no game finished for this long and no free CPU: say why
MISSING_RAY = "backend='ray' needs Ray: pip install 'fox_envs[rllib]' (or pip install ray)"


def import_ray():
    """The ``ray`` module, or an ImportError naming the extra to install."""
    try:
        import ray
    except ImportError as error:
        raise ImportError(MISSING_RAY) from error
    return ray


@contextmanager
def ray_session(address: str | None = None) -> Iterator[Any]:
    """Ray, running: reused when already initialised (``address`` is then ignored), else
    started or joined at ``address`` here and shut down on leaving."""
    ray = import_ray()
    if ray.is_initialized():
        yield ray
        return
    if address is not None:
        check_reachable(address)
    ray.init(address=address, include_dashboard=False, logging_level=logging.WARNING)
    try:
        yield ray
    finally:
        ray.shutdown()


def check_reachable(address: str, timeout: float = 10.0) -> None:
    """A ``host:port`` address must accept a connection (Ray itself retries an unreachable one
    for minutes); ``"auto"``, ``"local"`` and ``ray://`` addresses are left to Ray."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or "://" in address:
        return
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as error:
        raise ConnectionError(f"no Ray cluster answers at {address} ({error}); start one there with "
                              "'ray start --head --port=<port>', or give the address 'ray start' printed") from None


def play_chunk(init: Callable[..., None], init_args: tuple, play: Callable[[int], Any],
               indices: list[int]) -> tuple[list[Any], tuple | None]:
    """One Ray task: the outcomes of the games played, and the failure that stopped the chunk
    (``(kind, index, error, traceback text)`` as the process workers send it) or None."""
    try:
        init(*init_args)
    except BaseException as error:  # noqa: BLE001  (reported to the caller)
        return [], ("start", None, portable(error), traceback.format_exc())
    outcomes = []
    for index in indices:
        try:
            outcomes.append(play(index))
        except Exception as error:  # noqa: BLE001  (an agent's error: re-raised by the caller)
            return outcomes, ("error", index, portable(error), traceback.format_exc())
        except BaseException as error:  # noqa: BLE001  (SystemExit & co. would end the Ray worker)
            return outcomes, ("exit", index, portable(error), traceback.format_exc())
    return outcomes, None


def run_on_ray(init: Callable[..., None], init_args: tuple, play: Callable[[int], Any], count: int,
               workers: int, chunk: int, on_outcome: Callable[[Any], None], address: str | None = None) -> None:
    """Play games ``0..count-1`` as Ray tasks of ``chunk`` games, at most ``workers`` at a time,
    calling ``on_outcome(outcome)`` here for every game (in completion order). Raises as the
    module doc says; no task of this call is left running when it returns or raises."""
    with ray_session(address) as ray:
        from ray.exceptions import RayError

        task = ray.remote(num_cpus=1, max_retries=0)(play_chunk)
        init = with_games(init)
        shared = ray.put(init_args)
        queue = deque(list(range(lo, min(lo + chunk, count))) for lo in range(0, count, chunk))
        running: dict[Any, list[int]] = {}
        done = 0
        warned = False

        def lost(message: str, cut: list[int] = ()) -> WorkerLostError:
            in_flight = list(cut) + [index for games in running.values() for index in games]
            return lost_games_error(message, in_flight, [index for games in queue for index in games], done, count)

        try:
            while queue or running:
                while queue and len(running) < workers:
                    games = queue.popleft()
                    running[task.remote(init, shared, play, games)] = games
                ready, _ = ray.wait(list(running), num_returns=1, timeout=WAIT_WARNING_SECONDS)
                if not ready:
                    if not warned and ray.available_resources().get("CPU", 0) < 1:
                        print("fox_envs: the Ray cluster has no free CPU; the games wait for one (actors such as "
                              "RLlib env runners hold CPUs until they are stopped)", file=sys.stderr)
                        warned = True
                    continue
                games = running.pop(ready[0])
                try:
                    outcomes, failure = ray.get(ready[0])
                except RayError as error:
                    reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
                    raise lost(f"the Ray task playing games {index_ranges(games)} was lost "
                               f"({type(error).__name__}: {reason})", games) from error
                for outcome in outcomes:
                    done += 1
                    on_outcome(outcome)
                if failure is not None:
                    kind, index, error, text = failure
                    finished = len(outcomes) + (kind == "error")
                    raise_failure(kind, index, error, text, lambda message: lost(message, games[finished:]),
                                  "Ray task")
        finally:
            for ref in running:
                ray.cancel(ref, force=True)
