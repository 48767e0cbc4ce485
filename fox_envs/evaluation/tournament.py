"""Round-robin tournaments with Bradley-Terry (Elo-scale) ratings and a cross table.

Competitive games (``zero_sum``): every group of ``num_players`` distinct agents (all pairs in a
two-player game, every combination of three in a three-player game) plays one match of
``games_per_match`` games with seats rotated (``evaluate``). Each game gives one pairwise result
per pair of agents in it: the higher return wins, equal returns are a draw. Those pairwise
results fill the cross table and the ratings.

Cooperative games (``zero_sum`` False) have no opponents: each agent plays every seat of the
team for ``games_per_match`` games and the agents are ranked by team win rate (Wilson 95 %
interval); there is no cross table or rating.

Match ``m`` (in ``itertools.combinations`` order) uses seed ``SeedSequence([seed, m])``, so
the tournament is reproducible from ``seed`` whatever the number of workers.

With ``move_time`` an agent that takes longer for a move forfeits that game (``evaluate``):
a loss against every other agent in it; ``forfeits`` counts them per agent.

A worker process lost in match ``m`` stops the round robin with ``WorkerLostError``: its
message names the match and the games lost, and its ``partial`` is the ``TournamentResult`` of
every game that finished (``lost`` lists, per match, the games missing).
"""
from __future__ import annotations

import csv
import io
import itertools
import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.registry import make_game
from fox_envs.evaluation.match import (MatchResult, MatchSettings, MoveTimeError, evaluate, match_settings, seat_rotations,
                                      unique_labels)
from fox_envs.evaluation.pool import WorkerLostError, index_ranges
from fox_envs.evaluation.ratings import Ratings, rate
from fox_envs.evaluation.stats import wilson_interval


