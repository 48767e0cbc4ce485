"""PPO with action masking on X-Ceter-O against ``random``, end to end in JAX (PureJaxRL style).

    python examples/train_jax_ppo.py [--quick] [--seed 0] [--save params.npz]

Everything after the command line is jax: ``fox_envs.jax.make("xceter_o_v0")`` is stepped
under ``jit`` and ``vmap`` over ``--envs`` games. The opponent is part of the env: a wrapper
step plays the learner's move, then random legal moves for the other seat until it is the
learner's turn again (or the game is over), and restarts finished games (the opponent opening
when the learner has seat 1). The learner holds seat 0 in the even-numbered games and seat 1 in
the odd ones, so it always sees its own turns, from its own side, with its mask.

The policy is a small MLP in ``jax.numpy`` (an actor and a critic of two tanh layers each);
illegal actions get a logit of -1e9. Each update collects ``--steps`` learner moves in every
game with a ``lax.scan``, computes GAE(lambda) advantages and takes clipped-PPO steps with
optax's Adam over shuffled minibatches. Rewards are the env's: +1 win, -1 loss, 0 draw (the
third repetition) or truncation.

It prints the jax device, a progress line per report (update, env steps, mean return and win
rate of the episodes finished since the last line), and the policy's win rate against random
before and after training, greedy (argmax) and sampled, each over ``--eval-games`` games
(seats alternated) with its Wilson 95 % interval. ``--save`` writes the parameters as ``.npz``.
The measured numbers are in docs/training.md ("End to end in JAX").
"""
from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import argparse
import time
from typing import Any, Callable, NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from examples._common import Timer, format_rate, pick, print_before_after, rate_record

ENV_ID = "xceter_o_v0"
MASKED = -1e9  # the logit of an illegal action
Params = dict[str, jax.Array]


# ----- shared with examples/jax_mctx_agent.py ------------------------------------------------------
def device_line() -> str:
    """Where jax runs, e.g. ``jax 0.10.2 on cpu: TFRT_CPU_0``."""
    device = jax.devices()[0]
    return f"jax {jax.__version__} on {device.platform}: {device}"


def random_legal(key: jax.Array, mask: jax.Array) -> jax.Array:
    """A uniformly random legal action (one row; ``vmap`` for a batch)."""
    return jax.random.categorical(key, jnp.where(mask, 0.0, MASKED)).astype(jnp.int32)


def counts_record(returns: np.ndarray) -> dict[str, Any]:
    """Win / draw / loss counts of the final returns, with the win rate's Wilson 95 % interval."""
    returns = np.asarray(returns)
    return rate_record(int((returns > 0).sum()), int((returns == 0).sum()), int((returns < 0).sum()))


class Clock:
    """Wall and CPU seconds (the CPU time of every thread of the process, jax's included)."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def read(self) -> tuple[float, float]:
        return time.perf_counter() - self.wall, time.process_time() - self.cpu


# ----- the env with the opponent inside ----------------------------------------------------------
class Seat(NamedTuple):
    """One game from the learner's side: the env state and the learner's seat."""
    state: Any
    seat: jax.Array


def done(state: Any) -> jax.Array:
    return state.terminated | state.truncated


def opponent_moves(env: Any, state: Any, seat: jax.Array, key: jax.Array) -> Any:
    """Random legal moves for the other seat until the learner is to move or the game is over
    (one move in an alternating game; the loop does not assume it)."""
    def waiting(carry: tuple[Any, jax.Array]) -> jax.Array:
        state, _ = carry
        return ~done(state) & (state.current_player != seat)

    def move(carry: tuple[Any, jax.Array]) -> tuple[Any, jax.Array]:
        state, key = carry
        key, pick_key, chance_key = jax.random.split(key, 3)
        return env.step(state, random_legal(pick_key, state.legal_action_mask), chance_key), key

    return jax.lax.while_loop(waiting, move, (state, key))[0]


def reset(env: Any, seat: jax.Array, key: jax.Array) -> Seat:
    """A new game at the learner's first turn."""
    init_key, move_key = jax.random.split(key)
    return Seat(opponent_moves(env, env.init(init_key), seat, move_key), seat)


