"""Helpers shared by the training examples: command-line options, timing, win rates against
the baselines measured with ``fox_envs.evaluation.evaluate`` (seats rotated, Wilson 95 %
intervals) and the learning-curve PNG.

The examples import this module as ``examples._common``: a script run as
``python examples/<name>.py`` first puts the repository root on ``sys.path``. The policies they
train live in the package (``fox_envs.agents.trained``), so the files they save load from any
working directory.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, Callable, Sequence

REPO_ROOT = Path(__file__).resolve().parents[1]


# ----- command line ----------------------------------------------------------------------------
def base_parser(description: str, epilog: str | None = None) -> argparse.ArgumentParser:
    """A parser with the options every example takes: ``--seed``, ``--quick``,
    ``--eval-games`` and ``--workers``."""
    parser = argparse.ArgumentParser(description=description, epilog=epilog,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="seed of training and evaluation (default 0)")
    parser.add_argument("--quick", action="store_true",
                        help="a short run with smaller defaults (the measured time is in the script's description)")
    parser.add_argument("--eval-games", type=int, default=None,
                        help="games per evaluation match (default: the script's, smaller with --quick)")
    parser.add_argument("--workers", type=int, default=1,
                        help="worker processes for the evaluation matches (default 1; results do not depend on it)")
    return parser


def add_plot_option(parser: argparse.ArgumentParser, default: str) -> None:
    """``--plot PATH``: where the learning curve goes (default ``default``; ``''`` for none)."""
    parser.add_argument("--plot", default=default, metavar="PATH.png",
                        help=f"write the learning curve (win rates over training, 95%% intervals) here "
                             f"(default {default}; '' for none; needs pip install 'fox_envs[plot]')")


def pick(value: Any, quick: bool, quick_default: Any, full_default: Any) -> Any:
    """``value`` if given on the command line, else the quick or the full default."""
    if value is not None:
        return value
    return quick_default if quick else full_default


class Timer:
    def __init__(self) -> None:
        self.start = time.perf_counter()

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.start


# ----- evaluation ------------------------------------------------------------------------------
def even(games: int) -> int:
    """Round up to an even number so both seat orders of a two-player match are played equally."""
    return games + (games % 2)


def rate_record(wins: int, draws: int, losses: int) -> dict[str, Any]:
    """Counts plus the win rate and its Wilson 95 % interval."""
    from fox_envs.evaluation import wilson_interval

    games = wins + draws + losses
    low, high = wilson_interval(wins, games)
    return {"games": games, "wins": wins, "draws": draws, "losses": losses,
            "win_rate": wins / games if games else float("nan"), "ci95": (low, high)}


def format_rate(record: dict[str, Any]) -> str:
    low, high = record["ci95"]
    return (f"{record['win_rate']:.3f} [{low:.3f}, {high:.3f}]  "
            f"(W {record['wins']} / D {record['draws']} / L {record['losses']})")


def versus(env_id: str, agent: Any, opponent: Any, games: int, seed: int, workers: int = 1,
           **params: Any) -> dict[str, Any]:
    """The agent's win rate against ``opponent`` in a two-player game, seats rotated (each plays
    each seat in half of the games)."""
    from fox_envs.evaluation import evaluate

    result = evaluate(env_id, [agent, opponent], num_games=even(games), seed=seed, workers=workers,
                      params=params or None)
    mine = result.results[0]
    return rate_record(mine.wins, mine.draws, mine.losses)


def team(env_id: str, agents: Sequence[Any], games: int, seed: int, workers: int = 1,
         **params: Any) -> dict[str, Any]:
    """Team win rate of a cooperative game; ``agents`` is one agent for every seat, or one per
    seat (seats rotated)."""
    from fox_envs.evaluation import evaluate

    agents = list(agents)
    if len(agents) > 1:
        games = even(games)
    result = evaluate(env_id, agents, num_games=games, seed=seed, workers=workers, params=params or None)
    return rate_record(result.team_wins, 0, result.num_games - result.team_wins)


def against_baselines(env_id: str, agent: Any, games: int, seed: int, workers: int = 1,
                      opponents: Sequence[str] = ("random", "heuristic"), **params: Any) -> dict[str, dict[str, Any]]:
    """``{opponent: win-rate record}`` for each baseline."""
    return {opponent: versus(env_id, agent, opponent, games, seed + k, workers, **params)
            for k, opponent in enumerate(opponents)}


def print_rates(title: str, rates: dict[str, dict[str, Any]], prefix: str = "vs ") -> None:
    print(title)
    for opponent, record in rates.items():
        print(f"  {prefix}{opponent:<10} win rate {format_rate(record)}")


def print_before_after(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]],
                       prefix: str = "vs ") -> None:
    """A two-column summary: win rate (95 % interval) before and after training."""
    print("summary (win rate [95% interval], seats rotated):")
    for opponent in after:
        b, a = before.get(opponent), after[opponent]
        left = f"{b['win_rate']:.3f} [{b['ci95'][0]:.3f}, {b['ci95'][1]:.3f}]" if b else "-"
        right = f"{a['win_rate']:.3f} [{a['ci95'][0]:.3f}, {a['ci95'][1]:.3f}]"
        print(f"  {prefix}{opponent:<12} before {left}   after {right}   ({a['games']} games)")


# ----- learning curve --------------------------------------------------------------------------
def curve_point(x_value: int, rates: dict[str, dict[str, Any]], x: str = "step") -> dict[str, Any]:
    """One evaluation of the learning curve: ``{x: x_value, name: win-rate record, ...}``."""
    return {x: x_value, **rates}


def curve_recorder(curve: list[dict[str, Any]], rates_of: Callable[[Any], dict[str, dict[str, Any]]],
                   description: str, prefix: str = "vs ", until: int | None = None) -> Callable[[int, Any], None]:
    """A training callback ``(games done, model)``: measure ``rates_of(model)``, append it to
    ``curve`` and print it as ``description: vs random 0.820 [0.692, 0.902], ...``. Nothing is
    measured from ``until`` games on (the full evaluation after training takes that point)."""
    def record(done: int, model: Any) -> None:
        if until is not None and done >= until:
            return
        rates = rates_of(model)
        curve.append(curve_point(done, rates, "games"))
        print(f"    {description}: " + ", ".join(
            f"{prefix}{name} {r['win_rate']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}]"
            for name, r in rates.items()),
            flush=True)
    return record


def write_learning_curve(points: Sequence[dict[str, Any]], path: str, title: str, x: str = "step",
                         x_label: str = "training steps", **options: Any) -> Path | None:
    """Draw the curve with ``fox_envs.evaluation.plot_learning_curve`` (``options``: its
    ``labels``, ``y_label``...) and say where it went;
    without matplotlib, say what to install and go on (the training result is printed anyway)."""
    if not path:
        return None
    from fox_envs.evaluation import plot_learning_curve

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    try:
        written = plot_learning_curve(points, path, title=title, x=x, x_label=x_label, **options)
    except ImportError as error:
        print(f"no learning curve: {error}")
        return None
    print(f"learning curve written to {written}")
    return written
