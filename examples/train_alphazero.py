"""AlphaZero by self-play over the JAX env: Gumbel MuZero search (``mctx``) with the env itself
as the model, a small policy-value network, batched self-play under ``vmap``.

    python examples/train_alphazero.py [--quick] [--env xceter_o_v0] [--ordered-rows] [--seed 0]
                                       [--iterations N] [--out DIR] [--init weights.npz]

Each iteration plays ``--unroll`` moves in each of ``--batch`` self-play games at once (a game
that ends starts again at once, ``fox_envs.jax.auto_reset``): at every move one
``mctx.gumbel_muzero_policy`` search of ``--simulations`` simulations, its ``recurrent_fn``
stepping a copy of the state with ``env.step`` (exact rules: no learned dynamics), priors and
leaf values from the network; the search's Gumbel choice is played and its improved policy
(``action_weights``) is the policy target. Two-player zero-sum: an edge's reward is the mover's,
the discount -1 when the other seat moves next (+1 when the same seat moves again, 0 once the
game is over). For exploration each new game opens with 0..``--openings`` uniformly random
moves (their positions train the policy, not the value). Value targets: the mover's return of
the game, read backwards through the unroll; a game still going at the end of an unroll is
bootstrapped from the network's value of its last position. The samples go to a replay buffer
of the last ``--buffer`` iterations, and ``--train-steps`` Adam steps on minibatches of
``--minibatch`` fit the policy (cross-entropy with the search policy) and the value (squared
error). The network is an MLP over the flat observation; Outwit's 8,101 logits come from a
factored head (one number per from-square and per to-square, summed, and pass).

``--warm-start GAMES`` first fits the network, in ``--warm-steps`` Adam steps, to GAMES games of
the game's heuristic against itself played by the batched core (its move as the policy target,
the game's return as the value target), as AlphaGo started from expert moves: on a CPU budget
self-play from a random network spends its first hours relearning what the heuristic knows.

Every ``--eval-every`` iterations the script saves a checkpoint (``DIR/checkpoints/``) and
measures the greedy network, played by the numpy agent ``fox_envs.agents.alphazero`` exactly as
it ships, against ``random``, ``heuristic`` and ``mcts`` (``--eval-games`` games each, seats
rotated, Wilson 95 % intervals); for X-Ceter-O also the share of value-optimal moves over every
reachable position, from the exact solver (``benchmarks/xceter_o_alphazero.py``; used only to
measure, never to train). The curve goes to ``DIR/curve.png`` and ``DIR/curve.json``, the final
network to ``DIR/<weights name>.npz`` in the format of the shipped weights.

It prints the jax device first and runs unchanged on a GPU (install jax's CUDA wheel). The
measured runs, their commands, seeds and compute are in docs/training.md ("AlphaZero").
"""
from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import argparse
import json
from typing import Any, Callable, NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from examples.train_jax_ppo import MASKED, Clock, device_line, done
from fox_envs.agents.alphazero import FACTORED_HEADS, network_arrays, policy_logits

GAMES = ("xceter_o_v0", "outfox_v0", "outwit_v0")
Params = dict[str, jax.Array]


class Config(NamedTuple):
    batch: int  # self-play games at once
    unroll: int  # moves per game per iteration
    simulations: int
    considered: int  # Gumbel: actions considered at the root
    openings: int  # random opening moves at most
    explore: float  # after the opening, the chance of a random move instead of the search's
    value_target: str  # "return": the game's return; "search": the search's root value
    discount: float  # per move: a win n moves ahead is worth discount ** n (1: no discount)
    buffer: int  # iterations kept in the replay buffer
    train_steps: int  # Adam steps per iteration
    minibatch: int
    learning_rate: float
    hidden: int
    layers: int


QUICK = dict(batch=128, unroll=32, simulations=16, iterations=20, train_steps=50, eval_every=10, eval_games=20)
FULL = dict(batch=256, unroll=64, simulations=32, iterations=300, train_steps=200, eval_every=25, eval_games=100)


# ----- the network -----------------------------------------------------------------------------
FACTORED_SQUARES = {"outwit_v0": 90}  # games whose moves are from*S + to, then the extra actions


