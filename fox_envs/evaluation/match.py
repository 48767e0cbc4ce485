"""Matches between agents: ``evaluate(env_id, agents, num_games, seed, workers)``.

Seat rotation: game ``i`` uses seat order ``rotations[i % R]``. With the default
``rotation="permutations"`` the orders are all ``R = n!`` permutations of the ``n`` agents (in
``itertools.permutations`` order), so every agent plays every seat equally often and meets the
others in every turn order; ``rotation="cyclic"`` uses the ``R = n`` cyclic shifts instead. The
seating is exactly balanced when ``num_games`` is a multiple of ``R`` (the result says whether it
is, and lists the games per seat).

Reproducibility: game ``i`` draws its chance outcomes (``sample_chance``) from a numpy Generator
seeded with ``SeedSequence([seed, i])`` and resets agent ``k`` with a seed derived from the same
sequence, so a game depends only on ``(seed, i)``; games are played in worker processes (spawn
context, agents rebuilt in each worker from their spec strings, or pickled when given as objects)
and collected in index order, so the result does not depend on ``workers``. With
``backend="ray"`` the same games are played as Ray tasks (``ray_pool.py``), with the same result.

Failures in workers (``fox_envs/evaluation/pool.py``): an agent's exception is re-raised with
its own type; a worker process that dies (killed, or an agent raising ``SystemExit``) raises
``WorkerLostError`` at once, naming the games lost, with the finished games' ``MatchResult``
in its ``partial`` (``lost_games`` set, never mistaken for a complete result).

Outcomes per agent: a return above 0 is a win, below 0 a loss, 0 a draw (this matches every
game's reward convention: +1/-1/0, a three-player zero-sum game +1/-0.5, cooperative +1/-1). A game
reaching ``max_moves`` player decisions is truncated: every return is 0 (a draw) and it is
counted in ``truncations``.

Move time (``move_time`` seconds, ``MatchSettings``): an ``act`` call that takes longer forfeits
the game (``on_timeout="forfeit"``: its agent's return is -1, the others share +1 in a
competitive game, the whole team loses a cooperative one; the record's ``forfeit`` names the
seat) or stops the match with ``MoveTimeError`` (``on_timeout="error"``). The games are then
always played in worker processes (``workers=1``: one), so that a move that never returns is
stopped too: its worker is killed and replaced (``pool.MoveLimit``). Without ``move_time``
nothing is timed.
"""
from __future__ import annotations

import itertools
import math
import os
import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Sequence

import numpy as np

from fox_envs.agents.base import reset_agent
from fox_envs.agents.registry import make_agent
from fox_envs.core.errors import IllegalActionError, InvalidParameterError
from fox_envs.core.game import CHANCE, Game, State, action_as_int, sample_chance
from fox_envs.core.params import integer_in, short_repr, with_options
from fox_envs.core.registry import make_game
from fox_envs.evaluation.pool import MoveBoard, MoveLimit, WorkerLostError, current_board, index_ranges, run_parallel
from fox_envs.evaluation.records import GameRecord, record_from_history
from fox_envs.evaluation.stats import mean_interval, wilson_interval

ROTATIONS = ("permutations", "cyclic")
BACKENDS = ("process", "ray")
ON_TIMEOUT = ("forfeit", "error")


class MoveTimeError(RuntimeError):
    """An agent took longer than ``move_time`` for a move, with ``on_timeout="error"``:
    ``agent`` (its label), ``seat``, ``game_index`` and ``move_time`` say which and where."""

    def __init__(self, message: str, agent: str | None = None, seat: int | None = None,
                 game_index: int | None = None, move_time: float | None = None) -> None:
        super().__init__(message)
        self.agent, self.seat, self.game_index, self.move_time = agent, seat, game_index, move_time

    def __reduce__(self) -> tuple:  # raised in a worker process, re-raised in the parent
        return type(self), (str(self), self.agent, self.seat, self.game_index, self.move_time)


