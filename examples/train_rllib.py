"""Ray RLlib: multi-agent self-play PPO with action masking on a fox_envs game, then the trained
policy against the ``random`` and ``heuristic`` baselines.

    pip install torch==2.13.0          # a CPU build of torch first (never a CUDA build)
    pip install -e '.[rllib]'
    python examples/train_rllib.py [--quick] [--env xceter_o_v0] [--iterations N] [--num-env-runners 2]
    python examples/train_rllib.py --address 10.0.0.1:6379     # on an existing Ray cluster

Every seat of ``FoxMultiAgentEnv`` (``fox_envs.integrations.rllib``) is played by one shared
``ActionMaskingTorchRLModule``: it learns from both sides of every game, and the legal-action
mask in each observation keeps it to legal moves. Sampling runs on ``--num-env-runners`` Ray
actors (default 2), learning in this process. Without ``--address`` the script starts a local
Ray (``ray.init()``) and stops it at the end; with ``--address`` it joins that cluster.

Each iteration prints the env steps sampled, games finished, their mean length and the PPO
losses; halfway, the greedy policy plays a quarter of the evaluation games in this process (the
env runners still hold their CPUs). Then the env runners are stopped and the greedy policy (``RLModuleAgent``: the most probable legal
action), untrained and trained, plays ``random`` and ``heuristic`` with ``fox_envs.evaluate``, seats rotated, as Ray
tasks (``backend="ray"``, ``--workers`` at a time); win rates with Wilson 95 % intervals (the
team win rate for the cooperative Bye Bye Mr. Fox!). Measured results are in docs/integrations.md.
"""
from __future__ import annotations

import copy
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from typing import Any, Sequence

from examples._common import (
    Timer, add_plot_option, base_parser, curve_point, format_rate, pick, rate_record, write_learning_curve,
)

ENV_ID = "xceter_o_v0"
MISSING = ("this example needs the optional 'rllib' extra (ray[rllib] and torch): install a CPU build of torch "
           "first (pip install torch==2.13.0, never a CUDA build), then pip install -e '.[rllib]' (missing: {name})")
# (iterations, env steps per iteration) with --quick and without; --quick finishes in under 4 minutes
# on a 2-core machine (Ray start, training and evaluation)
BUDGET = {"quick": (8, 1500), "full": (150, 4000)}


def require_rllib():
    """Import Ray RLlib and torch, or exit with a clear message."""
    try:
        import ray
        import torch  # noqa: F401
        from ray.rllib.algorithms.ppo import PPOConfig  # noqa: F401
    except ImportError as error:
        raise SystemExit(MISSING.format(name=error.name or error)) from None
    return ray


