"""Worker processes for ``evaluate``: games are played in spawned processes and each game's
outcome is sent back as soon as it is played. A game registered here that a fresh
``import fox_envs`` does not register (a user's game) is registered in every worker first, from
its pickled spec (``fox_envs.core.registration.added_specs``).

The parent waits on every worker's pipe and process sentinel together, so a worker that dies
(killed, ``os._exit``, an agent raising ``SystemExit``) or an agent that raises is noticed at
once: nothing is ever waited for forever (``multiprocessing.Pool.imap`` waits forever for a
task whose worker died). On the first failure every worker is stopped and the error raised:

* an agent's ``Exception`` is re-raised as it is (its type kept, the worker's traceback as
  its cause, a note naming the game), as with ``workers=1``;
* a dead worker, or a ``BaseException`` that is not an ``Exception`` (``SystemExit``,
  ``KeyboardInterrupt`` inside the worker), raises ``WorkerLostError`` naming the games lost.
"""
from __future__ import annotations

import multiprocessing
import pickle
import signal
import traceback
from collections import deque
from functools import partial
from multiprocessing.connection import wait
from typing import Any, Callable, Sequence

from fox_envs.core.registration import added_specs, register_specs


class WorkerLostError(RuntimeError):
    """Games were lost: a worker process died, or an agent raised ``SystemExit`` (or another
    ``BaseException`` that is not an ``Exception``) in it.

    ``lost_games``: game indices given to a worker that were never finished (cut short, or
    waiting on a stopped worker); ``unplayed_games``: indices never handed out; ``partial``:
    the result of the games that finished (a ``MatchResult`` from ``evaluate``, a
    ``TournamentResult`` from ``round_robin``), or None."""

    def __init__(self, message: str, lost_games: Sequence[int] = (), unplayed_games: Sequence[int] = (),
                 partial: Any = None) -> None:
        super().__init__(message)
        self.lost_games = sorted(lost_games)
        self.unplayed_games = sorted(unplayed_games)
        self.partial = partial


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker process (set as its ``__cause__``)."""

    def __str__(self) -> str:
        return "\n" + str(self.args[0])


def index_ranges(indices: Sequence[int]) -> str:
    """``[1, 2, 3, 7, 9, 10]`` -> ``"1-3, 7, 9-10"`` (``"none"`` when empty)."""
    parts: list[str] = []
    values = sorted(indices)
    start = 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] != values[i - 1] + 1:
            lo, hi = values[start], values[i - 1]
            parts.append(str(lo) if lo == hi else f"{lo}-{hi}")
            start = i
    return ", ".join(parts) or "none"


def lost_games_error(message: str, in_flight: Sequence[int], unplayed: Sequence[int], done: int,
                     count: int) -> WorkerLostError:
    """The ``WorkerLostError`` of a run stopped with ``done`` of ``count`` games finished."""
    return WorkerLostError(
        f"{message}; {done} of {count} games finished, lost (cut short or waiting on a stopped "
        f"worker): games {index_ranges(in_flight)}, not played: games {index_ranges(unplayed)}",
        in_flight, unplayed)


def raise_failure(kind: str, index: int | None, error: BaseException, text: str,
                  lost: Callable[[str], WorkerLostError], where: str) -> None:
    """Raise what a worker reported (``where`` names it, e.g. ``"worker process"``): an agent's
    ``Exception`` ("error") as it is, with a note naming the game; ``SystemExit`` & co. ("exit")
    and a failed start ("start") as ``lost(message)``. The worker's traceback is the cause."""
    if kind == "error":
        error.add_note(f"(raised in a {where} while playing game {index})")
        raise error from RemoteTraceback(text)
    if kind == "exit":
        raise lost(f"an agent raised {type(error).__name__}({error}) in game {index}, ending its {where}") \
            from RemoteTraceback(text)
    raise lost(f"a {where} could not start: {type(error).__name__}: {error}") from RemoteTraceback(text)


def portable(error: BaseException) -> BaseException:
    """``error`` if it pickles, else a ``RuntimeError`` with its type and message."""
    try:
        pickle.dumps(error)
        return error
    except Exception:  # noqa: BLE001  (an exception that does not pickle)
        return RuntimeError(f"{type(error).__name__}: {error}")


def _send_failure(conn, kind: str, index: int | None, error: BaseException) -> None:
    text = traceback.format_exc()
    try:
        conn.send((kind, index, portable(error), text))
    except Exception:  # noqa: BLE001  (the parent is gone)
        pass


def _init_with_games(specs: tuple, init: Callable[..., None], *init_args: Any) -> None:
    """Register the parent's games a fresh process lacks (``added_specs``), then ``init``."""
    register_specs(specs)
    init(*init_args)


