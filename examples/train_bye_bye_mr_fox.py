"""An afterstate TD(lambda) learner for the cooperative Bye Bye Mr. Fox! (numpy only).

    python examples/train_bye_bye_mr_fox.py [--quick] [--seed 0] [--episodes N]

Every decision of the team (where to put the flipped token, which nest gets an egg at the
three-hens space) leads to an *afterstate*: the board right after the decision, before the
spinner (or the next flip). The learner estimates the probability of winning from an afterstate
with a small numpy network (the afterstate's observation tensor, a "spin pending" flag and the
spinner's pairings read off it -> 64 tanh units -> sigmoid; see ``features``) and plays the
decision with the highest estimate (epsilon-greedy while training). After each game the
afterstates it went through get lambda-returns as targets (the final result is 1 for a win, 0
for a loss; earlier ones mix in the network's estimate of the next afterstate) and the network
takes Adam steps on the cross-entropy.

Training plays whole games through the PettingZoo AEC API (``fox_envs.make``), one learner in
every seat (the game is cooperative and fully observed, so the team is one decision maker);
afterstates are computed on the rules-core state ``env.unwrapped.game_state`` with
``clone()`` / ``apply_action``.

It prints the team win rate (``fox_envs.evaluation.evaluate``, Wilson 95 % intervals) of the
learner in every seat and of the learner paired with a ``random`` or ``heuristic`` partner
(seats rotated), before and after training, next to an all-``random`` and an all-``heuristic``
team. Progress: a line every fifth of training with those team win rates (a quarter of the
evaluation games); the learning curve goes to ``--plot``.

Measured run times (seed 0, a shared 2-core machine at load average 7-17, so wall time is
mostly waiting for a CPU): ``--quick`` (5,000 games, 400 evaluation games per team) 97 s wall,
26 s CPU; the full run (40,000 games, 2,000 evaluation games per team) 7 min 31 s wall, 191 s
CPU.
"""
from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from typing import Any, Callable, Sequence

import numpy as np

from examples._common import (
    Timer, add_plot_option, base_parser, curve_point, curve_recorder, format_rate, pick, print_before_after, team,
    write_learning_curve,
)
from fox_envs.games.bye_bye_mr_fox.trained_td import (  # noqa: F401  (the policy lives in the package)
    ENV_ID, FACTORY, NUM_FEATURES, AfterstateAgent, ValueNet, afterstates, choose, features, load_agent,
)


# ----- training -----------------------------------------------------------------------------------
def lambda_returns(values: np.ndarray, outcome: float, lam: float) -> np.ndarray:
    """Targets ``G_t = (1 - lam) V_{t+1} + lam G_{t+1}`` with ``G_T = outcome`` (no discount:
    only winning counts, however late)."""
    targets = np.empty(len(values))
    g = outcome
    for t in range(len(values) - 1, -1, -1):
        targets[t] = g
        g = (1.0 - lam) * values[t] + lam * g
    return targets


def train(episodes: int, seed: int = 0, lam: float = 0.7, epsilon_start: float = 0.1,
          epsilon_end: float = 0.01, batch_games: int = 8, lr: float = 3e-3, hidden: int = 64,
          net: ValueNet | None = None, log_every: int = 0,
          on_report: Callable[[int, ValueNet], None] | None = None) -> ValueNet:
    """Self-play TD(lambda) on afterstates for ``episodes`` games through the AEC env. Every
    ``log_every`` games it prints a progress line and calls ``on_report(games done, net)``."""
    import fox_envs

    env = fox_envs.make(ENV_ID)
    net = net or ValueNet(NUM_FEATURES, hidden, seed=seed, lr=lr)
    rng = np.random.default_rng(seed)
    batch_x: list[np.ndarray] = []
    batch_y: list[np.ndarray] = []
    wins = games = 0
    timer = Timer()
    for episode in range(episodes):
        epsilon = epsilon_start + (epsilon_end - epsilon_start) * episode / max(1, episodes - 1)
        env.reset(seed=int(rng.integers(2**31)))
        trajectory: list[np.ndarray] = []
        outcome = 0.0
        for agent in env.agent_iter():
            _, reward, termination, truncation, _ = env.last()
            if termination or truncation:
                outcome = 1.0 if reward > 0 else 0.0
                env.step(None)
                continue
            action, features, terminal = choose(net, env.unwrapped.game_state, rng, epsilon)
            if np.isnan(terminal):
                trajectory.append(features)
            env.step(action)
        wins += outcome > 0
        games += 1
        if trajectory:
            x = np.array(trajectory)
            batch_x.append(x)
            batch_y.append(lambda_returns(net.predict(x), outcome, lam))
        if len(batch_x) >= batch_games:
            net.update(np.concatenate(batch_x), np.concatenate(batch_y))
            batch_x, batch_y = [], []
        if log_every and (episode + 1) % log_every == 0:
            print(f"  episode {episode + 1:>7}: training win rate {wins / games:.3f} "
                  f"(epsilon {epsilon:.3f})  ({timer.seconds:.0f}s)", flush=True)
            wins = games = 0
            if on_report is not None:
                on_report(episode + 1, net)
    env.close()
    return net


