"""Run a small Python program (or ``python -m fox_envs ...``) from a test, in its own process
session with the tests' folder importable, and never let it hang the suite."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def run_in_session(code: str, args: tuple[str, ...], limit: float) -> tuple[subprocess.CompletedProcess, float, int]:
    """``python -c code`` (``python -m fox_envs *args`` when ``code`` is empty) in a new session:
    its result, the seconds it took and its process group. Fails the test, after killing the
    group, if it has not finished within ``limit`` seconds."""
    command = [sys.executable, "-c", textwrap.dedent(code)] if code else [sys.executable, "-m", "fox_envs", *args]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    start = time.monotonic()
    process = subprocess.Popen(command, cwd=HERE, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"hung: still running after {limit}s")
    return subprocess.CompletedProcess(command, process.returncode, out, err), time.monotonic() - start, process.pid


def kill_group(pgid: int) -> None:
    """SIGKILL every process left in the group ``pgid`` (none is fine)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
