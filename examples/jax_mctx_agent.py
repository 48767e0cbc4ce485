"""An ``mctx`` search agent that uses the JAX env itself as its model, against ``random``.

    python examples/jax_mctx_agent.py [--quick] [--seed 0] [--games xceter_o_v0,outwit_v0]
                                      [--simulations 32] [--batch N] [--value race]

``mctx.gumbel_muzero_policy`` searches from the real position: its ``recurrent_fn`` steps a copy
of the state with ``env.step`` (exact rules, no learned dynamics). The prior is uniform over the
legal moves (``invalid_actions = ~legal_action_mask`` at the root, illegal logits -1e9 below
it). Two-player zero-sum: the reward of an edge is the mover's, and the discount is -1 when the
next state's ``current_player`` is the other seat (+1 if the same seat moves again, 0 once the
game is over), so every node's value is from the side of the player to move there.

Leaf values (``--value``): ``rollout``, the mover's return of one random game played on for at
most ``--rollout-depth`` plies (X-Ceter-O's default: its games against random last about eight
plies); ``race`` (Outwit's default), the mover's race score minus the opponent's from the
observation planes: a chip in its corner counts 1 (a little more deeper in), a chip outside
loses a little per square to the corner (the built-in heuristic's distances); ``home``, the
chips-home count alone; or ``zero``. A random Outwit game takes about 200 decisions to end, so a
rollout per leaf would cost hundreds of steps; the race score costs one look at the planes.

``--batch`` games run at once under ``vmap`` (the agent holds seat 0 in the even-numbered
games, seat 1 in the odd ones), the whole match one jitted loop: each turn one search over the
batch, then the opponent's random legal reply (``make_match`` of examples/train_jax_ppo.py).
It prints the jax device, and per game the agent's win rate with its Wilson 95 % interval, the
draws and losses, the mean game length, wall and CPU time. The measured numbers are in
docs/training.md ("End to end in JAX").
"""
from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import argparse
from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from examples._common import format_rate, pick
from examples.train_jax_ppo import MASKED, Clock, counts_record, device_line, done, make_match, random_legal

GAMES = ("xceter_o_v0", "outwit_v0")
DEFAULT_VALUE = {"xceter_o_v0": "rollout", "outwit_v0": "race"}
DEFAULT_BATCH = {"xceter_o_v0": (100, 400), "outwit_v0": (8, 32)}  # games: --quick, full (an Outwit turn costs more)
ValueFn = Callable[[Any, jax.Array], jax.Array]  # (one state, key) -> value for its player to move


# ----- leaf values -----------------------------------------------------------------------------
def rollout_value(env: Any, depth: int) -> ValueFn:
    """The return, for the player to move, of random legal play for at most ``depth`` plies."""
    def value(state: Any, key: jax.Array) -> jax.Array:
        player = state.current_player

        def ply(_: int, carry: tuple[Any, jax.Array, jax.Array]) -> tuple[Any, jax.Array, jax.Array]:
            state, total, key = carry
            key, pick_key, chance_key = jax.random.split(key, 3)
            state = env.step(state, random_legal(pick_key, state.legal_action_mask), chance_key)  # no-op once over
            return state, total + state.rewards[player], key

        return jax.lax.fori_loop(0, depth, ply, (state, jnp.float32(0.0), key))[1]

    return value


def home_value(env: Any) -> ValueFn:
    """Outwit: (the mover's chips in its corner - the opponent's in theirs) / 9, read from the
    observation planes (0-1 own chips, 2-3 the opponent's, 4 own corner, 5 the opponent's)."""
    return outwit_value(env, depth_bonus=0.0, distance_cost=0.0)


def race_value(env: Any) -> ValueFn:
    """Outwit: ``home`` plus a little for a home chip deep in the corner and minus a little per
    square between an outside chip and the corner (the distances of the built-in heuristic)."""
    return outwit_value(env, depth_bonus=0.05, distance_cost=0.05)


def outwit_value(env: Any, depth_bonus: float, distance_cost: float) -> ValueFn:
    """The mover's race score minus the opponent's, scaled to about [-1, 1]: a home chip 1 (plus
    ``depth_bonus`` per square of depth in the corner), an outside chip ``-distance_cost`` per
    square to the corner."""
    if env.id != "outwit_v0" or env.layout.channels_first:
        raise SystemExit("--value home and race are Outwit's (hwc or flat layout)")
    from fox_envs.games.outwit.heuristic import DEPTH_TABLE, DISTANCE_TABLE

    depth = jnp.asarray(DEPTH_TABLE, jnp.float32)  # [seat, square]
    distance = jnp.asarray(DISTANCE_TABLE, jnp.float32)
    planes_per_square = env.game.observation_shape[-1]  # the rules core's (9, 10, 13); squares in action order
    scale = 9.0 * (1.0 + 4 * depth_bonus)

    def side(chips: jax.Array, corner: jax.Array, seat: jax.Array) -> jax.Array:
        home = chips * corner
        return (home * (1.0 + depth_bonus * depth[seat])).sum() - distance_cost * (chips * (1 - corner) * distance[seat]).sum()

    def value(state: Any, key: jax.Array) -> jax.Array:
        planes = state.observation.reshape(-1, planes_per_square)  # hwc and flat: squares x planes
        seat = state.current_player
        own = side(planes[:, 0] + planes[:, 1], planes[:, 4], seat)
        theirs = side(planes[:, 2] + planes[:, 3], planes[:, 5], 1 - seat)
        return jnp.clip((own - theirs) / scale, -0.95, 0.95)

    return value


def zero_value(env: Any) -> ValueFn:
    return lambda state, key: jnp.float32(0.0)


