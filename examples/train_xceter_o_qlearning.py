"""Tabular Q-learning on X-Ceter-O through the PettingZoo AEC API (numpy only).

    python examples/train_xceter_o_qlearning.py [--quick] [--seed 0] [--episodes N] [--save q.npz]

The learner sees only what the public ``env()`` gives an agent: ``env.last()``'s observation
tensor and action mask, and its reward. It keys a Q-table on the observation (from the mover's
side: which of its own / the opponent's pieces stands on each square, and which own piece moves
next), reduced by the 8 symmetries of the board, and learns with one-step Q-learning per seat,
the other seat being part of the environment:

    Q(s, a) += alpha * (r + gamma * max_a' Q(s', a') - Q(s, a))

where ``s'`` is the learner's next observation (after the opponent's reply) and ``r`` the final
reward (+1 win, -1 loss, 0 draw/truncation). Each training game is, at random, self-play (both
seats learn from one shared table), or the learner against ``random`` or ``heuristic``.
Exploration is epsilon-greedy, with epsilon decaying linearly.

Before and after training it prints the greedy learner's win rate against ``random`` and
``heuristic`` (``fox_envs.evaluation.evaluate``, seats rotated, Wilson 95 % intervals).
``--save`` writes the table as a ``fox_envs.policy/1`` ``.npz`` file that loads wherever
fox_envs is installed: ``python -m fox_envs arena xceter_o_v0 q.npz random`` plays it (the
policy class is ``fox_envs.games.xceter_o.trained_q.QAgent``). Progress: a line every fifth
of training with the greedy table's win rates (a quarter of the evaluation games); the learning
curve goes to ``--plot``.

Measured run times (seed 0, a shared 2-core machine at load average 11-17, so wall time is
mostly waiting for a CPU): the full run (60,000 games, 1,000 evaluation games per opponent)
52 s wall, 21 s CPU; ``--quick`` (10,000 games, 200 evaluation games) 12.5 s wall, 4 s CPU.
"""
from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from typing import Any, Callable, Sequence

import numpy as np

from examples._common import (
    Timer, add_plot_option, against_baselines, base_parser, curve_point, curve_recorder, pick, print_before_after,
    print_rates, write_learning_curve,
)
from fox_envs.games.xceter_o.trained_q import (  # noqa: F401  (the policy lives in the package)
    ENV_ID, FACTORY, SYM, QAgent, QTable, encode, greedy, load_agent,
)
from fox_envs.games.xceter_o.trained_q import save_q_table as save


# ----- training through the AEC API -------------------------------------------------------------
OPPONENTS = ("self", "random", "heuristic")


def parse_mix(text: str) -> dict[str, float]:
    """``"self=2,random=1,heuristic=1"`` -> normalised weights."""
    weights = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = part.partition("=")
        if name not in OPPONENTS:
            raise SystemExit(f"--mix: unknown opponent {name!r}; use {', '.join(OPPONENTS)}")
        weights[name] = float(value or 1)
    total = sum(weights.values())
    if total <= 0:
        raise SystemExit("--mix: the weights must add up to more than 0")
    return {name: w / total for name, w in weights.items()}


