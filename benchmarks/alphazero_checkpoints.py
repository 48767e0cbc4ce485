"""The ``alphazero`` agent as it plays (its default search, numpy only) with each network of a
training run, against other agents: the learning curve of the search agent, where the training
script's own curve measures the greedy network.

    python benchmarks/alphazero_checkpoints.py --env outwit_v0 NET.npz [NET.npz ...] \\
        [--labels warm,25,50] [--opponents heuristic,mcts] [--games 40] [--seed 1] [--workers 2] \\
        [--simulations N] [--moves 0,51200,...] [--plot curve.png]

Each network plays ``--games`` games against each opponent, seats rotated (Wilson 95 %
intervals). Prints one Markdown table; ``--plot`` draws the win rates against ``--moves`` (the
self-play moves each network had seen; default: its place in the list), with matplotlib.
"""
from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import argparse
import time
from typing import Any, Sequence



def measure(env_id: str, paths: Sequence[str], opponents: Sequence[str], games: int, seed: int, workers: int,
            simulations: int | None) -> list[dict[str, Any]]:
    """One row per network: its win rate against each opponent (the agent's search)."""
    from examples._common import versus
    from fox_envs.agents.alphazero import AlphaZeroAgent, network_arrays

    rows = []
    for path in paths:
        agent = AlphaZeroAgent(env_id, seed=seed, simulations=simulations, arrays=network_arrays(path))
        start = time.perf_counter()
        row: dict[str, Any] = {"network": path}
        for k, opponent in enumerate(opponents):
            row[opponent] = versus(env_id, agent, opponent, games, seed + k, workers=workers)
        row["seconds"] = time.perf_counter() - start
        rows.append(row)
        print(f"{path}: " + ", ".join(f"vs {o} {row[o]['win_rate']:.3f}" for o in opponents), file=sys.stderr, flush=True)
    return rows


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", required=True, choices=("xceter_o_v0", "outfox_v0", "outwit_v0"))
    parser.add_argument("networks", nargs="+", help=".npz files written by examples/train_alphazero.py")
    parser.add_argument("--labels", default=None, help="comma-separated, one per network (default: the file names)")
    parser.add_argument("--opponents", default="heuristic,mcts")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--simulations", type=int, default=None, help="the agent's search (default: the agent's)")
    parser.add_argument("--moves", default=None, help="comma-separated: the self-play moves behind each network (the plot's x)")
    parser.add_argument("--plot", default=None)
    args = parser.parse_args(argv)
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    labels = args.labels.split(",") if args.labels else [Path(p).stem for p in args.networks]
    if len(labels) != len(args.networks):
        parser.error(f"--labels gives {len(labels)} labels for {len(args.networks)} networks")
    rows = measure(args.env, args.networks, opponents, args.games, args.seed, args.workers, args.simulations)
    print("| network | " + " | ".join(f"vs {o} (W / D / L, win rate [95% CI])" for o in opponents) + " | time |")
    print("|---|" + "---|" * len(opponents) + "---:|")
    for label, row in zip(labels, rows):
        cells = [f"{r['wins']} / {r['draws']} / {r['losses']}, {r['win_rate']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"
                 for r in (row[o] for o in opponents)]
        print(f"| {label} | " + " | ".join(cells) + f" | {row['seconds']:.0f} s |")
    if args.plot:
        from fox_envs.evaluation import plot_learning_curve

        moves = [int(m) for m in args.moves.split(",")] if args.moves else list(range(len(rows)))
        if len(moves) != len(rows):
            parser.error(f"--moves gives {len(moves)} numbers for {len(rows)} networks")
        points = [{"moves": m, **{o: row[o] for o in opponents}} for m, row in zip(moves, rows)]
        plot_learning_curve(points, args.plot, title=f"alphazero (its search) on {args.env}, {args.games} games each",
                            x="moves", x_label="self-play moves" if args.moves else "network", series=opponents)
    return rows


if __name__ == "__main__":
    main()
