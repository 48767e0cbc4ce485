"""Helpers shared by the training examples: command-line options, timing, and win rates against
the baselines measured with ``fox_envs.evaluation.evaluate`` (seats rotated, Wilson 95 %
intervals).

The examples import this module as ``examples._common``: a script run as
``python examples/<name>.py`` first puts the repository root on ``sys.path``, so the scripts are
importable as ``examples.<module>`` and saved policies can name their factories
``examples.<module>:<callable>`` (loadable by ``python -m fox_envs arena`` run from the
repository root).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, Sequence

REPO_ROOT = Path(__file__).resolve().parents[1]


# ----- command line ----------------------------------------------------------------------------
def base_parser(description: str, epilog: str | None = None) -> argparse.ArgumentParser:
    """A parser with the options every example takes: ``--seed``, ``--quick``,
    ``--eval-games`` and ``--workers``."""
    parser = argparse.ArgumentParser(description=description, epilog=epilog,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="seed of training and evaluation (default 0)")
    parser.add_argument("--quick", action="store_true",
                        help="a short run (about a minute on 2 cores) with smaller defaults")
    parser.add_argument("--eval-games", type=int, default=None,
                        help="games per evaluation match (default: the script's, smaller with --quick)")
    parser.add_argument("--workers", type=int, default=1,
                        help="worker processes for the evaluation matches (default 1; results do not depend on it)")
    return parser


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
