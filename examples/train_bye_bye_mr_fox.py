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
team.
"""
from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from typing import Any, Sequence

import numpy as np

from examples._common import Timer, base_parser, format_rate, pick, print_before_after, team
from fox_envs.agents import SeededAgent
from fox_envs.games.bye_bye_mr_fox import (  # the action and observation layout of the rules module
    GIVE_ACTION, OBS_NEST_CIRCLES, OBS_NESTS, OBS_SIZE, OBS_VISIBLE,
)

ENV_ID = "bye_bye_mr_fox_v0"
FACTORY = "examples.train_bye_bye_mr_fox:load_agent"


# ----- the value network ----------------------------------------------------------------------
class ValueNet:
    """``p = sigmoid(w2 . tanh(W1 x + b1) + b2)``: estimated win probability of afterstates."""

    def __init__(self, inputs: int, hidden: int = 64, seed: int = 0, lr: float = 3e-3) -> None:
        rng = np.random.default_rng(seed)
        self.params = {
            "W1": rng.normal(0.0, 1.0 / np.sqrt(inputs), (inputs, hidden)),
            "b1": np.zeros(hidden),
            "w2": rng.normal(0.0, 1.0 / np.sqrt(hidden), hidden),
            "b2": np.zeros(1),
        }
        self.lr = lr
        self.moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in self.params.items()}
        self.steps = 0

    def predict(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        hidden = np.tanh(x @ p["W1"] + p["b1"])
        return 1.0 / (1.0 + np.exp(-(hidden @ p["w2"] + p["b2"][0])))

    def update(self, x: np.ndarray, target: np.ndarray) -> float:
        """One Adam step on the mean cross-entropy between the prediction and ``target``."""
        p = self.params
        hidden = np.tanh(x @ p["W1"] + p["b1"])
        out = 1.0 / (1.0 + np.exp(-(hidden @ p["w2"] + p["b2"][0])))
        delta = (out - target) / len(target)  # d loss / d logit
        grads = {"w2": hidden.T @ delta, "b2": np.array([delta.sum()])}
        back = np.outer(delta, p["w2"]) * (1.0 - hidden**2)
        grads["W1"] = x.T @ back
        grads["b1"] = back.sum(axis=0)
        self.steps += 1
        beta1, beta2 = 0.9, 0.999
        for name, grad in grads.items():
            m, v = self.moments[name]
            m *= beta1
            m += (1 - beta1) * grad
            v *= beta2
            v += (1 - beta2) * grad**2
            m_hat = m / (1 - beta1**self.steps)
            v_hat = v / (1 - beta2**self.steps)
            p[name] -= self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)
        return float(np.mean(np.abs(out - target)))

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: v.astype(np.float32) for k, v in self.params.items()}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "ValueNet":
        net = cls(arrays["W1"].shape[0], arrays["W1"].shape[1])
        net.params = {k: np.asarray(arrays[k], dtype=np.float64).copy() for k in ("W1", "b1", "w2", "b2")}
        return net


# ----- afterstates --------------------------------------------------------------------------------
OPPOSITE = [3, 4, 5, 0, 1, 2]  # the spinner's back end at N<b> pairs with the front at sector b+3
NUM_FEATURES = OBS_SIZE + 1 + 30 + 10 + 6


def features(observations: np.ndarray, spin_pending: np.ndarray) -> np.ndarray:
    """The network's inputs for a batch of afterstates (one row each): the observation tensor,
    a 1 when the spinner is still to come, and the spinner's pairings read off the observation:
    for each nest circle the egg on it times the picture (black, brown, white, fox, three hens)
    it would be sent to (30), those summed over the circles (5), how many sectors show each
    picture (5), and for each hen colour its missing eggs times the sectors showing it and
    times the eggs paired with it (6)."""
    eggs = observations[:, OBS_NEST_CIRCLES:OBS_NEST_CIRCLES + 6]
    visible = observations[:, OBS_VISIBLE:OBS_VISIBLE + 30].reshape(-1, 6, 5)
    paired = eggs[:, :, None] * visible[:, OPPOSITE]  # (batch, 6 circles, 5 pictures)
    paired_sum = paired.sum(axis=1)
    showing = visible.sum(axis=1)
    missing = 1.0 - observations[:, OBS_NESTS:OBS_NESTS + 3]
    return np.concatenate([observations, spin_pending[:, None], paired.reshape(len(observations), -1), paired_sum,
                           showing, missing * showing[:, :3], missing * paired_sum[:, :3]], axis=1)


def afterstates(state) -> tuple[list[int], np.ndarray, np.ndarray]:
    """``(legal actions, features, terminal values)`` of each decision of the player to move
    (terminal values: 1 / 0 when the decision ends the game won / lost, NaN otherwise)."""
    legal = state.legal_actions()
    observations = np.empty((len(legal), OBS_SIZE), dtype=np.float64)
    terminal = np.full(len(legal), np.nan)
    for i, action in enumerate(legal):
        after = state.clone()
        after.apply_action(action)
        if after.is_terminal():
            terminal[i] = 1.0 if after.returns()[0] > 0 else 0.0
        observations[i] = after.observation_tensor(0)
    spin_pending = (np.asarray(legal) < GIVE_ACTION).astype(np.float64)  # a placement: the spin follows
    return legal, features(observations, spin_pending), terminal


def choose(net: ValueNet, state, rng: np.random.Generator, epsilon: float = 0.0) -> tuple[int, np.ndarray, float]:
    """``(action, its afterstate features, its terminal value or NaN)``: the decision with the
    highest estimated win probability (epsilon-greedy), ties broken at random."""
    legal, features, terminal = afterstates(state)
    if epsilon > 0.0 and rng.random() < epsilon:
        i = int(rng.integers(len(legal)))
    else:
        values = np.where(np.isnan(terminal), net.predict(features), terminal)
        best = np.flatnonzero(values >= values.max() - 1e-12)
        i = int(best[rng.integers(len(best))]) if len(best) > 1 else int(best[0])
    return legal[i], features[i], float(terminal[i])


class AfterstateAgent(SeededAgent):
    """The greedy learned policy as a fox_envs agent (``act(state, player)``); ties are broken
    with the agent's seeded rng."""

    name = "td-learner"

    def __init__(self, net: ValueNet, seed: int | None = None) -> None:
        super().__init__(seed)
        self.net = net

    def act(self, state, player: int) -> int:
        return choose(self.net, state, self.rng)[0]