def init_params(key: jax.Array, n_obs: int, n_actions: int, hidden: int, layers: int, squares: int = 0) -> Params:
    """ReLU trunk ``w0, b0, ...``, a policy head (small initial logits; factored into from- and
    to-square numbers when ``squares`` > 0) and a value head, named as
    ``fox_envs.agents.alphazero.PolicyValueNet`` reads them."""
    params: Params = {}
    keys = jax.random.split(key, layers + 2)
    width = n_obs
    for k in range(layers):
        params[f"w{k}"] = jax.random.normal(keys[k], (width, hidden)) * jnp.sqrt(2.0 / width)
        params[f"b{k}"] = jnp.zeros(hidden)
        width = hidden
    if squares == 0:
        params["policy_w"] = jax.random.normal(keys[-2], (width, n_actions)) * 0.01
        params["policy_b"] = jnp.zeros(n_actions)
    else:
        sizes = (squares, squares, n_actions - squares * squares)
        for head_key, head, outputs in zip(jax.random.split(keys[-2], 3), FACTORED_HEADS, sizes):
            params[f"{head}_w"] = jax.random.normal(head_key, (width, outputs)) * 0.01
            params[f"{head}_b"] = jnp.zeros(outputs)
    params["value_w"] = jax.random.normal(keys[-1], (width, 1)) * 0.01
    params["value_b"] = jnp.zeros(1)
    return params