# ----- evaluation and main ------------------------------------------------------------------------
def measure(agent: Any, games: int, seed: int, workers: int) -> dict[str, dict[str, Any]]:
    """Team win rates: the agent in every seat, and paired with a random / heuristic partner."""
    return {
        "alone": team(ENV_ID, [agent], games, seed, workers),
        "+ random": team(ENV_ID, [agent, "random"], games, seed + 1, workers),
        "+ heuristic": team(ENV_ID, [agent, "heuristic"], games, seed + 2, workers),
    }


def build_parser():
    parser = base_parser(__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--episodes", type=int, default=None,
                        help="training games (default 40000; 5000 with --quick)")
    parser.add_argument("--lam", type=float, default=0.7, help="lambda of the TD targets (default 0.7)")
    parser.add_argument("--lr", type=float, default=3e-3, help="Adam learning rate (default 0.003)")
    parser.add_argument("--hidden", type=int, default=64, help="hidden units (default 64)")
    parser.add_argument("--save", metavar="PATH.npz", help="write the learned network as a policy file")
    add_plot_option(parser, "results/bye_bye_mr_fox_curve.png")
    return parser


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Train, print the team win rates before and after, and return them (used by the tests)."""
    args = build_parser().parse_args(argv)
    episodes = pick(args.episodes, args.quick, 5000, 40000)
    games = pick(args.eval_games, args.quick, 400, 2000)
    timer = Timer()
    print(f"Bye Bye Mr. Fox! afterstate TD(lambda={args.lam}): {episodes} training games, seed {args.seed}, "
          f"{games} evaluation games per team")
    baselines = {"random team": team(ENV_ID, ["random"], games, args.seed + 1000, args.workers),
                 "heuristic team": team(ENV_ID, ["heuristic"], games, args.seed + 1000, args.workers)}
    print("baseline teams (every seat the same agent):")
    for name, record in baselines.items():
        print(f"  {name:<16} team win rate {format_rate(record)}")
    net = ValueNet(NUM_FEATURES, args.hidden, seed=args.seed, lr=args.lr)
    before = measure(AfterstateAgent(net), games, args.seed + 1000, args.workers)
    print("learner before training (untrained network):")
    for name, record in before.items():
        print(f"  learner {name:<12} team win rate {format_rate(record)}")
    curve = [curve_point(0, before, "games")]
    curve_games = max(20, games // 4)
    evaluate = curve_recorder(curve, lambda net: measure(AfterstateAgent(net), curve_games, args.seed + 1000,
                                                         args.workers),
                              f"greedy on the network, team win rate ({curve_games} games each)", prefix="learner ",
                              until=episodes)

    train_timer = Timer()
    net = train(episodes, seed=args.seed, lam=args.lam, lr=args.lr, net=net, log_every=max(1, episodes // 5),
                on_report=evaluate)
    train_seconds = train_timer.seconds
    print(f"trained in {train_seconds:.1f}s")
    after = measure(AfterstateAgent(net), games, args.seed + 1000, args.workers)
    print("learner after training (greedy on the network):")
    for name, record in after.items():
        print(f"  learner {name:<12} team win rate {format_rate(record)}")
    print_before_after(before, after, prefix="learner ")
    for name, record in baselines.items():
        low, high = record["ci95"]
        print(f"  {name:<20} {record['win_rate']:.3f} [{low:.3f}, {high:.3f}]")
    curve.append(curve_point(episodes, after, "games"))
    write_learning_curve(curve, args.plot, f"Bye Bye Mr. Fox! afterstate TD(lambda), seed {args.seed}", x="games",
                         x_label="training games", labels={name: f"learner {name}" for name in after},
                         y_label="team win rate (Wilson 95% interval)")
    if args.save:
        from fox_envs.agents import save_policy

        path = save_policy(args.save, FACTORY, ENV_ID, arrays=net.arrays())
        print(f"saved {path}; play it with:\n"
              f"  python -m fox_envs arena {ENV_ID} {path} --games 400")
    print(f"wall time {timer.seconds:.1f}s")
    return {"before": before, "after": after, "curve": curve, "baselines": baselines, "episodes": episodes,
            "train_seconds": train_seconds, "seconds": timer.seconds, "net": net}


if __name__ == "__main__":
    main()