def train(episodes: int, seed: int = 0, mix: dict[str, float] | None = None, alpha: float = 0.3,
          gamma: float = 0.95, epsilon_start: float = 0.3, epsilon_end: float = 0.02,
          table: QTable | None = None, log_every: int = 0,
          on_report: Callable[[int, QTable], None] | None = None) -> QTable:
    """Q-learning for ``episodes`` games through ``fox_envs.make("xceter_o_v0")`` (AEC). Every
    ``log_every`` games it prints a progress line and calls ``on_report(games done, table)``."""
    import fox_envs
    from fox_envs.agents import make_agent

    mix = mix or {"self": 0.5, "random": 0.25, "heuristic": 0.25}
    names = list(mix)
    probabilities = np.array([mix[n] for n in names])
    table = table or QTable()
    rng = np.random.default_rng(seed)
    baselines = {name: make_agent(name, ENV_ID, seed=seed + 1) for name in names if name != "self"}
    env = fox_envs.make(ENV_ID)
    outcomes = {name: [0, 0, 0] for name in names}  # learner wins / draws / losses (seat 0 in self-play)
    timer = Timer()
    for episode in range(episodes):
        epsilon = epsilon_start + (epsilon_end - epsilon_start) * episode / max(1, episodes - 1)
        kind = names[int(rng.choice(len(names), p=probabilities))]
        learner_seats = {0, 1} if kind == "self" else {episode % 2}
        opponent = baselines.get(kind)
        if opponent is not None:
            opponent.reset(int(rng.integers(2**31)))
        env.reset(seed=int(rng.integers(2**31)))
        previous: dict[int, tuple[np.ndarray, int]] = {}  # seat -> (row, canonical action)
        final = 0.0
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            seat = int(agent[-1])
            done = termination or truncation
            if seat in learner_seats:
                if done:
                    target = reward
                    if seat == min(learner_seats):
                        final = reward
                else:
                    key, v = encode(observation["observation"])
                    row = table.values.get(key)
                    legal = np.flatnonzero(observation["action_mask"][SYM[v]])
                    target = gamma * float(row[legal].max()) if row is not None else 0.0
                if seat in previous:
                    row_p, a_p = previous[seat]
                    row_p[a_p] += alpha * (target - row_p[a_p])
                if done:
                    env.step(None)
                    continue
                action, key, canonical = greedy(table, observation["observation"], observation["action_mask"],
                                                rng, epsilon)
                previous[seat] = (table.row(key), canonical)
                env.step(action)
            elif done:
                env.step(None)
            else:
                env.step(opponent.act(env.unwrapped.game_state, seat))
        outcomes[kind][0 if final > 0 else 2 if final < 0 else 1] += 1
        if log_every and (episode + 1) % log_every == 0:
            parts = ", ".join(f"{name} {w}/{d}/{l}" for name, (w, d, l) in outcomes.items())
            print(f"  episode {episode + 1:>7}: {len(table.values):>6} states, epsilon {epsilon:.3f}, "
                  f"W/D/L since last report: {parts}  ({timer.seconds:.0f}s)", flush=True)
            outcomes = {name: [0, 0, 0] for name in names}
            if on_report is not None:
                on_report(episode + 1, table)
    env.close()
    return table


# ----- main ---------------------------------------------------------------------------------------
def build_parser():
    parser = base_parser(__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--episodes", type=int, default=None,
                        help="training games (default 60000; 10000 with --quick)")
    parser.add_argument("--mix", default="self=2,random=1,heuristic=1",
                        help="training opponents and their weights (default self=2,random=1,heuristic=1)")
    parser.add_argument("--alpha", type=float, default=0.3, help="learning rate (default 0.3)")
    parser.add_argument("--gamma", type=float, default=0.95, help="discount (default 0.95: quicker wins score more)")
    parser.add_argument("--save", metavar="PATH.npz", help="write the learned table as a policy file")
    add_plot_option(parser, "results/xceter_o_qlearning_curve.png")
    return parser


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Train, print the win rates before and after, and return them (also used by the tests)."""
    args = build_parser().parse_args(argv)
    episodes = pick(args.episodes, args.quick, 10000, 60000)
    games = pick(args.eval_games, args.quick, 200, 1000)
    timer = Timer()
    print(f"X-Ceter-O tabular Q-learning: {episodes} training games ({args.mix}), seed {args.seed}, "
          f"{games} evaluation games per opponent")
    table = QTable()
    before = against_baselines(ENV_ID, QAgent(table), games, args.seed + 1000, args.workers)
    print_rates("before training (empty table: uniformly random moves):", before)
    curve = [curve_point(0, before, "games")]
    curve_games = max(20, games // 4)
    evaluate = curve_recorder(curve, lambda table: against_baselines(ENV_ID, QAgent(table), curve_games,
                                                                      args.seed + 1000, args.workers),
                              f"greedy on the table ({curve_games} games each)", until=episodes)

    train_timer = Timer()
    table = train(episodes, seed=args.seed, mix=parse_mix(args.mix), alpha=args.alpha, gamma=args.gamma,
                  log_every=max(1, episodes // 5), on_report=evaluate)
    train_seconds = train_timer.seconds
    print(f"trained in {train_seconds:.1f}s: {len(table.values)} canonical states in the table")
    after = against_baselines(ENV_ID, QAgent(table), games, args.seed + 1000, args.workers)
    print_rates("after training (greedy on the table):", after)
    print_before_after(before, after)
    curve.append(curve_point(episodes, after, "games"))
    write_learning_curve(curve, args.plot, f"X-Ceter-O tabular Q-learning, seed {args.seed}", x="games",
                         x_label="training games")
    if args.save:
        path = save(table, args.save)
        print(f"saved {path}; play it with:\n"
              f"  python -m fox_envs arena {ENV_ID} {path} random --games 200")
    print(f"wall time {timer.seconds:.1f}s")
    return {"before": before, "after": after, "curve": curve, "episodes": episodes, "states": len(table.values),
            "train_seconds": train_seconds, "seconds": timer.seconds, "table": table}


if __name__ == "__main__":
    main()
