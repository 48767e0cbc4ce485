"""Evaluation: matches (``evaluate``), round-robin tournaments with ratings, game records and
the confidence intervals they report. See ``docs/evaluation.md``."""
from fox_envs.evaluation.match import (AgentResult, MatchResult, MatchSettings, MoveTimeError, evaluate, play_game,
                                      seat_rotations)
from fox_envs.evaluation.plots import plot_cross_table, plot_learning_curve, plot_ratings, plot_tournament
from fox_envs.evaluation.pool import WorkerLostError
from fox_envs.evaluation.ratings import Ratings, fit_bradley_terry, rate
from fox_envs.evaluation.records import GameRecord, record_from_state, replay_states
from fox_envs.evaluation.stats import mean_interval, wilson_interval
from fox_envs.evaluation.tournament import TournamentResult, round_robin

__all__ = [
    "AgentResult", "GameRecord", "MatchResult", "MatchSettings", "MoveTimeError", "Ratings", "TournamentResult", "evaluate",
    "fit_bradley_terry", "mean_interval", "play_game", "plot_cross_table", "plot_learning_curve", "plot_ratings",
    "plot_tournament", "rate", "record_from_state",
    "replay_states", "round_robin", "seat_rotations", "wilson_interval", "WorkerLostError",
]
