"""Throughput of the single-agent Gymnasium view: plain single process vs Gymnasium's
SyncVectorEnv / AsyncVectorEnv with 1..N subprocesses and fox_envs' batched ``FoxVectorEnv``
with ``workers`` 1..N (that many processes step envs, this one included) and, against the
random or heuristic opponent, the batched core's ``BatchVectorEnv`` (one thread). The learner
is an instant policy, the first legal action of ``info["action_mask"]`` (so the env, not action
sampling, is measured); the opponent is ``--opponent`` (default the random baseline). A step is
one learner decision (opponent moves happen inside it).

Before timing, env ``i`` of a vector env ends its first episode at step ``i % L`` (``L``: the
mean episode length of a plain view; an illegal action ends it), so that its envs are spread
over every phase of an episode as in a long run (a step's cost changes along an episode).
Every setting is measured once per round, the rounds alternate (so a change in the machine's
load hits all of them alike), and the table shows the median rate and the median, lowest and
highest ratio to the single process of the same round. The "machine" row is the same ratio for
two pure-Python loops run in a 2-process pool against one after the other: what two processes
can gain on this machine at all, right now.

    python benchmarks/vector_bench.py --game all [--seconds 2 --num-envs 256 --json results/vector.json]
    python benchmarks/vector_bench.py --game Outfox-v0 --opponent heuristic
    python benchmarks/vector_bench.py --game XCeterO-v0,ByeByeMrFox-v0,Outwit-v0 --opponent heuristic --no-gymnasium
"""
from __future__ import annotations

import argparse
import functools
import json
import multiprocessing as mp
import os
import statistics
import time

import gymnasium
import numpy as np

import fox_envs  # noqa: F401
from fox_envs.core.registry import GAMES

GYM_IDS = [entry.gym_id for entry in GAMES.values()]
MACHINE = "machine: 2 CPU loops, 2 processes"


def make_view(gym_id: str, opponent: str):
    return gymnasium.make(gym_id, opponent=opponent)


def first_legal(masks: np.ndarray) -> np.ndarray:
    """The instant learner: the first legal action of each int8 0/1 mask row (argmax of the
    same bytes read as bool, several times cheaper than an int8 argmax)."""
    return masks.view(np.bool_).argmax(axis=-1)


def _timed(step, seconds: float, batch: int) -> float:
    """Steps/s of calling ``step()`` (``batch`` learner steps each) for ``seconds``, after a short
    untimed warm-up."""
    warm_up = time.perf_counter() + min(0.2, seconds / 5)
    while time.perf_counter() < warm_up:
        step()
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        step()
        steps += batch
    return steps / (time.perf_counter() - start)


def single(gym_id: str, opponent: str, seconds: float) -> float:
    env = make_view(gym_id, opponent)
    last = list(env.reset(seed=0))

    def step() -> None:
        obs, reward, term, trunc, info = env.step(int(first_legal(last[1]["action_mask"])))
        last[:] = env.reset() if term or trunc else (obs, info)

    rate = _timed(step, seconds, 1)
    env.close()
    return rate


def mean_episode_length(gym_id: str, opponent: str, episodes: int = 5) -> int:
    env = make_view(gym_id, opponent)
    steps = 0
    for seed in range(episodes):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, reward, term, trunc, info = env.step(int(first_legal(info["action_mask"])))
            done, steps = term or trunc, steps + 1
    env.close()
    return max(1, round(steps / episodes))


def _run_vector(env, seconds: float, stagger: int) -> float:
    infos = [env.reset(seed=0)[1]]
    index = np.arange(env.num_envs)
    for t in range(stagger):  # env i ends its first episode at step i % stagger
        actions = first_legal(infos[0]["action_mask"])
        actions[index % stagger == t] = -1
        infos[0] = env.step(actions)[-1]

    def step() -> None:
        infos[0] = env.step(first_legal(infos[0]["action_mask"]))[-1]

    try:
        return _timed(step, seconds, env.num_envs)
    finally:
        env.close()


def vector(gym_id: str, opponent: str, seconds: float, workers: int, asynchronous: bool, stagger: int = 1) -> float:
    cls = gymnasium.vector.AsyncVectorEnv if asynchronous else gymnasium.vector.SyncVectorEnv
    return _run_vector(cls([functools.partial(make_view, gym_id, opponent) for _ in range(workers)]), seconds, stagger)


def batched(gym_id: str, opponent: str, seconds: float, workers: int, num_envs: int, stagger: int = 1) -> float:
    from fox_envs.vector.process import FoxVectorEnv

    return _run_vector(FoxVectorEnv(gym_id, num_envs, workers=workers, opponent=opponent), seconds, stagger)


def env_id_of(gym_id: str) -> str:
    return next(env_id for env_id, entry in GAMES.items() if "fox_envs/" + entry.gym_id == gym_id)


def batch_core(gym_id: str, opponent: str, seconds: float, num_envs: int, stagger: int = 1) -> float:
    """The batched core's vector env (what ``gymnasium.make_vec`` gives against ``"random"`` and
    ``"heuristic"``)."""
    from fox_envs.vector.batched import BatchVectorEnv

    return _run_vector(BatchVectorEnv(env_id_of(gym_id), num_envs, opponent=opponent), seconds, stagger)


