"""Demo match: the heuristic baseline against the random baseline on every game, played through
the public PettingZoo AEC API with seats swapped every game.

    python examples/demo.py [--games 20] [--seed 0]
"""
from __future__ import annotations

import argparse
import time

import fox_envs
from fox_envs.agents import make_agent, reset_agent


def play_match(env_id: str, games: int, seed: int) -> dict[str, int]:
    env = fox_envs.make(env_id)
    n = env.unwrapped.game.num_players
    cooperative = not env.unwrapped.game.zero_sum
    result = {"wins": 0, "draws": 0, "losses": 0, "truncated": 0}
    for index in range(games):
        heuristic_seat = index % n
        agents = {}
        for seat, name in enumerate(env.possible_agents):
            spec = "heuristic" if (seat == heuristic_seat or cooperative) else "random"
            agents[name] = make_agent(spec, env_id, seed=seed * 1000 + index * 10 + seat)
            reset_agent(agents[name], seed * 1000 + index * 10 + seat)
        env.reset(seed=seed * 1000 + index)
        final = 0.0
        for agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            if termination or truncation:
                if agent == env.possible_agents[heuristic_seat]:
                    final = reward
                    result["truncated"] += truncation and not termination
                env.step(None)
                continue
            state = env.unwrapped.game_state
            env.step(agents[agent].act(state, env.possible_agents.index(agent)))
        key = "wins" if final > 0 else "losses" if final < 0 else "draws"
        result[key] += 1
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"heuristic vs random, {args.games} games per title, seats rotated (cooperative games: all heuristic)")
    for env_id in fox_envs.ENV_IDS:
        start = time.perf_counter()
        r = play_match(env_id, args.games, args.seed)
        took = time.perf_counter() - start
        print(f"{env_id:20s} heuristic wins {r['wins']:3d}  draws {r['draws']:3d}  losses {r['losses']:3d}"
              f"  truncated {r['truncated']:2d}   ({took:.1f} s)")


if __name__ == "__main__":
    main()
