"""The least a JAX step can cost with a game's state shapes, beside Pgx's whole step, in one run.
No timed assertions anywhere: this script only measures.

    python benchmarks/jax_floor.py                       # Outwit's shapes, B = 4,096, against Pgx othello
    python benchmarks/jax_floor.py --game outfoxed_v0 --sizes 1024 4096

A *floor* step keeps only the two arrays Pgx's API fixes for every game, the bool mask
``[num_actions]`` and the float32 observation (the rules core's), and does no rules at all: it flips the mask and
adds the action to the observation, so both are rewritten, as a real step rewrites them. It runs
exactly as ``jax_bench.py`` runs an env (``fox_envs.jax.random_legal_action`` picks, one
``jit(vmap(...))`` call per batch step), once with the picker and once with action 0 (the mask
and the observation only). Beside it, in the same process and the same way: the game's own env
and Pgx's (``othello`` by default). The steps take turns, span by span, and each keeps its best
span. If the floor with the picker is slower than Pgx's whole step,
no implementation of the game with those arrays can match Pgx on this machine.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path
from typing import Any, Callable

import jax
import jax.numpy as jnp

import fox_envs.jax

sys.path.insert(0, str(Path(__file__).resolve().parent))
from jax_bench import pgx_env, random_play_step  # noqa: E402  (the same step as the benchmark's)


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class FloorState:
    legal_action_mask: jax.Array
    observation: jax.Array


class FloorEnv:
    """A game's mask and observation shapes, and nothing else: no rules."""

    def __init__(self, num_actions: int, observation_shape: tuple[int, ...]) -> None:
        self.num_actions = num_actions
        self.observation_shape = observation_shape

    def init(self, key: jax.Array) -> FloorState:
        mask = jnp.ones(self.num_actions, jnp.bool_).at[0].set(key[0] % 2 == 0)
        return FloorState(mask, jnp.zeros(self.observation_shape, jnp.float32))

    def step(self, state: FloorState, action: jax.Array, key: jax.Array | None = None) -> FloorState:
        """Both arrays rewritten: the mask flipped (action 0 stays legal), the action added to the
        observation."""
        mask = ~state.legal_action_mask | (jnp.arange(self.num_actions) == 0)
        return FloorState(mask, state.observation + action.astype(jnp.float32))


def plain_step(step: Callable, init: Callable) -> Callable:
    """No reset: a floor game never ends."""
    return step


def fixed_action_step(env: Any, num_envs: int) -> Callable:
    """One jitted batch step that plays action 0 in every row (no picker)."""

    def batch_step(state: Any, key: jax.Array) -> tuple[Any, jax.Array]:
        return jax.vmap(lambda s: env.step(s, jnp.int32(0)))(state), key

    return jax.jit(batch_step)


class Timer:
    """One step function on its own state, timed span by span (best span kept)."""

    def __init__(self, step_all: Callable, env: Any, num_envs: int) -> None:
        self.step_all, self.key = step_all, jax.random.PRNGKey(0)
        self.state = jax.jit(jax.vmap(env.init))(jax.random.split(self.key, num_envs))
        for _ in range(3):  # compiles
            self.state, self.key = step_all(self.state, self.key)
        jax.block_until_ready(self.state)
        self.best = float("inf")

    def span(self, seconds: float) -> None:
        """Play for ``seconds``; keep the milliseconds per batch step if it is the best so far."""
        calls, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            for _ in range(5):
                self.state, self.key = self.step_all(self.state, self.key)
            jax.block_until_ready(self.state.observation)
            calls += 5
        self.best = min(self.best, (time.perf_counter() - start) / calls * 1e3)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="outwit_v0", choices=list(fox_envs.jax.env_ids()))
    parser.add_argument("--sizes", nargs="*", type=int, default=[4096])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per span")
    parser.add_argument("--rounds", type=int, default=5, help="alternating spans per step; the best is kept")
    parser.add_argument("--pgx-game", default="othello", help="the Pgx anchor (when pgx is installed)")
    args = parser.parse_args(argv)
    game = fox_envs.jax.make(args.game)
    floor = FloorEnv(game.num_actions, game.observation_shape)
    steps: dict[str, Callable[[int], tuple[Callable, Any]]] = {
        f"{args.game} (the env)": lambda b: (random_play_step(game, fox_envs.jax.auto_reset, b), game),
        "floor: mask + observation + picker": lambda b: (random_play_step(floor, plain_step, b), floor),
        "floor: mask + observation": lambda b: (fixed_action_step(floor, b), floor),
    }
    made = pgx_env(args.pgx_game)
    if made is not None:
        steps[f"pgx {args.pgx_game} (the env)"] = lambda b: (random_play_step(*made, b), made[0])
    device = jax.devices()[0]
    print(f"jax {jax.__version__} on {device.platform}; {args.game}: {game.num_actions} actions, observation "
          f"{game.observation_shape} float32; best of {args.rounds} alternating spans of {args.seconds} s")
    results: dict[str, dict[int, float]] = {}
    for size in args.sizes:
        timers = {name: Timer(*make(size), size) for name, make in steps.items()}
        for _ in range(args.rounds):
            for timer in timers.values():
                timer.span(args.seconds)
        for name, timer in timers.items():
            results.setdefault(name, {})[size] = timer.best
    print("\n| step | " + " | ".join(f"ms per batch step, B={b}" for b in args.sizes) + " |")
    print("|---|" + "---:|" * len(args.sizes))
    for name, by_size in results.items():
        print(f"| {name} | " + " | ".join(f"{by_size[b]:.2f}" for b in args.sizes) + " |")
    return results


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