def move_time_error(agent: str, seat: int, game_index: int | None, move_time: float) -> MoveTimeError:
    where = f"game {game_index}: " if game_index is not None else ""
    return MoveTimeError(f"{where}agent {agent!r} in seat {seat} took more than {move_time:g} s for a move "
                         f"(move_time={move_time:g}, on_timeout='error')", agent, seat, game_index, move_time)


def forfeit_returns(game: Game, seat: int) -> list[float]:
    """The returns of a game forfeited by ``seat``: -1 for it and +1 shared by the others in a
    competitive game; -1 for everyone (the team) in a cooperative one."""
    n = game.num_players
    if not game.zero_sum or n == 1:
        return [-1.0] * n
    return [-1.0 if s == seat else 1.0 / (n - 1) for s in range(n)]


# ----- seats and seeds -------------------------------------------------------------------------
def seat_rotations(num_agents: int, rotation: str = "permutations") -> list[tuple[int, ...]]:
    """Seat orders: ``order[seat] = agent index``."""
    if rotation == "permutations":
        return list(itertools.permutations(range(num_agents)))
    if rotation == "cyclic":
        return [tuple((seat + shift) % num_agents for seat in range(num_agents)) for shift in range(num_agents)]
    raise InvalidParameterError(f"unknown rotation {short_repr(rotation)}; allowed: {', '.join(ROTATIONS)}")


def game_seeds(seed: int, game_index: int, num_agents: int) -> tuple[np.random.SeedSequence, list[int]]:
    """The chance seed sequence and one agent seed per agent, from ``(seed, game_index)`` only."""
    sequence = np.random.SeedSequence([seed, game_index])
    children = sequence.spawn(num_agents + 1)
    agent_seeds = [int(child.generate_state(1, dtype=np.uint32)[0]) for child in children[1:]]
    return children[0], agent_seeds


def agent_label(spec: Any) -> str:
    if isinstance(spec, str):
        return spec
    return str(getattr(spec, "name", None) or type(spec).__name__)


def unique_labels(specs: Sequence[Any]) -> list[str]:
    """Display names, with ``#2``, ``#3`` appended to repeated names."""
    labels, seen = [], {}
    for spec in specs:
        base = agent_label(spec)
        seen[base] = seen.get(base, 0) + 1
        labels.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return labels


# ----- one game --------------------------------------------------------------------------------
def checked_action(state: State, action: Any, who: str) -> int:
    """``action`` (an agent's answer for the player to move) as a legal Python int; anything
    else raises ``IllegalActionError`` naming ``who`` (before anything reads the action)."""
    value = action_as_int(action)
    if value is None or not state.is_legal(value):
        raise IllegalActionError(f"{who} returned an illegal action: {state._illegal_message(action, value)}")
    return value


def play_game(game: Game, seated: Sequence[Any], chance_rng: np.random.Generator,
              max_moves: int, names: Sequence[str] | None = None, *, move_time: float | None = None,
              on_timeout: str = "forfeit", board: MoveBoard | None = None, **info: Any) -> GameRecord:
    """Play one game on the rules core. ``seated[seat]`` is the agent in that seat (already
    reset). Returns its record; ``length`` counts player decisions only. An ``act`` that
    returns after more than ``move_time`` seconds forfeits the game (the record's ``forfeit``
    is the seat) or, with ``on_timeout="error"``, raises ``MoveTimeError``; ``board`` shows
    every move to a parent process that stops moves that do not return (``pool.MoveLimit``)."""
    state = game.new_initial_state()
    moves, players = [], []
    decisions = 0
    truncated = False
    forfeit = None
    if board is not None:
        board.new_game(info.get("game_index", -1))
    while True:
        player = state.current_player()
        if player == CHANCE:
            action = sample_chance(state, chance_rng)
        elif player < 0:
            break
        elif decisions >= max_moves:
            truncated = True
            break
        else:
            name = names[player] if names else agent_label(seated[player])
            if move_time is None:
                answer = seated[player].act(state, player)
            else:
                answer, took = _timed_act(seated[player], state, player, board)
                if took > move_time:
                    if on_timeout == "error":
                        raise move_time_error(name, player, info.get("game_index"), move_time)
                    forfeit = player
                    break
            where = f"game {info['game_index']}, " if info.get("game_index") is not None else ""
            action = checked_action(state, answer, f"{where}agent {name!r} in seat {player}")
            decisions += 1
        moves.append(state.action_to_string(action))
        players.append(player)
        state.apply_action(action)
        if board is not None:
            board.applied(action)
    if forfeit is not None:
        returns = forfeit_returns(game, forfeit)
    else:
        returns = [0.0] * game.num_players if truncated else [float(r) for r in state.returns()]
    return GameRecord(game=game.name, params=dict(game.params), history=state.history(), moves=moves,
                      players=players, agents=list(names or [agent_label(a) for a in seated]),
                      returns=returns, length=decisions, truncated=truncated, max_moves=max_moves,
                      forfeit=forfeit, **info)


