"""A session as JSON for one viewer: the board's SVG, the choices, the story, the status and result.

A viewer is ``None`` (the full board) or a seat, who sees only what that seat may know. A game
that is over is shown in full to everyone.
"""
from __future__ import annotations

from typing import Any

from fox_envs.core import ending
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.game import State
from fox_envs.core.params import integer_in, short_repr
from fox_envs.core.registry import spec
from fox_envs.ui.web.sessions import GameSession, ReplaySession
from fox_envs.ui.web.story import steps_told

ALL = ("", "all", "none", "null")  # the query values that mean the full board


def board_svg(state: State, viewer: int | None, status: str | None = None) -> str:
    """The state's SVG document as ``viewer`` sees it (``status``: a caption for a game ended
    outside the rules core)."""
    from fox_envs.core.svg import state_svg

    return state_svg(state, viewer, status=status)


def parse_viewer(text: str | None, num_players: int) -> int | None | str:
    """A ``viewer`` query value: absent or ``default`` (the session's default, returned as
    ``"default"``), ``all`` (the full board, returned as ``None``) or a seat number."""
    if text is None or text.strip().lower() == "default":
        return "default"
    if text.strip().lower() in ALL:
        return None
    seat = integer_in(_as_int(text), 0, num_players - 1)
    if seat is None:
        raise InvalidParameterError(f"bad viewer {short_repr(text)}; allowed: all or a seat 0..{num_players - 1}")
    return seat


def _as_int(text: str) -> Any:
    try:
        return int(text.strip())
    except ValueError:
        return None


def default_viewer(session: GameSession) -> int | None:
    """Whose view a page shows unless told: one person at the table sees its own view; several
    people of a hidden-information game see the view of the one to move (the page gates it);
    otherwise (agents only, or people with nothing hidden) the full board."""
    humans = session.humans
    if len(humans) == 1:
        return humans[0]
    if len(humans) > 1 and not session.game.perfect_information:
        seat = session.to_move()
        return seat if seat in humans else humans[0]
    return None


def result(returns: list[float], truncated: bool, seats: list[str]) -> dict[str, Any]:
    """A finished game's result: ``code`` (the ``data-result`` hook: returns as ``+1,-1``, or
    ``truncated``), a line of text and the returns."""
    text = ", ".join(f"{seats[k]} {r:+g}" for k, r in enumerate(returns))
    return {"code": "truncated" if truncated else ",".join(f"{r:+g}" for r in returns),
            "text": ("truncated at max_moves, no result: " if truncated else "result: ") + text,
            "returns": returns, "truncated": truncated}


def status_line(state: State, viewer: int | None, end: str | None = None) -> str:
    """The state's status line (who is to move, or how the game ended) as ``viewer`` sees it."""
    return ending.board_text(state, viewer, end).splitlines()[-1]


def game_view(key: str, session: GameSession, viewer: int | None | str = "default") -> dict[str, Any]:
    """The JSON a page draws: settings, board, choices, story, status and result."""
    shown = default_viewer(session) if viewer == "default" else viewer
    over = session.over()
    end = session.ending()
    steps = session.steps
    seats = [session.who(k) for k in range(session.game.num_players)]
    view: dict[str, Any] = {
        "session": key, "kind": "game", "game": session.env_id, "title": spec(session.env_id).title,
        "params": session.game.params, "seed": session.seed, "seats": session.names, "seat_names": seats,
        "humans": session.humans, "perfect_information": session.game.perfect_information,
        "hot_seat": len(session.humans) > 1 and not session.game.perfect_information,
        "max_moves": session.max_moves, "decisions": session.decisions,
        "viewer": None if over else shown, "to_move": session.to_move(), "human_to_move": session.human_to_move(),
        "over": over,
        "options": steps.options() if steps and session.human_to_move() else [],
        "pending": steps.pending() if steps and steps.chosen else "",
        "can_go_back": session.parts_chosen > 0,
        "svg": board_svg(session.state, None, end) if over else board_svg(session.state, shown),
        "log": session.story.lines(None if over else shown),
        "status": status_line(session.state, None if over else shown, end),
        "result": None,
    }
    if over:
        returns = [0.0] * len(seats) if session.truncated else [float(r) for r in session.state.returns()]
        view["result"] = result(returns, session.truncated, seats)
    return view


def replay_view(key: str, replay: ReplaySession, step: int, viewer: int | None) -> dict[str, Any]:
    """Step ``step`` (0 .. steps - 1) of a replay as ``viewer`` sees it: the board, the moves
    since the step before, the status, and the result at the last step of a finished game."""
    count = len(replay.positions)
    index = integer_in(step, 0, count - 1)
    if index is None:
        raise InvalidParameterError(f"bad step {short_repr(step)}; this replay has steps 0..{count - 1}")
    record = replay.record
    position = replay.positions[index]
    state = replay.states[position]
    last = index == count - 1
    end = _record_ending(replay) if last else None
    start = replay.positions[index - 1] if index else 0
    view: dict[str, Any] = {
        "session": key, "kind": "replay", "game": record.game, "title": spec(record.game).title,
        "params": record.params, "seed": record.seed, "seats": list(record.agents), "seat_names": replay.names(),
        "perfect_information": state.game.perfect_information,
        "step": index, "steps": count, "action_index": position, "actions": len(record.history),
        "viewer": viewer, "over": last and (state.is_terminal() or end is not None),
        "svg": board_svg(state, viewer, end),
        "log": steps_told(replay.states, record.history, start, position, viewer, replay.names()),
        "status": status_line(state, viewer, end), "result": None,
    }
    if view["over"]:
        returns = record.returns or ([float(r) for r in state.returns()] if state.is_terminal() else [0.0] * replay.num_players)
        view["result"] = result(returns, record.truncated, replay.names())
    return view


def _record_ending(replay: ReplaySession) -> str | None:
    record = replay.record
    if record.forfeit is not None:
        return f"game over: player_{record.forfeit} took longer than the move time and loses"
    if record.truncated and record.max_moves:
        return ending.truncated(record.max_moves)
    return None
