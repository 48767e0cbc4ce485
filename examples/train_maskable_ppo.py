"""MaskablePPO (sb3-contrib) on the single-agent Gymnasium view of Outfox: first against
``random``, then against ``heuristic``.

    pip install -e '.[train]'        # torch (CPU build), stable-baselines3, sb3-contrib
    python examples/train_maskable_ppo.py [--quick] [--seed 0] [--random-steps N] [--heuristic-steps N]

The learner plays ``gymnasium.make("fox_envs/Outfox-v0", opponent=..., seat=s)``: half of the
vectorised environments seat it as player_0, half as player_1. The legal-action mask comes from
the env's ``action_masks()`` method (the sb3-contrib convention), so the policy never picks an
illegal action. The observation is the (5, 5, 40) board tensor, flattened by ``MlpPolicy``;
the reward is +1 / -1 at the end of the game.

Phase 1 trains against ``random``, phase 2 continues against ``heuristic`` (the network and
optimiser carry over). Before training and after each phase the script prints the greedy
policy's win rate against ``random`` and ``heuristic`` (``fox_envs.evaluation.evaluate``, seats
rotated, Wilson 95 % intervals). ``--save model.zip`` keeps the SB3 model.

Install torch as the CPU build (``pip install torch==2.13.0`` from a CPU wheel index or a local
CPU wheel) before ``sb3-contrib``, so pip does not pull a CUDA build.
"""
from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from typing import Any, Sequence

import numpy as np

from examples._common import Timer, against_baselines, base_parser, pick, print_before_after, print_rates

ENV_ID = "outfox_v0"
GYM_ID = "fox_envs/Outfox-v0"
MISSING = (
    "this example needs the optional 'train' extra (torch, stable-baselines3, sb3-contrib):\n"
    "  pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu   # CPU build first\n"
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


def make_vec_env(opponent: str, n_envs: int, seed: int):
    """``n_envs`` Gymnasium views with the learner in alternating seats."""
    import gymnasium as gym

    import fox_envs  # noqa: F401  (registers the gym ids)

    _, DummyVecEnv = require_sb3()

    def factory(seat: int):
        return lambda: gym.make(GYM_ID, opponent=opponent, seat=seat)

    vec = DummyVecEnv([factory(k % 2) for k in range(n_envs)])
    vec.seed(seed)
    return vec


def build_parser():
    parser = base_parser(__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--random-steps", type=int, default=None,
                        help="phase 1 timesteps against random (default 150000; 20000 with --quick)")
    parser.add_argument("--heuristic-steps", type=int, default=None,
                        help="phase 2 timesteps against heuristic (default 100000; 8000 with --quick)")
    parser.add_argument("--envs", type=int, default=4, help="parallel (in-process) environments (default 4)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--save", metavar="PATH.zip", help="save the trained SB3 model here")
    return parser


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Train in two phases, print win rates before and after each, and return them."""
    args = build_parser().parse_args(argv)
    MaskablePPO, _ = require_sb3()
    import torch

    torch.set_num_threads(max(1, args.threads))
    random_steps = pick(args.random_steps, args.quick, 20000, 150000)
    heuristic_steps = pick(args.heuristic_steps, args.quick, 8000, 100000)
    games = pick(args.eval_games, args.quick, 100, 400)
    timer = Timer()
    print(f"Outfox MaskablePPO: {random_steps} steps vs random, then {heuristic_steps} vs heuristic, "
          f"seed {args.seed}, {games} evaluation games per opponent")
    env = make_vec_env("random", args.envs, args.seed)
    n_steps = 512 if not args.quick else 256
    model = MaskablePPO(
        "MlpPolicy", env, learning_rate=3e-4, n_steps=n_steps, batch_size=256, n_epochs=4, gamma=0.99,
        gae_lambda=0.95, ent_coef=0.01, policy_kwargs={"net_arch": [256, 256]}, seed=args.seed, verbose=0,
        device="cpu",
    )
    agent = MaskedPolicyAgent(model)
    results = {"before": against_baselines(ENV_ID, agent, games, args.seed + 1000, 1)}
    print_rates("before training (untrained network):", results["before"])
    phases = [("random", random_steps), ("heuristic", heuristic_steps)]
    seconds = {}
    for k, (opponent, steps) in enumerate(phases):
        if steps <= 0:
            continue
        if k:
            model.set_env(make_vec_env(opponent, args.envs, args.seed + k))
        phase_timer = Timer()
        model.learn(total_timesteps=steps, reset_num_timesteps=(k == 0))
        seconds[opponent] = phase_timer.seconds
        results[f"after {opponent}"] = against_baselines(ENV_ID, agent, games, args.seed + 1000, 1)
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