def _timed_act(agent: Any, state: State, player: int, board: MoveBoard | None) -> tuple[Any, float]:
    """``agent.act(state, player)`` and the seconds it took (shown on ``board`` meanwhile)."""
    if board is None:
        start = time.monotonic()
        answer = agent.act(state, player)
        return answer, time.monotonic() - start
    board.begin_move(player)
    try:
        answer = agent.act(state, player)
    finally:
        took = board.end_move()
    return answer, took


# ----- worker side -----------------------------------------------------------------------------
_WORKER: dict[str, Any] = {}


def _init_worker(env_id: str, params: dict, specs: list, labels: list[str], seed: int,
                 max_moves: int, rotation: str, move_time: float | None = None, on_timeout: str = "forfeit") -> None:
    game = make_game(env_id, **params)
    _WORKER.update(
        game=game, agents=[make_agent(spec, env_id) for spec in specs], labels=labels, seed=seed,
        max_moves=max_moves, rotations=seat_rotations(len(specs), rotation), move_time=move_time,
        on_timeout=on_timeout,
    )


def _seating(rotations: list[tuple[int, ...]], num_agents: int, num_players: int,
             game_index: int) -> tuple[tuple[int, ...], list[int]]:
    """Game ``game_index``'s seat order and, per seat, the index of the agent in it."""
    order = rotations[game_index % len(rotations)]
    return order, [0] * num_players if num_agents == 1 else list(order)


def _play_indexed(game_index: int) -> tuple[int, tuple[int, ...], GameRecord]:
    w = _WORKER
    agents = w["agents"]
    order, at = _seating(w["rotations"], len(agents), w["game"].num_players, game_index)
    chance_sequence, agent_seeds = game_seeds(w["seed"], game_index, len(agents))
    for agent, agent_seed in zip(agents, agent_seeds):
        reset_agent(agent, agent_seed)
    record = play_game(w["game"], [agents[k] for k in at], np.random.default_rng(chance_sequence), w["max_moves"],
                       [w["labels"][k] for k in at], move_time=w["move_time"], on_timeout=w["on_timeout"],
                       board=current_board(), seed=w["seed"], game_index=game_index)
    return game_index, order, record


