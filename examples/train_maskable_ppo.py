"""MaskablePPO (sb3-contrib) on the single-agent Gymnasium view of Outfox: first against
``random``, then against ``heuristic``.

    pip install -e '.[train]'        # torch (CPU build), stable-baselines3, sb3-contrib
    python examples/train_maskable_ppo.py [--quick] [--seed 0] [--random-steps N] [--heuristic-steps N]
    python examples/train_maskable_ppo.py --env xceter_o_v0     # the same on X-Ceter-O

The learner plays ``gymnasium.make("fox_envs/Outfox-v0", opponent=..., seat=s)``: half of the
vectorised environments seat it as player_0, half as player_1. The legal-action mask comes from
the env's ``action_masks()`` method (the sb3-contrib convention), so the policy never picks an
illegal action; the reward is +1 / -1 at the end of the game.

On Outfox the defaults are a point-by-point convolutional policy
(``fox_envs/games/outfox/board_policy.py``: placement logits from each point's
features, slide logits from a bilinear score of origin and destination) over the observation
plus ten feature planes (``fox_envs/games/outfox/planes.py``: where each piece type
would complete a line, and the pieces of a line already on the board),
with short rollouts, many updates and gamma 0.9. Elsewhere the policy is SB3's ``MlpPolicy``
on the flattened tensor. ``--policy`` / ``--features`` / the PPO options override the defaults.

Phase 1 trains against ``random``, phase 2 continues against ``heuristic`` (the network and
optimiser carry over). Before training and after each phase the script prints the greedy
policy's win rate against ``random`` and ``heuristic`` (``fox_envs.evaluation.evaluate``, seats
rotated, Wilson 95 % intervals; played in this process, ``--workers`` is not used).
``--save model.zip`` keeps the SB3 model and writes ``model.json`` beside it, a policy file that
``python -m fox_envs arena outfox_v0 model.json heuristic --trust-code`` loads by path (an SB3
model is unpickled, so it is code: load only your own). Measured results are
in docs/training.md.

Progress: a line about every tenth of each phase (steps done, the learner's wins among the
training games since the last line, the time), and halfway through each phase the greedy
policy's win rates (a quarter of the evaluation games) for the learning curve (``--plot``).

Measured run times (seed 0, a shared 2-core machine at load average 4-15, so wall time is
mostly waiting for a CPU): ``--quick`` on Outfox (40,000 + 5,000 steps, 100 evaluation games
per opponent) 3 min 49 s wall, 49 s CPU (phase 1: 179 s wall); ``--quick --env xceter_o_v0``
21 s wall, 10 s CPU; the full Outfox run (150,000 + 50,000 steps, 200 games) 4 min 37 s wall, 201 s CPU
(load average 4-7).

Install torch as the CPU build (``pip install torch==2.13.0`` from a CPU wheel index or a local
CPU wheel) before ``sb3-contrib``, so pip does not pull a CUDA build.
"""
from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from typing import Any, Callable, Sequence

from examples._common import (
    Timer, add_plot_option, against_baselines, base_parser, curve_point, pick, print_before_after, print_rates,
    write_learning_curve,
)
from fox_envs.agents.trained.sb3_policy import (  # noqa: F401  (the policy lives in the package)
    MaskedPolicyAgent, load_agent, observe_function, save_maskable_ppo,
)

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


def make_vec_env(opponent: str, n_envs: int, seed: int, env_id: str = ENV_ID, features: str = "none"):
    """``n_envs`` Gymnasium views with the learner in alternating seats (``features="lines"``:
    Outfox's completion planes appended, ``fox_envs/games/outfox/planes.py``)."""
    import gymnasium as gym

    from fox_envs.core.registry import spec  # importing fox_envs registers the gym ids

    _, DummyVecEnv = require_sb3()
    gym_id = "fox_envs/" + spec(env_id).gym_id

    def factory(seat: int):
        def make():
            view = gym.make(gym_id, opponent=opponent, seat=seat)
            if features == "lines":
                from fox_envs.games.outfox.planes import LinePlanes

                view = LinePlanes(view)
            return view
        return make

    vec = DummyVecEnv([factory(k % 2) for k in range(n_envs)])
    vec.seed(seed)
    return vec


# Defaults per game (any of them can be set on the command line). Outfox: the point-by-point
# board policy, the completion feature planes, short rollouts with many updates and gamma 0.9,
# which makes winning now worth more than winning later (docs/training.md has the trials).
PRESETS: dict[str, dict[str, Any]] = {
    "outfox_v0": {"policy": "board", "features": "lines", "learning_rate": 1e-3, "n_steps": 64,
                  "batch_size": 128, "epochs": 4, "gamma": 0.9},
    "other": {"policy": "mlp", "features": "none", "learning_rate": 3e-4, "n_steps": 256,
              "batch_size": 256, "epochs": 10, "gamma": 1.0},
}


