"""The JSON API (documented in docs/web.md). Every bad request is a 4xx with a message, never a 500.

GET  /api/games                         the games: params, seats, agents
GET  /api/seats      ?game=&<params>     how many seats the game has with these params
POST /api/new        {game, seats, params, seed, max_moves}      a new game: its view
GET  /api/state      ?session=&viewer=   a game's view (viewer: all or a seat; default: the page's)
POST /api/choose     {session, label, viewer}   a person's click: a label of options, or a whole move
POST /api/back       {session, viewer}   undo the last part chosen
POST /api/agent_move {session, viewer}   the agent to move decides; its move is played
GET  /api/record     ?session=           the game so far as a game record (JSON)
POST /api/replay     a game record (JSON text, or {"record": ...}): a replay's first step
GET  /api/replay     ?session=&step=&viewer=    a replay's step
GET  /api/records                        the record files of ``serve --records DIR``
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from fox_envs.core.errors import InvalidParameterError, InvalidStateError
from fox_envs.core.params import short_repr
from fox_envs.core.registry import GAMES, make_game
from fox_envs.evaluation.records import GameRecord
from fox_envs.ui.web.seats import HUMAN, agent_names, check_game, policy_files, setup_from_json, setup_from_query
from fox_envs.ui.web.sessions import Conflict, GameSession, ReplaySession, SessionStore, UnknownSession
from fox_envs.ui.web.views import game_view, parse_viewer, replay_view

Reply = tuple[int, Any]  # HTTP status, JSON-able body


class ApiError(Exception):
    """A request refused with ``status`` (4xx) and a message for the page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def error_reply(error: BaseException) -> Reply:
    """The status and ``{"error": message}`` of a refused request."""
    if isinstance(error, ApiError):
        return error.status, {"error": str(error)}
    if isinstance(error, UnknownSession):
        return 404, {"error": f"no session {short_repr(error.args[0] if error.args else None)}: "
                              "it ended or the server restarted; start a new one"}
    if isinstance(error, Conflict):
        return 409, {"error": str(error)}
    if isinstance(error, ImportError):  # an agent that needs an optional extra
        return 400, {"error": f"this agent needs an optional extra that is not installed: {error}"}
    return 400, {"error": str(error) or type(error).__name__}


REFUSED = (ApiError, UnknownSession, Conflict, ValueError, TypeError, ImportError)  # ValueError: the package's errors


