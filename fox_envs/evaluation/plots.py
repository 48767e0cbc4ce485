"""PNG plots of evaluation results (needs the ``plot`` extra: ``pip install 'fox_envs[plot]'``).

* ``plot_ratings(result, path)``: a tournament's ratings (or a cooperative game's team win
  rates) as points with horizontal 95 % interval bars, best at the top.
* ``plot_cross_table(result, path)``: the pairwise scores of a competitive tournament as a heat
  map (row agent against column agent, wins + draws / 2), each score written in its cell.
* ``plot_tournament(result, path)``: both side by side in one image (the ``tournament --plot``
  command line option); a cooperative game has no cross table, so only the team win rates.
* ``plot_learning_curve(points, path)``: win rates over training, one line per opponent (or
  partner), each point with its Wilson 95 % interval.

matplotlib is imported when a plot is drawn, with the non-interactive Agg backend; without it
every function raises ``ImportError`` naming the extra.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from fox_envs.core.errors import InvalidParameterError

if TYPE_CHECKING:  # pragma: no cover
    from fox_envs.evaluation.tournament import TournamentResult

MISSING_MATPLOTLIB = "matplotlib is not installed (pip install 'fox_envs[plot]')"
COLOURS = ("tab:blue", "tab:red", "tab:green", "tab:purple", "tab:orange", "tab:brown")


def import_pyplot():
    """``matplotlib.pyplot`` on the Agg backend, or an ImportError naming the ``plot`` extra."""
    try:
        import matplotlib
    except ImportError as error:
        raise ImportError(MISSING_MATPLOTLIB) from error
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(figure, path: str | Path) -> Path:
    plt = import_pyplot()
    path = Path(path)
    figure.tight_layout()
    figure.savefig(path, dpi=100, format="png")
    plt.close(figure)
    return path


# ----- tournaments ---------------------------------------------------------------------------------
def rating_rows(result: TournamentResult) -> tuple[list[str], list[float], list[tuple[float, float]], str]:
    """``(names, values, (low, high) intervals, axis label)`` sorted best first: Bradley-Terry
    ratings of a competitive tournament, team win rates of a cooperative one."""
    if result.zero_sum:
        if result.ratings is None:
            raise InvalidParameterError("this tournament result has no ratings to plot")
        rows = [(r["name"], r["rating"], tuple(r["ci95"])) for r in result.ratings.to_list()]
        label = "rating (Bradley-Terry, Elo scale; bootstrap 95% interval)"
    else:
        rows = [(r["name"], r["team_win_rate"], tuple(r["ci95"])) for r in result.team_table() if r["games"]]
        label = "team win rate (Wilson 95% interval)"
    rows.sort(key=lambda row: -row[1])
    return [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], label


def draw_ratings(axes, result: TournamentResult) -> None:
    """Horizontal interval bars of ``rating_rows`` on ``axes``, the best agent at the top."""
    names, values, intervals, label = rating_rows(result)
    ys = list(range(len(names)))[::-1]
    errors = [[v - low for v, (low, _) in zip(values, intervals)],
              [high - v for v, (_, high) in zip(values, intervals)]]
    axes.errorbar(values, ys, xerr=errors, fmt="o", color="#d9822b", ecolor="#555555", capsize=4)
    axes.set_yticks(ys, names)
    axes.set_xlabel(label)
    axes.grid(axis="x", alpha=0.3)
    if result.zero_sum:
        axes.axvline(0.0, color="grey", linewidth=0.8, linestyle="--")
    else:
        axes.set_xlim(-0.02, 1.02)
    axes.set_title("ratings" if result.zero_sum else "team win rates")


def draw_cross_table(axes, result: TournamentResult) -> None:
    """A heat map of ``result.score(i, j)`` (0 red .. 1 green) with the score in each cell;
    rows and columns in rating order, the diagonal and unplayed pairs blank."""
    if not result.zero_sum or result.wins is None:
        raise InvalidParameterError("a cooperative tournament has no cross table (no opponents)")
    import numpy as np

    names = rating_rows(result)[0]
    index = [result.agents.index(name) for name in names]
    scores = np.array([[result.score(i, j) if i != j else math.nan for j in index] for i in index], dtype=float)
    image = axes.imshow(np.ma.masked_invalid(scores), cmap="RdYlGn", vmin=0.0, vmax=1.0)
    for r, row in enumerate(scores):
        for c, value in enumerate(row):
            if not math.isnan(value):
                axes.text(c, r, f"{value:.2f}", ha="center", va="center", fontsize=9,
                          color="black" if 0.25 < value < 0.75 else "white")
    axes.set_xticks(range(len(names)), names, rotation=30, ha="right")
    axes.set_yticks(range(len(names)), names)
    axes.set_xlabel("opponent")
    axes.set_title("score of row against column (wins + draws/2)")
    axes.figure.colorbar(image, ax=axes, fraction=0.046, pad=0.04)


def _figure_size(agents: int) -> tuple[float, float]:
    return (6.0, 1.6 + 0.45 * agents)


def plot_ratings(result: TournamentResult, path: str | Path) -> Path:
    """Save ``draw_ratings`` as a PNG at ``path``; returns the path."""
    plt = import_pyplot()
    figure, axes = plt.subplots(figsize=_figure_size(len(result.agents)))
    draw_ratings(axes, result)
    figure.suptitle(f"{result.env_id} round robin, {result.games_per_match} games per match")
    return _save(figure, path)


def plot_cross_table(result: TournamentResult, path: str | Path) -> Path:
    """Save ``draw_cross_table`` as a PNG at ``path``; returns the path."""
    plt = import_pyplot()
    side = 2.5 + 0.8 * len(result.agents)
    figure, axes = plt.subplots(figsize=(side + 1.5, side))
    draw_cross_table(axes, result)
    figure.suptitle(f"{result.env_id} round robin, {result.games_per_match} games per match")
    return _save(figure, path)


def plot_tournament(result: TournamentResult, path: str | Path) -> Path:
    """Ratings and cross table side by side (ratings only for a cooperative game) in one PNG."""
    plt = import_pyplot()
    k = len(result.agents)
    if not result.zero_sum:
        return plot_ratings(result, path)
    side = 2.5 + 0.8 * k
    figure, (left, right) = plt.subplots(1, 2, figsize=(6.0 + side + 1.5, max(side, 1.6 + 0.45 * k)),
                                         gridspec_kw={"width_ratios": [1.0, 1.1]})
    draw_ratings(left, result)
    draw_cross_table(right, result)
    figure.suptitle(f"{result.env_id} round robin, {result.games_per_match} games per match")
    return _save(figure, path)


# ----- training ------------------------------------------------------------------------------------
def plot_learning_curve(points: Sequence[Mapping[str, Any]], path: str | Path, title: str = "learning curve",
                        x: str = "step", x_label: str = "training steps", series: Sequence[str] | None = None,
                        labels: Mapping[str, str] | None = None,
                        y_label: str = "win rate (Wilson 95% interval)") -> Path:
    """Win rates over training as a PNG. ``points`` are the evaluations in order, each
    ``{x: position, name: record, ...}`` where a record has ``win_rate`` and ``ci95`` (as
    ``examples/_common.rate_record`` makes); ``series`` chooses the names drawn (default: every
    key holding a record) and ``labels`` their legend texts (default ``"vs <name>"``)."""
    if not points:
        raise InvalidParameterError("a learning curve needs at least one evaluation point")
    if series is None:
        series = [key for key, value in points[0].items() if key != x and isinstance(value, Mapping)]
    plt = import_pyplot()
    figure, axes = plt.subplots(figsize=(6.4, 4.0))
    for k, name in enumerate(series):
        rows = [(p[x], p[name]) for p in points if name in p]
        xs = [position for position, _ in rows]
        rates = [record["win_rate"] for _, record in rows]
        errors = [[r["win_rate"] - r["ci95"][0] for _, r in rows], [r["ci95"][1] - r["win_rate"] for _, r in rows]]
        axes.errorbar(xs, rates, yerr=errors, marker="o", capsize=3, color=COLOURS[k % len(COLOURS)],
                      label=(labels or {}).get(name, f"vs {name}"))
    axes.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    axes.set_ylim(-0.02, 1.02)
    axes.set_xlabel(x_label)
    axes.set_ylabel(y_label)
    axes.set_title(title)
    axes.grid(alpha=0.3)
    axes.legend(loc="best")
    return _save(figure, path)
