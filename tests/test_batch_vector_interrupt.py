"""BatchVectorEnv (``gymnasium.make_vec``'s batched backend) under Ctrl-C, and after ``close()``.

The SIGINT test runs this file as a script in a child process (``python
test_batch_vector_interrupt.py GYM_ID NUM_ENVS OPPONENT THREADS``). The child first records, on
an env never interrupted, what a number of seeded rounds (reset, then fixed steps) return; then
it plays those rounds again while a thread of its own sends real SIGINTs to the main thread at
random moments (SIGINT is blocked in the main thread except inside the loop's ``try``, so every
one lands where it is caught). Every result of every call that returns is checked against the
record. After an interrupt that landed inside ``step`` (the innermost frame of the
KeyboardInterrupt is library code), the child steps again with the same actions: that must
raise ``ResetNeeded``, or return exactly what the interrupted step would have (nothing had
moved). One JSON line with the counts ends its output.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import fox_envs  # noqa: F401  (registers the ids)

ROUNDS, STEPS = 6, 6
SIGNALS = 120
LIMIT = 240  # seconds: only a guard against a hang


# ----- the child ---------------------------------------------------------------------------------
def _actions(mask: np.ndarray, salt: int) -> np.ndarray:
    """A legal action per row chosen from ``salt``, except every 17th row, which plays action 0
    (often illegal: that row's episode then ends with -1)."""
    legal_count = mask.sum(axis=1)
    pick = (np.arange(len(mask)) * 7 + salt) % np.maximum(legal_count, 1)
    actions = np.array([np.flatnonzero(row)[k] if n else 0 for row, k, n in zip(mask, pick, legal_count)])
    actions[::17] = 0
    return actions.astype(np.int64)


def _copy_step(result: tuple) -> tuple:
    obs, reward, term, trunc, infos = result
    final = infos["final_obs"].copy() if "final_obs" in infos else np.zeros_like(obs)
    illegal = infos["illegal_action"].copy() if "illegal_action" in infos else np.zeros(len(obs), bool)
    return obs.copy(), reward.copy(), term.copy(), trunc.copy(), infos["action_mask"].copy(), final, illegal


def _record(env) -> list:
    """Per round seed: the reset's (obs, mask), and per step (actions, results)."""
    rounds = []
    for seed in range(ROUNDS):
        obs, infos = env.reset(seed=seed)
        first, mask = (obs.copy(), infos["action_mask"].copy()), infos["action_mask"]
        steps = []
        for t in range(STEPS):
            actions = _actions(mask, 11 * seed + t)
            got = _copy_step(env.step(actions))
            steps.append((actions, got))
            mask = got[4]
        rounds.append((first, steps))
    return rounds


def _same(got: tuple, want: tuple) -> bool:
    return all(np.array_equal(a, b) for a, b in zip(_copy_step(got), want))


def _sender(main_id: int, count: int, acked: threading.Event, done: threading.Event) -> None:
    """Send ``count`` SIGINTs to the main thread at random moments, each after the last one was
    acknowledged."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    rng = np.random.default_rng(5)
    for _ in range(count):
        time.sleep(float(rng.uniform(0, 0.02)))
        acked.clear()
        signal.pthread_kill(main_id, signal.SIGINT)
        acked.wait(10)
    done.set()


def child_main(gym_id: str, num_envs: int, opponent: str, threads: int) -> None:
    env = gymnasium.make_vec(gym_id, num_envs, seat=0, opponent=opponent, threads=threads)
    rounds = _record(env)
    counts = {"rounds": 0, "checked_calls": 0, "mismatches": 0, "interrupts": 0, "in_step": 0,
              "reset_needed": 0, "unchanged_steps": 0, "other_errors": [], "first_mismatch": None,
              "final_round_ok": False}
    acked, done = threading.Event(), threading.Event()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # let through only inside the loop's try
    threading.Thread(target=_sender, args=(threading.get_ident(), SIGNALS, acked, done), daemon=True).start()
    here = os.path.abspath(__file__)
    interrupted_step = None  # (seed, t) of a step an interrupt cut short inside the env
    phase, seed, t, k = None, 0, 0, 0

    def mismatch(where: str) -> None:
        counts["mismatches"] += 1
        counts["first_mismatch"] = counts["first_mismatch"] or f"{where} after {counts['interrupts']} interrupts"

    while True:
        try:
            try:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
                if interrupted_step is not None:
                    (s, u), interrupted_step = interrupted_step, None
                    actions, want = rounds[s][1][u]
                    try:
                        got = env.step(actions)
                    except gymnasium.error.ResetNeeded as error:
                        counts["reset_needed"] += 1
                        if "reset()" not in str(error):
                            counts["other_errors"].append(repr(error))
                    else:  # nothing had moved: exactly the interrupted step's results
                        counts["unchanged_steps"] += 1
                        if not _same(got, want):
                            mismatch(f"step again after an interrupt in seed {s} step {u}")
                final = done.is_set()
                seed, k = k % ROUNDS, k + 1
                (obs0, mask0), steps = rounds[seed]
                phase = "reset"
                obs, infos = env.reset(seed=seed)
                phase = None
                counts["checked_calls"] += 1
                if not (np.array_equal(obs, obs0) and np.array_equal(infos["action_mask"], mask0)):
                    mismatch(f"reset seed {seed}")
                    continue
                for t, (actions, want) in enumerate(steps):
                    phase = "step"
                    got = env.step(actions)
                    phase = None
                    counts["checked_calls"] += 1
                    if not _same(got, want):
                        mismatch(f"seed {seed} step {t}")
                        break
                else:
                    counts["rounds"] += 1
                    if final:
                        counts["final_round_ok"] = True
                        break
            finally:
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        except KeyboardInterrupt as error:
            tb = error.__traceback__
            while tb.tb_next is not None:
                tb = tb.tb_next
            if phase == "step" and os.path.abspath(tb.tb_frame.f_code.co_filename) != here:
                interrupted_step = (seed, t)  # raised inside env.step (not after it returned)
                counts["in_step"] += 1
            phase = None
            counts["interrupts"] += 1
            acked.set()
        except Exception as error:  # noqa: BLE001  (reported; the next round resets)
            counts["other_errors"].append(repr(error)[:300])
            if len(counts["other_errors"]) > 5:
                break
    env.close()
    print(json.dumps(counts), flush=True)


# ----- the tests ---------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("gym_id, num_envs, opponent, threads", [
    ("fox_envs/Outwit-v0", 256, "heuristic", 1),
    ("fox_envs/Outwit-v0", 512, "heuristic", 2),
    ("fox_envs/XCeterO-v0", 64, "random", 1),
])
def test_sigint_during_step_never_gives_stale_data(gym_id, num_envs, opponent, threads):
    """Real SIGINTs at random moments of reset and step: every call that returns gives exactly
    what an uninterrupted env gives; a step after one cut short raises ResetNeeded or returns
    what the cut-short step would have."""
    done = subprocess.run([sys.executable, __file__, gym_id, str(num_envs), opponent, str(threads)],
                          capture_output=True, text=True, timeout=LIMIT)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["mismatches"] == 0, result
    assert not result["other_errors"], result
    assert result["final_round_ok"], result
    assert result["interrupts"] == SIGNALS, result
    assert result["in_step"] >= SIGNALS // 4, result  # most land inside a step
    # (a second interrupt may cut the step after one short: it is then not checked)
    assert 0 < result["reset_needed"] + result["unchanged_steps"] <= result["in_step"], result


def test_a_step_cut_short_needs_a_reset_and_the_reset_starts_afresh():
    """An interrupt after the learner's actions were applied (here: raised by the opponents'
    turn) leaves ResetNeeded; reset(seed) then returns what a fresh env returns."""
    env = gymnasium.make_vec("fox_envs/XCeterO-v0", 8, seat=0)
    fresh = gymnasium.make_vec("fox_envs/XCeterO-v0", 8, seat=0)
    obs, infos = env.reset(seed=3)
    advance = env._advance

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    env._advance = interrupted
    with pytest.raises(KeyboardInterrupt):
        env.step(infos["action_mask"].argmax(axis=1))
    env._advance = advance
    with pytest.raises(gymnasium.error.ResetNeeded, match=r"did not finish.*reset\(\)"):
        env.step(infos["action_mask"].argmax(axis=1))
    obs, infos = env.reset(seed=4)
    want_obs, want_infos = fresh.reset(seed=4)
    np.testing.assert_array_equal(obs, want_obs)
    actions = infos["action_mask"].argmax(axis=1)
    for got, want in zip(env.step(actions)[:4], fresh.step(actions)[:4]):
        np.testing.assert_array_equal(got, want)


def test_refused_actions_change_nothing_and_need_no_reset():
    """Actions refused before any row moves (a bad shape, illegal_action='raise') leave the env
    as it was: the next step works as if they had never been given."""
    env = gymnasium.make_vec("fox_envs/XCeterO-v0", 4, seat=0, illegal_action="raise")
    fresh = gymnasium.make_vec("fox_envs/XCeterO-v0", 4, seat=0)
    obs, infos = env.reset(seed=1)
    fresh.reset(seed=1)
    bad = np.full(4, infos["action_mask"].shape[1], np.int64)  # out of range in every row
    with pytest.raises(fox_envs.IllegalActionError):
        env.step(bad)
    with pytest.raises(ValueError):
        env.step(np.zeros(3, np.int64))
    actions = infos["action_mask"].argmax(axis=1)
    for got, want in zip(env.step(actions)[:4], fresh.step(actions)[:4]):
        np.testing.assert_array_equal(got, want)


def test_reset_and_step_after_close_raise():
    env = gymnasium.make_vec("fox_envs/XCeterO-v0", 4, seat=0)
    obs, infos = env.reset(seed=0)
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.step(infos["action_mask"].argmax(axis=1))
    with pytest.raises(RuntimeError, match="closed"):
        env.reset(seed=0)


if __name__ == "__main__":
    child_main(sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
