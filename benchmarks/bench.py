"""Random-play throughput of every fox_envs env beside PettingZoo's classic games, same loop,
same run. No timed assertions anywhere: this script only measures.

    python benchmarks/bench.py                 # all games, 5 alternating rounds of ~1 s each
    python benchmarks/bench.py --seconds 0.5 --rounds 3 --json results/bench.json

Layers measured per env: ``env`` (the public wrapped ``env()``), ``raw`` (``raw_env``), ``core``
(the rules core alone: observation of the player to move + mask + apply). The PettingZoo
anchors are ``tictactoe_v3`` and ``connect_four_v3`` through ``env()`` / ``raw_env`` and the same
loops. A step is one player decision (fox_envs chance events are resolved inside ``step``).

Every loop (ours and the PettingZoo anchors' alike) picks its random legal action with the same
``pick``: the int8 mask viewed as bool, ``nonzero``, one uniform draw (the cheapest picker
measured: about 2 µs on Outwit's 8,101-entry mask, 1 µs on connect four's 7). ``np.flatnonzero`` on
the int8 mask itself takes about 12 µs on Outwit's mask, as long as the rest of an Outwit step, so
the picker would be much of what is measured.
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from typing import Callable

import numpy as np

import fox_envs
from fox_envs.core.game import sample_chance


def pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A uniformly random legal action of an int8 (0/1) mask: the cheapest picker measured."""
    legal = mask.view(np.bool_).nonzero()[0]
    return int(legal[int(rng.random() * len(legal))])


def aec_loop(make_env: Callable, seconds: float, seed: int = 0) -> tuple[float, float]:
    """Steps/s and games/s of uniformly random masked play through an AEC env."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=int(rng.integers(2**31)))
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(pick(obs["action_mask"], rng))
            steps += 1
        games += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, games / elapsed


def core_loop(env_id: str, seconds: float, seed: int = 0) -> tuple[float, float]:
    """Steps/s of the rules core alone: observation of the mover, mask, apply (chance sampled)."""
    game = fox_envs.make_game(env_id)
    limit = game.max_moves_default
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        moves = 0
        while not state.is_terminal() and moves < limit:
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
                continue
            player = state.current_player()
            state.observation_tensor(player)
            state.apply_action(pick(state.legal_actions_mask(), rng))
            moves += 1
            steps += 1
        games += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, games / elapsed


def memory_report(env_ids: list[str]) -> dict[str, dict[str, int]]:
    """Bytes of a pickled mid-game state, of one observation dict, and of a pickled env."""
    import pickle

    report = {}
    for env_id in env_ids:
        env = fox_envs.make(env_id)
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in range(10):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            env.step(pick(obs["action_mask"], rng))
        obs = env.observe(env.agent_selection)
        report[env_id] = {
            "state_pickle_bytes": len(pickle.dumps(env.unwrapped.game_state)),
            "state_json_bytes": len(env.unwrapped.game_state.to_json()),
            "observation_bytes": int(obs["observation"].nbytes + obs["action_mask"].nbytes),
            "env_pickle_bytes": len(pickle.dumps(env)),
        }
    return report


def targets(env_ids: list[str]) -> dict[str, Callable[[float], tuple[float, float]]]:
    from pettingzoo.classic import connect_four_v3, tictactoe_v3

    result: dict[str, Callable[[float], tuple[float, float]]] = {
        "pz:tictactoe_v3/env": lambda s: aec_loop(tictactoe_v3.env, s),
        "pz:tictactoe_v3/raw": lambda s: aec_loop(tictactoe_v3.raw_env, s),
        "pz:connect_four_v3/env": lambda s: aec_loop(connect_four_v3.env, s),
        "pz:connect_four_v3/raw": lambda s: aec_loop(connect_four_v3.raw_env, s),
    }
    for env_id in env_ids:
        module = fox_envs.core.registry.env_module(env_id)
        result[f"{env_id}/env"] = lambda s, m=module: aec_loop(m.env, s)
        result[f"{env_id}/raw"] = lambda s, m=module: aec_loop(m.raw_env, s)
        result[f"{env_id}/core"] = lambda s, e=env_id: core_loop(e, s)
    return result


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="*", default=list(fox_envs.ENV_IDS), help="env ids (default: all)")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds; the median is reported")
    parser.add_argument("--json", help="write the results to this JSON file")
    parser.add_argument("--memory", action="store_true", help="also report state / observation / env sizes")
    args = parser.parse_args(argv)

    import warnings

    warnings.filterwarnings("ignore")
    jobs = targets(args.games)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in jobs}
    for _ in range(args.rounds):  # alternate so that machine noise hits every target alike
        for name, job in jobs.items():
            samples[name].append(job(args.seconds))
    medians = {
        name: {"steps_per_s": statistics.median(s for s, _ in runs), "games_per_s": statistics.median(g for _, g in runs)}
        for name, runs in samples.items()
    }
    anchors = {
        "env": medians["pz:connect_four_v3/env"]["steps_per_s"],
        "raw": medians["pz:connect_four_v3/raw"]["steps_per_s"],
        "core": medians["pz:connect_four_v3/raw"]["steps_per_s"],
    }
    ttt = {"env": medians["pz:tictactoe_v3/env"]["steps_per_s"], "raw": medians["pz:tictactoe_v3/raw"]["steps_per_s"],
           "core": medians["pz:tictactoe_v3/raw"]["steps_per_s"]}
    for name, row in medians.items():
        layer = name.rsplit("/", 1)[1]
        row["vs_connect_four"] = row["steps_per_s"] / anchors[layer]
        row["vs_tictactoe"] = row["steps_per_s"] / ttt[layer]
    print(f"{'target':34s} {'steps/s':>10s} {'games/s':>9s} {'x c4':>6s} {'x ttt':>6s}")
    for name, row in medians.items():
        print(f"{name:34s} {row['steps_per_s']:10.0f} {row['games_per_s']:9.1f} "
              f"{row['vs_connect_four']:6.2f} {row['vs_tictactoe']:6.2f}")
    print("ratios: env/raw rows against the same PettingZoo layer; core rows against the PettingZoo raw env")
    report = {"python": sys.version.split()[0], "machine": platform.machine(), "seconds": args.seconds,
              "rounds": args.rounds, "results": medians}
    if args.memory:
        report["memory"] = memory_report(args.games)
        print(f"\n{'env':20s} {'state pickle':>12s} {'state json':>10s} {'obs+mask':>9s} {'env pickle':>10s}  (bytes)")
        for env_id, row in report["memory"].items():
            print(f"{env_id:20s} {row['state_pickle_bytes']:12d} {row['state_json_bytes']:10d} "
                  f"{row['observation_bytes']:9d} {row['env_pickle_bytes']:10d}")
    if args.json:
        import os

        os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
        with open(args.json, "w") as handle:
            json.dump(report, handle, indent=2)
    return report


if __name__ == "__main__":
    main()
