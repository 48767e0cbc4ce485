"""Faults from outside, for every parallel component: a worker killed with SIGKILL (as by the
out-of-memory killer) at a random moment, and Ctrl-C (SIGINT) sent to the process that runs it.
The result must be a clear error within seconds, or exactly correct data; nothing hangs, and no
process is left behind.

Each scenario runs as a child in its own session; the test finds the child's worker processes
in ``/proc``, kills one (or interrupts the child) while it works, and reads one JSON line of
results from it. A hang fails the test after ``LIMIT`` seconds and kills the session."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from process_table import children_of, command_line, session_processes

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads worker processes from /proc")

HERE = Path(__file__).resolve().parent
LIMIT = 120  # seconds: only a guard against a hang, never a measured time
PROMPT = 20  # seconds within which a fault must be reported (generous for a loaded 2-core machine)
# games in the children's runs: far more than an idle machine plays before the fault lands (the
# fault comes at most a few seconds after the workers start), so it always lands mid-run
EVALUATE_GAMES, MATCH_GAMES = 20_000, 400


def workers_of(pid: int) -> list[int]:
    """The child's worker processes (not multiprocessing's resource tracker)."""
    return [p for p in children_of(pid) if "resource_tracker" not in command_line(p)]


class Child:
    """``python -c code`` in its own session, stdout read line by line."""

    def __init__(self, code: str) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
        self.process = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], cwd=HERE, env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        start_new_session=True)
        self.pid = self.process.pid

    def wait_for_workers(self, count: int) -> list[int]:
        end = time.monotonic() + LIMIT
        while time.monotonic() < end:
            if self.process.poll() is not None:
                pytest.fail(f"the child exited early: {self.process.stderr.read()[-2000:]}")
            workers = workers_of(self.pid)
            if len(workers) >= count:
                return workers
            time.sleep(0.05)
        pytest.fail("the child's workers never started")

    def kill_a_worker(self, which: int = 0) -> None:
        """SIGKILL one of the child's current workers (pools may come and go: look again)."""
        for _ in range(200):
            workers = self.wait_for_workers(1)
            try:
                os.kill(workers[which % len(workers)], signal.SIGKILL)
                return
            except ProcessLookupError:
                time.sleep(0.01)
        pytest.fail("no worker could be killed")

    def result(self) -> tuple[dict, float]:
        """The child's last JSON line and the seconds it took to finish after this call."""
        start = time.monotonic()
        try:
            out, err = self.process.communicate(timeout=LIMIT)
        except subprocess.TimeoutExpired:
            os.killpg(self.pid, signal.SIGKILL)
            self.process.communicate()
            pytest.fail(f"hung: still running after {LIMIT}s")
        took = time.monotonic() - start
        assert self.process.returncode == 0, err[-3000:]
        lines = [line for line in out.splitlines() if line.startswith("{")]
        assert lines, (out[-2000:], err[-2000:])
        return json.loads(lines[-1]), took

    def assert_nothing_left(self) -> None:
        end = time.monotonic() + 10  # workers may take a moment to be reaped after the child exits
        while session_processes(self.pid) and time.monotonic() < end:
            time.sleep(0.05)
        left = session_processes(self.pid)
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        assert not left, f"processes left behind: {[command_line(p) for p in left]}"


def _random_moment(seed: int, low: float = 0.2, high: float = 1.0) -> None:
    time.sleep(float(np.random.default_rng(seed).uniform(low, high)))


EVALUATE = """
    import json, multiprocessing
    from fox_envs.evaluation import WorkerLostError, evaluate
    try:
        evaluate("outwit_v0", ["random", "random"], EVALUATE_GAMES, seed=1, workers=2, keep_records=True)
    except WorkerLostError as error:
        p = error.partial
        print(json.dumps({"error": "WorkerLostError", "message": str(error), "lost": error.lost_games,
                          "unplayed": error.unplayed_games, "finished": sorted(r.game_index for r in p.records)}))
    except KeyboardInterrupt:
        print(json.dumps({"error": "KeyboardInterrupt", "children": len(multiprocessing.active_children())}))
    else:
        print(json.dumps({"error": None}))
""".replace("EVALUATE_GAMES", str(EVALUATE_GAMES))

ROUND_ROBIN = """
    import json, multiprocessing
    from fox_envs.evaluation import WorkerLostError, round_robin
    try:
        round_robin("outwit_v0", ["random", "heuristic", "random"], MATCH_GAMES, seed=0, workers=2, bootstrap=10)
    except WorkerLostError as error:
        p = error.partial
        print(json.dumps({"error": "WorkerLostError", "message": str(error), "lost": p.lost,
                          "matches": [m.num_games for m in p.matches]}))
    except KeyboardInterrupt:
        print(json.dumps({"error": "KeyboardInterrupt", "children": len(multiprocessing.active_children())}))
    else:
        print(json.dumps({"error": None}))
""".replace("MATCH_GAMES", str(MATCH_GAMES))


