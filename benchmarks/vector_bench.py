"""Throughput of the single-agent Gymnasium view: plain single process vs Gymnasium's
SyncVectorEnv / AsyncVectorEnv and fox_envs' batched ``FoxVectorEnv`` with 1..N workers
(issue 9). The learner is an instant policy, the first legal action of
``info["action_mask"]`` (so the env, not action sampling, is measured); the opponent is the
random baseline. A step is one learner decision (opponent moves happen inside it).

    python benchmarks/vector_bench.py --game Outwit-v0 --seconds 3 [--json results/vector.json]
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import time

import gymnasium
import numpy as np

import fox_envs  # noqa: F401


def make_view(gym_id: str):
    return gymnasium.make(gym_id, opponent="random")


def single(gym_id: str, seconds: float) -> float:
    env = make_view(gym_id)
    obs, info = env.reset(seed=0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, reward, term, trunc, info = env.step(int(info["action_mask"].argmax()))
        steps += 1
        if term or trunc:
            obs, info = env.reset()
    return steps / (time.perf_counter() - start)


def vector(gym_id: str, seconds: float, workers: int, asynchronous: bool) -> float:
    cls = gymnasium.vector.AsyncVectorEnv if asynchronous else gymnasium.vector.SyncVectorEnv
    env = cls([functools.partial(make_view, gym_id) for _ in range(workers)])
    obs, infos = env.reset(seed=0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, rewards, terms, truncs, infos = env.step(infos["action_mask"].argmax(axis=1))
        steps += workers
    rate = steps / (time.perf_counter() - start)
    env.close()
    return rate


def batched(gym_id: str, seconds: float, workers: int, num_envs: int) -> float:
    from fox_envs.core.vector import FoxVectorEnv

    env = FoxVectorEnv(gym_id, num_envs, workers=workers, opponent="random")
    obs, infos = env.reset(seed=0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, rewards, terms, truncs, infos = env.step(infos["action_mask"].argmax(axis=1))
        steps += num_envs
    rate = steps / (time.perf_counter() - start)
    env.close()
    return rate


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="Outwit-v0", help="Gymnasium id without the fox_envs/ prefix")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--max-workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--num-envs", type=int, default=64, help="envs of the batched FoxVectorEnv")
    parser.add_argument("--json")
    args = parser.parse_args(argv)
    gym_id = "fox_envs/" + args.game
    rows = {"single process": single(gym_id, args.seconds)}
    for workers in range(1, args.max_workers + 1):
        rows[f"SyncVectorEnv x{workers}"] = vector(gym_id, args.seconds, workers, asynchronous=False)
        rows[f"AsyncVectorEnv x{workers}"] = vector(gym_id, args.seconds, workers, asynchronous=True)
    for workers in range(0, args.max_workers + 1):
        rows[f"FoxVectorEnv {args.num_envs} envs, {workers} workers"] = batched(gym_id, args.seconds, workers, args.num_envs)
    base = rows["single process"]
    print(f"{args.game}: learner steps/s ({os.cpu_count()} cores)")
    for name, rate in rows.items():
        print(f"  {name:34s} {rate:9.0f}  x{rate / base:4.2f}")
    if args.json:
        os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
        with open(args.json, "w") as handle:
            json.dump({"game": args.game, "steps_per_s": rows}, handle, indent=2)
    return rows


if __name__ == "__main__":
    main()
