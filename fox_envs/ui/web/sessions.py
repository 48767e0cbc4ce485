"""Games and replays kept on the server, each under a random id.

``GameSession``: one game being played or watched. People build their move part by part
(``MoveSteps``: the labels they click); agents move on the server, one decision per request;
chance is resolved at once. ``ReplaySession``: the states of a recorded game, to step through.
``SessionStore`` holds the latest sessions (the least recently used are dropped past a limit).
"""
from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np

from fox_envs.core import ending
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.game import CHANCE, State, sample_chance
from fox_envs.core.registry import make_game
from fox_envs.evaluation.records import GameRecord, record_from_state, replay_states
from fox_envs.core.move_steps import MoveSteps
from fox_envs.ui.web.seats import HUMAN, Setup, check_game, checked_seat
from fox_envs.ui.web.story import Story


class Conflict(Exception):
    """A request that does not fit the game's moment (an agent asked to move on a person's turn)."""


class UnknownSession(KeyError):
    """No session has this id (never made, or dropped)."""


class GameSession:
    """One game at the table: its seats (people and agents), state, story and the move being built."""

    def __init__(self, setup: Setup, policy_dir: Path | None = None) -> None:
        from fox_envs.agents.registry import make_agent

        check_game(setup.env_id)
        self.env_id = setup.env_id
        self.game = make_game(setup.env_id, **setup.params)
        n = self.game.num_players
        seats = list(setup.seats) or [HUMAN] + ["heuristic"] * (n - 1)
        if len(seats) != n or not all(seats):
            raise InvalidParameterError(
                f"{setup.env_id} with these params has {n} seats: give {n} comma-separated seats, got {len(seats)}")
        self.seats = [checked_seat(seat, setup.env_id, policy_dir) for seat in seats]
        self.names = [seat if "/" not in seat else Path(seat).name for seat in self.seats]
        self.seed = setup.seed if setup.seed is not None else int(np.random.SeedSequence().generate_state(1)[0])
        children = np.random.SeedSequence(self.seed).spawn(n + 1)
        self.rng = np.random.default_rng(children[0])
        self.agents = [None if seat == HUMAN else make_agent(seat, setup.env_id, seed=int(children[k + 1].generate_state(1)[0]))
                       for k, seat in enumerate(self.seats)]
        self.max_moves = self.game.max_moves_default if setup.max_moves is None else setup.max_moves
        self.state: State = self.game.new_initial_state()
        self.story = Story(n)
        self.decisions = 0
        self.truncated = False
        self.lock = threading.Lock()
        self._resolve_chance()
        self.steps = self._new_steps()
        self.parts_chosen = 0  # clicks on the move being built (back() undoes them)

    # ----- where the game stands ----------------------------------------------------------------
    @property
    def humans(self) -> list[int]:
        return [seat for seat, agent in enumerate(self.agents) if agent is None]

    def over(self) -> bool:
        return self.truncated or self.state.is_terminal()

    def to_move(self) -> int | None:
        """The seat to move, or ``None`` when the game is over."""
        return None if self.over() else self.state.current_player()

    def human_to_move(self) -> bool:
        seat = self.to_move()
        return seat is not None and self.agents[seat] is None

    def ending(self) -> str | None:
        """The status line of a game ended outside the rules core (truncated), else ``None``."""
        return ending.truncated(self.max_moves) if self.truncated else None

    def who(self, seat: int) -> str:
        return f"player_{seat}" + ("" if self.agents[seat] is None else f" ({self.names[seat]})")

    # ----- acting -------------------------------------------------------------------------------
    def choose(self, label: str) -> str | None:
        """A person's click (or typed move): the label of the next part, or a whole legal move.
        Returns the move once it is complete (and played), else ``None``; a label that is not a
        choice now raises ``InvalidChoice`` (a ``ValueError``) saying what may be chosen."""
        self._require_human()
        move = self.steps.take(label)
        self.parts_chosen += 1
        if move is not None:
            legal = self.state.legal_actions()
            names = [self.state.action_to_string(a) for a in legal]
            self._play(legal[names.index(move)])
        return move

    def back(self) -> bool:
        """Undo the last part chosen of the move being built; False when none was."""
        self._require_human()
        if not self.steps.back():
            return False
        self.parts_chosen -= 1
        return True

    def agent_move(self) -> int:
        """The seat to move is an agent: it decides and the move is played. Returns the action."""
        from fox_envs.evaluation.match import checked_action

        seat = self.to_move()
        if seat is None:
            raise Conflict("the game is over")
        agent = self.agents[seat]
        if agent is None:
            raise Conflict(f"player_{seat} is a person: choose a move for it instead")
        action = checked_action(self.state, agent.act(self.state, seat), f"agent {self.names[seat]!r} in seat {seat}")
        self._play(action)
        return action

    def record(self) -> GameRecord:
        """The game so far as a game record (the replay page opens it)."""
        returns = [float(r) for r in self.state.returns()] if self.state.is_terminal() else []
        return record_from_state(self.state, seed=self.seed, agents=list(self.names), returns=returns,
                                 length=self.decisions, truncated=self.truncated, max_moves=self.max_moves)

    def _require_human(self) -> None:
        seat = self.to_move()
        if seat is None:
            raise Conflict("the game is over")
        if self.agents[seat] is not None:
            raise Conflict(f"player_{seat} is an agent ({self.names[seat]}): it moves on its own")

    def _play(self, action: int) -> None:
        seat = self.state.current_player()
        self._apply(action, self.who(seat))
        self.decisions += 1
        self._resolve_chance()
        if not self.state.is_terminal() and self.decisions >= self.max_moves:
            self.truncated = True
        self.steps = self._new_steps()
        self.parts_chosen = 0

    def _apply(self, action: int, who: str | None) -> None:
        before = self.state.clone()
        self.state.apply_action(action)
        self.story.add(before, action, self.state, who)

    def _resolve_chance(self) -> None:
        while self.state.current_player() == CHANCE:
            self._apply(sample_chance(self.state, self.rng), None)

    def _new_steps(self) -> MoveSteps | None:
        if self.over():
            return None
        return MoveSteps([self.state.action_to_string(a) for a in self.state.legal_actions()])


class ReplaySession:
    """A recorded game to step through: a step is a position where a player is to move (chance
    events between them are told with the move before), plus the end."""

    def __init__(self, record: GameRecord) -> None:
        self.record = record
        self.states = replay_states(record)
        last = len(self.states) - 1
        self.positions = [k for k, state in enumerate(self.states) if not state.is_chance_node() or k == last]
        self.lock = threading.Lock()

    @property
    def num_players(self) -> int:
        return self.states[0].game.num_players

    def names(self) -> list[str]:
        agents = self.record.agents
        return [f"player_{k}" + (f" ({agents[k]})" if k < len(agents) else "") for k in range(self.num_players)]


class SessionStore:
    """Sessions by id, at most ``limit`` of them (the least recently used are dropped)."""

    def __init__(self, limit: int = 200) -> None:
        self.limit = limit
        self._sessions: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, session: Any) -> str:
        key = secrets.token_urlsafe(9)
        with self._lock:
            self._sessions[key] = session
            while len(self._sessions) > self.limit:
                self._sessions.popitem(last=False)
        return key

    def get(self, key: Any, kind: type) -> Any:
        with self._lock:
            session = self._sessions.get(key) if isinstance(key, str) else None
            if not isinstance(session, kind):
                raise UnknownSession(key)
            self._sessions.move_to_end(key)
            return session