@pytest.mark.parametrize("seed", [0, 1])
def test_evaluate_with_a_worker_killed_from_outside_names_the_lost_games_at_once(seed):
    child = Child(EVALUATE)
    try:
        child.wait_for_workers(2)
        _random_moment(seed)
        child.kill_a_worker(seed)
        data, took = child.result()
    finally:
        child.assert_nothing_left()
    assert data["error"] == "WorkerLostError" and "signal SIGKILL" in data["message"], data
    assert took < PROMPT, took
    lost = set(data["lost"]) | set(data["unplayed"])
    assert data["lost"] and not lost & set(data["finished"]) and lost | set(data["finished"]) == set(range(EVALUATE_GAMES))


def test_tournament_with_a_worker_killed_from_outside_keeps_the_finished_matches():
    child = Child(ROUND_ROBIN)
    try:
        child.wait_for_workers(2)
        _random_moment(2, 0.5, 1.5)
        child.kill_a_worker()
        data, took = child.result()
    finally:
        child.assert_nothing_left()
    assert data["error"] == "WorkerLostError" and "signal SIGKILL" in data["message"], data
    assert took < PROMPT, took
    lost = {row["match"]: row["lost_games"] for row in data["lost"]}
    assert lost and all(data["matches"][m] + len(games) == MATCH_GAMES for m, games in lost.items() if m < len(data["matches"]))


@pytest.mark.parametrize("code", [EVALUATE, ROUND_ROBIN], ids=["evaluate", "round_robin"])
def test_ctrl_c_stops_parallel_evaluation_at_once_and_leaves_no_worker(code):
    child = Child(code)
    try:
        child.wait_for_workers(2)
        _random_moment(3)
        os.kill(child.pid, signal.SIGINT)
        data, took = child.result()
    finally:
        child.assert_nothing_left()
    assert data == {"error": "KeyboardInterrupt", "children": 0}
    assert took < PROMPT, took


VECTOR = """
    import json, signal
    import gymnasium, numpy as np
    import fox_envs
    from fox_envs.vector.process import FoxVectorEnv

    def trace(envs, seed, steps):
        obs, infos = envs.reset(seed=seed)
        out = [obs.copy()]
        for _ in range(steps):
            obs, rewards, terms, truncs, infos = envs.step(infos["action_mask"].argmax(axis=1))
            out.append(obs.copy())
        return out

    plain = trace(FoxVectorEnv("fox_envs/Outwit-v0", 4, workers=0), 5, 30)  # the reference
    envs = FoxVectorEnv("fox_envs/Outwit-v0", 4, workers=2)
    print("workers up", flush=True)
    error = None
    try:
        while True:  # until the parent kills the worker
            trace(envs, 0, 10)
    except Exception as caught:
        error = f"{type(caught).__name__}: {caught}"
    try:
        envs.step(np.zeros(4, np.int64))
        after = "step worked"
    except Exception as caught:
        after = f"{type(caught).__name__}: {caught}"
    again = trace(envs, 5, 30)  # reset restarts the workers: exactly the reference data again
    same = all(np.array_equal(a, b) for a, b in zip(again, plain))
    envs.close()
    print(json.dumps({"error": error, "after": after, "same": same}))
"""


def test_vector_env_with_a_worker_killed_from_outside_errors_then_recovers_exactly():
    child = Child(VECTOR)
    try:
        child.wait_for_workers(1)
        _random_moment(4)
        child.kill_a_worker()
        data, took = child.result()
    finally:
        child.assert_nothing_left()
    assert data["error"] and "worker" in data["error"].lower(), data
    assert "reset" in data["after"], data  # a clear instruction, not stale data
    assert data["same"] is True


BATCH = """
    import json, signal, threading
    import numpy as np
    import fox_envs.batch

    env = fox_envs.batch.make("outwit_v0", num_envs=1024, seed=0, threads=2)
    steps = 0
    env.step(env.random_actions())
    print("ready", flush=True)
    try:
        while True:
            env.step(env.random_actions())
            steps += 1
    except KeyboardInterrupt:
        pass
    # every row is whole: its rules-core replay shows what the buffers show, and it plays on
    rows = range(0, 1024, 37)
    whole = all(np.array_equal(env.core_state(i).observation_tensor(int(env.current_player[i])), env.observation[i])
                for i in rows if env.current_player[i] >= 0)
    env.step(env.random_actions())
    print(json.dumps({"steps": steps, "whole": whole, "threads": threading.active_count()}))
"""


def test_ctrl_c_during_threaded_batch_steps_leaves_every_row_whole():
    child = Child(BATCH)
    try:
        line = child.process.stdout.readline()
        assert line.strip() == "ready", child.process.stderr.read()[-2000:]
        _random_moment(5, 0.3, 0.8)
        os.kill(child.pid, signal.SIGINT)
        data, took = child.result()
    finally:
        child.assert_nothing_left()
    assert data["steps"] > 0 and data["whole"] is True, data
