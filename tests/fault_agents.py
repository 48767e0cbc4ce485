"""Agents that misbehave on purpose, for the evaluation failure tests (picklable: they are sent
to worker processes). Each plays its first legal action until its ``after``-th move in a
process, then fails in its own way."""
from __future__ import annotations

import os
import signal
import sys
import time


class _Failing:
    name = "failing"

    def __init__(self, after: int = 0) -> None:
        self.after = after
        self.moves = 0

    def act(self, state, player):
        self.moves += 1
        if self.moves > self.after:
            self.fail()
        return state.legal_actions()[0]

    def fail(self) -> None:
        raise NotImplementedError


class ExitingAgent(_Failing):
    """Raises ``SystemExit(3)`` (as ``sys.exit(3)`` in an agent would)."""

    name = "exiting"

    def fail(self) -> None:
        sys.exit(3)


class KilledAgent(_Failing):
    """Its process is killed with SIGKILL (as by the out-of-memory killer)."""

    name = "killed"

    def fail(self) -> None:
        os.kill(os.getpid(), signal.SIGKILL)


class RaisingAgent(_Failing):
    """Raises an ordinary exception (a bug in an agent)."""

    name = "raising"

    def fail(self) -> None:
        raise ZeroDivisionError("the agent divided by zero")


class SleepingAgent(_Failing):
    """Hangs: sleeps ``seconds`` (an hour by default) in the move, then plays on."""

    name = "sleeping"

    def __init__(self, after: int = 0, seconds: float = 3600.0) -> None:
        super().__init__(after)
        self.seconds = seconds

    def fail(self) -> None:
        time.sleep(self.seconds)


class SpinningAgent(_Failing):
    """Hangs in a busy loop that ignores SIGTERM (SIGKILL still ends it)."""

    name = "spinning"

    def fail(self) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        while True:
            pass


def sleeping(env_id=None, seed=None, after=0, seconds=3600.0):
    return SleepingAgent(after, seconds)


def killed(env_id=None, seed=None, after=0):
    return KilledAgent(after)


def exiting(env_id=None, seed=None, after=0):
    return ExitingAgent(after)
