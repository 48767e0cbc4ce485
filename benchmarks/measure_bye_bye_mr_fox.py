"""Bye Bye Mr. Fox! win rates of random, heuristic (and optimal) teams for each ``egg_tokens``.

    python benchmarks/measure_bye_bye_mr_fox.py [games] [--optimal] [--eggs 16,14,12]

The game is cooperative, so a "team" is one kind of agent in every seat (2 players; the number
of players changes nothing but who moves). Game ``g`` draws its chance outcomes from seed ``g``
for every team (common random numbers). Prints wins with 95 % Wilson intervals, and the
heuristic's margin over random with its 95 % interval and z statistic. ``--optimal`` also plays
the exact solver's agent and prints the solved win probability (it solves the game first:
minutes for ``egg_tokens=16``).
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

from fox_envs.agents import RandomAgent
from fox_envs.games.bye_bye_mr_fox.heuristic import ByeByeMrFoxHeuristic
from fox_envs.games.bye_bye_mr_fox.solver import ByeByeMrFoxOptimal, clear_solvers, solver_for
from fox_envs.evaluation.match import play_game
from fox_envs.evaluation.stats import Z95, wilson_interval
from fox_envs.games.bye_bye_mr_fox.rules import ByeByeMrFoxGame

TEAMS = {"random": RandomAgent, "heuristic": ByeByeMrFoxHeuristic, "optimal": ByeByeMrFoxOptimal}


def play(game: ByeByeMrFoxGame, agents: list, seed: int) -> bool:
    """One game; chance from ``seed``; True on a win."""
    for i, agent in enumerate(agents):
        agent.reset(seed * 10 + i)
    record = play_game(game, agents, np.random.default_rng(seed), game.max_moves_default)
    return record.returns[0] > 0


def measure(game: ByeByeMrFoxGame, team: str, games: int) -> int:
    agents = [TEAMS[team]() for _ in range(game.num_players)]
    return sum(play(game, agents, g) for g in range(games))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="?", type=int, default=10_000, help="games per team (default 10000)")
    parser.add_argument("--eggs", default="16,14,12",
                        help="comma-separated egg_tokens settings to measure (default 16,14,12)")
    parser.add_argument("--optimal", action="store_true", help="also solve the game and play the optimal agent (minutes)")
    args = parser.parse_args()
    for eggs in [int(e) for e in args.eggs.split(",")]:
        game = ByeByeMrFoxGame(egg_tokens=eggs)
        teams = ["random", "heuristic"] + (["optimal"] if args.optimal else [])
        wins = {}
        print(f"egg_tokens={eggs}, {args.games} games per team")
        if args.optimal:
            start = time.process_time()
            value = solver_for(game).solve()
            print(f"  solved: optimal win probability {value:.4f} ({time.process_time() - start:.0f} s cpu)")
        for team in teams:
            start = time.perf_counter()
            wins[team] = measure(game, team, args.games)
            low, high = wilson_interval(wins[team], args.games)
            print(f"  {team:9s} won {wins[team]:5d}/{args.games} = {wins[team] / args.games:.4f} "
                  f"[95% {low:.4f}, {high:.4f}]  ({time.perf_counter() - start:.1f} s)")
        p_h, p_r = wins["heuristic"] / args.games, wins["random"] / args.games
        se = math.sqrt(p_h * (1 - p_h) / args.games + p_r * (1 - p_r) / args.games)
        print(f"  heuristic - random = {p_h - p_r:+.4f} [95% {p_h - p_r - Z95 * se:+.4f}, "
              f"{p_h - p_r + Z95 * se:+.4f}], z = {(p_h - p_r) / se:.1f}", flush=True)
        clear_solvers()


if __name__ == "__main__":
    main()
