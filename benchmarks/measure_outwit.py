"""Measure the Outwit heuristic: vs random with seats swapped, and in self-play (game lengths).

    python benchmarks/measure_outwit.py --games 200 --seed 0

Plays on the rules core with a move cap (the env's ``max_moves``; a capped game counts as
truncated) and prints win/draw/loss/truncated counts and game-length statistics.
"""
from __future__ import annotations

import argparse
import statistics
import time

from fox_envs.agents import RandomAgent
from fox_envs.games.outwit.heuristic import OutwitHeuristic
from fox_envs.games.outwit.rules import OutwitGame


def play(agents, seed: int, cap: int):
    """One game; returns (returns array or None if truncated, number of moves)."""
    state = OutwitGame().new_initial_state()
    for k, agent in enumerate(agents):
        agent.reset(seed * 2 + k)
    moves = 0
    while not state.is_terminal():
        if moves >= cap:
            return None, moves, ""
        player = state.current_player()
        state.apply_action(agents[player].act(state, player))
        moves += 1
    return state.returns(), moves, state.drawn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per measurement (even)")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument("--cap", type=int, default=OutwitGame.max_moves_default,
                        help="moves before a game counts as truncated (default: the env's max_moves)")
    parser.add_argument("--skip-random", action="store_true", help="skip heuristic vs random")
    parser.add_argument("--skip-self", action="store_true", help="skip heuristic self-play")
    args = parser.parse_args()

    if not args.skip_random:
        start = time.time()
        wins = draws = losses = truncated = 0
        lengths = []
        for game in range(args.games):
            seat = game % 2  # the heuristic's seat alternates
            agents = [None, None]
            agents[seat] = OutwitHeuristic()
            agents[1 - seat] = RandomAgent()
            result, moves, _ = play(agents, args.seed * 100003 + game, args.cap)
            lengths.append(moves)
            if result is None:
                truncated += 1
            elif result[seat] > 0:
                wins += 1
            elif result[seat] < 0:
                losses += 1
            else:
                draws += 1
        print(f"heuristic vs random, {args.games} games, seats swapped: {wins} wins, {draws} draws, "
              f"{losses} losses, {truncated} truncated (cap {args.cap}); win rate {wins / args.games:.3f}; "
              f"length mean {statistics.mean(lengths):.1f}, 95th percentile "
              f"{sorted(lengths)[int(0.95 * len(lengths))]}, max {max(lengths)}; {time.time() - start:.0f}s")

    if not args.skip_self:
        start = time.time()
        outcomes = {"player_0": 0, "player_1": 0, "passes": 0, "repetition": 0, "truncated": 0}
        lengths = []
        for game in range(args.games):
            result, moves, drawn = play([OutwitHeuristic(), OutwitHeuristic()], args.seed * 100003 + game, args.cap)
            if result is None:
                outcomes["truncated"] += 1
            else:
                lengths.append(moves)
                if result[0] > 0:
                    outcomes["player_0"] += 1
                elif result[1] > 0:
                    outcomes["player_1"] += 1
                else:
                    outcomes[drawn] += 1
        finished = args.games - outcomes["truncated"]
        text = ", ".join(f"{k} {v}" for k, v in outcomes.items())
        if lengths:
            lengths.sort()
            p95 = lengths[min(len(lengths) - 1, int(0.95 * len(lengths)))]
            stats = (f"length mean {statistics.mean(lengths):.1f}, median {statistics.median(lengths)}, "
                     f"95th percentile {p95}, max {lengths[-1]}")
        else:
            stats = "no finished game"
        print(f"heuristic self-play, {args.games} games (cap {args.cap}): {text}; finished {finished}; "
              f"finished-game {stats}; {time.time() - start:.0f}s")


if __name__ == "__main__":
    main()
