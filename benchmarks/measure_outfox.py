"""Outfox heuristic vs random, seats rotated.

    python benchmarks/measure_outfox.py [games] [num_players]     # e.g. 1000 2, or 999 3

Two players: half the games with the heuristic as player_0, half as player_1. Three players: one
heuristic and two random agents, the heuristic in each seat equally often.
"""
from __future__ import annotations

import argparse
import time

from fox_envs.agents import RandomAgent
from fox_envs.games.outfox.heuristic import OutfoxHeuristic
from fox_envs.games.outfox.rules import OutfoxGame


def play(game: OutfoxGame, agents: list, seed: int) -> int:
    state = game.new_initial_state()
    for i, agent in enumerate(agents):
        agent.reset(seed * 10 + i)
    while not state.is_terminal():
        player = state.current_player()
        state.apply_action(agents[player].act(state, player))
    return state.winner


def main(games: int = 200, num_players: int = 2) -> None:
    game = OutfoxGame(num_players=num_players)
    wins = [0] * num_players
    played = [0] * num_players
    start = time.perf_counter()
    for g in range(games):
        seat = g % num_players
        agents = [RandomAgent() for _ in range(num_players)]
        agents[seat] = OutfoxHeuristic()
        played[seat] += 1
        if play(game, agents, g) == seat:
            wins[seat] += 1
    total = sum(wins)
    print(f"{num_players} players, {games} games: heuristic won {total}, lost {games - total} "
          f"({100 * total / games:.1f}%); by heuristic seat: "
          + ", ".join(f"seat {s}: {wins[s]}/{played[s]}" for s in range(num_players))
          + f"; {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="?", type=int, default=200, help="games (default 200)")
    parser.add_argument("num_players", nargs="?", type=int, choices=(2, 3), default=2, metavar="num_players",
                        help="2 or 3 players (default 2)")
    args = parser.parse_args()
    main(args.games, args.num_players)
