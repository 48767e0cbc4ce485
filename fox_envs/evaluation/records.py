"""Game records: one played game as JSON, and replay.

A record is a JSON object (format ``fox_envs.record/1``)::

    {"format": "fox_envs.record/1",
     "game": "nim_v0",                 # the env id (same key as State.to_json)
     "params": {...},                  # the game's full, normalised params
     "history": [4, 0, ...],           # every action as an int, chance outcomes included
     "moves": ["b2", "a1", ...],       # the same actions in the game's notation
     "players": [0, 1, -1, ...],       # who took each action (-1 = chance)
     "seed": 1, "game_index": 0,       # the match seed and this game's index in the match
     "agents": ["heuristic", "random"],# agent name per seat
     "returns": [1.0, -1.0], "length": 9, "truncated": false, "max_moves": 200,
     "forfeit": null}                  # or the seat whose agent took longer than move_time (it lost)

Because it has the keys ``game``, ``params`` and ``history``, a record also loads with
``fox_envs.state_from_json`` (giving the final state). ``replay_states`` rebuilds every state
from the start and checks each action against its recorded notation.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from fox_envs.core.errors import InvalidStateError
from fox_envs.core.game import Game, State
from fox_envs.core.params import short_repr
from fox_envs.core.registry import check_saved, game_of_saved, load_json

RECORD_FORMAT = "fox_envs.record/1"


@dataclass
class GameRecord:
    game: str
    params: dict
    history: list[int]
    moves: list[str]
    players: list[int]
    seed: int | None = None
    game_index: int | None = None
    agents: list[str] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    length: int = 0  # player decisions (chance events not counted)
    truncated: bool = False
    max_moves: int | None = None
    forfeit: int | None = None  # the seat whose agent exceeded move_time: the game ends there, lost by it
    format: str = RECORD_FORMAT

    @property
    def env_id(self) -> str:
        return self.game

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        return {"format": data.pop("format"), **data}

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json(indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_dict(cls, data: Any) -> "GameRecord":
        check_saved(data, "game record")
        for name, (check, wanted) in _FIELDS.items():
            if name in data and not check(data[name]):
                raise InvalidStateError(f"game record {name!r} must be {wanted}, got {short_repr(data[name])}")
        known = {name for name in cls.__dataclass_fields__}
        kwargs = {k: v for k, v in data.items() if k in known}
        kwargs.setdefault("moves", [])
        kwargs.setdefault("players", [])
        return cls(**kwargs)

    @classmethod
    def from_json(cls, text: str) -> "GameRecord":
        return cls.from_dict(load_json(text, "game record"))

    @classmethod
    def load(cls, path: str | Path) -> "GameRecord":
        return cls.from_json(Path(path).read_bytes())  # JSON text in UTF-8 (or 16, 32); undecodable bytes: InvalidStateError

    def initial_state(self) -> State:
        return game_of_saved({"game": self.game, "params": self.params}, "game record").new_initial_state()


def _is_int(value: Any) -> bool:
    return type(value) is int


def _list_of(check) -> Any:
    return lambda value: isinstance(value, list) and all(check(item) for item in value)


# what each key of a record must hold (game, params and history's list-ness: check_saved)
_FIELDS = {
    "history": (_list_of(_is_int), "a list of integers"),
    "moves": (_list_of(lambda v: isinstance(v, str)), "a list of strings"),
    "players": (_list_of(_is_int), "a list of integers"),
    "seed": (lambda v: v is None or _is_int(v), "an integer or null"),
    "game_index": (lambda v: v is None or _is_int(v), "an integer or null"),
    "agents": (_list_of(lambda v: isinstance(v, str)), "a list of strings"),
    "returns": (_list_of(lambda v: type(v) in (int, float)), "a list of numbers"),
    "length": (_is_int, "an integer"),
    "truncated": (lambda v: isinstance(v, bool), "true or false"),
    "max_moves": (lambda v: v is None or _is_int(v), "an integer or null"),
    "forfeit": (lambda v: v is None or _is_int(v), "an integer (a seat) or null"),
    "format": (lambda v: isinstance(v, str), "a string"),
}


def replay_states(record: GameRecord) -> list[State]:
    """Every state of the recorded game, the initial one first (``len(history) + 1`` states).

    Each action must be legal and, when the record has notation, must read as recorded;
    otherwise ``InvalidStateError`` says where the replay diverged."""
    state = record.initial_state()
    states = [state.clone()]
    for index, action in enumerate(record.history):
        if not state.is_legal(action):
            raise InvalidStateError(f"recorded action {short_repr(action)} at index {index} is illegal")
        if record.moves:
            text = state.action_to_string(action)
            if index >= len(record.moves) or record.moves[index] != text:
                wanted = record.moves[index] if index < len(record.moves) else "nothing"
                raise InvalidStateError(
                    f"record diverges at index {index}: action {action} reads {short_repr(text)}, recorded {short_repr(wanted)}"
                )
        state.apply_action(action)
        states.append(state.clone())
    return states


def record_from_state(state: State, **info: Any) -> GameRecord:
    """A record of the game that led to ``state`` (notation and movers rebuilt by replay)."""
    return record_from_history(state.game, state.history(), **info)


def record_from_history(game: Game, history: list[int], **info: Any) -> GameRecord:
    """A record of the game of ``game`` whose actions were ``history`` (notation and movers
    rebuilt by replaying them from the initial state)."""
    replay = game.new_initial_state()
    moves, players = [], []
    for action in history:
        moves.append(replay.action_to_string(action))
        players.append(replay.current_player())
        replay.apply_action(action)
    return GameRecord(game=game.name, params=dict(game.params), history=list(history),
                      moves=moves, players=players, **info)
