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

With a ``MoveLimit`` every worker shows the move it is playing on a ``MoveBoard`` (shared
memory: game, seat, start time, the game's actions so far). A move still running past the limit
has its worker stopped (and reaped) and replaced by a fresh one; the game's outcome is what the
limit's ``overdue`` gives (or the error it raises), and the worker's other games are played by
the others.
"""
from __future__ import annotations

import multiprocessing
import pickle
import signal
import time
import traceback
from collections import deque
from dataclasses import dataclass
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


# ----- move time limits ------------------------------------------------------------------------------
@dataclass(frozen=True)
class MoveLimit:
    """A time limit on each move of the games ``run_parallel`` plays: a worker whose move has
    run ``seconds`` (plus ``margin``: a move that returns late is the worker's own to report)
    is stopped and replaced, and ``overdue(index, seat, actions)`` gives that game's outcome
    (``actions``: the game's actions before the move), or raises."""

    seconds: float
    overdue: Callable[[int, int, list[int]], Any]
    margin: float = 0.05
    capacity: int = 1 << 14  # actions of a game the board keeps (a longer game: its first ones)


class MoveBoard:
    """Shared memory on which a worker shows the move it is playing: written by the worker
    (``new_game``, ``applied``, ``begin_move``, ``end_move``), read by the parent (``overdue``,
    ``actions``). A sequence number, odd during a move, makes the parent's reads consistent."""

    SEQ, GAME, SEAT, START, LENGTH, HEAD = range(6)

    def __init__(self, context, capacity: int) -> None:
        self.raw = context.RawArray("q", self.HEAD + capacity)
        self.capacity = capacity
        self._cells: memoryview | None = None

    def __getstate__(self) -> dict:  # sent to a spawned worker: the shared memory, not the view
        return {"raw": self.raw, "capacity": self.capacity}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _cells=None)

    @property
    def cells(self) -> memoryview:
        if self._cells is None:
            self._cells = memoryview(self.raw).cast("B").cast("q")
        return self._cells

    # the worker's side
    def new_game(self, index: int) -> None:
        cells = self.cells
        cells[self.GAME] = index
        cells[self.LENGTH] = 0

    def applied(self, action: int) -> None:
        cells = self.cells
        n = cells[self.LENGTH]
        if n < self.capacity:
            cells[self.HEAD + n] = action
            cells[self.LENGTH] = n + 1

    def begin_move(self, seat: int) -> None:
        cells = self.cells
        cells[self.SEAT] = seat
        cells[self.START] = time.monotonic_ns()
        cells[self.SEQ] += 1  # odd: in a move

    def end_move(self) -> float:
        """Seconds since ``begin_move``."""
        cells = self.cells
        cells[self.SEQ] += 1
        return (time.monotonic_ns() - cells[self.START]) / 1e9

    # the parent's side
    def overdue(self, seconds: float) -> tuple[int, int, int] | None:
        """``(sequence number, game, seat)`` of a move begun over ``seconds`` ago and not ended."""
        cells = self.cells
        seq = cells[self.SEQ]
        if not seq % 2:
            return None
        game, seat, start = cells[self.GAME], cells[self.SEAT], cells[self.START]
        if cells[self.SEQ] != seq or time.monotonic_ns() - start <= seconds * 1e9:
            return None
        return seq, game, seat

    def actions(self) -> list[int]:
        """The actions of the current game so far (read once the worker is stopped)."""
        cells = self.cells
        return cells[self.HEAD:self.HEAD + min(cells[self.LENGTH], self.capacity)].tolist()

    def clear(self) -> None:
        self.cells[self.SEQ] = 0


_BOARD: MoveBoard | None = None  # in a worker: the board it writes its moves on, if any


def current_board() -> MoveBoard | None:
    """In a worker process run with a ``MoveLimit``: its ``MoveBoard`` (else None)."""
    return _BOARD


def _worker_main(conn, init: Callable[..., None], init_args: tuple, play: Callable[[int], Any],
                 board: MoveBoard | None = None) -> None:
    """A worker: ``init(*init_args)``, then play every index of every chunk received until
    ``None``; each outcome (or the failure that stops the worker) goes back on ``conn``."""
    global _BOARD
    _BOARD = board
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
    def __init__(self, process, conn, board: MoveBoard | None) -> None:
        self.process = process
        self.conn = conn
        self.board = board
        self.assigned: set[int] = set()  # handed out, not finished
        self.open = True
        self.suspect: tuple[int, int, int] | None = None  # an overdue move seen at the last check


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


def _stop(process) -> None:
    """Stop ``process`` now (SIGTERM, then SIGKILL) and reap it."""
    if process.is_alive():
        process.terminate()
        process.join(timeout=2)
    if process.is_alive():
        process.kill()
    process.join()


class _Pool:
    """The workers of one ``run_parallel`` call and the games not yet finished."""

    def __init__(self, init: Callable[..., None], init_args: tuple, play: Callable[[int], Any], count: int,
                 chunk: int, on_outcome: Callable[[Any], None], limit: MoveLimit | None) -> None:
        self.context = multiprocessing.get_context("spawn")
        self.target_args = (with_games(init), init_args, play)
        self.count, self.on_outcome, self.limit = count, on_outcome, limit
        self.queue = deque(list(range(lo, min(lo + chunk, count))) for lo in range(0, count, chunk))
        self.slots: list[_Slot] = []
        self.done = 0

    def start_worker(self, board: MoveBoard | None = None) -> _Slot:
        if self.limit is not None and board is None:
            board = MoveBoard(self.context, self.limit.capacity)
        parent, child = self.context.Pipe()
        process = self.context.Process(target=_worker_main, args=(child, *self.target_args, board), daemon=True)
        process.start()
        child.close()
        return _Slot(process, parent, board)

    def hand_out(self, slot: _Slot) -> None:
        if self.queue and slot.open and not slot.assigned:
            games = self.queue.popleft()
            slot.assigned.update(games)
            try:
                slot.conn.send(games)
            except OSError:  # a dead worker: its sentinel says so
                pass

    def lost(self, message: str) -> WorkerLostError:
        return lost_games_error(message, [index for slot in self.slots for index in slot.assigned],
                                [index for games in self.queue for index in games], self.done, self.count)

    def read(self, slot: _Slot) -> None:
        """Take every answer waiting from ``slot``'s worker (a failure raises)."""
        while slot.open and slot.conn.poll():
            try:
                kind, index, payload, text = slot.conn.recv()
            except (EOFError, OSError):
                slot.open = False
                break
            except Exception as error:  # noqa: BLE001  (a worker's answer that does not unpickle)
                raise self.lost(f"a worker's answer could not be read ({type(error).__name__}: {error})") from None
            if kind == "done":
                slot.assigned.discard(index)
                self.done += 1
                self.on_outcome(payload)
                continue
            if kind == "error":
                slot.assigned.discard(index)
            raise_failure(kind, index, payload, text, self.lost, "worker process")

    def check_times(self) -> None:
        """Replace the worker of every move over the limit (seen at two checks in a row)."""
        limit = self.limit
        for k, slot in enumerate(self.slots):
            seen = slot.board.overdue(limit.seconds + limit.margin) if slot.open and slot.assigned else None
            if seen is None or seen != slot.suspect:
                slot.suspect = seen
                continue
            _, game, seat = seen
            slot.process.kill()  # stuck in an agent's move: nothing to wait for
            slot.process.join()
            self.read(slot)  # games it finished before it was stopped
            slot.open = False
            slot.conn.close()
            forfeited = game in slot.assigned
            rest = sorted(slot.assigned - {game})
            if rest:
                self.queue.appendleft(rest)
            slot.assigned.clear()
            outcome = limit.overdue(game, seat, slot.board.actions()) if forfeited else None  # (may raise)
            slot.board.clear()
            self.slots[k] = self.start_worker(slot.board)
            if forfeited:
                self.done += 1
                self.on_outcome(outcome)
            self.hand_out(self.slots[k])

    def run(self, workers: int) -> None:
        for _ in range(workers):
            self.slots.append(self.start_worker())
        for slot in self.slots:
            self.hand_out(slot)
        timeout = None if self.limit is None else min(0.1, self.limit.seconds / 4)
        while any(slot.assigned for slot in self.slots):
            busy = [slot for slot in self.slots if slot.open]
            wait([slot.conn for slot in busy] + [slot.process.sentinel for slot in busy], timeout)
            for slot in busy:
                self.read(slot)
                if slot.open and not slot.process.is_alive() and not slot.conn.poll():
                    slot.open = False
                if not slot.open and slot.assigned:
                    slot.process.join(timeout=1)
                    raise self.lost(f"worker process {slot.process.pid} died ({_exit_text(slot.process)}) while "
                                    f"playing games {index_ranges(slot.assigned)}")
                self.hand_out(slot)
            if self.limit is not None:
                self.check_times()
        if self.queue:  # every worker ended between chunks
            raise self.lost("every worker process exited")

    def close(self) -> None:
        """Stop every worker (a goodbye first; then SIGTERM, SIGKILL) and reap it."""
        for slot in self.slots:
            try:
                slot.conn.send(None)
            except OSError:
                pass
        for slot in self.slots:
            slot.process.join(timeout=0.5 if not slot.assigned else 0)
            _stop(slot.process)
            slot.conn.close()


def run_parallel(init: Callable[..., None], init_args: tuple, play: Callable[[int], Any], count: int,
                 workers: int, chunk: int, on_outcome: Callable[[Any], None], limit: MoveLimit | None = None) -> None:
    """Play games ``0..count-1`` in ``workers`` spawned processes (``init(*init_args)`` once in
    each, then ``play(index)`` per game), calling ``on_outcome(outcome)`` in this process as each
    game finishes (in completion order). Raises as the module doc says; every worker is stopped
    before this returns or raises. ``limit``: a time limit on each move (module doc)."""
    pool = _Pool(init, init_args, play, count, chunk, on_outcome, limit)
    try:
        pool.run(workers)
    finally:
        pool.close()