def learner_step(env: Any, game: Seat, action: jax.Array, key: jax.Array) -> tuple[Seat, jax.Array, jax.Array]:
    """The learner plays ``action``, the opponent replies; returns the game (a new one if this
    ended it), the learner's reward and whether the game ended."""
    step_key, move_key, reset_key = jax.random.split(key, 3)
    state = env.step(game.state, action, step_key)
    reward = state.rewards[game.seat]  # if the learner's move ended the game
    state = opponent_moves(env, state, game.seat, move_key)
    reward = jnp.where(reward != 0, reward, state.rewards[game.seat])  # or if the opponent's did
    ended = done(state)
    fresh = reset(env, game.seat, reset_key)
    state = jax.tree_util.tree_map(lambda a, b: jnp.where(ended, a, b), fresh.state, state)
    return Seat(state, game.seat), reward, ended


# ----- the policy ------------------------------------------------------------------------------
def dense(key: jax.Array, n_in: int, n_out: int, scale: float) -> tuple[jax.Array, jax.Array]:
    return jax.nn.initializers.orthogonal(scale)(key, (n_in, n_out)), jnp.zeros(n_out)


def init_params(key: jax.Array, n_obs: int, n_actions: int, hidden: int) -> Params:
    """Actor and critic MLPs, two tanh layers each, orthogonal initialisation (PureJaxRL's)."""
    keys = jax.random.split(key, 6)
    shapes = {"a1": (n_obs, hidden, np.sqrt(2)), "a2": (hidden, hidden, np.sqrt(2)), "a3": (hidden, n_actions, 0.01),
              "c1": (n_obs, hidden, np.sqrt(2)), "c2": (hidden, hidden, np.sqrt(2)), "c3": (hidden, 1, 1.0)}
    params = {}
    for k, (name, (n_in, n_out, scale)) in zip(keys, shapes.items()):
        params[name + "w"], params[name + "b"] = dense(k, n_in, n_out, scale)
    return params


def mlp(params: Params, x: jax.Array, prefix: str) -> jax.Array:
    x = jnp.tanh(x @ params[prefix + "1w"] + params[prefix + "1b"])
    x = jnp.tanh(x @ params[prefix + "2w"] + params[prefix + "2b"])
    return x @ params[prefix + "3w"] + params[prefix + "3b"]