# ----- results ---------------------------------------------------------------------------------
@dataclass
class AgentResult:
    name: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    returns: list[float] = field(default_factory=list, repr=False)
    seat_games: list[int] = field(default_factory=list)
    seat_wins: list[int] = field(default_factory=list)
    forfeits: int = 0  # games this agent lost by taking longer than move_time for a move

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else math.nan

    @property
    def score(self) -> float:
        """(wins + draws / 2) / games."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else math.nan

    def to_dict(self) -> dict[str, Any]:
        mean, low, high = mean_interval(self.returns)
        wl, wh = wilson_interval(self.wins, self.games)
        return {
            "name": self.name, "games": self.games, "wins": self.wins, "draws": self.draws,
            "losses": self.losses, "win_rate": self.win_rate, "win_rate_ci95": [wl, wh],
            "score": self.score, "mean_return": mean, "mean_return_ci95": [low, high],
            "seat_games": self.seat_games, "seat_wins": self.seat_wins, "forfeits": self.forfeits,
        }


@dataclass
class MatchResult:
    env_id: str
    params: dict
    agents: list[str]
    num_games: int
    seed: int
    max_moves: int
    rotation: str
    zero_sum: bool
    results: list[AgentResult]
    lengths: list[int] = field(repr=False)
    truncations: int
    team_wins: int
    seat_balanced: bool
    records: list[GameRecord] = field(default_factory=list, repr=False)
    lost_games: list[int] = field(default_factory=list)  # a partial result (WorkerLostError): games not played
    forfeits: int = 0  # games forfeited by an agent over move_time
    move_time: float | None = None  # the time limit of a move (None: none)

    @property
    def mean_length(self) -> float:
        return sum(self.lengths) / len(self.lengths) if self.lengths else math.nan

    def __getitem__(self, name: str) -> AgentResult:
        for result in self.results:
            if result.name == name:
                return result
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        mean_len, low_len, high_len = mean_interval([float(x) for x in self.lengths])
        data: dict[str, Any] = {
            "env_id": self.env_id, "params": self.params, "agents": self.agents,
            "num_games": self.num_games, "seed": self.seed, "max_moves": self.max_moves,
            "rotation": self.rotation, "seat_balanced": self.seat_balanced, "zero_sum": self.zero_sum,
            "mean_length": mean_len, "mean_length_ci95": [low_len, high_len],
            "truncations": self.truncations, "move_time": self.move_time, "forfeits": self.forfeits,
            "results": [r.to_dict() for r in self.results],
        }
        if self.lost_games:
            data["lost_games"] = self.lost_games
        if not self.zero_sum:
            tl, th = wilson_interval(self.team_wins, self.num_games)
            data["team"] = {"wins": self.team_wins, "losses": self.num_games - self.team_wins,
                            "win_rate": self.team_wins / self.num_games if self.num_games else math.nan,
                            "win_rate_ci95": [tl, th]}
        return data

    def summary(self) -> str:
        """A plain-text table (deterministic: no timings)."""
        lines = [
            f"{self.env_id} {json_params(self.params)}: {self.num_games} games, seed {self.seed}, "
            f"seats {self.rotation}{'' if self.seat_balanced else ' (not balanced: games not a multiple of rotations)'}",
        ]
        width = max(len(r.name) for r in self.results)
        lines.append(f"{'agent':<{width}}  {'W':>5} {'D':>5} {'L':>5}  {'win rate [95% CI]':<24} mean return [95% CI]")
        for r in self.results:
            d = r.to_dict()
            wl, wh = d["win_rate_ci95"]
            ml, mh = d["mean_return_ci95"]
            lines.append(
                f"{r.name:<{width}}  {r.wins:>5} {r.draws:>5} {r.losses:>5}  "
                f"{r.win_rate:.3f} [{wl:.3f}, {wh:.3f}]{'':<6} {d['mean_return']:+.3f} [{ml:+.3f}, {mh:+.3f}]"
            )
        if not self.zero_sum:
            team = self.to_dict()["team"]
            tl, th = team["win_rate_ci95"]
            lines.append(f"team win rate {team['win_rate']:.3f} [{tl:.3f}, {th:.3f}] ({self.team_wins}/{self.num_games})")
        lines.append(f"mean game length {self.mean_length:.2f} decisions; truncated games {self.truncations} (max_moves {self.max_moves})")
        if self.move_time is not None or self.forfeits:
            limit = "none" if self.move_time is None else f"{self.move_time:g} s"
            lines.append(f"forfeits {self.forfeits} (move_time {limit}): "
                         + ", ".join(f"{r.name} {r.forfeits}" for r in self.results))
        if self.lost_games:
            lines.append(f"PARTIAL RESULT: {len(self.lost_games)} games lost with a worker process "
                         f"(games {index_ranges(self.lost_games)})")
        return "\n".join(lines)


def json_params(params: dict) -> str:
    import json

    return json.dumps(params, sort_keys=True)


# ----- settings --------------------------------------------------------------------------------
@dataclass(frozen=True)
class MatchSettings:
    """How ``evaluate`` plays and reports a match (``round_robin`` uses them for every match).

    ``max_moves``: player decisions before a game is truncated (``None``: the game's
    ``max_moves_default``); ``rotation``: ``"permutations"`` or ``"cyclic"`` seat orders;
    ``keep_records``: keep every ``GameRecord``; ``progress(done, total)``: called after each
    game; ``backend``: ``"process"`` (spawned worker processes) or ``"ray"`` (Ray tasks, Ray
    joined at ``ray_address`` when it is not running); ``move_time``: seconds an agent may take
    for a move (``None``: no limit; process backend only), and ``on_timeout``: ``"forfeit"``
    (that game is lost) or ``"error"`` (``MoveTimeError``) when it takes longer. Bad values
    raise ``InvalidParameterError``."""

    max_moves: int | None = None
    rotation: str = "permutations"
    keep_records: bool = False
    progress: Callable[[int, int], None] | None = None
    backend: str = "process"
    ray_address: str | None = None
    move_time: float | None = None
    on_timeout: str = "forfeit"

    def __post_init__(self) -> None:
        if self.max_moves is not None:
            if integer_in(self.max_moves, 1) is None:
                raise InvalidParameterError(f"max_moves must be an integer >= 1, got {short_repr(self.max_moves)}")
            object.__setattr__(self, "max_moves", integer_in(self.max_moves, 1))
        if self.rotation not in ROTATIONS:
            seat_rotations(1, self.rotation)  # raises, naming the allowed rotations
        if self.backend not in BACKENDS:
            raise InvalidParameterError(f"unknown backend {short_repr(self.backend)}; allowed: {', '.join(BACKENDS)}")
        if self.move_time is not None:
            if (isinstance(self.move_time, bool) or not isinstance(self.move_time, (int, float))
                    or not 0 < self.move_time < math.inf):
                raise InvalidParameterError(f"move_time must be a number of seconds > 0 or None, got {short_repr(self.move_time)}")
            if self.backend != "process":
                raise InvalidParameterError("move_time needs backend='process' (worker processes stop a move that "
                                            "does not return); Ray tasks are not timed per move")
            object.__setattr__(self, "move_time", float(self.move_time))
        if self.on_timeout not in ON_TIMEOUT:
            raise InvalidParameterError(f"bad on_timeout {short_repr(self.on_timeout)}; allowed: 'forfeit', 'error'")


def match_settings(settings: MatchSettings | None, options: dict[str, Any], where: str = "evaluate",
                   refused: Sequence[str] = ()) -> MatchSettings:
    """``settings`` (default: ``MatchSettings()``) with the fields named in ``options`` replaced
    (``with_options``; ``refused`` fields are not allowed as keywords of ``where``)."""
    return with_options(MatchSettings, settings, options, where, refused)


# ----- evaluate --------------------------------------------------------------------------------
@dataclass(frozen=True)
class _MatchPlan:
    """What every game of one match shares: the game, the agents' specs and labels, the seed,
    the move limit and the seat orders."""

    env_id: str
    game: Game
    specs: list
    labels: list[str]
    seed: int
    max_moves: int
    rotation: str
    keep_records: bool
    move_time: float | None = None
    on_timeout: str = "forfeit"

    @property
    def rotations(self) -> list[tuple[int, ...]]:
        return seat_rotations(len(self.specs), self.rotation)

    def init_args(self) -> tuple:
        """The arguments of ``_init_worker`` (picklable, for the worker processes or Ray tasks)."""
        return (self.env_id, dict(self.game.params), self.specs, self.labels, self.seed, self.max_moves,
                self.rotation, self.move_time, self.on_timeout)

    def overdue(self, game_index: int, seat: int, history: list[int]) -> tuple[int, tuple[int, ...], GameRecord]:
        """The outcome of game ``game_index`` stopped in a move of ``seat`` that did not return
        within ``move_time`` (``history``: its actions until then): a forfeit, or
        ``MoveTimeError`` with ``on_timeout="error"``."""
        order, at = _seating(self.rotations, len(self.specs), self.game.num_players, game_index)
        names = [self.labels[k] for k in at]
        if self.on_timeout == "error":
            raise move_time_error(names[seat], seat, game_index, self.move_time)
        record = record_from_history(self.game, history, seed=self.seed, game_index=game_index, agents=names,
                                     returns=forfeit_returns(self.game, seat), max_moves=self.max_moves, forfeit=seat)
        record.length = sum(player >= 0 for player in record.players)  # player decisions, chance not counted
        return game_index, order, record


def evaluate(env_id: str, agents: Sequence[Any], num_games: int = 100, seed: int = 0, workers: int = 1,
             params: dict | None = None, settings: MatchSettings | None = None, **options: Any) -> MatchResult:
    """Play ``num_games`` games of ``env_id`` between ``agents`` with seats rotated.

    ``agents``: one per seat (names/spec strings such as ``"heuristic"``, ``"mcts:simulations=200"``,
    ``"module:callable"``, a saved policy path, or picklable agent objects); a single agent plays
    every seat (self-play, or the whole team of a cooperative game). ``workers`` > 1 plays in
    that many spawned processes; the result is the same for any ``workers``. ``params`` are the
    game's parameters.

    The match options (``MatchSettings``: ``max_moves``, ``rotation``, ``keep_records``,
    ``progress``, ``backend``, ``ray_address``, ``move_time``, ``on_timeout``) come as one ``settings`` object, as keywords
    (``evaluate(env_id, agents, 100, max_moves=50, keep_records=True)``), or both (the keywords
    replace those fields of ``settings``). ``progress(done, total)`` is called after each game;
    ``keep_records`` keeps every ``GameRecord``.

    ``backend="ray"`` plays the games as Ray tasks instead (at most ``workers`` at a time, on
    every machine of the cluster; ``fox_envs/evaluation/ray_pool.py``), with the same result:
    an existing ``ray.init`` is used, else Ray is started (or joined at ``ray_address``) and
    shut down at the end."""
    settings = match_settings(settings, options)
    game = make_game(env_id, **dict(params or {}))
    specs = list(agents)
    n = game.num_players
    if not specs or (len(specs) != n and len(specs) != 1):
        raise InvalidParameterError(
            f"{env_id} with params {json_params(game.params)} has {n} seats: give {n} agents (or one for every seat), got {len(specs)}"
        )
    max_moves = game.max_moves_default if settings.max_moves is None else settings.max_moves
    for name, value, low in (("num_games", num_games, 1), ("seed", seed, 0), ("max_moves", max_moves, 1),
                             ("workers", workers, 1)):
        if integer_in(value, low) is None:
            raise InvalidParameterError(f"{name} must be an integer >= {low}, got {short_repr(value)}")
    num_games, seed, max_moves, workers = (integer_in(v, 0) for v in (num_games, seed, max_moves, workers))
    plan = _MatchPlan(env_id, game, specs, unique_labels(specs), seed, max_moves, settings.rotation,
                      settings.keep_records, settings.move_time, settings.on_timeout)
    for spec in specs:  # fail fast, in this process, on a bad agent spec
        make_agent(spec, env_id)
    outcomes = _play_match(plan, num_games, min(workers, num_games), settings)
    return _aggregate(plan, num_games, outcomes)


def _play_match(plan: _MatchPlan, num_games: int, workers: int,
                settings: MatchSettings) -> list[tuple[int, tuple[int, ...], GameRecord]]:
    """The outcomes ``(game index, seat order, record)`` of the match's games, in index order:
    played here (one worker, process backend) or by ``workers`` processes or Ray tasks. A lost
    worker raises ``WorkerLostError`` with the finished games' ``MatchResult`` as ``partial``."""
    outcomes: list[tuple[int, tuple[int, ...], GameRecord]] = []
    progress = settings.progress

    def collect(outcome: tuple[int, tuple[int, ...], GameRecord]) -> None:
        outcomes.append(outcome)
        if progress:
            progress(len(outcomes), num_games)

    if workers == 1 and settings.backend == "process" and settings.move_time is None:
        _init_worker(*plan.init_args())
        try:
            for index in range(num_games):
                collect(_play_indexed(index))
        finally:
            _WORKER.clear()
        return outcomes
    chunk = max(1, min(16, num_games // (workers * 8)))
    if settings.backend == "ray":
        from fox_envs.evaluation.ray_pool import run_on_ray

        runner = partial(run_on_ray, address=settings.ray_address)
    elif settings.move_time is not None:  # a worker is stopped when a move does not return in time
        runner = partial(run_parallel, limit=MoveLimit(settings.move_time, plan.overdue))
    else:
        runner = run_parallel
    try:
        runner(_init_worker, plan.init_args(), _play_indexed, num_games, workers, chunk, collect)
    except WorkerLostError as error:
        outcomes.sort(key=lambda item: item[0])
        error.partial = _aggregate(plan, len(outcomes), outcomes, lost_games=error.lost_games + error.unplayed_games)
        error.args = (f"{plan.env_id} {', '.join(plan.labels)}: {error}",)
        raise
    outcomes.sort(key=lambda item: item[0])
    return outcomes


def _aggregate(plan: _MatchPlan, num_games: int, outcomes: Sequence[tuple[int, tuple[int, ...], GameRecord]],
               lost_games: Sequence[int] = ()) -> MatchResult:
    """The ``MatchResult`` of ``outcomes`` (``num_games`` of them were asked for, ``lost_games``
    not played)."""
    game, labels = plan.game, plan.labels
    n = game.num_players
    results = [AgentResult(label, seat_games=[0] * n, seat_wins=[0] * n) for label in labels]
    lengths, truncations, team_wins, forfeits = [], 0, 0, 0
    for _, order, record in outcomes:
        lengths.append(record.length)
        truncations += record.truncated
        if record.forfeit is not None:
            forfeits += 1
            results[0 if len(labels) == 1 else order[record.forfeit]].forfeits += 1
        if all(r > 0 for r in record.returns):
            team_wins += 1
        seats_of = [[] for _ in labels]
        if len(labels) == 1:  # one agent in every seat: each seat once (a cooperative team: once)
            seats_of[0] = list(range(n)) if game.zero_sum else [0]
        else:
            for seat, k in enumerate(order):
                seats_of[k].append(seat)
        for k, seats in enumerate(seats_of):
            result = results[k]
            for seat in seats:
                value = record.returns[seat]
                result.games += 1
                result.returns.append(value)
                result.seat_games[seat] += 1
                if value > 0:
                    result.wins += 1
                    result.seat_wins[seat] += 1
                elif value < 0:
                    result.losses += 1
                else:
                    result.draws += 1
    balanced = len(plan.specs) == 1 or (not lost_games and num_games % len(plan.rotations) == 0)
    return MatchResult(
        env_id=plan.env_id, params=dict(game.params), agents=labels, num_games=num_games, seed=plan.seed,
        max_moves=plan.max_moves, rotation=plan.rotation, zero_sum=game.zero_sum, results=results, lengths=lengths,
        truncations=truncations, team_wins=team_wins, seat_balanced=balanced,
        records=[record for _, _, record in outcomes] if plan.keep_records else [], lost_games=sorted(lost_games),
        forfeits=forfeits, move_time=plan.move_time,
    )


def default_workers() -> int:
    return max(1, (os.cpu_count() or 1))