def _cpu_loop(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def machine_scaling(seconds: float) -> float:
    """Time of two pure-Python loops one after the other / in a pool of two processes."""
    n = 200_000
    start = time.perf_counter()
    _cpu_loop(n)
    n = max(n, int(n * seconds / 2 / max(time.perf_counter() - start, 1e-6)))  # ~seconds/2 each way
    with mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn").Pool(2) as pool:
        pool.map(_cpu_loop, [1000, 1000])  # workers up
        start = time.perf_counter()
        _cpu_loop(n)
        _cpu_loop(n)
        serial = time.perf_counter() - start
        start = time.perf_counter()
        pool.map(_cpu_loop, [n, n], chunksize=1)
        parallel = time.perf_counter() - start
    return serial / parallel


def settings(gym_id: str, args) -> dict:
    """Name -> zero-argument function measuring one setting (the single process first)."""
    o, s = args.opponent, args.seconds
    stagger = mean_episode_length(gym_id, o)
    rows = {"single process": functools.partial(single, gym_id, o, s)}
    for workers in range(1, args.max_workers + 1):
        if not args.no_gymnasium:
            rows[f"SyncVectorEnv x{workers}"] = functools.partial(vector, gym_id, o, s, workers, False, stagger)
            rows[f"AsyncVectorEnv x{workers}"] = functools.partial(vector, gym_id, o, s, workers, True, stagger)
    for workers in range(1, args.max_workers + 1):
        rows[f"FoxVectorEnv {args.num_envs} envs, workers={workers}"] = functools.partial(
            batched, gym_id, o, s, workers, args.num_envs, stagger)
    from fox_envs.vector.routing import plays_inside_batch

    if plays_inside_batch(o, env_id_of(gym_id)):
        for num_envs in sorted({args.num_envs, 4096}):
            rows[f"BatchVectorEnv {num_envs} envs"] = functools.partial(batch_core, gym_id, o, s, num_envs, stagger)
    return rows


def measure(game: str, args) -> dict:
    gym_id = "fox_envs/" + game
    runs = settings(gym_id, args)
    rates: dict[str, list[float]] = {name: [] for name in runs}
    ratios: dict[str, list[float]] = {name: [] for name in runs}
    if args.max_workers >= 2:
        ratios[MACHINE] = []
    for _ in range(args.rounds):
        for name, run in runs.items():
            rates[name].append(run())
            ratios[name].append(rates[name][-1] / rates["single process"][-1])
        if MACHINE in ratios:
            ratios[MACHINE].append(machine_scaling(args.seconds))
    return {
        "game": game, "opponent": args.opponent, "num_envs": args.num_envs, "rounds": args.rounds,
        "seconds": args.seconds, "cores": os.cpu_count(),
        "steps_per_s": {name: statistics.median(values) for name, values in rates.items()},
        "ratio": {name: statistics.median(values) for name, values in ratios.items()},
        "ratio_range": {name: [min(values), max(values)] for name, values in ratios.items()},
    }


def print_table(result: dict) -> None:
    print(f"{result['game']} (opponent {result['opponent']}): learner steps/s, median of "
          f"{result['rounds']} rounds of {result['seconds']:g} s ({result['cores']} cores)")
    print(f"  {'setting':36s} {'steps/s':>9s} {'x single':>9s} {'(lowest-highest)':>17s}")
    for name, ratio in result["ratio"].items():
        rate = result["steps_per_s"].get(name)
        low, high = result["ratio_range"][name]
        shown = f"{rate:9.0f}" if rate is not None else f"{'-':>9s}"
        print(f"  {name:36s} {shown} {ratio:8.2f}x {f'({low:.2f}-{high:.2f})':>17s}")


def print_summary(results: list[dict]) -> None:
    """One line per game: the ratios to the single process of AsyncVectorEnv x2, every
    FoxVectorEnv setting and the machine's own 2-process scaling."""
    short = {"AsyncVectorEnv x2": "Async x2"}
    for name in results[0]["ratio"]:
        if name.startswith("FoxVectorEnv"):
            short[name] = "Fox w" + name.split("workers=")[1]
        if name.startswith("BatchVectorEnv"):
            short[name] = "Batch " + name.split()[1]
    short[MACHINE] = "machine"
    names = [name for name in short if name in results[0]["ratio"]]
    print(f"Summary (opponent {results[0]['opponent']}, {results[0]['num_envs']} envs): x single process, median")
    print(f"  {'game':16s}" + "".join(f"{short[name]:>10s}" for name in names))
    for result in results:
        print(f"  {result['game']:16s}" + "".join(f"{result['ratio'][name]:9.2f}x" for name in names))


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="Outwit-v0",
                        help=f"Gymnasium id without the fox_envs/ prefix, or 'all' ({', '.join(GYM_IDS)})")
    parser.add_argument("--opponent", default="random", help="opponent of the learner: random, heuristic, ...")
    parser.add_argument("--seconds", type=float, default=2.0, help="timed seconds per setting and round")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (medians are shown)")
    parser.add_argument("--max-workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--num-envs", type=int, default=256, help="envs of the batched FoxVectorEnv")
    parser.add_argument("--no-gymnasium", action="store_true", help="skip SyncVectorEnv / AsyncVectorEnv")
    parser.add_argument("--json", help="write the results here (one game: its dict; several: a list)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.seconds <= 0 or args.max_workers < 1 or args.num_envs < 1:
        parser.error("--rounds, --num-envs and --max-workers must be >= 1, --seconds > 0")
    games = GYM_IDS if args.game == "all" else args.game.split(",")
    unknown = [game for game in games if game not in GYM_IDS]
    if unknown:
        parser.error(f"unknown game(s) {', '.join(unknown)}; choose from {', '.join(GYM_IDS)} or 'all'")
    results = []
    for game in games:
        results.append(measure(game, args))
        print_table(results[-1])
    if len(results) > 1:
        print_summary(results)
    if args.json:
        os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
        with open(args.json, "w") as handle:
            json.dump(results[0] if len(results) == 1 else results, handle, indent=2)
    return results[0] if len(results) == 1 else {"results": results}


if __name__ == "__main__":
    main()