def policy(params: Params, observation: jax.Array, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Masked logits (illegal = -1e9) and the value, for a batch of observations."""
    x = observation.reshape(observation.shape[0], -1)
    return jnp.where(mask, mlp(params, x, "a"), MASKED), mlp(params, x, "c")[:, 0]


# ----- PPO -------------------------------------------------------------------------------------
class Config(NamedTuple):
    envs: int = 64
    steps: int = 32
    epochs: int = 4
    minibatches: int = 4
    gamma: float = 0.99
    lam: float = 0.95
    clip: float = 0.2
    entropy: float = 0.01
    value_coef: float = 0.5
    lr: float = 3e-4
    max_grad_norm: float = 0.5
    hidden: int = 64


class Batch(NamedTuple):
    observation: jax.Array
    mask: jax.Array
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    reward: jax.Array
    ended: jax.Array


class Runner(NamedTuple):
    params: Params
    opt_state: Any
    games: Seat
    key: jax.Array


def gae(batch: Batch, last_value: jax.Array, gamma: float, lam: float) -> tuple[jax.Array, jax.Array]:
    """GAE(lambda) advantages and returns, time-major ``[steps, envs]``."""
    def back(carry: tuple[jax.Array, jax.Array], t: tuple[jax.Array, ...]) -> tuple[tuple[jax.Array, jax.Array], jax.Array]:
        advantage, next_value = carry
        reward, value, ended = t
        live = 1.0 - ended.astype(jnp.float32)
        delta = reward + gamma * next_value * live - value
        advantage = delta + gamma * lam * live * advantage
        return (advantage, value), advantage

    _, advantages = jax.lax.scan(back, (jnp.zeros_like(last_value), last_value),
                                 (batch.reward, batch.value, batch.ended), reverse=True)
    return advantages, advantages + batch.value


def ppo_loss(params: Params, batch: Batch, advantages: jax.Array, targets: jax.Array, config: Config) -> jax.Array:
    logits, value = policy(params, batch.observation, batch.mask)
    log_probs = jax.nn.log_softmax(logits)
    log_prob = jnp.take_along_axis(log_probs, batch.action[:, None], axis=1)[:, 0]
    ratio = jnp.exp(log_prob - batch.log_prob)
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    actor = -jnp.minimum(ratio * advantages, jnp.clip(ratio, 1 - config.clip, 1 + config.clip) * advantages).mean()
    clipped_value = batch.value + jnp.clip(value - batch.value, -config.clip, config.clip)
    critic = 0.5 * jnp.maximum((value - targets) ** 2, (clipped_value - targets) ** 2).mean()
    entropy = -(jnp.exp(log_probs) * log_probs).sum(axis=1).mean()  # exp(-1e9) is exactly 0
    return actor + config.value_coef * critic - config.entropy * entropy


def make_update(env: Any, config: Config, optimizer: Any) -> Callable[[Runner], tuple[Runner, dict[str, jax.Array]]]:
    """One PPO update: a rollout of ``config.steps`` learner moves in every game, then
    ``config.epochs`` passes over shuffled minibatches. Returns the runner and the rollout's
    episode statistics."""
    step_all = jax.vmap(lambda game, action, key: learner_step(env, game, action, key))

    def rollout_step(carry: tuple[Params, Seat, jax.Array], _: None) -> tuple[tuple[Params, Seat, jax.Array], Batch]:
        params, games, key = carry
        key, act_key, step_key = jax.random.split(key, 3)
        state = games.state
        logits, value = policy(params, state.observation, state.legal_action_mask)
        action = jax.random.categorical(act_key, logits).astype(jnp.int32)
        log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], axis=1)[:, 0]
        games, reward, ended = step_all(games, action, jax.random.split(step_key, config.envs))
        return (params, games, key), Batch(state.observation, state.legal_action_mask, action, log_prob, value,
                                           reward, ended)

    def minibatch_step(carry: tuple[Params, Any], mb: tuple[Batch, jax.Array, jax.Array]) -> tuple[tuple[Params, Any], jax.Array]:
        params, opt_state = carry
        loss, grads = jax.value_and_grad(ppo_loss)(params, *mb, config)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return (optax_apply(params, updates), opt_state), loss

    def epoch(carry: tuple[Params, Any, jax.Array], data: tuple[Batch, jax.Array, jax.Array]) -> tuple[tuple[Params, Any, jax.Array], jax.Array]:
        params, opt_state, key = carry
        key, shuffle_key = jax.random.split(key)
        size = config.envs * config.steps
        order = jax.random.permutation(shuffle_key, size)
        shaped = jax.tree_util.tree_map(
            lambda x: x.reshape((size,) + x.shape[2:])[order].reshape((config.minibatches, -1) + x.shape[2:]), data)
        (params, opt_state), losses = jax.lax.scan(minibatch_step, (params, opt_state), shaped)
        return (params, opt_state, key), losses.mean()

    @jax.jit
    def update(runner: Runner) -> tuple[Runner, dict[str, jax.Array]]:
        params, opt_state, games, key = runner
        (_, games, key), batch = jax.lax.scan(rollout_step, (params, games, key), None, config.steps)
        _, last_value = policy(params, games.state.observation, games.state.legal_action_mask)
        advantages, targets = gae(batch, last_value, config.gamma, config.lam)
        key, epoch_key = jax.random.split(key)
        (params, opt_state, _), losses = jax.lax.scan(
            lambda c, _: epoch(c, (batch, advantages, targets)), (params, opt_state, epoch_key), None, config.epochs)
        finished = batch.ended.sum()
        stats = {"episodes": finished, "return_sum": (batch.reward * batch.ended).sum(),
                 "wins": ((batch.reward > 0) & batch.ended).sum(), "loss": losses.mean()}
        return Runner(params, opt_state, games, key), stats

    return update


def optax_apply(params: Params, updates: Params) -> Params:
    import optax

    return optax.apply_updates(params, updates)


# ----- evaluation against random ---------------------------------------------------------------
Act = Callable[[Any, Any, jax.Array], jax.Array]  # (context, a batch of states, key) -> actions


def make_match(env: Any, games: int, act: Act) -> Callable[[Any, jax.Array], tuple[jax.Array, jax.Array]]:
    """``match(context, key)``: ``games`` games of ``act``'s player against random, seat 0 in the
    even-numbered games, seat 1 in the odd ones, played to the end in one compiled loop; returns
    the player's final returns and each game's length in player decisions."""
    seats = jnp.arange(games, dtype=jnp.int32) % 2
    step_all = jax.vmap(lambda game, action, key: finishing_step(env, game, action, key))

    def play(context: Any, key: jax.Array) -> tuple[jax.Array, jax.Array]:
        key, reset_key = jax.random.split(key)
        start = jax.vmap(lambda seat, k: reset(env, seat, k))(seats, jax.random.split(reset_key, games))

        def playing(carry: tuple[Seat, jax.Array, jax.Array, jax.Array]) -> jax.Array:
            return ~carry[2].all()

        def turn(carry: tuple[Seat, jax.Array, jax.Array, jax.Array]) -> tuple[Seat, jax.Array, jax.Array, jax.Array]:
            game, returns, over, key = carry
            key, act_key, step_key = jax.random.split(key, 3)
            action = act(context, game.state, act_key)
            game, reward, ended = step_all(game, action, jax.random.split(step_key, games))
            return game, returns + jnp.where(over, 0.0, reward), over | ended, key

        over = done(start.state)
        returns = jnp.where(over, start.state.rewards[jnp.arange(games), seats], 0.0)
        game, returns, _, _ = jax.lax.while_loop(playing, turn, (start, returns, over, key))
        return returns, game.state._step_count

    return jax.jit(play)


def policy_act(context: tuple[Params, jax.Array], state: Any, key: jax.Array) -> jax.Array:
    """The policy's moves: argmax where ``greedy`` (the context's second item) is True, else sampled."""
    params, greedy = context
    logits, _ = policy(params, state.observation, state.legal_action_mask)
    return jnp.where(greedy, jnp.argmax(logits, axis=1), jax.random.categorical(key, logits)).astype(jnp.int32)


def finishing_step(env: Any, game: Seat, action: jax.Array, key: jax.Array) -> tuple[Seat, jax.Array, jax.Array]:
    """The learner's move and the opponent's reply, without restarting (a finished game stays)."""
    step_key, move_key = jax.random.split(key)
    was_over = done(game.state)
    state = opponent_moves(env, env.step(game.state, action, step_key), game.seat, move_key)
    reward = jnp.where(was_over, 0.0, state.rewards[game.seat])
    return Seat(state, game.seat), reward, done(state)


def make_evaluate_both(env: Any, games: int) -> Callable[[Params, jax.Array], dict[str, dict[str, Any]]]:
    """``evaluate(params, key)``: the greedy and the sampled win rates against random (the same
    key for both), compiled once."""
    match = make_match(env, games, policy_act)
    return lambda params, key: {mode: counts_record(np.asarray(match((params, jnp.asarray(mode == "greedy")), key)[0]))
                                for mode in ("greedy", "sampled")}


# ----- command line ----------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="seed of training and evaluation (default 0)")
    parser.add_argument("--quick", action="store_true", help="a short run (about a minute on 2 CPU cores)")
    parser.add_argument("--updates", type=int, default=None, help="PPO updates (default 1500, 200 with --quick)")
    parser.add_argument("--envs", type=int, default=None, help="games stepped in parallel (default 128, 64 with --quick)")
    parser.add_argument("--steps", type=int, default=32, help="learner moves per game per update (default 32)")
    parser.add_argument("--lr", type=float, default=3e-4, help="Adam's learning rate (default 3e-4)")
    parser.add_argument("--eval-games", type=int, default=None,
                        help="games per evaluation, seats alternated (default 2000, 1000 with --quick)")
    parser.add_argument("--log-every", type=int, default=None, help="updates per progress line (default: a tenth)")
    parser.add_argument("--save", default="", metavar="PATH.npz", help="write the trained parameters here")
    return parser


def print_evaluation(title: str, rates: dict[str, dict[str, Any]]) -> None:
    print(title)
    for mode, record in rates.items():
        print(f"  {mode:<8} vs random  win rate {format_rate(record)}")


def train(env: Any, config: Config, params: Params, updates: int, key: jax.Array,
          log_every: int) -> tuple[Params, list[dict[str, float]]]:
    """``updates`` PPO updates from ``params``; prints a line every ``log_every``."""
    import optax

    reset_key, key = jax.random.split(key)
    optimizer = optax.chain(optax.clip_by_global_norm(config.max_grad_norm), optax.adam(config.lr, eps=1e-5))
    seats = jnp.arange(config.envs, dtype=jnp.int32) % 2
    games = jax.jit(jax.vmap(lambda seat, k: reset(env, seat, k)))(seats, jax.random.split(reset_key, config.envs))
    runner = Runner(params, optimizer.init(params), games, key)
    update = make_update(env, config, optimizer)
    history: list[dict[str, float]] = []
    window = {"episodes": 0, "return_sum": 0.0, "wins": 0}
    clock = Clock()
    for u in range(1, updates + 1):
        runner, stats = update(runner)
        for name in window:
            window[name] += float(stats[name])
        if u % log_every == 0 or u == updates:
            wall, cpu = clock.read()
            episodes = max(window["episodes"], 1)
            line = {"update": u, "env_steps": u * config.envs * config.steps, "episodes": int(window["episodes"]),
                    "mean_return": window["return_sum"] / episodes, "win_rate": window["wins"] / episodes,
                    "loss": float(stats["loss"]), "wall": wall, "cpu": cpu}
            history.append(line)
            print(f"update {u:4d}  learner steps {line['env_steps']:8d}  episodes {line['episodes']:5d}  "
                  f"mean return {line['mean_return']:+.3f}  win rate vs random {line['win_rate']:.3f}  "
                  f"loss {line['loss']:+.4f}  {wall:5.1f}s wall {cpu:5.1f}s CPU", flush=True)
            window = {"episodes": 0, "return_sum": 0.0, "wins": 0}
    return runner.params, history


def save_params(params: Params, path: str) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as handle:  # a handle: np.savez would add .npz to another suffix
        np.savez(handle, **{name: np.asarray(value) for name, value in params.items()})
    return out


def load_params(path: str) -> Params:
    with np.load(path) as data:
        return {name: jnp.asarray(data[name]) for name in data.files}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Train, print the win rates before and after, and return them (also used by the tests)."""
    import fox_envs.jax

    args = build_parser().parse_args(argv)
    updates = pick(args.updates, args.quick, 200, 1500)
    config = Config(envs=pick(args.envs, args.quick, 64, 128), steps=args.steps, lr=args.lr)
    games = pick(args.eval_games, args.quick, 1000, 2000)
    timer, clock = Timer(), Clock()
    env = fox_envs.jax.make(ENV_ID)
    print(device_line())
    print(f"X-Ceter-O PPO in JAX vs random: {updates} updates x {config.envs} games x {config.steps} learner moves "
          f"= {updates * config.envs * config.steps} learner steps, seed {args.seed}, {games} evaluation games")
    key = jax.random.PRNGKey(args.seed)
    param_key, train_key, eval_key = jax.random.split(key, 3)
    params = init_params(param_key, int(np.prod(env.observation_shape)), env.num_actions, config.hidden)
    evaluate = make_evaluate_both(env, games)
    before = evaluate(params, eval_key)
    print_evaluation("before training:", before)
    params, history = train(env, config, params, updates, train_key, max(1, args.log_every or updates // 10))
    after = evaluate(params, eval_key)
    print_evaluation("after training:", after)
    print_before_after(before, after, prefix="")
    if args.save:
        print(f"saved the parameters to {save_params(params, args.save)}")
    wall, cpu = clock.read()
    print(f"wall time {wall:.1f}s, CPU time {cpu:.1f}s ({device_line()})")
    return {"before": before, "after": after, "history": history, "params": params, "seconds": timer.seconds,
            "cpu_seconds": cpu, "device": device_line(), "updates": updates}


if __name__ == "__main__":
    main()
