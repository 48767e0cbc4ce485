"""MaskablePPO (sb3-contrib) on the single-agent Gymnasium view of Outfox: first against
``random``, then against ``heuristic``.

    pip install -e '.[train]'        # torch (CPU build), stable-baselines3, sb3-contrib
    python examples/train_maskable_ppo.py [--quick] [--seed 0] [--random-steps N] [--heuristic-steps N]
    python examples/train_maskable_ppo.py --env xceter_o_v0     # the same on X-Ceter-O

The learner plays ``gymnasium.make("fox_envs/Outfox-v0", opponent=..., seat=s)``: half of the
vectorised environments seat it as player_0, half as player_1. The legal-action mask comes from
the env's ``action_masks()`` method (the sb3-contrib convention), so the policy never picks an
illegal action. The observation is the (5, 5, 40) board tensor, flattened by ``MlpPolicy``;
the reward is +1 / -1 at the end of the game.

Phase 1 trains against ``random``, phase 2 continues against ``heuristic`` (the network and
optimiser carry over). Before training and after each phase the script prints the greedy
policy's win rate against ``random`` and ``heuristic`` (``fox_envs.evaluation.evaluate``, seats
rotated, Wilson 95 % intervals; played in this process, ``--workers`` is not used).
``--save model.zip`` keeps the SB3 model.

Measured (docs/training.md): at these budgets PPO does not measurably improve on Outfox, where a
win is a precise place-then-slide combination, while on X-Ceter-O the same pipeline goes from
0.42 to 0.81 against random in 50,000 steps.

Install torch as the CPU build (``pip install torch==2.13.0`` from a CPU wheel index or a local
CPU wheel) before ``sb3-contrib``, so pip does not pull a CUDA build.
"""
from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from typing import Any, Sequence

from examples._common import Timer, against_baselines, base_parser, pick, print_before_after, print_rates

ENV_ID = "outfox_v0"
MISSING = (
    "this example needs the optional 'train' extra (torch, stable-baselines3, sb3-contrib):\n"
    "  pip install torch==2.13.0   # a CPU build of torch first (never a CUDA build)\n"
    "  pip install -e '.[train]'\n"
    "(missing: {name})"
)


def require_sb3():
    """Import sb3-contrib or exit with a clear message."""
    try:
        import torch  # noqa: F401
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.vec_env import DummyVecEnv
    except ImportError as error:
        raise SystemExit(MISSING.format(name=error.name or error)) from None
    return MaskablePPO, DummyVecEnv


class MaskedPolicyAgent:
    """A trained MaskablePPO model as a fox_envs agent: the greedy (most probable) legal action
    for the player's observation tensor and legal-action mask."""

    name = "ppo"

    def __init__(self, model) -> None:
        self.model = model

    def act(self, state, player: int) -> int:
        action, _ = self.model.predict(state.observation_tensor(player), deterministic=True,
                                       action_masks=state.legal_actions_mask().astype(bool))
        return int(action)


def board_cnn_class():
    """A features extractor for (rows, columns, planes) board tensors: two 3x3 convolutions
    (a 3x3 kernel covers three points in a row along every axis of the X-Ceter-O grid and of the
    Outfox hex lattice in axial coordinates) and a linear layer."""
    import torch
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    class BoardCNN(BaseFeaturesExtractor):
        def __init__(self, observation_space, channels: int = 64, features_dim: int = 256) -> None:
            super().__init__(observation_space, features_dim)
            rows, columns, planes = observation_space.shape
            self.convolutions = torch.nn.Sequential(
                torch.nn.Conv2d(planes, channels, 3, padding=1), torch.nn.ReLU(),
                torch.nn.Conv2d(channels, channels, 3, padding=1), torch.nn.ReLU(),
                torch.nn.Flatten(),
            )
            self.linear = torch.nn.Sequential(torch.nn.Linear(channels * rows * columns, features_dim), torch.nn.ReLU())

        def forward(self, observations):
            return self.linear(self.convolutions(observations.permute(0, 3, 1, 2)))

    return BoardCNN


def make_vec_env(opponent: str, n_envs: int, seed: int, env_id: str = ENV_ID):
    """``n_envs`` Gymnasium views with the learner in alternating seats."""
    import gymnasium as gym

    from fox_envs.core.registry import entry  # importing fox_envs registers the gym ids

    _, DummyVecEnv = require_sb3()
    gym_id = "fox_envs/" + entry(env_id).gym_id

    def factory(seat: int):
        return lambda: gym.make(gym_id, opponent=opponent, seat=seat)

    vec = DummyVecEnv([factory(k % 2) for k in range(n_envs)])
    vec.seed(seed)
    return vec


