"""FoxVectorEnv under faults: Ctrl-C in the middle of an exchange with its workers."""
from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest


CHILD = Path(__file__).with_name("vector_sigint_child.py")
SIGNALS = 300


# ----- Ctrl-C ------------------------------------------------------------------------------------
def _lines(stream, out: queue.Queue) -> None:
    for line in stream:
        out.put(line.rstrip("\n"))
    out.put(None)


def _wait_for(lines: queue.Queue, wanted: str, timeout: float) -> bool:
    """Read the child's lines until ``wanted`` (True) or ``timeout`` seconds pass (False); the
    child's exit fails the test."""
    end = time.monotonic() + timeout
    while (left := end - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if line is None:
            pytest.fail("the child exited")
        if line == wanted:
            return True
    return False


@pytest.mark.parametrize("gym_id, num_envs", [("fox_envs/XCeterO-v0", 2), ("fox_envs/Outfoxed-v0", 4)])
def test_sigint_at_random_moments_never_gives_stale_data(gym_id, num_envs):
    """Real SIGINTs at random moments to a process stepping a FoxVectorEnv with workers=2: after
    each, every later call either raises an error that says what to do, or returns exactly
    what plain views return (checked on every reset and step); nothing hangs."""
    child = subprocess.Popen([sys.executable, str(CHILD), gym_id, str(num_envs), "2"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_lines, args=(child.stdout, lines), daemon=True).start()
    rng = np.random.default_rng(1)
    result, swallowed = None, 0
    try:
        assert _wait_for(lines, "ready", 120)
        for k in range(SIGNALS):
            if k % 2:  # the env works again after the last interrupt (an env call that hangs fails here)
                assert _wait_for(lines, "ok", 30), "no reset returned for 30 s: a hang"
            time.sleep(float(rng.uniform(0, 0.008)))  # a random moment of the child's loop
            os.kill(child.pid, signal.SIGINT)
            # caught and acknowledged; Python itself may swallow one ("Exception ignored in ...")
            swallowed += not _wait_for(lines, "interrupted", 2)
        os.kill(child.pid, signal.SIGUSR1)
        while result is None:
            line = lines.get(timeout=60)
            assert line is not None, "the child exited"
            result = json.loads(line) if line.startswith("{") else None
        assert lines.get(timeout=30) is None  # end of output: the child and its workers are gone
    finally:
        try:  # whatever is left of the child's process group (the child is not reaped yet)
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        returncode = child.wait()
        stderr = child.stderr.read()
        if result is None:
            print(stderr[-3000:])
    assert returncode == 0, stderr[-3000:]
    assert result["mismatches"] == 0, (result, stderr[-3000:])
    assert result["final_round_ok"], result
    assert not result["other_errors"], result
    assert SIGNALS - swallowed <= result["interrupts"] <= SIGNALS and swallowed <= SIGNALS // 10, (result, swallowed)
    assert result["checked_calls"] > SIGNALS, result