@dataclass
class TournamentResult:
    env_id: str
    params: dict
    agents: list[str]
    games_per_match: int
    seed: int
    zero_sum: bool
    matches: list[MatchResult] = field(repr=False)
    wins: np.ndarray | None = None  # wins[i, j]: pairwise games i won against j
    draws: np.ndarray | None = None
    ratings: Ratings | None = None
    lost: list[dict] = field(default_factory=list)  # a partial result (WorkerLostError): games lost per match
    forfeits: list[int] = field(default_factory=list)  # per agent: games lost by exceeding move_time
    move_time: float | None = None

    def score(self, i: int, j: int) -> float:
        games = self.wins[i, j] + self.wins[j, i] + self.draws[i, j]
        return (self.wins[i, j] + 0.5 * self.draws[i, j]) / games if games else math.nan

    def cross_table(self) -> dict[str, dict[str, dict[str, Any]]]:
        table: dict[str, dict[str, dict[str, Any]]] = {}
        if self.wins is None:
            return table
        for i, row in enumerate(self.agents):
            table[row] = {}
            for j, col in enumerate(self.agents):
                if i == j:
                    continue
                table[row][col] = {"wins": int(self.wins[i, j]), "draws": int(self.draws[i, j]),
                                   "losses": int(self.wins[j, i]), "score": _none_nan(self.score(i, j))}
        return table

    def team_table(self) -> list[dict[str, Any]]:
        rows = []
        for name, match in zip(self.agents, self.matches):
            low, high = wilson_interval(match.team_wins, match.num_games)
            rows.append({"name": name, "games": match.num_games, "team_wins": match.team_wins,
                         "team_win_rate": match.team_wins / match.num_games if match.num_games else math.nan,
                         "ci95": [low, high]})
        return sorted(rows, key=lambda r: -r["team_win_rate"] if r["games"] else math.inf)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "env_id": self.env_id, "params": self.params, "agents": self.agents,
            "games_per_match": self.games_per_match, "seed": self.seed, "zero_sum": self.zero_sum,
        }
        if self.zero_sum:
            data["ratings"] = self.ratings.to_list() if self.ratings else []
            data["cross_table"] = self.cross_table()
        else:
            data["team"] = self.team_table()
        data["move_time"] = self.move_time
        data["forfeits"] = dict(zip(self.agents, self.forfeit_counts()))
        data["matches"] = [m.to_dict() for m in self.matches]
        if self.lost:
            data["lost"] = self.lost
        return data

    def forfeit_counts(self) -> list[int]:
        """Per agent (in ``agents`` order): the games it forfeited."""
        return self.forfeits or [0] * len(self.agents)

    def to_json(self, indent: int | None = 1) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        forfeits = dict(zip(self.agents, self.forfeit_counts()))
        if not self.zero_sum:
            writer.writerow(["agent", "games", "team_wins", "team_win_rate", "ci_low", "ci_high", "forfeits"])
            for row in self.team_table():
                writer.writerow([row["name"], row["games"], row["team_wins"], f"{row['team_win_rate']:.4f}",
                                 f"{row['ci95'][0]:.4f}", f"{row['ci95'][1]:.4f}", forfeits[row["name"]]])
            return out.getvalue()
        writer.writerow(["agent", "rating", "std_error", "ci_low", "ci_high"] + [f"score_vs_{n}" for n in self.agents]
                        + ["forfeits"])
        index = {name: i for i, name in enumerate(self.agents)}
        for row in self.ratings.to_list():
            i = index[row["name"]]
            scores = ["" if i == j or math.isnan(self.score(i, j)) else f"{self.score(i, j):.4f}"
                      for j in range(len(self.agents))]
            writer.writerow([row["name"], f"{row['rating']:.1f}", f"{row['std_error']:.1f}",
                             f"{row['ci95'][0]:.1f}", f"{row['ci95'][1]:.1f}"] + scores + [forfeits[row["name"]]])
        return out.getvalue()

    def summary(self) -> str:
        lines = [f"{self.env_id} {json.dumps(self.params, sort_keys=True)}: round robin, "
                 f"{self.games_per_match} games per match, seed {self.seed}"]
        for row in self.lost:
            lines.append(f"PARTIAL RESULT: match {row['match']} ({' vs '.join(row['agents'])}) lost games "
                         f"{index_ranges(row['lost_games'])}")
        if self.move_time is not None or any(self.forfeit_counts()):
            limit = "none" if self.move_time is None else f"{self.move_time:g} s"
            lines.append(f"forfeits (move_time {limit}): "
                         + ", ".join(f"{name} {n}" for name, n in zip(self.agents, self.forfeit_counts())))
        if not self.zero_sum:
            lines.append("cooperative game: each agent plays the whole team")
            for row in self.team_table():
                lines.append(f"  {row['name']:<20} team win rate {row['team_win_rate']:.3f} "
                             f"[{row['ci95'][0]:.3f}, {row['ci95'][1]:.3f}] ({row['team_wins']}/{row['games']})")
            return "\n".join(lines)
        lines.append("ratings (Bradley-Terry, Elo scale, mean 0; bootstrap 95% CI):")
        for row in self.ratings.to_list():
            lines.append(f"  {row['name']:<20} {row['rating']:+7.1f}  +- {row['std_error']:5.1f}  "
                         f"[{row['ci95'][0]:+7.1f}, {row['ci95'][1]:+7.1f}]")
        width = max(len(a) for a in self.agents)
        lines.append("cross table (score of row against column, wins + draws/2):")
        lines.append(" " * (width + 2) + " ".join(f"{a[:10]:>10}" for a in self.agents))
        for i, row in enumerate(self.agents):
            cells = ["—".rjust(10) if i == j else f"{self.score(i, j):10.3f}" for j in range(len(self.agents))]
            lines.append(f"{row:<{width}}  " + " ".join(cells))
        return "\n".join(lines)

    def save(self, json_path: str | Path | None = None, csv_path: str | Path | None = None) -> None:
        if json_path:
            Path(json_path).write_text(self.to_json() + "\n", encoding="utf-8")
        if csv_path:
            Path(csv_path).write_text(self.to_csv(), encoding="utf-8")


def _none_nan(value: float) -> float | None:
    return None if math.isnan(value) else value


def match_seed(seed: int, match_index: int) -> int:
    return int(np.random.SeedSequence([seed, match_index]).generate_state(1, dtype=np.uint32)[0])


def round_robin(env_id: str, agents: Sequence[Any], games_per_match: int = 100, seed: int = 0,
                workers: int = 1, params: dict | None = None, bootstrap: int = 200,
                settings: MatchSettings | None = None, **options: Any) -> TournamentResult:
    """Play the round robin described in the module doc and rate the agents (``bootstrap``
    resamples for the ratings' intervals).

    The match options are those of ``evaluate`` (``MatchSettings``: ``max_moves``, ``rotation``,
    ``progress``, ``backend``, ``ray_address``, ``move_time``, ``on_timeout``; one ``settings`` object, keywords, or both) except
    ``keep_records``: the round robin keeps the records it rates. ``progress(done, total)``
    counts the games of every match; with ``backend="ray"`` one Ray session serves every match."""
    settings = match_settings(settings, options, where="round_robin", refused=("keep_records",))
    if settings.keep_records:
        raise InvalidParameterError("round_robin keeps the records it rates: give settings with keep_records=False")
    if settings.backend == "ray":
        from fox_envs.evaluation.ray_pool import ray_session

        with ray_session(settings.ray_address):
            return _round_robin(env_id, agents, games_per_match, seed, workers, params, bootstrap, settings)
    return _round_robin(env_id, agents, games_per_match, seed, workers, params, bootstrap, settings)