def load_agent(env_id: str = ENV_ID, seed: int | None = None, arrays: dict[str, np.ndarray] | None = None,
               **_: Any) -> AfterstateAgent:
    """Factory of a saved ``.npz`` policy (``fox_envs.agents.load_policy`` calls it)."""
    if env_id != ENV_ID:
        raise ValueError(f"this value network plays {ENV_ID}, not {env_id}")
    if not arrays or any(k not in arrays for k in ("W1", "b1", "w2", "b2")):
        raise ValueError("a value-network policy file needs the arrays W1, b1, w2, b2")
    return AfterstateAgent(ValueNet.from_arrays(arrays), seed)


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
          net: ValueNet | None = None, log_every: int = 0) -> ValueNet:
    """Self-play TD(lambda) on afterstates for ``episodes`` games through the AEC env."""
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
    train_timer = Timer()
    net = train(episodes, seed=args.seed, lam=args.lam, lr=args.lr, net=net, log_every=max(1, episodes // 5))
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
    if args.save:
        from fox_envs.agents import save_policy

        path = save_policy(args.save, FACTORY, ENV_ID, arrays=net.arrays())
        print(f"saved {path}; play it from the repository root with:\n"
              f"  python -m fox_envs arena {ENV_ID} {path} --games 400")
    print(f"wall time {timer.seconds:.1f}s")
    return {"before": before, "after": after, "baselines": baselines, "episodes": episodes,
            "train_seconds": train_seconds, "seconds": timer.seconds, "net": net}


if __name__ == "__main__":
    main()
