"""How a finished game ended, written once for every text board and picture.

The rules core decides wins, draws and repetitions: a terminal state's status line (the last
line of its text board, the line under its picture) says which. Two endings happen outside the
core: truncation at ``max_moves`` (whoever counts the player decisions stops the game) and an
illegal move (the wrapped ``env()`` ends the game, -1 for the offender). ``truncated`` and
``illegal_move`` write their status lines; ``board_text`` and ``board_picture`` draw a state
with such a line in place of its own status line, which would still name a player to move.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from fox_envs.core.game import State


def truncated(max_moves: int) -> str:
    """The status line of a game stopped after ``max_moves`` player decisions (reward 0 each)."""
    moves = "move" if max_moves == 1 else "moves"
    return f"game over: truncated after {max_moves} player {moves} (max_moves), no result"


def illegal_move(player: int) -> str:
    """The status line of a game ended by an illegal move of seat ``player``."""
    return f"game over: player_{player} made an illegal move and loses (-1, the others 0)"


def board_text(state: "State", viewer: int | None = None, ending: str | None = None) -> str:
    """``state.render_text(viewer)`` with its status line (the last line) replaced by ``ending``
    when the game ended outside the rules core."""
    text = state.render_text(viewer)
    if ending is None:
        return text
    lines = text.splitlines()
    lines[-1] = ending
    return "\n".join(lines)


def board_picture(state: "State", viewer: int | None = None, ending: str | None = None) -> "np.ndarray":
    """``state.render_rgb(viewer)`` with ``ending`` drawn as its status line when given."""
    if ending is None:
        return state.render_rgb(viewer)
    return state.render_rgb(viewer, status=ending)