def _round_robin(env_id: str, agents: Sequence[Any], games_per_match: int, seed: int, workers: int,
                 params: dict | None, bootstrap: int, settings: MatchSettings) -> TournamentResult:
    game = make_game(env_id, **dict(params or {}))
    specs = list(agents)
    labels = unique_labels(specs)
    k, n = len(specs), game.num_players
    if k < 2:
        raise InvalidParameterError("a tournament needs at least two agents")
    groups = [(i,) for i in range(k)] if not game.zero_sum else list(itertools.combinations(range(k), n))
    if not groups:
        raise InvalidParameterError(f"{env_id} has {n} seats: a round robin needs at least {n} agents, got {k}")
    total = len(groups) * games_per_match
    matches: list[MatchResult] = []
    for m, group in enumerate(groups):
        done, progress = m * games_per_match, settings.progress
        callback = (lambda d, t, base=done: progress(base + d, total)) if progress else None
        match_options = replace(settings, keep_records=game.zero_sum, progress=callback)
        try:
            matches.append(evaluate(env_id, [specs[i] for i in group], games_per_match, match_seed(seed, m),
                                    workers, params=game.params, settings=match_options))
        except MoveTimeError as error:  # on_timeout="error": the round robin stops here
            error.add_note(f"(in round robin match {m}: {' vs '.join(labels[i] for i in group)})")
            raise
        except WorkerLostError as error:  # keep every finished game; say which were lost
            matches.append(error.partial)
            lost = [{"match": m, "agents": [labels[i] for i in group], "lost_games": error.partial.lost_games}]
            lost += [{"match": later, "agents": [labels[i] for i in groups[later]],
                      "lost_games": list(range(games_per_match))} for later in range(m + 1, len(groups))]
            partial = _tournament_result(env_id, game, labels, groups, matches, games_per_match, seed, bootstrap,
                                         settings, lost)
            not_played = f"matches {m + 1}-{len(groups) - 1} not played" if m + 1 < len(groups) else "no match left"
            raise WorkerLostError(
                f"round robin stopped in match {m} ({' vs '.join(lost[0]['agents'])}): {error}; "
                f"{m} earlier match(es) kept, {not_played}",
                error.lost_games, error.unplayed_games, partial) from error
    return _tournament_result(env_id, game, labels, groups, matches, games_per_match, seed, bootstrap,
                              settings, [])


def _tournament_result(env_id, game, labels, groups, matches, games_per_match, seed, bootstrap,
                       settings: MatchSettings, lost) -> TournamentResult:
    """The result of ``matches`` (played by ``groups[:len(matches)]``), with cross table and
    ratings for a competitive game."""
    forfeits = [0] * len(labels)
    for group, match in zip(groups, matches):
        for agent, agent_result in zip(group, match.results):  # a match's results are in its group's order
            forfeits[agent] += agent_result.forfeits
    rotation = settings.rotation
    result = TournamentResult(env_id, dict(game.params), labels, games_per_match, seed, game.zero_sum, matches,
                              lost=lost, forfeits=forfeits, move_time=settings.move_time)
    if not game.zero_sum:
        return result
    k, n = len(labels), game.num_players
    wins = np.zeros((k, k), dtype=np.int64)
    draws = np.zeros((k, k), dtype=np.int64)
    for group, match in zip(groups, matches):
        orders = seat_rotations(len(group), rotation)
        for record in match.records:
            order = orders[record.game_index % len(orders)]
            agent_at = [group[a] for a in order]  # seat -> tournament agent index
            for s, t in itertools.combinations(range(n), 2):
                i, j = agent_at[s], agent_at[t]
                rs, rt = record.returns[s], record.returns[t]
                if rs > rt:
                    wins[i, j] += 1
                elif rt > rs:
                    wins[j, i] += 1
                else:
                    draws[i, j] += 1
                    draws[j, i] += 1
        match.records = []
    result.wins, result.draws = wins, draws
    result.ratings = rate(labels, wins, draws, bootstrap=bootstrap, seed=seed)
    return result