def value_function(env: Any, kind: str, depth: int) -> ValueFn:
    return {"rollout": lambda: rollout_value(env, depth), "home": lambda: home_value(env),
            "race": lambda: race_value(env), "zero": lambda: zero_value(env)}[kind]()


# ----- the search ------------------------------------------------------------------------------
def uniform_logits(mask: jax.Array) -> jax.Array:
    return jnp.where(mask, 0.0, MASKED)


def make_recurrent_fn(env: Any, value: ValueFn) -> Callable:
    """mctx's model: the env's own step on a copy of the state (a batch), the mover's reward,
    the discount -1 between alternating players, the leaf value and a uniform prior."""
    def recurrent_fn(params: Any, key: jax.Array, action: jax.Array, state: Any) -> tuple[Any, Any]:
        import mctx

        batch = action.shape[0]
        step_key, value_key = jax.random.split(key)
        mover = state.current_player
        after = jax.vmap(env.step)(state, action.astype(jnp.int32), jax.random.split(step_key, batch))
        reward = after.rewards[jnp.arange(batch), mover]
        over = done(after)
        discount = jnp.where(over, 0.0, jnp.where(after.current_player == mover, 1.0, -1.0))
        leaf = jnp.where(over, 0.0, jax.vmap(value)(after, jax.random.split(value_key, batch)))
        output = mctx.RecurrentFnOutput(reward=reward, discount=discount,
                                        prior_logits=uniform_logits(after.legal_action_mask), value=leaf)
        return output, after

    return recurrent_fn


def make_search(env: Any, value: ValueFn, simulations: int) -> Callable[[Any, jax.Array], jax.Array]:
    """``search(states, key) -> actions``: one Gumbel MuZero search per row of a batch of states
    (a finished row gets some action, which the env ignores)."""
    import mctx

    recurrent_fn = make_recurrent_fn(env, value)

    def search(state: Any, key: jax.Array) -> jax.Array:
        batch = state.current_player.shape[0]
        root_key, search_key = jax.random.split(key)
        over = done(state)
        root = mctx.RootFnOutput(prior_logits=uniform_logits(state.legal_action_mask),
                                 value=jax.vmap(value)(state, jax.random.split(root_key, batch)), embedding=state)
        invalid = ~state.legal_action_mask & ~over[:, None]  # a finished row: anything (never played)
        output = mctx.gumbel_muzero_policy(params=None, rng_key=search_key, root=root, recurrent_fn=recurrent_fn,
                                           num_simulations=simulations, invalid_actions=invalid,
                                           max_num_considered_actions=min(16, env.num_actions))
        return output.action.astype(jnp.int32)

    return search


# ----- a match against random ------------------------------------------------------------------
def run_game(env_id: str, args: argparse.Namespace, simulations: int, games: int, key: jax.Array) -> dict[str, Any]:
    """Play the match of one game and print its line."""
    import fox_envs.jax

    env = fox_envs.jax.make(env_id)
    value_kind = args.value or DEFAULT_VALUE[env_id]
    search = make_search(env, value_function(env, value_kind, args.rollout_depth), simulations)
    match = make_match(env, games, lambda context, state, key: search(state, key))
    clock = Clock()
    returns, lengths = (np.asarray(x) for x in match(None, key))
    wall, cpu = clock.read()
    record = counts_record(returns)
    record.update(env_id=env_id, simulations=simulations, value=value_kind, mean_length=float(lengths.mean()),
                  wall=wall, cpu=cpu)
    print(f"{env_id:<12} {simulations} simulations, value {value_kind}: win rate vs random {format_rate(record)}  "
          f"mean length {record['mean_length']:.1f} decisions  {wall:.1f}s wall {cpu:.1f}s CPU", flush=True)
    return record


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="seed of the searches and the games (default 0)")
    parser.add_argument("--quick", action="store_true", help="a short run (a minute or less on 2 CPU cores)")
    parser.add_argument("--games", default=",".join(GAMES), help=f"env ids, comma-separated (default {','.join(GAMES)})")
    parser.add_argument("--simulations", type=int, default=None, help="simulations per move (default 32, 16 with --quick)")
    parser.add_argument("--batch", type=int, default=None,
                        help="games per env, played at once (default X-Ceter-O 400, Outwit 32; "
                             "100 and 8 with --quick)")
    parser.add_argument("--value", choices=("rollout", "home", "race", "zero"), default=None,
                        help="leaf value (default: rollout for X-Ceter-O, race for Outwit)")
    parser.add_argument("--rollout-depth", type=int, default=40, help="plies of a rollout at most (default 40)")
    return parser


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Play every game's match, print and return the records (also used by the tests)."""
    args = build_parser().parse_args(argv)
    simulations = pick(args.simulations, args.quick, 16, 32)
    env_ids = [e.strip() for e in args.games.split(",") if e.strip()]
    unknown = set(env_ids) - set(GAMES)
    if unknown:
        raise SystemExit(f"--games: unknown {', '.join(sorted(unknown))}; use {', '.join(GAMES)}")
    print(device_line())
    clock = Clock()
    seed_key = jax.random.PRNGKey(args.seed)  # a game's key depends only on the seed and the game
    records = {env_id: run_game(env_id, args, simulations, pick(args.batch, args.quick, *DEFAULT_BATCH[env_id]),
                                jax.random.fold_in(seed_key, GAMES.index(env_id)))
               for env_id in env_ids}
    wall, cpu = clock.read()
    print(f"wall time {wall:.1f}s, CPU time {cpu:.1f}s ({device_line()})")
    return {"records": records, "device": device_line(), "seconds": wall, "cpu_seconds": cpu}


if __name__ == "__main__":
    main()