class Api:
    """The API's routes over one ``SessionStore``."""

    def __init__(self, records_dir: Path | None = None, policy_dir: Path | None = None,
                 store: SessionStore | None = None) -> None:
        self.records_dir, self.policy_dir = records_dir, policy_dir
        self.store = store if store is not None else SessionStore()
        self.routes: dict[tuple[str, str], Callable[[Mapping[str, str], Any], Reply]] = {
            ("GET", "/api/games"): self.games, ("GET", "/api/seats"): self.seats, ("POST", "/api/new"): self.new,
            ("GET", "/api/state"): self.state, ("POST", "/api/choose"): self.choose,
            ("POST", "/api/back"): self.back, ("POST", "/api/agent_move"): self.agent_move,
            ("GET", "/api/record"): self.record, ("POST", "/api/replay"): self.replay_open,
            ("GET", "/api/replay"): self.replay_step, ("GET", "/api/records"): self.records,
        }

    def handle(self, method: str, path: str, query: Mapping[str, str], body: bytes) -> Reply:
        """Answer one request; refusals become a 4xx with ``{"error": message}``."""
        route = self.routes.get((method, path))
        if route is None:
            if any(p == path for _, p in self.routes):
                return 405, {"error": f"{method} is not allowed on {path}"}
            return 404, {"error": f"no API route {short_repr(path)}"}
        try:
            return route(query, body)
        except REFUSED as error:
            return error_reply(error)

    # ----- games ---------------------------------------------------------------------------------
    def games(self, query: Mapping[str, str], body: bytes) -> Reply:
        listing = []
        for env_id, game_spec in GAMES.items():
            game = make_game(env_id)
            listing.append({
                "env_id": env_id, "title": game_spec.title, "players": game.num_players,
                "perfect_information": game.perfect_information, "max_moves_default": game.max_moves_default,
                "params": {name: {"default": p.default, "allowed": p.allowed} for name, p in type(game).PARAMS.items()},
                "variants": [dict(v) for v in game_spec.variants], "agents": agent_names(env_id),
            })
        return 200, {"games": listing, "human": HUMAN, "policies": policy_files(self.policy_dir)}

    def seats(self, query: Mapping[str, str], body: bytes) -> Reply:
        setup = setup_from_query(query)
        check_game(setup.env_id)
        return 200, {"players": make_game(setup.env_id, **setup.params).num_players}

    def new_game(self, query: Mapping[str, str]) -> str:
        """A new game from a page's URL query (``/play?game=...``); its session id."""
        return self.store.add(GameSession(setup_from_query(query), self.policy_dir))

    def new(self, query: Mapping[str, str], body: bytes) -> Reply:
        session = GameSession(setup_from_json(json_body(body)), self.policy_dir)
        key = self.store.add(session)
        return 200, game_view(key, session)

    def state(self, query: Mapping[str, str], body: bytes) -> Reply:
        key, session = self._game(query.get("session"))
        with session.lock:
            viewer = parse_viewer(query.get("viewer"), session.game.num_players)
            check_allowed(session, viewer)
            return 200, game_view(key, session, viewer)

    def choose(self, query: Mapping[str, str], body: bytes) -> Reply:
        data = json_body(body)
        key, session = self._game(data.get("session"))
        label = data.get("label")
        if not isinstance(label, str) or not label.strip():
            raise ApiError(400, f"label must be a non-empty string: a choice offered or a whole move, got {short_repr(label)}")
        with session.lock:
            session.choose(label)
            return 200, game_view(key, session, self._viewer(data, session))

    def back(self, query: Mapping[str, str], body: bytes) -> Reply:
        data = json_body(body)
        key, session = self._game(data.get("session"))
        with session.lock:
            if not session.back():
                raise Conflict("nothing to take back: no part of the move chosen yet")
            return 200, game_view(key, session, self._viewer(data, session))

    def agent_move(self, query: Mapping[str, str], body: bytes) -> Reply:
        data = json_body(body)
        key, session = self._game(data.get("session"))
        with session.lock:
            session.agent_move()
            return 200, game_view(key, session, self._viewer(data, session))

    def record(self, query: Mapping[str, str], body: bytes) -> Reply:
        _, session = self._game(query.get("session"))
        with session.lock:
            if session.humans and not session.game.perfect_information and not session.over():
                raise ApiError(403, "the record shows every hidden fact: it is given once the game is over")
            return 200, session.record().to_dict()

    # ----- replays -------------------------------------------------------------------------------
    def open_record(self, text: bytes | str) -> str:
        """A replay session of a record's JSON text; a malformed record raises ``InvalidStateError``."""
        return self.store.add(ReplaySession(GameRecord.from_json(text)))

    def open_record_file(self, name: str) -> str:
        """A replay session of a file of ``serve --records DIR`` (a bare file name)."""
        if name not in self.record_files():
            raise ApiError(404, f"no record file {short_repr(name)}"
                           + (f" in {self.records_dir}" if self.records_dir else ": start serve with --records DIR"))
        assert self.records_dir is not None
        return self.open_record((self.records_dir / name).read_bytes())

    def replay_open(self, query: Mapping[str, str], body: bytes) -> Reply:
        if not body.strip():
            raise ApiError(400, "send a game record (JSON) as the body")
        data = json_body(body, "game record")
        text = data["record"] if isinstance(data, dict) and set(data) == {"record"} else body
        if not isinstance(text, (str, bytes)):
            text = json.dumps(text)
        key = self.open_record(text)
        replay = self.store.get(key, ReplaySession)
        return 200, replay_view(key, replay, 0, None)

    def replay_step(self, query: Mapping[str, str], body: bytes) -> Reply:
        key = query.get("session")
        replay = self.store.get(key, ReplaySession)
        viewer = parse_viewer(query.get("viewer"), replay.num_players)
        step = query.get("step", "0")
        if not step.strip().lstrip("-").isdigit():
            raise ApiError(400, f"bad step {short_repr(step)}: an integer")
        with replay.lock:
            return 200, replay_view(key, replay, int(step), None if viewer == "default" else viewer)

    def record_files(self) -> list[str]:
        if self.records_dir is None or not self.records_dir.is_dir():
            return []
        return sorted(p.name for p in self.records_dir.iterdir() if p.is_file() and p.suffix.lower() == ".json")

    def records(self, query: Mapping[str, str], body: bytes) -> Reply:
        return 200, {"directory": str(self.records_dir) if self.records_dir else None, "files": self.record_files()}

    # ----- helpers -------------------------------------------------------------------------------
    def _game(self, key: Any) -> tuple[str, GameSession]:
        if not isinstance(key, str) or not key:
            raise ApiError(400, "give the game's session id (session)")
        return key, self.store.get(key, GameSession)

    @staticmethod
    def _viewer(data: dict, session: GameSession) -> int | None | str:
        viewer = data.get("viewer", "default")
        if viewer != "default":
            viewer = parse_viewer("all" if viewer is None else str(viewer), session.game.num_players)
        check_allowed(session, viewer)
        return viewer


def check_allowed(session: GameSession, viewer: int | None | str) -> None:
    """While people play a hidden-information game, only their own seats' views are shown
    (403 for the full board or an agent's view) until the game is over."""
    if viewer == "default" or not session.humans or session.game.perfect_information or session.over():
        return
    if viewer not in session.humans:
        whose = "the full board" if viewer is None else f"player_{viewer}'s view"
        raise ApiError(403, f"{whose} shows hidden facts: a page shows only the people's own views until the game is over")


def json_body(body: bytes, what: str = "request body") -> Any:
    """The request's JSON (an object for the game routes); bad JSON raises ``InvalidParameterError``."""
    try:
        data = json.loads(body or b"{}")
    except (ValueError, RecursionError) as error:
        raise InvalidStateError(f"the {what} is not valid JSON: {str(error)[:200]}") from None
    if what == "request body" and not isinstance(data, dict):
        raise InvalidParameterError("the request body must be a JSON object")
    return data
