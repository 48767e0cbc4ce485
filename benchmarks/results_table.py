"""The results table of docs/evaluation.md: for every registered game, heuristic vs random and MCTS vs the
heuristic (cooperative games: each agent as the whole team), with 95 % intervals.

    python benchmarks/results_table.py                      # per-game defaults below, all games
    python benchmarks/results_table.py --workers 2 --seed 0 --out results.md --json results.json
    python benchmarks/results_table.py --envs xceter_o_v0 outfox_v0 --games 100 --mcts-games 40

Every row is one ``fox_envs.evaluation.evaluate`` match with seats rotated; the first agent of
the matchup is the one reported. MCTS is ``make_agent("mcts", env_id)``: the game's tuned search
settings (each game's spec, ``search_defaults``), unless ``--simulations`` or
``--mcts`` says otherwise. Besides each game's default params, three-player Outfox gets its own
rows. The default game counts (``CASES``) finish the whole table in several minutes (measured
8.5 minutes on a 2-core machine with ``--workers 2``). Results depend only on the arguments
(not on ``--workers``). Progress goes to stderr, the Markdown table to stdout.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import fox_envs
from fox_envs.ui.cli import Progress
from fox_envs.core.registry import make_game
from fox_envs.evaluation import evaluate

HEADER = ("| game | matchup (first agent reported) | games | W / D / L | win rate [95% CI] "
          "| mean return [95% CI] | mean length | truncated |")

# (env id, params, games per heuristic/random row, games per MCTS row): sized so the whole table
# takes several minutes with 2 workers (measured 8.5 minutes on 2 cores; MCTS per-move times are
# in docs/evaluation.md).
CASES: tuple[tuple[str, dict, int, int], ...] = (
    ("xceter_o_v0", {}, 200, 200),
    ("outwit_v0", {}, 200, 200),
    ("outfox_v0", {}, 200, 100),
    ("outfox_v0", {"num_players": 3}, 198, 60),
    ("bye_bye_mr_fox_v0", {}, 1000, 1000),
    ("outfoxed_v0", {}, 200, 60),
)


def cases_for(env_ids: list[str]) -> list[tuple[str, dict, int, int]]:
    """The ``CASES`` of the chosen games; a registered game without one gets default counts."""
    chosen = [case for case in CASES if case[0] in env_ids]
    chosen += [(env_id, {}, 200, 100) for env_id in env_ids if env_id not in {c[0] for c in CASES}]
    return sorted(chosen, key=lambda case: env_ids.index(case[0]))


def matchups(env_id: str, params: dict, games: int, mcts_games: int, mcts: str) -> list[tuple[str, list[str], int]]:
    game = make_game(env_id, **params)
    n = game.num_players
    if not game.zero_sum:
        return [(f"{spec} team", [spec], count) for spec, count in
                (("random", games), ("heuristic", games), (mcts, mcts_games))]
    others = "" if n == 2 else f"{n - 1} x "
    return [(f"heuristic vs {others}random", ["heuristic"] + ["random"] * (n - 1), games),
            (f"{mcts} vs {others}heuristic", [mcts] + ["heuristic"] * (n - 1), mcts_games)]


def game_label(env_id: str, params: dict) -> str:
    return env_id + "".join(f" {k}={v}" for k, v in params.items())


def row(label_game: str, label: str, result) -> str:
    data = result.to_dict()
    if not result.zero_sum:
        team = data["team"]
        lo, hi = team["win_rate_ci95"]
        first = data["results"][0]
        ml, mh = first["mean_return_ci95"]
        return (f"| {label_game} | {label} | {result.num_games} | {team['wins']} / 0 / {team['losses']} "
                f"| {team['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] | {first['mean_return']:+.3f} [{ml:+.3f}, {mh:+.3f}] "
                f"| {result.mean_length:.1f} | {result.truncations} |")
    first = data["results"][0]
    lo, hi = first["win_rate_ci95"]
    ml, mh = first["mean_return_ci95"]
    return (f"| {label_game} | {label} | {result.num_games} | {first['wins']} / {first['draws']} / {first['losses']} "
            f"| {first['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] | {first['mean_return']:+.3f} [{ml:+.3f}, {mh:+.3f}] "
            f"| {result.mean_length:.1f} | {result.truncations} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", nargs="*", default=list(fox_envs.ENV_IDS),
                        help="env ids to measure (default: every registered game)")
    parser.add_argument("--games", type=int, help="games per heuristic/random row (default: per game, CASES)")
    parser.add_argument("--mcts-games", type=int, help="games per MCTS row (default: per game, CASES)")
    parser.add_argument("--simulations", type=int,
                        help="MCTS simulations per move (default: each game's tuned setting)")
    parser.add_argument("--mcts", default="mcts", help="the MCTS agent spec (default 'mcts': tuned per game)")
    parser.add_argument("--workers", type=int, default=2,
                        help="worker processes (default 2; the results do not depend on it)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every match (default 0)")
    parser.add_argument("--out", help="also write the Markdown table here")
    parser.add_argument("--json", help="write every match result as JSON here")
    args = parser.parse_args(argv)
    mcts = args.mcts
    if args.simulations is not None:
        mcts += ("," if ":" in mcts else ":") + f"simulations={args.simulations}"
    lines = [HEADER, "|---|---|---:|---|---|---|---:|---:|"]
    results = []
    begin = time.perf_counter()
    for env_id, params, games, mcts_games in cases_for(args.envs):
        games = args.games if args.games is not None else games
        mcts_games = args.mcts_games if args.mcts_games is not None else mcts_games
        label_game = game_label(env_id, params)
        for label, agents, count in matchups(env_id, params, games, mcts_games, mcts):
            start = time.perf_counter()
            result = evaluate(env_id, agents, count, seed=args.seed, workers=args.workers, params=params,
                              progress=Progress(f"{label_game} {label}"))
            print(f"  {time.perf_counter() - start:.0f}s", file=sys.stderr)
            lines.append(row(label_game, label, result))
            results.append(result.to_dict())
    print(f"total {time.perf_counter() - begin:.0f}s", file=sys.stderr)
    table = "\n".join(lines)
    options = "".join(f" --{name.replace('_', '-')} {value}" for name, value in
                      (("games", args.games), ("mcts_games", args.mcts_games), ("simulations", args.simulations))
                      if value is not None)
    if args.mcts != "mcts":
        options += f" --mcts {args.mcts}"
    footer = (f"\nWin rates: Wilson 95% intervals; mean return: mean +- 1.96 s/sqrt(n). Seats rotated "
              f"(every agent plays every seat equally often), seed {args.seed}; `mcts` = each game's tuned "
              f"search settings (docs/evaluation.md). Command: `python benchmarks/results_table.py{options} "
              f"--seed {args.seed}{'' if args.envs == list(fox_envs.ENV_IDS) else ' --envs ' + ' '.join(args.envs)}`.")
    print(table + "\n" + footer)
    if args.out:
        Path(args.out).write_text(table + "\n" + footer + "\n", encoding="utf-8")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