def build_parser():
    parser = base_parser(__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--random-steps", type=int, default=None,
                        help="phase 1 timesteps against random (default 120000; 12000 with --quick)")
    parser.add_argument("--heuristic-steps", type=int, default=None,
                        help="phase 2 timesteps against heuristic (default 30000; 3000 with --quick)")
    parser.add_argument("--env", default=ENV_ID, choices=("outfox_v0", "outwit_v0", "xceter_o_v0"),
                        help=f"two-player game to train on (default {ENV_ID})")
    parser.add_argument("--envs", type=int, default=8, help="environments stepped together in one process (default 8)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--learning-rate", type=float, default=3e-4, help="Adam learning rate (default 0.0003)")
    parser.add_argument("--n-steps", type=int, default=256, help="rollout steps per env between updates (default 256)")
    parser.add_argument("--batch-size", type=int, default=256, help="minibatch size (default 256)")
    parser.add_argument("--epochs", type=int, default=10, help="optimisation epochs per rollout (default 10)")
    parser.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus (default 0.01)")
    parser.add_argument("--policy", choices=("mlp", "cnn"), default="mlp",
                        help="mlp: the flattened tensor into the layers of --net; cnn: two 3x3 convolutions "
                             "over the board planes first (default mlp)")
    parser.add_argument("--net", default="256,256", help="hidden layer sizes of the policy and value nets (default 256,256)")
    parser.add_argument("--save", metavar="PATH.zip", help="save the trained SB3 model here")
    return parser


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Train in two phases, print win rates before and after each, and return them."""
    args = build_parser().parse_args(argv)
    MaskablePPO, _ = require_sb3()
    import torch

    torch.set_num_threads(max(1, args.threads))
    random_steps = pick(args.random_steps, args.quick, 12000, 120000)
    heuristic_steps = pick(args.heuristic_steps, args.quick, 3000, 30000)
    games = pick(args.eval_games, args.quick, 100, 200)
    timer = Timer()
    print(f"{args.env} MaskablePPO: {random_steps} steps vs random, then {heuristic_steps} vs heuristic, "
          f"seed {args.seed}, {games} evaluation games per opponent")
    env = make_vec_env("random", args.envs, args.seed, args.env)
    policy_kwargs: dict[str, Any] = {"net_arch": [int(size) for size in args.net.split(",") if size]}
    if args.policy == "cnn":
        policy_kwargs["features_extractor_class"] = board_cnn_class()
    model = MaskablePPO(
        "MlpPolicy", env, learning_rate=args.learning_rate, n_steps=args.n_steps, batch_size=args.batch_size,
        n_epochs=args.epochs, gamma=1.0, gae_lambda=0.95, ent_coef=args.ent_coef,
        policy_kwargs=policy_kwargs, seed=args.seed,
        verbose=0, device="cpu",
    )
    agent = MaskedPolicyAgent(model)
    results = {"before": against_baselines(args.env, agent, games, args.seed + 1000, 1)}
    print_rates("before training (untrained network):", results["before"])
    phases = [("random", random_steps), ("heuristic", heuristic_steps)]
    seconds = {}
    for k, (opponent, steps) in enumerate(phases):
        if steps <= 0:
            continue
        if k:
            model.set_env(make_vec_env(opponent, args.envs, args.seed + k, args.env))
        phase_timer = Timer()
        model.learn(total_timesteps=steps, reset_num_timesteps=(k == 0))
        seconds[opponent] = phase_timer.seconds
        results[f"after {opponent}"] = against_baselines(args.env, agent, games, args.seed + 1000, 1)
        print_rates(f"after {steps} steps against {opponent} ({seconds[opponent]:.0f}s):", results[f"after {opponent}"])
    final = results.get("after heuristic", results.get("after random", results["before"]))
    print_before_after(results["before"], final)
    if "after random" in results and "after heuristic" in results:
        print("  (after the random phase: " + ", ".join(
            f"vs {o} {r['win_rate']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"
            for o, r in results["after random"].items()) + ")")
    if args.save:
        model.save(args.save)
        print(f"saved the SB3 model to {args.save} (MaskablePPO.load)")
    print(f"wall time {timer.seconds:.1f}s")
    return {**results, "train_seconds": seconds, "seconds": timer.seconds, "model": model}


if __name__ == "__main__":
    main()
