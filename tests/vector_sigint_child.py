"""Run by tests/test_vector_reliability.py in its own process, which sends it real SIGINTs.

``python vector_sigint_child.py GYM_ID NUM_ENVS WORKERS`` first records, with plain views
stepped one by one, what a FoxVectorEnv must return for a number of seeded rounds (reset, then
fixed steps), then prints ``ready`` and plays those rounds on a FoxVectorEnv over and over
while the parent interrupts it at random moments. Every KeyboardInterrupt is caught and
acknowledged with a line ``interrupted`` (the parent sends the next SIGINT only after it or a
while), and every reset that returns is followed by a line ``ok`` (progress: no hang); after
one, the child may first call ``step`` (which must raise an error telling to call reset(), or
return), and always goes on with the next round's ``reset``. Every result of every call that
returns is checked against the record. SIGUSR1 asks to stop after the next round that passes
every check (at most three more rounds, uninterrupted); then one JSON line with the counts is
printed. SIGINT is blocked except inside the loop's ``try``, so that every one lands where it is
caught.
"""
from __future__ import annotations

import gc
import json
import os
import signal
import sys

import gymnasium
import numpy as np

import fox_envs  # noqa: F401  (registers the ids)
from fox_envs.vector.process import FoxVectorEnv

ROUNDS, STEPS = 12, 10
stop = False


def on_usr1(signum, frame) -> None:
    global stop
    stop = True


def choose(mask: np.ndarray, salt: int) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[salt % len(legal)]) if len(legal) else 0


def record(gym_id: str, num_envs: int) -> list:
    """Per round seed: the reset's (obs, mask) and per step (actions, obs, reward, term, trunc,
    mask, final_obs rows), from plain views (env i seeded seed + i, same-step autoreset)."""
    rounds = []
    for seed in range(ROUNDS):
        views = [gymnasium.make(gym_id, opponent="random") for _ in range(num_envs)]
        firsts = [view.reset(seed=seed + i) for i, view in enumerate(views)]
        obs = np.stack([o for o, _ in firsts])
        masks = np.stack([info["action_mask"] for _, info in firsts])
        steps = []
        for t in range(STEPS):
            actions = np.array([choose(masks[i], 7 * seed + 3 * t + i) for i in range(num_envs)])
            rows = []
            for view, action in zip(views, actions):
                o, reward, term, trunc, info = view.step(int(action))
                final = None
                if term or trunc:
                    final, (o, info) = o, view.reset()
                rows.append((o, reward, term, trunc, info["action_mask"], final))
            o, rewards, terms, truncs, masks, finals = zip(*rows)
            masks = np.stack(masks)
            steps.append((actions, np.stack(o), np.array(rewards), np.array(terms), np.array(truncs), masks, finals))
        rounds.append(((obs, np.stack([info["action_mask"] for _, info in firsts])), steps))
    return rounds


def same_step(got: tuple, want: tuple) -> bool:
    obs, rewards, terms, truncs, infos = got
    _actions, w_obs, w_rewards, w_terms, w_truncs, w_masks, w_finals = want
    if not (np.array_equal(obs, w_obs) and np.array_equal(rewards, w_rewards) and np.array_equal(terms, w_terms)
            and np.array_equal(truncs, w_truncs) and np.array_equal(infos["action_mask"], w_masks)):
        return False
    for i, final in enumerate(w_finals):
        if final is None:
            if "final_obs" in infos and infos["final_obs"][i].any():
                return False
        elif "final_obs" not in infos or not np.array_equal(infos["final_obs"][i], final):
            return False
    return True


def main() -> None:
    gym_id, num_envs, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rounds = record(gym_id, num_envs)
    signal.signal(signal.SIGUSR1, on_usr1)
    counts = {"rounds": 0, "checked_calls": 0, "mismatches": 0, "interrupts": 0, "clear_errors": 0,
              "other_errors": [], "post_interrupt_steps_returned": 0, "reopened": 0, "first_mismatch": None,
              "final_round_ok": False}
    env = FoxVectorEnv(gym_id, num_envs, workers=workers)
    rng = np.random.default_rng(0)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # let through only inside the loop's try
    print("ready", flush=True)
    after_interrupt = False
    last_rounds = 3  # after SIGUSR1: rounds left to play (the last one must pass its checks)
    k = 0
    while last_rounds:
        try:
            try:  # SIGINT is let through only in here: it always lands inside this try
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
                if after_interrupt:
                    after_interrupt = False
                    if rng.random() < 0.5:  # step first: a clear error, or it returns (not checkable)
                        try:
                            env.step(np.zeros(num_envs, dtype=np.int64))
                            counts["post_interrupt_steps_returned"] += 1
                        except (gymnasium.error.ResetNeeded, RuntimeError) as error:
                            if "reset()" not in str(error) and "closed" not in str(error):
                                counts["other_errors"].append(repr(error))
                            counts["clear_errors"] += 1
                if env.closed:  # a closed env says so clearly; start another one (Ctrl-C held back
                    # meanwhile: multiprocessing's shared-memory heap does not survive one)
                    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
                    env.__dict__.clear()  # the old env's arrays are freed now, not by a later finalizer
                    gc.collect()
                    env = FoxVectorEnv(gym_id, num_envs, workers=workers)
                    counts["reopened"] += 1
                    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
                if stop:
                    last_rounds -= 1
                seed = k % ROUNDS
                k += 1
                (obs0, mask0), steps = rounds[seed]
                try:
                    obs, infos = env.reset(seed=seed)
                except RuntimeError as error:  # e.g. "FoxVectorEnv is closed"
                    counts["clear_errors"] += 1
                    if "closed" not in str(error):
                        counts["other_errors"].append(repr(error))
                    continue
                os.write(1, b"ok\n")
                counts["checked_calls"] += 1
                if not (np.array_equal(obs, obs0) and np.array_equal(infos["action_mask"], mask0)):
                    counts["mismatches"] += 1
                    counts["first_mismatch"] = counts["first_mismatch"] or f"reset seed {seed} after {counts['interrupts']} interrupts"
                    continue
                for t, want in enumerate(steps):
                    got = env.step(want[0])
                    counts["checked_calls"] += 1
                    if not same_step(got, want):
                        counts["mismatches"] += 1
                        counts["first_mismatch"] = counts["first_mismatch"] or f"seed {seed} step {t} after {counts['interrupts']} interrupts"
                        break
                else:
                    counts["rounds"] += 1
                    if stop:
                        counts["final_round_ok"] = True
                        break
            finally:
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        except KeyboardInterrupt:
            after_interrupt = True
            counts["interrupts"] += 1
            os.write(1, b"interrupted\n")
    env.close()
    print(json.dumps(counts), flush=True)


if __name__ == "__main__":
    main()