def forward(params: Params, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``x [N, inputs] -> (logits [N, actions], value [N])``, as the numpy agent computes it."""
    h = x
    k = 0
    while f"w{k}" in params:
        h = jax.nn.relu(h @ params[f"w{k}"] + params[f"b{k}"])
        k += 1
    heads = ("policy",) if "policy_w" in params else FACTORED_HEADS
    logits = policy_logits([h @ params[f"{head}_w"] + params[f"{head}_b"] for head in heads], jnp)
    return logits, jnp.tanh(h @ params["value_w"] + params["value_b"])[:, 0]


def flat(observation: jax.Array) -> jax.Array:
    return observation.reshape(observation.shape[0], -1)


def same_types(new: Any, old: Any) -> Any:
    """``new`` with the dtypes of ``old`` (a loop carry must keep its types; some games' step
    widens a small integer field of the position)."""
    return jax.tree.map(lambda a, b: a.astype(b.dtype), new, old)


# ----- self-play -------------------------------------------------------------------------------
class Sample(NamedTuple):
    """One move of self-play: ``[unroll, batch, ...]`` once stacked."""
    observation: jax.Array
    mask: jax.Array
    policy: jax.Array  # the search's improved policy
    mover: jax.Array
    reward: jax.Array  # the mover's reward in this step
    ended: jax.Array  # the game ended in this step (a new one began)
    next_player: jax.Array
    searched: jax.Array  # the move played was the search's (not a random move)
    root_value: jax.Array  # the search's value of the position for the mover


class Runner(NamedTuple):
    state: Any
    opening: jax.Array  # random opening moves left per game


def make_recurrent_fn(env: Any, gamma: float = 1.0) -> Callable:
    def recurrent_fn(params: Params, key: jax.Array, action: jax.Array, state: Any) -> tuple[Any, Any]:
        import mctx

        batch = action.shape[0]
        mover = state.current_player
        after = same_types(jax.vmap(env.step)(state, action.astype(jnp.int32), jax.random.split(key, batch)), state)
        reward = after.rewards[jnp.arange(batch), mover]
        over = done(after)
        discount = jnp.where(over, 0.0, jnp.where(after.current_player == mover, gamma, -gamma))
        logits, value = forward(params, flat(after.observation))
        output = mctx.RecurrentFnOutput(reward=reward, discount=discount,
                                        prior_logits=jnp.where(after.legal_action_mask, logits, MASKED),
                                        value=jnp.where(over, 0.0, value))
        return output, after

    return recurrent_fn


def make_search(env: Any, config: Config) -> Callable:
    """``search(params, states, key) -> mctx PolicyOutput`` over a batch of unfinished states."""
    import mctx

    recurrent_fn = make_recurrent_fn(env, config.discount)

    def search(params: Params, state: Any, key: jax.Array) -> Any:
        logits, value = forward(params, flat(state.observation))
        root = mctx.RootFnOutput(prior_logits=jnp.where(state.legal_action_mask, logits, MASKED), value=value,
                                 embedding=state)
        return mctx.gumbel_muzero_policy(params=params, rng_key=key, root=root, recurrent_fn=recurrent_fn,
                                         num_simulations=config.simulations, invalid_actions=~state.legal_action_mask,
                                         max_num_considered_actions=min(config.considered, env.num_actions))

    return search


def make_selfplay(env: Any, config: Config) -> Callable[[Params, Runner, jax.Array], tuple[Runner, Sample, jax.Array]]:
    """``selfplay(params, runner, key) -> (runner, samples [unroll, batch], bootstrap [batch])``."""
    import fox_envs.jax

    search = make_search(env, config)
    step = jax.vmap(fox_envs.jax.auto_reset(env.step, env.init))
    batch = config.batch

    def move(params: Params, runner: Runner, key: jax.Array) -> tuple[Runner, Sample]:
        if config.explore > 0:
            search_key, random_key, step_key, opening_key, explore_key = jax.random.split(key, 5)
        else:  # the same keys as runs without --explore always had
            search_key, random_key, step_key, opening_key = jax.random.split(key, 4)
        state = runner.state
        output = search(params, state, search_key)
        mask = state.legal_action_mask
        random_action = jax.random.categorical(random_key, jnp.where(mask, 0.0, MASKED), axis=-1).astype(jnp.int32)
        in_opening = runner.opening > 0
        randomly = in_opening
        if config.explore > 0:
            randomly = randomly | (jax.random.uniform(explore_key, (batch,)) < config.explore)
        action = jnp.where(randomly, random_action, output.action.astype(jnp.int32))
        after = same_types(step(state, action, jax.random.split(step_key, batch)), state)
        ended = done(after)
        new_opening = jax.random.randint(opening_key, (batch,), 0, config.openings + 1)
        opening = jnp.where(ended, new_opening, jnp.maximum(runner.opening - 1, 0))
        sample = Sample(observation=flat(state.observation), mask=mask, policy=output.action_weights,
                        mover=state.current_player, reward=after.rewards[jnp.arange(batch), state.current_player],
                        ended=ended, next_player=after.current_player, searched=~randomly,
                        root_value=output.search_tree.summary().value)
        return Runner(after, opening), sample

    def selfplay(params: Params, runner: Runner, key: jax.Array) -> tuple[Runner, Sample, jax.Array]:
        def body(runner: Runner, key: jax.Array) -> tuple[Runner, Sample]:
            return move(params, runner, key)

        runner, samples = jax.lax.scan(body, runner, jax.random.split(key, config.unroll))
        _, bootstrap = forward(params, flat(runner.state.observation))
        return runner, samples, bootstrap

    return jax.jit(selfplay)


def value_targets(samples: Sample, bootstrap: jax.Array, gamma: float = 1.0) -> tuple[jax.Array, jax.Array]:
    """The mover's return, backwards through the unroll (``[unroll, batch]``), and whether it is a
    sample of the search's play (no random opening move at or after the position in its game)."""
    def back(carry: tuple[jax.Array, jax.Array], s: Sample) -> tuple[tuple[jax.Array, jax.Array], tuple[jax.Array, jax.Array]]:
        value_next, clean_next = carry  # the next position's value for its mover; no random move from it on
        discount = jnp.where(s.ended, 0.0, jnp.where(s.next_player == s.mover, gamma, -gamma))
        value = s.reward + discount * value_next
        clean = s.searched & (s.ended | clean_next)
        return (value, clean), (value, clean)

    start = (bootstrap, jnp.ones_like(bootstrap, dtype=bool))
    _, (values, clean) = jax.lax.scan(back, start, samples, reverse=True)
    return values, clean


# ----- training --------------------------------------------------------------------------------
def loss_fn(params: Params, batch: dict[str, jax.Array]) -> tuple[jax.Array, tuple[jax.Array, jax.Array]]:
    logits, value = forward(params, batch["observation"])
    logits = jnp.where(batch["mask"], logits, MASKED)
    log_p = jax.nn.log_softmax(logits)
    policy_loss = -(batch["policy"] * jnp.where(batch["mask"], log_p, 0.0)).sum(axis=-1).mean()
    weight = batch["value_ok"].astype(jnp.float32)
    value_loss = (weight * (value - batch["value"]) ** 2).sum() / jnp.maximum(weight.sum(), 1.0)
    return policy_loss + value_loss, (policy_loss, value_loss)


def make_train_step(optimizer: Any) -> Callable:
    import optax

    def train_step(params: Params, opt_state: Any, batch: dict[str, jax.Array]) -> tuple[Params, Any, jax.Array, jax.Array]:
        grads, (policy_loss, value_loss) = jax.grad(loss_fn, has_aux=True)(params, batch)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, policy_loss, value_loss

    return jax.jit(train_step)


class Buffer:
    """The samples of the last ``size`` iterations (host memory)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.chunks: list[dict[str, np.ndarray]] = []

    def add(self, samples: Sample, values: jax.Array, clean: jax.Array) -> None:
        def rows(x: Any) -> np.ndarray:
            x = np.asarray(x)
            return x.reshape(-1, *x.shape[2:])

        self.chunks.append({"observation": rows(samples.observation), "mask": rows(samples.mask),
                            "policy": rows(samples.policy), "value": rows(values), "value_ok": rows(clean)})
        self.chunks = self.chunks[-self.size:]
        self._joined = None

    def sample(self, rng: np.random.Generator, count: int) -> dict[str, np.ndarray]:
        if self._joined is None:
            self._joined = {k: np.concatenate([c[k] for c in self.chunks]) for k in self.chunks[0]}
        index = rng.integers(0, len(self._joined["value"]), count)
        return {k: v[index] for k, v in self._joined.items()}


# ----- a warm start from the heuristic ----------------------------------------------------------
def heuristic_samples(env_id: str, game_params: dict[str, Any], games: int, seed: int,
                      epsilon: float) -> dict[str, np.ndarray]:
    """Every position of ``games`` games of the game's heuristic against itself on the batched
    core (a random legal move instead with chance ``epsilon``): the flat observation, the legal
    actions (packed bits), the heuristic's move and the mover's return."""
    from examples._value_training import generate_samples

    def flat_rows(obs: np.ndarray) -> np.ndarray:
        return obs.reshape(len(obs), -1).astype(np.float32)

    return generate_samples(env_id, games, seed, epsilon, lambda obs: np.ones(len(obs), bool), flat_rows,
                            moves=True, **game_params)


def warm_start(params: Params, samples: dict[str, np.ndarray], steps: int, minibatch: int, learning_rate: float,
               seed: int, num_actions: int) -> tuple[Params, float, float]:
    """``steps`` Adam steps fitting the policy to the heuristic's moves and the value to the games'
    returns (the training loss, with a one-hot policy target); returns the network and the last
    100 steps' mean policy and value losses."""
    import optax

    optimizer = optax.adamw(learning_rate, weight_decay=1e-4)
    opt_state = optimizer.init(params)
    train_step = make_train_step(optimizer)
    rng = np.random.default_rng(seed)
    losses = []
    for _ in range(steps):
        index = rng.integers(0, len(samples["y"]), minibatch)
        mask = np.unpackbits(samples["mask"][index], axis=-1, count=num_actions).astype(bool)
        batch = {"observation": samples["x"][index], "mask": mask,
                 "policy": (np.arange(num_actions)[None, :] == samples["action"][index][:, None]).astype(np.float32),
                 "value": samples["y"][index], "value_ok": np.ones(minibatch, bool)}
        params, opt_state, policy_loss, value_loss = train_step(params, opt_state, {k: jnp.asarray(v) for k, v in batch.items()})
        losses.append((float(policy_loss), float(value_loss)))
    tail = np.mean(losses[-100:], axis=0)
    return params, float(tail[0]), float(tail[1])


# ----- measuring -------------------------------------------------------------------------------
def numpy_arrays(params: Params) -> dict[str, np.ndarray]:
    return {name: np.asarray(value, np.float32) for name, value in params.items()}


def save_weights(params: Params, path: Path, meta: dict[str, Any]) -> Path:
    """The network as float32 arrays (the shipped format, ``path``) and ``meta`` beside it
    (``path`` with ``.json``: command, seed, config, compute)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, **numpy_arrays(params))
    path.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    return path


def measure(env_id: str, params_of_game: dict[str, Any], arrays: dict[str, np.ndarray], opponents: Sequence[str],
            games: int, seed: int, eval_simulations: int) -> dict[str, Any]:
    """Win rates of the numpy agent (as shipped) against ``opponents``; X-Ceter-O: the share of
    value-optimal moves over every reachable position (the exact solver)."""
    from examples._common import versus
    from fox_envs.agents.alphazero import AlphaZeroAgent

    point: dict[str, Any] = {}
    agent = AlphaZeroAgent(env_id, seed=seed, simulations=eval_simulations, arrays=arrays)
    for k, opponent in enumerate(opponents):
        if games > 0:
            point[opponent] = versus(env_id, agent, opponent, games, seed + k, **params_of_game)
    if env_id == "xceter_o_v0":
        from benchmarks.xceter_o_alphazero import greedy_report
        from fox_envs.agents.alphazero import PolicyValueNet

        report = greedy_report(PolicyValueNet(arrays), bool(params_of_game.get("ordered_rows", False)))
        point["optimal"] = report["optimal_share"]
        point["converted"] = report["converted_share"]
    return point


def describe(point: dict[str, Any]) -> str:
    parts = []
    for name, r in point.items():
        if isinstance(r, dict):
            parts.append(f"vs {name} {r['win_rate']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]")
    if "optimal" in point:
        parts.append(f"optimal moves {100 * point['optimal']:.2f}%, won positions converted {100 * point['converted']:.2f}%")
    return ", ".join(parts)


def write_curve(curve: list[dict[str, Any]], path: Path, title: str) -> Path | None:
    """Win rates (and, for X-Ceter-O, the optimal-move share) against training iterations."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        print(f"no learning curve picture: {error}")
        return None
    figure, axis = plt.subplots(figsize=(7, 4))
    xs = [p["iteration"] for p in curve]
    names = [k for k in curve[-1] if isinstance(curve[-1][k], dict)]
    for name in names:
        rates = [p[name]["win_rate"] for p in curve]
        low = [p[name]["ci95"][0] for p in curve]
        high = [p[name]["ci95"][1] for p in curve]
        axis.plot(xs, rates, marker="o", label=f"win rate vs {name}")
        axis.fill_between(xs, low, high, alpha=0.15)
    if "optimal" in curve[-1]:
        axis.plot(xs, [p["optimal"] for p in curve], marker="s", color="black", label="value-optimal moves (solver)")
        axis.plot(xs, [p["converted"] for p in curve], marker="^", color="gray", label="won positions converted")
    axis.set_xlabel("iterations")
    axis.set_ylim(0, 1.02)
    axis.set_title(title)
    axis.grid(alpha=0.3)
    axis.legend(loc="lower right", fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


# ----- main ------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="xceter_o_v0", choices=GAMES, help="the game (default xceter_o_v0)")
    parser.add_argument("--ordered-rows", action="store_true", help="X-Ceter-O's ordered_rows variant")
    parser.add_argument("--quick", action="store_true", help="a short run (a few minutes on 2 CPU cores)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--iterations", type=int, default=None, help=f"default {FULL['iterations']}, {QUICK['iterations']} with --quick")
    parser.add_argument("--batch", type=int, default=None, help=f"self-play games at once (default {FULL['batch']}, {QUICK['batch']} quick)")
    parser.add_argument("--unroll", type=int, default=None, help=f"moves per game per iteration (default {FULL['unroll']}, {QUICK['unroll']} quick)")
    parser.add_argument("--simulations", type=int, default=None, help=f"per move (default {FULL['simulations']}, {QUICK['simulations']} quick)")
    parser.add_argument("--considered", type=int, default=16, help="Gumbel: root actions considered (default 16)")
    parser.add_argument("--openings", type=int, default=None, help="random opening moves at most (default 16 for X-Ceter-O, else 4)")
    parser.add_argument("--explore", type=float, default=0.0,
                        help="after the opening, the chance of a uniformly random move at each turn (default 0)")
    parser.add_argument("--value-target", choices=("return", "search"), default="return",
                        help="value target: the game's return from the position (default), or the search's root value "
                             "(every position gets one, random moves or not)")
    parser.add_argument("--discount", type=float, default=1.0,
                        help="per move, in the search and the value targets: below 1 a nearer win is worth more, "
                             "so the policy hurries to convert (default 1)")
    parser.add_argument("--buffer", type=int, default=8, help="iterations kept in the replay buffer (default 8)")
    parser.add_argument("--train-steps", type=int, default=None, help=f"Adam steps per iteration (default {FULL['train_steps']}, {QUICK['train_steps']} quick)")
    parser.add_argument("--minibatch", type=int, default=256)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--schedule", choices=("cosine", "constant"), default="cosine",
                        help="learning rate: cosine decay to 5%% over the run (default) or constant")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--eval-every", type=int, default=None, help="iterations between evaluations and checkpoints")
    parser.add_argument("--eval-games", type=int, default=None, help="games against each opponent per evaluation")
    parser.add_argument("--eval-simulations", type=int, default=0, help="the numpy agent's search during evaluations (default 0: greedy)")
    parser.add_argument("--opponents", default="random,heuristic,mcts", help="evaluation opponents (default random,heuristic,mcts)")
    parser.add_argument("--init", default=None, help="start from these weights (.npz written by this script)")
    parser.add_argument("--warm-start", type=int, default=0, metavar="GAMES",
                        help="before self-play, fit the network to GAMES games of the heuristic against itself "
                             "(batched core): its moves and the games' returns (default 0: none)")
    parser.add_argument("--warm-steps", type=int, default=2000, help="Adam steps of the warm start (default 2000)")
    parser.add_argument("--warm-learning-rate", type=float, default=1e-3, help="the warm start's Adam rate (default 1e-3)")
    parser.add_argument("--warm-epsilon", type=float, default=0.1,
                        help="the warm start's games: chance of a random move instead of the heuristic's (default 0.1)")
    parser.add_argument("--out", default=None, help="output folder (default runs/alphazero_<env>[_ordered_rows]_seed<seed>)")
    return parser


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Train, print progress, write checkpoints, curve and weights; return the record (tests)."""
    import optax

    import fox_envs.jax

    args = build_parser().parse_args(argv)
    preset = QUICK if args.quick else FULL

    def pick(name: str) -> Any:
        value = getattr(args, name)
        return preset[name] if value is None else value

    if args.ordered_rows and args.env != "xceter_o_v0":
        raise SystemExit("--ordered-rows is X-Ceter-O's")
    game_params = {"ordered_rows": True} if args.ordered_rows else ({"ordered_rows": False} if args.env == "xceter_o_v0" else {})
    variant = "_ordered_rows" if args.ordered_rows else ""
    name = f"alphazero_{args.env}{variant}"
    out = Path(args.out or f"runs/{name}_seed{args.seed}")
    out.mkdir(parents=True, exist_ok=True)
    openings = args.openings if args.openings is not None else (16 if args.env == "xceter_o_v0" else 4)
    config = Config(batch=pick("batch"), unroll=pick("unroll"), simulations=pick("simulations"),
                    considered=args.considered, openings=openings, explore=args.explore,
                    value_target=args.value_target, discount=args.discount, buffer=args.buffer,
                    train_steps=pick("train_steps"), minibatch=args.minibatch, learning_rate=args.learning_rate,
                    hidden=args.hidden, layers=args.layers)
    iterations, eval_every, eval_games = pick("iterations"), pick("eval_every"), pick("eval_games")
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    print(device_line(), flush=True)
    print(f"{args.env} {game_params or ''} seed {args.seed}: {config}", flush=True)

    env = fox_envs.jax.make(args.env, **game_params)
    n_obs = int(np.prod(env.observation_shape))
    key = jax.random.PRNGKey(args.seed)
    key, init_key, env_key, opening_key = jax.random.split(key, 4)
    if args.init:
        params = {k: jnp.asarray(v) for k, v in network_arrays(args.init).items()}
    else:
        params = init_params(init_key, n_obs, env.num_actions, config.hidden, config.layers,
                             FACTORED_SQUARES.get(args.env, 0))
    rate = (optax.cosine_decay_schedule(config.learning_rate, max(iterations * config.train_steps, 1), alpha=0.05)
            if args.schedule == "cosine" else config.learning_rate)
    optimizer = optax.adamw(rate, weight_decay=1e-4)
    opt_state = optimizer.init(params)
    selfplay = make_selfplay(env, config)
    train_step = make_train_step(optimizer)
    targets = jax.jit(lambda samples, bootstrap: value_targets(samples, bootstrap, config.discount))
    runner = Runner(jax.jit(jax.vmap(env.init))(jax.random.split(env_key, config.batch)),
                    jax.random.randint(opening_key, (config.batch,), 0, config.openings + 1))
    buffer = Buffer(config.buffer)
    rng = np.random.default_rng(args.seed)
    meta = {"env_id": args.env, "params": game_params, "seed": args.seed, "config": config._asdict(),
            "command": "python examples/train_alphazero.py " + " ".join(argv if argv is not None else sys.argv[1:])}
    curve: list[dict[str, Any]] = []
    history: list[dict[str, Any]] = []
    clock = Clock()
    eval_seconds = [0.0, 0.0]
    moves = 0

    def evaluate(iteration: int) -> None:
        eval_clock = Clock()
        arrays = numpy_arrays(params)
        save_weights(params, out / "checkpoints" / f"{name}_{iteration:05d}.npz", {**meta, "iteration": iteration})
        point = {"iteration": iteration, "moves": moves,
                 **measure(args.env, game_params, arrays, opponents, eval_games, args.seed + 1000, args.eval_simulations)}
        wall, cpu = eval_clock.read()
        eval_seconds[0] += wall
        eval_seconds[1] += cpu
        total_wall, total_cpu = clock.read()
        point.update(wall=total_wall, cpu=total_cpu)
        curve.append(point)
        print(f"  eval @ {iteration}: {describe(point)}  ({total_wall:.0f}s wall, {total_cpu:.0f}s CPU so far)", flush=True)

    if args.warm_start:
        samples = heuristic_samples(args.env, game_params, args.warm_start, args.seed, args.warm_epsilon)
        params, policy_loss, value_loss = warm_start(params, samples, args.warm_steps, config.minibatch,
                                                     args.warm_learning_rate, args.seed, env.num_actions)
        wall, cpu = clock.read()
        meta["warm_start"] = {"games": args.warm_start, "positions": len(samples["y"]), "steps": args.warm_steps,
                              "learning_rate": args.warm_learning_rate, "epsilon": args.warm_epsilon, "wall": round(wall, 1), "cpu": round(cpu, 1)}
        print(f"warm start: {len(samples['y'])} positions of {args.warm_start} heuristic games, {args.warm_steps} "
              f"Adam steps, policy loss {policy_loss:.3f}, value loss {value_loss:.3f}  ({wall:.0f}s wall, {cpu:.0f}s CPU)",
              flush=True)
        del samples
        opt_state = optimizer.init(params)
    evaluate(0)
    for iteration in range(1, iterations + 1):
        key, play_key = jax.random.split(key)
        runner, samples, bootstrap = selfplay(params, runner, play_key)
        values, clean = targets(samples, bootstrap)
        if config.value_target == "search":  # every position, whatever was played after it
            values, clean = samples.root_value, jnp.ones_like(clean)
        buffer.add(samples, values, clean)
        moves += config.batch * config.unroll
        losses = []
        for _ in range(config.train_steps):
            batch = {k: jnp.asarray(v) for k, v in buffer.sample(rng, config.minibatch).items()}
            params, opt_state, policy_loss, value_loss = train_step(params, opt_state, batch)
            losses.append((policy_loss, value_loss))
        policy_loss, value_loss = (float(np.mean([float(x[i]) for x in losses])) for i in (0, 1))
        games_ended = int(np.asarray(samples.ended).sum())
        wall, cpu = clock.read()
        history.append({"iteration": iteration, "policy_loss": policy_loss, "value_loss": value_loss,
                        "games": games_ended, "wall": wall, "cpu": cpu})
        print(f"iteration {iteration}: {moves} self-play moves, {games_ended} games ended, "
              f"policy loss {policy_loss:.3f}, value loss {value_loss:.3f}  ({wall:.0f}s wall, {cpu:.0f}s CPU)", flush=True)
        if iteration % eval_every == 0 or iteration == iterations:
            evaluate(iteration)
            with open(out / "curve.json", "w") as handle:
                json.dump({"meta": meta, "curve": curve, "history": history}, handle, indent=1)

    wall, cpu = clock.read()
    meta.update(iterations=iterations, moves=moves, wall_seconds=round(wall, 1), cpu_seconds=round(cpu, 1),
                device=device_line())
    weights = save_weights(params, out / f"{name}.npz", meta)
    picture = write_curve(curve, out / "curve.png", f"AlphaZero {args.env}{' ordered_rows' if args.ordered_rows else ''}, seed {args.seed}")
    with open(out / "curve.json", "w") as handle:
        json.dump({"meta": meta, "curve": curve, "history": history}, handle, indent=1)
    print(f"weights written to {weights}; learning curve {picture}; checkpoints in {out / 'checkpoints'}")
    print(f"wall time {wall:.1f}s, CPU time {cpu:.1f}s (evaluations {eval_seconds[0]:.1f}s wall), {device_line()}", flush=True)
    return {"params": params, "curve": curve, "history": history, "weights": weights, "picture": picture,
            "device": device_line(), "seconds": wall, "cpu_seconds": cpu}


if __name__ == "__main__":
    main()
