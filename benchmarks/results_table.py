"""The README results table: for every registered game, heuristic vs random and MCTS vs the
heuristic (cooperative games: each agent as the whole team), with 95 % intervals.

    python benchmarks/results_table.py                      # defaults below, all games
    python benchmarks/results_table.py --games 200 --mcts-games 100 --simulations 200 \
        --workers 2 --seed 0 --out results.md --json results.json
    python benchmarks/results_table.py --envs xceter_o_v0 outfox_v0

Every row is one ``fox_envs.evaluation.evaluate`` match with seats rotated (default params of
each game); the first agent of the matchup is the one reported. Results depend only on the
arguments (not on ``--workers``). Progress goes to stderr, the Markdown table to stdout.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import fox_envs
from fox_envs.cli import Progress
from fox_envs.core.registry import make_game
from fox_envs.evaluation import evaluate

HEADER = ("| game | matchup (first agent reported) | games | W / D / L | win rate [95% CI] "
          "| mean return [95% CI] | mean length | truncated |")


def matchups(env_id: str, games: int, mcts_games: int, mcts: str) -> list[tuple[str, list[str], int]]:
    game = make_game(env_id)
    n = game.num_players
    if not game.zero_sum:
        return [(f"{spec} team", [spec], count) for spec, count in
                (("random", games), ("heuristic", games), (mcts, mcts_games))]
    return [("heuristic vs random", ["heuristic"] + ["random"] * (n - 1), games),
            (f"{mcts} vs heuristic", [mcts] + ["heuristic"] * (n - 1), mcts_games)]


def row(env_id: str, label: str, result) -> str:
    data = result.to_dict()
    if not result.zero_sum:
        team = data["team"]
        lo, hi = team["win_rate_ci95"]
        first = data["results"][0]
        ml, mh = first["mean_return_ci95"]
        return (f"| {env_id} | {label} | {result.num_games} | {team['wins']} / 0 / {team['losses']} "
                f"| {team['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] | {first['mean_return']:+.3f} [{ml:+.3f}, {mh:+.3f}] "
                f"| {result.mean_length:.1f} | {result.truncations} |")
    first = data["results"][0]
    lo, hi = first["win_rate_ci95"]
    ml, mh = first["mean_return_ci95"]
    return (f"| {env_id} | {label} | {result.num_games} | {first['wins']} / {first['draws']} / {first['losses']} "
            f"| {first['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] | {first['mean_return']:+.3f} [{ml:+.3f}, {mh:+.3f}] "
            f"| {result.mean_length:.1f} | {result.truncations} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", nargs="*", default=list(fox_envs.ENV_IDS))
    parser.add_argument("--games", type=int, default=200, help="games per heuristic/random row (default 200)")
    parser.add_argument("--mcts-games", type=int, default=100, help="games per MCTS row (default 100)")
    parser.add_argument("--simulations", type=int, default=200, help="MCTS simulations per move (default 200)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="also write the Markdown table here")
    parser.add_argument("--json", help="write every match result as JSON here")
    args = parser.parse_args(argv)
    mcts = f"mcts:simulations={args.simulations}"
    lines = [HEADER, "|---|---|---:|---|---|---|---:|---:|"]
    results = []
    for env_id in args.envs:
        for label, agents, games in matchups(env_id, args.games, args.mcts_games, mcts):
            start = time.perf_counter()
            result = evaluate(env_id, agents, games, seed=args.seed, workers=args.workers,
                              progress=Progress(f"{env_id} {label}"))
            print(f"  {time.perf_counter() - start:.0f}s", file=sys.stderr)
            lines.append(row(env_id, label, result))
            results.append(result.to_dict())
    table = "\n".join(lines)
    footer = (f"\nWin rates: Wilson 95% intervals; mean return: mean +- 1.96 s/sqrt(n). Seats rotated "
              f"(every agent plays every seat equally often), seed {args.seed}, default params, "
              f"command: `python benchmarks/results_table.py --games {args.games} --mcts-games {args.mcts_games} "
              f"--simulations {args.simulations} --seed {args.seed}"
              f"{'' if args.envs == list(fox_envs.ENV_IDS) else ' --envs ' + ' '.join(args.envs)}`.")
    print(table + "\n" + footer)
    if args.out:
        Path(args.out).write_text(table + "\n" + footer + "\n", encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