# Training steps per phase: (against random, against heuristic), with --quick and without.
STEPS = {"outfox_v0": {"quick": (40000, 5000), "full": (150000, 50000)},
         "other": {"quick": (12000, 3000), "full": (120000, 30000)}}


def settings(args) -> dict[str, Any]:
    """The preset of ``args.env`` overridden by the options given on the command line."""
    preset = PRESETS.get(args.env, PRESETS["other"])
    chosen = {key: value if getattr(args, key) is None else getattr(args, key) for key, value in preset.items()}
    if args.env != "outfox_v0" and (chosen["policy"] == "board" or chosen["features"] == "lines"):
        raise SystemExit(f"--policy board and --features lines are for outfox_v0 (its board and actions), not {args.env}")
    return chosen


def progress_callback(steps: int, opponent: str, checkpoint: Callable[[int], None] | None = None):
    """An SB3 callback for one phase of ``steps`` env steps: about every tenth of the phase it
    prints the steps done, the learner's wins among the training games finished since the last
    line and the time; once half the phase is done it calls ``checkpoint(total env steps)``
    (a learning-curve evaluation; greedy play changes no training state)."""
    from stable_baselines3.common.callbacks import BaseCallback

    every = max(1, steps // 10)

    class PhaseProgress(BaseCallback):
        def _on_training_start(self) -> None:
            self.start, self.next_line, self.checked = self.num_timesteps, every, checkpoint is None
            self.wins = self.games = 0
            self.timer = Timer()

        def _on_step(self) -> bool:
            for reward, done in zip(self.locals["rewards"], self.locals["dones"]):
                if done:
                    self.games += 1
                    self.wins += bool(reward > 0)
            return True

        def _on_rollout_end(self) -> None:
            done = self.num_timesteps - self.start
            if done >= self.next_line:
                rate = f"{self.wins / self.games:.3f}" if self.games else "-"
                print(f"  {done:>7}/{steps} steps vs {opponent}: training games won {self.wins}/{self.games} "
                      f"({rate})  ({self.timer.seconds:.0f}s)", flush=True)
                self.next_line += every
                self.wins = self.games = 0
            if not self.checked and done >= steps // 2:
                self.checked = True
                checkpoint(self.num_timesteps)

    return PhaseProgress()


def build_parser():
    parser = base_parser(__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--random-steps", type=int, default=None,
                        help="phase 1 timesteps against random (Outfox 150000, --quick 40000; else 120000, "
                             "--quick 12000)")
    parser.add_argument("--heuristic-steps", type=int, default=None,
                        help="phase 2 timesteps against heuristic (Outfox 50000, --quick 5000; else 30000, "
                             "--quick 3000)")
    parser.add_argument("--env", default=ENV_ID, choices=("outfox_v0", "outwit_v0", "xceter_o_v0"),
                        help=f"two-player game to train on (default {ENV_ID})")
    parser.add_argument("--envs", type=int, default=8, help="environments stepped together in one process (default 8)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--learning-rate", type=float, default=None, help="Adam learning rate (Outfox 0.001, else 0.0003)")
    parser.add_argument("--n-steps", type=int, default=None, help="rollout steps per env between updates (Outfox 64, else 256)")
    parser.add_argument("--batch-size", type=int, default=None, help="minibatch size (Outfox 128, else 256)")
    parser.add_argument("--epochs", type=int, default=None, help="optimisation epochs per rollout (Outfox 4, else 10)")
    parser.add_argument("--gamma", type=float, default=None, help="discount (Outfox 0.9, else 1)")
    parser.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus (default 0.01)")
    parser.add_argument("--policy", choices=("board", "mlp", "cnn"), default=None,
                        help="board (Outfox only, its default): convolutions and action logits computed point by "
                             "point (fox_envs/games/outfox/board_policy.py); mlp (the default elsewhere): "
                             "the flattened tensor into the layers of --net; cnn: two 3x3 convolutions over the "
                             "board planes, then --net")
    parser.add_argument("--features", choices=("lines", "none"), default=None,
                        help="lines (Outfox only, its default): append the completion planes of "
                             "fox_envs/games/outfox/planes.py to the observation; none: the env's "
                             "tensor as it is")
    parser.add_argument("--channels", type=int, default=64, help="convolution channels of --policy board (default 64)")
    parser.add_argument("--layers", type=int, default=3, help="3x3 convolutions of --policy board (default 3)")
    parser.add_argument("--net", default="256,256", help="hidden layer sizes of --policy mlp/cnn (default 256,256)")
    parser.add_argument("--save", metavar="PATH.zip",
                        help="save the trained SB3 model here, and beside it PATH.json, a policy file that "
                             "python -m fox_envs arena loads by path with --trust-code")
    add_plot_option(parser, "results/maskable_ppo_curve.png")
    return parser


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Train in two phases, print win rates before and after each, and return them."""
    args = build_parser().parse_args(argv)
    MaskablePPO, _ = require_sb3()
    import torch

    torch.set_num_threads(max(1, args.threads))
    steps = STEPS.get(args.env, STEPS["other"])
    random_steps = pick(args.random_steps, args.quick, steps["quick"][0], steps["full"][0])
    heuristic_steps = pick(args.heuristic_steps, args.quick, steps["quick"][1], steps["full"][1])
    games = pick(args.eval_games, args.quick, 100, 200)
    timer = Timer()
    print(f"{args.env} MaskablePPO: {random_steps} steps vs random, then {heuristic_steps} vs heuristic, "
          f"seed {args.seed}, {games} evaluation games per opponent")
    chosen = settings(args)
    print("  " + ", ".join(f"{key} {value}" for key, value in chosen.items()))
    env = make_vec_env("random", args.envs, args.seed, args.env, chosen["features"])
    policy_class: Any = "MlpPolicy"
    policy_kwargs: dict[str, Any] = {"net_arch": [int(size) for size in args.net.split(",") if size]}
    if chosen["policy"] == "cnn":
        policy_kwargs["features_extractor_class"] = board_cnn_class()
    elif chosen["policy"] == "board":
        from fox_envs.games.outfox.board_policy import BoardPolicy

        policy_class = BoardPolicy
        policy_kwargs = {"features_extractor_kwargs": {"channels": args.channels, "layers": args.layers}}
    model = MaskablePPO(
        policy_class, env, learning_rate=chosen["learning_rate"], n_steps=chosen["n_steps"],
        batch_size=chosen["batch_size"], n_epochs=chosen["epochs"], gamma=chosen["gamma"], gae_lambda=0.95,
        ent_coef=args.ent_coef, policy_kwargs=policy_kwargs, seed=args.seed, verbose=0, device="cpu",
    )
    agent = MaskedPolicyAgent(model, observe_function(chosen["features"]))
    results = {"before": against_baselines(args.env, agent, games, args.seed + 1000, 1)}
    print_rates("before training (untrained network):", results["before"])
    curve = [curve_point(0, results["before"])]
    curve_games = max(10, games // 4)

    def checkpoint(done: int) -> None:
        rates = against_baselines(args.env, agent, curve_games, args.seed + 1000, 1)
        curve.append(curve_point(done, rates))
        print("    greedy policy: " + ", ".join(f"vs {o} {r['win_rate']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"
                                             for o, r in rates.items()) + f" ({curve_games} games each)", flush=True)

    phases = [("random", random_steps), ("heuristic", heuristic_steps)]
    seconds = {}
    for k, (opponent, steps) in enumerate(phases):
        if steps <= 0:
            continue
        if k:
            model.set_env(make_vec_env(opponent, args.envs, args.seed + k, args.env, chosen["features"]))
        phase_timer = Timer()
        model.learn(total_timesteps=steps, reset_num_timesteps=(k == 0),
                    callback=progress_callback(steps, opponent, checkpoint))
        seconds[opponent] = phase_timer.seconds
        results[f"after {opponent}"] = against_baselines(args.env, agent, games, args.seed + 1000, 1)
        curve.append(curve_point(model.num_timesteps, results[f"after {opponent}"]))
        print_rates(f"after {steps} steps against {opponent} ({seconds[opponent]:.0f}s):", results[f"after {opponent}"])
    final = results.get("after heuristic", results.get("after random", results["before"]))
    print_before_after(results["before"], final)
    if "after random" in results and "after heuristic" in results:
        print("  (after the random phase: " + ", ".join(
            f"vs {o} {r['win_rate']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"
            for o, r in results["after random"].items()) + ")")
    write_learning_curve(curve, args.plot, f"{args.env} MaskablePPO, seed {args.seed}",
                         x_label=f"training env steps ({random_steps} vs random, then {heuristic_steps} vs heuristic)")
    if args.save:
        policy_file = save_maskable_ppo(model, args.save, args.env, chosen["features"], chosen["policy"])
        print(f"saved the SB3 model to {args.save} (MaskablePPO.load) and the policy file {policy_file}:\n"
              f"  python -m fox_envs arena {args.env} {policy_file} heuristic --games 100")
    print(f"wall time {timer.seconds:.1f}s")
    return {**results, "curve": curve, "train_seconds": seconds, "seconds": timer.seconds, "model": model, "agent": agent}


if __name__ == "__main__":
    main()