def with_games(init: Callable[..., None]) -> Callable[..., None]:
    """``init`` for a worker process that first registers the games registered here that a
    fresh ``import fox_envs`` does not know (a user's game), so that they play there too."""
    specs = added_specs()
    return partial(_init_with_games, specs, init) if specs else init


def _worker_main(conn, init: Callable[..., None], init_args: tuple, play: Callable[[int], Any]) -> None:
    """A worker: ``init(*init_args)``, then play every index of every chunk received until
    ``None``; each outcome (or the failure that stops the worker) goes back on ``conn``."""
    try:
        init(*init_args)
    except BaseException as error:  # noqa: BLE001  (reported, then the worker ends)
        _send_failure(conn, "start", None, error)
        return
    while True:
        try:
            chunk = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if chunk is None:
            return
        for index in chunk:
            try:
                outcome = play(index)
            except Exception as error:  # noqa: BLE001  (an agent's error: re-raised in the parent)
                _send_failure(conn, "error", index, error)
                return
            except BaseException as error:  # noqa: BLE001  (SystemExit & co. would end the worker)
                _send_failure(conn, "exit", index, error)
                return
            try:
                conn.send(("done", index, outcome, None))
            except (OSError, KeyboardInterrupt):
                return


class _Slot:
    def __init__(self, process, conn) -> None:
        self.process = process
        self.conn = conn
        self.assigned: set[int] = set()  # handed out, not finished
        self.open = True


def _exit_text(process) -> str:
    code = process.exitcode
    if code is None:
        return "an unknown exit status"
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


def run_parallel(init: Callable[..., None], init_args: tuple, play: Callable[[int], Any], count: int,
                 workers: int, chunk: int, on_outcome: Callable[[Any], None]) -> None:
    """Play games ``0..count-1`` in ``workers`` spawned processes (``init(*init_args)`` once in
    each, then ``play(index)`` per game), calling ``on_outcome(outcome)`` in this process as each
    game finishes (in completion order). Raises as the module doc says; every worker is stopped
    before this returns or raises."""
    context = multiprocessing.get_context("spawn")
    init = with_games(init)
    queue = deque(list(range(lo, min(lo + chunk, count))) for lo in range(0, count, chunk))
    slots: list[_Slot] = []
    done = 0

    def hand_out(slot: _Slot) -> None:
        if queue and slot.open and not slot.assigned:
            games = queue.popleft()
            slot.assigned.update(games)
            try:
                slot.conn.send(games)
            except OSError:  # a dead worker: its sentinel says so
                pass

    def lost(message: str) -> WorkerLostError:
        return lost_games_error(message, [index for slot in slots for index in slot.assigned],
                                [index for games in queue for index in games], done, count)

    try:
        for _ in range(workers):
            parent, child = context.Pipe()
            process = context.Process(target=_worker_main, args=(child, init, init_args, play), daemon=True)
            process.start()
            child.close()
            slots.append(_Slot(process, parent))
        for slot in slots:
            hand_out(slot)
        while any(slot.assigned for slot in slots):
            busy = [slot for slot in slots if slot.open]
            wait([slot.conn for slot in busy] + [slot.process.sentinel for slot in busy])
            for slot in busy:
                while slot.open and slot.conn.poll():
                    try:
                        kind, index, payload, text = slot.conn.recv()
                    except (EOFError, OSError):
                        slot.open = False
                        break
                    except Exception as error:  # noqa: BLE001  (a worker's answer that does not unpickle)
                        raise lost(f"a worker's answer could not be read ({type(error).__name__}: {error})") from None
                    if kind == "done":
                        slot.assigned.discard(index)
                        done += 1
                        on_outcome(payload)
                        continue
                    if kind == "error":
                        slot.assigned.discard(index)
                    raise_failure(kind, index, payload, text, lost, "worker process")
                if slot.open and not slot.process.is_alive() and not slot.conn.poll():
                    slot.open = False
                if not slot.open and slot.assigned:
                    slot.process.join(timeout=1)
                    raise lost(f"worker process {slot.process.pid} died ({_exit_text(slot.process)}) while "
                               f"playing games {index_ranges(slot.assigned)}")
                hand_out(slot)
        if queue:  # every worker ended between chunks
            raise lost("every worker process exited")
    finally:
        for slot in slots:
            try:
                slot.conn.send(None)
            except OSError:
                pass
        for slot in slots:
            slot.process.join(timeout=0.5 if not slot.assigned else 0)
            if slot.process.is_alive():
                slot.process.terminate()
                slot.process.join(timeout=5)
            if slot.process.is_alive():
                slot.process.kill()
                slot.process.join()
            slot.conn.close()
