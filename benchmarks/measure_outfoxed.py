"""Measure the Outfoxed heuristic against the random agent with seats swapped.

Usage: python benchmarks/measure_outfoxed.py [--games 10000] [--seed 0]

Plays ``games`` games on the rules core (half with the heuristic as player_0, half as
player_1), chance drawn from one seeded generator per game, and prints the heuristic's
win/draw/loss counts with 95% Wilson intervals and its mean return with a normal interval.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

from fox_envs.agents import RandomAgent
from fox_envs.games.outfoxed.heuristic import OutfoxedHeuristic
from fox_envs.evaluation.match import play_game
from fox_envs.evaluation.stats import wilson_interval
from fox_envs.games.outfoxed.rules import OutfoxedGame


def play(game: OutfoxedGame, agents: list, seed: int) -> list[float]:
    """One game's returns; chance from ``seed``."""
    for i, agent in enumerate(agents):
        agent.reset(seed * 2 + i)
    return play_game(game, agents, np.random.default_rng(seed), game.max_moves_default).returns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10000, help="games (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    args = parser.parse_args()
    game = OutfoxedGame()
    heuristic, random = OutfoxedHeuristic(), RandomAgent()
    results = []
    start = time.perf_counter()
    for g in range(args.games):
        seat = g % 2
        agents = [heuristic, random] if seat == 0 else [random, heuristic]
        results.append(play(game, agents, args.seed * 1_000_003 + g)[seat])
    elapsed = time.perf_counter() - start
    r = np.array(results)
    n = len(r)
    wins, draws, losses = int((r > 0).sum()), int((r == 0).sum()), int((r < 0).sum())
    print(f"heuristic vs random, {n} games, seats swapped, seed {args.seed} ({elapsed:.0f} s)")
    for name, k in (("wins", wins), ("draws", draws), ("losses", losses)):
        lo, hi = wilson_interval(k, n)
        print(f"  {name:6s} {k:6d}  {k / n:.3f}  95% CI [{lo:.3f}, {hi:.3f}]")
    half = 1.96 * r.std(ddof=1) / math.sqrt(n)
    print(f"  mean return {r.mean():+.3f}  95% CI [{r.mean() - half:+.3f}, {r.mean() + half:+.3f}]")
    for seat in (0, 1):
        part = r[seat::2]
        print(f"  as player_{seat}: wins {int((part > 0).sum())} draws {int((part == 0).sum())} "
              f"losses {int((part < 0).sum())} of {len(part)}")


if __name__ == "__main__":
    main()
