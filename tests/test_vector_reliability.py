"""FoxVectorEnv under faults: Ctrl-C in the middle of an exchange with its workers, copying
and pickling, agent objects as opponents."""
from __future__ import annotations

import copy
import gc
import json
import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import fox_envs

from fox_envs.agents.base import RandomAgent
from fox_envs.vector.process import FoxVectorEnv


CHILD = Path(__file__).with_name("vector_sigint_child.py")
SIGNALS = 300


def plain_trace(gym_id: str, num_envs: int, seed: int, steps: int, make_kwargs) -> list:
    """Plain views stepped one by one (env i seeded seed + i, same-step autoreset), each built
    with ``make_kwargs()``; the actions are the first legal ones."""
    views = [gymnasium.make(gym_id, **make_kwargs()) for _ in range(num_envs)]
    firsts = [view.reset(seed=seed + i) for i, view in enumerate(views)]
    trace = [np.stack([o for o, _ in firsts])]
    masks = [info["action_mask"] for _, info in firsts]
    for _ in range(steps):
        obs, rewards = [], []
        for i, view in enumerate(views):
            o, reward, term, trunc, info = view.step(int(masks[i].argmax()))
            if term or trunc:
                o, info = view.reset()
            obs.append(o)
            rewards.append(reward)
            masks[i] = info["action_mask"]
        trace.append((np.stack(obs), np.array(rewards)))
    return trace


def vector_trace(env: FoxVectorEnv, seed: int, steps: int) -> list:
    obs, infos = env.reset(seed=seed)
    trace = [obs.copy()]
    for _ in range(steps):
        obs, rewards, _terms, _truncs, infos = env.step(infos["action_mask"].argmax(axis=1))
        trace.append((obs.copy(), rewards.copy()))
    return trace


def assert_same(got: list, want: list) -> None:
    np.testing.assert_array_equal(got[0], want[0])
    for t, ((obs, rewards), (w_obs, w_rewards)) in enumerate(zip(got[1:], want[1:]), 1):
        np.testing.assert_array_equal(obs, w_obs, err_msg=f"step {t}")
        np.testing.assert_array_equal(rewards, w_rewards, err_msg=f"step {t}")


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


@pytest.mark.parametrize("gym_id, num_envs, signals", [
    ("fox_envs/XCeterO-v0", 2, 40),  # the default run: a few dozen interrupts
    pytest.param("fox_envs/XCeterO-v0", 2, SIGNALS, marks=pytest.mark.slow),
    pytest.param("fox_envs/Outfoxed-v0", 4, SIGNALS, marks=pytest.mark.slow)])
def test_sigint_at_random_moments_never_gives_stale_data(gym_id, num_envs, signals):
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
        for k in range(signals):
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
    assert signals - swallowed <= result["interrupts"] <= signals and swallowed <= signals // 10, (result, swallowed)
    assert result["checked_calls"] > signals // 2, result  # calls were checked between the signals (fewer on a loaded machine)



# ----- copying -----------------------------------------------------------------------------------
@pytest.mark.parametrize("workers", [0, 2])
def test_copying_or_pickling_fails_at_once_and_leaves_the_original_working(workers, tmp_path):
    """copy.copy, copy.deepcopy and pickle raise TypeError before anything is copied; the
    original keeps its workers and file descriptors (an unrelated file stays open) and steps
    exactly as plain views do."""
    kwargs = {"opponent": "random"}
    want = plain_trace("fox_envs/Outfox-v0", 4, seed=3, steps=15, make_kwargs=lambda: kwargs)
    env = FoxVectorEnv("fox_envs/Outfox-v0", 4, workers=workers, **kwargs)
    try:
        processes = list(env._processes)
        for attempt in (copy.copy, copy.deepcopy, pickle.dumps, lambda e: copy.deepcopy([e])):
            with pytest.raises(TypeError, match="cannot be copied or pickled"):
                attempt(env)
        gc.collect()  # finalizers of partial copies, if any, run now
        with open(tmp_path / "mine.txt", "w") as mine:  # may get a descriptor number a partial copy held
            assert_same(vector_trace(env, seed=3, steps=15), want)
            assert all(process.is_alive() for process in processes) and env._processes == processes
            mine.write("still open")
    finally:
        env.close()
    assert (tmp_path / "mine.txt").read_text() == "still open"


# ----- agent objects as opponents ----------------------------------------------------------------
@pytest.mark.parametrize("opponent", ["object", "list"])
def test_an_agent_object_is_copied_for_every_env(opponent):
    """Row i of a FoxVectorEnv playing against an agent object equals a single view given its
    own copy of the agent and seeded seed + i, for every number of workers; the object passed
    is not used."""
    agent = RandomAgent(5)
    state_before = copy.deepcopy(agent.rng.bit_generator.state)
    gym_id, extra = ("fox_envs/XCeterO-v0", {}) if opponent == "object" else ("fox_envs/Outfox-v0", {"num_players": 3})

    def make_kwargs(source=agent):
        spec = copy.deepcopy(source)
        return {"opponent": spec if opponent == "object" else [spec, "random"], **extra}

    want = plain_trace(gym_id, 5, seed=11, steps=25, make_kwargs=make_kwargs)
    for workers in (0, 2, 3):
        kwargs = {"opponent": agent if opponent == "object" else [agent, "random"], **extra}
        env = FoxVectorEnv(gym_id, 5, workers=workers, **kwargs)
        try:
            assert_same(vector_trace(env, seed=11, steps=25), want)
        finally:
            env.close()
    assert agent.rng.bit_generator.state == state_before  # the object itself never played


def test_an_agent_that_cannot_be_copied_is_refused_clearly():
    import threading as threads

    class Locked(RandomAgent):
        def __init__(self):
            super().__init__(0)
            self.lock = threads.Lock()  # copy.deepcopy cannot copy a lock

    with pytest.raises(fox_envs.InvalidParameterError, match="cannot be copied"):
        FoxVectorEnv("fox_envs/XCeterO-v0", 2, workers=0, opponent=Locked())