def build_parser():
    parser = base_parser(__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--env", default=ENV_ID, help=f"env id to train on (default {ENV_ID})")
    parser.add_argument("--iterations", type=int, default=None,
                        help=f"training iterations (default {BUDGET['full'][0]}, --quick {BUDGET['quick'][0]})")
    parser.add_argument("--batch", type=int, default=None,
                        help=f"env steps per iteration (default {BUDGET['full'][1]}, --quick {BUDGET['quick'][1]})")
    parser.add_argument("--num-env-runners", type=int, default=2, help="Ray actors that sample games (default 2)")
    parser.add_argument("--address", default=None,
                        help="the Ray cluster to join, e.g. 10.0.0.1:6379 (default: start a local Ray)")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (default 0.001)")
    parser.add_argument("--hidden", default="128,128", help="hidden layer sizes (default 128,128)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads of the learner (default 1)")
    parser.set_defaults(workers=2)
    add_plot_option(parser, "results/rllib_curve.png")
    return parser


def win_rates(env_id: str, agent: Any, games: int, seed: int, workers: int,
              on_ray: bool = True) -> dict[str, dict[str, Any]]:
    """The agent against ``random`` and ``heuristic``, seats rotated: its win rate, or in a
    cooperative game the team win rate of the agent in every seat beside each baseline team's.
    ``on_ray``: as Ray tasks, ``workers`` at a time; else in this process."""
    import fox_envs

    game = fox_envs.make_game(env_id)
    where = {"workers": workers, "backend": "ray"} if on_ray else {"workers": 1}
    rates = {}
    if game.zero_sum:
        for k, opponent in enumerate(("random", "heuristic")):
            result = fox_envs.evaluate(env_id, [agent] + [opponent] * (game.num_players - 1),
                                       num_games=games, seed=seed + k, **where)
            mine = result.results[0]
            rates[opponent] = rate_record(mine.wins, mine.draws, mine.losses)
        return rates
    for name, team in (("learner team", agent), ("random team", "random"), ("heuristic team", "heuristic")):
        result = fox_envs.evaluate(env_id, [team], num_games=games, seed=seed, **where)
        rates[name] = rate_record(result.team_wins, 0, result.num_games - result.team_wins)
    return rates


def print_rates(title: str, rates: dict[str, dict[str, Any]]) -> None:
    print(title)
    for name, record in rates.items():
        print(f"  {'vs ' if 'team' not in name else ''}{name:<14} win rate {format_rate(record)}")


def progress_line(iteration: int, result: dict[str, Any], seconds: float) -> str:
    from fox_envs.integrations.rllib import SHARED_POLICY

    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(SHARED_POLICY, {})
    return (f"iter {iteration:>3}: {int(runners.get('num_env_steps_sampled_lifetime', 0)):>7} env steps, "
            f"{int(runners.get('num_episodes_lifetime', 0)):>5} games, mean length "
            f"{float(runners.get('episode_len_mean', float('nan'))):5.1f}, policy loss "
            f"{float(learner.get('policy_loss', float('nan'))):+.4f}, vf loss {float(learner.get('vf_loss', float('nan'))):.4f}, "
            f"entropy {float(learner.get('entropy', float('nan'))):.3f}  ({seconds:.0f}s)")


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Train, print progress and the win rates before and after, and return them."""
    args = build_parser().parse_args(argv)
    ray = require_rllib()
    import torch

    import fox_envs
    from fox_envs.integrations.rllib import SHARED_POLICY, RLModuleAgent, self_play_ppo_config

    fox_envs.make_game(args.env)  # an unknown id fails here, before Ray starts
    torch.set_num_threads(max(1, args.threads))
    iterations = pick(args.iterations, args.quick, *(BUDGET[mode][0] for mode in ("quick", "full")))
    batch = pick(args.batch, args.quick, *(BUDGET[mode][1] for mode in ("quick", "full")))
    games = pick(args.eval_games, args.quick, 60, 400)
    hidden = tuple(int(size) for size in args.hidden.split(",") if size)
    timer = Timer()
    started = not ray.is_initialized()  # a Ray already initialised in this process is used and left running
    if started:
        ray.init(address=args.address, include_dashboard=False)
    try:
        print(f"{args.env} self-play PPO on Ray ({ray.cluster_resources().get('CPU', 0):.0f} CPUs): {iterations} "
              f"iterations of {batch} env steps, {args.num_env_runners} env runners, seed {args.seed}, "
              f"{games} evaluation games per opponent")
        config = (self_play_ppo_config(args.env, args.num_env_runners, hidden)
                  .training(lr=args.lr, train_batch_size_per_learner=batch, minibatch_size=min(256, batch),
                            num_epochs=5, entropy_coeff=0.01)
                  .debugging(seed=args.seed))
        algo = config.build_algo()
        untrained = RLModuleAgent(copy.deepcopy(algo.get_module(SHARED_POLICY)), name="ppo")
        train_timer = Timer()
        midway, curve = iterations // 2, []
        for iteration in range(1, iterations + 1):
            print(progress_line(iteration, algo.train(), train_timer.seconds), flush=True)
            if iteration == midway:  # one learning-curve point halfway, a quarter of the games, played
                # here: the env runners hold their CPUs until algo.stop(), so Ray tasks could wait forever
                rates = win_rates(args.env, RLModuleAgent(copy.deepcopy(algo.get_module(SHARED_POLICY)), name="ppo"),
                                  max(10, games // 4), args.seed + 1000, args.workers, on_ray=False)
                curve.append(curve_point(iteration, rates))
                print_rates(f"  halfway, greedy policy ({max(10, games // 4)} games each):", rates)
        results = {"train_seconds": train_timer.seconds}
        trained = RLModuleAgent(copy.deepcopy(algo.get_module(SHARED_POLICY)), name="ppo")
        algo.stop()  # frees the env runners' CPUs for the evaluation tasks
        results["before"] = win_rates(args.env, untrained, games, args.seed + 1000, args.workers)
        print_rates("the untrained network:", results["before"])
        results["after"] = win_rates(args.env, trained, games, args.seed + 1000, args.workers)
        print_rates(f"after {iterations} iterations ({results['train_seconds']:.0f}s of training):", results["after"])
        curve = [curve_point(0, results["before"]), *curve, curve_point(iterations, results["after"])]
        results["curve"] = curve
        labels = None if fox_envs.make_game(args.env).zero_sum else {name: name for name in results["after"]}
        write_learning_curve(curve, args.plot, f"{args.env} self-play PPO on Ray RLlib, seed {args.seed}",
                             x_label=f"training iterations ({batch} env steps each)", labels=labels)
    finally:
        if started:
            ray.shutdown()
    results["seconds"] = timer.seconds
    print(f"wall time {timer.seconds:.1f}s")
    return results


if __name__ == "__main__":
    main()
