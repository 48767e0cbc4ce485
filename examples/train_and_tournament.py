"""Train a policy, save it to a file, and rank it in a round robin with the baselines.

    python examples/train_and_tournament.py [--quick] [--seed 0] [--out policies/xceter_o_q.npz]

1. Trains the tabular Q-learner of ``examples/train_xceter_o_qlearning.py`` on X-Ceter-O.
2. Saves it as a ``fox_envs.policy/1`` ``.npz`` file (``fox_envs.agents.save_policy``): the
   table's arrays plus the factory ``fox_envs.games.xceter_o.trained_q:load_agent``.
3. Loads it back by path with ``fox_envs.agents.make_agent(path, env_id)`` (exactly what the
   command line does) and checks it plays the same moves as the trained table.
4. Plays a round robin (``fox_envs.evaluation.round_robin``) between the saved policy (given by
   its path), ``random`` and ``heuristic`` (plus any ``--extra`` agents such as
   ``mcts:simulations=100``), seats rotated, and prints the ratings and the cross table.
5. Prints the command that plays the saved policy:
   ``python -m fox_envs arena xceter_o_v0 policies/xceter_o_q.npz random``.

The factory is in the fox_envs package, so the file loads from any working directory. The
learning curve (win rates of the greedy table at every fifth of training, ``games // 4``
evaluation games each) goes to ``--plot``.

Measured run time of ``--quick`` (10,000 games, 200 games per pair; seed 0, a shared 2-core
machine at load average 13): 11 s wall, 4.3 s CPU.
"""
from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from typing import Any, Sequence

from examples._common import (
    REPO_ROOT, Timer, add_plot_option, against_baselines, base_parser, curve_recorder, format_rate, pick,
    rate_record, write_learning_curve,
)
from examples.train_xceter_o_qlearning import ENV_ID, QAgent, parse_mix, save, train

DEFAULT_OUT = "policies/xceter_o_q.npz"


def same_moves(a: Any, b: Any, games: int = 20, seed: int = 0) -> bool:
    """Whether two agents choose the same action in every position of ``games`` random games
    (both reset with the same seeds)."""
    import fox_envs
    from fox_envs.agents import RandomAgent

    game = fox_envs.make_game(ENV_ID)
    walker = RandomAgent(seed)
    for index in range(games):
        state = game.new_initial_state()
        while not state.is_terminal() and len(state.history()) < 60:
            player = state.current_player()
            a.reset(index)
            b.reset(index)
            if a.act(state, player) != b.act(state, player):
                return False
            state.apply_action(walker.act(state, player))
    return True


def build_parser():
    parser = base_parser(__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--episodes", type=int, default=None,
                        help="training games (default 50000; 10000 with --quick)")
    parser.add_argument("--mix", default="self=2,random=1,heuristic=1", help="training opponents (see the Q-learning example)")
    parser.add_argument("--out", default=DEFAULT_OUT, help=f"policy file to write (default {DEFAULT_OUT})")
    parser.add_argument("--extra", nargs="*", default=[], metavar="AGENT",
                        help="more agents for the round robin, e.g. mcts:simulations=100")
    parser.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples of the ratings (default 200)")
    add_plot_option(parser, "results/xceter_o_q_curve.png")
    return parser


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Train, save, reload, play the round robin; return the tournament result (for the tests)."""
    from fox_envs.agents import make_agent
    from fox_envs.evaluation import round_robin

    args = build_parser().parse_args(argv)
    episodes = pick(args.episodes, args.quick, 10000, 50000)
    games = pick(args.eval_games, args.quick, 200, 1000)
    timer = Timer()
    print(f"X-Ceter-O: train a Q-table ({episodes} games), save it, round robin ({games} games per pair), seed {args.seed}")
    curve_games = max(20, games // 4)
    curve: list[dict[str, Any]] = []
    evaluate = curve_recorder(curve, lambda table: against_baselines(ENV_ID, QAgent(table), curve_games,
                                                                      args.seed + 1000, args.workers),
                              f"greedy on the table ({curve_games} games each)")
    table = train(episodes, seed=args.seed, mix=parse_mix(args.mix), log_every=max(1, episodes // 5),
                  on_report=evaluate)
    print(f"trained in {timer.seconds:.1f}s: {len(table.values)} canonical states")
    write_learning_curve(curve, args.plot, f"X-Ceter-O Q-table, seed {args.seed}", x="games", x_label="training games")

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    path = save(table, out)
    print(f"saved {path} ({path.stat().st_size / 1024:.0f} KiB, format fox_envs.policy/1)")
    loaded = make_agent(str(path), ENV_ID, seed=0)
    if not same_moves(loaded, QAgent(table)):
        raise SystemExit(f"the policy loaded from {path} does not play like the trained table")
    print(f"reloaded it with make_agent({str(path)!r}, {ENV_ID!r}): same moves as the trained table")

    spec = str(path)
    agents = [spec, "random", "heuristic", *args.extra]
    tournament_timer = Timer()
    result = round_robin(ENV_ID, agents, games + games % 2, seed=args.seed + 1000, workers=args.workers,
                         bootstrap=args.bootstrap)
    print(result.summary())
    print(f"round robin took {tournament_timer.seconds:.1f}s")
    rates = {}
    for match in result.matches:
        if spec in match.agents:
            mine = match[spec]
            other = next(name for name in match.agents if name != spec)
            rates[other] = rate_record(mine.wins, mine.draws, mine.losses)
    print("the saved policy's win rate per opponent (seats rotated, Wilson 95% interval):")
    for other, record in rates.items():
        print(f"  vs {other:<24} {format_rate(record)}")
    try:
        shown = path.resolve().relative_to(REPO_ROOT)
    except ValueError:
        shown = path
    print("play it again (from any directory) with:\n"
          f"  python -m fox_envs arena {ENV_ID} {shown} random --games 200\n"
          f"  python -m fox_envs tournament {ENV_ID} {shown} random heuristic --games 200")
    print(f"wall time {timer.seconds:.1f}s")
    return {"path": path, "tournament": result, "rates": rates, "episodes": episodes, "seconds": timer.seconds}


if __name__ == "__main__":
    main()
