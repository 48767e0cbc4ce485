"""The baseline ladder: for every game, one round-robin tournament of its baselines (random,
heuristic, MCTS, and where they exist the learned agent, the AlphaZero agent (``alphazero``:
its default search over the network), Outfoxed's ``ismcts`` and the exact
players: X-Ceter-O's ``perfect``, Bye Bye Mr. Fox!'s optimal team), with Bradley-Terry ratings
and bootstrap 95 % intervals (cooperative Bye Bye Mr. Fox!: team win rates with Wilson
intervals). Seats are rotated in every match; results depend only on the arguments.

    python benchmarks/ladder.py --workers 2 --seed 0                 # every game, default sizes
    python benchmarks/ladder.py --envs xceter_o_v0 --games 100

Progress goes to stderr, one Markdown table per game to stdout.
"""
from __future__ import annotations

import argparse
import sys
import time

from fox_envs.ui.cli import Progress
from fox_envs.evaluation import round_robin

OPTIMAL_TEAM = "fox_envs.games.bye_bye_mr_fox.solver:ByeByeMrFoxOptimal"

# env id -> (agents, games per match)
LADDERS: dict[str, tuple[tuple[str, ...], int]] = {
    "xceter_o_v0": (("random", "heuristic", "mcts", "alphazero", "perfect"), 100),
    "outwit_v0": (("random", "heuristic", "mcts", "learned", "alphazero"), 40),
    "outfox_v0": (("random", "heuristic", "mcts", "learned", "alphazero"), 40),
    "bye_bye_mr_fox_v0": (("random", "heuristic", "mcts", OPTIMAL_TEAM), 400),
    "outfoxed_v0": (("random", "heuristic", "mcts", "ismcts"), 40),
}


def label(agent: str) -> str:
    return "optimal" if agent == OPTIMAL_TEAM else agent


def table(result) -> list[str]:
    """Markdown rows of a tournament result: ratings (or team win rates) and the cross table."""
    if not result.zero_sum:
        lines = ["| agent (whole team) | games | team wins | team win rate [95% CI] |", "|---|---:|---:|---|"]
        for row in result.team_table():
            lines.append(f"| {label(row['name'])} | {row['games']} | {row['team_wins']} | "
                         f"{row['team_win_rate']:.3f} [{row['ci95'][0]:.3f}, {row['ci95'][1]:.3f}] |")
        return lines
    names = [label(a) for a in result.agents]
    index = {a: i for i, a in enumerate(result.agents)}
    lines = ["| agent | rating [95% CI] | " + " | ".join(f"vs {n}" for n in names) + " |",
             "|---|---|" + "---:|" * len(names)]
    for row in result.ratings.to_list():
        i = index[row["name"]]
        cells = ["—" if i == j else f"{result.score(i, j):.2f}" for j in range(len(names))]
        lines.append(f"| {label(row['name'])} | {row['rating']:+.0f} [{row['ci95'][0]:+.0f}, {row['ci95'][1]:+.0f}] | "
                     + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", nargs="+", default=list(LADDERS), choices=list(LADDERS))
    parser.add_argument("--games", type=int, default=None, help="games per match (default: per game, see LADDERS)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    for env_id in args.envs:
        agents, games = LADDERS[env_id]
        games = args.games or games
        start = time.perf_counter()
        result = round_robin(env_id, list(agents), games, seed=args.seed, workers=args.workers,
                             progress=Progress(f"{env_id} ladder"))
        took = time.perf_counter() - start
        print(f"\n**{env_id}**: {games} games per match, seats rotated, seed {args.seed} "
              f"({took / 60:.1f} min with {args.workers} workers)\n")
        print("\n".join(table(result)), flush=True)
        print(f"{env_id}: {took:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
